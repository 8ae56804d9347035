//! The vault browser: the listing with an incremental filter and a selection. Opening an
//! entry asks the app to show it in the paper pane.

pub mod view;

use std::collections::HashMap;
use std::sync::Arc;

use crate::vault::EntryKind;

use super::action::Action;
use super::effect::{Effect, Out, PromptKind};
use super::listing::{Entry, Listing};

/// What the browser is told.
#[derive(Debug)]
pub enum BrowserMsg {
    /// A fresh scan of the vault.
    Listed(Listing),
    /// A key's action; `rows` is the list's height (half pages).
    Action {
        action: Action,
        count: Option<u32>,
        rows: usize,
    },
    /// The filter text as it is typed in the prompt.
    Filter(String),
    /// The mouse wheel: entries to move by.
    Scroll(isize),
    /// A click on the visible entry `i`; `focused`: the browser had the focus already.
    Click { index: usize, focused: bool },
    /// When each document was last opened (ms since the epoch), for the sort by recent.
    Opened(HashMap<String, u64>),
}

/// How the browser orders papers within each folder (folders first, then papers, then files;
/// folders and files by name).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// By path: the vault's own folder order.
    #[default]
    Folder,
    Title,
    /// Newest first.
    Year,
    /// Most recently opened first.
    Recent,
    /// Most recently added (file time) first.
    Added,
}

impl Sort {
    fn next(self) -> Sort {
        match self {
            Sort::Folder => Sort::Title,
            Sort::Title => Sort::Year,
            Sort::Year => Sort::Recent,
            Sort::Recent => Sort::Added,
            Sort::Added => Sort::Folder,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Sort::Folder => "folder",
            Sort::Title => "title",
            Sort::Year => "year",
            Sort::Recent => "recently opened",
            Sort::Added => "date added",
        }
    }
}

#[derive(Debug, Default)]
pub struct Browser {
    entries: Listing,
    /// Indices into `entries` that pass the filter.
    visible: Vec<usize>,
    selected: usize,
    filter: String,
    show_paths: bool,
    scanned: bool,
    sort: Sort,
    /// Indices into `entries` in the order shown (folded folders left out).
    order: Vec<usize>,
    opened: HashMap<String, u64>,
}

impl Browser {
    pub fn update(&mut self, msg: BrowserMsg) -> Vec<Out> {
        match msg {
            BrowserMsg::Listed(entries) => self.set_entries(entries),
            BrowserMsg::Action {
                action,
                count,
                rows,
            } => return self.on_action(action, count, rows),
            BrowserMsg::Filter(text) => {
                self.filter = text;
                self.refilter();
            }
            BrowserMsg::Scroll(delta) => self.move_by(delta),
            BrowserMsg::Click { index, focused } => {
                if focused && self.selected == index {
                    return self.open();
                }
                self.selected = index;
            }
            BrowserMsg::Opened(opened) => {
                self.opened = opened;
                if self.sort == Sort::Recent {
                    self.resort();
                }
            }
        }
        Vec::new()
    }

    fn on_action(&mut self, action: Action, count: Option<u32>, rows: usize) -> Vec<Out> {
        let n = count.unwrap_or(1).max(1) as isize;
        let h = rows as isize;
        match action {
            Action::MoveDown => self.move_by(n),
            Action::MoveUp => self.move_by(-n),
            Action::HalfPageDown => self.move_by(h / 2),
            Action::HalfPageUp => self.move_by(-h / 2),
            Action::GotoTop => self.selected = 0,
            Action::GotoPage => {
                let last = self.visible.len().saturating_sub(1);
                self.selected = count.map_or(last, |c| (c as usize).saturating_sub(1).min(last));
            }
            // A new filter replaces the old one: the prompt starts empty, the list whole.
            Action::Filter => {
                self.filter.clear();
                self.refilter();
                return vec![Out::Prompt {
                    kind: PromptKind::Filter,
                    text: String::new(),
                }];
            }
            // esc with a filter on: the whole list again.
            Action::Cancel if !self.filter.is_empty() => {
                self.filter.clear();
                self.refilter();
                return vec![Out::info("filter cleared")];
            }
            Action::TogglePaths => self.show_paths = !self.show_paths,
            Action::CycleSort => {
                self.sort = self.sort.next();
                self.resort();
                return vec![Out::info(format!("papers sorted by {}", self.sort.name()))];
            }
            Action::Rescan => return vec![Out::Run(Effect::Scan), Out::Run(Effect::Index)],
            Action::Open => return self.open(),
            _ => {}
        }
        Vec::new()
    }

    /// A folder narrows the list to itself; a paper or file opens in the paper pane.
    fn open(&mut self) -> Vec<Out> {
        let Some(e) = self.current().cloned() else {
            return Vec::new();
        };
        if e.kind == EntryKind::Directory {
            self.filter = format!("{}/", e.path);
            self.refilter();
            return vec![Out::info(format!(
                "showing {}/ (esc then f to change the filter)",
                e.path
            ))];
        }
        vec![Out::OpenEntry { path: e.path }]
    }

    fn set_entries(&mut self, entries: Listing) {
        let keep = self.current().map(|e| e.path.clone());
        self.entries = entries;
        self.scanned = true;
        self.order = order(&self.entries, self.sort, &self.opened);
        self.refilter();
        if let Some(p) = keep
            && let Some(i) = self.visible.iter().position(|&i| self.entries[i].path == p)
        {
            self.selected = i;
        }
    }

    fn refilter(&mut self) {
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.visible = self
            .order
            .iter()
            .copied()
            .filter(|&i| {
                let hay = self.entries[i].haystack().to_lowercase();
                words.iter().all(|w| hay.contains(w.as_str()))
            })
            .collect();
        self.selected = self.selected.min(self.visible.len().saturating_sub(1));
    }

    /// Orders the list again (a new sort), keeping the selected entry selected.
    fn resort(&mut self) {
        let keep = self.current().map(|e| e.path.clone());
        self.order = order(&self.entries, self.sort, &self.opened);
        self.refilter();
        if let Some(p) = keep
            && let Some(i) = self.visible.iter().position(|&i| self.entries[i].path == p)
        {
            self.selected = i;
        }
    }

    pub fn sort(&self) -> Sort {
        self.sort
    }

    fn move_by(&mut self, delta: isize) {
        if self.visible.is_empty() {
            return;
        }
        let max = self.visible.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, max) as usize;
    }

    /// The whole listing (the @ popup completes over it).
    pub fn listing(&self) -> Listing {
        Arc::clone(&self.entries)
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries that pass the filter, in order.
    pub fn visible(&self) -> impl Iterator<Item = &Entry> {
        self.visible.iter().map(|&i| &self.entries[i])
    }

    pub fn visible_len(&self) -> usize {
        self.visible.len()
    }

    /// The selected entry's place among the visible ones.
    pub fn selected(&self) -> usize {
        self.selected
    }

    pub fn current(&self) -> Option<&Entry> {
        self.visible.get(self.selected).map(|&i| &self.entries[i])
    }

    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// The kind of the entry at `path`, when it is listed.
    pub fn kind_of(&self, path: &str) -> Option<EntryKind> {
        self.entries.iter().find(|e| e.path == path).map(|e| e.kind)
    }

    /// The first visible entry of a list `h` rows high: the selection stays in view.
    pub fn first_shown(&self, h: usize) -> usize {
        self.selected
            .saturating_sub(h.saturating_sub(1).min(h / 2))
            .min(self.visible.len().saturating_sub(h))
    }
}

/// The rows of the browser: a walk of the folder tree from the vault's root, each folder's
/// children folders first (by name), then papers (by `sort`), then files (by name); a file
/// listed under a paper follows that paper. Folded folders are not rows.
fn order(entries: &[Entry], sort: Sort, opened: &HashMap<String, u64>) -> Vec<usize> {
    use std::cmp::Ordering;
    let mut kids: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        kids.entry(e.parent.as_str()).or_default().push(i);
    }
    let rank = |e: &Entry| match e.kind {
        EntryKind::Directory => 0,
        EntryKind::Paper => 1,
        EntryKind::File => 2,
    };
    let by = |a: &Entry, b: &Entry| -> Ordering {
        let key = match (a.kind, sort) {
            (EntryKind::Paper, Sort::Title) => a.title.to_lowercase().cmp(&b.title.to_lowercase()),
            (EntryKind::Paper, Sort::Year) => b.year.cmp(&a.year),
            (EntryKind::Paper, Sort::Recent) => opened
                .get(&b.path)
                .copied()
                .unwrap_or(0)
                .cmp(&opened.get(&a.path).copied().unwrap_or(0)),
            (EntryKind::Paper, Sort::Added) => b.added_ns.cmp(&a.added_ns),
            _ => Ordering::Equal,
        };
        rank(a)
            .cmp(&rank(b))
            .then(key)
            .then_with(|| a.path.cmp(&b.path))
    };
    for list in kids.values_mut() {
        list.sort_by(|&a, &b| by(&entries[a], &entries[b]));
    }
    let mut out = Vec::with_capacity(entries.len());
    let mut seen = vec![false; entries.len()];
    // Folded folders are walked through (their children have moved up), never listed.
    let mut stack: Vec<usize> = kids
        .get("")
        .map_or_else(Vec::new, |k| k.iter().rev().copied().collect());
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        if !entries[i].folded {
            out.push(i);
        }
        if let Some(k) = kids.get(entries[i].path.as_str()) {
            stack.extend(k.iter().rev().copied());
        }
    }
    // Anything the walk did not reach (a parent not listed) still shows, in path order.
    out.extend((0..entries.len()).filter(|&i| !seen[i] && !entries[i].folded));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, kind: EntryKind) -> Entry {
        Entry {
            path: path.into(),
            kind,
            title: path.rsplit('/').next().unwrap_or(path).into(),
            authors: String::new(),
            year: None,
            depth: path.matches('/').count(),
            parent: path.rsplit_once('/').map_or("", |(d, _)| d).into(),
            ..Entry::default()
        }
    }

    fn browser() -> Browser {
        let mut b = Browser::default();
        b.update(BrowserMsg::Listed(Arc::new(vec![
            entry("notes", EntryKind::Directory),
            entry("notes/ideas.md", EntryKind::File),
            entry("papers/a/paper.pdf", EntryKind::Paper),
        ])));
        b
    }

    fn act(b: &mut Browser, action: Action) -> Vec<Out> {
        b.update(BrowserMsg::Action {
            action,
            count: None,
            rows: 10,
        })
    }

    #[test]
    fn a_folder_narrows_the_list_and_a_paper_opens() {
        let mut b = browser();
        let out = act(&mut b, Action::Open);
        assert!(matches!(&out[..], [Out::Status(s)] if s.text.starts_with("showing notes/")));
        assert_eq!(b.filter(), "notes/");
        let shown: Vec<&str> = b.visible().map(|e| e.path.as_str()).collect();
        assert_eq!(shown, vec!["notes/ideas.md"]);
        b.update(BrowserMsg::Filter(String::new()));
        act(&mut b, Action::GotoPage);
        assert_eq!(
            act(&mut b, Action::Open),
            vec![Out::OpenEntry {
                path: "papers/a/paper.pdf".into()
            }]
        );
        // The filter prompt starts from the filter in force; a rescan asks for scan and index.
        assert!(matches!(
            &act(&mut b, Action::Filter)[..],
            [Out::Prompt {
                kind: PromptKind::Filter,
                ..
            }]
        ));
        assert_eq!(
            act(&mut b, Action::Rescan),
            vec![Out::Run(Effect::Scan), Out::Run(Effect::Index)]
        );
    }

    #[test]
    fn a_new_listing_keeps_the_selected_entry() {
        let mut b = browser();
        act(&mut b, Action::GotoPage);
        assert_eq!(b.current().unwrap().path, "papers/a/paper.pdf");
        b.update(BrowserMsg::Listed(Arc::new(vec![
            entry("a.md", EntryKind::File),
            entry("notes", EntryKind::Directory),
            entry("papers/a/paper.pdf", EntryKind::Paper),
            entry("z.md", EntryKind::File),
        ])));
        assert_eq!(b.current().unwrap().path, "papers/a/paper.pdf");
        assert_eq!(b.kind_of("z.md"), Some(EntryKind::File));
    }

    #[test]
    fn one_row_per_paper_sorted_within_its_folder() {
        let paper = |path: &str, title: &str, year: i32, added: i128| Entry {
            path: path.into(),
            kind: EntryKind::Paper,
            title: title.into(),
            year: Some(year),
            added_ns: added,
            parent: path.rsplit_once('/').unwrap().0.into(),
            depth: path.matches('/').count(),
            ..Entry::default()
        };
        // As listing::entries_from leaves it: papers/b/ folded into its paper, its note under it.
        let mut folded = entry("papers/b", EntryKind::Directory);
        folded.folded = true;
        let mut b_paper = paper("papers/b/paper.pdf", "Beta", 2019, 3);
        b_paper.parent = "papers".into();
        let mut b_note = entry("papers/b/notes.md", EntryKind::File);
        b_note.parent = "papers/b/paper.pdf".into();
        let mut br = Browser::default();
        br.update(BrowserMsg::Listed(Arc::new(vec![
            entry("papers", EntryKind::Directory),
            folded,
            b_note,
            b_paper,
            paper("papers/c.pdf", "Alpha", 2021, 1),
            entry("papers/sub", EntryKind::Directory),
            paper("papers/sub/z.pdf", "Zeta", 2000, 2),
            entry("readme.md", EntryKind::File),
        ])));
        let rows = |br: &Browser| br.visible().map(|e| e.path.clone()).collect::<Vec<_>>();
        // Folders first, then papers, then files; a paper's note right under it.
        assert_eq!(
            rows(&br),
            [
                "papers",
                "papers/sub",
                "papers/sub/z.pdf",
                "papers/b/paper.pdf",
                "papers/b/notes.md",
                "papers/c.pdf",
                "readme.md"
            ]
        );
        act(&mut br, Action::GotoPage);
        let out = act(&mut br, Action::CycleSort);
        assert!(matches!(&out[..], [Out::Status(s)] if s.text == "papers sorted by title"));
        assert_eq!(
            br.current().unwrap().path,
            "readme.md",
            "the selection stays"
        );
        assert_eq!(
            rows(&br)[3..6],
            ["papers/c.pdf", "papers/b/paper.pdf", "papers/b/notes.md"]
        );
        act(&mut br, Action::CycleSort); // year, newest first
        assert_eq!(rows(&br)[3], "papers/c.pdf");
        act(&mut br, Action::CycleSort); // recently opened
        br.update(BrowserMsg::Opened(HashMap::from([(
            "papers/b/paper.pdf".to_string(),
            99,
        )])));
        assert_eq!(rows(&br)[3], "papers/b/paper.pdf");
        act(&mut br, Action::CycleSort); // date added, newest first
        assert_eq!(br.sort(), Sort::Added);
        assert_eq!(rows(&br)[3], "papers/b/paper.pdf");
        act(&mut br, Action::CycleSort);
        assert_eq!(br.sort(), Sort::Folder);
    }
}
