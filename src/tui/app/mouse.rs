//! Mouse support, a bonus on top of the keyboard: what lies under the pointer, from the same
//! layout the view draws ([`super::layout::layout`]); the wheel scrolls the pane under the
//! pointer, a left click focuses it and selects (or, selected already, opens) the vault entry
//! or chat source there. Overlays and the Quick Chat popup are keyboard-only.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use ratatui::widgets::Block;

use super::AppState;
use crate::tui::browser::BrowserMsg;
use crate::tui::chat::ChatMsg;
use crate::tui::effect::{Effect, Pane};
use crate::tui::paper::PaperMsg;
use crate::tui::thread::cells::thread_line_items;
use crate::tui::widgets::WHEEL_ROWS;

/// What a pointer position hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// The vault pane; the index into the visible entries when on one.
    Vault(Option<usize>),
    /// The citation checklist in the vault pane's place; the row when on one.
    Checklist(Option<usize>),
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
            Hit::Vault(_) | Hit::Checklist(_) => Some(Pane::Vault),
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
    if contains(a.vault, col, row)
        && let Some(c) = st.checklist.as_ref().filter(|c| c.shown)
    {
        let inner = Block::bordered().inner(a.vault);
        let rows = crate::tui::checklist::view::list_rows(inner.height, c.rows().len());
        if !contains(inner, col, row) || (row - inner.y) as usize >= rows {
            return Hit::Checklist(None);
        }
        let i = c.offset + (row - inner.y) as usize;
        return Hit::Checklist((i < c.rows().len()).then_some(i));
    }
    if contains(a.vault, col, row) {
        let inner = Block::bordered().inner(a.vault);
        let b = &st.browser;
        if !contains(inner, col, row) || b.visible_len() == 0 {
            return Hit::Vault(None);
        }
        let rows = crate::tui::browser::view::list_rows(b, inner.width, inner.height);
        if (row - inner.y) >= rows {
            return Hit::Vault(None);
        }
        let i = b.first_shown(rows as usize) + (row - inner.y) as usize;
        return Hit::Vault((i < b.visible_len()).then_some(i));
    }
    if contains(a.paper, col, row) {
        return Hit::Paper;
    }
    if contains(a.chat, col, row) {
        let inner = Block::bordered().inner(a.chat);
        let [_, msgs, _, _] = crate::tui::chat::view::areas(&st.chat, inner);
        let Some(t) = st.chat.thread().filter(|_| contains(msgs, col, row)) else {
            return Hit::Chat(None);
        };
        let items = thread_line_items(
            t,
            st.chat.selected(),
            st.chat.scroll_from_end(),
            msgs.width as usize,
            msgs.height as usize,
        );
        return Hit::Chat(items.get((row - msgs.y) as usize).copied().flatten());
    }
    Hit::Outside
}

impl AppState {
    pub(super) fn on_mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        if self.overlay.is_some() || self.quick.is_some() {
            return Vec::new();
        }
        let hit = hit(self, m.column, m.row);
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match hit {
                    Hit::Vault(_) => {
                        let d = WHEEL_ROWS as isize;
                        let out =
                            self.browser
                                .update(BrowserMsg::Scroll(if down { d } else { -d }));
                        self.apply(out)
                    }
                    Hit::Checklist(_) => {
                        let action = if down {
                            crate::tui::action::Action::MoveDown
                        } else {
                            crate::tui::action::Action::MoveUp
                        };
                        self.checklist_wheel(action, WHEEL_ROWS as u32)
                    }
                    Hit::Paper => self.send_paper(PaperMsg::Wheel { down }),
                    Hit::Chat(_) => self.send_chat(ChatMsg::Scroll { up: !down }),
                    Hit::Outside => Vec::new(),
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                let Some(pane) = hit.pane() else {
                    return Vec::new();
                };
                let was = self.focus;
                self.focus = pane;
                let mut fx = match hit {
                    Hit::Vault(Some(index)) => {
                        let focused = was == Pane::Vault;
                        let out = self.browser.update(BrowserMsg::Click { index, focused });
                        self.apply(out)
                    }
                    Hit::Checklist(Some(i)) => self.checklist_click(i, was == Pane::Vault),
                    Hit::Chat(Some(i)) => self.send_chat(ChatMsg::Click(i)),
                    _ => Vec::new(),
                };
                if was != pane {
                    match pane {
                        Pane::Vault if self.checklist_shown() => {}
                        Pane::Vault => fx.push(Effect::Scan),
                        Pane::Chat => fx.extend(self.send_chat(ChatMsg::Focused)),
                        Pane::Paper => {}
                    }
                }
                fx
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Msg;
    use crate::tui::chips::AgentState;
    use crate::tui::key::Key;
    use crate::tui::keymap::Keymap;
    use crate::tui::listing::Entry;
    use crate::tui::thread::{ChatEvent, SourceRef, Thread};
    use crate::vault::EntryKind;
    use ratatui::crossterm::event::{Event, KeyModifiers};

    fn app(n: usize) -> AppState {
        let mut st = AppState::new(
            "v".into(),
            Keymap::load("default", None),
            AgentState::Unavailable("none".into()),
        );
        st.update(Msg::Resize(160, 30));
        st.update(Msg::Scanned(Ok((0..n)
            .map(|i| Entry {
                path: format!("papers/p{i}.pdf"),
                kind: EntryKind::Paper,
                title: format!("Paper {i}"),
                authors: String::new(),
                year: None,
                depth: 0,
                ..Entry::default()
            })
            .collect())));
        st
    }

    fn keys(st: &mut AppState, keys: &str) {
        for k in keys.split_whitespace() {
            st.update(Msg::Key(Key::parse(k).unwrap().to_event()));
        }
    }

    /// A thread with a notice and a source, restored as if from disk.
    fn with_source(st: &mut AppState) {
        let mut t = Thread::new("t1".into());
        t.apply(ChatEvent::Notice("hello".into()));
        t.apply(ChatEvent::Sources(vec![SourceRef {
            uri: "agentero://vault/papers/p0.pdf#page=2".into(),
            quote: None,
        }]));
        st.update(Msg::Threads(vec![t]));
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
        keys(&mut st, "6 1 G");
        assert_eq!(st.browser().selected(), 60);
        let a = st.areas();
        // The list's rows: the pane's, less the selected paper's details below them.
        let (w, inner_h) = (a.vault.width - 2, a.vault.height - 2);
        let h = crate::tui::browser::view::list_rows(st.browser(), w, inner_h) as usize;
        let start = 60 - (h / 2).min(h - 1);
        // A click on the details is on no entry.
        assert_eq!(
            hit(&st, a.vault.x + 2, a.vault.y + 1 + h as u16),
            Hit::Vault(None)
        );
        assert_eq!(
            hit(&st, a.vault.x + 2, a.vault.y + 1),
            Hit::Vault(Some(start))
        );
    }

    /// The items under the chat's message rows, top to bottom.
    fn chat_rows(st: &AppState) -> (Rect, Vec<Hit>) {
        let a = st.areas();
        let inner = Block::bordered().inner(a.chat);
        let [_, msgs, _, _] = crate::tui::chat::view::areas(st.chat(), inner);
        let rows = (msgs.y..msgs.bottom())
            .map(|y| hit(st, msgs.x + 2, y))
            .collect();
        (msgs, rows)
    }

    #[test]
    fn hit_finds_the_chat_item_under_the_pointer() {
        let mut st = app(1);
        with_source(&mut st);
        // Rendered from the end upwards: the source is the last line, "sources (1)" above it,
        // the notice above that.
        let (_, rows) = chat_rows(&st);
        let last = rows.iter().rposition(|h| *h != Hit::Chat(None)).unwrap();
        assert_eq!(rows[last], Hit::Chat(Some(2)));
        assert_eq!(rows[last - 1], Hit::Chat(Some(1)));
        assert_eq!(rows[last - 2], Hit::Chat(Some(0)));
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
        assert_eq!(st.browser().selected(), WHEEL_ROWS);
        st.update(mouse(
            MouseEventKind::ScrollUp,
            a.vault.x + 2,
            a.vault.y + 2,
        ));
        assert_eq!(st.browser().selected(), 0);
        // The chat scrolls back from the end, whichever pane has focus.
        st.update(mouse(MouseEventKind::ScrollUp, a.chat.x + 2, a.chat.y + 2));
        assert_eq!(st.chat().scroll_from_end(), WHEEL_ROWS);
        st.update(mouse(
            MouseEventKind::ScrollDown,
            a.chat.x + 2,
            a.chat.y + 2,
        ));
        assert_eq!(st.chat().scroll_from_end(), 0);
        assert_eq!(st.focus(), Pane::Vault);
    }

    #[test]
    fn click_focuses_selects_then_opens() {
        let mut st = app(5);
        keys(&mut st, "space c");
        assert_eq!(st.focus(), Pane::Chat);
        let a = st.areas();
        let (x, y) = (a.vault.x + 2, a.vault.y + 3);
        // First click: focus and select, nothing opens.
        let fx = st.update(mouse(MouseEventKind::Down(MouseButton::Left), x, y));
        assert_eq!(st.focus(), Pane::Vault);
        assert_eq!(st.browser().selected(), 2);
        assert!(fx.iter().all(|e| !matches!(e, Effect::OpenPaper { .. })));
        // A click on the selected entry opens it, like enter.
        let fx = st.update(mouse(MouseEventKind::Down(MouseButton::Left), x, y));
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::OpenPaper { path, .. } if path == "papers/p2.pdf")),
            "{fx:?}"
        );
        // A click on the paper pane focuses it.
        let a = st.areas();
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            a.paper.x + 3,
            a.paper.y + 3,
        ));
        assert_eq!(st.focus(), Pane::Paper);
    }

    #[test]
    fn click_on_a_source_line_selects_it() {
        let mut st = app(1);
        with_source(&mut st);
        let (msgs, rows) = chat_rows(&st);
        let y = msgs.y + rows.iter().position(|h| *h == Hit::Chat(Some(2))).unwrap() as u16;
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            msgs.x + 2,
            y,
        ));
        assert_eq!(st.focus(), Pane::Chat);
        assert_eq!(st.chat().selected(), Some(2));
        // The "sources (1)" notice is not selectable: a click there keeps the selection.
        st.update(mouse(
            MouseEventKind::Down(MouseButton::Left),
            msgs.x + 2,
            y - 1,
        ));
        assert_eq!(st.chat().selected(), Some(2));
    }
}
