//! Documents for the paper pane: page count and metadata from the index's record (else straight
//! from the PDF, in an isolated task), and page texts.

use std::time::{Duration, Instant};

use crate::tui::paper::DocInfo;
use crate::vault::pdf::{self, Limits};
use crate::vault::{EntryKind, SearchIndex, Vault};

/// Pages of a paper read for its reference list and links, at most.
pub(super) const MAX_LINK_PAGES: u32 = 2_000;

/// Page texts of a paper read straight from its file (not indexed yet): (path, pages).
pub(super) type Extracted = (String, Vec<String>);

/// A paper as opened: its page count, its metadata, and its page texts when they were read
/// from the file rather than the index.
pub(super) type Opened = (u32, DocInfo, Option<Extracted>);

/// Page count and metadata: from the index's record (when the vault has an index), else
/// straight from the file.
pub(super) fn open(
    vault: &Vault,
    index: Option<&SearchIndex>,
    path: &str,
    kind: EntryKind,
) -> Result<Opened, String> {
    if kind != EntryKind::Paper {
        let text = std::fs::read_to_string(vault.abs_path(path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let title = path.rsplit('/').next().unwrap_or(path).to_string();
        let info = DocInfo {
            title,
            ..DocInfo::default()
        };
        return Ok((1, info, Some((path.to_string(), vec![text]))));
    }
    if let Some(rec) = vault.record_for(path)
        && index.is_some()
    {
        let ocr_low = low_confidence(vault, &rec);
        let m = rec.meta;
        return Ok((
            rec.pages,
            DocInfo {
                title: m.title,
                authors: m.authors,
                year: m.year,
                doi: m.doi,
                arxiv: m.arxiv,
                abstract_text: m.abstract_text,
                publication: Box::new(m.publication),
                citation_key: vault.citation_key(path).or(m.citation_key),
                labels: rec.page_labels,
                sections: rec.sections,
                ocr_low,
                ocr: rec.pages_ocr,
                pages_without_text: rec.pages_without_text,
                pages_undecodable: rec.pages_undecodable,
                note: None,
                annotations: vault.annotations(path),
            },
            None,
        ));
    }
    // Not indexed yet: extract the PDF in this task (isolated from parser panics).
    let bytes =
        std::fs::read(vault.abs_path(path)).map_err(|e| format!("cannot read {path}: {e}"))?;
    let limit = Duration::from_secs(60);
    let doc = crate::vault::extract::isolated(limit, move || {
        pdf::extract(
            &bytes,
            Limits {
                deadline: Instant::now() + limit,
            },
        )
    })
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    let pages: Vec<String> = doc.pages.iter().map(|p| p.text.clone()).collect();
    let info = DocInfo {
        title: doc
            .title_hint
            .clone()
            .or(doc.info.title.clone())
            .unwrap_or_else(|| path.to_string()),
        labels: doc.pages.iter().map(|p| p.label.clone()).collect(),
        sections: doc
            .outline
            .iter()
            .filter_map(|o| {
                Some(crate::vault::Section {
                    number: None,
                    title: o.title.clone(),
                    level: o.level + 1,
                    page: o.page?,
                })
            })
            .collect(),
        pages_without_text: doc
            .pages
            .iter()
            .filter(|p| p.text.trim().is_empty())
            .map(|p| p.number)
            .collect(),
        pages_undecodable: doc.undecodable_pages.clone(),
        note: Some("not indexed yet: text read from the PDF directly".into()),
        annotations: vault.annotations(path),
        ..DocInfo::default()
    };
    let n = pages.len() as u32;
    Ok((n, info, Some((path.to_string(), pages))))
}

/// Each OCR page's words read with little confidence, as byte ranges of its text (the OCR
/// cache's words, as the page text was made of them).
fn low_confidence(
    vault: &Vault,
    rec: &crate::vault::PaperRecord,
) -> Vec<(u32, Vec<(usize, usize)>)> {
    let cache = crate::vault::ocr::OcrCache::new(vault);
    rec.pages_ocr
        .iter()
        .filter(|n| n.words > 0)
        .filter_map(|n| {
            let o = cache.get(&rec.sha256, n.page)?;
            let (_, spans) = o.text();
            let low = o
                .words
                .iter()
                .zip(spans)
                .filter(|(w, _)| w.conf < crate::vault::ocr::LOW_CONFIDENCE)
                .map(|(_, r)| (r.start, r.end))
                .collect();
            Some((n.page, low))
        })
        .collect()
}

/// Page `n` of the paper at `path`: from the pages read from its file when they are that
/// paper's, else from the index.
pub(super) fn page_text(
    extracted: Option<&Extracted>,
    index: Option<&SearchIndex>,
    path: &str,
    n: u32,
) -> Result<String, String> {
    if let Some((p, pages)) = extracted
        && p == path
    {
        return pages
            .get(n as usize - 1)
            .cloned()
            .ok_or_else(|| format!("no page {n}"));
    }
    let index = index.ok_or("the index is not available")?;
    match index.page(path, n) {
        Ok(Some(doc)) => Ok(doc.text),
        // Pages without text are not stored: an empty page says so on screen.
        Ok(None) => Ok(String::new()),
        Err(e) => Err(e.to_string()),
    }
}
