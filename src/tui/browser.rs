//! The vault browser's state: papers (title, authors, year from the index's records), notes
//! and folders, with an incremental filter.

use crate::vault::EntryKind;

#[derive(Debug, Clone, PartialEq)]
pub struct BrowserEntry {
    pub path: String,
    pub kind: EntryKind,
    pub title: String,
    pub authors: String,
    pub year: Option<i32>,
    /// Folder depth, for indentation.
    pub depth: usize,
}

impl BrowserEntry {
    /// The text the filter and the @ popup match against.
    pub fn haystack(&self) -> String {
        format!("{} {} {}", self.title, self.authors, self.path)
    }
}

#[derive(Debug, Default)]
pub struct Browser {
    pub entries: Vec<BrowserEntry>,
    /// Indices into `entries` that pass the filter.
    pub visible: Vec<usize>,
    pub selected: usize,
    pub filter: String,
    pub show_paths: bool,
    pub scanned: bool,
}

impl Browser {
    pub fn set_entries(&mut self, entries: Vec<BrowserEntry>) {
        let keep = self.current().map(|e| e.path.clone());
        self.entries = entries;
        self.scanned = true;
        self.refilter();
        if let Some(p) = keep
            && let Some(i) = self.visible.iter().position(|&i| self.entries[i].path == p)
        {
            self.selected = i;
        }
    }

    pub fn refilter(&mut self) {
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.visible = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                let hay = e.haystack().to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .map(|(i, _)| i)
            .collect();
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
    }

    pub fn current(&self) -> Option<&BrowserEntry> {
        self.visible.get(self.selected).map(|&i| &self.entries[i])
    }

    pub fn move_by(&mut self, delta: isize) {
        if self.visible.is_empty() {
            return;
        }
        let max = self.visible.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, max) as usize;
    }

    pub fn title_of(&self, path: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| e.path == path)
            .map(|e| e.title.as_str())
    }
}

/// Builds the browser's list from a scan and the catalog/records: folders first within each
/// folder, papers shown by title.
pub fn entries_from(vault: &crate::vault::Vault) -> Result<Vec<BrowserEntry>, String> {
    let scanned = vault.scan().map_err(|e| e.to_string())?;
    let catalog = vault.catalog();
    let mut out: Vec<BrowserEntry> = scanned
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
            BrowserEntry {
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
