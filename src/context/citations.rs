//! Verified citations, for any agent: every quote in an answer that sits next to a vault
//! citation URI (or a `[n]` pointing to one) is checked against the text of what it cites, with
//! the tolerant finder of [`super::quote::find_verbatim`] (whitespace, ligatures, hyphenation,
//! a quote running across a page break, elisions). Verdicts: `verified`; `other_page` (not on
//! the cited page, but on another page of the same source, named in `foundAt`); `not_found`;
//! `no_quote` (a citation with no quote beside it); `unverifiable` (the cited source cannot be
//! read). Pure over a [`Docs`] source of texts; [`check_in_vault`] reads the vault.

use std::collections::HashMap;
use std::ops::Range;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::quote::{self, Joined};
use super::tools::{Access, VaultReader};
use crate::vault::Vault;
use crate::vault::scan::EntryKind;
use crate::vault::uri::{self, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The quote is on the cited page (or lines).
    Verified,
    /// Not on the cited page, but elsewhere in the same source (`foundAt`).
    OtherPage,
    /// Nowhere in the cited source.
    NotFound,
    /// A citation with no quote beside it.
    NoQuote,
    /// The cited source cannot be read (not in the vault, hidden, unreadable).
    Unverifiable,
}

impl Verdict {
    /// The mark the chat and `ask` show.
    pub fn glyph(self) -> &'static str {
        match self {
            Verdict::Verified => "✓",
            Verdict::OtherPage | Verdict::NotFound | Verdict::Unverifiable => "⚠",
            Verdict::NoQuote => "·",
        }
    }

    /// What the mark means, in words.
    pub fn says(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::OtherPage => "not on the cited page",
            Verdict::NotFound => "not found on the cited page",
            Verdict::NoQuote => "no quote",
            Verdict::Unverifiable => "the cited source cannot be read",
        }
    }
}

/// One citation of an answer and its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitationCheck {
    /// The citation URI as cited (a `[n]` resolved to its URI).
    pub uri: String,
    /// The quote beside it (absent: `no_quote`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    pub verdict: Verdict,
    /// Where the quote really is, when that is elsewhere in the source (`other_page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_at: Option<String>,
}

impl CitationCheck {
    /// One line for a terminal: mark, URI, the quote's start and what the mark means.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", self.verdict.glyph(), self.uri);
        if let Some(q) = &self.quote {
            let short: String = q.chars().take(60).collect();
            let cut = if q.chars().count() > 60 { "…" } else { "" };
            s.push_str(&format!(" \"{short}{cut}\""));
        }
        s.push_str(&format!(" — {}", self.verdict.says()));
        if let Some(at) = &self.found_at {
            s.push_str(&format!("; it is at {at}"));
        }
        s
    }
}

/// A source's text, as the context tools serve it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doc {
    /// A paper's pages, in order.
    Pages(Vec<String>),
    /// A text file.
    Text(String),
}

/// Where the texts of cited sources come from.
pub trait Docs {
    /// The text of the source at vault path `path` (`None`: it cannot be read).
    fn doc(&mut self, path: &str) -> Option<Doc>;
}

/// A quote of the answer: its text and byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Quote {
    text: String,
    range: Range<usize>,
    /// Ends a blockquote: the line after it still belongs to it (a "— source" line).
    block: bool,
}

/// A citation in the answer: the URI it points to and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Cite {
    uri: String,
    range: Range<usize>,
}

/// Quotes shorter than this (characters) or than [`MIN_WORDS`] are terms, not evidence.
const MIN_QUOTE: usize = 15;
const MIN_WORDS: usize = 3;

fn uri_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"[^\s<>()\[\]"'`“”‘’,;|*]+#(?:page=\d+|line=\d+(?:,\d+)?)"#).unwrap()
    })
}

fn bare_pdf_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"[^\s<>()\[\]"'`“”‘’,;|*]+\.pdf\b(?:,?\s*\(?(?:p\.|pp\.|page)\s*(\d+))?"#)
            .unwrap()
    })
}

fn marker_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]").unwrap())
}

fn definition_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?m)^[ \t>*-]*\[(\d{1,3})\]:?[ \t]+(.*)$").unwrap())
}

fn inline_quote_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r#""([^"]+)"|“([^”]+)”"#).unwrap())
}

/// A place in the vault: path, page, line range.
type Place = (String, Option<u32>, Option<(u32, u32)>);

/// Whether `uri` names a place in the vault (not an external link).
fn vault_uri(u: &str) -> Option<Place> {
    match uri::parse(u)? {
        Target::Vault { path, page, lines } if !path.is_empty() => Some((path, page, lines)),
        _ => None,
    }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Citation URIs written in the answer (with `#page=`/`#line=`, or a bare `….pdf` with an
/// optional "p. N"), in order.
fn uris_in(answer: &str) -> Vec<Cite> {
    let mut out: Vec<Cite> = Vec::new();
    for m in uri_re().find_iter(answer) {
        let u = m.as_str().trim_end_matches(['.', ':']);
        if vault_uri(u).is_some() {
            out.push(Cite {
                uri: u.to_string(),
                range: m.start()..m.start() + u.len(),
            });
        }
    }
    for c in bare_pdf_re().captures_iter(answer) {
        let whole = c.get(0).unwrap();
        if out.iter().any(|o| overlaps(&o.range, &whole.range())) {
            continue;
        }
        let path = whole.as_str();
        let path = &path[..path.find(".pdf").map_or(path.len(), |i| i + 4)];
        if path.contains("://") {
            continue;
        }
        let u = match c.get(1) {
            Some(p) => format!("{path}#page={}", p.as_str()),
            None => path.to_string(),
        };
        if vault_uri(&u).is_some() {
            out.push(Cite {
                uri: u,
                range: whole.range(),
            });
        }
    }
    out.sort_by_key(|c| c.range.start);
    out
}

/// Trims quote marks, ellipses at the ends and a trailing citation from a quoted passage.
fn clean_quote(s: &str) -> String {
    let t = s.trim().trim_matches(|c: char| {
        matches!(c, '"' | '“' | '”' | '‘' | '’' | '\'' | '*' | '_') || c.is_whitespace()
    });
    let t = t
        .trim_start_matches(['…', '.'])
        .trim_end_matches('…')
        .trim_end_matches("...")
        .trim();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_quote(text: &str) -> bool {
    text.chars().count() >= MIN_QUOTE && text.split_whitespace().count() >= MIN_WORDS
}

/// Quotes of the answer: blockquotes (consecutive `>` lines; a quoted string inside one is
/// the quote) and quoted strings of at least three words elsewhere.
fn quotes_in(answer: &str, cites: &[Cite]) -> Vec<Quote> {
    let mut out: Vec<Quote> = Vec::new();
    let mut offset = 0;
    let mut block: Option<(usize, usize, String)> = None;
    let flush = |block: &mut Option<(usize, usize, String)>, out: &mut Vec<Quote>| {
        if let Some((start, end, text)) = block.take() {
            // A quoted string inside the blockquote is the quote ("> "…" — uri").
            let inner = inline_quote_re()
                .captures(&text)
                .and_then(|c| c.get(1).or(c.get(2)))
                .map(|m| m.as_str().to_string());
            // Without one, the blockquote is the quote, minus a citation after a dash.
            let body = inner.unwrap_or_else(|| {
                let mut t = text.clone();
                for c in uris_in(&text).iter().rev() {
                    t.replace_range(c.range.clone(), "");
                }
                t.trim_end()
                    .trim_end_matches(['—', '–', '-', '(', ')', ' '])
                    .to_string()
            });
            let q = clean_quote(&body);
            if is_quote(&q) {
                out.push(Quote {
                    text: q,
                    range: start..end,
                    block: true,
                });
            }
        }
    };
    for line in answer.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('>') {
            let end = offset + line.trim_end().len();
            match &mut block {
                Some((_, e, text)) => {
                    *e = end;
                    text.push(' ');
                    text.push_str(rest.trim());
                }
                None => block = Some((offset, end, rest.trim().to_string())),
            }
        } else {
            flush(&mut block, &mut out);
        }
        offset += line.len();
    }
    flush(&mut block, &mut out);
    for c in inline_quote_re().captures_iter(answer) {
        let whole = c.get(0).unwrap();
        if out.iter().any(|q| overlaps(&q.range, &whole.range())) {
            continue;
        }
        let inner = c.get(1).or(c.get(2)).unwrap().as_str();
        // A blank line inside is two paragraphs, not one quote; a URI inside is not prose.
        if inner.contains("\n\n") || cites.iter().any(|u| overlaps(&u.range, &whole.range())) {
            continue;
        }
        let q = clean_quote(inner);
        if is_quote(&q) {
            out.push(Quote {
                text: q,
                range: whole.range(),
                block: false,
            });
        }
    }
    out.sort_by_key(|q| q.range.start);
    out
}

/// `[n]` markers outside quotes and reference lists, resolved to URIs: by the answer's own
/// reference list (`[1] papers/…#page=3`), else by the prompt's evidence numbering.
fn markers_in(
    answer: &str,
    quotes: &[Quote],
    definitions: &HashMap<u32, String>,
    definition_lines: &[Range<usize>],
    evidence: &[String],
) -> Vec<Cite> {
    let mut out = Vec::new();
    for m in marker_re().captures_iter(answer) {
        let whole = m.get(0).unwrap();
        if quotes
            .iter()
            .any(|q| overlaps(&q.range, &whole.range()) && !q.block)
            || definition_lines
                .iter()
                .any(|l| l.start <= whole.start() && whole.start() < l.start + 6)
        {
            continue;
        }
        for n in m[1].split(',').filter_map(|n| n.trim().parse::<u32>().ok()) {
            let target = definitions
                .get(&n)
                .cloned()
                .or_else(|| evidence.get(n as usize - 1).cloned().filter(|_| n >= 1));
            if let Some(u) = target.filter(|u| vault_uri(u).is_some()) {
                out.push(Cite {
                    uri: u,
                    range: whole.range(),
                });
            }
        }
    }
    out
}

/// Whether `a..b` of the answer crosses a paragraph break.
fn breaks(answer: &str, a: usize, b: usize) -> bool {
    let (a, b) = (a.min(b), a.max(b));
    answer.get(a..b).is_some_and(|s| s.contains("\n\n"))
}

/// Only separators between two places: the citations of one quote run on ("[1][2]", ", ").
fn adjacent(answer: &str, a: usize, b: usize) -> bool {
    answer.get(a..b).is_some_and(|s| {
        s.chars().all(|c| {
            c.is_whitespace()
                || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '—' | '–' | '-' | '.')
        }) || s.trim() == "and"
    })
}

/// The quotes of `answer` paired with the citations beside them, and the citations with no
/// quote. `evidence` are the prompt's evidence URIs in their `[n]` order.
fn pair(answer: &str, evidence: &[String]) -> Vec<(String, Option<String>)> {
    let mut cites = uris_in(answer);
    // The answer's own reference list: `[n] uri` lines define markers; their URIs are not
    // citations of their own.
    let mut definitions = HashMap::new();
    let mut definition_lines = Vec::new();
    for c in definition_re().captures_iter(answer) {
        let rest = c.get(2).unwrap();
        if let Some(u) = cites
            .iter()
            .find(|u| u.range.start >= rest.start() && u.range.end <= rest.end())
        {
            definitions.insert(c[1].parse::<u32>().unwrap_or(0), u.uri.clone());
            definition_lines.push(c.get(0).unwrap().range());
        }
    }
    cites.retain(|u| !definition_lines.iter().any(|l| overlaps(l, &u.range)));
    let quotes = quotes_in(answer, &cites);
    cites.extend(markers_in(
        answer,
        &quotes,
        &definitions,
        &definition_lines,
        evidence,
    ));
    cites.sort_by_key(|c| c.range.start);
    cites.dedup();

    let mut used = vec![false; cites.len()];
    let mut out: Vec<(usize, String, Option<String>)> = Vec::new();
    for (i, q) in quotes.iter().enumerate() {
        let next = quotes.get(i + 1).map_or(answer.len(), |n| n.range.start);
        let prev = if i == 0 { 0 } else { quotes[i - 1].range.end };
        // After the quote first: in its paragraph (a blockquote's next line counts), before the
        // next quote; with the citations that run on right after it.
        let reach = |c: &Cite| {
            let gap_ok = if q.block {
                // The line right after a blockquote ("— source") is still the quote's.
                let tail = &answer[q.range.end..c.range.start.max(q.range.end)];
                tail.matches('\n').count() <= 1 || !breaks(answer, q.range.end, c.range.start)
            } else {
                !breaks(answer, q.range.end, c.range.start)
            };
            c.range.start >= q.range.start && c.range.start < next && gap_ok
        };
        let mut mine: Vec<usize> = Vec::new();
        for (k, c) in cites.iter().enumerate() {
            if used[k] || !reach(c) {
                continue;
            }
            match mine.last() {
                None => mine.push(k),
                Some(&l) if adjacent(answer, cites[l].range.end, c.range.start) => mine.push(k),
                Some(_) => break,
            }
        }
        if mine.is_empty() {
            // Else the closest citation before it in the same paragraph ("On p. 3: "…"").
            if let Some(k) = (0..cites.len()).rev().find(|&k| {
                !used[k]
                    && cites[k].range.end <= q.range.start
                    && cites[k].range.start >= prev
                    && !breaks(answer, cites[k].range.end, q.range.start)
            }) {
                mine.push(k);
            }
        }
        for k in mine {
            used[k] = true;
            out.push((
                cites[k].range.start,
                cites[k].uri.clone(),
                Some(q.text.clone()),
            ));
        }
    }
    for (k, c) in cites.iter().enumerate() {
        if !used[k] {
            out.push((c.range.start, c.uri.clone(), None));
        }
    }
    out.sort_by_key(|(at, _, _)| *at);
    // A citation without a quote counts once.
    let mut seen_bare: Vec<String> = Vec::new();
    out.into_iter()
        .filter(|(_, u, q)| {
            q.is_some()
                || (!seen_bare.contains(u) && {
                    seen_bare.push(u.clone());
                    true
                })
        })
        .map(|(_, u, q)| (u, q))
        .collect()
}

/// Line numbers (1-based, inclusive) of byte range `r` of `text`.
fn lines_of(text: &str, r: &Range<usize>) -> (u32, u32) {
    let first = text[..r.start].matches('\n').count() as u32 + 1;
    let last = first + text[r.start..r.end].matches('\n').count() as u32;
    (first, last)
}

/// The byte range of lines `a..=b` (1-based) of `text`.
fn line_span(text: &str, a: u32, b: u32) -> Range<usize> {
    let mut start = text.len();
    let mut end = text.len();
    let mut line = 1u32;
    if a <= 1 {
        start = 0;
    }
    for (i, c) in text.char_indices() {
        if c == '\n' {
            line += 1;
            if line == a {
                start = i + 1;
            }
            if line == b + 1 {
                end = i;
                break;
            }
        }
    }
    start.min(end)..end
}

/// The verdict on one quote against the source it cites.
fn judge(
    path: &str,
    page: Option<u32>,
    lines: Option<(u32, u32)>,
    quote: &str,
    doc: &Doc,
) -> (Verdict, Option<String>) {
    match doc {
        Doc::Pages(pages) => {
            let n = pages.len();
            let whole = Joined::new(pages.iter().map(String::as_str));
            let found = |first: usize, last: usize| {
                let span = whole.span(first, last);
                quote::find_verbatim(&whole.text[span.clone()], quote).map(|f| {
                    (
                        whole.page_at(span.start + f.range.start),
                        whole.page_at(span.start + f.range.end.saturating_sub(1)),
                    )
                })
            };
            if let Some(p) = page.map(|p| p as usize).filter(|p| (1..=n).contains(p)) {
                let i = p - 1;
                // On the page, or running across its break with the next or the previous page.
                let on_page = found(i, i).is_some()
                    || found(i, (i + 1).min(n - 1)).is_some_and(|(a, _)| a == i)
                    || found(i.saturating_sub(1), i).is_some_and(|(_, b)| b == i);
                if on_page {
                    return (Verdict::Verified, None);
                }
            }
            match found(0, n.saturating_sub(1)) {
                Some((a, _)) if page.is_none() => {
                    (Verdict::Verified, Some(uri::page_uri(path, a as u32 + 1)))
                }
                Some((a, _)) => (Verdict::OtherPage, Some(uri::page_uri(path, a as u32 + 1))),
                None => (Verdict::NotFound, None),
            }
        }
        Doc::Text(text) => {
            if let Some((a, b)) = lines {
                let span = line_span(text, a, b);
                if quote::find_verbatim(&text[span], quote).is_some() {
                    return (Verdict::Verified, None);
                }
            }
            match quote::find_verbatim(text, quote) {
                Some(f) => {
                    let (a, b) = lines_of(text, &f.range);
                    let at = uri::lines_uri(path, a, b);
                    if lines.is_none() {
                        (Verdict::Verified, Some(at))
                    } else {
                        (Verdict::OtherPage, Some(at))
                    }
                }
                None => (Verdict::NotFound, None),
            }
        }
    }
}

/// Checks every citation of `answer` against the texts `docs` gives. `evidence` are the
/// prompt's evidence URIs in their `[n]` order.
pub fn check(answer: &str, evidence: &[String], docs: &mut dyn Docs) -> Vec<CitationCheck> {
    let mut cache: HashMap<String, Option<Doc>> = HashMap::new();
    pair(answer, evidence)
        .into_iter()
        .map(|(u, quote)| {
            let Some((path, page, lines)) = vault_uri(&u) else {
                return CitationCheck {
                    uri: u,
                    quote,
                    verdict: Verdict::Unverifiable,
                    found_at: None,
                };
            };
            let Some(q) = quote else {
                return CitationCheck {
                    uri: u,
                    quote: None,
                    verdict: Verdict::NoQuote,
                    found_at: None,
                };
            };
            let doc = cache.entry(path.clone()).or_insert_with(|| docs.doc(&path));
            let (verdict, found_at) = match doc {
                Some(d) => judge(&path, page, lines, &q, d),
                None => (Verdict::Unverifiable, None),
            };
            CitationCheck {
                uri: u,
                quote: Some(q),
                verdict,
                found_at,
            }
        })
        .collect()
}

/// The vault's texts, as the context tools serve them (index pages, or extracted on demand);
/// hidden entries and the app's state are never read.
pub struct VaultDocs<'a> {
    pub vault: &'a Vault,
    pub reader: VaultReader,
}

impl Docs for VaultDocs<'_> {
    fn doc(&mut self, path: &str) -> Option<Doc> {
        let target = Access::WholeVault.authorize(self.vault, path).ok()?;
        match target.kind {
            EntryKind::Paper => {
                let p = self.reader.paper(self.vault, &target).ok()?;
                Some(Doc::Pages(p.pages.iter().map(|p| p.text.clone()).collect()))
            }
            EntryKind::File => self.reader.read_text(&target).ok().map(Doc::Text),
            EntryKind::Directory => None,
        }
    }
}

/// [`check`] against the vault.
pub fn check_in_vault(vault: &Vault, answer: &str, evidence: &[String]) -> Vec<CitationCheck> {
    let mut docs = VaultDocs {
        vault,
        reader: VaultReader::default(),
    };
    check(answer, evidence, &mut docs)
}

/// The vault places an answer cites, in order (URIs, and `[n]` markers resolved through its own
/// reference list), each once.
pub fn cited_places(answer: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (u, _) in pair(answer, &[]) {
        if !out.iter().any(|o| same_place(o, &u)) {
            out.push(u);
        }
    }
    out
}

/// The same place, however it is written (`a%20b.pdf#page=3` and `a b.pdf#page=3`).
pub fn same_place(a: &str, b: &str) -> bool {
    a == b || (vault_uri(a).is_some() && vault_uri(a) == vault_uri(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(HashMap<String, Doc>);

    impl Docs for Fixed {
        fn doc(&mut self, path: &str) -> Option<Doc> {
            self.0.get(path).cloned()
        }
    }

    fn docs() -> Fixed {
        let mut m = HashMap::new();
        m.insert(
            "papers/a/paper.pdf".to_string(),
            Doc::Pages(vec![
                "Title page. The ﬁrst re-\nsult shows that quoting ﬁrst makes answers check-\nable at almost no cost.".into(),
                "Second page. Recall at ten reaches 0.731 with fusion, against 0.612 for BM25 alone. The experiment ends with a long sen-".into(),
                "tence that runs across the page break into the third page. Nothing else here.".into(),
            ]),
        );
        m.insert(
            "notes/n.md".to_string(),
            Doc::Text("# Notes\n\nLine three says columns are read left to right.\nLine four is unrelated.\n".into()),
        );
        Fixed(m)
    }

    fn verdicts(answer: &str) -> Vec<(Verdict, Option<String>)> {
        check(answer, &[], &mut docs())
            .into_iter()
            .map(|c| (c.verdict, c.found_at))
            .collect()
    }

    #[test]
    fn ligatures_and_hyphenation_are_the_same_text() {
        let a = "> \"The first result shows that quoting first makes answers checkable at almost no cost.\" — papers/a/paper.pdf#page=1\n";
        assert_eq!(verdicts(a), vec![(Verdict::Verified, None)]);
    }

    #[test]
    fn a_quote_from_another_page_names_where_it_is() {
        let a = "They say \"Recall at ten reaches 0.731 with fusion\" (papers/a/paper.pdf#page=1).";
        assert_eq!(
            verdicts(a),
            vec![(
                Verdict::OtherPage,
                Some("papers/a/paper.pdf#page=2".to_string())
            )]
        );
    }

    #[test]
    fn an_invented_or_altered_quote_is_not_found() {
        let invented =
            "\"Fusion always doubles recall in every setting\" — papers/a/paper.pdf#page=2";
        assert_eq!(verdicts(invented), vec![(Verdict::NotFound, None)]);
        let altered = "\"Recall at ten reaches 0.813 with fusion, against 0.612 for BM25 alone\" — papers/a/paper.pdf#page=2";
        assert_eq!(verdicts(altered), vec![(Verdict::NotFound, None)]);
    }

    #[test]
    fn a_quote_across_a_page_break_is_on_the_page_it_starts_or_ends() {
        let q = "\"The experiment ends with a long sentence that runs across the page break\"";
        assert_eq!(
            verdicts(&format!("{q} papers/a/paper.pdf#page=2")),
            vec![(Verdict::Verified, None)]
        );
        assert_eq!(
            verdicts(&format!("{q} papers/a/paper.pdf#page=3")),
            vec![(Verdict::Verified, None)]
        );
        assert_eq!(
            verdicts(&format!("{q} papers/a/paper.pdf#page=1"))
                .first()
                .map(|v| v.0),
            Some(Verdict::OtherPage)
        );
    }

    #[test]
    fn markers_point_to_the_reference_list_or_the_prompts_evidence() {
        let a = "Fusion helps: \"Recall at ten reaches 0.731 with fusion\" [1]. Also \"columns are read left to right\" [2].\n\n[1] papers/a/paper.pdf#page=2\n";
        let checks = check(
            a,
            &["x.md#line=1,1".into(), "notes/n.md#line=3,3".into()],
            &mut docs(),
        );
        let got: Vec<(&str, Verdict)> =
            checks.iter().map(|c| (c.uri.as_str(), c.verdict)).collect();
        assert_eq!(
            got,
            vec![
                ("papers/a/paper.pdf#page=2", Verdict::Verified),
                ("notes/n.md#line=3,3", Verdict::Verified)
            ]
        );
    }

    #[test]
    fn citations_without_quotes_and_unknown_sources() {
        let a = "See papers/a/paper.pdf#page=2 and papers/a/paper.pdf#page=2 again, and \"something said in a missing paper\" (papers/zz/paper.pdf#page=1).";
        let checks = check(a, &[], &mut docs());
        let got: Vec<Verdict> = checks.iter().map(|c| c.verdict).collect();
        assert_eq!(got, vec![Verdict::NoQuote, Verdict::Unverifiable]);
    }

    #[test]
    fn file_lines_and_bare_pdf_paths_with_a_page() {
        let a = "\"columns are read left to right\" — notes/n.md#line=3,3\n\n\"columns are read left to right\" — notes/n.md#line=1,2\n\n\"Recall at ten reaches 0.731\" (papers/a/paper.pdf, p. 2)";
        let got = verdicts(a);
        assert_eq!(got[0], (Verdict::Verified, None));
        assert_eq!(
            got[1],
            (Verdict::OtherPage, Some("notes/n.md#line=3,3".to_string()))
        );
        assert_eq!(got[2], (Verdict::Verified, None));
    }

    #[test]
    fn elided_quotes_and_blockquotes_with_a_source_line() {
        let a = "> The first result shows that quoting first … at almost no cost.\n— papers/a/paper.pdf#page=1\n";
        assert_eq!(verdicts(a), vec![(Verdict::Verified, None)]);
        // Short quoted terms are not quotes.
        let b = "The \"fusion\" method (papers/a/paper.pdf#page=2).";
        assert_eq!(verdicts(b), vec![(Verdict::NoQuote, None)]);
    }
}
