//! Choosing the sentences that answer a question, as pure functions over text: the question's
//! kind and key terms, sentences of the candidate pages, BM25 over those sentences (each
//! sentence a document, the terms stemmed like the index's), and cues for the kind of question
//! — numbers for "how many / what size", "we propose / this paper" for contributions, "dataset /
//! corpus" for data, "limitation / unfortunately / bug" for limitations. No model: every quote is
//! a sentence copied from a page, so it is really on the page it cites.

use std::collections::HashMap;

use tantivy::tokenizer::TokenStream;

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
        ],
    ) {
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
        for w in token.split(|c: char| !c.is_alphanumeric()) {
            let w = w.to_lowercase();
            if w.is_empty() {
                continue;
            }
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

struct Sent<'a> {
    text: String,
    cand: &'a Candidate,
    /// Position of the sentence on its page (0 = first).
    pos: usize,
    tf: HashMap<String, usize>,
    len: usize,
    /// A number within a few words of a key term ("windows of 150 words").
    number_near_term: bool,
}

/// Words between a key term and a number for the number to be about it.
const NEAR: usize = 3;

fn number_near(tokens: &[String], terms: &[String]) -> bool {
    let numbers: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.chars().all(|c| c.is_ascii_digit()) || NUMBER_WORDS.contains(&t.as_str())
        })
        .map(|(i, _)| i)
        .collect();
    tokens
        .iter()
        .enumerate()
        .any(|(i, t)| terms.contains(t) && numbers.iter().any(|n| n.abs_diff(i) <= NEAR))
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// How much a cue adds, relative to the best BM25 score of the candidates.
const CUE: f64 = 0.35;

const CONTRIBUTION_CUES: &[&str] = &[
    "we propose",
    "we present",
    "we introduce",
    "we describe",
    "we show",
    "our contribution",
    "contributions",
    "in this paper",
    "this paper",
    "this document",
    "this proposal",
    "this article",
    "this file",
    "this class",
    "the present",
    "the aim",
    "the objective",
    "the purpose",
    "is intended",
    "describes",
    "demonstrates",
    "presents",
    "explains",
    "is proposed",
    "allows",
    "serves",
    "is designed",
    "is the reference",
    "in order to",
    "modifies",
    "provides",
];

const DATASET_CUES: &[&str] = &[
    "dataset",
    "data set",
    "corpus",
    "corpora",
    "benchmark",
    "collected",
    "annotated",
    "training data",
    "test set",
    "collection",
    "questions written",
];

const LIMITATION_CUES: &[&str] = &[
    "limitation",
    "future work",
    "unfortunately",
    "bug",
    "problem",
    "drawback",
    "not supported",
    "does not",
    "cannot",
    "known",
    "incompatib",
    "however",
    "depends on",
    "broken",
    "worse",
    "fail",
    "precondition",
];

const UNITS: &[&str] = &[
    "pt",
    "mm",
    "cm",
    "in",
    "%",
    "word",
    "character",
    "page",
    "line",
    "dpi",
    "px",
    "kb",
    "mb",
    "times",
    "point",
    "author",
    "referee",
    "figure",
    "keyword",
    "column",
];

const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "twenty", "hundred", "thousand", "once", "twice", "single", "double", "half",
    "dozen",
];

/// A digit, or a number written as a word ("usually by two referees").
fn has_number(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
        || s.split(|c: char| !c.is_alphanumeric())
            .any(|w| NUMBER_WORDS.contains(&w.to_lowercase().as_str()))
}

/// A number followed by a unit ("14 pt", "150 words", "4%", "39 lines").
fn has_quantity(lower: &str) -> bool {
    let b = lower.as_bytes();
    for (i, c) in lower.char_indices() {
        if !c.is_ascii_digit()
            || b.get(i + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == b'.')
        {
            continue;
        }
        let rest = lower[i + 1..].trim_start();
        if UNITS.iter().any(|u| rest.starts_with(u)) {
            return true;
        }
    }
    false
}

/// How a setting is stated ("we use W = 150", "is set to").
const SETTING_CUES: &[&str] = &[
    "we use ",
    "we set ",
    "we choose",
    "we chose",
    "is set to",
    "are set to",
    "by default",
    "default",
];

fn cue_hits(q: &Question, lower: &str, original: &str) -> f64 {
    let count = |cues: &[&str]| cues.iter().filter(|c| lower.contains(*c)).count().min(2) as f64;
    match q.kind {
        Kind::Number => {
            let mut h = 0.0;
            if has_number(original) {
                h += 1.0;
            }
            if has_quantity(lower) {
                h += 1.0;
            }
            if has_number(original) && SETTING_CUES.iter().any(|c| lower.contains(c)) {
                // "What … is used?" is answered by "we use …".
                h += if q.setting { 2.0 } else { 1.0 };
            }
            h
        }
        Kind::Contribution => count(CONTRIBUTION_CUES),
        Kind::Dataset => count(DATASET_CUES),
        Kind::Limitation => count(LIMITATION_CUES),
        Kind::Other => 0.0,
    }
}

/// The share of a sentence that is letters (and digits, when numbers are what is asked for):
/// formulas, code, tables and reference lists score low.
fn wordiness(s: &str, digits_count: bool) -> f64 {
    let total = s.chars().filter(|c| !c.is_whitespace()).count().max(1);
    let letters = s
        .chars()
        .filter(|c| c.is_alphabetic() || digits_count && c.is_ascii_digit())
        .count();
    letters as f64 / total as f64
}

fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Ranks the sentences of `cands` for `q` and picks 2–4 of them (fewer only when fewer
/// score). `exclude` is text not to quote back (the user's own selection). Empty when nothing
/// scores.
pub fn choose(q: &Question, cands: &[Candidate], exclude: Option<&str>) -> Vec<Pick> {
    let excluded = exclude.map(norm).filter(|e| e.len() >= 12);
    let mut sents: Vec<Sent> = Vec::new();
    for c in cands {
        let title = norm(&c.title);
        for (pos, s) in sentences(&c.text).into_iter().enumerate() {
            let chars = s.chars().count();
            if chars < 20 {
                continue;
            }
            let n = norm(&s);
            // The title alone, or the user's own words back, answers nothing.
            if !title.is_empty() && (n == title || title.contains(&n)) {
                continue;
            }
            if excluded
                .as_ref()
                .is_some_and(|e| e.contains(&n) || n.contains(e.as_str()))
            {
                continue;
            }
            if sents.iter().any(|o| norm(&o.text) == n) {
                continue;
            }
            // A contents line (dot leaders) points at the text; it is not the text.
            if s.contains(". . .") || s.contains("....") {
                continue;
            }
            let toks = stems(&s);
            let mut tf = HashMap::new();
            for t in &toks {
                *tf.entry(t.clone()).or_insert(0) += 1;
            }
            sents.push(Sent {
                text: s,
                cand: c,
                pos,
                number_near_term: q.kind == Kind::Number && number_near(&toks, &q.terms),
                tf,
                len: toks.len().max(1),
            });
        }
    }
    if sents.is_empty() {
        return Vec::new();
    }
    let n = sents.len() as f64;
    let avg = sents.iter().map(|s| s.len).sum::<usize>() as f64 / n;
    let idf = |t: &str| {
        let df = sents.iter().filter(|s| s.tf.contains_key(t)).count() as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    };
    let weighted: Vec<(String, f64, f64)> = q
        .terms
        .iter()
        .map(|t| (t.clone(), 1.0, idf(t)))
        .chain(q.expansion.iter().map(|t| (t.clone(), 0.4, idf(t))))
        .collect();
    let bm25 = |s: &Sent| {
        let mut score = 0.0;
        let mut matched = 0;
        for (t, w, idf) in &weighted {
            let Some(&f) = s.tf.get(t) else { continue };
            if *w >= 1.0 {
                matched += 1;
            }
            let f = f as f64;
            score += w * idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * s.len as f64 / avg));
        }
        (score, matched)
    };
    let raw: Vec<(f64, usize)> = sents.iter().map(bm25).collect();
    let best_raw = raw.iter().map(|r| r.0).fold(0.0, f64::max);
    // With no terms to match (a contribution question, "summarize this page"), the cues and
    // the page's own vocabulary carry the ranking.
    let base = if best_raw > 0.0 { best_raw } else { 1.0 };
    // "Summarize this page": the sentences that share the page's own vocabulary.
    let centrality = q.terms.is_empty()
        && q.expansion.is_empty()
        && q.kind != Kind::Contribution
        && cands.iter().any(|c| c.anchor);
    let mut page_tf: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    if centrality {
        for s in &sents {
            let m = page_tf.entry(s.cand.uri.as_str()).or_default();
            for (t, f) in &s.tf {
                if t.chars().count() >= 4 {
                    *m.entry(t.as_str()).or_insert(0) += f;
                }
            }
        }
    }
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, s) in sents.iter().enumerate() {
        let (mut score, matched) = raw[i];
        let lower = s.text.to_lowercase();
        let cues = cue_hits(q, &lower, &s.text) + f64::from(u8::from(s.number_near_term));
        if centrality {
            let m = &page_tf[s.cand.uri.as_str()];
            let shared: usize =
                s.tf.keys()
                    .filter(|t| t.chars().count() >= 4)
                    .map(|t| {
                        m.get(t.as_str())
                            .copied()
                            .unwrap_or(0)
                            .saturating_sub(1)
                            .min(4)
                    })
                    .sum();
            score += 0.1 * shared as f64 / (s.len as f64).sqrt();
        }
        // More of the question's words in one sentence: more likely the answer.
        if q.terms.len() >= 2 && matched > 0 {
            score *= 0.5 + 0.5 * matched as f64 / q.terms.len() as f64;
        }
        // A cue only helps a sentence that is about the question (or when nothing is); data
        // and limitations are asked about in the cues' own words.
        let cue_is_topic = matches!(q.kind, Kind::Dataset | Kind::Limitation);
        if cues > 0.0 && (matched > 0 || q.terms.is_empty() || cue_is_topic) {
            score += CUE * base * cues;
        }
        // With no words to match, what a paper is about is said at its start.
        let opening = q.kind == Kind::Contribution
            && q.terms.is_empty()
            && s.cand.first_page
            && s.text.ends_with('.')
            && s.text.chars().count() >= 50;
        if score <= 0.0 && !opening {
            continue;
        }
        if s.cand.anchor {
            score += if q.deictic || q.this_page { 0.6 } else { 0.15 } * base;
        }
        if let Some(r) = s.cand.rank {
            score += 0.08 * base / (1.0 + r as f64);
        }
        if q.kind == Kind::Contribution && s.cand.first_page {
            score += 0.5 * base / (1.0 + s.pos as f64 / 4.0);
        }
        // A short line without a full stop is a heading, a caption or a table cell.
        let chars = s.text.chars().count();
        if chars < 45 && !s.text.ends_with(['.', '?', '!']) {
            score *= 0.7;
        }
        let w = wordiness(&s.text, q.kind == Kind::Number);
        if w < 0.6 {
            score *= 0.5 + w / 2.0;
        }
        // A sentence without a number cannot say how many.
        if q.kind == Kind::Number && !has_number(&s.text) {
            score *= 0.6;
        }
        scored.push((score, i));
    }
    if scored.is_empty() {
        return Vec::new();
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let best = scored[0].0;
    let mut picks: Vec<Pick> = Vec::new();
    for (score, i) in &scored {
        if picks.len() >= 4 {
            break;
        }
        // Two quotes at least when a second one scores at all; more only when close.
        if picks.len() >= 2 && *score < 0.45 * best {
            break;
        }
        let s = &sents[*i];
        let text = cut(&s.text);
        if picks.iter().any(|p| p.text == text) {
            continue;
        }
        picks.push(Pick {
            text,
            uri: s.cand.uri.clone(),
            score: (*score * 1000.0).round() / 1000.0,
        });
    }
    picks
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
    fn the_title_and_the_selection_are_never_quoted_back() {
        let mut c = cand(
            "p.pdf#page=1",
            "Long title: Template and instructions\n\nThe short title has at most 45 characters. Other text about titles follows here.",
        );
        c.title = "Long title: Template and instructions".into();
        let q = read_question("How long can the short title be?", None);
        let picks = choose(&q, std::slice::from_ref(&c), None);
        assert!(picks.iter().all(|p| !p.text.starts_with("Long title")));
        assert!(picks[0].text.contains("45 characters"));
        let sel = "The short title has at most 45 characters.";
        let q = read_question("Explain this selection", Some(sel));
        let picks = choose(&q, &[c], Some(sel));
        assert!(picks.iter().all(|p| p.text != sel), "{picks:?}");
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
