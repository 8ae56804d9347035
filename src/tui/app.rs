//! The one application state and its `update(Msg) -> Vec<Effect>`. No IO here: effects are run
//! by the runtime in tasks, which report back as messages.

use std::collections::BTreeMap;

use ratatui::crossterm::event::{
    Event, KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;

use crate::context::{ContextRequest, CurrentPaper, Selection};
use crate::vault::EntryKind;
use crate::vault::indexer::Progress;
use crate::vault::uri::{self, Target};

use super::action::Action;
use super::browser::{Browser, BrowserEntry};
use super::chat::{
    ChatEvent, Item, ItemKind, PermissionKind, PermissionRequest, SourceRef, Thread,
};
use super::keymap::{Key, Keymap, Lookup, Mode};
use super::paper::{DocInfo, PaperView, Slot, Visual};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Vault,
    Paper,
    Chat,
}

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
    },
    Permission {
        turn: u64,
        request: PermissionRequest,
    },
}

/// A place in a document, for the jump list and marks.
#[derive(Debug, Clone, PartialEq)]
pub struct Location {
    pub path: String,
    pub page: u32,
    pub row: usize,
}

/// A one-line text prompt in the status bar (filter, search).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Filter,
    Search,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Awaiting {
    SetMark,
    JumpMark,
}

/// What the grant will contain, one chip each (SPEC §4: mentions, current paper, selection).
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
            Chip::Mention(p) => format!("@{p}"),
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

#[derive(Debug, Clone, PartialEq)]
pub struct MentionPopup {
    pub query: String,
    /// (path, display) of the best matches.
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

/// The grant preview shown in the chat status line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanPreview {
    pub mode: String,
    pub sources: usize,
    pub omitted: usize,
    pub fingerprint: String,
}

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

pub struct ChatState {
    pub threads: Vec<Thread>,
    pub current: usize,
    pub input: TextArea<'static>,
    pub composing: bool,
    pub chips: Vec<Chip>,
    /// The reading/selection chips the user removed stay removed for that paper.
    pub dismissed_reading: Option<String>,
    pub mention: Option<MentionPopup>,
    /// Selected item (index into the thread's items), `None` = follow the end.
    pub selected: Option<usize>,
    pub scroll_from_end: usize,
    pub turn: Option<u64>,
    /// The thread (id) the running turn belongs to: its events go there even when the user
    /// switched threads meanwhile.
    pub turn_thread: Option<String>,
    pub preview: Option<PlanPreview>,
    pub agent: AgentState,
}

impl ChatState {
    pub fn thread(&self) -> Option<&Thread> {
        self.threads.get(self.current)
    }

    pub fn thread_mut(&mut self) -> Option<&mut Thread> {
        self.threads.get_mut(self.current)
    }
}

/// The Quick Chat popup (`space q` on the paper): one question about the selection or page,
/// asked through the same context pipeline (surface `quick`) without leaving the paper. Its
/// turn runs on a scratch transcript; `promote` turns it into a chat thread.
pub struct QuickChat {
    pub input: TextArea<'static>,
    /// The current page and the selection: exactly what the grant will contain.
    pub chips: Vec<Chip>,
    /// The question and its streamed answer, sources and tool cards (rendered like the chat).
    pub thread: Thread,
    /// The turn that is running.
    pub turn: Option<u64>,
    /// The turn whose answer is shown (what `promote` and closing refer to).
    pub asked: Option<u64>,
    /// Selected item of `thread` (sources, tool cards), `None` = follow the end.
    pub selected: Option<usize>,
}

impl QuickChat {
    /// Typing the question: until it is sent.
    pub fn composing(&self) -> bool {
        self.asked.is_none()
    }
}

pub fn new_input() -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_placeholder_text("Ask about the paper… (@ to mention, enter to send)");
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_wrap_mode(ratatui_textarea::WrapMode::Word);
    t
}

/// Everything the runtime reports back to the state.
#[derive(Debug)]
pub enum Msg {
    Term(Event),
    Key(KeyEvent),
    Resize(u16, u16),
    Scanned(Result<Vec<BrowserEntry>, String>),
    Index(Progress),
    IndexDone(Result<String, String>),
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
    /// The Quick Chat became this thread on disk (or why it could not).
    Promoted(Result<Thread, String>),
    Status(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Scan,
    /// Start the configured agent process (reports `Msg::Agent`).
    StartAgent,
    /// Read the vault's chat threads (reports `Msg::Threads`).
    LoadThreads,
    Index,
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
    Suspend,
    Quit,
}

pub struct AppState {
    pub vault_name: String,
    pub keymap: Keymap,
    pub focus: Pane,
    pub overlay: Option<Overlay>,
    pub browser: Browser,
    pub paper: Option<PaperView>,
    pub chat: ChatState,
    pub quick: Option<QuickChat>,
    pub prompt: Option<Prompt>,
    pub awaiting: Option<Awaiting>,
    pub pending: Vec<Key>,
    pub count: Option<u32>,
    pub status: String,
    pub errors: Vec<String>,
    pub index: Option<(usize, usize)>,
    pub size: (u16, u16),
    pub jumps: Vec<Location>,
    pub jump_pos: usize,
    pub marks: BTreeMap<char, Location>,
    pub quit: bool,
    next_req: u64,
    plan_seq: u64,
}

/// Puts what the chips show into a request: the chips are the grant.
fn add_chips(req: &mut ContextRequest, chips: &[Chip]) {
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

impl AppState {
    pub fn new(vault_name: String, keymap: Keymap, agent: AgentState) -> AppState {
        let errors = keymap.errors.clone();
        let status = match &agent {
            AgentState::Unavailable(why) => format!("agent unavailable: {why}"),
            AgentState::Starting { .. } | AgentState::Ready { .. } => String::new(),
        };
        AppState {
            vault_name,
            keymap,
            focus: Pane::Vault,
            overlay: None,
            browser: Browser::default(),
            paper: None,
            chat: ChatState {
                threads: vec![Thread::new("new".into())],
                current: 0,
                input: new_input(),
                composing: false,
                chips: Vec::new(),
                dismissed_reading: None,
                mention: None,
                selected: None,
                scroll_from_end: 0,
                turn: None,
                turn_thread: None,
                preview: None,
                agent,
            },
            quick: None,
            prompt: None,
            awaiting: None,
            pending: Vec::new(),
            count: None,
            status,
            errors,
            index: None,
            size: (80, 24),
            jumps: Vec::new(),
            jump_pos: 0,
            marks: BTreeMap::new(),
            quit: false,
            next_req: 0,
            plan_seq: 0,
        }
    }

    /// The effects to run at start: scan the vault, bring its index up to date, restore the
    /// chat threads and start the agent (when one is configured).
    pub fn start(&mut self) -> Vec<Effect> {
        let mut fx = vec![Effect::Scan, Effect::Index, Effect::LoadThreads];
        if matches!(self.chat.agent, AgentState::Starting { .. }) {
            fx.push(Effect::StartAgent);
        }
        fx
    }

    fn req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }

    pub fn areas(&self) -> super::view::Areas {
        super::view::layout(Rect::new(0, 0, self.size.0, self.size.1), self)
    }

    /// Modes to look keys up in, most specific first.
    pub fn mode_chain(&self) -> Vec<Mode> {
        let mut chain = Vec::new();
        match &self.overlay {
            Some(Overlay::Permission { .. }) => return vec![Mode::Permission, Mode::Global],
            Some(_) => chain.push(Mode::List),
            // The Quick Chat popup: the input's keys while the question is typed, then the
            // list's (j/k over the sources, enter, promote, esc).
            None => {
                if let Some(q) = &self.quick {
                    let mode = if q.composing() {
                        Mode::Input
                    } else {
                        Mode::List
                    };
                    return vec![mode, Mode::Global];
                }
            }
        }
        if self.prompt.is_some() {
            chain.push(Mode::Prompt);
        }
        chain.push(self.focus_mode());
        chain.push(Mode::Global);
        chain
    }

    pub fn focus_mode(&self) -> Mode {
        match self.focus {
            Pane::Vault => Mode::Vault,
            Pane::Paper if self.paper.as_ref().is_some_and(|p| p.visual.is_some()) => Mode::Visual,
            Pane::Paper => Mode::Paper,
            Pane::Chat if self.chat.mention.is_some() => Mode::Mention,
            Pane::Chat if self.chat.composing => Mode::Input,
            Pane::Chat => Mode::Chat,
        }
    }

    fn typing(&self) -> bool {
        if self.overlay.is_none()
            && let Some(q) = &self.quick
        {
            return q.composing();
        }
        self.overlay.is_none() && (self.prompt.is_some() || self.focus_mode().is_text())
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        // The grant preview follows the chips whatever changed them (opening a paper, turning
        // a page moves the reading chip): what the status line shows is what a send grants.
        let chips = self.chat.chips.clone();
        let mut fx = self.handle(msg);
        if self.chat.chips != chips && !fx.iter().any(|e| matches!(e, Effect::Plan { .. })) {
            fx.extend(self.plan_effect());
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
                self.follow_paper();
                Vec::new()
            }
            Msg::Term(Event::FocusGained) => vec![Effect::Scan],
            Msg::Term(Event::Paste(text)) => {
                if let Some(q) = self.quick.as_mut().filter(|q| q.composing()) {
                    q.input.insert_str(text);
                } else if self.focus == Pane::Chat && self.chat.composing {
                    self.chat.input.insert_str(text);
                }
                Vec::new()
            }
            Msg::Term(Event::Mouse(m)) => self.on_mouse(m),
            Msg::Term(_) => Vec::new(),
            Msg::Key(k) => self.on_key(k),
            Msg::Scanned(Ok(entries)) => {
                self.browser.set_entries(entries);
                Vec::new()
            }
            Msg::Scanned(Err(e)) => {
                self.status = format!("cannot scan the vault: {e}");
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
            Msg::IndexDone(r) => {
                let had_work = self.index.is_some();
                self.index = None;
                match r {
                    Ok(summary) => {
                        if had_work {
                            self.status = summary;
                        }
                        // Titles and authors come from the fresh records.
                        vec![Effect::Scan]
                    }
                    Err(e) => {
                        self.status = format!("indexing failed: {e}");
                        Vec::new()
                    }
                }
            }
            Msg::PaperOpened { req, result } => self.on_paper_opened(req, result),
            Msg::Pages { req, pages } => {
                let Some(p) = self.paper.as_mut().filter(|p| p.req == req) else {
                    return Vec::new();
                };
                let reflow = p.kind == EntryKind::Paper;
                for (n, r) in pages {
                    if let Some(slot) = p.pages.get_mut(n as usize - 1) {
                        *slot = match r {
                            // A PDF's line breaks are the printed column's, not the pane's.
                            Ok(t) if reflow => Slot::Text(super::text::reflow(t)),
                            Ok(t) => Slot::Text(t),
                            Err(e) => Slot::Failed(e),
                        };
                    }
                }
                p.settle_quote();
                if !p.search.query.is_empty() {
                    p.research();
                }
                self.follow_paper();
                Vec::new()
            }
            Msg::Plan { seq, preview } => {
                if seq == self.plan_seq {
                    self.chat.preview = Some(preview);
                }
                Vec::new()
            }
            Msg::Chat { turn, event } => self.on_chat(turn, event),
            Msg::TurnDone { turn } => {
                if let Some(q) = self.quick.as_mut()
                    && q.turn == Some(turn)
                {
                    q.turn = None;
                }
                if self.chat.turn == Some(turn) {
                    self.chat.turn = None;
                    self.chat.turn_thread = None;
                }
                Vec::new()
            }
            Msg::Agent(state) => {
                // Starting and ready show in the chat's status line; only a failure is worth
                // replacing the app's status message (e.g. the indexer's summary) for.
                if let AgentState::Unavailable(why) = &state {
                    self.status = format!("agent unavailable: {why}");
                }
                self.chat.agent = state;
                // Locality (remote agents) changes the plan: refresh the grant preview.
                self.plan_effect()
            }
            Msg::Threads(threads) => {
                self.restore_threads(threads);
                Vec::new()
            }
            Msg::Promoted(Ok(thread)) => {
                self.status = format!("Quick Chat promoted to the thread \"{}\"", thread.title);
                self.chat.threads.push(thread);
                self.chat.current = self.chat.threads.len() - 1;
                self.chat.selected = None;
                self.chat.scroll_from_end = 0;
                self.focus = Pane::Chat;
                Vec::new()
            }
            Msg::Promoted(Err(e)) => {
                self.status = format!("cannot promote the Quick Chat: {e}");
                Vec::new()
            }
            Msg::Status(s) => {
                self.status = s;
                Vec::new()
            }
        }
    }

    fn on_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        let Some(key) = Key::from_event(&ev) else {
            return Vec::new();
        };
        if let Some(wait) = self.awaiting.take() {
            if let Some(c) = key.char() {
                return self.on_mark(wait, c);
            }
            return Vec::new();
        }
        let typing = self.typing();
        // Counts: digits before a command, outside text entry, unless a digit is bound.
        if !typing
            && self.pending.is_empty()
            && let Some(c) = key.char()
            && c.is_ascii_digit()
            && (c != '0' || self.count.is_some())
            && self.keymap.lookup(&self.mode_chain(), &[key]) == Lookup::Unbound
        {
            let d = c.to_digit(10).unwrap_or(0);
            self.count = Some(self.count.unwrap_or(0).saturating_mul(10).saturating_add(d));
            return Vec::new();
        }
        self.pending.push(key);
        let mut chain = self.mode_chain();
        // While typing, plain characters are text: global single keys and leader chords
        // (space …) must not fire.
        let first = self.pending[0];
        if typing && first.char().is_some() {
            chain.retain(|m| {
                *m != Mode::Global && !(self.prompt.is_some() && *m == self.focus_mode())
            });
        }
        match self.keymap.lookup(&chain, &self.pending) {
            Lookup::Action(a) => {
                self.pending.clear();
                let count = self.count.take();
                self.dispatch(a, count)
            }
            Lookup::Pending => Vec::new(),
            Lookup::Unbound => {
                let keys = std::mem::take(&mut self.pending);
                self.count = None;
                if typing && keys.len() == 1 {
                    return self.type_key(ev);
                }
                if keys.len() > 1 {
                    self.status = format!("{} is not bound", super::keymap::chord_text(&keys));
                }
                Vec::new()
            }
        }
    }

    /// A key that is text: into the prompt or the message being written.
    fn type_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if let Some(p) = self.prompt.as_mut() {
            let key = Key::from_event(&ev);
            match key.map(|k| k.code) {
                Some(super::keymap::Code::Backspace) => {
                    p.text.pop();
                }
                _ => {
                    if let Some(c) = key.and_then(|k| k.char()) {
                        p.text.push(c);
                    }
                }
            }
            if p.kind == PromptKind::Filter {
                self.browser.filter = p.text.clone();
                self.browser.refilter();
            }
            return Vec::new();
        }
        if let Some(q) = self.quick.as_mut().filter(|q| q.composing()) {
            q.input.input(ev);
            return Vec::new();
        }
        if self.focus == Pane::Chat && self.chat.composing {
            let c = Key::from_event(&ev).and_then(|k| k.char());
            self.chat.input.input(ev);
            if c == Some('@') && self.chat.mention.is_none() {
                self.chat.mention = Some(MentionPopup {
                    query: String::new(),
                    items: Vec::new(),
                    selected: 0,
                });
            }
            self.refresh_mention();
        }
        Vec::new()
    }

    /// The text after the last `@` before the cursor drives the popup; no `@` closes it.
    fn refresh_mention(&mut self) {
        if self.chat.mention.is_none() {
            return;
        }
        let ratatui_textarea::DataCursor(row, col) = self.chat.input.cursor();
        let line = self
            .chat
            .input
            .lines()
            .get(row)
            .cloned()
            .unwrap_or_default();
        let before: String = line.chars().take(col).collect();
        let Some(at) = before.rfind('@') else {
            self.chat.mention = None;
            return;
        };
        let query = before[at + 1..].to_string();
        if query.contains(char::is_whitespace) {
            self.chat.mention = None;
            return;
        }
        let items = super::mention::complete(&self.browser.entries, &query, 50);
        if let Some(m) = self.chat.mention.as_mut() {
            m.query = query;
            m.items = items;
            m.selected = m.selected.min(m.items.len().saturating_sub(1));
        }
    }

    fn on_mark(&mut self, wait: Awaiting, c: char) -> Vec<Effect> {
        match wait {
            Awaiting::SetMark => {
                if let Some(loc) = self.location() {
                    self.marks.insert(c, loc);
                    self.status = format!("mark {c} set");
                }
                Vec::new()
            }
            Awaiting::JumpMark => match self.marks.get(&c).cloned() {
                Some(loc) => self.jump(loc, None, None),
                None => {
                    self.status = format!("no mark {c}");
                    Vec::new()
                }
            },
        }
    }

    pub fn location(&self) -> Option<Location> {
        let p = self.paper.as_ref()?;
        Some(Location {
            path: p.path.clone(),
            page: p.page,
            row: p.cursor_row,
        })
    }

    /// The mouse, a bonus on top of the keyboard: the wheel scrolls the pane under the
    /// pointer, a left click focuses it and selects (or, selected already, opens) the vault
    /// entry or chat source there. Overlays and the Quick Chat popup are keyboard-only.
    fn on_mouse(&mut self, m: MouseEvent) -> Vec<Effect> {
        use super::mouse::{Hit, WHEEL_ROWS};
        if self.overlay.is_some() || self.quick.is_some() {
            return Vec::new();
        }
        let hit = super::mouse::hit(self, m.column, m.row);
        match m.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                match hit {
                    Hit::Vault(_) => {
                        let d = WHEEL_ROWS as isize;
                        self.browser.move_by(if down { d } else { -d });
                    }
                    Hit::Paper => return self.wheel_paper(down),
                    Hit::Chat(_) => {
                        let s = &mut self.chat.scroll_from_end;
                        *s = if down {
                            s.saturating_sub(WHEEL_ROWS)
                        } else {
                            *s + WHEEL_ROWS
                        };
                    }
                    Hit::Outside => {}
                }
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => {
                let Some(pane) = hit.pane() else {
                    return Vec::new();
                };
                let was = self.focus;
                self.focus = pane;
                let mut fx = match hit {
                    Hit::Vault(Some(i)) if was == Pane::Vault && self.browser.selected == i => {
                        return self.dispatch_vault(Action::Open, 1, None);
                    }
                    Hit::Vault(Some(i)) => {
                        self.browser.selected = i;
                        Vec::new()
                    }
                    Hit::Chat(Some(i)) => {
                        if self
                            .chat
                            .thread()
                            .and_then(|t| t.items.get(i))
                            .is_some_and(|item| item.selectable())
                        {
                            self.chat.selected = Some(i);
                        }
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
                if was != pane {
                    match pane {
                        Pane::Vault => fx.push(Effect::Scan),
                        Pane::Chat => fx.extend(self.plan_effect()),
                        Pane::Paper => {}
                    }
                }
                fx
            }
            _ => Vec::new(),
        }
    }

    /// The wheel over the paper: three rows, the cursor kept in view; past the page's edge,
    /// the next or previous page.
    fn wheel_paper(&mut self, down: bool) -> Vec<Effect> {
        use super::mouse::WHEEL_ROWS;
        let (pw, ph) = self.paper_viewport();
        let Some(p) = self.paper.as_mut() else {
            return Vec::new();
        };
        let h = ph.max(1);
        let rows = p.rows(pw).len();
        let max = rows.saturating_sub(h);
        if down && p.scroll >= max && p.page < p.page_count() {
            return self.dispatch_paper(Action::NextPage, 1, None, pw, ph);
        }
        if !down && p.scroll == 0 && p.page > 1 {
            // From the top row half a page up goes to the end of the previous page.
            p.cursor_row = 0;
            return self.dispatch_paper(Action::HalfPageUp, 1, None, pw, ph);
        }
        p.scroll = if down {
            (p.scroll + WHEEL_ROWS).min(max)
        } else {
            p.scroll.saturating_sub(WHEEL_ROWS)
        };
        p.cursor_row = p
            .cursor_row
            .clamp(p.scroll, p.scroll + h - 1)
            .min(rows.saturating_sub(1));
        Vec::new()
    }

    fn paper_viewport(&self) -> (usize, usize) {
        let a = self.areas();
        (a.paper_text.width as usize, a.paper_text.height as usize)
    }

    fn follow_paper(&mut self) {
        let (_, h) = self.paper_viewport();
        if let Some(p) = self.paper.as_mut() {
            p.follow(h);
        }
    }

    /// Records the current place in the jump list (dropping any forward history).
    fn push_jump(&mut self) {
        if let Some(loc) = self.location() {
            self.jumps.truncate(self.jump_pos);
            if self.jumps.last() != Some(&loc) {
                self.jumps.push(loc);
            }
            self.jump_pos = self.jumps.len();
        }
    }

    /// Goes to a place: the same document moves, another one opens. Always undoable.
    fn jump(
        &mut self,
        loc: Location,
        quote: Option<String>,
        lines: Option<(u32, u32)>,
    ) -> Vec<Effect> {
        self.push_jump();
        self.go(loc, quote, lines)
    }

    fn go(
        &mut self,
        loc: Location,
        quote: Option<String>,
        lines: Option<(u32, u32)>,
    ) -> Vec<Effect> {
        self.focus = Pane::Paper;
        let same = self.paper.as_ref().is_some_and(|p| p.path == loc.path);
        if !same {
            let kind = self
                .browser
                .entries
                .iter()
                .find(|e| e.path == loc.path)
                .map(|e| e.kind)
                .unwrap_or(if loc.path.to_lowercase().ends_with(".pdf") {
                    EntryKind::Paper
                } else {
                    EntryKind::File
                });
            let req = self.req();
            let mut view = PaperView::new(loc.path.clone(), kind, req);
            view.page = loc.page.max(1);
            view.cursor_row = loc.row;
            view.pending_quote = quote.map(|q| (loc.page.max(1), q));
            view.lines = lines;
            self.paper = Some(view);
            self.sync_reading_chip();
            return vec![Effect::OpenPaper {
                req,
                path: loc.path,
                kind,
            }];
        }
        let p = self.paper.as_mut().expect("checked above");
        p.page = loc.page.clamp(1, p.page_count().max(1));
        p.cursor_row = loc.row;
        p.cursor_col = 0;
        p.visual = None;
        p.lines = lines.or(p.lines);
        p.quote = None;
        p.pending_quote = quote.map(|q| (p.page, q));
        p.settle_quote();
        let mut fx = self.ensure_page();
        self.place_highlight();
        self.follow_paper();
        self.sync_reading_chip();
        fx.extend(Vec::new());
        fx
    }

    /// Puts the cursor on the highlighted quote or line range, when there is one.
    fn place_highlight(&mut self) {
        let (w, _) = self.paper_viewport();
        let Some(p) = self.paper.as_mut() else { return };
        let rows = p.rows(w);
        if let Some((page, s, _)) = p.quote
            && page == p.page
        {
            p.cursor_to_offset(&rows, s);
        } else if let Some((a, _)) = p.lines
            && let Some(i) = rows.iter().position(|r| r.line + 1 >= a as usize)
        {
            p.cursor_row = i;
            p.cursor_col = 0;
        }
    }

    /// Asks for the current page when it is not loaded yet.
    fn ensure_page(&mut self) -> Vec<Effect> {
        let Some(p) = self.paper.as_mut() else {
            return Vec::new();
        };
        let i = p.page as usize - 1;
        if p.pages.get(i) == Some(&Slot::Missing) {
            p.pages[i] = Slot::Loading;
            return vec![Effect::LoadPages {
                req: p.req,
                path: p.path.clone(),
                pages: vec![p.page],
            }];
        }
        Vec::new()
    }

    fn on_paper_opened(&mut self, req: u64, result: Result<(u32, DocInfo), String>) -> Vec<Effect> {
        let Some(p) = self.paper.as_mut().filter(|p| p.req == req) else {
            return Vec::new();
        };
        match result {
            Ok((pages, info)) => {
                p.loaded = true;
                p.info = info;
                p.pages = vec![Slot::Missing; pages.max(1) as usize];
                p.page = p.page.clamp(1, pages.max(1));
                let first = p.page;
                let path = p.path.clone();
                for slot in p.pages.iter_mut() {
                    *slot = Slot::Loading;
                }
                // The page asked for first, then the rest in the background.
                let mut order = vec![first];
                order.extend((1..=pages.max(1)).filter(|n| *n != first));
                vec![Effect::LoadPages {
                    req,
                    path,
                    pages: order,
                }]
            }
            Err(e) => {
                p.loaded = true;
                p.pages = vec![Slot::Failed(e.clone())];
                self.status = format!("cannot open {}: {e}", p.path);
                Vec::new()
            }
        }
    }

    fn on_chat(&mut self, turn: u64, event: ChatEvent) -> Vec<Effect> {
        if let Some(q) = self.quick.as_mut()
            && q.turn == Some(turn)
        {
            match event {
                ChatEvent::Permission(request) => {
                    self.overlay = Some(Overlay::Permission { turn, request });
                }
                ev => {
                    let end = matches!(ev, ChatEvent::TurnEnded { .. } | ChatEvent::TurnFailed(_));
                    q.thread.apply(ev);
                    if end {
                        q.turn = None;
                        if matches!(self.overlay, Some(Overlay::Permission { turn: t, .. }) if t == turn)
                        {
                            self.overlay = None;
                        }
                    }
                }
            }
            return Vec::new();
        }
        if self.chat.turn != Some(turn) {
            // A late event of a cancelled or replaced turn.
            return Vec::new();
        }
        let id = self.chat.turn_thread.clone();
        let thread = match id {
            Some(id) => self.chat.threads.iter_mut().find(|t| t.id == id),
            None => self.chat.threads.get_mut(self.chat.current),
        };
        match event {
            ChatEvent::Permission(request) => {
                self.overlay = Some(Overlay::Permission { turn, request });
            }
            ChatEvent::TurnEnded { .. } | ChatEvent::TurnFailed(_) => {
                if let Some(t) = thread {
                    t.apply(event);
                }
                self.chat.turn = None;
                self.chat.turn_thread = None;
                // A permission question of this turn can no longer be answered.
                if matches!(self.overlay, Some(Overlay::Permission { turn: t, .. }) if t == turn) {
                    self.overlay = None;
                }
            }
            ev => {
                if let Some(t) = thread {
                    t.apply(ev);
                }
            }
        }
        Vec::new()
    }

    /// Threads read from disk: when the thread on screen is still the empty one of the start,
    /// they replace it and the most recent one is shown; otherwise they are added to the list.
    fn restore_threads(&mut self, threads: Vec<Thread>) {
        if threads.is_empty() {
            return;
        }
        let fresh = self.chat.threads.len() == 1
            && self.chat.threads[0].items.is_empty()
            && self.chat.turn.is_none();
        if fresh {
            self.chat.threads = threads;
            self.chat.current = self.chat.threads.len() - 1;
        } else {
            for t in threads {
                if !self.chat.threads.iter().any(|o| o.id == t.id) {
                    self.chat.threads.insert(0, t);
                    self.chat.current += 1;
                }
            }
        }
        self.chat.selected = None;
    }

    /// Keeps the "reading" chip in step with the open paper (unless the user removed it).
    fn sync_reading_chip(&mut self) {
        let reading = self
            .paper
            .as_ref()
            .map(|p| (p.path.clone(), p.kind, p.page));
        self.chat
            .chips
            .retain(|c| !matches!(c, Chip::Reading { .. }));
        if let Some((path, kind, page)) = reading
            && self.chat.dismissed_reading.as_deref() != Some(path.as_str())
        {
            let page = (kind == EntryKind::Paper).then_some(page);
            self.chat.chips.insert(0, Chip::Reading { path, page });
        }
    }

    /// The request the chips describe: exactly what the grant will contain.
    pub fn context_request(&self) -> ContextRequest {
        let mut req = ContextRequest {
            text: self.chat.input.lines().join("\n"),
            ..ContextRequest::default()
        };
        if let AgentState::Ready { remote: true, .. } = self.chat.agent {
            req.locality = crate::context::Locality::Remote;
        }
        add_chips(&mut req, &self.chat.chips);
        req
    }

    fn plan_effect(&mut self) -> Vec<Effect> {
        self.plan_seq += 1;
        vec![Effect::Plan {
            seq: self.plan_seq,
            request: self.context_request(),
        }]
    }

    fn dispatch(&mut self, action: Action, count: Option<u32>) -> Vec<Effect> {
        let n = count.unwrap_or(1).max(1) as usize;
        let (pw, ph) = self.paper_viewport();
        // Overlays take list navigation first.
        if let Some(fx) = self.dispatch_overlay(action, n, count) {
            return fx;
        }
        if let Some(fx) = self.dispatch_quick(action, n) {
            return fx;
        }
        if let Some(p) = self.prompt.clone() {
            match action {
                Action::Open => {
                    self.prompt = None;
                    if p.kind == PromptKind::Search {
                        return self.run_search(p.text);
                    }
                    return Vec::new();
                }
                Action::Cancel => {
                    self.prompt = None;
                    if p.kind == PromptKind::Filter {
                        self.browser.filter.clear();
                        self.browser.refilter();
                    }
                    return Vec::new();
                }
                _ => {}
            }
        }
        match action {
            Action::Quit => {
                self.quit = true;
                vec![Effect::Quit]
            }
            Action::Suspend => vec![Effect::Suspend],
            Action::Help => {
                self.overlay = Some(Overlay::Help { scroll: 0 });
                Vec::new()
            }
            Action::Cancel => {
                self.pending.clear();
                self.count = None;
                if self.chat.mention.take().is_some() {
                    return Vec::new();
                }
                if self.chat.composing && self.focus == Pane::Chat {
                    self.chat.composing = false;
                    return Vec::new();
                }
                if let Some(p) = self.paper.as_mut()
                    && p.visual.take().is_some()
                {
                    return Vec::new();
                }
                if let Some(p) = self.paper.as_mut() {
                    p.search.current = None;
                    p.quote = None;
                }
                self.status.clear();
                Vec::new()
            }
            Action::FocusNext | Action::FocusPrev => {
                let order = [Pane::Vault, Pane::Paper, Pane::Chat];
                let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
                let j = if action == Action::FocusNext {
                    (i + 1) % 3
                } else {
                    (i + 2) % 3
                };
                self.focus = order[j];
                if self.focus == Pane::Vault {
                    return vec![Effect::Scan];
                }
                Vec::new()
            }
            Action::FocusVault => {
                self.focus = Pane::Vault;
                vec![Effect::Scan]
            }
            Action::FocusPaper => {
                self.focus = Pane::Paper;
                Vec::new()
            }
            Action::FocusChat => {
                self.focus = Pane::Chat;
                self.plan_effect()
            }
            Action::Compose => {
                self.focus = Pane::Chat;
                self.chat.composing = true;
                self.plan_effect()
            }
            _ => match self.focus {
                Pane::Vault => self.dispatch_vault(action, n, count),
                Pane::Paper => self.dispatch_paper(action, n, count, pw, ph),
                Pane::Chat => self.dispatch_chat(action, n, count),
            },
        }
    }

    fn dispatch_overlay(
        &mut self,
        action: Action,
        n: usize,
        count: Option<u32>,
    ) -> Option<Vec<Effect>> {
        let overlay = self.overlay.as_ref()?;
        let h = self.size.1.saturating_sub(6) as usize;
        let len = |o: &Overlay, s: &AppState| match o {
            Overlay::Outline { .. } => s.paper.as_ref().map_or(0, |p| p.info.sections.len()),
            Overlay::Threads { .. } => s.chat.threads.len(),
            Overlay::Help { .. } => super::view::help_lines(s).len(),
            _ => 0,
        };
        let total = len(overlay, self);
        let overlay = self.overlay.as_mut()?;
        let sel = match overlay {
            Overlay::Help { scroll } => Some(scroll),
            Overlay::Outline { selected } | Overlay::Threads { selected } => Some(selected),
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
        let overlay = self.overlay.clone()?;
        Some(match (overlay, action) {
            (Overlay::Permission { turn, request }, a) => {
                let kind = match a {
                    Action::AllowOnce => PermissionKind::AllowOnce,
                    Action::AllowAlways => PermissionKind::AllowAlways,
                    Action::RejectOnce | Action::Cancel => PermissionKind::RejectOnce,
                    Action::RejectAlways => PermissionKind::RejectAlways,
                    Action::Quit => {
                        self.quit = true;
                        return Some(vec![Effect::Quit]);
                    }
                    _ => return Some(Vec::new()),
                };
                self.overlay = None;
                let option = request
                    .options
                    .iter()
                    .find(|o| o.kind == kind)
                    .map(|o| o.id.clone());
                vec![Effect::AnswerPermission {
                    turn,
                    request: request.id,
                    option,
                }]
            }
            (_, Action::Cancel) => {
                self.overlay = None;
                Vec::new()
            }
            (Overlay::Outline { selected }, Action::Open) => {
                self.overlay = None;
                let Some(p) = self.paper.as_ref() else {
                    return Some(Vec::new());
                };
                let Some(sec) = p.info.sections.get(selected) else {
                    return Some(Vec::new());
                };
                let loc = Location {
                    path: p.path.clone(),
                    page: sec.page,
                    row: 0,
                };
                let title = sec.title.clone();
                let mut fx = self.jump(loc, None, None);
                // Put the cursor on the heading when the page text is here.
                let (w, _) = self.paper_viewport();
                if let Some(p) = self.paper.as_mut()
                    && let Some(t) = p.text(p.page)
                    && let Some(off) = t.find(&title)
                {
                    let rows = p.rows(w);
                    p.cursor_to_offset(&rows, off);
                }
                self.follow_paper();
                fx.extend(Vec::new());
                fx
            }
            (Overlay::Threads { selected }, Action::Open) => {
                self.overlay = None;
                if selected < self.chat.threads.len() {
                    self.chat.current = selected;
                    self.chat.selected = None;
                }
                self.focus = Pane::Chat;
                Vec::new()
            }
            (Overlay::Metadata, Action::Open) => {
                self.overlay = None;
                Vec::new()
            }
            (_, Action::Quit) => {
                self.overlay = None;
                Vec::new()
            }
            (_, Action::Help) => {
                self.overlay = Some(Overlay::Help { scroll: 0 });
                Vec::new()
            }
            _ => Vec::new(),
        })
    }

    fn dispatch_vault(&mut self, action: Action, n: usize, count: Option<u32>) -> Vec<Effect> {
        let h = self.areas().vault.height.saturating_sub(2) as isize;
        match action {
            Action::MoveDown => self.browser.move_by(n as isize),
            Action::MoveUp => self.browser.move_by(-(n as isize)),
            Action::HalfPageDown => self.browser.move_by(h / 2),
            Action::HalfPageUp => self.browser.move_by(-h / 2),
            Action::GotoTop => self.browser.selected = 0,
            Action::GotoPage => {
                let last = self.browser.visible.len().saturating_sub(1);
                self.browser.selected =
                    count.map_or(last, |c| (c as usize).saturating_sub(1).min(last));
            }
            Action::Filter => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::Filter,
                    text: self.browser.filter.clone(),
                })
            }
            Action::TogglePaths => self.browser.show_paths = !self.browser.show_paths,
            Action::Rescan => return vec![Effect::Scan, Effect::Index],
            Action::Open => {
                let Some(e) = self.browser.current().cloned() else {
                    return Vec::new();
                };
                if e.kind == EntryKind::Directory {
                    self.browser.filter = format!("{}/", e.path);
                    self.browser.refilter();
                    self.status = format!("showing {}/ (esc then / to change the filter)", e.path);
                    return Vec::new();
                }
                let page = if self.paper.as_ref().is_some_and(|p| p.path == e.path) {
                    self.paper.as_ref().map_or(1, |p| p.page)
                } else {
                    1
                };
                return self.jump(
                    Location {
                        path: e.path,
                        page,
                        row: 0,
                    },
                    None,
                    None,
                );
            }
            _ => return self.unavailable(action),
        }
        Vec::new()
    }

    fn unavailable(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::NewThread | Action::Threads | Action::Handoff | Action::CancelTurn => {
                self.dispatch_chat(action, 1, None)
            }
            Action::QuickChat => {
                let (pw, ph) = self.paper_viewport();
                self.dispatch_paper(action, 1, None, pw, ph)
            }
            Action::JumpBack | Action::JumpForward => self.dispatch_paper(action, 1, None, 0, 0),
            _ => Vec::new(),
        }
    }

    fn dispatch_paper(
        &mut self,
        action: Action,
        n: usize,
        count: Option<u32>,
        pw: usize,
        ph: usize,
    ) -> Vec<Effect> {
        match action {
            Action::JumpBack => {
                if self.jump_pos == 0 {
                    self.status = "at the start of the jump list".into();
                    return Vec::new();
                }
                if self.jump_pos == self.jumps.len()
                    && let Some(here) = self.location()
                {
                    if self.jumps.last() != Some(&here) {
                        self.jumps.push(here);
                    }
                    self.jump_pos = self.jumps.len() - 1;
                }
                self.jump_pos = self.jump_pos.saturating_sub(1);
                let loc = self.jumps[self.jump_pos].clone();
                return self.go(loc, None, None);
            }
            Action::JumpForward => {
                if self.jump_pos + 1 >= self.jumps.len() {
                    self.status = "at the end of the jump list".into();
                    return Vec::new();
                }
                self.jump_pos += 1;
                let loc = self.jumps[self.jump_pos].clone();
                return self.go(loc, None, None);
            }
            Action::NewThread | Action::Threads | Action::Handoff | Action::CancelTurn => {
                return self.dispatch_chat(action, n, count);
            }
            _ => {}
        }
        let Some(p) = self.paper.as_mut() else {
            self.status = "no paper open: choose one in the vault browser (space f)".into();
            return Vec::new();
        };
        let rows = p.rows(pw);
        let half = (ph / 2).max(1);
        match action {
            Action::MoveDown => p.cursor_row = (p.cursor_row + n).min(rows.len().saturating_sub(1)),
            Action::MoveUp => p.cursor_row = p.cursor_row.saturating_sub(n),
            Action::MoveLeft => p.cursor_col = p.cursor_col.saturating_sub(n),
            Action::MoveRight => p.cursor_col += n,
            Action::HalfPageDown => {
                if p.cursor_row + 1 >= rows.len() && p.page < p.page_count() {
                    p.page += 1;
                    p.cursor_row = 0;
                    p.scroll = 0;
                } else {
                    p.cursor_row = (p.cursor_row + half * n).min(rows.len().saturating_sub(1));
                    p.scroll = (p.scroll + half * n).min(rows.len().saturating_sub(1));
                }
            }
            Action::HalfPageUp => {
                if p.cursor_row == 0 && p.page > 1 {
                    p.page -= 1;
                    p.cursor_row = usize::MAX / 2;
                } else {
                    p.cursor_row = p.cursor_row.saturating_sub(half * n);
                    p.scroll = p.scroll.saturating_sub(half * n);
                }
            }
            Action::NextPage => {
                p.page = (p.page + n as u32).min(p.page_count().max(1));
                p.cursor_row = 0;
                p.scroll = 0;
            }
            Action::PrevPage => {
                p.page = p.page.saturating_sub(n as u32).max(1);
                p.cursor_row = 0;
                p.scroll = 0;
            }
            Action::GotoTop | Action::GotoPage => {
                let target = match (action, count) {
                    (Action::GotoTop, None) => 1,
                    (_, Some(c)) => c,
                    _ => p.page_count().max(1),
                };
                if p.kind == EntryKind::File {
                    // In a note, a count names a line.
                    let line = if action == Action::GotoTop {
                        1
                    } else {
                        count.unwrap_or(u32::MAX)
                    };
                    let loc_row = rows
                        .iter()
                        .position(|r| r.line + 1 >= line as usize)
                        .unwrap_or(rows.len().saturating_sub(1));
                    let path = p.path.clone();
                    let page = p.page;
                    return self.jump(
                        Location {
                            path,
                            page,
                            row: loc_row,
                        },
                        None,
                        None,
                    );
                }
                let path = p.path.clone();
                let page = target.clamp(1, p.page_count().max(1));
                return self.jump(Location { path, page, row: 0 }, None, None);
            }
            Action::Search => {
                self.prompt = Some(Prompt {
                    kind: PromptKind::Search,
                    text: String::new(),
                });
                return Vec::new();
            }
            Action::SearchNext | Action::SearchPrev => {
                return self.step_search(action == Action::SearchNext, n);
            }
            Action::Outline => {
                if p.info.sections.is_empty() {
                    self.status = "this paper has no outline or recognised section headings".into();
                } else {
                    let cur = p
                        .info
                        .sections
                        .iter()
                        .rposition(|s| s.page <= p.page)
                        .unwrap_or(0);
                    self.overlay = Some(Overlay::Outline { selected: cur });
                }
                return Vec::new();
            }
            Action::Metadata => {
                self.overlay = Some(Overlay::Metadata);
                return Vec::new();
            }
            Action::SetMark => {
                self.awaiting = Some(Awaiting::SetMark);
                self.status = "mark: type a letter".into();
                return Vec::new();
            }
            Action::JumpMark => {
                self.awaiting = Some(Awaiting::JumpMark);
                self.status = "jump to mark: type a letter".into();
                return Vec::new();
            }
            Action::VisualChar | Action::VisualLine => {
                let lines = action == Action::VisualLine;
                match p.visual {
                    Some(v) if v.lines == lines => p.visual = None,
                    Some(ref mut v) => v.lines = lines,
                    None => {
                        let anchor = p.cursor_offset(&rows);
                        p.visual = Some(Visual { lines, anchor });
                    }
                }
                return Vec::new();
            }
            Action::QuickChat => {
                let text = p.selected_text(&rows);
                let (path, page, kind) = (p.path.clone(), p.page, p.kind);
                p.visual = None;
                let page = (kind == EntryKind::Paper).then_some(page);
                let mut chips = vec![Chip::Reading {
                    path: path.clone(),
                    page,
                }];
                if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                    chips.push(Chip::Selection { path, page, text });
                }
                return self.open_quick(chips);
            }
            Action::UseSelection => {
                let text = p.selected_text(&rows);
                let (path, page, kind) = (p.path.clone(), p.page, p.kind);
                p.visual = None;
                if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                    let page = (kind == EntryKind::Paper).then_some(page);
                    self.chat
                        .chips
                        .retain(|c| !matches!(c, Chip::Selection { .. }));
                    self.chat.chips.push(Chip::Selection { path, page, text });
                    self.status = "selection added to the next question".into();
                }
                self.focus = Pane::Chat;
                self.chat.composing = true;
                return self.plan_effect();
            }
            _ => return Vec::new(),
        }
        // Movement: clamp, load the page if needed, keep the cursor in view.
        let rows = p.rows(pw);
        p.cursor_row = p.cursor_row.min(rows.len().saturating_sub(1));
        if let Some(r) = rows.get(p.cursor_row) {
            let max = p
                .text(p.page)
                .map_or(0, |t| t[r.start..r.end].chars().count());
            p.cursor_col = p.cursor_col.min(max.saturating_sub(1));
        }
        let mut fx = self.ensure_page();
        self.follow_paper();
        self.sync_reading_chip();
        fx.extend(Vec::new());
        fx
    }

    fn run_search(&mut self, query: String) -> Vec<Effect> {
        let Some(p) = self.paper.as_mut() else {
            return Vec::new();
        };
        p.search.query = query.clone();
        p.search.current = None;
        p.research();
        if p.search.hits.is_empty() {
            let loading = p
                .pages
                .iter()
                .any(|s| matches!(s, Slot::Loading | Slot::Missing));
            self.status = if loading {
                format!("no match for {query:?} yet (pages still loading)")
            } else {
                format!("no match for {query:?}")
            };
            return Vec::new();
        }
        self.step_search(true, 1)
    }

    fn step_search(&mut self, forward: bool, n: usize) -> Vec<Effect> {
        let (w, _) = self.paper_viewport();
        let Some(p) = self.paper.as_mut() else {
            return Vec::new();
        };
        let hits = &p.search.hits;
        if hits.is_empty() {
            self.status = if p.search.query.is_empty() {
                "no search: / to search".into()
            } else {
                format!("no match for {:?}", p.search.query)
            };
            return Vec::new();
        }
        let rows = p.rows(w);
        let here = (p.page, p.cursor_offset(&rows));
        let mut idx = match p.search.current {
            Some(c) => c,
            None => {
                // The first hit after (or before) the cursor.
                let after = hits.iter().position(|h| (h.page, h.start) > here);
                match (forward, after) {
                    (true, Some(i)) => i,
                    (true, None) => 0,
                    (false, Some(i)) => (i + hits.len() - 1) % hits.len(),
                    (false, None) => hits.len() - 1,
                }
            }
        };
        let first_step = p.search.current.is_none();
        for _ in 0..(if first_step { n - 1 } else { n }) {
            idx = if forward {
                (idx + 1) % hits.len()
            } else {
                (idx + hits.len() - 1) % hits.len()
            };
        }
        p.search.current = Some(idx);
        let hit = hits[idx].clone();
        self.status = format!(
            "match {} of {} for {:?}",
            idx + 1,
            hits.len(),
            p.search.query
        );
        let changes_page = hit.page != p.page;
        if changes_page {
            self.push_jump();
        }
        let p = self.paper.as_mut().expect("checked above");
        p.page = hit.page;
        let rows = p.rows(w);
        p.cursor_to_offset(&rows, hit.start);
        self.follow_paper();
        self.sync_reading_chip();
        Vec::new()
    }

    fn dispatch_chat(&mut self, action: Action, n: usize, _count: Option<u32>) -> Vec<Effect> {
        match action {
            Action::Send => return self.send(),
            Action::Newline => self.chat.input.insert_newline(),
            // The input's ctrl-x shadows the global cancel_turn: while a turn runs it cancels
            // (as the status line promises), otherwise it removes a chip.
            Action::RemoveChip if self.chat.turn.is_some() => {
                return self.dispatch_chat(Action::CancelTurn, n, None);
            }
            Action::RemoveChip => {
                if let Some(c) = self.chat.chips.pop() {
                    if let Chip::Reading { path, .. } = &c {
                        self.chat.dismissed_reading = Some(path.clone());
                    }
                    self.status = format!("removed {}", c.label());
                    return self.plan_effect();
                }
            }
            Action::MentionNext | Action::MentionPrev => {
                if let Some(m) = self.chat.mention.as_mut() {
                    let len = m.items.len().max(1);
                    m.selected = if action == Action::MentionNext {
                        (m.selected + 1) % len
                    } else {
                        (m.selected + len - 1) % len
                    };
                }
            }
            Action::MentionAccept => return self.accept_mention(),
            Action::NewThread => {
                // A local id until the first turn: the runner creates the thread on disk then.
                let n = self
                    .chat
                    .threads
                    .iter()
                    .filter(|t| t.id.starts_with("new"))
                    .count();
                self.chat
                    .threads
                    .push(Thread::new(format!("new-{}", n + 1)));
                self.chat.current = self.chat.threads.len() - 1;
                self.chat.selected = None;
                self.focus = Pane::Chat;
                self.chat.composing = true;
                return self.plan_effect();
            }
            Action::Threads => {
                self.overlay = Some(Overlay::Threads {
                    selected: self.chat.current,
                })
            }
            Action::NextThread => {
                self.chat.current = (self.chat.current + 1) % self.chat.threads.len().max(1)
            }
            Action::PrevThread => {
                let len = self.chat.threads.len().max(1);
                self.chat.current = (self.chat.current + len - 1) % len;
            }
            Action::CancelTurn => match self.chat.turn.take() {
                Some(turn) => {
                    let id = self.chat.turn_thread.take();
                    if let Some(t) = self
                        .chat
                        .threads
                        .iter_mut()
                        .find(|t| Some(&t.id) == id.as_ref())
                    {
                        t.items
                            .push(Item::new(ItemKind::Notice("turn cancelled".into())));
                    }
                    if matches!(self.overlay, Some(Overlay::Permission { turn: t, .. }) if t == turn)
                    {
                        self.overlay = None;
                    }
                    return vec![Effect::CancelTurn { turn }];
                }
                None => self.status = "no turn is running".into(),
            },
            Action::Handoff => return self.handoff(),
            // Quick Chat is about the paper (its page or selection), whichever pane has focus.
            Action::QuickChat => {
                let (pw, ph) = self.paper_viewport();
                return self.dispatch_paper(action, n, None, pw, ph);
            }
            Action::MoveDown | Action::MoveUp | Action::GotoTop | Action::GotoPage => {
                self.move_chat_selection(action, n)
            }
            Action::HalfPageDown => {
                self.chat.scroll_from_end = self.chat.scroll_from_end.saturating_sub(10 * n)
            }
            Action::HalfPageUp => self.chat.scroll_from_end += 10 * n,
            Action::ToggleExpand => {
                if let Some(i) = self.chat.selected
                    && let Some(item) = self.chat.thread_mut().and_then(|t| t.items.get_mut(i))
                {
                    item.expanded = !item.expanded;
                    item.touch();
                }
            }
            Action::Open => return self.open_chat_item(false),
            Action::OpenExternal => return self.open_chat_item(true),
            Action::JumpBack | Action::JumpForward => {
                return self.dispatch_paper(action, n, None, 0, 0);
            }
            Action::Promote => {
                self.status = "no Quick Chat to promote: space q on the paper asks one".into()
            }
            _ => {}
        }
        Vec::new()
    }

    fn open_quick(&mut self, chips: Vec<Chip>) -> Vec<Effect> {
        let mut fx = Vec::new();
        if let Some(old) = self.quick.take() {
            fx.extend(self.close_quick(old));
        }
        let mut input = new_input();
        input.set_placeholder_text("Ask about this page or selection… (enter to send, esc closes)");
        self.quick = Some(QuickChat {
            input,
            chips,
            thread: Thread::new("quick".into()),
            turn: None,
            asked: None,
            selected: None,
        });
        fx
    }

    /// Effects for a Quick Chat that goes away: its running turn is cancelled and its scratch
    /// transcript dropped (unless it was promoted, which took it already).
    fn close_quick(&mut self, q: QuickChat) -> Vec<Effect> {
        let mut fx = Vec::new();
        if let Some(turn) = q.turn {
            if matches!(self.overlay, Some(Overlay::Permission { turn: t, .. }) if t == turn) {
                self.overlay = None;
            }
            fx.push(Effect::CancelTurn { turn });
        }
        if let Some(turn) = q.asked {
            fx.push(Effect::DropQuick { turn });
        }
        fx
    }

    /// The request the Quick Chat's chips describe (surface `quick`).
    pub fn quick_request(&self) -> Option<ContextRequest> {
        let q = self.quick.as_ref()?;
        let mut req = ContextRequest {
            surface: crate::context::Surface::Quick,
            text: q.input.lines().join("\n"),
            ..ContextRequest::default()
        };
        if let AgentState::Ready { remote: true, .. } = self.chat.agent {
            req.locality = crate::context::Locality::Remote;
        }
        add_chips(&mut req, &q.chips);
        Some(req)
    }

    /// Keys while the Quick Chat popup is up (and no other overlay over it). `None`: the
    /// action is not the popup's (global ones like help and quit go on as usual).
    fn dispatch_quick(&mut self, action: Action, n: usize) -> Option<Vec<Effect>> {
        let q = self.quick.as_mut()?;
        let fx = match action {
            Action::Cancel => {
                let q = self.quick.take()?;
                self.status.clear();
                self.close_quick(q)
            }
            Action::Send => return Some(self.send_quick()),
            Action::Newline => {
                q.input.insert_newline();
                Vec::new()
            }
            // As in the chat's input: ctrl-x cancels while the answer streams, else it removes
            // the last chip (the selection before the page).
            Action::RemoveChip | Action::CancelTurn => match q.turn.take() {
                Some(turn) => {
                    q.thread
                        .items
                        .push(Item::new(ItemKind::Notice("turn cancelled".into())));
                    if matches!(self.overlay, Some(Overlay::Permission { turn: t, .. }) if t == turn)
                    {
                        self.overlay = None;
                    }
                    vec![Effect::CancelTurn { turn }]
                }
                None if action == Action::RemoveChip => {
                    if let Some(c) = q.chips.pop() {
                        self.status = format!("removed {}", c.label());
                    }
                    Vec::new()
                }
                None => {
                    self.status = "no turn is running".into();
                    Vec::new()
                }
            },
            Action::MoveDown | Action::MoveUp | Action::GotoTop | Action::GotoPage => {
                q.selected = step_selection(&q.thread, q.selected, action, n);
                Vec::new()
            }
            Action::Open | Action::OpenExternal => return Some(self.open_quick_source()),
            Action::Promote => match (q.turn, q.asked) {
                (None, Some(turn)) => {
                    self.quick = None;
                    self.status = "promoting the Quick Chat to a thread…".into();
                    vec![Effect::Promote { turn }]
                }
                (Some(_), _) => {
                    self.status = "the answer is still streaming (ctrl-x cancels it)".into();
                    Vec::new()
                }
                (None, None) => {
                    self.status = "ask a question first (enter sends it)".into();
                    Vec::new()
                }
            },
            // A second `space q` from the popup starts over on the same chips.
            Action::QuickChat => {
                let chips = q.chips.clone();
                return Some(self.open_quick(chips));
            }
            Action::Help | Action::Quit | Action::Suspend => return None,
            _ => Vec::new(),
        };
        Some(fx)
    }

    fn send_quick(&mut self) -> Vec<Effect> {
        let Some(q) = self.quick.as_ref() else {
            return Vec::new();
        };
        let text = q.input.lines().join("\n");
        if text.trim().is_empty() {
            self.status = "nothing to send".into();
            return Vec::new();
        }
        if !self.agent_ready() {
            return Vec::new();
        }
        let Some(request) = self.quick_request() else {
            return Vec::new();
        };
        let turn = self.req();
        let q = self.quick.as_mut().expect("checked above");
        let chips = q.chips.iter().map(Chip::label).collect();
        q.thread.title = text.lines().next().unwrap_or("").chars().take(40).collect();
        q.thread
            .items
            .push(Item::new(ItemKind::User { text, chips }));
        q.turn = Some(turn);
        q.asked = Some(turn);
        q.selected = None;
        vec![Effect::QuickTurn { turn, request }]
    }

    /// Enter on a Quick Chat source: a vault source closes the popup and jumps (ctrl-o comes
    /// back); an external one opens with $BROWSER and the popup stays.
    fn open_quick_source(&mut self) -> Vec<Effect> {
        let Some(q) = self.quick.as_ref() else {
            return Vec::new();
        };
        let Some(i) = q.selected else {
            self.status = "select a source with j/k first".into();
            return Vec::new();
        };
        let Some(ItemKind::Source(SourceRef { uri: u, quote })) =
            q.thread.items.get(i).map(|it| &it.kind)
        else {
            if let Some(q) = self.quick.as_mut()
                && let Some(item) = q.thread.items.get_mut(i)
            {
                item.expanded = !item.expanded;
                item.touch();
            }
            return Vec::new();
        };
        let (u, quote) = (u.clone(), quote.clone());
        match uri::parse(&u) {
            Some(Target::External(url)) => self.open_url(url),
            Some(Target::Vault { path, page, lines }) => {
                let Some(q) = self.quick.take() else {
                    return Vec::new();
                };
                let mut fx = self.close_quick(q);
                fx.extend(self.jump(
                    Location {
                        path,
                        page: page.unwrap_or(1),
                        row: 0,
                    },
                    quote,
                    lines,
                ));
                fx
            }
            None => {
                self.status = format!("cannot open {u}");
                Vec::new()
            }
        }
    }

    fn move_chat_selection(&mut self, action: Action, n: usize) {
        let Some(t) = self.chat.thread() else { return };
        self.chat.selected = step_selection(t, self.chat.selected, action, n);
        self.chat.scroll_from_end = 0;
    }

    fn open_chat_item(&mut self, external: bool) -> Vec<Effect> {
        let Some(i) = self.chat.selected else {
            self.status = "select a source with j/k first".into();
            return Vec::new();
        };
        let Some(item) = self.chat.thread().and_then(|t| t.items.get(i)) else {
            return Vec::new();
        };
        match &item.kind {
            ItemKind::Source(SourceRef { uri: u, quote }) => {
                let (u, quote) = (u.clone(), quote.clone());
                match uri::parse(&u) {
                    Some(Target::External(url)) => self.open_url(url),
                    Some(Target::Vault { path, page, lines }) if !external => {
                        let row = 0;
                        self.jump(
                            Location {
                                path,
                                page: page.unwrap_or(1),
                                row,
                            },
                            quote,
                            lines,
                        )
                    }
                    Some(Target::Vault { .. }) => {
                        self.status = "this source is in the vault: enter opens it".into();
                        Vec::new()
                    }
                    None => {
                        self.status = format!("cannot open {u}");
                        Vec::new()
                    }
                }
            }
            ItemKind::Tool { .. } | ItemKind::Thought { .. } => {
                if let Some(item) = self.chat.thread_mut().and_then(|t| t.items.get_mut(i)) {
                    item.expanded = !item.expanded;
                    item.touch();
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    fn open_url(&mut self, url: String) -> Vec<Effect> {
        if std::env::var_os("BROWSER").is_some() {
            self.status = format!("opening {url}");
            vec![Effect::OpenUrl(url)]
        } else {
            self.status = format!("{url} (set $BROWSER to open links)");
            Vec::new()
        }
    }

    fn accept_mention(&mut self) -> Vec<Effect> {
        let Some(m) = self.chat.mention.take() else {
            return Vec::new();
        };
        let Some((path, _)) = m.items.get(m.selected).cloned() else {
            return Vec::new();
        };
        // Remove the typed "@query": the chip stands for it.
        for _ in 0..m.query.chars().count() + 1 {
            self.chat.input.delete_char();
        }
        if !self.chat.chips.contains(&Chip::Mention(path.clone())) {
            self.chat.chips.push(Chip::Mention(path));
        }
        self.plan_effect()
    }

    /// The agent can take a turn now; otherwise the status line says why not.
    fn agent_ready(&mut self) -> bool {
        match &self.chat.agent {
            AgentState::Unavailable(why) => {
                self.status = format!("agent unavailable: {why}");
                false
            }
            AgentState::Starting { name } => {
                self.status = format!("agent {name} is still starting");
                false
            }
            AgentState::Ready { .. }
                if self.chat.turn.is_some()
                    || self.quick.as_ref().is_some_and(|q| q.turn.is_some()) =>
            {
                let key = self.keymap.hint(&[Mode::Global], Action::CancelTurn);
                self.status = format!("a turn is running ({key} cancels it)");
                false
            }
            AgentState::Ready { .. } => true,
        }
    }

    /// `space h`: the agent summarizes the thread into its HANDOFF.md; the next question starts
    /// a fresh session seeded from it.
    fn handoff(&mut self) -> Vec<Effect> {
        if self.chat.thread().is_none_or(|t| {
            !t.items
                .iter()
                .any(|i| matches!(i.kind, ItemKind::User { .. }))
        }) {
            self.status = "handoff: this thread has no conversation yet".into();
            return Vec::new();
        }
        if !self.agent_ready() {
            return Vec::new();
        }
        let turn = self.req();
        self.chat.turn = Some(turn);
        self.chat.selected = None;
        self.chat.scroll_from_end = 0;
        let Some(t) = self.chat.thread_mut() else {
            return Vec::new();
        };
        t.items.push(Item::new(ItemKind::Notice(
            "handoff: asking the agent for a summary (goal, findings, open questions, sources)"
                .into(),
        )));
        let thread = t.id.clone();
        self.chat.turn_thread = Some(thread.clone());
        self.status = "handoff: the agent is writing the summary…".into();
        vec![Effect::Handoff { turn, thread }]
    }

    fn send(&mut self) -> Vec<Effect> {
        let text = self.chat.input.lines().join("\n");
        if text.trim().is_empty() {
            self.status = "nothing to send".into();
            return Vec::new();
        }
        if !self.agent_ready() {
            return Vec::new();
        }
        let request = self.context_request();
        let chips: Vec<String> = self.chat.chips.iter().map(Chip::label).collect();
        let turn = self.req();
        self.chat.turn = Some(turn);
        self.chat.turn_thread = self.chat.thread().map(|t| t.id.clone());
        self.chat.input = new_input();
        self.chat
            .chips
            .retain(|c| !matches!(c, Chip::Selection { .. } | Chip::Mention(_)));
        self.chat.selected = None;
        self.chat.scroll_from_end = 0;
        let thread = match self.chat.thread_mut() {
            Some(t) => {
                if t.items.is_empty() {
                    t.title = text.lines().next().unwrap_or("").chars().take(40).collect();
                }
                t.items.push(Item::new(ItemKind::User { text, chips }));
                t.id.clone()
            }
            None => String::new(),
        };
        vec![Effect::StartTurn {
            turn,
            thread,
            request,
        }]
    }
}

/// Moves a selection over a thread's selectable items (sources, tool cards, thoughts);
/// `None` follows the end.
fn step_selection(t: &Thread, current: Option<usize>, action: Action, n: usize) -> Option<usize> {
    let sel: Vec<usize> = t
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.selectable())
        .map(|(i, _)| i)
        .collect();
    if sel.is_empty() {
        return current;
    }
    let pos = current.and_then(|s| sel.iter().position(|&i| i == s));
    let new = match (action, pos) {
        (Action::GotoTop, _) => Some(0),
        (Action::GotoPage, _) => None,
        (Action::MoveUp, None) => Some(sel.len() - 1),
        (Action::MoveUp, Some(p)) => Some(p.saturating_sub(n)),
        (Action::MoveDown, Some(p)) if p + n < sel.len() => Some(p + n),
        (Action::MoveDown, _) => None,
        _ => pos,
    };
    new.map(|p| sel[p])
}
