//! The overlays over the panes: help, the paper's outline and metadata, the thread list, and
//! the permission modal. An open overlay takes the keys first; what a choice means for a pane
//! (jump to a section, show a thread, answer the agent) is the app's to carry out.

pub mod view;

use super::action::Action;
use super::effect::OverlayRequest;
use super::thread::PermissionKind;
use super::thread::PermissionRequest;
use super::thread::find::ThreadFilter;

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Outline {
        selected: usize,
    },
    Metadata,
    Threads {
        selected: usize,
        /// `/` typed a filter: the matching turns are listed instead of the threads.
        filter: Option<ThreadFilter>,
    },
    /// The recently opened documents.
    Recent {
        selected: usize,
    },
    /// The open paper's highlights and annotations.
    Annotations {
        selected: usize,
    },
    /// The vault search's results (`None`: still searching; `Err`: why it failed).
    Results {
        seq: u64,
        query: String,
        hits: Option<Result<Vec<crate::vault::PaperHit>, String>>,
        selected: usize,
    },
    Permission {
        turn: u64,
        request: PermissionRequest,
    },
}

/// Which overlay is open, without its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayKind {
    Help,
    Outline,
    Metadata,
    Threads,
    Recent,
    Annotations,
    Results,
    Permission,
}

/// What a key on an overlay comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Choice {
    /// Nothing for anyone else (moved, or an unbound key).
    Stay,
    /// The overlay closes.
    Close,
    /// The overlay closes on this item of the outline.
    Outline(usize),
    /// The overlay closes on this thread of the list.
    Thread(usize),
    /// The overlay closes on this turn of a thread, found by the filter.
    ThreadAt {
        thread: usize,
        turn: usize,
        cited: Vec<String>,
    },
    /// The thread list's filter is to be typed.
    FilterThreads,
    /// The overlay closes on this document of the recently opened list.
    Recent(usize),
    /// The overlay closes on this result of the vault search.
    Result(usize),
    /// The overlay closes on this annotation of the open paper.
    Annotation(usize),
    /// Delete this annotation (the list stays open).
    DeleteAnnotation(usize),
    /// Write the open paper's annotations as markdown.
    ExportAnnotations,
    /// Write the bibliography of this thread of the list (the list stays open).
    ExportThread(usize, crate::acp::cited::Format),
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
    pub fn open(request: OverlayRequest) -> Overlay {
        match request {
            OverlayRequest::Help => Overlay::Help { scroll: 0 },
            OverlayRequest::Outline(selected) => Overlay::Outline { selected },
            OverlayRequest::Metadata => Overlay::Metadata,
            OverlayRequest::Threads(selected) => Overlay::Threads {
                selected,
                filter: None,
            },
            OverlayRequest::Recent => Overlay::Recent { selected: 0 },
            OverlayRequest::Annotations => Overlay::Annotations { selected: 0 },
            OverlayRequest::Results { seq, query } => Overlay::Results {
                seq,
                query,
                hits: None,
                selected: 0,
            },
            OverlayRequest::Permission { turn, request } => Overlay::Permission { turn, request },
        }
    }

    pub fn kind(&self) -> OverlayKind {
        match self {
            Overlay::Help { .. } => OverlayKind::Help,
            Overlay::Outline { .. } => OverlayKind::Outline,
            Overlay::Metadata => OverlayKind::Metadata,
            Overlay::Threads { .. } => OverlayKind::Threads,
            Overlay::Recent { .. } => OverlayKind::Recent,
            Overlay::Annotations { .. } => OverlayKind::Annotations,
            Overlay::Results { .. } => OverlayKind::Results,
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

    /// A key's action on the overlay. `total`: the lines or items of a list; `rows`: the
    /// screen's height, for half pages.
    pub fn update(
        &mut self,
        action: Action,
        count: Option<u32>,
        total: usize,
        rows: usize,
    ) -> Choice {
        let n = count.unwrap_or(1).max(1) as usize;
        let h = rows.saturating_sub(6);
        let sel = match self {
            Overlay::Help { scroll } => Some(scroll),
            Overlay::Outline { selected }
            | Overlay::Threads { selected, .. }
            | Overlay::Recent { selected }
            | Overlay::Annotations { selected }
            | Overlay::Results { selected, .. } => Some(selected),
            _ => None,
        };
        if let Some(sel) = sel {
            let max = total.saturating_sub(1);
            match action {
                Action::MoveDown => *sel = (*sel + n).min(max),
                Action::MoveUp => *sel = sel.saturating_sub(n),
                Action::HalfPageDown => *sel = (*sel + h / 2).min(max),
                Action::HalfPageUp => *sel = sel.saturating_sub(h / 2),
                Action::GotoTop => *sel = 0,
                Action::GotoPage => {
                    *sel = count.map_or(max, |c| (c as usize).saturating_sub(1).min(max))
                }
                _ => {}
            }
        }
        match (&*self, action) {
            (Overlay::Permission { turn, request }, a) => {
                let kind = match a {
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
                    turn: *turn,
                    request: request.id.clone(),
                    option,
                }
            }
            (_, Action::Cancel | Action::Quit) | (Overlay::Metadata, Action::Open) => Choice::Close,
            (Overlay::Outline { selected }, Action::Open) => Choice::Outline(*selected),
            (
                Overlay::Threads {
                    selected,
                    filter: None,
                },
                Action::Open,
            ) => Choice::Thread(*selected),
            (
                Overlay::Threads {
                    selected,
                    filter: Some(f),
                },
                Action::Open,
            ) => f
                .found
                .get(*selected)
                .map_or(Choice::Stay, |t| Choice::ThreadAt {
                    thread: t.thread,
                    turn: t.turn,
                    cited: t.cited.clone(),
                }),
            (Overlay::Threads { .. }, Action::Filter) => Choice::FilterThreads,
            (Overlay::Recent { selected }, Action::Open) => Choice::Recent(*selected),
            (Overlay::Annotations { selected }, Action::Open) => Choice::Annotation(*selected),
            (Overlay::Annotations { selected }, Action::Delete) => {
                Choice::DeleteAnnotation(*selected)
            }
            (Overlay::Annotations { .. }, Action::ExportMarkdown) => Choice::ExportAnnotations,
            (
                Overlay::Threads {
                    selected,
                    filter: None,
                },
                Action::ExportBibtex | Action::ExportCsljson,
            ) => Choice::ExportThread(
                *selected,
                if action == Action::ExportBibtex {
                    crate::acp::cited::Format::Bibtex
                } else {
                    crate::acp::cited::Format::Csljson
                },
            ),
            (
                Overlay::Threads {
                    selected,
                    filter: Some(f),
                },
                Action::ExportBibtex | Action::ExportCsljson,
            ) => f.found.get(*selected).map_or(Choice::Stay, |t| {
                Choice::ExportThread(
                    t.thread,
                    if action == Action::ExportBibtex {
                        crate::acp::cited::Format::Bibtex
                    } else {
                        crate::acp::cited::Format::Csljson
                    },
                )
            }),
            (Overlay::Results { selected, .. }, Action::Open) => Choice::Result(*selected),
            (_, Action::Help) => Choice::Help,
            _ => Choice::Stay,
        }
    }
}
