//! What the next question will be granted, one chip each (mentions, the current paper,
//! the selection), the grant preview the chat's status line shows for them, and the agent the
//! question goes to.

use crate::context::{ContextRequest, CurrentPaper, Selection};

use super::status::Status;

#[derive(Debug, Clone, PartialEq)]
pub enum Chip {
    Mention(String),
    Reading {
        path: String,
        page: Option<u32>,
    },
    Selection {
        path: String,
        page: Option<u32>,
        text: String,
    },
}

impl Chip {
    pub fn label(&self) -> String {
        match self {
            Chip::Mention(p) => crate::context::mention::syntax::format(p),
            Chip::Reading { path, page } => match page {
                Some(p) => format!("reading {path} p.{p}"),
                None => format!("reading {path}"),
            },
            Chip::Selection { page, text, .. } => {
                let short: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
                let short: String = short.chars().take(24).collect();
                match page {
                    Some(p) => format!("selection p.{p} \"{short}…\""),
                    None => format!("selection \"{short}…\""),
                }
            }
        }
    }
}

/// Puts what the chips show into a request: the chips are the grant.
pub fn add_chips(req: &mut ContextRequest, chips: &[Chip]) {
    for chip in chips {
        match chip {
            Chip::Mention(p) => req.mentions.push(p.clone()),
            Chip::Reading { path, page } => {
                req.current = Some(CurrentPaper {
                    path: path.clone(),
                    page: *page,
                })
            }
            Chip::Selection { path, page, text } => {
                req.selection = Some(Selection {
                    path: path.clone(),
                    page: *page,
                    text: text.clone(),
                })
            }
        }
    }
}

/// The grant preview shown in the chat status line (the plan's own short form).
pub use crate::context::PlanPreview;

/// Where the agent process is.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentState {
    /// The agent process is being started in the background.
    Starting {
        name: String,
    },
    Ready {
        name: String,
        remote: bool,
    },
    Unavailable(String),
}

/// Whether a question can start a turn now: its id and where the agent runs, or why not (the
/// status line says it). The app decides, since only one turn runs at a time across the chat
/// and the Quick Chat.
pub type Gate = Result<Ticket, Status>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket {
    pub turn: u64,
    pub remote: bool,
}

/// A question admitted to start a turn: it has text and the gate is open. Otherwise what the
/// status line says (in that order: an empty message first).
pub fn admit(text: &str, gate: Gate) -> Result<Ticket, Status> {
    if text.trim().is_empty() {
        return Err(Status::info("nothing to send"));
    }
    gate
}
