//! The chat's turns: a message sent (or a handoff) starts one, its events stream into the
//! thread they belong to, threads come back from disk.

use super::{Chat, Running};
use crate::tui::chips::{Chip, Gate, admit};
use crate::tui::effect::{Effect, Out, OverlayRequest};
use crate::tui::thread::{ChatEvent, Item, ItemKind, Thread};
use crate::tui::widgets::new_input;

impl Chat {
    pub(super) fn send(&mut self, gate: Gate) -> Vec<Out> {
        let text = self.input.lines().join("\n");
        let ticket = match admit(&text, gate) {
            Ok(t) => t,
            Err(why) => return vec![Out::Status(why)],
        };
        let request = self.context_request();
        let chips: Vec<String> = self.chips.iter().map(Chip::label).collect();
        let turn = ticket.turn;
        self.running = Some(Running {
            turn,
            thread: self.thread().map(|t| t.id.clone()),
        });
        self.input = new_input();
        // Sent: the keys are the chat's again (j/k over the answer, space n, i for the next
        // question), not text for a question that is gone.
        self.compose = super::Compose::Off;
        self.chips
            .retain(|c| !matches!(c, Chip::Selection { .. } | Chip::Mention(_)));
        self.selected = None;
        self.scroll.follow();
        let thread = match self.thread_mut() {
            Some(t) => {
                if t.items.is_empty() {
                    t.title = crate::tui::thread::mentions::title(&text);
                }
                t.items.push(Item::new(ItemKind::User { text, chips }));
                t.id.clone()
            }
            None => String::new(),
        };
        vec![Out::Run(Effect::StartTurn {
            turn,
            thread,
            request,
        })]
    }

    /// `space h`: the agent summarizes the thread into its HANDOFF.md; the next question starts
    /// a fresh session seeded from it.
    pub(super) fn handoff(&mut self, gate: Gate) -> Vec<Out> {
        if self.thread().is_none_or(|t| {
            !t.items
                .iter()
                .any(|i| matches!(i.kind, ItemKind::User { .. }))
        }) {
            return vec![Out::info("handoff: this thread has no conversation yet")];
        }
        let turn = match gate {
            Ok(t) => t.turn,
            Err(why) => return vec![Out::Status(why)],
        };
        self.selected = None;
        self.scroll.follow();
        let Some(t) = self.threads.get_mut(self.current) else {
            return Vec::new();
        };
        t.items.push(Item::new(ItemKind::Notice(
            "handoff: asking the agent for a summary (goal, findings, open questions, sources)"
                .into(),
        )));
        let thread = t.id.clone();
        self.running = Some(Running {
            turn,
            thread: Some(thread.clone()),
        });
        vec![
            Out::info("handoff: the agent is writing the summary…"),
            Out::Run(Effect::Handoff { turn, thread }),
        ]
    }

    pub(super) fn on_event(&mut self, turn: u64, event: ChatEvent) -> Vec<Out> {
        let Some(running) = self.running.clone().filter(|r| r.turn == turn) else {
            // A late event of a cancelled or replaced turn.
            return Vec::new();
        };
        let thread = match &running.thread {
            Some(id) => self.threads.iter_mut().find(|t| t.id == *id),
            None => self.threads.get_mut(self.current),
        };
        match event {
            ChatEvent::Permission(request) => {
                vec![Out::Overlay(OverlayRequest::Permission { turn, request })]
            }
            ChatEvent::TurnEnded { .. } | ChatEvent::TurnFailed(_) => {
                if let Some(t) = thread {
                    t.apply(event);
                }
                self.running = None;
                // A permission question of this turn can no longer be answered.
                vec![Out::ClosePermission { turn }]
            }
            ev => {
                if let Some(t) = thread {
                    t.apply(ev);
                }
                Vec::new()
            }
        }
    }

    /// Threads read from disk: when the thread on screen is still the empty one of the start,
    /// they replace it and the most recent one is shown; otherwise they are added to the list.
    pub(super) fn restore(&mut self, threads: Vec<Thread>) {
        if threads.is_empty() {
            return;
        }
        let fresh =
            self.threads.len() == 1 && self.threads[0].items.is_empty() && self.running.is_none();
        if fresh {
            self.threads = threads;
            self.current = self.threads.len() - 1;
            self.scroll = crate::tui::thread::scroll::Scroll::default();
        } else {
            for t in threads {
                if !self.threads.iter().any(|o| o.id == t.id) {
                    self.threads.insert(0, t);
                    self.current += 1;
                }
            }
        }
        self.selected = None;
    }
}
