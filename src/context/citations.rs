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
}

#[path = "citations_answer.rs"]
mod answer;
use answer::*;

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
    if let Some(i) = cited {
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
    let judged = if unclear && judged.verdict != Verdict::Verified && quote.is_some() {
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
            let doc = self.docs.doc(path).map(Prepared::new);
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
mod tests {
    use super::*;

    struct Fixed(HashMap<String, Doc>, HashMap<(String, u32), Vec<String>>);

    impl Docs for Fixed {
        fn doc(&mut self, path: &str) -> Option<Doc> {
            self.0.get(path).cloned()
        }

        fn blocks(&mut self, path: &str, page: u32) -> Option<Vec<String>> {
            self.1.get(&(path.to_string(), page)).cloned()
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
        m.insert(
            "papers/zh/paper.pdf".to_string(),
            Doc::Pages(vec![
                "第一章 引言\n本文提出一种新的检索方法，\n实验结果表明准确率提高了 5.2%。".into(),
                "第二章 方法\n我们使用窗口大小为一百五十个词的段落。".into(),
                String::new(),
            ]),
        );
        // The layout pass spliced a sidebar into the abstract; the content stream did not.
        m.insert(
            "papers/els/paper.pdf".to_string(),
            Doc::Pages(vec![
                "Article history A reader that checks every quote\nReceived 1 May 2020 finds that 12% of\nKeywords: citations the answers cite a wrong page.".into(),
            ]),
        );
        // A journal's pages: a running head with the page number on every page but the first,
        // whose number is at its foot.
        m.insert(
            "papers/j/paper.pdf".to_string(),
            Doc::Pages(vec![
                "A Journal Paper\nThe first page opens the argument and runs on\ninto a sentence that ends on the next page\n\n1".into(),
                "2 SMITH AND JONES\nafter the header, where the claim is finished.\nMore text follows here.".into(),
                "3 SMITH AND JONES\nThe last page closes the paper.".into(),
            ]),
        );
        let mut b = HashMap::new();
        b.insert(
            ("papers/j/paper.pdf".to_string(), 1),
            vec![
                "A Journal Paper".to_string(),
                "The first page opens the argument and runs on\ninto a sentence that ends on the next page".to_string(),
                "1".to_string(),
            ],
        );
        b.insert(
            ("papers/j/paper.pdf".to_string(), 2),
            vec![
                "2 SMITH AND JONES".to_string(),
                "after the header, where the claim is finished.\nMore text follows here."
                    .to_string(),
            ],
        );
        b.insert(
            ("papers/j/paper.pdf".to_string(), 3),
            vec![
                "3 SMITH AND JONES".to_string(),
                "The last page closes the paper.".to_string(),
            ],
        );
        b.insert(
            ("papers/els/paper.pdf".to_string(), 1),
            vec![
                "Article history\nReceived 1 May 2020\nKeywords: citations".to_string(),
                "A reader that checks every quote\nfinds that 12% of\nthe answers cite a wrong page.".to_string(),
            ],
        );
        Fixed(m, b)
    }

    fn judged(answer: &str) -> Vec<(Verdict, Option<String>)> {
        check(answer, &[], &mut docs())
            .into_iter()
            .map(|c| (c.verdict, c.detail))
            .collect()
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
    fn a_zero_marker_points_to_nothing() {
        // `[0]` in an answer (a table cell, an index in code) is no marker of the evidence.
        let a = "The row \"x[0] = 1\" and [0] here (papers/a/paper.pdf#page=1)";
        let evidence = vec!["papers/a/paper.pdf#page=1".to_string()];
        let got = check(a, &evidence, &mut docs());
        assert!(got.len() <= 1, "{got:?}");
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
        // The tail of a file name with spaces is not a source of its own.
        let spaced =
            "The note cites storage/ABCD2345/Gal et al. - 2009 - Tracing Languages.pdf for it.";
        assert_eq!(cited_places(spaced), Vec::<String>::new());
    }

    #[test]
    fn elided_quotes_and_blockquotes_with_a_source_line() {
        let a = "> The first result shows that quoting first … at almost no cost.\n— papers/a/paper.pdf#page=1\n";
        assert_eq!(verdicts(a), vec![(Verdict::Verified, None)]);
        // Short quoted terms are not quotes.
        let b = "The \"fusion\" method (papers/a/paper.pdf#page=2).";
        assert_eq!(verdicts(b), vec![(Verdict::NoQuote, None)]);
    }

    #[test]
    fn a_changed_number_names_the_token_that_differs() {
        let a = "\"Recall at ten reaches 0.731 with fusion, against 6.12 for BM25 alone\" — papers/a/paper.pdf#page=2";
        let checks = check(a, &[], &mut docs());
        assert_eq!(checks[0].verdict, Verdict::NotFound);
        assert_eq!(
            checks[0].detail.as_deref(),
            Some("\"6.12\" — the page has \"0.612\"")
        );
        assert!(
            checks[0].line().ends_with("the page has \"0.612\""),
            "{}",
            checks[0].line()
        );
    }

    #[test]
    fn chinese_and_japanese_quotes_are_checked() {
        let right = "论文说「本文提出一种新的检索方法，实验结果表明准确率提高了 5.2%」（papers/zh/paper.pdf#page=1）";
        assert_eq!(judged(right), vec![(Verdict::Verified, None)]);
        let wrong = "『实验结果表明准确率提高了 2.5%』 papers/zh/paper.pdf#page=1";
        assert_eq!(judged(wrong)[0].0, Verdict::NotFound);
        let other = "“我们使用窗口大小为一百五十个词的段落” papers/zh/paper.pdf#page=1";
        assert_eq!(
            verdicts(other),
            vec![(
                Verdict::OtherPage,
                Some("papers/zh/paper.pdf#page=2".into())
            )]
        );
        // A page without text cannot say anything about a quote.
        let blank = "「这一页没有任何文字可以核对」 papers/zh/paper.pdf#page=3";
        let got = judged(blank);
        assert_eq!(got[0].0, Verdict::Unverifiable);
        assert!(got[0].1.as_deref().unwrap().contains("no text"), "{got:?}");
    }

    #[test]
    fn a_splice_of_the_layout_pass_is_never_verified() {
        let spliced = "\"Received 1 May 2020 finds that 12% of\" — papers/els/paper.pdf#page=1";
        let got = judged(spliced);
        assert_eq!(got[0].0, Verdict::NotFound);
        assert!(
            got[0].1.as_deref().unwrap().starts_with("spans two blocks"),
            "{got:?}"
        );
        let true_sentence = "\"A reader that checks every quote finds that 12% of the answers cite a wrong page.\" — papers/els/paper.pdf#page=1";
        assert_eq!(judged(true_sentence), vec![(Verdict::Verified, None)]);
    }

    #[test]
    fn an_elision_across_far_pages_is_not_on_the_cited_page() {
        let a = "\"The first result shows that quoting first … Nothing else here\" — papers/a/paper.pdf#page=1";
        let got = judged(a);
        assert_eq!(got[0].0, Verdict::NotFound);
        assert_eq!(
            got[0].1.as_deref(),
            Some("its parts are on p.1, p.3, not in one passage")
        );
    }

    #[test]
    fn a_quote_that_quotes_is_checked_whole() {
        let right = "They write “The first result shows that “quoting first” makes answers checkable at almost no cost.” (papers/a/paper.pdf#page=1)";
        let got = check(right, &[], &mut docs());
        assert_eq!(got[0].verdict, Verdict::Verified);
        assert!(
            got[0].quote.as_deref().unwrap().ends_with("no cost."),
            "{got:?}"
        );
        let altered = "They write “The first result shows that “quoting first” makes answers checkable at almost zero cost.” (papers/a/paper.pdf#page=1)";
        assert_eq!(judged(altered)[0].0, Verdict::NotFound);
    }

    #[test]
    fn straight_quotes_inside_a_quote_are_text() {
        let right = "They write \"The first result shows that \"quoting first\" makes answers checkable at almost no cost.\" (papers/a/paper.pdf#page=1)";
        let got = check(right, &[], &mut docs());
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].verdict, Verdict::Verified);
        assert!(
            got[0].quote.as_deref().unwrap().ends_with("no cost."),
            "{got:?}"
        );
        // A changed word after the inner quote: the prefix before it is never what is checked.
        let altered = right.replace("no cost", "zero cost");
        let got = check(&altered, &[], &mut docs());
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].verdict, Verdict::NotFound, "{got:?}");
        // Inner marks next to punctuation.
        let comma = "They write \"The first result shows that quoting first makes answers \"checkable\", at almost no cost.\" (papers/a/paper.pdf#page=1)";
        let q = quoted_strings(comma);
        assert_eq!(q.len(), 1, "{q:?}");
        assert!(!q[0].unclear);
        assert!(comma[q[0].inner.clone()].ends_with("no cost."), "{q:?}");
        let two = "Page 2 says \"Recall at ten reaches 0.731 with fusion\" and \"against 0.612 for BM25 alone\" (papers/a/paper.pdf#page=2)";
        let got = check(two, &[], &mut docs());
        assert!(
            got.iter().all(|c| c.verdict == Verdict::Verified),
            "two quotes side by side: {got:?}"
        );
    }

    #[test]
    fn a_quote_whose_end_cannot_be_told_is_never_verified_on_a_prefix() {
        // A mark with spaces on both sides reads either way: the longest reading is checked,
        // and when it is not on the page the verdict says why, never ✓ on "The first result
        // shows that".
        let altered = "They write \"The first result shows that \" quoting first\" makes answers checkable at almost zero cost.\" (papers/a/paper.pdf#page=1)";
        let got = judged(altered);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, Verdict::Unverifiable, "{got:?}");
        assert!(
            got[0]
                .1
                .as_deref()
                .unwrap()
                .starts_with("cannot tell where the quote ends"),
            "{got:?}"
        );
        let right = altered.replace("zero cost", "no cost");
        assert_eq!(judged(&right)[0].0, Verdict::Verified);
        // A stray closing mark later in the sentence: the quote may end there.
        let stray = "They write \"The first result shows that\" quoting first makes answers checkable at almost zero cost\" (papers/a/paper.pdf#page=1)";
        let got = judged(stray);
        assert_eq!(got[0].0, Verdict::Unverifiable, "{got:?}");
    }

    #[test]
    fn a_quote_runs_across_a_page_break_over_the_running_head_and_page_number() {
        let q = "\"into a sentence that ends on the next page after the header, where the claim is finished.\"";
        for page in [1, 2] {
            let a = format!("{q} (papers/j/paper.pdf#page={page})");
            assert_eq!(
                judged(&a)[0].0,
                Verdict::Verified,
                "cited p.{page}: {:?}",
                judged(&a)
            );
        }
        // A changed word after the break is still caught.
        let a = "\"into a sentence that ends on the next page after the footer, where the claim is finished.\" (papers/j/paper.pdf#page=2)";
        assert_eq!(judged(a)[0].0, Verdict::NotFound);
        // The running head is not evidence, nor is the page number spliced into the text.
        let head = "\"2 SMITH AND JONES after the header\" (papers/j/paper.pdf#page=2)";
        let got = judged(head);
        assert_eq!(got[0].0, Verdict::NotFound, "{got:?}");
        assert!(
            got[0].1.as_deref().unwrap().contains("running header"),
            "{got:?}"
        );
    }
}
