//! Mouse support, a bonus on top of the keyboard: what lies under the pointer, from the same
//! layout the view draws ([`super::view::layout`]).

use ratatui::layout::{Position, Rect};
use ratatui::widgets::Block;

use super::app::{AppState, Pane};

/// Rows the wheel moves per notch.
pub const WHEEL_ROWS: usize = 3;

/// What a pointer position hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// The vault pane; the index into the visible entries when on one.
    Vault(Option<usize>),
    /// The paper pane.
    Paper,
    /// The chat pane; the item of the current thread when on one of its lines.
    Chat(Option<usize>),
    /// The status bar, or nothing drawn there.
    Outside,
}

impl Hit {
    pub fn pane(self) -> Option<Pane> {
        match self {
            Hit::Vault(_) => Some(Pane::Vault),
            Hit::Paper => Some(Pane::Paper),
            Hit::Chat(_) => Some(Pane::Chat),
            Hit::Outside => None,
        }
    }
}

fn contains(r: Rect, col: u16, row: u16) -> bool {
    r.width > 0 && r.contains(Position::new(col, row))
}

/// What is under the cell (`col`, `row`) of the screen as the view draws `st`.
pub fn hit(st: &AppState, col: u16, row: u16) -> Hit {
    let a = st.areas();
    if contains(a.vault, col, row) {
        let inner = Block::bordered().inner(a.vault);
        let b = &st.browser;
        if !contains(inner, col, row) || b.visible.is_empty() {
            return Hit::Vault(None);
        }
        let start = super::view::vault_start(b, inner.height as usize);
        let i = start + (row - inner.y) as usize;
        return Hit::Vault((i < b.visible.len()).then_some(i));
    }
    if contains(a.paper, col, row) {
        return Hit::Paper;
    }
    if contains(a.chat, col, row) {
        let inner = Block::bordered().inner(a.chat);
        let [_, msgs, _, _] = super::view::chat_areas(&st.chat, inner);
        let Some(t) = st.chat.thread().filter(|_| contains(msgs, col, row)) else {
            return Hit::Chat(None);
        };
        let items = super::view::thread_line_items(
            t,
            st.chat.selected,
            st.chat.scroll_from_end,
            msgs.width as usize,
            msgs.height as usize,
        );
        return Hit::Chat(items.get((row - msgs.y) as usize).copied().flatten());
    }
    Hit::Outside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::AgentState;
    use crate::tui::browser::BrowserEntry;
    use crate::tui::chat::{Item, ItemKind, SourceRef};
    use crate::tui::keymap::Keymap;
    use crate::vault::EntryKind;
    use ratatui::crossterm::event::{Event, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

    use crate::tui::app::Msg;

    fn app(n: usize) -> AppState {
        let mut st = AppState::new(
            "v".into(),
            Keymap::load("default", None),
            AgentState::Unavailable("none".into()),
        );
        st.size = (160, 30);
        st.browser.set_entries(
            (0..n)
                .map(|i| BrowserEntry {
                    path: format!("papers/p{i}.pdf"),
                    kind: EntryKind::Paper,
                    title: format!("Paper {i}"),
                    authors: String::new(),
                    year: None,
                    depth: 0,
                })
                .collect(),
        );
        st
    }

    fn mouse(kind: MouseEventKind, col: u16, row: u16) -> Msg {
        Msg::Term(Event::Mouse(MouseEvent {
            kind,
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        }))
    }

    #[test]
    fn hit_maps_rows_to_vault_entries_and_panes() {
        let st = app(5);
        let a = st.areas();
        // The first row inside the border is the first entry.
        assert_eq!(hit(&st, a.vault.x + 2, a.vault.y + 1), Hit::Vault(Some(0)));
        assert_eq!(hit(&st, a.vault.x + 2, a.vault.y + 3), Hit::Vault(Some(2)));
        // Below the last entry, and on the border.
        assert_eq!(hit(&st, a.vault.x + 2, a.vault.y + 9), Hit::Vault(None));
        assert_eq!(hit(&st, a.vault.x, a.vault.y + 1), Hit::Vault(None));
        assert_eq!(hit(&st, a.paper.x + 3, a.paper.y + 3), Hit::Paper);
        assert_eq!(hit(&st, a.chat.x + 3, a.chat.y + 3), Hit::Chat(None));
        assert_eq!(hit(&st, 0, a.status.y), Hit::Outside);
    }

    #[test]
    fn hit_follows_the_vault_list_scrolled_to_the_selection() {
        let mut st = app(100);
        st.browser.selected = 60;
        let a = st.areas();
        let h = a.vault.height as usize - 2;
        let start = 60 - (h / 2).min(h - 1);
        assert_eq!(
            hit(&st, a.vault.x + 2, a.vault.y + 1),
            Hit::Vault(Some(start))
        );
    }

    #[test]
    fn hit_finds_the_chat_item_under_the_pointer() {
        let mut st = app(1);
        let t = st.chat.thread_mut().unwrap();
        t.items.push(Item::new(ItemKind::Notice("hello".into())));
        t.items.push(Item::new(ItemKind::Source(SourceRef {
            uri: "agentero://vault/papers/p0.pdf#page=2".into(),
            quote: None,
        })));
        let a = st.areas();
        let inner = Block::bordered().inner(a.chat);
        let [_, msgs, _, _] = crate::tui::view::chat_areas(&st.chat, inner);
        let x = msgs.x + 2;
        // Rendered from the end upwards: the source is the last line.
        let rows: Vec<Hit> = (msgs.y..msgs.bottom()).map(|y| hit(&st, x, y)).collect();
        let last = rows.iter().rposition(|h| *h != Hit::Chat(None)).unwrap();
        assert_eq!(rows[last], Hit::Chat(Some(1)));
        assert_eq!(rows[last - 1], Hit::Chat(Some(0)));
    }

    #[test]
    fn wheel_scrolls_the_pane_under_the_pointer_by_three() {
        let mut st = app(20);
        let a = st.areas();
        st.update(mouse(
            MouseEventKind::ScrollDown,
            a.vault.x + 2,
            a.vault.y + 2,
        ));
        assert_eq!(st.browser.selected, WHEEL_ROWS);
        st.update(mouse(
            MouseEventKind::ScrollUp,
            a.vault.x + 2,
            a.vault.y + 2,
        ));
        assert_eq!(st.browser.selected, 0);
        // The chat scrolls back from the end, whichever pane has focus.
        st.update(mouse(MouseEventKind::ScrollUp, a.chat.x + 2, a.chat.y + 2));
        assert_eq!(st.chat.scroll_from_end, WHEEL_ROWS);
        st.update(mouse(
            MouseEventKind::ScrollDown,
            a.chat.x + 2,
            a.chat.y + 2,
        ));
        assert_eq!(st.chat.scroll_from_end, 0);
        assert_eq!(st.focus, Pane::Vault);
    }

    #[test]
    fn click_focuses_selects_then_opens() {
        let mut st = app(5);
        st.focus = Pane::Chat;
        let a = st.areas();
        let (x, y) = (a.vault.x + 2, a.vault.y + 3);
        // First click: focus and select, nothing opens.
        let fx = st.update(mouse(MouseEventKind::Down(MouseButton::Left), x, y));
        assert_eq!(st.focus, Pane::Vault);
        assert_eq!(st.browser.selected, 2);
        assert!(
            fx.iter()
                .all(|e| !matches!(e, crate::tui::app::Effect::OpenPaper { .. }))
        );
        // A click on the selected entry opens it, like enter.
        let fx = st.update(mouse(MouseEventKind::Down(MouseButton::Left), x, y));
        assert!(
            fx.iter()
                .any(|e| matches!(e, crate::tui::app::Effect::OpenPaper { path, .. } if path == "papers/p2.pdf")),
            "{fx:?}"
        );
        // A click on the paper pane focuses it.
        let a = st.areas();
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            a.paper.x + 3,
            a.paper.y + 3,
        ));
        assert_eq!(st.focus, Pane::Paper);
    }

    #[test]
    fn click_on_a_source_line_selects_it() {
        let mut st = app(1);
        let t = st.chat.thread_mut().unwrap();
        t.items.push(Item::new(ItemKind::Notice("hello".into())));
        t.items.push(Item::new(ItemKind::Source(SourceRef {
            uri: "agentero://vault/papers/p0.pdf#page=2".into(),
            quote: None,
        })));
        let a = st.areas();
        let inner = Block::bordered().inner(a.chat);
        let [_, msgs, _, _] = crate::tui::view::chat_areas(&st.chat, inner);
        let y = (msgs.y..msgs.bottom())
            .find(|&y| hit(&st, msgs.x + 2, y) == Hit::Chat(Some(1)))
            .unwrap();
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            msgs.x + 2,
            y,
        ));
        assert_eq!(st.focus, Pane::Chat);
        assert_eq!(st.chat.selected, Some(1));
        // The notice is not selectable: a click there keeps the selection.
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            msgs.x + 2,
            y - 1,
        ));
        assert_eq!(st.chat.selected, Some(1));
    }
}
