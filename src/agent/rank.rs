//! Reading a question, as pure functions over its text: what kind of answer it asks for (each
//! kind has its cues — numbers for "how many / what size", "we propose / this paper" for
//! contributions, "dataset / corpus" for data, "limitation / unfortunately / bug" for
//! limitations), its key terms stemmed like the index's, the selection's words that expand it,
//! and the search query made of them. Choosing the sentences that answer it is `choose`'s job
//! (BM25 over the sentences of the candidate pages, no model: every quote is a sentence copied
//! from a page, so it is really on the page it cites).

use super::shape;
use crate::context::mention::syntax;

// The ranking's vocabulary, the choice and the text leaves, at the paths they have always had.
pub use super::candidate::{Candidate, Kind, Pick, Question};
pub use super::choose::choose;
pub use super::text::{MAX_QUOTE, cut, sentences, stems};

use super::kind::contains_any;
pub use super::kind::kind_of;

impl Question {
    /// The search query: the key words, then the anchor's (the index's parser ORs them and
    /// weighs rare words higher).
    pub fn query(&self, anchor_words: &[String]) -> String {
        let mut q: Vec<String> = self.words.clone();
        for w in anchor_words {
            if !q.contains(w) {
                q.push(w.clone());
            }
        }
        // The words data and limitations are talked about with, when those are asked for
        // (and a contribution's, when the question has no words of its own).
        if q.is_empty() || matches!(self.kind, Kind::Dataset | Kind::Limitation) {
            for c in cue_query(self.kind) {
                if !q.iter().any(|w| w == c) {
                    q.push(c.to_string());
                }
            }
        }
        q.join(" ")
    }
}

const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "describe",
    "did",
    "do",
    "does",
    "doing",
    "during",
    "each",
    "explain",
    "few",
    "for",
    "from",
    "further",
    "give",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "may",
    "me",
    "mean",
    "meaning",
    "means",
    "might",
    "more",
    "most",
    "must",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "out",
    "over",
    "own",
    "please",
    "same",
    "say",
    "says",
    "she",
    "should",
    "show",
    "so",
    "some",
    "such",
    "summarize",
    "summarise",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "use",
    "used",
    "uses",
    "using",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
];

/// Words that name the thing asked about rather than what it says ("this paper", "the
/// selection"): dropped from the key words after "this", "that" or "our" ("paper sizes" and
/// "the proposal" stay: they say which one).
const POINTERS: &[&str] = &[
    "paper",
    "papers",
    "document",
    "article",
    "file",
    "passage",
    "sentence",
    "paragraph",
    "selection",
    "page",
    "proposal",
];

const DETERMINERS: &[&str] = &["this", "that", "these", "those", "our", "my", "your"];

/// Words of the question that only say which kind of answer is wanted.
fn kind_words(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Contribution => &[
            "main",
            "contribution",
            "contributions",
            "purpose",
            "objective",
            "aim",
            "goal",
            "propose",
            "proposes",
            "idea",
            "topic",
        ],
        Kind::Limitation => &[
            "limitation",
            "limitations",
            "weakness",
            "weaknesses",
            "drawback",
            "drawbacks",
            "shortcoming",
            "shortcomings",
            "known",
        ],
        Kind::Dataset => &[],
        Kind::Number | Kind::Name | Kind::Other => &[],
    }
}

/// Words of the question that ask for a number: searched with the rest (the search was tuned
/// with them), not scored in a sentence ("How many registers …?" is not answered by "many
/// features").
const NUMBER_ASKING: &[&str] = &["many", "much"];

/// Searched when the question has no key words of its own (a contribution question).
fn cue_query(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Contribution => &[
            "propose",
            "present",
            "introduce",
            "contribution",
            "purpose",
            "objective",
            "describes",
            "demonstrates",
            "aim",
        ],
        Kind::Dataset => &["dataset", "corpus", "data", "benchmark", "collection"],
        Kind::Limitation => &[
            "limitation",
            "unfortunately",
            "bug",
            "problem",
            "future",
            "however",
            "depends",
            "fails",
            "broken",
        ],
        Kind::Number | Kind::Name | Kind::Other => &[],
    }
}

/// The question's key words: lowercase, stop words, pointer words and `@mentions` dropped,
/// first occurrence order, at most 8.
pub fn keywords(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut previous = String::new();
    for token in question.split_whitespace() {
        if syntax::strip(token).is_some()
            || token.starts_with('/') && out.is_empty() && token.len() > 1
        {
            continue;
        }
        for typed in token.split(|c: char| !c.is_alphanumeric()) {
            let w = typed.to_lowercase();
            if w.is_empty() {
                continue;
            }
            // Two characters with a digit or a capital past the question's first word are a
            // name or a symbol ("r0", "Ag", "IV"), not a short function word.
            let symbol = w.chars().count() == 2
                && (typed.chars().any(|c| c.is_ascii_digit())
                    || !previous.is_empty() && typed.chars().any(char::is_uppercase));
            let pointer = POINTERS.contains(&w.as_str())
                && (DETERMINERS.contains(&previous.as_str()) || w == "selection");
            let prev = std::mem::replace(&mut previous, w.clone());
            if pointer || prev == "selected" {
                continue;
            }
            // A letter on its own is a name in a question ("the x specifier", "starting with
            // g"); other short words are not key words, numbers are.
            let letter = w.len() == 1 && w.chars().all(|c| c.is_ascii_lowercase());
            if (letter
                || symbol
                || w.chars().count() >= 2
                    && (w.chars().count() >= 3 || w.chars().all(|c| c.is_ascii_digit())))
                && !STOP_WORDS.contains(&w.as_str())
                && w != "selected"
                && !out.contains(&w)
            {
                out.push(w);
            }
        }
    }
    out.truncate(8);
    out
}

/// The question points at what the user is reading: "Explain this selection", "What does this
/// mean?", "Why is that?", "Summarize this page".
fn is_deictic(question: &str, words: &[String]) -> bool {
    let q = question.to_lowercase();
    let pointing = contains_any(
        &q,
        &[
            "this selection",
            "the selection",
            "selected",
            "this passage",
            "this sentence",
            "this paragraph",
            "this mean",
            "that mean",
            "this page",
            "why is that",
            "why is this",
            "explain this",
            "explain that",
            "what is this",
            "summarize",
            "summarise",
        ],
    );
    pointing || words.is_empty()
}

/// Reads a question; `anchor` is the selected text, if any.
pub fn read_question(question: &str, anchor: Option<&str>) -> Question {
    let kind = kind_of(question);
    let all = keywords(question);
    let drop = kind_words(kind);
    let words: Vec<String> = all
        .iter()
        .filter(|w| !drop.contains(&w.as_str()))
        .cloned()
        .collect();
    let deictic = is_deictic(question, &words);
    let this_page = question.to_lowercase().contains("this page");
    let scored: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| !(kind == Kind::Number && NUMBER_ASKING.contains(w)))
        .collect();
    let terms = unique(stems(&scored.join(" ")));
    let expansion = anchor
        .map(|a| {
            unique(stems(&keywords_of_text(a, 6).join(" ")))
                .into_iter()
                .filter(|t| !terms.contains(t))
                .collect()
        })
        .unwrap_or_default();
    let setting = question
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| {
            matches!(
                w,
                "use" | "used" | "uses" | "set" | "chosen" | "default" | "choose"
            )
        });
    Question {
        kind,
        words,
        terms,
        expansion,
        deictic,
        this_page,
        setting,
        asks: shape::asks(question),
    }
}

/// The distinctive words of a passage (the selection): longer, non-stop words, first
/// occurrence order.
pub fn keywords_of_text(text: &str, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let lw = w.to_lowercase();
        if lw.chars().count() >= 4
            && !STOP_WORDS.contains(&lw.as_str())
            && !lw.chars().all(|c| c.is_ascii_digit())
            && !out.contains(&lw)
        {
            out.push(lw);
        }
    }
    // Longer words are usually the rarer ones: keep those when there are too many.
    if out.len() > max {
        let mut by_len: Vec<(usize, String)> = out
            .iter()
            .enumerate()
            .map(|(i, w)| (i, w.clone()))
            .collect();
        by_len.sort_by(|a, b| {
            b.1.chars()
                .count()
                .cmp(&a.1.chars().count())
                .then(a.0.cmp(&b.0))
        });
        by_len.truncate(max);
        by_len.sort();
        out = by_len.into_iter().map(|(_, w)| w).collect();
    }
    out
}

fn unique(mut v: Vec<String>) -> Vec<String> {
    let mut seen = Vec::new();
    v.retain(|t| {
        if seen.contains(t) {
            false
        } else {
            seen.push(t.clone());
            true
        }
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A letter on its own names something (a specifier, a prefix); "a" and "I" stay stop
    /// words, other short words are dropped, mentions too.
    #[test]
    fn key_words_keep_single_letters_that_name_things() {
        assert_eq!(
            keywords("What does the x argument specifier do? @papers/l3/paper.pdf"),
            ["x", "argument", "specifier"]
        );
        assert_eq!(
            keywords("What does a variable name starting with g mean?"),
            ["variable", "name", "starting", "g"]
        );
        assert_eq!(keywords("Am I in a loop of 42 ms?"), ["loop", "42"]);
        assert_eq!(
            keywords("What is r0 of Ag in Table IV?"),
            ["r0", "ag", "table", "iv"]
        );
        assert_eq!(keywords("Is it OK?"), ["ok"]);
    }

    fn cand(uri: &str, text: &str) -> Candidate {
        Candidate {
            uri: uri.into(),
            title: String::new(),
            text: text.into(),
            rank: Some(0),
            anchor: false,
            first_page: false,
        }
    }

    #[test]
    fn pointer_and_kind_words_are_not_searched() {
        let q = read_question("How many registers are there in extended mode?", None);
        assert_eq!(q.words, ["many", "registers", "extended", "mode"]);
        assert_eq!(q.terms, stems("registers extended mode"));
        let q = read_question("What is the main contribution of this paper?", None);
        assert!(q.words.is_empty(), "{:?}", q.words);
        assert!(q.deictic);
        let q = read_question(
            "Explain this selection",
            Some("A gutter is a vertical strip of whitespace between columns."),
        );
        assert!(q.words.is_empty() && q.deictic);
        assert!(
            q.expansion.contains(&"gutter".to_string()),
            "{:?}",
            q.expansion
        );
        let q = read_question("Should authors include page numbers?", None);
        assert!(q.words.contains(&"numbers".to_string()));
        assert!(!q.deictic);
    }

    #[test]
    fn sentences_respect_abbreviations_initials_and_bullets() {
        let s = sentences(
            "Place it in parentheses, e. g. Eq. (1), as shown. A. U. Thor wrote it. Manuscripts should have: • Either A4 paper. • Single-spaced text.",
        );
        assert_eq!(
            s,
            vec![
                "Place it in parentheses, e. g. Eq. (1), as shown.",
                "A. U. Thor wrote it.",
                "Manuscripts should have:",
                "• Either A4 paper.",
                "• Single-spaced text.",
            ]
        );
    }

    #[test]
    fn a_number_answers_a_how_many_question() {
        // The window-size case: the sentence with the number wins over one that only talks
        // about the window.
        let page = "Window size matters, but the optimum is broad. We slide a window of 150 words over each page and keep the best one. Results follow.";
        let q = read_question("What window size is used?", None);
        let picks = choose(&q, &[cand("p.pdf#page=2", page)], None);
        assert!(picks[0].text.contains("150 words"), "{picks:?}");
    }

    #[test]
    fn contribution_cues_find_the_purpose() {
        let page = "Graphs have many paths. In this paper, using an algebraic method, we parametrize the adjacency matrix. The matrix is square.";
        let q = read_question("What is the main contribution of this paper?", None);
        let picks = choose(&q, &[cand("p.pdf#page=3", page)], None);
        assert!(picks[0].text.starts_with("In this paper"), "{picks:?}");
    }

    #[test]
    fn the_title_is_never_quoted_and_the_selection_comes_first() {
        let mut c = cand(
            "p.pdf#page=1",
            "Long title: Template and instructions\n\nThe short title has at most 45 characters. Other text about titles follows here. A running title is the short title repeated on each page.",
        );
        c.title = "Long title: Template and instructions".into();
        let q = read_question("How long can the short title be?", None);
        let picks = choose(&q, std::slice::from_ref(&c), None);
        assert!(picks.iter().all(|p| !p.text.starts_with("Long title")));
        assert!(picks[0].text.contains("45 characters"));
        // Selected, the sentence about running titles is quoted first when asked about, though
        // another sentence scores higher on its own.
        c.anchor = true;
        let sel = "Other text about titles follows here. A running title is the short title repeated on each page.";
        let q = read_question("What is the short title repeated on?", Some(sel));
        let picks = choose(&q, std::slice::from_ref(&c), Some(sel));
        assert!(picks[0].text.starts_with("A running title"), "{picks:?}");
        // "Explain this selection": its best sentence first.
        let q = read_question("Explain this selection", Some(sel));
        let picks = choose(&q, &[c], Some(sel));
        assert!(sel.contains(picks[0].text.as_str()), "{picks:?}");
    }

    #[test]
    fn footnotes_captions_and_headers_rank_below_the_body() {
        let page = "3 Layout 7\nThe body says the margins are 20 mm on each side of the page.\n\nFigure 2: The margins are drawn 20 mm wide here.\n\n1 The margins were 25 mm in the first edition.";
        let q = read_question("How wide are the margins?", None);
        let picks = choose(&q, &[cand("p.pdf#page=7", page)], None);
        assert!(picks[0].text.starts_with("The body says"), "{picks:?}");
        // Asked for by name, the caption is not ranked down.
        let q = read_question("Which figure shows the margins?", None);
        let picks = choose(&q, &[cand("p.pdf#page=7", page)], None);
        assert!(picks[0].text.starts_with("Figure 2"), "{picks:?}");
    }

    #[test]
    fn a_how_much_question_quotes_the_table_row_with_its_numbers() {
        let page = "The radii of the ions are compared in the table below for each of the metals.\n\nTABLE IV. Radii of ions.\nrc r0 kr0\nCu 0.800 14.10 2.550\nAg 0.990 15.90 2.710\nAu 1.150 15.90 2.710";
        let q = read_question("What is the r0 value of Ag?", None);
        assert_eq!(q.kind, Kind::Number);
        let picks = choose(&q, &[cand("p.pdf#page=5", page)], None);
        assert!(
            picks
                .iter()
                .take(2)
                .any(|p| p.text == "Ag 0.990 15.90 2.710"),
            "{picks:?}"
        );
    }

    #[test]
    fn chinese_questions_have_kinds_and_sentences_end_at_full_width_stops() {
        assert_eq!(
            kind_of("本科生的论文达到多少页后需要改为双面打印？"),
            Kind::Number
        );
        assert_eq!(kind_of("列表最多可以嵌套几层？"), Kind::Number);
        assert_eq!(kind_of("LaTeX 有哪些缺点？"), Kind::Limitation);
        assert_eq!(
            sentences(
                "规定，本科生的论文在达到 70 页后，需要改为采用双面打印。这时，页面需要调整。"
            ),
            vec![
                "规定，本科生的论文在达到 70 页后，需要改为采用双面打印。",
                "这时，页面需要调整。"
            ]
        );
        let long: String = "字".repeat(400);
        assert_eq!(cut(&long).chars().count(), MAX_QUOTE);
    }

    #[test]
    fn nothing_scores_nothing_is_picked() {
        let q = read_question("zebra migration patterns", None);
        assert!(
            choose(
                &q,
                &[cand(
                    "p.pdf#page=1",
                    "Columns and gutters of a page layout are found first."
                )],
                None
            )
            .is_empty()
        );
    }

    #[test]
    fn two_to_four_quotes() {
        let page = "Footnotes use 8 pt type. Footnotes appear at the bottom. Footnotes are numbered. Footnotes on the title use symbols. Footnotes are rare. Footnotes again here.";
        let q = read_question("What about footnotes?", None);
        let picks = choose(&q, &[cand("p.pdf#page=3", page)], None);
        assert!((2..=4).contains(&picks.len()), "{picks:?}");
    }
}
