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
    /// Where the browser lists it: its folder, or — for a paper's own folder
    /// (`papers/x/`, shown as the paper's row) — the folder above; a file beside such a
    /// paper is listed under the paper.
    pub parent: String,
    /// Pages of a paper (0 when not indexed).
    pub pages: u32,
    /// What the browser flags: `scanned`, `encrypted`, `failed`, `undecodable N`, `notes`.
    pub badges: Vec<String>,
    /// The file's modification time (ns), for the sort by date added.
    pub added_ns: i128,
    /// Set when another paper has the same title: the paper's folder, to tell them apart.
    pub twin: Option<String>,
    /// A paper's own folder, folded into the paper's row: not a row of the browser (still a
    /// folder the @ popup offers).
    pub folded: bool,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            path: String::new(),
            kind: EntryKind::File,
            title: String::new(),
            authors: String::new(),
            year: None,
            depth: 0,
            parent: String::new(),
            pages: 0,
            badges: Vec::new(),
            added_ns: 0,
            twin: None,
            folded: false,
        }
    }
}

impl Entry {
    /// The text the browser's filter matches: title, authors and where the row is listed —
    /// a paper listed under a Zotero collection is matched by the collection's folder (so
    /// opening `collections/X/` narrows the list to the papers filed there, and `storage/` to
    /// the unfiled ones), any other entry by its path.
    pub fn haystack(&self) -> String {
        format!("{} {} {}", self.title, self.authors, self.place())
    }

    /// Where the browser lists the entry, as a path: its own path, or for a paper listed under
    /// a collection folder, that folder and the file's name.
    pub fn place(&self) -> std::borrow::Cow<'_, str> {
        let listed_apart = self.kind == EntryKind::Paper
            && !self.parent.is_empty()
            && !self.path.starts_with(&format!("{}/", self.parent));
        if listed_apart {
            let name = self.path.rsplit('/').next().unwrap_or(&self.path);
            format!("{}/{name}", self.parent).into()
        } else {
            self.path.as_str().into()
        }
    }
}

/// The listing, shared.
pub type Listing = Arc<Vec<Entry>>;

/// Builds the browser's list from a scan and the catalog/records: papers shown by title, a
/// paper's own folder (`papers/x/` holding one paper and no folder) folded into the paper's row.
pub fn entries_from(vault: &crate::vault::Vault) -> Result<Vec<Entry>, String> {
    use crate::vault::catalog::Status;
    let scanned = vault.scan().map_err(|e| e.to_string())?;
    let catalog = vault.catalog();
    let mut out: Vec<Entry> = scanned
        .into_iter()
        .map(|e| {
            let depth = e.path.matches('/').count();
            let (mut title, mut authors, mut year) = (String::new(), String::new(), None);
            let (mut pages, mut badges, mut added_ns) = (0, Vec::new(), 0);
            if let Some(c) = catalog.entries.get(&e.path) {
                title = c.title.clone();
                added_ns = c.mtime_ns;
                if e.kind == EntryKind::Paper {
                    pages = c.units;
                    match c.status {
                        Status::NoText => badges.push("scanned".to_string()),
                        Status::Failed
                            if c.error.as_deref().is_some_and(|e| e.contains("encrypted")) =>
                        {
                            badges.push("encrypted".to_string())
                        }
                        Status::Failed => badges.push("failed".to_string()),
                        Status::Indexed if c.undecodable > 0 => {
                            badges.push(format!("undecodable {}p", c.undecodable))
                        }
                        Status::Indexed => {}
                    }
                    if let Some(r) = vault.record(&c.sha256) {
                        if !r.meta.title.is_empty() {
                            title = r.meta.title.clone();
                        }
                        authors = short_authors(&r.meta.authors);
                        year = r.meta.year;
                    }
                }
            }
            if title.is_empty() {
                title = e.path.rsplit('/').next().unwrap_or(&e.path).to_string();
            }
            let parent = e.path.rsplit_once('/').map_or("", |(d, _)| d).to_string();
            Entry {
                path: e.path,
                kind: e.kind,
                title,
                authors,
                year,
                depth,
                parent,
                pages,
                badges,
                added_ns,
                twin: None,
                folded: false,
            }
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    fold_paper_folders(&mut out);
    if let Some(z) = vault.zotero() {
        collection_rows(&mut out, &z.library().collections);
    }
    Ok(out)
}

/// A Zotero library's papers listed under each collection folder they are filed in (the row
/// keeps the paper's `storage/` path: it opens and cites the same file). As Zotero's "Unfiled
/// Items", `storage/` then lists only the papers filed in no collection (marked `unfiled`), so
/// a paper is not listed twice; the @ popup offers each paper once, by its path.
fn collection_rows(
    entries: &mut Vec<Entry>,
    collections: &std::collections::BTreeMap<String, Vec<String>>,
) {
    let by_path: std::collections::HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EntryKind::Paper)
        .map(|(i, e)| (e.path.clone(), i))
        .collect();
    let mut rows = Vec::new();
    for (folder, papers) in collections {
        for p in papers {
            if let Some(&i) = by_path.get(p) {
                let mut row = entries[i].clone();
                row.parent = folder.clone();
                row.depth = folder.matches('/').count() + 1;
                row.folded = false;
                rows.push(row);
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let filed: std::collections::HashSet<&str> = rows.iter().map(|r| r.path.as_str()).collect();
    let mut unfiled = false;
    for e in entries.iter_mut() {
        if e.kind == EntryKind::Paper && e.path.starts_with("storage/") {
            if filed.contains(e.path.as_str()) {
                e.folded = true;
            } else {
                unfiled = true;
            }
        }
    }
    for e in entries.iter_mut() {
        if e.kind == EntryKind::Directory && e.path == "storage" {
            if unfiled {
                e.badges.push("unfiled".to_string());
            } else {
                e.folded = true;
            }
        }
    }
    entries.extend(rows);
}

/// Folds each folder below the top that holds exactly one paper and no folder into that paper's row: the
/// folder's row is hidden, the paper takes its place and depth, files beside it are listed under
/// it (and give it the `notes` badge). Papers with the same title name their folder.
fn fold_paper_folders(entries: &mut [Entry]) {
    use std::collections::HashMap;
    let mut papers: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut has_dirs: HashMap<&str, bool> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        match e.kind {
            EntryKind::Paper => papers.entry(e.parent.as_str()).or_default().push(i),
            EntryKind::Directory => {
                has_dirs.insert(e.parent.as_str(), true);
            }
            EntryKind::File => {}
        }
    }
    // folder → its one paper
    let folded: HashMap<String, usize> = papers
        .into_iter()
        // Only inside another folder (`papers/x/`): a top folder is the user's own group.
        .filter(|(dir, ps)| ps.len() == 1 && dir.contains('/') && !has_dirs.contains_key(dir))
        .map(|(dir, ps)| (dir.to_string(), ps[0]))
        .collect();
    for (dir, &p) in &folded {
        let up = dir.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let paper_path = entries[p].path.clone();
        let depth = dir.matches('/').count();
        let mut notes = false;
        for e in entries.iter_mut() {
            if e.parent == *dir && e.kind == EntryKind::File {
                e.parent = paper_path.clone();
                e.depth = depth + 1;
                notes = true;
            }
        }
        let paper = &mut entries[p];
        paper.parent = up;
        paper.depth = depth;
        if notes {
            paper.badges.push("notes".to_string());
        }
    }
    for e in entries.iter_mut() {
        if e.kind == EntryKind::Directory && folded.contains_key(&e.path) {
            e.folded = true;
        }
    }
    // Papers of one title: each named by as many of its last folders as tell them apart.
    let mut titles: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if e.kind == EntryKind::Paper {
            titles.entry(e.title.to_lowercase()).or_default().push(i);
        }
    }
    for twins in titles.values().filter(|t| t.len() > 1) {
        let folders: Vec<Vec<&str>> = twins
            .iter()
            .map(|&i| {
                let dir = entries[i].path.rsplit_once('/').map_or("", |(d, _)| d);
                dir.split('/').collect()
            })
            .collect();
        let deepest = folders.iter().map(Vec::len).max().unwrap_or(1);
        let suffix = |f: &Vec<&str>, k: usize| f[f.len().saturating_sub(k)..].join("/");
        let k = (1..=deepest)
            .find(|&k| {
                let names: std::collections::HashSet<String> =
                    folders.iter().map(|f| suffix(f, k)).collect();
                names.len() == folders.len()
            })
            .unwrap_or(1);
        let names: Vec<String> = folders.iter().map(|f| suffix(f, k)).collect();
        for (&i, name) in twins.iter().zip(names) {
            entries[i].twin = Some(name);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str, kind: EntryKind, title: &str) -> Entry {
        Entry {
            path: path.into(),
            kind,
            title: title.into(),
            depth: path.matches('/').count(),
            parent: path.rsplit_once('/').map_or("", |(d, _)| d).into(),
            ..Entry::default()
        }
    }

    #[test]
    fn a_papers_own_folder_is_folded_into_its_row() {
        let mut v = vec![
            e("papers", EntryKind::Directory, "papers"),
            e("papers/a", EntryKind::Directory, "a"),
            e("papers/a/notes.md", EntryKind::File, "notes.md"),
            e("papers/a/paper.pdf", EntryKind::Paper, "Same Title"),
            e("papers/b", EntryKind::Directory, "b"),
            e("papers/b/paper.pdf", EntryKind::Paper, "Same title"),
            e("papers/two", EntryKind::Directory, "two"),
            e("papers/two/x.pdf", EntryKind::Paper, "X"),
            e("papers/two/y.pdf", EntryKind::Paper, "Y"),
        ];
        fold_paper_folders(&mut v);
        let get = |p: &str| v.iter().find(|x| x.path == p).unwrap();
        assert!(get("papers/a").folded && get("papers/b").folded);
        // A folder of two papers is a real group; the vault's top folder too.
        assert!(!get("papers/two").folded && !get("papers").folded);
        let mut top = vec![
            e("inbox", EntryKind::Directory, "inbox"),
            e("inbox/p.pdf", EntryKind::Paper, "P"),
        ];
        fold_paper_folders(&mut top);
        assert!(!top[0].folded, "a top folder stays a group");
        let a = get("papers/a/paper.pdf");
        assert_eq!((a.parent.as_str(), a.depth), ("papers", 1));
        assert_eq!(a.badges, ["notes"]);
        assert_eq!(get("papers/a/notes.md").parent, "papers/a/paper.pdf");
        // Two papers with one title name their folders.
        assert_eq!(a.twin.as_deref(), Some("a"));
        assert_eq!(get("papers/b/paper.pdf").twin.as_deref(), Some("b"));
        assert_eq!(get("papers/two/x.pdf").twin, None);
        // Twins whose own folders share a name: named by the folders that differ.
        let mut deep = vec![
            e("a/x/paper.pdf", EntryKind::Paper, "T"),
            e("b/x/paper.pdf", EntryKind::Paper, "T"),
            e("c/paper.pdf", EntryKind::Paper, "t"),
        ];
        fold_paper_folders(&mut deep);
        let twins: Vec<_> = deep.iter().map(|x| x.twin.clone().unwrap()).collect();
        assert_eq!(twins, ["a/x", "b/x", "c"]);
    }

    #[test]
    fn a_zotero_paper_is_listed_once_under_its_collections_and_unfiled_ones_under_storage() {
        use crate::tui::browser::{Browser, BrowserMsg};
        let mut v = vec![
            e("collections", EntryKind::Directory, "collections"),
            e("collections/JIT", EntryKind::Directory, "JIT"),
            e("collections/JIT/Tracing", EntryKind::Directory, "Tracing"),
            e("storage", EntryKind::Directory, "storage"),
            e("storage/AAAA2222", EntryKind::Directory, "AAAA2222"),
            e("storage/AAAA2222/a.pdf", EntryKind::Paper, "Filed twice"),
            e("storage/BBBB3333", EntryKind::Directory, "BBBB3333"),
            e("storage/BBBB3333/b.pdf", EntryKind::Paper, "Filed once"),
            e("storage/CCCC4444", EntryKind::Directory, "CCCC4444"),
            e("storage/CCCC4444/c.pdf", EntryKind::Paper, "Unfiled"),
        ];
        fold_paper_folders(&mut v);
        let collections = std::collections::BTreeMap::from([
            (
                "collections/JIT".to_string(),
                vec!["storage/AAAA2222/a.pdf".to_string()],
            ),
            (
                "collections/JIT/Tracing".to_string(),
                vec![
                    "storage/AAAA2222/a.pdf".to_string(),
                    "storage/BBBB3333/b.pdf".to_string(),
                ],
            ),
        ]);
        collection_rows(&mut v, &collections);
        let mut b = Browser::default();
        b.update(BrowserMsg::Listed(std::sync::Arc::new(v.clone())));
        let rows: Vec<(String, String)> = b
            .visible()
            .map(|x| (x.place().into_owned(), x.badges.join(",")))
            .collect();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(p, b)| (p.as_str(), b.as_str())).collect();
        assert_eq!(
            rows,
            [
                ("collections", ""),
                ("collections/JIT", ""),
                ("collections/JIT/Tracing", ""),
                ("collections/JIT/Tracing/a.pdf", ""),
                ("collections/JIT/Tracing/b.pdf", ""),
                ("collections/JIT/a.pdf", ""),
                ("storage", "unfiled"),
                ("storage/CCCC4444/c.pdf", ""),
            ]
        );
        // Opening a folder narrows the list to what it lists.
        b.update(BrowserMsg::Filter("collections/JIT/Tracing/".into()));
        assert_eq!(b.visible().count(), 2);
        b.update(BrowserMsg::Filter("storage/".into()));
        let shown: Vec<&str> = b.visible().map(|x| x.title.as_str()).collect();
        assert_eq!(shown, ["Unfiled"]);
        // The @ popup offers each paper once, by its path.
        let offered = crate::tui::chat::mention::complete(&v, "filed", 10);
        let paths: Vec<&str> = offered.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths.len(), 3, "{paths:?}");
        // Everything filed: no `storage/` row at all.
        let mut all = vec![
            e("collections", EntryKind::Directory, "collections"),
            e("collections/JIT", EntryKind::Directory, "JIT"),
            e("storage", EntryKind::Directory, "storage"),
            e("storage/AAAA2222", EntryKind::Directory, "AAAA2222"),
            e("storage/AAAA2222/a.pdf", EntryKind::Paper, "Filed"),
        ];
        fold_paper_folders(&mut all);
        let one = std::collections::BTreeMap::from([(
            "collections/JIT".to_string(),
            vec!["storage/AAAA2222/a.pdf".to_string()],
        )]);
        collection_rows(&mut all, &one);
        let mut b = Browser::default();
        b.update(BrowserMsg::Listed(std::sync::Arc::new(all)));
        let shown: Vec<String> = b.visible().map(|x| x.place().into_owned()).collect();
        assert_eq!(
            shown,
            ["collections", "collections/JIT", "collections/JIT/a.pdf"]
        );
    }
}
