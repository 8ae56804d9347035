//! The vault browser: the listing with an incremental filter and a selection. Opening an
//! entry asks the app to show it in the paper pane.

pub mod view;

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
                return vec![Out::Status("filter cleared".into())];
            }
            Action::TogglePaths => self.show_paths = !self.show_paths,
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
            return vec![Out::Status(format!(
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
        assert!(matches!(&out[..], [Out::Status(s)] if s.starts_with("showing notes/")));
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
}
