//! Writing what a worker found into the index and the catalog, and removing the paper
//! records nothing refers to any more.

use std::collections::HashSet;

use super::options::IndexSummary;
use super::work::{Outcome, meta_stamp};
use crate::vault::catalog::{Catalog, CatalogEntry, Status};
use crate::vault::index::{Identity, IndexDoc, SearchIndex};
use crate::vault::meta::{MetaSource, file_title};
use crate::vault::scan::{Entry, EntryKind};
use crate::vault::{VaultError, statefs, textfile};

/// `fresh`: the index held no document when this run began, so no path has documents to delete
/// (each path is written once a run), and none is asked for.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply(
    index: &SearchIndex,
    writer: &tantivy::IndexWriter,
    fresh: bool,
    records_dir: &std::path::Path,
    catalog: &mut Catalog,
    summary: &mut IndexSummary,
    entry: Entry,
    outcome: Outcome,
) -> Result<(), VaultError> {
    let path = entry.path.clone();
    let delete_old = || {
        if !fresh {
            index.delete_path(writer, &path);
        }
    };
    let base = |sha256: String, status, error, units, title| CatalogEntry {
        kind: entry.kind,
        size: entry.size,
        mtime_ns: entry.mtime_ns,
        sha256,
        status,
        error,
        units,
        undecodable: 0,
        ocr: 0,
        title,
        meta: None,
    };
    match outcome {
        Outcome::SameContent => {
            summary.unchanged += 1;
            if let Some(known) = catalog.entries.get_mut(&path) {
                known.mtime_ns = entry.mtime_ns;
                known.size = entry.size;
            }
            return Ok(());
        }
        Outcome::Failed { sha256, reason } => {
            delete_old();
            catalog.entries.insert(
                path.clone(),
                base(sha256, Status::Failed, Some(reason), 0, file_title(&path)),
            );
        }
        Outcome::Paper { record, pages } => {
            delete_old();
            let authors = record.meta.authors.join(", ");
            let key = crate::vault::citekeys::key_of(&record.meta);
            for page in &pages {
                index.add(
                    writer,
                    &IndexDoc {
                        path: &path,
                        kind: EntryKind::Paper,
                        title: &record.meta.title,
                        authors: &authors,
                        carries_title: page.number == 1,
                        identity: Identity {
                            year: record.meta.year,
                            doi: record.meta.doi.as_deref(),
                            arxiv: record.meta.arxiv.as_deref(),
                            abstract_text: record.meta.abstract_text.as_deref(),
                            citation_key: Some(&key),
                        },
                        page: Some(page.number),
                        page_label: page.label.as_deref(),
                        lines: None,
                        text: &page.text,
                        sha256: &record.sha256,
                    },
                )?;
            }
            for w in &record.warnings {
                summary.warnings.push((path.clone(), w.clone()));
            }
            let status = if record.pages_without_text.len() == pages.len() {
                Status::NoText
            } else {
                Status::Indexed
            };
            let bytes = serde_json::to_vec(&*record).map_err(|e| VaultError::StateNotWritable {
                path: records_dir.to_path_buf(),
                source: std::io::Error::other(e),
            })?;
            // Made durable all at once, before the catalog that refers to it is saved.
            statefs::atomic_write_unsynced(
                &records_dir.join(format!("{}.json", record.sha256)),
                &bytes,
            )
            .map_err(|e| VaultError::StateNotWritable {
                path: records_dir.to_path_buf(),
                source: e.into(),
            })?;
            let mut entry = base(
                record.sha256.clone(),
                status,
                None,
                pages.len() as u32,
                record.meta.title.clone(),
            );
            entry.undecodable = record.pages_undecodable.len() as u32;
            entry.ocr = (record.pages_ocr.len() + record.pages_for_ocr.len()) as u32;
            entry.meta =
                (record.meta.title_source == MetaSource::Zotero).then(|| meta_stamp(&record.meta));
            catalog.entries.insert(path.clone(), entry);
        }
        Outcome::File {
            sha256,
            title,
            text,
        } => {
            delete_old();
            let chunks = textfile::chunks(&text);
            for (i, c) in chunks.iter().enumerate() {
                index.add(
                    writer,
                    &IndexDoc {
                        path: &path,
                        kind: EntryKind::File,
                        title: &title,
                        authors: "",
                        carries_title: i == 0,
                        identity: Identity::default(),
                        page: None,
                        page_label: None,
                        lines: Some((c.start, c.end)),
                        text: &c.text,
                        sha256: &sha256,
                    },
                )?;
            }
            catalog.entries.insert(
                path.clone(),
                base(sha256, Status::Indexed, None, chunks.len() as u32, title),
            );
        }
    }
    summary.updated += 1;
    Ok(())
}

/// Removes paper records no catalog entry refers to any more.
pub(super) fn collect_garbage(records_dir: &std::path::Path, catalog: &Catalog) {
    let live: HashSet<&str> = catalog
        .entries
        .values()
        .map(|e| e.sha256.as_str())
        .collect();
    let Ok(names) = statefs::check_dir(records_dir).and_then(|d| d.list()) else {
        return;
    };
    for name in names {
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if !live.contains(stem) {
            let _ = statefs::remove_file(&records_dir.join(&name));
        }
    }
}
