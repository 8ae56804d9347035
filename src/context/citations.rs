//! Verified citations, for any agent: every quote in an answer that sits next to a vault
//! citation URI (or a `[n]` pointing to one) is checked against the text of what it cites, by
//! the strict matcher of [`super::verify`] (every word, number, sign and operator in order;
//! only extraction differences tolerated), in every script. A paper's page is read by two
//! witnesses: its reading-order text and its text blocks in content-stream order; a quote is
//! verified only where the second, which no layout decision can splice, has it too (one that
//! the reading order alone joins "spans two blocks"). Verdicts: `verified`; `other_page` (not
//! on the cited page, but on another page of the same source, named in `foundAt`);
//! `not_found` (with the first token that differs from the closest passage, in `detail`);
//! `no_quote` (a citation with no quote beside it); `unverifiable` (the quote cannot be
//! checked: the source cannot be read, the page has no text; the reason in `detail`). Pure
//! over a [`Docs`] source of texts; [`check_in_vault`] reads the vault.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::tools::{Access, VaultReader};
use super::verify::{self, Witness};
use crate::vault::Vault;
use crate::vault::furniture;
use crate::vault::scan::EntryKind;
use crate::vault::uri::{self, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The quote is on the cited page (or lines).
    Verified,
    /// The quote is on the cited page, whose text is OCR, within the OCR tolerance (confusable
    /// letters, hyphenation; see `citations_ocr.rs`): never a plain ✓.
    VerifiedOcr,
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
    /// A ✓ of either kind: on the page's text layer, or on its OCR text.
    pub fn is_verified(self) -> bool {
        matches!(self, Verdict::Verified | Verdict::VerifiedOcr)
    }

    /// The mark the chat and `ask` show.
    pub fn glyph(self) -> &'static str {
        match self {
            Verdict::Verified => "✓",
            Verdict::VerifiedOcr => "✓ (OCR)",
            Verdict::OtherPage | Verdict::NotFound | Verdict::Unverifiable => "⚠",
            Verdict::NoQuote => "·",
        }
    }

    /// What the mark means, in words.
    pub fn says(self) -> &'static str {
        match self {
            Verdict::Verified => "verified",
            Verdict::VerifiedOcr => "verified on OCR text",
            Verdict::OtherPage => "not on the cited page",
            Verdict::NotFound => "not found on the cited page",
            Verdict::NoQuote => "no quote",
            Verdict::Unverifiable => "cannot be checked",
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
    /// Why it is not verified: the token that differs (`"45.6%" — the page has "4.56%"`),
    /// "spans two blocks", or why it cannot be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl CitationCheck {
    /// What the mark means, in the words the chat and `agentero ask` both show: `verified`,
    /// `not found on that page; on p.4`, `not verified: "45.6%" — the page has "4.56%"`,
    /// `not found on that page or any other`, `no quote`, `cannot be checked: …`.
    pub fn meaning(&self) -> String {
        match self.verdict {
            Verdict::Verified => "verified".into(),
            Verdict::VerifiedOcr => {
                "verified on OCR text (letters OCR confuses — l/I/1, O/0, rn/m — and hyphenation tolerated)".into()
            }
            Verdict::OtherPage => match &self.found_at {
                Some(f) => format!("not found on that page; on {}", brief_place(f)),
                None => "not found on that page".into(),
            },
            Verdict::NotFound => match &self.detail {
                Some(d) => format!("not verified: {d}"),
                None => "not found on that page or any other".into(),
            },
            Verdict::NoQuote => "no quote".into(),
            Verdict::Unverifiable => match &self.detail {
                Some(d) => format!("cannot be checked: {d}"),
                None => "the cited source cannot be read".into(),
            },
        }
    }

    /// One line for a terminal: mark, URI, the quote's start and what the mark means (the
    /// chat's words), then where the quote really is as a URI to open.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", self.verdict.glyph(), self.uri);
        if let Some(q) = &self.quote {
            let short: String = q.chars().take(60).collect();
            let cut = if q.chars().count() > 60 { "…" } else { "" };
            s.push_str(&format!(" \"{short}{cut}\""));
        }
        s.push_str(&format!(" · {}", self.meaning()));
        if let Some(at) = &self.found_at {
            s.push_str(&format!(" → {at}"));
        }
        s
    }
}

/// Where a quote is, briefly: `p.4`, `l.10-12` (the URI itself when it names neither).
pub fn brief_place(found: &str) -> String {
    use crate::vault::uri::{Target, parse};
    match parse(found) {
        Some(Target::Vault { page: Some(p), .. }) => format!("p.{p}"),
        Some(Target::Vault {
            lines: Some((a, b)),
            ..
        }) => {
            if a == b {
                format!("l.{a}")
            } else {
                format!("l.{a}-{b}")
            }
        }
        _ => found.to_string(),
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

    /// The text blocks of page `page` (1-based) of the paper at `path` in content-stream order:
    /// the second witness, which no layout decision can splice (`None`: there is none, as for
    /// a source that is not a PDF).
    fn blocks(&mut self, _path: &str, _page: u32) -> Option<Vec<String>> {
        None
    }

    /// The pages (1-based) of the paper at `path` whose text is OCR.
    fn ocr_pages(&mut self, _path: &str) -> Vec<u32> {
        Vec::new()
    }
}

#[path = "citations_answer.rs"]
mod answer;
use answer::*;

#[path = "citations_ocr.rs"]
mod ocr;

#[path = "citations_witness.rs"]
mod witness;
use witness::{Prepared, Stream, on_page};

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

/// A verdict with where the quote is and why it is not verified.
struct Judged {
    verdict: Verdict,
    found_at: Option<String>,
    detail: Option<String>,
}

impl Judged {
    fn new(verdict: Verdict) -> Judged {
        Judged {
            verdict,
            found_at: None,
            detail: None,
        }
    }

    fn at(mut self, at: String) -> Judged {
        self.found_at = Some(at);
        self
    }

    fn because(mut self, why: Option<String>) -> Judged {
        self.detail = why;
        self
    }
}

/// Why a quote of a running header, a footer or a page number is not verified.
const FURNITURE: &str =
    "only with the page's running header, footer or page number, which are not its text";

/// Why a quote with straight marks that do not pair up is not verified.
const UNCLEAR_EXTENT: &str = "cannot tell where the quote ends (its straight quotation marks do not pair up); quote it in a blockquote or with “curly” marks";

/// What a quote on the reading order alone, across a join the content stream does not make, is.
const SPANS_BLOCKS: &str =
    "spans two blocks (joined only by the reading order, not by the PDF's own text order)";

/// Why `q` is nowhere in the pages `read` (the cited page `cited`, 0-based, if any).
fn why_not(
    read: &Witness,
    q: &verify::Quote,
    cited: Option<usize>,
    page: Option<u32>,
) -> Option<String> {
    let n = read.starts.len();
    if q.parts() > 1 {
        let places = verify::parts_anywhere(read, q);
        if places.iter().all(Option::is_some) {
            let mut on: Vec<usize> = places
                .iter()
                .flatten()
                .map(|r| read.page_at(r.start) + 1)
                .collect();
            on.dedup();
            let pages: Vec<String> = on.iter().map(|p| format!("p.{p}")).collect();
            return Some(if pages.len() > 1 {
                format!("its parts are on {}, not in one passage", pages.join(", "))
            } else {
                format!(
                    "its parts are on {}, but not in this order within {} characters",
                    pages[0],
                    verify::WINDOW
                )
            });
        }
    }
    if let Some(p) = page.filter(|p| *p as usize > n || *p == 0) {
        return Some(format!("the paper has {n} pages, not a page {p}"));
    }
    let region = match cited {
        Some(i) => read.span(i.saturating_sub(1), (i + 1).min(n.saturating_sub(1))),
        None => 0..read.text.len(),
    };
    verify::difference(read, q, region)
}

/// The verdict on one quote against the paper at `path`.
fn judge_pages(
    path: &str,
    page: Option<u32>,
    q: &verify::Quote,
    src: &Prepared,
    docs: &mut dyn Docs,
) -> Judged {
    let read = &src.read;
    let n = read.starts.len();
    let cited = page
        .map(|p| p as usize)
        .filter(|p| (1..=n).contains(p))
        .map(|p| p - 1);
    if let Some(i) = cited.filter(|&i| src.is_ocr(i))
        && let Some(j) = ocr::judge(i, q, src)
    {
        return j;
    }
    if let Some(i) = cited.filter(|&i| !src.is_ocr(i)) {
        let in_read = on_page(read, q, i);
        let lo = i.saturating_sub(1);
        match Stream::of(docs, path, lo, (i + 1).min(n - 1), &src.furniture) {
            Some(s) if s.has(q, i, in_read) => return Judged::new(Verdict::Verified),
            Some(_) if in_read => {
                return Judged::new(Verdict::NotFound).because(Some(SPANS_BLOCKS.into()));
            }
            None if in_read => return Judged::new(Verdict::Verified),
            _ => {}
        }
    }
    match verify::find(read, q, 0..read.text.len(), &|_| true) {
        Some(r) => {
            let a = read.page_at(r.start);
            let at = uri::page_uri(path, a as u32 + 1);
            if page.is_some() {
                return Judged::new(Verdict::OtherPage).at(at);
            }
            if src.is_ocr(a) {
                return Judged::new(Verdict::VerifiedOcr).at(at);
            }
            let lo = a.saturating_sub(1);
            match Stream::of(docs, path, lo, (a + 1).min(n - 1), &src.furniture) {
                Some(s) if !s.has(q, a, true) => {
                    Judged::new(Verdict::NotFound).because(Some(SPANS_BLOCKS.into()))
                }
                _ => Judged::new(Verdict::Verified).at(at),
            }
        }
        None => match cited {
            Some(i) if src_page_empty(&src.doc, i) => Judged::new(Verdict::Unverifiable)
                .because(Some(format!("page {} has no text to check against", i + 1))),
            Some(i) if src.in_furniture(q, i) => {
                Judged::new(Verdict::NotFound).because(Some(FURNITURE.into()))
            }
            _ => Judged::new(Verdict::NotFound).because(why_not(read, q, cited, page)),
        },
    }
}

fn src_page_empty(doc: &Doc, i: usize) -> bool {
    matches!(doc, Doc::Pages(p) if p.get(i).is_some_and(|t| t.trim().is_empty()))
}

/// The verdict on one quote against the text file at `path`.
fn judge_text(path: &str, lines: Option<(u32, u32)>, q: &verify::Quote, src: &Prepared) -> Judged {
    let Doc::Text(text) = &src.doc else {
        return Judged::new(Verdict::Unverifiable);
    };
    let w = &src.read;
    let span = lines.map(|(a, b)| line_span(text, a, b));
    if let Some(span) = &span
        && verify::find(w, q, span.clone(), &|r| r.end <= span.end).is_some()
    {
        return Judged::new(Verdict::Verified);
    }
    match verify::find(w, q, 0..text.len(), &|_| true) {
        Some(r) => {
            let (a, b) = lines_of(text, &(r.start..r.end.min(text.len())));
            let at = uri::lines_uri(path, a, b);
            let v = if lines.is_none() {
                Verdict::Verified
            } else {
                Verdict::OtherPage
            };
            Judged::new(v).at(at)
        }
        None => {
            let region = span.unwrap_or(0..text.len());
            Judged::new(Verdict::NotFound).because(verify::difference(w, q, region))
        }
    }
}

/// Checks every citation of `answer` against the texts `docs` gives. `evidence` are the
/// prompt's evidence URIs in their `[n]` order.
pub fn check(answer: &str, evidence: &[String], docs: &mut dyn Docs) -> Vec<CitationCheck> {
    let mut checker = Checker::new(docs);
    let mut out = Vec::new();
    for Paired {
        uri: u,
        quote,
        unclear,
    } in pair(answer, evidence)
    {
        let judged = match (vault_uri(&u), &quote) {
            (None, _) => Judged::new(Verdict::Unverifiable),
            (Some(_), None) => Judged::new(Verdict::NoQuote),
            (Some((path, page, lines)), Some(text)) => checker.judge(&path, page, lines, text),
        };
        out.push(finish(u, quote, unclear, judged));
    }
    out
}

/// The check's record of one judged quote. A quote whose end cannot be told is verified only as
/// its longest reading, whole; anything less would be a ✓ on a prefix.
fn finish(uri: String, quote: Option<String>, unclear: bool, judged: Judged) -> CitationCheck {
    let judged = if unclear && !judged.verdict.is_verified() && quote.is_some() {
        Judged::new(Verdict::Unverifiable).because(Some(UNCLEAR_EXTENT.into()))
    } else {
        judged
    };
    CitationCheck {
        uri,
        quote,
        verdict: judged.verdict,
        found_at: judged.found_at,
        detail: judged.detail,
    }
}

/// Quotes checked one by one against the texts of a [`Docs`], each source read and prepared
/// once: what [`check`] does for an answer, for callers that pair quotes with places themselves
/// (a manuscript's citations).
pub struct Checker<'d> {
    docs: &'d mut dyn Docs,
    cache: HashMap<String, Option<Prepared>>,
}

impl<'d> Checker<'d> {
    pub fn new(docs: &'d mut dyn Docs) -> Checker<'d> {
        Checker {
            docs,
            cache: HashMap::new(),
        }
    }

    /// The verdict on `quote` cited at page `page` (1-based; `None`: anywhere) of the source at
    /// vault path `path`. `unclear`: where the quote ends could not be told from its marks.
    pub fn quote(
        &mut self,
        path: &str,
        page: Option<u32>,
        quote: &str,
        unclear: bool,
    ) -> CitationCheck {
        let uri = match page {
            Some(p) => uri::page_uri(path, p),
            None => uri::encode_path(path),
        };
        let judged = self.judge(path, page, None, quote);
        finish(uri, Some(quote.to_string()), unclear, judged)
    }

    /// `before` checked again, its quote against the place it cites, as the first check read
    /// it (a quote whose end could not be told stays so).
    pub fn again(&mut self, before: &CitationCheck) -> CitationCheck {
        let unclear = before.detail.as_deref() == Some(UNCLEAR_EXTENT);
        let judged = match (vault_uri(&before.uri), &before.quote) {
            (None, _) => Judged::new(Verdict::Unverifiable),
            (Some(_), None) => Judged::new(Verdict::NoQuote),
            (Some((path, page, lines)), Some(text)) => self.judge(&path, page, lines, text),
        };
        finish(before.uri.clone(), before.quote.clone(), unclear, judged)
    }

    /// The page texts of the paper at `path` (`None`: it cannot be read, or it is not a paper).
    pub fn pages(&mut self, path: &str) -> Option<&[String]> {
        self.prepared(path);
        match self
            .cache
            .get(path)
            .and_then(Option::as_ref)
            .map(|s| &s.doc)
        {
            Some(Doc::Pages(p)) => Some(p.as_slice()),
            _ => None,
        }
    }

    fn prepared(&mut self, path: &str) {
        if !self.cache.contains_key(path) {
            let doc = self.docs.doc(path).map(Prepared::new).map(|mut p| {
                p.ocr = self.docs.ocr_pages(path);
                p
            });
            self.cache.insert(path.to_string(), doc);
        }
    }

    fn judge(
        &mut self,
        path: &str,
        page: Option<u32>,
        lines: Option<(u32, u32)>,
        text: &str,
    ) -> Judged {
        self.prepared(path);
        match (
            self.cache.get(path).and_then(Option::as_ref),
            verify::Quote::new(text),
        ) {
            (None, _) => Judged::new(Verdict::Unverifiable)
                .because(Some("the cited source cannot be read".into())),
            (Some(_), None) => Judged::new(Verdict::Unverifiable)
                .because(Some("nothing in the quote to check".into())),
            (Some(src), Some(q)) => match src.doc {
                Doc::Pages(_) => judge_pages(path, page, &q, src, &mut *self.docs),
                Doc::Text(_) => judge_text(path, lines, &q, src),
            },
        }
    }
}

/// A quoted string of a text: the whole (marks included) and the inner byte ranges, and whether
/// its end cannot be told from its marks (straight marks that do not pair up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotedSpan {
    pub whole: Range<usize>,
    pub inner: Range<usize>,
    pub unclear: bool,
}

/// The quoted strings of `text` (`“…”`, `"…"`, `「…」`, `『…』`), in order, found as in an
/// answer.
pub fn quoted_spans(text: &str) -> Vec<QuotedSpan> {
    quoted_strings(text)
        .into_iter()
        .map(|q| QuotedSpan {
            whole: q.whole,
            inner: q.inner,
            unclear: q.unclear,
        })
        .collect()
}

/// A quoted passage without its marks, end ellipses and runs of white space; `None` when it is
/// a term, not evidence (fewer than three words or fifteen characters).
pub fn evidence_quote(inner: &str) -> Option<String> {
    let q = clean_quote(inner);
    is_quote(&q).then_some(q)
}

/// The vault's texts, as the context tools serve them (index pages, or extracted on demand),
/// and the second witness of a paper's pages, extracted from the PDF when asked; hidden
/// entries and the app's state are never read.
pub struct VaultDocs<'a> {
    pub vault: &'a Vault,
    pub reader: VaultReader,
    blocks: HashMap<(String, u32), Option<Vec<String>>>,
}

impl<'a> VaultDocs<'a> {
    pub fn new(vault: &'a Vault) -> VaultDocs<'a> {
        VaultDocs {
            vault,
            reader: VaultReader::default(),
            blocks: HashMap::new(),
        }
    }
}

/// How long the second witness of one paper may take to extract.
const BLOCKS_TIME: std::time::Duration = std::time::Duration::from_secs(20);

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

    fn ocr_pages(&mut self, path: &str) -> Vec<u32> {
        let Ok(target) = Access::WholeVault.authorize(self.vault, path) else {
            return Vec::new();
        };
        if target.kind != EntryKind::Paper {
            return Vec::new();
        }
        match self.reader.paper(self.vault, &target) {
            Ok(p) => p
                .record
                .pages_ocr
                .iter()
                .filter(|n| n.words > 0)
                .map(|n| n.page)
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    fn blocks(&mut self, path: &str, page: u32) -> Option<Vec<String>> {
        let key = (path.to_string(), page);
        if let Some(b) = self.blocks.get(&key) {
            return b.clone();
        }
        // The next two pages at once: a quote is checked against a page and its neighbours,
        // asked for from the first.
        let want: Vec<u32> = (page..=page + 2).collect();
        let got = Access::WholeVault
            .authorize(self.vault, path)
            .ok()
            .filter(|t| t.kind == EntryKind::Paper)
            .and_then(|t| std::fs::read(&t.abs).ok())
            .and_then(|bytes| {
                let limits = crate::vault::pdf::Limits {
                    deadline: std::time::Instant::now() + BLOCKS_TIME,
                };
                crate::vault::pdf::stream_blocks(&bytes, &want, limits).ok()
            });
        for (k, p) in want.iter().enumerate() {
            let b = got.as_ref().and_then(|g| g.get(k).cloned());
            self.blocks.insert((path.to_string(), *p), b);
        }
        self.blocks.get(&key).cloned().flatten()
    }
}

/// [`check`] against the vault.
pub fn check_in_vault(vault: &Vault, answer: &str, evidence: &[String]) -> Vec<CitationCheck> {
    check(answer, evidence, &mut VaultDocs::new(vault))
}

/// The vault places an answer cites, in order (URIs, and `[n]` markers resolved through its own
/// reference list), each once.
pub fn cited_places(answer: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for Paired { uri, .. } in pair(answer, &[]) {
        if !out.iter().any(|o| same_place(o, &uri)) {
            out.push(uri);
        }
    }
    out
}

/// The same place, however it is written (`a%20b.pdf#page=3` and `a b.pdf#page=3`).
pub fn same_place(a: &str, b: &str) -> bool {
    a == b || (vault_uri(a).is_some() && vault_uri(a) == vault_uri(b))
}

#[cfg(test)]
mod tests;
