//! The app: a small state that owns the focus, routes each message to the component it is for
//! (browser, paper, chat, Quick Chat, overlays, input) and carries out what components ask of
//! each other. `update(Msg) -> Vec<Effect>`; no IO here: effects are run by the runtime in
//! tasks, which report back as messages.

mod keys;
pub mod layout;
pub mod mouse;
mod msg;
mod reading;
pub mod view;

pub use msg::Msg;

/// How many documents the recently opened list shows.
pub const RECENT: usize = 30;

use std::sync::Arc;

use ratatui::crossterm::event::{Event, KeyEventKind};
use ratatui::layout::Rect;

use crate::context::ContextRequest;
use crate::vault::EntryKind;
use crate::vault::indexer::Progress;
use crate::vault::reading::ReadingState;

use super::browser::{Browser, BrowserMsg};
use super::chat::{Chat, ChatMsg, Compose, FindThreads};
pub use super::chips::{AgentState, Chip, PlanPreview};
use super::effect::Out;
pub use super::effect::{Effect, Jump, Location, Pane, Signal};
use super::input::Input;
use super::keymap::Keymap;
use super::overlay::{Overlay, OverlayKind, results};
use super::paper::{Doc, Paper, PaperMsg};
use super::quick::{Quick, QuickMsg};
pub use super::status::{Level, Status};

/// How long a status message stays (seconds); an error stays longer.
const STATUS_SECS: u64 = 6;
const STATUS_ERROR_SECS: u64 = 15;

pub struct AppState {
    vault_name: String,
    keymap: Keymap,
    focus: Pane,
    overlay: Option<Overlay>,
    input: Input,
    browser: Browser,
    paper: Paper,
    chat: Chat,
    quick: Option<Quick>,
    status: Status,
    errors: Vec<String>,
    index: Option<(usize, usize)>,
    size: (u16, u16),
    quit: bool,
    next_turn: u64,
    /// The vault MCP server's address while it runs (`space m`).
    vault_mcp: Option<String>,
    /// A first ctrl-c with nothing running: the next one quits.
    interrupt_armed: bool,
    /// The Quick Chat closed last, kept to be reopened.
    closed_quick: Option<Quick>,
    /// Numbers the status messages: only the newest one's timer clears it.
    status_seq: u64,
    /// The reading state once read from disk (never saved before: it would be overwritten).
    reading: Option<ReadingState>,
    /// The document whose place was recorded last (opening another one stamps its time).
    reading_doc: Option<String>,
    /// The vault search asked for last, numbered: a late answer to an older one is dropped.
    search: (u64, String),
    /// Numbers the citation checks: a late report of an older one is dropped.
    check_seq: u64,
    /// The citation checklist of a manuscript, shown in the vault browser's place or hidden
    /// (`space k`).
    checklist: Option<crate::tui::checklist::Checklist>,
    /// The highlight deleted last, and its paper (`u` puts it back).
    undo: Option<(String, Box<crate::vault::highlights::Highlight>)>,
    /// The manuscript `agentero --check` named, checked at start.
    start_draft: Option<(
        crate::context::check::source::DraftAt,
        Vec<std::path::PathBuf>,
    )>,
}

impl AppState {
    pub fn new(vault_name: String, keymap: Keymap, agent: AgentState) -> AppState {
        let errors = keymap.errors.clone();
        let status = match &agent {
            AgentState::Unavailable(why) => Status::error(format!("agent unavailable: {why}")),
            AgentState::Starting { .. } | AgentState::Ready { .. } => Status::default(),
        };
        AppState {
            vault_name,
            keymap,
            focus: Pane::Vault,
            overlay: None,
            input: Input::default(),
            browser: Browser::default(),
            paper: Paper::default(),
            chat: Chat::new(agent),
            quick: None,
            status,
            errors,
            index: None,
            size: (80, 24),
            quit: false,
            next_turn: 0,
            vault_mcp: None,
            interrupt_armed: false,
            closed_quick: None,
            status_seq: 0,
            reading: None,
            reading_doc: None,
            search: (0, String::new()),
            check_seq: 0,
            checklist: None,
            start_draft: None,
            undo: None,
        }
    }

    /// An index run ended: its summary (when it had work), the browser rescanned; a checklist
    /// is checked against the papers the run added.
    fn index_done(&mut self, r: Result<Status, String>) -> Vec<Effect> {
        let had_work = self.index.is_some();
        self.index = None;
        match r {
            Ok(summary) => {
                if had_work {
                    self.status = summary;
                }
                // Titles and authors come from the fresh records.
                let mut fx = vec![Effect::Scan];
                if had_work && let Some(c) = self.checklist.as_mut() {
                    self.check_seq += 1;
                    fx.push(c.recheck(self.check_seq));
                }
                fx
            }
            Err(e) => {
                self.status = Status::error(format!("indexing failed: {e}"));
                Vec::new()
            }
        }
    }

    /// Load problems found before the app (the theme's): listed first, in the help too.
    /// A notice for the status line at start (a read-only vault says where its state is).
    pub fn with_notice(mut self, notice: Option<String>) -> AppState {
        if let Some(n) = notice
            && self.status.is_empty()
        {
            self.status = Status::info(n);
        }
        self
    }

    pub fn with_errors(mut self, mut errors: Vec<String>) -> AppState {
        errors.append(&mut self.errors);
        self.errors = errors;
        self
    }

    /// The effects to run at start: scan the vault, bring its index up to date, restore the
    /// chat threads and start the agent (when one is configured).
    pub fn start(&mut self) -> Vec<Effect> {
        let mut fx = vec![
            Effect::Scan,
            Effect::LoadReading,
            Effect::Index,
            Effect::LoadThreads,
        ];
        if matches!(self.chat.agent(), AgentState::Starting { .. }) {
            fx.push(Effect::StartAgent);
        }
        if let Some((draft, bibs)) = self.start_draft.take() {
            fx.extend(self.open_draft(draft, bibs));
        }
        fx
    }

    /// A manuscript whose checklist opens at start (`agentero --check DRAFT`), with these
    /// bibliographies.
    pub fn with_draft(
        mut self,
        draft: Option<(
            crate::context::check::source::DraftAt,
            Vec<std::path::PathBuf>,
        )>,
    ) -> AppState {
        self.start_draft = draft;
        self
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        if let Msg::StatusExpired(seq) = msg {
            if seq == self.status_seq {
                self.status = Status::default();
            }
            return Vec::new();
        }
        // The grant preview follows the chips whatever changed them (opening a paper, turning
        // a page moves the reading chip): what the status line shows is what a send grants.
        let chips = self.chat.chips().to_vec();
        let status = self.status.clone();
        let text_area = self.areas().paper_text;
        let mut fx = self.handle(msg);
        // A focus change or `Z` resized the paper's text area: its image follows.
        if self.areas().paper_text != text_area && self.paper.doc().is_some() {
            fx.extend(self.send_paper(PaperMsg::Resized));
        }
        if !self.quit && self.sync_reading() {
            fx.push(self.save_reading(false));
        }
        if self.chat.chips() != chips && !fx.iter().any(|e| matches!(e, Effect::Plan { .. })) {
            let plan = self.chat.plan();
            fx.extend(self.apply(plan));
        }
        // A new message in the status bar goes away by itself after a while (an error stays
        // longer); a newer one replaces the timer.
        if self.status != status && !self.status.is_empty() {
            self.status_seq += 1;
            let secs = if self.status.is_error() {
                STATUS_ERROR_SECS
            } else {
                STATUS_SECS
            };
            fx.push(Effect::ExpireStatus {
                seq: self.status_seq,
                after: std::time::Duration::from_secs(secs),
            });
        }
        fx
    }

    fn handle(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Term(Event::Key(k)) => {
                if k.kind == KeyEventKind::Release {
                    return Vec::new();
                }
                self.on_key(k)
            }
            Msg::Term(Event::Resize(w, h)) | Msg::Resize(w, h) => {
                self.size = (w, h);
                self.send_paper(PaperMsg::Resized)
            }
            Msg::Term(Event::FocusGained) => vec![Effect::Scan],
            Msg::Term(Event::Paste(text)) => {
                if let Some(q) = self.quick.as_mut().filter(|q| q.composing()) {
                    let out = q.update(QuickMsg::Paste(text));
                    return self.apply(out);
                }
                if self.focus == Pane::Chat && *self.chat.compose() != Compose::Off {
                    return self.send_chat(ChatMsg::Paste(text));
                }
                Vec::new()
            }
            Msg::Term(Event::Mouse(m)) => self.on_mouse(m),
            Msg::Term(_) => Vec::new(),
            // The terminal is gone or the user's system asks agentero to end: quit as `q`
            // does (reading state saved; the runtime then stops every agent).
            Msg::Signal(Signal::Hangup | Signal::Terminate) => self.apply(vec![Out::Quit]),
            Msg::Signal(Signal::Stop) => vec![Effect::Suspend],
            Msg::Signal(Signal::Continue) => vec![Effect::Resume],
            Msg::Key(k) => self.on_key(k),
            Msg::Scanned(Ok(entries)) => {
                let listing = Arc::new(entries);
                let out = self
                    .browser
                    .update(BrowserMsg::Listed(Arc::clone(&listing)));
                let mut fx = self.apply(out);
                fx.extend(self.send_chat(ChatMsg::Listing(listing)));
                fx
            }
            Msg::Scanned(Err(e)) => {
                self.status = Status::error(format!("cannot scan the vault: {e}"));
                Vec::new()
            }
            Msg::Index(Progress::Planned { to_process, .. }) => {
                self.index = (to_process > 0).then_some((0, to_process));
                Vec::new()
            }
            Msg::Index(Progress::Processed { done, total, .. }) => {
                self.index = Some((done, total));
                Vec::new()
            }
            Msg::Index(Progress::Ocr {
                path,
                page,
                done,
                total,
            }) => {
                self.status = Status::info(format!(
                    "OCR {done}/{total}: {} p.{page}",
                    crate::vault::visible::visible(&path)
                ));
                Vec::new()
            }
            Msg::IndexDone(r) => self.index_done(r),
            Msg::PaperOpened { req, result } => self.send_paper(PaperMsg::Opened { req, result }),
            Msg::Pages { req, pages } => self.send_paper(PaperMsg::Pages { req, pages }),
            Msg::Plan { seq, preview } => self.send_chat(ChatMsg::Plan { seq, preview }),
            Msg::Chat { turn, event } => match self.quick.as_mut() {
                Some(q) if q.turn() == Some(turn) => {
                    let out = q.update(QuickMsg::Event { turn, event });
                    self.apply(out)
                }
                _ => self.send_chat(ChatMsg::Event { turn, event }),
            },
            Msg::TurnDone { turn } => {
                if let Some(q) = self.quick.as_mut() {
                    let out = q.update(QuickMsg::TurnDone(turn));
                    let mut fx = self.apply(out);
                    fx.extend(self.send_chat(ChatMsg::TurnDone(turn)));
                    return fx;
                }
                self.send_chat(ChatMsg::TurnDone(turn))
            }
            Msg::Agent(state) => self.send_chat(ChatMsg::Agent(state)),
            Msg::Threads(threads) => self.send_chat(ChatMsg::Threads(threads)),
            Msg::ThreadsArrived(threads) => self.send_chat(ChatMsg::Arrived(threads)),
            Msg::Promoted(Ok(thread)) => self.send_chat(ChatMsg::Promoted(thread)),
            Msg::Promoted(Err(e)) => {
                self.status = Status::error(format!("cannot promote the Quick Chat: {e}"));
                Vec::new()
            }
            Msg::Status(s) => {
                self.status = s;
                Vec::new()
            }
            Msg::VaultMcp(Ok(addr)) => {
                self.status = Status::info(match &addr {
                    Some(url) => format!(
                        "vault MCP serving {url} (bearer token: agentero serve --token; space m stops it)"
                    ),
                    None => "vault MCP stopped".into(),
                });
                self.vault_mcp = addr;
                Vec::new()
            }
            Msg::StatusExpired(_) => Vec::new(),
            Msg::PageImage { key, result } => self.send_paper(PaperMsg::Image { key, result }),
            Msg::Links { seq, path, links } => {
                self.send_paper(PaperMsg::Links { seq, path, links })
            }
            Msg::Annotations { path, list } => {
                self.send_paper(PaperMsg::Annotations { path, list })
            }
            Msg::HighlightDeleted { path, highlight } => {
                self.undo = Some((path, highlight));
                Vec::new()
            }
            Msg::VaultSearch { seq, result } => {
                if seq != self.search.0 {
                    return Vec::new();
                }
                // The popup's inside (the list's width, less its borders).
                let width = (self.size.0.saturating_sub(8).min(90) as usize).saturating_sub(2);
                let list = results::found(seq, &self.search.1, result, width);
                self.apply(vec![Out::Refill {
                    list,
                    keep_selection: true,
                }])
            }
            Msg::Checked { seq, result } => self.checked(seq, result),
            Msg::DraftSaved { id } => self.draft_saved(id),
            Msg::Reading { state, problems } => {
                let session = state.session.clone();
                self.reading = Some(*state);
                self.reading_doc = None;
                self.tell_browser_opened();
                if !problems.is_empty() {
                    self.status = Status::error(problems.join("; "));
                }
                self.send_paper(PaperMsg::Restore(session))
            }
            Msg::VaultMcp(Err(e)) => {
                self.status = Status::error(format!("vault MCP cannot start: {e}"));
                Vec::new()
            }
        }
    }

    /// Carries out what a component asked for; the runtime's share comes back.
    fn apply(&mut self, outs: Vec<Out>) -> Vec<Effect> {
        let mut fx = Vec::new();
        for out in outs {
            match out {
                Out::Run(e) => fx.push(e),
                Out::Status(s) => self.status = s,
                Out::Focus(p) => self.focus = p,
                Out::Jump(jump) => {
                    let kind = self.kind_of(&jump.to.path);
                    fx.extend(self.send_paper(PaperMsg::Jump(jump, kind)));
                }
                Out::OpenEntry { path } => {
                    let jump = self.entry_place(path);
                    let kind = self.kind_of(&jump.to.path);
                    fx.extend(self.send_paper(PaperMsg::Jump(jump, kind)));
                }
                Out::Prompt { kind, text } => self.input.open_prompt(kind, text),
                Out::Await(wait) => self.input.wait_for(wait),
                Out::Overlay(request) => {
                    // Another overlay replaces the thread list: its filter prompt goes too.
                    if self.threads_prompt() {
                        self.input.take_prompt();
                        fx.extend(self.send_chat(ChatMsg::FindThreads(FindThreads::Kept)));
                    }
                    let help = super::overlay::view::help_lines(&self.keymap).len();
                    self.overlay = Some(Overlay::open(request, help));
                }
                Out::Refill {
                    list,
                    keep_selection,
                } => {
                    if let Some(o) = self.overlay.as_mut() {
                        o.refill(list, keep_selection);
                    }
                }
                Out::Section(i) => fx.extend(self.send_paper(PaperMsg::Outline(i))),
                Out::ShowThread { thread, at: None } => {
                    fx.extend(self.send_chat(ChatMsg::ShowThread(thread)))
                }
                Out::ShowThread {
                    thread,
                    at: Some((turn, cited)),
                } => fx.extend(self.send_chat(ChatMsg::ShowThreadAt {
                    thread,
                    turn,
                    cited,
                })),
                Out::ClosePermission { turn } => {
                    if self.overlay.as_ref().and_then(Overlay::permission_turn) == Some(turn) {
                        self.overlay = None;
                    }
                }
                Out::UseSelection(chip) => fx.extend(self.send_chat(ChatMsg::UseSelection(chip))),
                Out::QuickChat { chips, fresh } => fx.extend(self.open_quick(chips, fresh)),
                Out::RemoveQuick => self.quick = None,
                Out::HideQuick => {
                    if let Some(q) = self.quick.take()
                        && let Some(old) = self.closed_quick.replace(q)
                    {
                        fx.extend(old.dropped());
                    }
                }
                Out::Quit => {
                    // The reading state first: nothing runs after Quit.
                    self.sync_reading();
                    if self.reading.is_some() {
                        fx.push(self.save_reading(true));
                    }
                    self.quit = true;
                    fx.push(Effect::Quit);
                }
            }
        }
        fx
    }

    /// Opens the Quick Chat on `chips`: the closed one again when it was about the same
    /// chips (unless `fresh`), else a new one (the closed one is then forgotten).
    fn open_quick(&mut self, chips: Vec<Chip>, fresh: bool) -> Vec<Effect> {
        let mut fx = Vec::new();
        if let Some(old) = self.quick.take() {
            fx.extend(old.dropped());
        }
        match self.closed_quick.take() {
            Some(q) if !fresh && q.chips() == chips.as_slice() => {
                self.quick = Some(q);
                self.status = Status::info("Quick Chat reopened (space q in it starts over)");
            }
            closed => {
                fx.extend(closed.iter().flat_map(Quick::dropped));
                self.quick = Some(Quick::new(chips));
            }
        }
        fx
    }

    /// `space Q`: the Quick Chat closed last, whatever it was about.
    pub(super) fn reopen_quick(&mut self) -> Vec<Effect> {
        match self.closed_quick.take() {
            Some(q) => {
                let mut fx = Vec::new();
                if let Some(old) = self.quick.replace(q) {
                    fx.extend(old.dropped());
                }
                self.status = Status::info("Quick Chat reopened");
                fx
            }
            None => {
                self.status = Status::info("no closed Quick Chat to reopen (space q asks one)");
                Vec::new()
            }
        }
    }

    /// The kind of the document at `path`: as listed, else by its extension.
    fn kind_of(&self, path: &str) -> EntryKind {
        self.browser
            .kind_of(path)
            .unwrap_or(if path.to_lowercase().ends_with(".pdf") {
                EntryKind::Paper
            } else {
                EntryKind::File
            })
    }

    /// A message for the paper pane, at the size its text area has; the reading chip follows.
    fn send_paper(&mut self, msg: PaperMsg) -> Vec<Effect> {
        if matches!(msg, PaperMsg::Jump(..))
            && !(self.focus == Pane::Vault && self.checklist_shown())
        {
            // A jump focuses the paper: its text area is the one of that layout (the shown
            // checklist keeps the focus, and the paper its place beside it).
            self.focus = Pane::Paper;
        }
        let a = self.areas();
        let view = (a.paper_text.width as usize, a.paper_text.height as usize);
        let out = self.paper.update(msg, view);
        let mut fx = self.apply(out);
        let reading = self.paper.reading();
        fx.extend(self.send_chat(ChatMsg::Reading(reading)));
        fx
    }

    fn send_chat(&mut self, msg: ChatMsg) -> Vec<Effect> {
        let out = self.chat.update(msg);
        self.apply(out)
    }

    /// The panes' places on the screen as the view draws them.
    pub fn areas(&self) -> layout::Areas {
        layout::layout(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.focus,
            self.paper.maximised(),
            self.checklist_shown(),
        )
    }

    pub fn focus(&self) -> Pane {
        self.focus
    }

    /// The overlay that is open.
    pub fn overlay(&self) -> Option<OverlayKind> {
        self.overlay.as_ref().map(Overlay::kind)
    }

    /// What the thread list's filter found, while the list is open with one.
    pub fn thread_filter(&self) -> Option<&crate::tui::thread::find::ThreadFilter> {
        self.overlay
            .as_ref()
            .filter(|o| o.kind() == OverlayKind::Threads)
            .and(self.chat.thread_filter())
    }

    /// The citation checklist, shown or hidden.
    pub fn checklist(&self) -> Option<&crate::tui::checklist::Checklist> {
        self.checklist.as_ref()
    }

    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// The document open in the paper pane.
    pub fn paper(&self) -> Option<&Doc> {
        self.paper.doc()
    }

    /// The paper pane (its image view, marks and jump list).
    pub fn paper_pane(&self) -> &Paper {
        &self.paper
    }

    pub fn chat(&self) -> &Chat {
        &self.chat
    }

    /// The Quick Chat popup, when it is open.
    pub fn quick(&self) -> Option<&Quick> {
        self.quick.as_ref()
    }

    /// The vault MCP server's address while it runs.
    pub fn vault_mcp(&self) -> Option<&str> {
        self.vault_mcp.as_deref()
    }

    /// The status bar's message.
    pub fn status(&self) -> &str {
        &self.status.text
    }

    /// How the status bar's message reads (its colour, how long it stays).
    pub fn status_level(&self) -> Level {
        self.status.level
    }

    /// Load problems (keymap, theme), shown in the help.
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Whether the app is quitting.
    pub fn quitting(&self) -> bool {
        self.quit
    }

    /// Where the paper pane's cursor is.
    pub fn location(&self) -> Option<Location> {
        self.paper.location()
    }

    /// The request the chat's chips describe: exactly what the grant will contain.
    pub fn context_request(&self) -> ContextRequest {
        self.chat.context_request()
    }

    /// The request the Quick Chat's chips describe (surface `quick`).
    pub fn quick_request(&self) -> Option<ContextRequest> {
        let remote = matches!(self.chat.agent(), AgentState::Ready { remote: true, .. });
        Some(self.quick.as_ref()?.request(remote))
    }
}

#[cfg(test)]
mod tests;
