//! `agentero check`: every citation of a manuscript against the page it cites. A citation with
//! a quote is verified on the cited page by the strict matcher answers are checked with
//! ([`Checker`]): `✓`, or `⚠` with what differs, the page the quote is really on, or that it
//! is nowhere; printed page labels are honoured and the PDF's own page number is accepted too
//! (and said). A citation without a quote supports a claim: the passages of the cited paper
//! that best match the sentence are listed with their pages (retrieval, never a ✓). A key the
//! vault has no paper for, a page past the end and an ambiguous author–year are problems too.

pub mod draft;
pub mod library;
pub mod pages;
pub mod source;

use std::collections::HashMap;

use serde::Serialize;

use self::draft::{Citation, Format};
use self::library::{Library, Resolved};
use self::pages::{Cited, Labels};
use super::citations::{Checker, VaultDocs, Verdict};
use crate::vault::index::SearchIndex;
use crate::vault::uri::{self, Target};
use crate::vault::{Scope, SearchOptions, Vault};

/// What a citation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The quote is on the cited page.
    Verified,
    /// The quote is on the cited page, whose text is OCR: within the tolerance of confusable
    /// letters written down in `citations_ocr` — never a plain ✓.
    VerifiedOcr,
    /// Close to a passage of the cited page, but a word differs.
    Differs,
    /// On another page of the cited paper.
    OtherPage,
    /// Not in the cited paper.
    NotFound,
    /// Cannot be checked (the paper has no text there, the quote's end is unclear).
    Unverifiable,
    /// A claim without a quote: passages listed, nothing verified.
    Claim,
    /// No paper of the vault has this key.
    NotInLibrary,
    /// Several papers answer to it.
    Ambiguous,
    /// The cited page is not in the paper.
    NoSuchPage,
}

impl Outcome {
    /// Whether the author must look at it.
    pub fn problem(self) -> bool {
        !matches!(
            self,
            Outcome::Verified | Outcome::VerifiedOcr | Outcome::Claim
        )
    }

    pub fn glyph(self) -> &'static str {
        match self {
            Outcome::Verified => "✓",
            Outcome::VerifiedOcr => "✓ (OCR)",
            Outcome::Claim => "·",
            _ => "⚠",
        }
    }
}

/// A passage of the cited paper that matches a claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Support {
    pub page: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    pub uri: String,
    pub excerpt: String,
    /// On a page the citation names.
    pub cited: bool,
}

/// One citation of the manuscript, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Checked {
    pub line: u32,
    pub column: u32,
    /// The key as written (`@smith2020`, `Smith 2020`).
    pub key: String,
    /// The citation as written.
    pub written: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    pub claim: String,
    pub outcome: Outcome,
    /// What it came to, in words (`differs: "4.65%" — the page has "4.56%"`).
    pub says: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Where to look: the page the quote is on, else the cited page, else the paper.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// That page, physical (1-based), and its printed label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    /// Something worth knowing besides the outcome (`p. 4 read as the PDF's page`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub support: Vec<Support>,
    /// Papers an ambiguous citation could be.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
}

/// Counts of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub citations: usize,
    pub papers: usize,
    pub verified: usize,
    pub claims: usize,
    pub problems: usize,
    pub not_in_library: usize,
}

/// A manuscript's citations, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub format: Format,
    pub citations: Vec<Checked>,
    pub summary: Summary,
}

/// Passages listed for a claim.
const SUPPORT: usize = 3;
/// Characters of a passage's excerpt.
const EXCERPT_CHARS: usize = 220;

/// Checks every citation of the manuscript `text` (named `name`, whose extension tells its
/// format) against the papers of `library`; claims are matched through `index` when there is
/// one. `progress` is told each citation done and the total.
pub fn check(
    vault: &Vault,
    index: Option<&SearchIndex>,
    library: &Library,
    name: &str,
    text: &str,
    progress: &mut dyn FnMut(usize, usize),
) -> Report {
    let format = Format::of(name, text);
    let cites = draft::citations(text, format);
    let mut docs = VaultDocs::new(vault);
    let mut run = Run {
        index,
        library,
        checker: Checker::new(&mut docs),
        labels: HashMap::new(),
    };
    let mut out: Vec<Checked> = Vec::with_capacity(cites.len());
    let mut start = 0;
    while start < cites.len() {
        let group = cites[start].group;
        let end = cites[start..]
            .iter()
            .position(|c| c.group != group)
            .map_or(cites.len(), |k| start + k);
        out.extend(run.group(&cites[start..end]));
        start = end;
        progress(end, cites.len());
    }
    let mut papers: Vec<&str> = out.iter().filter_map(|c| c.paper.as_deref()).collect();
    papers.sort_unstable();
    papers.dedup();
    let summary = Summary {
        citations: out.len(),
        papers: papers.len(),
        verified: out
            .iter()
            .filter(|c| matches!(c.outcome, Outcome::Verified | Outcome::VerifiedOcr))
            .count(),
        claims: out.iter().filter(|c| c.outcome == Outcome::Claim).count(),
        problems: out.iter().filter(|c| c.outcome.problem()).count(),
        not_in_library: out
            .iter()
            .filter(|c| c.outcome == Outcome::NotInLibrary)
            .count(),
    };
    Report {
        format,
        citations: out,
        summary,
    }
}

struct Run<'a, 'd> {
    index: Option<&'a SearchIndex>,
    library: &'a Library,
    checker: Checker<'d>,
    labels: HashMap<usize, Option<Labels>>,
}

impl Run<'_, '_> {
    /// The citations written together. A quote before a group of several is checked against
    /// each; when one has it, the others are claims the quote is not theirs.
    fn group(&mut self, cites: &[Citation]) -> Vec<Checked> {
        let mut out: Vec<Checked> = cites.iter().map(|c| self.one(c)).collect();
        if out.len() > 1
            && out.iter().any(|c| c.quote.is_some())
            && let Some(k) = out
                .iter()
                .position(|c| matches!(c.outcome, Outcome::Verified | Outcome::VerifiedOcr))
        {
            let owner = out[k].key.clone();
            for (i, c) in out.iter_mut().enumerate() {
                if i != k && c.outcome.problem() && c.paper.is_some() {
                    c.outcome = Outcome::Claim;
                    c.says = format!("claim (the quote is {owner}'s)");
                }
            }
        }
        out
    }

    fn one(&mut self, c: &Citation) -> Checked {
        let mut r = Checked {
            line: c.line,
            column: c.column,
            key: c.key.shown(),
            written: c.written.clone(),
            locator: c.locator.as_ref().map(|l| l.written.clone()),
            quote: c.quote.clone(),
            claim: c.claim.clone(),
            outcome: Outcome::Claim,
            says: String::new(),
            paper: None,
            title: None,
            uri: None,
            page: None,
            page_label: None,
            note: None,
            support: Vec::new(),
            candidates: Vec::new(),
        };
        let i = match self.library.resolve(&c.key) {
            Resolved::Paper(i, how) => {
                r.note = how.map(|h| format!("found by {h}"));
                i
            }
            Resolved::Ambiguous(v) => {
                r.outcome = Outcome::Ambiguous;
                r.candidates = v
                    .iter()
                    .map(|&i| self.library.papers[i].path.clone())
                    .collect();
                r.says = format!("ambiguous: {} papers answer to it", v.len());
                return r;
            }
            Resolved::Missing(why) => {
                r.outcome = Outcome::NotInLibrary;
                r.says = why;
                if let draft::Key::Key(k) = &c.key
                    && let Some(near) = self.library.nearest_key(k)
                {
                    r.note = Some(format!("did you mean @{near}?"));
                }
                return r;
            }
        };
        let paper = &self.library.papers[i];
        let path = paper.path.clone();
        r.paper = Some(path.clone());
        r.title = Some(paper.meta.title.clone());
        r.uri = Some(uri::encode_path(&path));
        let Some(labels) = self.labels_of(i) else {
            r.outcome = Outcome::Unverifiable;
            r.says = "cannot be checked: the paper's text cannot be read".into();
            return r;
        };
        // The cited pages, by printed label, and read as the PDF's own pages.
        let ranges: Vec<(String, String)> = c
            .locator
            .as_ref()
            .map(|l| l.pages.clone())
            .unwrap_or_default();
        let mut printed: Vec<(u32, u32)> = Vec::new();
        let mut physical: Vec<(u32, u32)> = Vec::new();
        for (first, last) in &ranges {
            let a = labels.find(first);
            let b = labels.find(last);
            match (a, b) {
                (Cited::Page { page: x, .. }, Cited::Page { page: y, .. }) if y >= x => {
                    printed.push((x, y))
                }
                (Cited::Page { page: x, .. }, _) => printed.push((x, x)),
                _ => {}
            }
            if let (Ok(x), Ok(y)) = (first.parse::<u32>(), last.parse::<u32>())
                && (1..=labels.count()).contains(&x)
            {
                physical.push((x, y.clamp(x, labels.count())));
            }
        }
        if !ranges.is_empty() && printed.is_empty() && physical.is_empty() {
            r.outcome = Outcome::NoSuchPage;
            let asked = c.locator.as_ref().map_or("", |l| l.written.as_str());
            r.says = format!("no {}: the paper has {}", as_page(asked), labels.span());
            return r;
        }
        let cited: Vec<(u32, u32)> = if printed.is_empty() {
            physical.clone()
        } else {
            printed.clone()
        };
        if let Some(&(p, _)) = cited.first() {
            self.at(&mut r, &path, p, &labels);
        }
        if printed.is_empty() && labels.printed {
            let asked = c.locator.as_ref().map_or("", |l| l.written.as_str());
            r.note = Some(format!(
                "{} is not a page number this paper prints ({}); read as the PDF's own page",
                as_page(asked),
                labels.span()
            ));
        }
        match &c.quote {
            Some(q) => self.verify(&mut r, &path, q, c.unclear, &cited, &physical, &labels),
            None => {
                r.outcome = Outcome::Claim;
                r.support = self.support(&path, &c.claim, &cited, &labels);
                r.says = match (r.support.iter().any(|s| s.cited), cited.is_empty()) {
                    (_, true) if r.support.is_empty() => "claim (no quote; no passage matches it)".into(),
                    (_, true) => "claim (no quote, no page): the passages that match it best".into(),
                    (true, false) => "claim (no quote): the cited page is among the passages that match it best".into(),
                    (false, false) => "claim (no quote): the cited page is not among the passages that match it best".into(),
                };
            }
        }
        r
    }

    /// `r` points at physical page `page` of `path`.
    fn at(&self, r: &mut Checked, path: &str, page: u32, labels: &Labels) {
        r.page = Some(page);
        r.page_label = labels
            .label(page)
            .filter(|l| *l != page.to_string())
            .map(str::to_string);
        r.uri = Some(uri::page_uri(path, page));
    }

    #[allow(clippy::too_many_arguments)]
    fn verify(
        &mut self,
        r: &mut Checked,
        path: &str,
        quote: &str,
        unclear: bool,
        cited: &[(u32, u32)],
        physical: &[(u32, u32)],
        labels: &Labels,
    ) {
        let first = cited.first().map(|c| c.0);
        let got = self.checker.quote(path, first, quote, unclear);
        let found = got.found_at.as_deref().and_then(page_of);
        let within = |set: &[(u32, u32)], p: u32| set.iter().any(|&(a, b)| (a..=b).contains(&p));
        match got.verdict {
            Verdict::Verified | Verdict::VerifiedOcr => {
                let p = found.or(first).unwrap_or(1);
                self.at(r, path, p, labels);
                r.outcome = if got.verdict == Verdict::VerifiedOcr {
                    Outcome::VerifiedOcr
                } else {
                    Outcome::Verified
                };
                r.says = format!("on {}", labels.say(p));
                if cited.is_empty() {
                    r.note = Some(format!("no page cited; the quote is on {}", labels.say(p)));
                }
            }
            Verdict::OtherPage => {
                let Some(p) = found else {
                    r.outcome = Outcome::NotFound;
                    r.says = "not found on the cited page".into();
                    return;
                };
                self.at(r, path, p, labels);
                // A quote that starts on the page before the cited one and runs onto it, or
                // any page of a cited range.
                if within(cited, p) {
                    r.outcome = Outcome::Verified;
                    r.says = format!("on {}", labels.say(p));
                } else if within(physical, p) {
                    r.outcome = Outcome::Verified;
                    r.says = format!("on {}", labels.say(p));
                    r.note = Some(format!(
                        "cited as p. {p}: that is the PDF's page {p}; the paper prints it as p. {}",
                        labels.label(p).unwrap_or("?")
                    ));
                } else {
                    r.outcome = Outcome::OtherPage;
                    let asked = r.locator.clone().unwrap_or_default();
                    r.says = format!("on {}, not {}", labels.say(p), as_page(&asked));
                }
            }
            Verdict::NotFound => {
                let detail = got.detail.unwrap_or_default();
                if detail.contains(" — the page has ") || detail.contains(" — not on the page")
                {
                    r.outcome = Outcome::Differs;
                    r.says = format!("differs: {detail}");
                } else if detail.is_empty() {
                    r.outcome = Outcome::NotFound;
                    r.says = match first {
                        Some(p) => {
                            format!("not found on {} or elsewhere in the paper", labels.say(p))
                        }
                        None => "not found in the paper".into(),
                    };
                } else {
                    r.outcome = Outcome::NotFound;
                    r.says = format!("not found: {detail}");
                }
            }
            Verdict::Unverifiable | Verdict::NoQuote => {
                r.outcome = Outcome::Unverifiable;
                r.says = format!(
                    "cannot be checked: {}",
                    got.detail
                        .unwrap_or_else(|| "the paper cannot be read".into())
                );
            }
        }
    }

    /// The passages of the paper that best match `claim`, marked when on a cited page.
    fn support(
        &self,
        path: &str,
        claim: &str,
        cited: &[(u32, u32)],
        labels: &Labels,
    ) -> Vec<Support> {
        let Some(index) = self.index else {
            return Vec::new();
        };
        if claim.split_whitespace().count() < 2 {
            return Vec::new();
        }
        let opts = SearchOptions {
            limit: SUPPORT,
            excerpt_chars: EXCERPT_CHARS,
            lenient: true,
            scope: Some(Scope {
                files: vec![path.to_string()],
                dirs: Vec::new(),
            }),
            per_document: None,
        };
        let cards = index.search(claim, &opts).unwrap_or_default();
        cards
            .into_iter()
            .filter_map(|card| {
                let page = card.page?;
                Some(Support {
                    page,
                    page_label: labels
                        .label(page)
                        .filter(|l| *l != page.to_string())
                        .map(str::to_string),
                    uri: card.citation_uri,
                    excerpt: card.excerpt.replace("**", ""),
                    cited: cited.iter().any(|&(a, b)| (a..=b).contains(&page)),
                })
            })
            .collect()
    }

    fn labels_of(&mut self, i: usize) -> Option<Labels> {
        if let Some(l) = self.labels.get(&i) {
            return l.clone();
        }
        let paper = &self.library.papers[i];
        let pdf: Vec<Option<String>> = paper
            .record
            .as_ref()
            .map(|r| r.page_labels.clone())
            .unwrap_or_default();
        let labels = self
            .checker
            .pages(&paper.path)
            .map(|pages| Labels::new(&pdf, pages));
        self.labels.insert(i, labels.clone());
        labels
    }
}

/// A locator as a page: `283` is `p. 283`, `pp. 3–4` stays.
fn as_page(written: &str) -> String {
    if written.starts_with(|c: char| c.is_ascii_digit()) {
        format!("p. {written}")
    } else {
        written.to_string()
    }
}

/// The largest manuscript read (a book is a few MB of text).
pub const MAX_DRAFT_BYTES: u64 = 32 * 1024 * 1024;

/// The page of a citation URI.
fn page_of(u: &str) -> Option<u32> {
    match uri::parse(u)? {
        Target::Vault { page, .. } => page,
        Target::External(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::Outcome;

    #[test]
    fn a_quote_verified_on_ocr_text_is_never_a_plain_check_mark() {
        assert_eq!(Outcome::VerifiedOcr.glyph(), "✓ (OCR)");
        assert!(!Outcome::VerifiedOcr.problem());
        let json = serde_json::to_string(&Outcome::VerifiedOcr).unwrap();
        assert_eq!(json, "\"verified_ocr\"");
    }
}
