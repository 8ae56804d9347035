//! Where the panes go on the screen: three side by side when wide, else the focused one and
//! its neighbour. The view draws into these areas and the mouse hit-tests against them.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Block;

use crate::tui::effect::Pane;

#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    pub vault: Rect,
    pub paper: Rect,
    pub paper_text: Rect,
    pub chat: Rect,
    pub status: Rect,
}

/// Three panes when wide; two (the focused one and its neighbour) below 140 columns; the paper
/// pane alone when it is `maximised` and focused. A `checklist` in the vault pane's place gets
/// a wider first column (its rows are sentences, not names).
pub fn layout(area: Rect, focus: Pane, maximised: bool, checklist: bool) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let mut a = Areas {
        status,
        ..Areas::default()
    };
    if maximised && focus == Pane::Paper {
        a.paper = main;
    } else if area.width >= 140 {
        let (left, right) = if checklist { (34, 30) } else { (24, 36) };
        let [v, p, c] = Layout::horizontal([
            Constraint::Percentage(left),
            Constraint::Fill(1),
            Constraint::Percentage(right),
        ])
        .areas(main);
        (a.vault, a.paper, a.chat) = (v, p, c);
    } else if focus == Pane::Vault {
        let [v, p] =
            Layout::horizontal([Constraint::Percentage(42), Constraint::Fill(1)]).areas(main);
        (a.vault, a.paper) = (v, p);
    } else {
        let [p, c] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Fill(1)]).areas(main);
        (a.paper, a.chat) = (p, c);
    }
    let inner = Block::bordered().inner(a.paper);
    a.paper_text = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    a
}
