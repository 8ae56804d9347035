//! Choosing the sentences that answer a question, as pure functions over text: the question's
//! kind and key terms, sentences of the candidate pages, BM25 over those sentences (each
//! sentence a document, the terms stemmed like the index's), and cues for the kind of question
//! — numbers for "how many / what size", "we propose / this paper" for contributions, "dataset /
//! corpus" for data, "limitation / unfortunately / bug" for limitations. No model: every quote is
//! a sentence copied from a page, so it is really on the page it cites.

use tantivy::tokenizer::TokenStream;

pub use super::choose::choose;
use super::shape::{self, Asks};

/// What kind of answer the question asks for (each has its cues).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// How many, how much, what size, which version: a number answers it.
    Number,
    /// The contribution, purpose or topic of a paper.
    Contribution,
    /// The data a paper uses.
    Dataset,
    /// Limitations, known bugs, future work.
    Limitation,
    Other,
}

/// A question, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub kind: Kind,
    /// The key words as typed (lowercase), for messages.
    pub words: Vec<String>,
    /// The key words stemmed: what sentences are scored with.
    pub terms: Vec<String>,
    /// Stemmed words of the anchor (the selection), weighted lower.
    pub expansion: Vec<String>,
    /// The question points at the anchor ("this selection", "what does this mean?").
    pub deictic: bool,
    /// The question asks about the current page itself ("this page").
    pub this_page: bool,
    /// The question asks for a setting ("what window size is used?", "the default …").
    pub setting: bool,
    /// What the question names (a figure, a footnote, a reference), so those are not ranked down.
    pub asks: Asks,
}

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
        Kind::Number | Kind::Other => &[],
    }
}

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
        Kind::Number | Kind::Other => &[],
    }
}

fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

pub fn kind_of(question: &str) -> Kind {
    let q = format!(" {} ", question.to_lowercase());
    if contains_any(
        &q,
        &[
            "limitation",
            "weakness",
            "drawback",
            "shortcoming",
            "future work",
            " bug",
            "caveat",
            " fail",
            "problems",
            "缺点",
            "局限",
            "不足",
            "弱点",
            "欠点",
            "問題点",
            "什么问题",
            "단점",
            "한계",
        ],
    ) {
        return Kind::Limitation;
    }
    if contains_any(
        &q,
        &[
            "dataset",
            "data set",
            "corpus",
            "corpora",
            "benchmark",
            "what data",
            "which data",
        ],
    ) {
        return Kind::Dataset;
    }
    if contains_any(
        &q,
        &[
            "contribution",
            "propose",
            "purpose",
            "objective",
            " aim ",
            " goal",
            "main idea",
            " about?",
            " about ",
            "what is this ",
        ],
    ) || is_what_for(&q)
    {
        return Kind::Contribution;
    }
    if contains_any(
        &q,
        &[
            "how many",
            "how much",
            "how long",
            "how big",
            "how wide",
            "how large",
            "how far",
            "how high",
            "how tall",
            "how small",
            "how often",
            "how old",
            "what size",
            "which size",
            "what percentage",
            "what share",
            "what fraction",
            "what proportion",
            "what number",
            "what version",
            "which version",
            "what resolution",
            "maximum",
            "minimum",
            "at most",
            "at least",
            "word limit",
            "what year",
            "when was",
            "default value",
            "font size",
            "text size",
            // Chinese, Japanese and Korean "how many / how much / which year / what share".
            "多少",
            "几个",
            "几层",
            "几种",
            "几部分",
            "几页",
            "多大",
            "多长",
            "多宽",
            "多高",
            "哪一年",
            "哪年",
            "百分之",
            "何年",
            "何種類",
            "何個",
            "何ページ",
            "何文字",
            "いくつ",
            "どのくらい",
            "몇",
            "얼마",
        ],
    ) || q.contains('几') && !q.contains("几乎")
    {
        return Kind::Number;
    }
    // "What window size is used?", "Which version of natbib …?"
    let t = q.trim_start();
    if (t.starts_with("what ") || t.starts_with("which "))
        && contains_any(
            &q,
            &[
                " size",
                " version",
                " resolution",
                " length",
                " width",
                " height",
                " percentage",
                " number of",
                " year ",
                " date ",
                " value",
                " values",
            ],
        )
    {
        return Kind::Number;
    }
    Kind::Other
}

/// "What is the lps class for?", "What is this demo file for?"
fn is_what_for(q: &str) -> bool {
    let t = q.trim().trim_end_matches('?').trim_end();
    t.starts_with("what is") && t.ends_with(" for")
}

/// The question's key words: lowercase, stop words, pointer words and `@mentions` dropped,
/// first occurrence order, at most 8.
pub fn keywords(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut previous = String::new();
    for token in question.split_whitespace() {
        if token.starts_with('@') || token.starts_with('/') && out.is_empty() && token.len() > 1 {
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
    let terms = unique(stems(&words.join(" ")));
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

/// Lower-cased, stemmed tokens of `text`, as the search index makes them.
pub fn stems(text: &str) -> Vec<String> {
    let mut analyzer = crate::vault::tokenizer::analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// Abbreviations after which a full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "cf", "fig", "figs", "eq", "eqs", "ref", "refs", "sec", "no", "vol", "pp", "vs",
    "al", "etc", "approx", "ca", "resp", "dr", "prof", "mr", "ms", "st", "ch", "tab",
];

/// Sentences of `text` with whitespace collapsed (so a quote is a substring of the text with
/// its whitespace collapsed). A sentence ends at `.`, `?` or `!` followed by a space and a
/// capital, digit or bracket (not after an abbreviation or an initial), at a bullet, and at a
/// paragraph break: a title, an author block or a heading is never glued to the next sentence.
pub fn sentences(text: &str) -> Vec<String> {
    text.split("\n\n")
        .flat_map(split_headings)
        .flat_map(|b| block_sentences(&b))
        .collect()
}

/// Cuts a block after each heading-like line ("Abstract", "2.1 Scoring"): a short line without
/// closing punctuation followed by a line that starts a new sentence.
fn split_headings(block: &str) -> Vec<String> {
    let lines: Vec<&str> = block.lines().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, line) in lines.iter().enumerate() {
        cur.push_str(line);
        cur.push('\n');
        let t = line.trim();
        let next_starts = lines
            .get(i + 1)
            .and_then(|n| n.trim().chars().next())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || c == '•');
        let heading = !t.is_empty()
            && t.split_whitespace().count() <= 6
            && !t.ends_with(['.', ',', ';', ':', '-', '?', '!'])
            && next_starts;
        if heading {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn ends_sentence(flat: &str, i: usize) -> bool {
    let bytes = flat.as_bytes();
    if !matches!(bytes[i], b'.' | b'?' | b'!') {
        return false;
    }
    if i + 1 == bytes.len() {
        return true;
    }
    if bytes[i + 1] != b' ' {
        return false;
    }
    let next = flat[i + 2..].chars().next();
    let starts = next.is_some_and(|c| {
        c.is_uppercase() || c.is_ascii_digit() || matches!(c, '(' | '[' | '"' | '“' | '‘' | '•')
    });
    if !starts {
        return false;
    }
    if bytes[i] != b'.' {
        return true;
    }
    // The word before the stop: an abbreviation or an initial does not end a sentence.
    let before = &flat[..i];
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let lw = word.to_lowercase();
    let lw = lw.trim_start_matches(['(', '[', '"', '“']);
    if ABBREVIATIONS.contains(&lw) {
        return false;
    }
    let letters: Vec<char> = lw.chars().filter(|c| c.is_alphabetic()).collect();
    !(letters.len() == 1 && word.chars().count() <= 2)
}

fn block_sentences(block: &str) -> Vec<String> {
    let flat = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut start = 0;
    let push = |s: &str, out: &mut Vec<String>| {
        let s = s.trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
    };
    let mut i = 0;
    while i < flat.len() {
        if !flat.is_char_boundary(i) {
            i += 1;
            continue;
        }
        if flat[i..].starts_with(" • ") && i > start {
            push(&flat[start..i], &mut out);
            start = i + 1;
        } else if let Some(c) = flat[i..].chars().next()
            && matches!(c, '。' | '！' | '？')
        {
            // A full-width stop ends a Chinese or Japanese sentence, space or not.
            let end = i + c.len_utf8();
            push(&flat[start..end], &mut out);
            start = end;
            i = end;
            continue;
        } else if ends_sentence(&flat, i) {
            push(&flat[start..=i], &mut out);
            start = i + 1;
        }
        i += 1;
    }
    push(&flat[start..], &mut out);
    out
}

/// Longest quote an answer carries; longer sentences are cut at a word boundary (the cut is
/// still a verbatim substring of the source).
pub const MAX_QUOTE: usize = 320;

pub fn cut(sentence: &str) -> String {
    if sentence.chars().count() <= MAX_QUOTE {
        return sentence.to_string();
    }
    let mut out = String::new();
    for w in sentence.split(' ') {
        if out.chars().count() + w.chars().count() + 1 > MAX_QUOTE {
            if out.chars().count() < MAX_QUOTE / 2 {
                // A long run without spaces (Chinese, Japanese): cut it by characters.
                if !out.is_empty() {
                    out.push(' ');
                }
                let room = MAX_QUOTE.saturating_sub(out.chars().count());
                out.extend(w.chars().take(room));
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// A page (or file region) the answer may quote from.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub uri: String,
    /// The source's title (a sentence that is just the title says nothing).
    pub title: String,
    pub text: String,
    /// Where the search ranked it (0 = best); `None` for a page read for another reason.
    pub rank: Option<usize>,
    /// The page the user is reading or selected on.
    pub anchor: bool,
    /// The first page of a paper (abstract, introduction).
    pub first_page: bool,
}

/// A sentence chosen for the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub text: String,
    pub uri: String,
    pub score: f64,
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
    fn kinds_of_questions() {
        assert_eq!(kind_of("What window size is used?"), Kind::Number);
        assert_eq!(kind_of("How many referees review a paper?"), Kind::Number);
        assert_eq!(
            kind_of("What is the main contribution?"),
            Kind::Contribution
        );
        assert_eq!(kind_of("What is this paper about?"), Kind::Contribution);
        assert_eq!(kind_of("What is the lps class for?"), Kind::Contribution);
        assert_eq!(kind_of("Which dataset do they use?"), Kind::Dataset);
        assert_eq!(kind_of("What are the limitations?"), Kind::Limitation);
        assert_eq!(kind_of("Where are table captions placed?"), Kind::Other);
    }

    #[test]
    fn pointer_and_kind_words_are_not_searched() {
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
