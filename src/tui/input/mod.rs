//! Keys on their way to an action: the chord pending (`g …`, `space …`), a count typed before a
//! command (`12 G`), a key that waits for a mark's letter, and the one-line prompt in the
//! status bar (filter, search). The keymap says what keys mean in a chain of modes; the app
//! says which chain applies.

pub mod view;

use ratatui::crossterm::event::KeyEvent;

use super::action::Action;
use super::effect::{Awaiting, PromptKind};
use super::key::{Code, Key, chord_text};
use super::keymap::{Keymap, Lookup, Mode};

/// A one-line text prompt in the status bar (filter, search).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub text: String,
}

/// What a key press comes to.
#[derive(Debug)]
pub enum Resolved {
    /// Nothing yet (a chord or a count goes on), or nothing at all.
    Nothing,
    Action(Action, Option<u32>),
    /// Text for whoever is typing (the prompt, the message, the Quick Chat question).
    Text(KeyEvent),
    /// The letter a mark key waited for.
    Mark(Awaiting, char),
    /// A chord that is bound nowhere (the status bar says so).
    Unbound(String),
}

#[derive(Debug, Default)]
pub struct Input {
    pending: Vec<Key>,
    count: Option<u32>,
    awaiting: Option<Awaiting>,
    prompt: Option<Prompt>,
}

impl Input {
    /// Resolves a key in `chain` (most specific mode first). `typing`: keys that are text go
    /// to a text field, so plain characters do not collect counts nor fire global keys or
    /// leader chords; `focus_mode` is the focused pane's, left out while the prompt has the
    /// keys.
    pub fn key(
        &mut self,
        ev: KeyEvent,
        keymap: &Keymap,
        chain: &[Mode],
        typing: bool,
        focus_mode: Mode,
    ) -> Resolved {
        let Some(key) = Key::from_event(&ev) else {
            return Resolved::Nothing;
        };
        if let Some(wait) = self.awaiting.take() {
            return match key.char() {
                Some(c) => Resolved::Mark(wait, c),
                None => Resolved::Nothing,
            };
        }
        // Counts: digits before a command, outside text entry, unless a digit is bound.
        if !typing
            && self.pending.is_empty()
            && let Some(c) = key.char()
            && c.is_ascii_digit()
            && (c != '0' || self.count.is_some())
            && keymap.lookup(chain, &[key]) == Lookup::Unbound
        {
            let d = c.to_digit(10).unwrap_or(0);
            self.count = Some(self.count.unwrap_or(0).saturating_mul(10).saturating_add(d));
            return Resolved::Nothing;
        }
        self.pending.push(key);
        let mut chain = chain.to_vec();
        // While typing, plain characters are text: global single keys and leader chords
        // (space …) must not fire.
        if typing && self.pending[0].char().is_some() {
            let prompt = self.prompt.is_some();
            chain.retain(|m| *m != Mode::Global && !(prompt && *m == focus_mode));
        }
        match keymap.lookup(&chain, &self.pending) {
            Lookup::Action(a) => {
                self.pending.clear();
                Resolved::Action(a, self.count.take())
            }
            Lookup::Pending => Resolved::Nothing,
            Lookup::Unbound => {
                let keys = std::mem::take(&mut self.pending);
                self.count = None;
                if typing && keys.len() == 1 {
                    return Resolved::Text(ev);
                }
                if keys.len() > 1 {
                    return Resolved::Unbound(format!("{} is not bound", chord_text(&keys)));
                }
                Resolved::Nothing
            }
        }
    }

    /// Esc: the chord and the count are dropped.
    pub fn clear(&mut self) {
        self.pending.clear();
        self.count = None;
    }

    pub fn wait_for(&mut self, wait: Awaiting) {
        self.awaiting = Some(wait);
    }

    pub fn open_prompt(&mut self, kind: PromptKind, text: String) {
        self.prompt = Some(Prompt { kind, text });
    }

    /// Closes the prompt, returning it.
    pub fn take_prompt(&mut self) -> Option<Prompt> {
        self.prompt.take()
    }

    /// A key typed into the prompt; the text after it.
    pub fn edit_prompt(&mut self, ev: KeyEvent) -> Option<&Prompt> {
        let p = self.prompt.as_mut()?;
        let key = Key::from_event(&ev);
        match key.map(|k| k.code) {
            Some(Code::Backspace) => {
                p.text.pop();
            }
            _ => {
                if let Some(c) = key.and_then(|k| k.char()) {
                    p.text.push(c);
                }
            }
        }
        Some(p)
    }

    pub fn prompt(&self) -> Option<&Prompt> {
        self.prompt.as_ref()
    }

    /// The keys of the chord typed so far.
    pub fn pending(&self) -> &[Key] {
        &self.pending
    }

    pub fn count(&self) -> Option<u32> {
        self.count
    }
}
