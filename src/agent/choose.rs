//! Choosing the quotes of an answer: every quotable unit of the candidate pages (sentences and
//! table rows, each with its shape — body, caption, footnote, reference, running header, row) is
//! scored by BM25 over the question's terms, the cues of the question's kind and where it stands;
//! with a selection, the selection's sentences that match the question come first.

use std::collections::HashMap;

use super::apparatus;
use super::candidate::{Candidate, Kind, Pick, Question};
use super::names::{cites_authors, code_names, has_name};
use super::shape::{self, Shape};
use super::text::{cut, starts_with_unit, stems};
use super::value::values;
use around::{follow_the_question, is_heading, printed_value, read_around, read_under_headings};
use prior::{paper_of, paper_prior};

/// A quotable unit of a candidate page.
struct Sent<'a> {
    text: String,
    cand: &'a Candidate,
    shape: Shape,
    /// A sentence of the user's selection.
    in_selection: bool,
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

const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "twenty", "hundred", "thousand", "once", "twice", "single", "double", "half",
    "dozen",
];

/// A value ([`values`]: not a cross-reference, not a citation's year, not a digit ending a
/// name), or a number written as a word ("usually by two referees").
fn has_number(s: &str) -> bool {
    !values(s).is_empty()
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
        if starts_with_unit(rest) {
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

/// A sentence of prose (one that introduces code ends with a colon), not a code line.
fn prose(s: &str) -> bool {
    s.ends_with(['.', ':']) && wordiness(s, false) >= 0.75
}

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
        // A name in a prose sentence (code lines name everything), one written as code first.
        Kind::Name if prose(original) => code_names(original).min(1) as f64,
        Kind::Name => 0.0,
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

/// Phrases that only link a sentence to the one before ("For example, if we set …"): their
/// words say nothing of what the sentence is about.
const MARKERS: &[&str] = &["for example", "for instance"];

/// The text without its [`MARKERS`], lower-cased (as the terms are), for matching.
fn without_markers(text: &str) -> String {
    let mut lower = text.to_lowercase();
    for m in MARKERS {
        lower = lower.replace(m, " ");
    }
    lower
}

fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The units of the candidates that may be quoted: not the title alone, not a contents line,
/// each once.
fn collect<'a>(q: &Question, cands: &'a [Candidate], selection: Option<&str>) -> Vec<Sent<'a>> {
    let selected = selection.map(norm).filter(|e| e.chars().count() >= 12);
    let mut sents: Vec<Sent> = Vec::new();
    for c in cands {
        let title = norm(&c.title);
        for (pos, u) in shape::units(&c.text).into_iter().enumerate() {
            // A running head, a contents list and a title page's authors and affiliations are
            // never evidence; a reference list is only for a question about what is cited.
            if matches!(u.shape, Shape::Running | Shape::FrontMatter)
                || u.shape == Shape::Reference && !q.asks.reference
                || c.first_page && apparatus::is_front_matter(&u.text)
            {
                continue;
            }
            let chars = u.text.chars().count();
            let row = matches!(u.shape, Shape::TableRow | Shape::Output);
            if chars < 20 && !(row && chars >= 8) {
                continue;
            }
            let n = norm(&u.text);
            // The title alone answers nothing.
            if !title.is_empty() && (n == title || title.contains(&n)) {
                continue;
            }
            if sents.iter().any(|o| norm(&o.text) == n) {
                continue;
            }
            // A contents line (dot leaders) points at the text; it is not the text.
            if u.text.contains(". . .") || u.text.contains("....") {
                continue;
            }
            let in_selection = c.anchor
                && selected.as_ref().is_some_and(|e| {
                    n.contains(e.as_str()) || n.chars().count() >= 12 && e.contains(&n)
                });
            let toks = stems(&without_markers(&u.text));
            let mut tf = HashMap::new();
            for t in &toks {
                *tf.entry(t.clone()).or_insert(0) += 1;
            }
            sents.push(Sent {
                text: u.text,
                cand: c,
                shape: u.shape,
                in_selection,
                pos,
                number_near_term: q.kind == Kind::Number && number_near(&toks, &q.terms),
                tf,
                len: toks.len().max(1),
            });
        }
    }
    sents
}

/// How much a unit of each shape counts against body text: captions and footnotes answer only a
/// question that names them (reference entries are collected only for a question about what is
/// cited; running heads and front matter never).
fn shape_weight(q: &Question, s: &Sent) -> f64 {
    match s.shape {
        Shape::Body => 1.0,
        Shape::TableRow | Shape::Output if q.kind == Kind::Number => 1.0,
        Shape::TableRow | Shape::Output | Shape::Code => 0.8,
        Shape::Caption if q.asks.caption => 1.0,
        Shape::Footnote if q.asks.footnote => 1.0,
        Shape::Reference if q.asks.reference => 1.0,
        Shape::Caption | Shape::Footnote => 0.5,
        Shape::Reference | Shape::Running | Shape::FrontMatter => 0.0,
    }
}

/// BM25 of one unit over the question's terms (and, weighted lower, the selection's), with the
/// number of the question's own terms it has.
type Weighted = Vec<(String, f64, f64)>;

fn bm25(weighted: &Weighted, avg: f64, s: &Sent) -> (f64, usize) {
    let mut score = 0.0;
    let mut matched = 0;
    for (t, w, idf) in weighted {
        let Some(&f) = s.tf.get(t) else { continue };
        if *w >= 1.0 {
            matched += 1;
        }
        let f = f as f64;
        score += w * idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * s.len as f64 / avg));
    }
    (score, matched)
}

/// The terms of the page vocabulary (for "summarize this page"): each page's term counts.
fn page_vocabulary<'a>(sents: &'a [Sent]) -> HashMap<&'a str, HashMap<&'a str, usize>> {
    let mut page_tf: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    for s in sents {
        let m = page_tf.entry(s.cand.uri.as_str()).or_default();
        for (t, f) in &s.tf {
            if t.chars().count() >= 4 {
                *m.entry(t.as_str()).or_insert(0) += f;
            }
        }
    }
    page_tf
}

/// One scored unit: its score, how many question terms it has, its index.
struct Scored {
    score: f64,
    matched: usize,
    i: usize,
}

/// Scores every unit; those that score nothing are left out.
fn score_all(q: &Question, cands: &[Candidate], sents: &[Sent]) -> Vec<Scored> {
    let n = sents.len() as f64;
    let avg = sents.iter().map(|s| s.len).sum::<usize>() as f64 / n;
    let idf = |t: &str| {
        let df = sents.iter().filter(|s| s.tf.contains_key(t)).count() as f64;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    };
    let weighted: Weighted = q
        .terms
        .iter()
        .map(|t| (t.clone(), 1.0, idf(t)))
        .chain(q.expansion.iter().map(|t| (t.clone(), 0.4, idf(t))))
        .collect();
    let raw: Vec<(f64, usize)> = sents.iter().map(|s| bm25(&weighted, avg, s)).collect();
    let best_raw = raw.iter().map(|r| r.0).fold(0.0, f64::max);
    // With no terms to match (a contribution question, "summarize this page"), the cues and
    // the page's own vocabulary carry the ranking.
    let base = if best_raw > 0.0 { best_raw } else { 1.0 };
    // "Summarize this page": the sentences that share the page's own vocabulary.
    let centrality = q.terms.is_empty()
        && q.expansion.is_empty()
        && q.kind != Kind::Contribution
        && cands.iter().any(|c| c.anchor);
    let page_tf = if centrality {
        page_vocabulary(sents)
    } else {
        HashMap::new()
    };
    let prior = paper_prior(q, cands, sents);
    let mut scored = Vec::new();
    for (i, s) in sents.iter().enumerate() {
        // A printed value has the words of the prose that says what it is.
        let printed = printed_value(q, sents, &raw, i).filter(|p| p.0 > raw[i].0);
        let (mut score, matched) = printed.unwrap_or(raw[i]);
        let lower = s.text.to_lowercase();
        // A data set is asked for by what it is about and answered by its name, or by who
        // collected it ("data … discussed by Royston and Altman (1994)").
        let named_data =
            q.kind == Kind::Dataset && matched > 0 && (has_name(&s.text) || cites_authors(&s.text));
        // A name not written as code ("the mstate package", "Armadillo") answers a name
        // question in a sentence with at least half of its words.
        let named = q.kind == Kind::Name
            && matched * 2 >= q.terms.len()
            && prose(&s.text)
            && code_names(&s.text) == 0
            && has_name(&s.text);
        let cues = cue_hits(q, &lower, &s.text)
            + f64::from(u8::from(s.number_near_term || printed.is_some()))
            + f64::from(u8::from(named_data))
            + if named { 0.5 } else { 0.0 };
        if let Some(m) = page_tf.get(s.cand.uri.as_str()) {
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
        score =
            placed(q, s, score, base) * prior.get(paper_of(&s.cand.uri)).copied().unwrap_or(1.0);
        scored.push(Scored { score, matched, i });
    }
    if q.kind != Kind::Contribution {
        follow_the_question(q, sents, &raw, &mut scored);
    }
    read_around(q, sents, &mut scored);
    read_under_headings(sents, &mut scored);
    scored
}

/// How much of a unit's score stays for its form: a sentence without a number cannot say how
/// many, one without a name cannot say which function or library.
fn form(q: &Question, text: &str) -> f64 {
    match q.kind {
        Kind::Number if !has_number(text) => 0.5,
        Kind::Name if !has_name(text) => 0.75,
        // A data set may be told by what it holds ("mandible length and gestational age").
        Kind::Dataset if !has_name(text) && !cites_authors(text) => 0.85,
        _ => 1.0,
    }
}

/// A short line without a full stop is a heading, a caption or a table cell: it counts less.
fn short(q: &Question, s: &Sent) -> f64 {
    let chars = s.text.chars().count();
    let row = matches!(s.shape, Shape::TableRow | Shape::Output) && q.kind == Kind::Number;
    if chars < 45 && !s.text.ends_with(['.', '?', '!', '。']) && !row {
        0.7
    } else {
        1.0
    }
}

/// The score of a unit adjusted for where it stands and what it looks like.
fn placed(q: &Question, s: &Sent, mut score: f64, base: f64) -> f64 {
    if s.cand.anchor {
        score += if q.deictic || q.this_page { 0.6 } else { 0.15 } * base;
    }
    if let Some(r) = s.cand.rank {
        score += 0.08 * base / (1.0 + r as f64);
    }
    if q.kind == Kind::Contribution && s.cand.first_page {
        score += 0.5 * base / (1.0 + s.pos as f64 / 4.0);
    }
    score *= short(q, s);
    let w = wordiness(&s.text, q.kind == Kind::Number);
    if w < 0.6 {
        score *= 0.5 + w / 2.0;
    }
    score *= form(q, &s.text);

    score * shape_weight(q, s)
}

/// The order of the quotes: with a selection, its sentences that have the question's words
/// come first (or, for "explain this", its best sentence), then the rest by score.
/// How many of the selection's sentences may lead an answer.
const MAX_LEAD: usize = 3;

fn ordered(q: &Question, sents: &[Sent], mut scored: Vec<Scored>) -> (Vec<Scored>, usize) {
    scored.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.i.cmp(&b.i)));
    let (mut lead, mut rest): (Vec<Scored>, Vec<Scored>) = scored
        .into_iter()
        .partition(|s| sents[s.i].in_selection && (s.matched > 0 || q.terms.is_empty()));
    // "What does this mean?" about a selection: its best sentence, whatever the words.
    if lead.is_empty()
        && q.deictic
        && let Some(k) = rest.iter().position(|s| sents[s.i].in_selection)
    {
        lead.push(rest.remove(k));
    }
    if lead.is_empty() {
        return (rest, 0);
    }
    // A number question wants the selection's sentences with numbers first.
    if q.kind == Kind::Number {
        lead.sort_by_key(|s| !has_number(&sents[s.i].text));
    }
    if lead.len() > MAX_LEAD {
        rest.extend(lead.split_off(MAX_LEAD));
        rest.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.i.cmp(&b.i)));
    }
    let best = rest.first().map_or(0.0, |s| s.score);
    for s in &mut lead {
        s.score = s.score.max(best);
    }
    let n = lead.len();
    lead.extend(rest);
    (lead, n)
}

/// Ranks the units of `cands` for `q` and picks 2–4 of them (fewer only when fewer score).
/// `selection` is the text the user selected: the sentences of it that match the question are
/// quoted first. Empty when nothing scores.
pub fn choose(q: &Question, cands: &[Candidate], selection: Option<&str>) -> Vec<Pick> {
    let sents = collect(q, cands, selection);
    if sents.is_empty() {
        return Vec::new();
    }
    let (scored, lead) = ordered(q, &sents, score_all(q, cands, &sents));
    let Some(first) = scored.first() else {
        return Vec::new();
    };
    let best = first.score;
    let mut picks: Vec<Pick> = Vec::new();
    let mut headings: Vec<bool> = Vec::new();
    for (k, s) in scored.iter().enumerate() {
        if picks.len() >= 4 {
            break;
        }
        // Two quotes at least when a second one scores at all; more only when close.
        if k >= lead && picks.len() >= 2 && s.score < 0.45 * best {
            break;
        }
        let u = &sents[s.i];
        let text = cut(&u.text);
        if text.is_empty() || picks.iter().any(|p| p.text == text) {
            continue;
        }
        headings.push(is_heading(u));
        picks.push(Pick {
            text,
            uri: u.cand.uri.clone(),
            score: (s.score * 1000.0).round() / 1000.0,
        });
    }
    // A heading does not lead an answer that quotes a sentence of its page: the sentence
    // says what the heading only names.
    if lead == 0
        && headings.first() == Some(&true)
        && let Some(j) = (1..picks.len()).find(|&j| !headings[j] && picks[j].uri == picks[0].uri)
    {
        let p = picks.remove(j);
        picks.insert(0, p);
    }
    picks
}

mod around;
mod prior;

#[cfg(test)]
mod tests;
