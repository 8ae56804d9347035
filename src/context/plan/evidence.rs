//! The evidence a plan carries: the selection's and the current page's quotes, and the
//! inlined first lines of mentioned sources when the agent cannot read the vault itself.

use super::*;

/// The evidence of the selection and of the current paper (their verified sources, duplicates
/// included).
pub(super) fn request_evidence(
    vault: &Vault,
    catalog: &Catalog,
    req: &ContextRequest,
    seen: &[(Origin, Option<Verified>)],
    budget: &Budget,
) -> Vec<Evidence> {
    let mut evidence = Vec::new();
    let of_origin = |origin: Origin| {
        seen.iter()
            .find(|(o, _)| *o == origin)
            .and_then(|(_, v)| v.as_ref())
            .filter(|v| v.kind != EntryKind::Directory)
    };
    if let (Some(sel), Some(v)) = (&req.selection, of_origin(Origin::Selection)) {
        evidence.push(evidence_item(
            vault,
            catalog,
            v,
            sel.page,
            Some(&sel.text),
            budget,
            Origin::Selection,
        ));
    }
    if let (Some(cur), Some(v)) = (&req.current, of_origin(Origin::Current)) {
        // A selection on the same page already points the agent there: no second item.
        let covered = evidence.first().is_some_and(|e| {
            e.path == v.path && req.selection.as_ref().is_some_and(|s| s.page == cur.page)
        });
        if !covered {
            evidence.push(evidence_item(
                vault,
                catalog,
                v,
                cur.page,
                None,
                budget,
                Origin::Current,
            ));
        }
    }
    evidence
}

/// The record of an indexed paper whose catalog entry matches the verified hash.
pub(super) fn record_of(vault: &Vault, catalog: &Catalog, v: &Verified) -> Option<PaperRecord> {
    let entry = catalog.entries.get(&v.path)?;
    (entry.sha256 == v.sha256)
        .then(|| vault.record(&v.sha256))
        .flatten()
}

pub(super) fn title_of(
    vault: &Vault,
    catalog: &Catalog,
    v: &Verified,
    record: Option<&PaperRecord>,
) -> String {
    if let Some(e) = catalog
        .entries
        .get(&v.path)
        .filter(|e| e.sha256 == v.sha256 && !e.title.is_empty())
    {
        return e.title.clone();
    }
    if let Some(r) = record.filter(|r| !r.meta.title.is_empty()) {
        return r.meta.title.clone();
    }
    if v.kind == EntryKind::File
        && let Ok(text) = std::fs::read_to_string(vault.abs_path(&v.path))
    {
        return textfile::title(&v.path, &text);
    }
    meta::file_title(&v.path)
}

/// Cuts `text` at `cap` characters; returns the text and whether it was cut.
pub fn cap_quote(text: &str, cap: usize) -> (String, bool) {
    let text = text.trim();
    if text.chars().count() <= cap {
        return (text.to_string(), false);
    }
    (text.chars().take(cap).collect(), true)
}

pub(super) fn evidence_item(
    vault: &Vault,
    catalog: &Catalog,
    v: &Verified,
    page: Option<u32>,
    quote_text: Option<&str>,
    budget: &Budget,
    origin: Origin,
) -> Evidence {
    let record = match v.kind {
        EntryKind::Paper => record_of(vault, catalog, v),
        _ => None,
    };
    let title = title_of(vault, catalog, v, record.as_ref());
    let quote_text = quote_text.map(str::trim).filter(|q| !q.is_empty());
    let (quote, truncated) = match quote_text {
        Some(q) => {
            let (q, t) = cap_quote(q, budget.quote_cap);
            (Some(q), t)
        }
        None => (None, false),
    };
    match v.kind {
        EntryKind::Paper => {
            // A page beyond the paper's end (stale UI state) is dropped rather than cited.
            let page = page.filter(|p| *p >= 1 && record.as_ref().is_none_or(|r| *p <= r.pages));
            let section = page.and_then(|p| {
                record.as_ref().and_then(|r| {
                    r.sections
                        .iter()
                        .rfind(|s| s.page <= p)
                        .map(|s| match &s.number {
                            Some(n) => format!("{n} {}", s.title),
                            None => s.title.clone(),
                        })
                })
            });
            let page_label =
                page.and_then(|p| record.as_ref().and_then(|r| r.label(p).map(str::to_string)));
            Evidence {
                path: v.path.clone(),
                kind: v.kind,
                title,
                page,
                page_label,
                lines: None,
                section,
                quote,
                truncated,
                citation_uri: match page {
                    Some(p) => uri::page_uri(&v.path, p),
                    None => uri::encode_path(&v.path),
                },
                origin,
            }
        }
        _ => {
            // In a text file the quote's place is its line range.
            let lines = quote_text.and_then(|q| {
                let text = std::fs::read_to_string(&v.abs).ok()?;
                let range = quote::find(&text, q)?.range;
                let first = text[..range.start].matches('\n').count() as u32 + 1;
                let last = first + text[range.start..range.end].matches('\n').count() as u32;
                Some([first, last])
            });
            Evidence {
                path: v.path.clone(),
                kind: v.kind,
                title,
                page: None,
                page_label: None,
                lines,
                section: None,
                quote,
                truncated,
                citation_uri: match lines {
                    Some([a, b]) => uri::lines_uri(&v.path, a, b),
                    None => uri::encode_path(&v.path),
                },
                origin,
            }
        }
    }
}

/// Characters of inlined mention evidence one prompt carries at most (each item is also cut at
/// the quote cap).
pub const INLINE_CHARS: usize = 4 * crate::context::budget::QUOTE_CAP;

/// The evidence of mentioned sources (sorted by path), each cut at the quote cap and all
/// together at [`INLINE_CHARS`]: a file's first lines, a paper's first page (from the index,
/// when it holds the paper as it is; else only its title and citation), what a folder covers.
/// Sources the selection or current page already quote are skipped; a mention named twice
/// counts once.
pub(super) fn inline_evidence(
    vault: &Vault,
    catalog: &Catalog,
    mentioned: &[&Verified],
    evidence: &[Evidence],
    budget: &Budget,
) -> Vec<Evidence> {
    let mut out: Vec<Evidence> = Vec::new();
    let mut left = INLINE_CHARS;
    let mut index: Option<Option<crate::vault::SearchIndex>> = None;
    for v in mentioned {
        if out.iter().any(|e| e.path == v.path) || evidence.iter().any(|e| e.path == v.path) {
            continue;
        }
        let cap = budget.quote_cap.min(left);
        let record = match v.kind {
            EntryKind::Paper => record_of(vault, catalog, v),
            _ => None,
        };
        let title = title_of(vault, catalog, v, record.as_ref());
        let mut item = Evidence {
            path: v.path.clone(),
            kind: v.kind,
            title,
            page: None,
            page_label: None,
            lines: None,
            section: None,
            quote: None,
            truncated: false,
            citation_uri: uri::encode_path(&v.path),
            origin: Origin::Mention,
        };
        if cap > 0 {
            match v.kind {
                EntryKind::File => {
                    if let Ok(text) = std::fs::read_to_string(&v.abs) {
                        let (quote, last, cut) = first_lines(&text, cap);
                        if !quote.is_empty() {
                            item.lines = Some([1, last]);
                            item.citation_uri = uri::lines_uri(&v.path, 1, last);
                            item.quote = Some(quote);
                            item.truncated = cut;
                        }
                    }
                }
                EntryKind::Paper => {
                    let index = index.get_or_insert_with(|| vault.open_index().ok());
                    let page = index
                        .as_ref()
                        .and_then(|i| i.page(&v.path, 1).ok().flatten())
                        .filter(|d| d.sha256 == v.sha256 && !d.text.trim().is_empty());
                    item.page = Some(1);
                    item.page_label = record.as_ref().and_then(|r| r.label(1).map(str::to_string));
                    item.citation_uri = uri::page_uri(&v.path, 1);
                    if let Some(d) = page {
                        let flat = d.text.split_whitespace().collect::<Vec<_>>().join(" ");
                        let (q, t) = cap_quote(&flat, cap);
                        item.quote = Some(q);
                        item.truncated = t;
                    }
                }
                EntryKind::Directory => {
                    let c = coverage_of(vault, v);
                    let listing: String = c
                        .entries
                        .iter()
                        .map(|(p, k)| format!("{} {p}\n", k.as_str()))
                        .collect();
                    // A folder is named, not cited: its path with a slash, never a source.
                    item.citation_uri = format!("{}/", uri::encode_path(&v.path));
                    if !listing.is_empty() {
                        let (q, t) = cap_quote(&listing, cap);
                        // Whole lines only: a path cut in the middle names nothing.
                        let q = if t {
                            q.rsplit_once('\n')
                                .map_or(q.clone(), |(a, _)| a.to_string())
                        } else {
                            q
                        };
                        item.quote = Some(q);
                        item.truncated = t || c.truncated;
                    }
                }
            }
        }
        left = left.saturating_sub(item.quote.as_ref().map_or(0, |q| q.chars().count()));
        out.push(item);
    }
    out
}

/// The first lines of `text` within `cap` characters: the quote, its last line number and
/// whether the text goes on.
pub(super) fn first_lines(text: &str, cap: usize) -> (String, u32, bool) {
    let mut quote = String::new();
    let mut last = 0u32;
    for (i, line) in text.lines().enumerate() {
        let add = line.chars().count() + usize::from(!quote.is_empty());
        if quote.chars().count() + add > cap {
            if quote.is_empty() {
                // One long first line: its start.
                quote = line.chars().take(cap).collect();
                last = 1;
            }
            return (quote, last, true);
        }
        if !quote.is_empty() {
            quote.push('\n');
        }
        quote.push_str(line);
        last = i as u32 + 1;
    }
    let trimmed = quote.trim_end().to_string();
    (trimmed, last.max(1), false)
}
