//! The vocabulary the components and the app share: [`Effect`] is work for the runtime (it
//! runs in a task and reports back as a message), [`Out`] is what a component's `update` asks
//! of the app — an effect, or something only the app can do because it touches another pane
//! (jump the paper to a citation, put a selection into the next question, open an overlay).

use crate::context::ContextRequest;
use crate::vault::EntryKind;

use super::action::Action;
use super::chips::Chip;
pub use super::status::{Level, Status};
use super::thread::PermissionRequest;

/// A signal the app is told about (the runtime listens for them while the terminal is ours).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// The terminal went away (an SSH drop, a closed window): SIGHUP.
    Hangup,
    /// Asked to end: SIGTERM, or SIGINT/SIGQUIT from outside (in raw mode ctrl-c is a key).
    Terminate,
    /// Asked to stop from outside (SIGTSTP): give the terminal back, then stop.
    Stop,
    /// Continued (SIGCONT): take the terminal again and draw it whole.
    Continue,
}

/// The three panes, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Vault,
    Paper,
    Chat,
}

/// A place in a document, for the jump list and marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub path: String,
    pub page: u32,
    pub row: usize,
}

/// Where a jump goes: a place, and the quote or line range to highlight there.
#[derive(Debug, Clone, PartialEq)]
pub struct Jump {
    pub to: Location,
    pub quote: Option<String>,
    pub lines: Option<(u32, u32)>,
}

impl Jump {
    /// A jump to a vault citation URI (`papers/x/paper.pdf#page=3`, `notes/a.md#line=2,4`),
    /// with the quote to highlight there; `None` for anything else.
    pub fn at_uri(u: &str, quote: Option<String>) -> Option<Jump> {
        match crate::vault::uri::parse(u) {
            Some(crate::vault::uri::Target::Vault { path, page, lines }) => {
                Some(Jump::at_place(path, page, lines, quote))
            }
            _ => None,
        }
    }

    /// A jump to the place of the vault a parsed citation URI names (page 1 when it names
    /// none), with the quote to highlight there: the one way from a URI to a jump.
    pub fn at_place(
        path: String,
        page: Option<u32>,
        lines: Option<(u32, u32)>,
        quote: Option<String>,
    ) -> Jump {
        Jump {
            to: Location {
                path,
                page: page.unwrap_or(1),
                row: 0,
            },
            quote,
            lines,
        }
    }

    pub fn to(path: String, page: u32) -> Jump {
        Jump {
            to: Location { path, page, row: 0 },
            quote: None,
            lines: None,
        }
    }
}

/// What the one-line prompt in the status bar is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Filter,
    Search,
    /// The thread list's filter.
    Threads,
    /// The vault-wide search (`space /`).
    VaultSearch,
    /// The comment of a new highlight.
    Comment,
}

/// A key that waits for a letter (marks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Awaiting {
    SetMark,
    JumpMark,
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
    /// The links and citations of the paper's page.
    Links,
    Results,
    Permission,
}

/// A list overlay as the one who opens it builds it: its rows and what each key does. The
/// overlay owns it while it is open; the app only opens, refills and closes it, and carries
/// out the [`Out`]s of the key pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    pub kind: OverlayKind,
    /// Which request the list answers: a refill for another one is dropped.
    pub tag: u64,
    pub title: String,
    pub rows: Vec<Row>,
    /// The line shown when there are no rows.
    pub empty: String,
    /// Enter with no rows: close and do this (`None`: the list stays open).
    pub empty_open: Option<Vec<Out>>,
    pub selected: usize,
    /// Keys that act on the whole list; it stays open.
    pub keys: Vec<(Action, Vec<Out>)>,
}

/// One row of a list: its text, what enter does (the list closes first), and what other
/// keys do with it (the list stays open).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub text: String,
    pub open: Vec<Out>,
    pub keys: Vec<(Action, Vec<Out>)>,
}

impl Row {
    pub fn new(text: String, open: Vec<Out>) -> Row {
        Row {
            text,
            open,
            keys: Vec::new(),
        }
    }
}

impl List {
    /// A list of `kind` titled so, `empty` shown without rows (enter then closes it).
    pub fn new(
        kind: OverlayKind,
        title: impl Into<String>,
        rows: Vec<Row>,
        empty: impl Into<String>,
    ) -> List {
        List {
            kind,
            tag: 0,
            title: title.into(),
            rows,
            empty: empty.into(),
            empty_open: Some(Vec::new()),
            selected: 0,
            keys: Vec::new(),
        }
    }
}

/// A text overlay's line: its text and the theme style it is drawn in (`None`: the
/// overlay's own).
pub type TextLine = (Option<&'static str>, String);

/// An overlay a component asks for; the app owns the one that is open.
#[derive(Debug, Clone, PartialEq)]
pub enum OverlayRequest {
    Help,
    /// A list: rows and what choosing one does.
    List(List),
    /// Lines of text (the paper's metadata).
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

/// What a component's `update` asks of the app, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// Work for the runtime.
    Run(Effect),
    /// A message for the status bar (empty: clear it).
    Status(Status),
    Focus(Pane),
    /// Open this document in the paper pane (or move in it), recorded in the jump list.
    Jump(Jump),
    /// Open a vault entry from the browser: a document keeps its page when it is open already.
    OpenEntry {
        path: String,
    },
    Prompt {
        kind: PromptKind,
        text: String,
    },
    Await(Awaiting),
    Overlay(OverlayRequest),
    /// The open list of this kind and tag gets these rows (nothing when it is not open),
    /// its selection kept or the new list's.
    Refill {
        list: List,
        keep_selection: bool,
    },
    /// The paper's outline section `i` (the paper jumps there, the cursor on its heading).
    Section(usize),
    /// The chat shows this thread, at this turn with these citations when given.
    ShowThread {
        thread: usize,
        at: Option<(usize, Vec<String>)>,
    },
    /// The permission question of this turn can no longer be answered: close it.
    ClosePermission {
        turn: u64,
    },
    /// Write the next chat question, with the selection (when there is one) as its context.
    UseSelection(Option<Chip>),
    /// Open the Quick Chat on these chips: the one put aside when it was about the same
    /// chips, unless `fresh`.
    QuickChat {
        chips: Vec<Chip>,
        fresh: bool,
    },
    /// The Quick Chat is gone for good (promoted or replaced).
    RemoveQuick,
    /// The Quick Chat was closed: put it aside, to be reopened.
    HideQuick,
    Quit,
}

impl Out {
    /// A note for the status bar.
    pub fn info(text: impl Into<String>) -> Out {
        Out::Status(Status::info(text))
    }

    /// A failure for the status bar.
    pub fn error(text: impl Into<String>) -> Out {
        Out::Status(Status::error(text))
    }

    /// The status bar cleared.
    pub fn clear_status() -> Out {
        Out::Status(Status::default())
    }
}

/// A URL opened with `$BROWSER` (without one, the runner copies it and says how to open
/// links: the environment is the runner's to read).
pub fn open_url(url: String) -> Vec<Out> {
    vec![Out::Run(Effect::OpenUrl(url))]
}

/// Work for the runtime; each reports back as a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Scan,
    /// Highlights and exports (report `Msg::Annotations` and a status message).
    Marks(MarksEffect),
    /// Start the configured agent process (reports `Msg::Agent`).
    StartAgent,
    /// Read the vault's chat threads (reports `Msg::Threads`).
    LoadThreads,
    Index,
    /// Page count and metadata of a document. A new request supersedes the page loads of
    /// every earlier one (their tasks are aborted).
    OpenPaper {
        req: u64,
        path: String,
        kind: EntryKind,
    },
    LoadPages {
        req: u64,
        path: String,
        pages: Vec<u32>,
    },
    /// The links and numbered citations of page `page` of the paper at `path` (of `pages`
    /// pages), read off the UI thread (reports `Msg::Links`).
    PageLinks {
        seq: u64,
        path: String,
        page: u32,
        pages: u32,
    },
    Plan {
        seq: u64,
        request: ContextRequest,
    },
    StartTurn {
        turn: u64,
        thread: String,
        request: ContextRequest,
    },
    CancelTurn {
        turn: u64,
    },
    /// A Quick Chat turn: like `StartTurn`, on a scratch transcript instead of a thread.
    QuickTurn {
        turn: u64,
        request: ContextRequest,
    },
    /// Append the Quick Chat of `turn` to a new thread on disk (reports `Msg::Promoted`).
    Promote {
        turn: u64,
    },
    /// The Quick Chat of `turn` was closed without promoting: forget its scratch transcript.
    DropQuick {
        turn: u64,
    },
    /// Ask the agent for the thread's summary and write its HANDOFF.md (a turn: it reports
    /// `Msg::Chat` events and `Msg::TurnDone`).
    Handoff {
        turn: u64,
        thread: String,
    },
    AnswerPermission {
        turn: u64,
        request: String,
        option: Option<String>,
    },
    OpenUrl(String),
    /// Check the citations of a manuscript, with these bibliographies (none: the ones it
    /// declares) (reports `Msg::Checked`).
    CheckDraft {
        seq: u64,
        draft: crate::context::check::source::DraftAt,
        bibs: Vec<std::path::PathBuf>,
    },
    /// Watch a manuscript for saves (reports `Msg::DraftSaved` with `id` when its file changes
    /// from `since`); `None` stops the watch. One watch at a time: a new one ends the last.
    WatchDraft {
        id: u64,
        draft: Option<(
            crate::context::check::source::DraftAt,
            Option<crate::context::check::source::Stamp>,
        )>,
    },
    /// Search the whole vault's index (reports `Msg::VaultSearch`).
    VaultSearch {
        seq: u64,
        query: String,
    },
    /// Put `text` on the clipboard through the terminal (OSC 52, over SSH too).
    Copy(String),
    /// Open a paper at a page in the user's PDF viewer (reports trouble as a status).
    OpenViewer {
        path: String,
        page: u32,
    },
    /// Render a paper's page as an image for the terminal (reports `Msg::PageImage`).
    RenderPage {
        key: crate::tui::shot::ShotKey,
        path: String,
    },
    /// Read the reading state of `.agentero/state/` (reports `Msg::Reading`).
    LoadReading,
    /// Write the reading state: `now` at once (quitting), else a moment later, a newer
    /// request replacing the one still waiting.
    SaveReading {
        state: Box<crate::vault::reading::ReadingState>,
        now: bool,
    },
    /// Clear the status message `seq` after `after` (reports `Msg::StatusExpired`).
    ExpireStatus {
        seq: u64,
        after: std::time::Duration,
    },
    /// Start the vault MCP server (`agentero serve` inside the app) or stop it (reports
    /// `Msg::VaultMcp`).
    ToggleVaultMcp,
    Suspend,
    /// Take the terminal again (raw mode, alternate screen) and draw every cell, asking the
    /// terminal nothing: after `fg`, or a SIGCONT after a stop agentero did not ask for.
    Resume,
    Quit,
}

/// agentero's own highlights, and the files exported from the lists.
#[derive(Debug, Clone, PartialEq)]
pub enum MarksEffect {
    /// Save a highlight on the paper at `path`.
    Add {
        path: String,
        new: crate::vault::highlights::NewHighlight,
    },
    /// Delete one of the paper's own highlights (reported with `Msg::HighlightDeleted`, for
    /// `u` to undo).
    Delete { path: String, id: String },
    /// Put back the highlight deleted last.
    Restore {
        path: String,
        highlight: Box<crate::vault::highlights::Highlight>,
    },
    /// Write the paper's annotations as markdown in the state folder.
    ExportHighlights { path: String },
    /// Write the bibliography of a thread in the state folder.
    ExportThread {
        thread: String,
        format: crate::acp::cited::Format,
    },
}
