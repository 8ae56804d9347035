//! Bringing the vectors up to date with the index, after an index run: a document whose path
//! and sha256 the vectors already hold (written by the same model) keeps its rows; the others
//! are embedded from the index's own pages and chunks. Another model embeds everything again.

use std::collections::HashMap;
use std::path::Path;

use super::store::{ModelId, StoreError, StoreWriter, VectorStore};
use super::{ModelChoice, load};
use crate::vault::catalog::{Catalog, Status};
use crate::vault::index::SearchIndex;
use crate::vault::scan::EntryKind;

/// What an index run did to the vectors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmbedSummary {
    /// The model (`ORG/NAME` or its folder's name).
    pub model: String,
    /// Pages and chunks embedded by this run, and those whose vectors were kept.
    pub embedded: usize,
    pub reused: usize,
    /// Why the previous vectors were not used, when they were not (another model, a refused file).
    pub replaced: Option<String>,
    /// Why there are no vectors after this run (the model cannot be loaded, the file not written).
    pub error: Option<String>,
}

/// Updates the vectors at `path` for the documents of `catalog` (already in `index`, which is
/// reloaded first). `None` when no model is chosen.
pub fn sync(
    choice: &ModelChoice,
    path: &Path,
    index: &SearchIndex,
    catalog: &Catalog,
) -> Option<EmbedSummary> {
    if *choice == ModelChoice::Off {
        return None;
    }
    let mut summary = EmbedSummary::default();
    let model = match load(choice) {
        Ok(m) => m,
        Err(why) => {
            summary.error = Some(why);
            return Some(summary);
        }
    };
    summary.model = model.name.clone();
    let id = ModelId {
        name: model.name.clone(),
        identity: model.identity.clone(),
    };
    let old = match VectorStore::open(path) {
        Ok(s) if s.model.identity == id.identity && s.dims == model.dims => Some(s),
        Ok(s) => {
            summary.replaced = Some(format!("they were written by {}", s.model.name));
            None
        }
        Err(StoreError::Missing) => None,
        Err(e) => {
            summary.replaced = Some(e.to_string());
            None
        }
    };
    let known: HashMap<(&str, &str), usize> = old
        .as_ref()
        .map(|s| {
            s.docs
                .iter()
                .enumerate()
                .map(|(i, d)| ((d.path.as_str(), d.sha256.as_str()), i))
                .collect()
        })
        .unwrap_or_default();
    if let Err(e) = index.reload() {
        summary.error = Some(e.to_string());
        return Some(summary);
    }
    let mut w = StoreWriter::new(id, model.dims);
    let mut docs = 0usize;
    for (p, e) in &catalog.entries {
        if e.kind == EntryKind::Directory || e.status == Status::Failed {
            continue;
        }
        docs += 1;
        w.doc(p, &e.sha256);
        if let (Some(s), Some(&i)) = (&old, known.get(&(p.as_str(), e.sha256.as_str()))) {
            for (unit, scale, comps) in s.doc_rows(i) {
                w.push_quantized(unit, scale, comps);
                summary.reused += 1;
            }
            continue;
        }
        let stored = match index.docs_of(p) {
            Ok(d) => d,
            Err(err) => {
                summary.error = Some(err.to_string());
                return Some(summary);
            }
        };
        let texts: Vec<String> = stored
            .iter()
            .map(|d| format!("{}\n{}", d.title, d.text))
            .collect();
        let Some(vectors) = model.embed(&texts) else {
            tracing::warn!(path = %p, "the embedding model failed on this document; it has no vectors");
            continue;
        };
        for (d, v) in stored.iter().zip(vectors.chunks(model.dims)) {
            let unit = d.page.or(d.lines.map(|l| l.0)).unwrap_or(0);
            w.push(unit, v);
            summary.embedded += 1;
        }
    }
    let unchanged = summary.embedded == 0
        && summary.replaced.is_none()
        && old.as_ref().is_some_and(|s| s.docs.len() == docs);
    if unchanged {
        return Some(summary);
    }
    drop(old);
    if let Err(e) = w.save(path) {
        summary.error = Some(format!("the vectors cannot be written: {e}"));
    }
    Some(summary)
}
