//! The overlays over the panes: help, the lists (built by whoever opens them: rows, and what
//! each key does with a row), text (the paper's metadata) and the permission modal. An open
//! overlay takes the keys first and owns what it shows; a choice comes back as the
//! [`Out`]s its row carries, for the app to carry out like any component's.

pub mod recent;
pub mod results;
pub mod view;

use super::action::Action;
use super::effect::{List, Out, OverlayRequest, TextLine};
use super::thread::PermissionKind;
use super::thread::PermissionRequest;

pub use super::effect::OverlayKind;

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help {
        scroll: usize,
        /// The help's lines (the keymap's bound actions).
        total: usize,
    },
    List(List),
    Text {
        kind: OverlayKind,
        title: String,
        lines: Vec<TextLine>,
    },
    Permission {
        turn: u64,
        request: PermissionRequest,
    },
}

/// What a key on an overlay comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Nothing for anyone else (moved, or an unbound key).
    Stay,
    /// The overlay closes.
    Close,
    /// These for the app to carry out, the overlay closed first when `close`.
    Run { close: bool, outs: Vec<Out> },
    /// The permission modal closes with this answer (the option's id; none: rejected).
    Answer {
        turn: u64,
        request: String,
        option: Option<String>,
    },
    /// Help opens over it.
    Help,
    /// Quit the app (from the permission modal, which takes every other key).
    Quit,
}

impl Overlay {
    /// The overlay asked for; `help_lines`: how many lines the help has.
    pub fn open(request: OverlayRequest, help_lines: usize) -> Overlay {
        match request {
            OverlayRequest::Help => Overlay::Help {
                scroll: 0,
                total: help_lines,
            },
            OverlayRequest::List(list) => Overlay::List(list),
            OverlayRequest::Text { kind, title, lines } => Overlay::Text { kind, title, lines },
            OverlayRequest::Permission { turn, request } => Overlay::Permission { turn, request },
        }
    }

    pub fn kind(&self) -> OverlayKind {
        match self {
            Overlay::Help { .. } => OverlayKind::Help,
            Overlay::List(list) => list.kind,
            Overlay::Text { kind, .. } => *kind,
            Overlay::Permission { .. } => OverlayKind::Permission,
        }
    }

    /// The turn whose permission question this is.
    pub fn permission_turn(&self) -> Option<u64> {
        match self {
            Overlay::Permission { turn, .. } => Some(*turn),
            _ => None,
        }
    }

    /// Takes the refilled rows when this is the list they are for (same kind and tag); the
    /// selection stays where it was when `keep_selection`.
    pub fn refill(&mut self, new: List, keep_selection: bool) {
        if let Overlay::List(list) = self
            && (list.kind, list.tag) == (new.kind, new.tag)
        {
            let selected = list.selected;
            *list = new;
            if keep_selection {
                list.selected = selected;
            }
        }
    }

    /// A key's action on the overlay. `rows`: the screen's height, for half pages.
    pub fn update(&mut self, action: Action, count: Option<u32>, rows: usize) -> Choice {
        match self {
            Overlay::Help { scroll, total } => {
                step(scroll, *total, action, count, rows);
                shared(action)
            }
            Overlay::List(list) => {
                step(&mut list.selected, list.rows.len(), action, count, rows);
                choose(list, action)
            }
            Overlay::Text { .. } if action == Action::Open => Choice::Close,
            Overlay::Text { .. } => shared(action),
            Overlay::Permission { turn, request } => answer(*turn, request, action),
        }
    }
}

/// Moves a selection (or the help's scroll) over `total` lines.
fn step(sel: &mut usize, total: usize, action: Action, count: Option<u32>, rows: usize) {
    let n = count.unwrap_or(1).max(1) as usize;
    let h = rows.saturating_sub(6);
    let max = total.saturating_sub(1);
    match action {
        Action::MoveDown => *sel = (*sel + n).min(max),
        Action::MoveUp => *sel = sel.saturating_sub(n),
        Action::HalfPageDown => *sel = (*sel + h / 2).min(max),
        Action::HalfPageUp => *sel = sel.saturating_sub(h / 2),
        Action::GotoTop => *sel = 0,
        Action::GotoPage => *sel = count.map_or(max, |c| (c as usize).saturating_sub(1).min(max)),
        _ => {}
    }
}

/// Keys every overlay but the permission modal shares: esc and q close, ? opens the help.
fn shared(action: Action) -> Choice {
    match action {
        Action::Cancel | Action::Quit => Choice::Close,
        Action::Help => Choice::Help,
        _ => Choice::Stay,
    }
}

/// A key on a list: enter closes it on the selected row; the row's own keys, then the
/// list's, keep it open.
fn choose(list: &List, action: Action) -> Choice {
    let row = list.rows.get(list.selected);
    if action == Action::Open {
        return match (row, &list.empty_open) {
            (Some(r), _) => Choice::Run {
                close: true,
                outs: r.open.clone(),
            },
            (None, Some(outs)) => Choice::Run {
                close: true,
                outs: outs.clone(),
            },
            (None, None) => Choice::Stay,
        };
    }
    let keyed = row
        .into_iter()
        .flat_map(|r| r.keys.iter())
        .chain(list.keys.iter())
        .find(|(a, _)| *a == action);
    match keyed {
        // A key that jumps (open the cited paper) takes the reader away: the list closes.
        Some((_, outs)) => Choice::Run {
            close: outs.iter().any(|o| matches!(o, Out::Jump(_))),
            outs: outs.clone(),
        },
        None => shared(action),
    }
}

/// The permission modal: a, A, r, R (esc rejects once); q quits.
fn answer(turn: u64, request: &PermissionRequest, action: Action) -> Choice {
    let kind = match action {
        Action::AllowOnce => PermissionKind::AllowOnce,
        Action::AllowAlways => PermissionKind::AllowAlways,
        Action::RejectOnce | Action::Cancel => PermissionKind::RejectOnce,
        Action::RejectAlways => PermissionKind::RejectAlways,
        Action::Quit => return Choice::Quit,
        _ => return Choice::Stay,
    };
    let option = request
        .options
        .iter()
        .find(|o| o.kind == kind)
        .map(|o| o.id.clone());
    Choice::Answer {
        turn,
        request: request.id.clone(),
        option,
    }
}

#[cfg(test)]
mod tests;
