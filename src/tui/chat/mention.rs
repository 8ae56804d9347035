//! The @ popup's completions: vault paths and paper titles, fuzzy-matched with nucleo.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

use ratatui::crossterm::event::KeyEvent;

use super::{Chat, Compose, MentionPopup};
use crate::context::mention::syntax;
use crate::tui::chips::Chip;
use crate::tui::effect::Out;
use crate::tui::key::Key;
use crate::tui::listing::Entry;
use crate::vault::EntryKind;

/// The best `limit` entries for `query` as (path, display). An empty query lists papers first.
pub fn complete(entries: &[Entry], query: &str, limit: usize) -> Vec<(String, String)> {
    let display = |e: &Entry| match e.kind {
        // The browser's badges too ("[scanned]"), so two papers of one title are told apart
        // before their paths are cut.
        EntryKind::Paper => {
            let badges: String = e.badges.iter().map(|b| format!(" [{b}]")).collect();
            format!("{}{badges} — {}", e.title, e.path)
        }
        EntryKind::Directory => format!("{}/", e.path),
        EntryKind::File => e.path.clone(),
    };
    // A paper a Zotero library lists under several collections is offered once: its path.
    let mut seen = std::collections::HashSet::new();
    let entries: Vec<&Entry> = entries
        .iter()
        .filter(|e| seen.insert(e.path.as_str()))
        .collect();
    if query.is_empty() {
        let mut all: Vec<&Entry> = entries.clone();
        all.sort_by_key(|e| (e.kind != EntryKind::Paper, e.path.clone()));
        return all
            .into_iter()
            .take(limit)
            .map(|e| (e.path.clone(), display(e)))
            .collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let hay: Vec<(usize, String)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (i, format!("{} {}", e.path, e.title)))
        .collect();
    let mut scored: Vec<(usize, u32)> = hay
        .iter()
        .filter_map(|(i, h)| {
            let mut buf = Vec::new();
            let s = pattern.score(nucleo_matcher::Utf32Str::new(h, &mut buf), &mut matcher)?;
            Some((*i, s))
        })
        .collect();
    // Best score first; ties keep vault order so the list is stable while typing.
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
        .into_iter()
        .take(limit)
        .map(|(i, _)| (entries[i].path.clone(), display(entries[i])))
        .collect()
}

/// The message input's side of mentions: `@` opens the popup, the text after it drives the
/// completions, accepting one turns it into a chip.
impl Chat {
    /// A mention chip removed: its "@path" leaves the message too (what the message names is
    /// what the chips grant).
    pub(super) fn unmention(&mut self, path: &str) {
        let text = self.input.lines().join("\n");
        if syntax::find(&text, path).is_empty() {
            return;
        }
        self.input = crate::tui::widgets::new_input();
        self.input.insert_str(syntax::remove(&text, path));
    }

    /// A key that is text: into the message; `@` opens the mention popup.
    pub(super) fn type_key(&mut self, ev: KeyEvent) {
        let c = Key::from_event(&ev).and_then(|k| k.char());
        self.input.input(ev);
        if c == Some(syntax::SIGIL) && self.compose == Compose::On {
            self.compose = Compose::Mention(MentionPopup {
                query: String::new(),
                items: Vec::new(),
                selected: 0,
            });
        }
        self.refresh_mention();
    }

    /// The mention at the cursor ([`syntax::at_cursor`]) drives the popup; none closes it.
    fn refresh_mention(&mut self) {
        if !matches!(self.compose, Compose::Mention(_)) {
            return;
        }
        let ratatui_textarea::DataCursor(row, col) = self.input.cursor();
        let line = self.input.lines().get(row).cloned().unwrap_or_default();
        let cursor = line
            .char_indices()
            .nth(col)
            .map_or(line.len(), |(at, _)| at);
        let Some(query) = syntax::at_cursor(&line, cursor).map(str::to_string) else {
            self.compose = Compose::On;
            return;
        };
        let items = complete(&self.listing, &query, 50);
        if let Compose::Mention(m) = &mut self.compose {
            m.query = query;
            m.items = items;
            m.selected = m.selected.min(m.items.len().saturating_sub(1));
        }
    }

    pub(super) fn accept_mention(&mut self) -> Vec<Out> {
        let Compose::Mention(m) = std::mem::replace(&mut self.compose, Compose::On) else {
            return Vec::new();
        };
        let Some((path, _)) = m.items.get(m.selected).cloned() else {
            return Vec::new();
        };
        // The typed "@query" becomes the whole "@path": the message keeps its mentions where
        // they were written (drawn as chips in the thread), and the chip grants it.
        // What was typed: from the `@` to the cursor (`@que`, or `@"que ry` in the quoted form).
        let ratatui_textarea::DataCursor(row, col) = self.input.cursor();
        let line = self.input.lines().get(row).cloned().unwrap_or_default();
        let before: String = line.chars().take(col).collect();
        let typed = before
            .rfind(syntax::SIGIL)
            .map_or(0, |at| before[at..].chars().count());
        for _ in 0..typed {
            self.input.delete_char();
        }
        self.input.insert_str(format!("{} ", syntax::format(&path)));
        if !self.chips.contains(&Chip::Mention(path.clone())) {
            self.chips.push(Chip::Mention(path));
        }
        self.plan()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str, title: &str, kind: EntryKind) -> Entry {
        Entry {
            path: path.into(),
            kind,
            title: title.into(),
            authors: String::new(),
            year: None,
            depth: 0,
            ..Entry::default()
        }
    }

    #[test]
    fn fuzzy_over_paths_and_titles() {
        let list = vec![
            e(
                "papers/attn/paper.pdf",
                "Attention Is All You Need",
                EntryKind::Paper,
            ),
            e("notes/ideas.md", "ideas", EntryKind::File),
        ];
        let r = complete(&list, "attnall", 5);
        assert_eq!(r[0].0, "papers/attn/paper.pdf");
        let r = complete(&list, "ideas", 5);
        assert_eq!(r[0].0, "notes/ideas.md");
    }

    #[test]
    fn twins_are_told_apart_by_their_badges() {
        let mut scan = e("papers/b/paper.pdf", "Tracing JITs", EntryKind::Paper);
        scan.badges = vec!["scanned".into()];
        let list = vec![
            e("papers/a/paper.pdf", "Tracing JITs", EntryKind::Paper),
            scan,
        ];
        let r = complete(&list, "tracing", 5);
        assert_eq!(r[0].1, "Tracing JITs — papers/a/paper.pdf");
        assert_eq!(r[1].1, "Tracing JITs [scanned] — papers/b/paper.pdf");
    }
}
