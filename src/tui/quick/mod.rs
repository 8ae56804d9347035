//! The Quick Chat popup (`space q` on the paper): one question about the selection or page,
//! asked through the same context pipeline (surface `quick`) without leaving the paper. Its
//! turn runs on a scratch transcript; `promote` turns it into a chat thread.

pub mod view;

use ratatui::crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use crate::context::{ContextRequest, Locality, Surface};

use super::action::Action;
use super::chips::{Chip, Gate, add_chips, admit};
use super::effect::{Effect, Out, OverlayRequest};
use super::thread::cells::step_selection;
use super::thread::open::{self, Opening};
use super::thread::scroll::Scroll;
use super::thread::{ChatEvent, Item, ItemKind, Thread};
use super::widgets::new_input;

/// What the Quick Chat is told.
#[derive(Debug)]
pub enum QuickMsg {
    Action {
        action: Action,
        count: Option<u32>,
    },
    /// Send the question (the app says whether a turn may start).
    Send(Gate),
    /// A key that is text, for the question.
    Key(KeyEvent),
    Paste(String),
    Event {
        turn: u64,
        event: ChatEvent,
    },
    TurnDone(u64),
}

/// Where the Quick Chat is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The question is being typed.
    Composing,
    /// Its answer streams.
    Answering { turn: u64 },
    /// The answer of `turn` is shown (what promote and closing refer to).
    Answered { turn: u64 },
}

pub struct Quick {
    input: TextArea<'static>,
    /// The current page and the selection: exactly what the grant will contain.
    chips: Vec<Chip>,
    /// The question and its streamed answer, sources and tool cards (drawn like the chat).
    thread: Thread,
    phase: Phase,
    /// Selected item of `thread` (sources, tool cards), `None` = follow the end.
    selected: Option<usize>,
    /// Where the answer's window is (resolved by the view).
    scroll: Scroll,
}

impl Quick {
    pub fn new(chips: Vec<Chip>) -> Quick {
        let mut input = new_input();
        input.set_placeholder_text("Ask about this page or selection… (enter to send, esc closes)");
        Quick {
            input,
            chips,
            thread: Thread::new("quick".into()),
            phase: Phase::Composing,
            selected: None,
            scroll: Scroll::default(),
        }
    }

    pub fn update(&mut self, msg: QuickMsg) -> Vec<Out> {
        match msg {
            QuickMsg::Action { action, count } => self.on_action(action, count),
            QuickMsg::Send(gate) => self.send(gate),
            QuickMsg::Key(ev) => {
                if self.composing() {
                    self.input.input(ev);
                }
                Vec::new()
            }
            QuickMsg::Paste(text) => {
                if self.composing() {
                    self.input.insert_str(text);
                }
                Vec::new()
            }
            QuickMsg::Event { turn, event } => {
                if self.turn() != Some(turn) {
                    return Vec::new();
                }
                match event {
                    ChatEvent::Permission(request) => {
                        vec![Out::Overlay(OverlayRequest::Permission { turn, request })]
                    }
                    ev => {
                        let end =
                            matches!(ev, ChatEvent::TurnEnded { .. } | ChatEvent::TurnFailed(_));
                        self.thread.apply(ev);
                        if end {
                            self.phase = Phase::Answered { turn };
                            return vec![Out::ClosePermission { turn }];
                        }
                        Vec::new()
                    }
                }
            }
            QuickMsg::TurnDone(turn) => {
                if self.turn() == Some(turn) {
                    self.phase = Phase::Answered { turn };
                }
                Vec::new()
            }
        }
    }

    /// Closing the popup (esc, or a jump to a source): a running turn is cancelled, the
    /// popup is put aside as it is, question and answer, so `space q` (same page and
    /// selection) or `space Q` brings it back.
    pub fn close(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        if let Phase::Answering { turn } = self.phase {
            self.thread
                .items
                .push(Item::new(ItemKind::Notice("turn cancelled".into())));
            self.phase = Phase::Answered { turn };
            out.push(Out::ClosePermission { turn });
            out.push(Out::Run(Effect::CancelTurn { turn }));
        }
        out.push(Out::HideQuick);
        out
    }

    /// What forgetting the Quick Chat for good takes: its running turn cancelled and its
    /// scratch transcript dropped (a promoted one was taken by the promotion already).
    pub fn dropped(&self) -> Vec<Effect> {
        match self.phase {
            Phase::Composing => Vec::new(),
            Phase::Answering { turn } => {
                vec![Effect::CancelTurn { turn }, Effect::DropQuick { turn }]
            }
            Phase::Answered { turn } => vec![Effect::DropQuick { turn }],
        }
    }

    fn on_action(&mut self, action: Action, count: Option<u32>) -> Vec<Out> {
        let n = count.unwrap_or(1).max(1) as usize;
        match action {
            Action::Cancel => {
                let mut out = vec![Out::clear_status()];
                out.extend(self.close());
                out
            }
            Action::Newline => {
                self.input.insert_newline();
                Vec::new()
            }
            Action::DeleteToLineStart => {
                if self.composing() {
                    self.input.delete_line_by_head();
                }
                Vec::new()
            }
            // As in the chat's input: ctrl-x cancels while the answer streams, else it removes
            // the last chip (the selection before the page).
            Action::RemoveChip | Action::CancelTurn => match self.phase {
                Phase::Answering { turn } => {
                    self.thread
                        .items
                        .push(Item::new(ItemKind::Notice("turn cancelled".into())));
                    self.phase = Phase::Answered { turn };
                    vec![
                        Out::ClosePermission { turn },
                        Out::Run(Effect::CancelTurn { turn }),
                    ]
                }
                _ if action == Action::RemoveChip => match self.chips.pop() {
                    Some(c) => vec![Out::info(format!("removed {}", c.label()))],
                    None => Vec::new(),
                },
                _ => vec![Out::info("no turn is running")],
            },
            Action::MoveDown | Action::MoveUp | Action::GotoTop | Action::GotoPage => {
                self.selected = step_selection(&self.thread, self.selected, action, n);
                match (action, self.selected) {
                    (Action::GotoTop, _) => self.scroll.top(),
                    (_, None) => self.scroll.follow(),
                    _ => self.scroll.reveal(),
                }
                Vec::new()
            }
            Action::HalfPageDown | Action::HalfPageUp => {
                let rows = (self.scroll.half_page() * n) as isize;
                self.scroll.by(if action == Action::HalfPageUp {
                    rows
                } else {
                    -rows
                });
                Vec::new()
            }
            Action::ToggleExpand => {
                self.toggle();
                Vec::new()
            }
            Action::Open => self.open_source(false),
            Action::OpenExternal => self.open_source(true),
            Action::Promote => match self.phase {
                Phase::Answered { turn } => vec![
                    Out::RemoveQuick,
                    Out::info("promoting the Quick Chat to a thread…"),
                    Out::Run(Effect::Promote { turn }),
                ],
                Phase::Answering { .. } => vec![Out::info(
                    "the answer is still streaming (ctrl-x cancels it)",
                )],
                Phase::Composing => {
                    vec![Out::info("ask a question first (enter sends it)")]
                }
            },
            // A second `space q` from the popup starts over on the same chips.
            Action::QuickChat => {
                let mut out: Vec<Out> = self.dropped().into_iter().map(Out::Run).collect();
                if let Phase::Answering { turn } = self.phase {
                    out.insert(0, Out::ClosePermission { turn });
                }
                out.push(Out::RemoveQuick);
                out.push(Out::QuickChat {
                    chips: self.chips.clone(),
                    fresh: true,
                });
                out
            }
            _ => Vec::new(),
        }
    }

    fn send(&mut self, gate: Gate) -> Vec<Out> {
        let text = self.input.lines().join("\n");
        let ticket = match admit(&text, gate) {
            Ok(t) => t,
            Err(why) => return vec![Out::Status(why)],
        };
        let request = self.request(ticket.remote);
        let turn = ticket.turn;
        let chips = self.chips.iter().map(Chip::label).collect();
        self.thread.title = crate::tui::thread::mentions::title(&text);
        self.thread
            .items
            .push(Item::new(ItemKind::User { text, chips }));
        self.phase = Phase::Answering { turn };
        self.selected = None;
        self.scroll.follow();
        vec![Out::Run(Effect::QuickTurn { turn, request })]
    }

    /// Enter on a source: a vault source closes the popup and jumps (ctrl-o comes back); an
    /// external one opens with $BROWSER and the popup stays.
    /// Opens the selected item as the chat pane does ([`open::open`]); a jump closes Quick
    /// Chat first.
    fn open_source(&mut self, external: bool) -> Vec<Out> {
        let Some(i) = self.selected else {
            return vec![Out::info("select a source with j/k first")];
        };
        let Some(item) = self.thread.items.get(i) else {
            return Vec::new();
        };
        match open::open(&item.kind, external) {
            Opening::Jump(jump) => {
                let mut out = self.close();
                out.push(Out::Jump(jump));
                out
            }
            Opening::Toggle => {
                self.toggle();
                Vec::new()
            }
            Opening::Outs(outs) => outs,
        }
    }

    /// `z` (or enter on what is not a source): folds or unfolds the selected item.
    fn toggle(&mut self) {
        if let Some(i) = self.selected
            && let Some(at) = self.thread.toggle(i)
        {
            self.selected = Some(at);
            self.scroll.reveal();
        }
    }

    /// The request the chips describe (surface `quick`); `remote`: the agent is remote.
    pub fn request(&self, remote: bool) -> ContextRequest {
        let mut req = ContextRequest {
            surface: Surface::Quick,
            text: self.input.lines().join("\n"),
            ..ContextRequest::default()
        };
        if remote {
            req.locality = Locality::Remote;
        }
        add_chips(&mut req, &self.chips);
        req
    }

    /// Typing the question: until it is sent.
    pub fn composing(&self) -> bool {
        self.phase == Phase::Composing
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The turn whose answer streams.
    pub fn turn(&self) -> Option<u64> {
        match self.phase {
            Phase::Answering { turn } => Some(turn),
            _ => None,
        }
    }

    pub fn chips(&self) -> &[Chip] {
        &self.chips
    }

    /// The question and its answer.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    /// The selected source or card of the answer (`j`/`k`).
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    /// The question as typed so far, one string per line.
    pub fn input_lines(&self) -> &[String] {
        self.input.lines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::chips::Ticket;
    use crate::tui::key::Key;
    use crate::tui::status::Status;

    fn typed(q: &mut Quick, text: &str) {
        for c in text.chars() {
            q.update(QuickMsg::Key(Key::plain(c).to_event()));
        }
    }

    /// Composing → answering → answered: what sending, streaming, promoting and closing do in
    /// each phase.
    #[test]
    fn the_quick_chat_goes_through_its_phases() {
        let chips = vec![Chip::Reading {
            path: "papers/a/paper.pdf".into(),
            page: Some(2),
        }];
        let mut q = Quick::new(chips);
        let gate = || -> Gate {
            Ok(Ticket {
                turn: 7,
                remote: false,
            })
        };
        assert_eq!(
            q.update(QuickMsg::Send(gate())),
            vec![Out::info("nothing to send")]
        );
        typed(&mut q, "why?");
        assert_eq!(
            q.update(QuickMsg::Send(Err(Status::error(
                "agent unavailable: none"
            )))),
            vec![Out::error("agent unavailable: none")]
        );
        assert!(q.composing());
        let out = q.update(QuickMsg::Send(gate()));
        assert!(
            matches!(&out[..], [Out::Run(Effect::QuickTurn { turn: 7, request })]
            if request.surface == Surface::Quick && request.current.as_ref().unwrap().page == Some(2))
        );
        assert_eq!(q.phase(), Phase::Answering { turn: 7 });
        let promote = Action::Promote;
        let out = q.update(QuickMsg::Action {
            action: promote,
            count: None,
        });
        assert!(matches!(&out[..], [Out::Status(s)] if s.text.contains("still streaming")));
        // A late event of another turn is not this one's.
        q.update(QuickMsg::Event {
            turn: 6,
            event: ChatEvent::MessageChunk("no".into()),
        });
        q.update(QuickMsg::Event {
            turn: 7,
            event: ChatEvent::MessageChunk("because".into()),
        });
        let out = q.update(QuickMsg::Event {
            turn: 7,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        assert_eq!(out, vec![Out::ClosePermission { turn: 7 }]);
        assert_eq!(q.phase(), Phase::Answered { turn: 7 });
        let answer: Vec<&ItemKind> = q.thread().items.iter().map(|i| &i.kind).collect();
        assert!(
            matches!(answer[..], [ItemKind::User { .. }, ItemKind::Agent { text }] if text == "because")
        );
        assert_eq!(q.dropped(), vec![Effect::DropQuick { turn: 7 }]);
        let out = q.update(QuickMsg::Action {
            action: promote,
            count: None,
        });
        assert!(matches!(
            &out[..],
            [
                Out::RemoveQuick,
                Out::Status(_),
                Out::Run(Effect::Promote { turn: 7 })
            ]
        ));
    }
}
