//! What the runtime reports back to the app: one message type for every service and job.

use ratatui::crossterm::event::{Event, KeyEvent};

use super::{AgentState, PlanPreview, Signal, Status};
use crate::tui::listing::Entry;
use crate::tui::paper::DocInfo;
use crate::tui::thread::{ChatEvent, Thread};
use crate::vault::indexer::Progress;
use crate::vault::reading::ReadingState;

/// Everything the runtime reports back to the state.
#[derive(Debug)]
pub enum Msg {
    Term(Event),
    /// A signal from outside (hang-up, terminate, stop, continue).
    Signal(Signal),
    Key(KeyEvent),
    Resize(u16, u16),
    Scanned(Result<Vec<Entry>, String>),
    Index(Progress),
    IndexDone(Result<Status, String>),
    PaperOpened {
        req: u64,
        result: Result<(u32, DocInfo), String>,
    },
    Pages {
        req: u64,
        pages: Vec<(u32, Result<String, String>)>,
    },
    Plan {
        seq: u64,
        preview: PlanPreview,
    },
    Chat {
        turn: u64,
        event: ChatEvent,
    },
    /// The turn driver finished the turn (after its last event).
    TurnDone {
        turn: u64,
    },
    /// The agent process started, failed to start or stopped.
    Agent(AgentState),
    /// Threads read from `.agentero/chats/`, oldest first.
    Threads(Vec<Thread>),
    /// Threads another process wrote there since (`agentero ask`), oldest first.
    ThreadsArrived(Vec<Thread>),
    /// The Quick Chat became this thread on disk (or why it could not).
    Promoted(Result<Thread, String>),
    Status(Status),
    /// The vault MCP server's address now (`None`: stopped), or why it could not start.
    VaultMcp(Result<Option<String>, String>),
    /// The status message numbered so has been shown long enough.
    StatusExpired(u64),
    /// The vault search numbered `seq`: its results, or why it failed.
    VaultSearch {
        seq: u64,
        result: Result<Vec<crate::vault::PaperHit>, String>,
    },
    /// The citation check numbered `seq` of the manuscript at `path`: its report, or why it
    /// failed.
    Checked {
        seq: u64,
        result: Result<Box<crate::context::check::source::DraftReport>, String>,
    },
    /// The manuscript of the checklist was saved (watch `id`).
    DraftSaved {
        id: u64,
    },
    /// The links and citations of a page of the paper at `path`, asked for as `seq`.
    Links {
        seq: u64,
        path: String,
        links: crate::context::links::PageLinks,
    },
    /// A page image asked for by the paper pane.
    PageImage {
        key: crate::tui::shot::ShotKey,
        result: Result<crate::tui::shot::PageProto, String>,
    },
    /// The annotations of a paper as they are now (after a highlight was saved or deleted).
    Annotations {
        path: String,
        list: Vec<crate::vault::annotations::Annotation>,
    },
    /// A highlight was deleted (kept for `u`).
    HighlightDeleted {
        path: String,
        highlight: Box<crate::vault::highlights::Highlight>,
    },
    /// The reading state from `.agentero/state/`, and what could not be used of it.
    Reading {
        state: Box<ReadingState>,
        problems: Vec<String>,
    },
}
