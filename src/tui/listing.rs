//! The vault's listing as the browser and the @ popup show it: papers (title, authors, year
//! from the index's records), notes and folders. Shared (one `Arc`) by the browser and the
//! chat's mention completion.

use std::sync::Arc;

use crate::vault::EntryKind;

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub path: String,
    pub kind: EntryKind,
    pub title: String,
    pub authors: String,
    pub year: Option<i32>,
    /// Folder depth, for indentation.
    pub depth: usize,
}

impl Entry {
    /// The text the filter and the @ popup match against.
    pub fn haystack(&self) -> String {
        format!("{} {} {}", self.title, self.authors, self.path)
    }
}

/// The listing, shared.
pub type Listing = Arc<Vec<Entry>>;

/// Builds the browser's list from a scan and the catalog/records: folders first within each
/// folder, papers shown by title.
pub fn entries_from(vault: &crate::vault::Vault) -> Result<Vec<Entry>, String> {
    let scanned = vault.scan().map_err(|e| e.to_string())?;
    let catalog = vault.catalog();
    let mut out: Vec<Entry> = scanned
        .into_iter()
        .map(|e| {
            let depth = e.path.matches('/').count();
            let (mut title, mut authors, mut year) = (String::new(), String::new(), None);
            if let Some(c) = catalog.entries.get(&e.path) {
                title = c.title.clone();
                if e.kind == EntryKind::Paper
                    && let Some(r) = vault.record(&c.sha256)
                {
                    if !r.meta.title.is_empty() {
                        title = r.meta.title.clone();
                    }
                    authors = short_authors(&r.meta.authors);
                    year = r.meta.year;
                }
            }
            if title.is_empty() {
                title = e.path.rsplit('/').next().unwrap_or(&e.path).to_string();
            }
            Entry {
                path: e.path,
                kind: e.kind,
                title,
                authors,
                year,
                depth,
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn short_authors(authors: &[String]) -> String {
    let last = |a: &String| a.rsplit(' ').next().unwrap_or(a).to_string();
    match authors.len() {
        0 => String::new(),
        1 => last(&authors[0]),
        2 => format!("{} & {}", last(&authors[0]), last(&authors[1])),
        _ => format!("{} et al.", last(&authors[0])),
    }
}
