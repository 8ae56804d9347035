//! Documents for the paper pane: page count and metadata from the paper's record — the index's,
//! else the same record built from the PDF now (`vault::extract::record_of`) — and page texts.

use crate::tui::paper::DocInfo;
use crate::vault::{EntryKind, PaperRecord, SearchIndex, Vault, extract};

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
        return Ok((rec.pages, doc_info(vault, path, rec, None), None));
    }
    // Not indexed yet: the record the indexer would store, read from the file now.
    let (rec, pages) = extract::record_of(vault, path).map_err(|e| e.to_string())?;
    let pages: Vec<String> = pages.into_iter().map(|p| p.text).collect();
    let note = "not indexed yet: text read from the PDF directly";
    Ok((
        rec.pages,
        doc_info(vault, path, rec, Some(note.into())),
        Some((path.to_string(), pages)),
    ))
}

/// What the pane shows of a paper's record.
fn doc_info(vault: &Vault, path: &str, rec: PaperRecord, note: Option<String>) -> DocInfo {
    let ocr_low = low_confidence(vault, &rec);
    let m = rec.meta;
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
        note,
        annotations: vault.annotations(path),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens every paper of the vault at `dir` before and after indexing it: what the pane shows
    /// must be the same but for the note that it is not indexed yet. Returns how many papers
    /// have an outline.
    fn same_before_and_after_indexing(dir: &std::path::Path) -> usize {
        let vault = Vault::open(dir).unwrap();
        let papers: Vec<String> = vault
            .scan()
            .unwrap()
            .into_iter()
            .filter(|e| e.kind == EntryKind::Paper)
            .map(|e| e.path)
            .collect();
        assert!(papers.len() >= 3, "{papers:?}");
        let before: Vec<Result<Opened, String>> = papers
            .iter()
            .map(|p| open(&vault, None, p, EntryKind::Paper))
            .collect();
        crate::vault::indexer::index_vault(&vault, &Default::default(), &mut |_| {}).unwrap();
        let index = vault.open_index().unwrap();
        let mut outlined = 0;
        for (path, opened) in papers.iter().zip(before) {
            let after = open(&vault, Some(&index), path, EntryKind::Paper);
            let (Ok((n, mut info, pages)), Ok((n_after, info_after, from_file))) = (opened, after)
            else {
                // A paper that cannot be read cannot be indexed either.
                assert!(vault.record_for(path).is_none(), "{path}");
                continue;
            };
            assert!(from_file.is_none(), "{path}: read from the index");
            assert_eq!(
                info.note.take().as_deref(),
                Some("not indexed yet: text read from the PDF directly")
            );
            assert_eq!(info, info_after, "{path}");
            assert_eq!(n, n_after, "{path}");
            let (_, texts) = pages.unwrap();
            for (i, text) in texts.iter().enumerate() {
                let from_index = page_text(None, Some(&index), path, i as u32 + 1).unwrap();
                assert_eq!(text.trim(), from_index.trim(), "{path} p. {}", i + 1);
            }
            outlined += usize::from(!info.sections.is_empty());
        }
        outlined
    }

    /// A paper opened before it is indexed shows what the index will hold of it: the same
    /// title, metadata, page labels and outline (section numbers, levels, headings found in the
    /// text when the PDF has no outline), only with a note that it is not indexed yet.
    #[test]
    fn a_paper_shows_one_record_before_and_after_it_is_indexed() {
        let dir = tempfile::tempdir().unwrap();
        crate::vault::demo::write_demo_vault(dir.path()).unwrap();
        let outlined = same_before_and_after_indexing(dir.path());
        assert!(outlined >= 2, "the demo papers have outlines to compare");
    }

    /// The same on the real papers of `AGENTERO_CORPUS` (copied: the corpus is read-only).
    #[test]
    fn a_real_paper_shows_one_record_before_and_after_it_is_indexed() {
        let Some(corpus) = std::env::var_os("AGENTERO_CORPUS") else {
            assert!(
                std::env::var_os("CI").is_none(),
                "AGENTERO_CORPUS is not set (.ci/run sets it)"
            );
            eprintln!("skipped: AGENTERO_CORPUS is not set");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            &std::path::PathBuf::from(corpus).join("papers"),
            &dir.path().join("papers"),
        );
        let outlined = same_before_and_after_indexing(dir.path());
        assert!(
            outlined >= 1,
            "some real paper has an outline or numbered headings"
        );
    }

    fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                copy_tree(&p, &to.join(entry.file_name()));
            } else {
                std::fs::copy(&p, to.join(entry.file_name())).unwrap();
            }
        }
    }
}
