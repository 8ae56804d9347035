//! The chat pane: threads of history cells fed by the turn driver's events, the message input
//! with its @-mention popup and context chips (the next turn's grant), the grant preview and
//! the agent's state in the status line.

mod lists;
pub mod mention;
mod turns;
pub mod view;

use ratatui::crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use crate::context::{ContextRequest, Locality};

use super::action::Action;
use super::chips::{AgentState, Chip, Gate, PlanPreview, add_chips};
use super::effect::{Effect, Out, OverlayRequest, Pane};
use super::listing::Listing;
use super::thread::cells::step_selection;
use super::thread::open::{self, Opening};
use super::thread::scroll::Scroll;
use super::thread::{ChatEvent, Item, ItemKind, Thread};
use super::widgets::{WHEEL_ROWS, new_input};

/// What the thread list's filter prompt did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindThreads {
    /// The filter's text now.
    Typed(String),
    /// Enter: what it found stays listed.
    Kept,
    /// Esc: every thread is listed again.
    Cleared,
}

/// What the chat pane is told.
#[derive(Debug)]
pub enum ChatMsg {
    Action {
        action: Action,
        count: Option<u32>,
    },
    /// Send the message (the app says whether a turn may start).
    Send(Gate),
    /// Hand the thread off to a fresh session (a turn, like a message).
    Handoff(Gate),
    /// Start writing a message.
    Compose,
    /// The pane got the focus: the grant preview is refreshed.
    Focused,
    /// A key that is text, for the message.
    Key(KeyEvent),
    Paste(String),
    /// An event of the running turn.
    Event {
        turn: u64,
        event: ChatEvent,
    },
    /// The turn driver is done with `turn`.
    TurnDone(u64),
    Plan {
        seq: u64,
        preview: PlanPreview,
    },
    Agent(AgentState),
    /// Threads read from disk, oldest first.
    Threads(Vec<Thread>),
    /// Threads another process wrote since, oldest first: listed after the others.
    Arrived(Vec<Thread>),
    /// A Quick Chat became this thread.
    Promoted(Thread),
    /// The thread list's choice.
    ShowThread(usize),
    /// The thread list's filter typed, kept or cleared.
    FindThreads(FindThreads),
    /// The thread list's filter's choice: thread `thread` at its `turn`-th question (1-based),
    /// with the citation that matched selected when there is one.
    ShowThreadAt {
        thread: usize,
        turn: usize,
        cited: Vec<String>,
    },
    /// The paper being read (and its page), for the "reading" chip.
    Reading(Option<(String, Option<u32>)>),
    /// Write the next question, with this selection as its context.
    UseSelection(Option<Chip>),
    /// The vault's listing, for @-mentions.
    Listing(Listing),
    /// The mouse wheel: `up` scrolls back.
    Scroll {
        up: bool,
    },
    /// A click on item `i` of the current thread.
    Click(usize),
    /// Esc: close the popup, else stop writing.
    Cancel,
}

/// The message input's mode.
#[derive(Debug, Clone, PartialEq)]
pub enum Compose {
    /// Reading the thread (keys move over its items).
    Off,
    /// Writing a message.
    On,
    /// Writing, with the @ popup open over the input.
    Mention(MentionPopup),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MentionPopup {
    pub query: String,
    /// (path, display) of the best matches.
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

/// The turn that is running and the thread (id) its events go to, even when the user
/// switched threads meanwhile.
#[derive(Debug, Clone, PartialEq)]
struct Running {
    turn: u64,
    thread: Option<String>,
}

pub struct Chat {
    threads: Vec<Thread>,
    /// The threads indexed while the thread list's filter is typed.
    thread_index: Option<crate::acp::threads::ThreadIndex>,
    /// What the thread list's filter found, while the list shows it.
    filter: Option<super::thread::find::ThreadFilter>,
    current: usize,
    input: TextArea<'static>,
    compose: Compose,
    chips: Vec<Chip>,
    /// The reading chip the user removed stays removed for that paper.
    dismissed_reading: Option<String>,
    /// Selected item (index into the thread's items), `None` = follow the end.
    selected: Option<usize>,
    /// Where the thread's window is ([`Scroll`]: rows from the end, resolved by the view).
    scroll: Scroll,
    running: Option<Running>,
    preview: Option<PlanPreview>,
    plan_seq: u64,
    agent: AgentState,
    listing: Listing,
}

impl Chat {
    pub fn new(agent: AgentState) -> Chat {
        Chat {
            threads: vec![Thread::new("new".into())],
            current: 0,
            input: new_input(),
            compose: Compose::Off,
            chips: Vec::new(),
            dismissed_reading: None,
            selected: None,
            scroll: Scroll::default(),
            running: None,
            preview: None,
            plan_seq: 0,
            agent,
            listing: Listing::default(),
            thread_index: None,
            filter: None,
        }
    }

    pub fn update(&mut self, msg: ChatMsg) -> Vec<Out> {
        match msg {
            ChatMsg::Action { action, count } => self.on_action(action, count),
            ChatMsg::Send(gate) => self.send(gate),
            ChatMsg::Handoff(gate) => self.handoff(gate),
            ChatMsg::Compose => {
                if self.compose == Compose::Off {
                    self.compose = Compose::On;
                }
                self.plan()
            }
            ChatMsg::Focused => self.plan(),
            ChatMsg::Key(ev) => {
                self.type_key(ev);
                Vec::new()
            }
            ChatMsg::Paste(text) => {
                self.input.insert_str(text);
                Vec::new()
            }
            ChatMsg::Event { turn, event } => self.on_event(turn, event),
            ChatMsg::TurnDone(turn) => {
                if self.turn() == Some(turn) {
                    self.running = None;
                }
                Vec::new()
            }
            ChatMsg::Plan { seq, preview } => {
                if seq == self.plan_seq {
                    self.preview = Some(preview);
                }
                Vec::new()
            }
            ChatMsg::Agent(state) => {
                // Starting and ready show in the status line; only a failure is worth
                // replacing the app's status message (e.g. the indexer's summary) for.
                let mut out = Vec::new();
                if let AgentState::Unavailable(why) = &state {
                    out.push(Out::error(format!("agent unavailable: {why}")));
                }
                self.agent = state;
                // Locality (remote agents) changes the plan: refresh the grant preview.
                out.extend(self.plan());
                out
            }
            ChatMsg::Threads(threads) => {
                self.restore(threads);
                Vec::new()
            }
            ChatMsg::Arrived(threads) => {
                let mut new: Vec<Thread> = threads
                    .into_iter()
                    .filter(|t| !self.threads.iter().any(|o| o.id == t.id))
                    .collect();
                let Some(last) = new.last() else {
                    return Vec::new();
                };
                let status = match new.len() {
                    1 => format!("a new thread from another process: \"{}\"", last.title),
                    n => format!("{n} new threads from another process"),
                };
                self.threads.append(&mut new);
                vec![Out::info(status)]
            }
            ChatMsg::Promoted(thread) => {
                let status = format!("Quick Chat promoted to the thread \"{}\"", thread.title);
                self.threads.push(thread);
                self.show(self.threads.len() - 1);
                vec![Out::info(status), Out::Focus(Pane::Chat)]
            }
            ChatMsg::FindThreads(find) => self.find_threads(find),
            ChatMsg::ShowThread(i) => {
                if i < self.threads.len() {
                    self.show(i);
                }
                vec![Out::Focus(Pane::Chat)]
            }
            ChatMsg::ShowThreadAt {
                thread,
                turn,
                cited,
            } => {
                let Some(t) = self.threads.get(thread) else {
                    return vec![Out::info("that thread is gone")];
                };
                let at = super::thread::find::item_at(t, turn, &cited);
                let status = format!("thread \"{}\", turn {turn}", t.title);
                self.show(thread);
                self.selected = at;
                self.scroll.reveal();
                vec![Out::Focus(Pane::Chat), Out::info(status)]
            }
            ChatMsg::Reading(reading) => {
                self.set_reading(reading);
                Vec::new()
            }
            ChatMsg::UseSelection(chip) => {
                let mut out = vec![Out::Focus(Pane::Chat)];
                if let Some(chip) = chip {
                    self.chips.retain(|c| !matches!(c, Chip::Selection { .. }));
                    self.chips.push(chip);
                    out.push(Out::info("selection added to the next question"));
                }
                if self.compose == Compose::Off {
                    self.compose = Compose::On;
                }
                out.extend(self.plan());
                out
            }
            ChatMsg::Listing(listing) => {
                self.listing = listing;
                Vec::new()
            }
            ChatMsg::Scroll { up } => {
                let rows = WHEEL_ROWS as isize;
                self.scroll.by(if up { rows } else { -rows });
                Vec::new()
            }
            ChatMsg::Click(i) => {
                if self
                    .thread()
                    .and_then(|t| t.items.get(i))
                    .is_some_and(Item::selectable)
                {
                    self.selected = Some(i);
                }
                Vec::new()
            }
            ChatMsg::Cancel => {
                self.compose = match std::mem::replace(&mut self.compose, Compose::Off) {
                    Compose::Mention(_) => Compose::On,
                    Compose::On | Compose::Off => Compose::Off,
                };
                Vec::new()
            }
        }
    }

    fn on_action(&mut self, action: Action, count: Option<u32>) -> Vec<Out> {
        let n = count.unwrap_or(1).max(1) as usize;
        match action {
            Action::Newline => self.input.insert_newline(),
            Action::DeleteToLineStart => {
                self.input.delete_line_by_head();
            }
            // The input's ctrl-x shadows the global cancel_turn: while a turn runs it cancels
            // (as the status line promises), otherwise it removes a chip.
            Action::RemoveChip if self.running.is_some() => {
                return self.on_action(Action::CancelTurn, None);
            }
            Action::RemoveChip => {
                if let Some(c) = self.chips.pop() {
                    if let Chip::Reading { path, .. } = &c {
                        self.dismissed_reading = Some(path.clone());
                    }
                    if let Chip::Mention(path) = &c {
                        self.unmention(path);
                    }
                    let mut out = vec![Out::info(format!("removed {}", c.label()))];
                    out.extend(self.plan());
                    return out;
                }
            }
            Action::MentionNext | Action::MentionPrev => {
                if let Compose::Mention(m) = &mut self.compose {
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
                    .threads
                    .iter()
                    .filter(|t| t.id.starts_with("new"))
                    .count();
                self.threads.push(Thread::new(format!("new-{}", n + 1)));
                self.show(self.threads.len() - 1);
                // Not straight into the message: `i` writes, as everywhere else (a typed `i`
                // must not land in the new message).
                self.compose = Compose::Off;
                let mut out = vec![Out::Focus(Pane::Chat)];
                out.extend(self.plan());
                return out;
            }
            Action::Threads => {
                return vec![Out::Overlay(OverlayRequest::List(self.open_thread_list()))];
            }
            Action::NextThread => self.show((self.current + 1) % self.threads.len().max(1)),
            Action::PrevThread => {
                let len = self.threads.len().max(1);
                self.show((self.current + len - 1) % len);
            }
            Action::CancelTurn => match self.running.take() {
                Some(Running { turn, thread }) => {
                    if let Some(t) = self
                        .threads
                        .iter_mut()
                        .find(|t| Some(&t.id) == thread.as_ref())
                    {
                        t.items
                            .push(Item::new(ItemKind::Notice("turn cancelled".into())));
                    }
                    return vec![
                        Out::ClosePermission { turn },
                        Out::Run(Effect::CancelTurn { turn }),
                    ];
                }
                None => return vec![Out::info("no turn is running")],
            },
            Action::MoveDown | Action::MoveUp | Action::GotoTop | Action::GotoPage => {
                if let Some(t) = self.threads.get(self.current) {
                    self.selected = step_selection(t, self.selected, action, n);
                    match (action, self.selected) {
                        (Action::GotoTop, _) => self.scroll.top(),
                        (_, None) => self.scroll.follow(),
                        _ => self.scroll.reveal(),
                    }
                }
            }
            Action::HalfPageDown | Action::HalfPageUp => {
                let rows = (self.scroll.half_page() * n) as isize;
                self.scroll.by(if action == Action::HalfPageUp {
                    rows
                } else {
                    -rows
                });
            }
            Action::ToggleExpand => {
                // With nothing selected (after `G`, following the end), the last item that
                // folds: the latest `consulted: N` line, tool card or thought.
                let target = self.selected.or_else(|| {
                    self.thread().and_then(|t| {
                        t.items.iter().rposition(|i| {
                            i.selectable()
                                && matches!(
                                    i.kind,
                                    ItemKind::Consulted(_)
                                        | ItemKind::Tool { .. }
                                        | ItemKind::Thought { .. }
                                )
                        })
                    })
                });
                if let Some(i) = target
                    && let Some(at) = self.thread_mut().and_then(|t| t.toggle(i))
                {
                    self.selected = Some(at);
                    self.scroll.reveal();
                }
            }
            Action::Open => return self.open_item(false),
            Action::OpenExternal => return self.open_item(true),
            Action::Promote => {
                return vec![Out::info(
                    "no Quick Chat to promote: space q on the paper asks one",
                )];
            }
            _ => {}
        }
        Vec::new()
    }

    fn open_item(&mut self, external: bool) -> Vec<Out> {
        let Some(i) = self.selected else {
            return vec![Out::info("select a source with j/k first")];
        };
        let Some(item) = self.thread().and_then(|t| t.items.get(i)) else {
            return Vec::new();
        };
        match open::open(&item.kind, external) {
            Opening::Jump(jump) => vec![Out::Jump(jump)],
            Opening::Toggle => {
                if let Some(at) = self.thread_mut().and_then(|t| t.toggle(i)) {
                    self.selected = Some(at);
                    self.scroll.reveal();
                }
                Vec::new()
            }
            Opening::Outs(outs) => outs,
        }
    }

    /// Keeps the "reading" chip in step with the open paper (unless the user removed it).
    fn set_reading(&mut self, reading: Option<(String, Option<u32>)>) {
        self.chips.retain(|c| !matches!(c, Chip::Reading { .. }));
        if let Some((path, page)) = reading
            && self.dismissed_reading.as_deref() != Some(path.as_str())
        {
            self.chips.insert(0, Chip::Reading { path, page });
        }
    }

    /// The grant preview for the chips as they are now.
    pub fn plan(&mut self) -> Vec<Out> {
        self.plan_seq += 1;
        vec![Out::Run(Effect::Plan {
            seq: self.plan_seq,
            request: self.context_request(),
        })]
    }

    /// The request the chips describe: exactly what the grant will contain.
    pub fn context_request(&self) -> ContextRequest {
        let mut req = ContextRequest {
            text: self.input.lines().join("\n"),
            ..ContextRequest::default()
        };
        if let AgentState::Ready { remote: true, .. } = self.agent {
            req.locality = Locality::Remote;
        }
        add_chips(&mut req, &self.chips);
        req
    }

    fn thread_mut(&mut self) -> Option<&mut Thread> {
        self.threads.get_mut(self.current)
    }

    /// The thread on screen.
    pub fn thread(&self) -> Option<&Thread> {
        self.threads.get(self.current)
    }

    pub fn threads(&self) -> &[Thread] {
        &self.threads
    }

    pub fn agent(&self) -> &AgentState {
        &self.agent
    }

    /// The running turn, if any.
    pub fn turn(&self) -> Option<u64> {
        self.running.as_ref().map(|r| r.turn)
    }

    /// Whether esc is the chat's: it closes the popup, or ends writing in the focused pane.
    pub fn cancels(&self, focused: bool) -> bool {
        match self.compose {
            Compose::Mention(_) => true,
            Compose::On => focused,
            Compose::Off => false,
        }
    }

    pub fn compose(&self) -> &Compose {
        &self.compose
    }

    /// The mention popup, when it is open.
    pub fn mention(&self) -> Option<&MentionPopup> {
        match &self.compose {
            Compose::Mention(m) => Some(m),
            _ => None,
        }
    }

    pub fn chips(&self) -> &[Chip] {
        &self.chips
    }

    pub fn preview(&self) -> Option<&PlanPreview> {
        self.preview.as_ref()
    }

    /// The message as typed so far, one string per line.
    pub fn input_lines(&self) -> &[String] {
        self.input.lines()
    }

    /// The thread on screen (index into [`Chat::threads`]).
    pub fn current(&self) -> usize {
        self.current
    }

    /// The selected item of the thread on screen.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// Rows scrolled back from the end of the thread (as last drawn, or asked since).
    pub fn scroll_from_end(&self) -> usize {
        self.scroll.from_end()
    }

    /// Where the thread's window is (the view resolves and keeps it).
    pub fn scroll(&self) -> &Scroll {
        &self.scroll
    }

    /// Shows thread `i` from its end, nothing selected.
    fn show(&mut self, i: usize) {
        self.current = i;
        self.selected = None;
        self.scroll = Scroll::default();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tui::key::Key;
    use crate::tui::listing::Entry;
    use crate::tui::status::Status;
    use crate::vault::EntryKind;

    fn typed(c: &mut Chat, text: &str) {
        for ch in text.chars() {
            c.update(ChatMsg::Key(Key::plain(ch).to_event()));
        }
    }

    fn act(c: &mut Chat, action: Action) -> Vec<Out> {
        c.update(ChatMsg::Action {
            action,
            count: None,
        })
    }

    /// `@` opens the popup over the listing, accepting it makes a chip (and a new grant
    /// preview), a space closes it, esc leaves the mention and then the message.
    #[test]
    fn mentions_become_chips_and_modes_are_explicit() {
        let mut c = Chat::new(AgentState::Unavailable("none".into()));
        c.update(ChatMsg::Listing(Arc::new(vec![Entry {
            path: "papers/dense/paper.pdf".into(),
            kind: EntryKind::Paper,
            title: "Dense or Sparse?".into(),
            authors: String::new(),
            year: None,
            depth: 2,
            ..Entry::default()
        }])));
        assert_eq!(*c.compose(), Compose::Off);
        c.update(ChatMsg::Compose);
        typed(&mut c, "compare @dens");
        let m = c.mention().expect("the popup is open");
        assert_eq!(m.query, "dens");
        assert_eq!(m.items[0].0, "papers/dense/paper.pdf");
        let out = act(&mut c, Action::MentionAccept);
        assert!(matches!(&out[..], [Out::Run(Effect::Plan { request, .. })]
            if request.mentions == vec!["papers/dense/paper.pdf".to_string()]));
        assert_eq!(*c.compose(), Compose::On);
        // The message keeps the mention where it was written, whole.
        assert_eq!(c.input_lines()[0], "compare @papers/dense/paper.pdf ");
        typed(&mut c, "and sparse");
        // Removing the chip takes its mention out of the message.
        act(&mut c, Action::RemoveChip);
        assert!(c.chips().is_empty());
        assert_eq!(c.input_lines()[0], "compare and sparse");
        typed(&mut c, " @dens");
        act(&mut c, Action::MentionAccept);
        assert_eq!(
            c.input_lines()[0],
            "compare and sparse @papers/dense/paper.pdf "
        );
        typed(&mut c, "@x y");
        assert_eq!(*c.compose(), Compose::On, "a space ends the mention");
        typed(&mut c, " @");
        assert!(c.mention().is_some());
        assert!(
            c.cancels(false),
            "esc closes the popup wherever the focus is"
        );
        c.update(ChatMsg::Cancel);
        assert_eq!(*c.compose(), Compose::On);
        assert!(!c.cancels(false) && c.cancels(true));
        c.update(ChatMsg::Cancel);
        assert_eq!(*c.compose(), Compose::Off);
        // Without a ticket nothing is sent, and the message stays.
        let out = c.update(ChatMsg::Send(Err(Status::error("agent unavailable: none"))));
        assert_eq!(out, vec![Out::error("agent unavailable: none")]);
        assert!(c.thread().unwrap().items.is_empty());
        // Sent, the keys are the chat's again: the next `space n` is not typed into a question.
        c.update(ChatMsg::Compose);
        typed(&mut c, "a question");
        let ticket = crate::tui::chips::Ticket {
            turn: 1,
            remote: false,
        };
        let out = c.update(ChatMsg::Send(Ok(ticket)));
        assert!(
            matches!(&out[..], [Out::Run(Effect::StartTurn { .. })]),
            "{out:?}"
        );
        assert_eq!(*c.compose(), Compose::Off);
    }
}
