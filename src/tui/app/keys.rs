//! Keys: which modes apply (overlay → Quick Chat → prompt → focused pane → global), and where
//! each resolved action goes.

use ratatui::crossterm::event::KeyEvent;

use super::{AppState, Status};
use crate::context::check::source::DraftAt;
use crate::tui::action::Action;
use crate::tui::browser::BrowserMsg;
use crate::tui::chat::{ChatMsg, Compose, FindThreads};
use crate::tui::checklist::Checklist;
use crate::tui::chips::{AgentState, Gate, Ticket};
use crate::tui::effect::{Effect, MarksEffect, Out, OverlayRequest, Pane, PromptKind};
use crate::tui::input::Resolved;
use crate::tui::keymap::Mode;
use crate::tui::overlay::{Choice, Overlay, OverlayKind, recent, results};
use crate::tui::paper::PaperMsg;
use crate::tui::quick::QuickMsg;

impl AppState {
    /// Modes to look keys up in, most specific first.
    pub fn mode_chain(&self) -> Vec<Mode> {
        let mut chain = Vec::new();
        match &self.overlay {
            Some(Overlay::Permission { .. }) => return vec![Mode::Permission, Mode::Global],
            // The thread list's filter being typed.
            Some(o) if o.kind() == OverlayKind::Threads && self.threads_prompt() => {
                return vec![Mode::Prompt, Mode::Global];
            }
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
        if self.input.prompt().is_some() {
            chain.push(Mode::Prompt);
        }
        chain.push(self.focus_mode());
        chain.push(Mode::Global);
        chain
    }

    pub fn focus_mode(&self) -> Mode {
        match self.focus {
            Pane::Vault if self.checklist_shown() => Mode::Checklist,
            Pane::Vault => Mode::Vault,
            Pane::Paper if self.paper.in_visual() => Mode::Visual,
            Pane::Paper => Mode::Paper,
            Pane::Chat => match self.chat.compose() {
                Compose::Mention(_) => Mode::Mention,
                Compose::On => Mode::Input,
                Compose::Off => Mode::Chat,
            },
        }
    }

    /// Whether the prompt is the thread list's filter.
    pub(super) fn threads_prompt(&self) -> bool {
        self.input
            .prompt()
            .is_some_and(|p| p.kind == PromptKind::Threads)
    }

    /// Whether typed characters are text for a field (the prompt, a message, a question).
    fn typing(&self) -> bool {
        if self.overlay().is_some_and(|k| k == OverlayKind::Threads) && self.threads_prompt() {
            return true;
        }
        if self.overlay.is_none()
            && let Some(q) = &self.quick
        {
            return q.composing();
        }
        self.overlay.is_none() && (self.input.prompt().is_some() || self.focus_mode().is_text())
    }

    pub(super) fn on_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        let chain = self.mode_chain();
        let (typing, focus_mode) = (self.typing(), self.focus_mode());
        let resolved = self.input.key(ev, &self.keymap, &chain, typing, focus_mode);
        // ctrl-c twice quits: any other key in between disarms it.
        if !matches!(resolved, Resolved::Action(Action::Interrupt, _)) {
            self.interrupt_armed = false;
        }
        match resolved {
            Resolved::Nothing => Vec::new(),
            Resolved::Action(action, count) => self.dispatch(action, count),
            Resolved::Text(ev) => self.type_key(ev),
            Resolved::Mark(wait, c) => self.send_paper(PaperMsg::Mark(wait, c)),
            Resolved::Unbound(why) => {
                self.status = Status::info(why);
                Vec::new()
            }
        }
    }

    /// A key that is text: into the prompt, the Quick Chat's question or the message.
    fn type_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if let Some(p) = self.input.edit_prompt(ev) {
            if p.kind == PromptKind::Threads {
                let find = FindThreads::Typed(p.text.clone());
                return self.send_chat(ChatMsg::FindThreads(find));
            }
            if p.kind == PromptKind::Filter {
                let text = p.text.clone();
                let out = self.browser.update(BrowserMsg::Filter(text));
                return self.apply(out);
            }
            return Vec::new();
        }
        if let Some(q) = self.quick.as_mut().filter(|q| q.composing()) {
            let out = q.update(QuickMsg::Key(ev));
            return self.apply(out);
        }
        if self.focus == Pane::Chat && *self.chat.compose() != Compose::Off {
            return self.send_chat(ChatMsg::Key(ev));
        }
        Vec::new()
    }

    /// Whether a question may start a turn now (one turn at a time, chat and Quick Chat
    /// together); the ticket carries the turn's id.
    fn gate(&mut self) -> Gate {
        match self.chat.agent() {
            AgentState::Unavailable(why) => Err(Status::error(format!("agent unavailable: {why}"))),
            AgentState::Starting { name } => {
                Err(Status::info(format!("agent {name} is still starting")))
            }
            AgentState::Ready { .. }
                if self.chat.turn().is_some()
                    || self.quick.as_ref().is_some_and(|q| q.turn().is_some()) =>
            {
                let key = self.keymap.hint(&[Mode::Global], Action::CancelTurn);
                Err(Status::info(format!(
                    "a turn is running ({key} cancels it)"
                )))
            }
            AgentState::Ready { remote, .. } => {
                let remote = *remote;
                self.next_turn += 1;
                Ok(Ticket {
                    turn: self.next_turn,
                    remote,
                })
            }
        }
    }

    /// ctrl-c: a running turn (the chat's or the Quick Chat's) is cancelled; with nothing
    /// running a first press says how to quit and a second one quits (as in Claude Code).
    fn interrupt(&mut self) -> Vec<Effect> {
        let key = self.keymap.hint(&[Mode::Global], Action::Interrupt);
        let quick_turn = self.quick.as_ref().and_then(|q| q.turn());
        if quick_turn.is_some() || self.chat.turn().is_some() {
            self.interrupt_armed = true;
            let mut fx = match self.quick.as_mut().filter(|_| quick_turn.is_some()) {
                Some(q) => {
                    let out = q.update(QuickMsg::Action {
                        action: Action::CancelTurn,
                        count: None,
                    });
                    self.apply(out)
                }
                None => self.send_chat(ChatMsg::Action {
                    action: Action::CancelTurn,
                    count: None,
                }),
            };
            fx.extend(self.apply(vec![Out::info(format!(
                "turn cancelled ({key} again quits)"
            ))]));
            return fx;
        }
        if self.interrupt_armed {
            return self.apply(vec![Out::Quit]);
        }
        self.interrupt_armed = true;
        let quit = self.keymap.hint(&[Mode::Global], Action::Quit);
        self.status = Status::info(format!("press {key} again to quit (or {quit})"));
        Vec::new()
    }

    fn dispatch(&mut self, action: Action, count: Option<u32>) -> Vec<Effect> {
        if action == Action::Interrupt {
            return self.interrupt();
        }
        // The thread list's filter: enter keeps what it found, esc lists every thread again.
        if self.threads_prompt() && matches!(action, Action::Open | Action::Cancel) {
            self.input.take_prompt();
            let find = if action == Action::Cancel {
                FindThreads::Cleared
            } else {
                FindThreads::Kept
            };
            return self.send_chat(ChatMsg::FindThreads(find));
        }
        if action == Action::Undo {
            return self.undo();
        }
        // An overlay takes the keys first.
        if let Some(overlay) = self.overlay.as_mut() {
            let choice = overlay.update(action, count, self.size.1 as usize);
            return self.choose(choice);
        }
        // The Quick Chat popup keeps every key but the global help, quit and suspend.
        if let Some(q) = self.quick.as_mut()
            && !matches!(action, Action::Help | Action::Quit | Action::Suspend)
        {
            let out = if action == Action::Send {
                let gate = self.gate();
                self.quick
                    .as_mut()
                    .map_or_else(Vec::new, |q| q.update(QuickMsg::Send(gate)))
            } else {
                q.update(QuickMsg::Action { action, count })
            };
            return self.apply(out);
        }
        if self.input.prompt().is_some() && matches!(action, Action::Open | Action::Cancel) {
            let Some(p) = self.input.take_prompt() else {
                return Vec::new();
            };
            return match (action, p.kind) {
                (Action::Open, PromptKind::Search) => self.send_paper(PaperMsg::Search(p.text)),
                (Action::Open, PromptKind::VaultSearch) => self.vault_search(p.text),
                (Action::Open, PromptKind::Comment) => {
                    self.send_paper(PaperMsg::Comment(Some(p.text)))
                }
                (Action::Cancel, PromptKind::Comment) => self.send_paper(PaperMsg::Comment(None)),
                (Action::Cancel, PromptKind::Filter) => {
                    let out = self.browser.update(BrowserMsg::Filter(String::new()));
                    self.apply(out)
                }
                _ => Vec::new(),
            };
        }
        match action {
            Action::Quit => self.apply(vec![Out::Quit]),
            Action::Suspend => vec![Effect::Suspend],
            Action::Help => self.apply(vec![Out::Overlay(OverlayRequest::Help)]),
            Action::Cancel => self.cancel(),
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
                self.send_chat(ChatMsg::Focused)
            }
            Action::Compose => {
                self.focus = Pane::Chat;
                self.send_chat(ChatMsg::Compose)
            }
            // The chat's thread keys and the paper's Quick Chat and jump list work from every
            // pane.
            Action::NewThread | Action::Threads | Action::CancelTurn => {
                self.send_chat(ChatMsg::Action {
                    action,
                    count: None,
                })
            }
            Action::ToggleVaultMcp => vec![Effect::ToggleVaultMcp],
            Action::CheckCitations => self.check_citations(),
            Action::Checklist => self.toggle_checklist(),
            Action::ReopenQuick => self.reopen_quick(),
            Action::Recent => {
                let list = recent::list(self.recent_titled());
                self.apply(vec![Out::Overlay(OverlayRequest::List(list))])
            }
            Action::VaultSearch => self.apply(vec![Out::Prompt {
                kind: PromptKind::VaultSearch,
                text: String::new(),
            }]),
            Action::Handoff => {
                let gate = self.gate();
                self.send_chat(ChatMsg::Handoff(gate))
            }
            Action::QuickChat | Action::JumpBack | Action::JumpForward => {
                self.send_paper(PaperMsg::Action {
                    action,
                    count: None,
                })
            }
            _ => match self.focus {
                Pane::Vault if self.checklist_shown() => self.checklist_action(action, count),
                Pane::Vault => {
                    let rows = self.areas().vault.height.saturating_sub(2) as usize;
                    let out = self.browser.update(BrowserMsg::Action {
                        action,
                        count,
                        rows,
                    });
                    self.apply(out)
                }
                Pane::Paper => self.send_paper(PaperMsg::Action { action, count }),
                Pane::Chat if action == Action::Send => {
                    let gate = self.gate();
                    self.send_chat(ChatMsg::Send(gate))
                }
                Pane::Chat => self.send_chat(ChatMsg::Action { action, count }),
            },
        }
    }

    /// esc: the prompt's keys cleared; then the chat's cancel, the checklist hidden, the
    /// browser's filter cleared, or the paper's selection dropped.
    fn cancel(&mut self) -> Vec<Effect> {
        self.input.clear();
        if self.chat.cancels(self.focus == Pane::Chat) {
            return self.send_chat(ChatMsg::Cancel);
        }
        if self.focus == Pane::Vault && self.checklist_shown() {
            return self.show_checklist(false);
        }
        if self.focus == Pane::Vault && !self.browser.filter().is_empty() {
            let rows = self.areas().vault.height.saturating_sub(2) as usize;
            let out = self.browser.update(BrowserMsg::Action {
                action: Action::Cancel,
                count: None,
                rows,
            });
            return self.apply(out);
        }
        self.send_paper(PaperMsg::Cancel)
    }

    /// `u`: the highlight deleted last is put back.
    fn undo(&mut self) -> Vec<Effect> {
        match self.undo.take() {
            Some((path, highlight)) => {
                vec![Effect::Marks(MarksEffect::Restore { path, highlight })]
            }
            None => self.apply(vec![Out::info("nothing to undo")]),
        }
    }

    /// `space /` then enter: the results overlay opens while the index is searched.
    fn vault_search(&mut self, query: String) -> Vec<Effect> {
        if query.trim().is_empty() {
            return Vec::new();
        }
        let seq = self.search.0 + 1;
        self.search = (seq, query.clone());
        let list = results::searching(seq, &query);
        let mut fx = self.apply(vec![Out::Overlay(OverlayRequest::List(list))]);
        fx.push(Effect::VaultSearch { seq, query });
        fx
    }

    /// `c` on a manuscript in the browser: the checklist takes the browser's place while its
    /// citations are checked.
    fn check_citations(&mut self) -> Vec<Effect> {
        let draft = self
            .browser
            .current()
            .filter(|e| e.kind == crate::vault::EntryKind::File)
            .map(|e| e.path.clone())
            .filter(|p| {
                let ext = p.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
                matches!(
                    ext.as_deref(),
                    Some("md" | "markdown" | "tex" | "latex" | "txt" | "qmd" | "rmd")
                )
            });
        let Some(path) = draft else {
            return self.apply(vec![Out::error(
                "c checks a manuscript's citations: select a .md, .tex or .txt file",
            )]);
        };
        self.open_draft(DraftAt::Vault(path), Vec::new())
    }

    /// The checklist of a manuscript (in the vault or named on the command line, with these
    /// bibliographies), shown beside the paper and focused while it is checked; saves check
    /// it again.
    pub fn open_draft(&mut self, draft: DraftAt, bibs: Vec<std::path::PathBuf>) -> Vec<Effect> {
        self.check_seq += 1;
        let mut list = Checklist::new(draft, bibs);
        let mut fx = vec![list.recheck(self.check_seq), list.watch_effect()];
        self.checklist = Some(list);
        self.focus = Pane::Vault;
        fx.extend(self.apply(vec![Out::info(
            "checking the citations… (enter opens one, ]/[ the next to look at, esc the vault)",
        )]));
        fx
    }

    pub(super) fn checklist_shown(&self) -> bool {
        self.checklist.as_ref().is_some_and(|c| c.shown)
    }

    /// `space k`: the checklist shown and focused; when it is already, the vault browser back.
    fn toggle_checklist(&mut self) -> Vec<Effect> {
        match &self.checklist {
            None => self.apply(vec![Out::info(
                "no checklist yet: c on a manuscript (.md, .tex, .txt) in the vault browser checks its citations",
            )]),
            Some(c) if c.shown && self.focus == Pane::Vault => self.show_checklist(false),
            Some(_) => self.show_checklist(true),
        }
    }

    /// Shows (and focuses) or hides the checklist; it is watched for saves while shown.
    fn show_checklist(&mut self, show: bool) -> Vec<Effect> {
        let Some(c) = self.checklist.as_mut() else {
            return Vec::new();
        };
        c.shown = show;
        let mut fx = vec![c.watch_effect()];
        if show {
            self.focus = Pane::Vault;
            let rows = self.checklist_rows();
            if let Some(c) = self.checklist.as_mut() {
                c.follow(rows);
            }
        } else if self.focus == Pane::Vault {
            fx.push(Effect::Scan);
        }
        fx
    }

    /// How many rows the checklist shows.
    fn checklist_rows(&self) -> usize {
        let n = self.checklist.as_ref().map_or(0, |c| c.rows().len());
        crate::tui::checklist::view::list_rows(self.areas().vault.height.saturating_sub(2), n)
    }

    /// A key on the shown checklist: its rows and what they open (the checklist keeps the
    /// focus, the paper beside it shows the page).
    fn checklist_action(&mut self, action: Action, count: Option<u32>) -> Vec<Effect> {
        let rows = self.checklist_rows();
        let Some(c) = self.checklist.as_mut() else {
            return Vec::new();
        };
        if action == Action::Recheck {
            self.check_seq += 1;
            let fx = vec![c.recheck(self.check_seq)];
            return fx;
        }
        let out = c.update(action, count, rows);
        let mut fx = self.apply(out);
        self.focus = Pane::Vault;
        fx.retain(|e| !matches!(e, Effect::Scan));
        fx
    }

    /// The wheel over the checklist: the selection moves.
    pub(super) fn checklist_wheel(&mut self, action: Action, by: u32) -> Vec<Effect> {
        self.checklist_action(action, Some(by))
    }

    /// A click on row `i` of the checklist selects it; on the selected row of the focused
    /// checklist, opens it.
    pub(super) fn checklist_click(&mut self, i: usize, focused: bool) -> Vec<Effect> {
        let again = focused && self.checklist.as_ref().is_some_and(|c| c.selected == i);
        if let Some(c) = self.checklist.as_mut() {
            c.selected = i;
        }
        if again {
            self.checklist_action(Action::Open, None)
        } else {
            Vec::new()
        }
    }

    /// The report of check `seq`: the checklist gets its rows (a late report of an older
    /// check is dropped).
    pub(super) fn checked(
        &mut self,
        seq: u64,
        result: Result<Box<crate::context::check::source::DraftReport>, String>,
    ) -> Vec<Effect> {
        let Some(c) = self.checklist.as_mut() else {
            return Vec::new();
        };
        if !c.checked(seq, result.map(|r| *r)) {
            return Vec::new();
        }
        let rows = self.checklist_rows();
        let Some(c) = self.checklist.as_mut() else {
            return Vec::new();
        };
        c.follow(rows);
        let say = match &c.result {
            Some(Ok(r)) => {
                let s = &r.report.summary;
                let name = c.draft.name();
                let name = name.rsplit('/').next().unwrap_or(&name).to_string();
                let what = if s.problems == 0 {
                    "nothing needs a look".to_string()
                } else {
                    format!("{} need a look (] opens the next)", s.problems)
                };
                Out::info(format!(
                    "{}: {} citations, {} ✓, {}",
                    crate::vault::visible::visible(&name),
                    s.citations,
                    s.verified,
                    what
                ))
            }
            Some(Err(e)) => Out::error(format!("cannot check: {e}")),
            None => return Vec::new(),
        };
        self.apply(vec![say])
    }

    /// The manuscript was saved: checked again (when the watch is the checklist's current one).
    pub(super) fn draft_saved(&mut self, id: u64) -> Vec<Effect> {
        match self.checklist.as_mut() {
            Some(c) if c.shown && c.watch == id => {
                self.check_seq += 1;
                vec![c.recheck(self.check_seq)]
            }
            _ => Vec::new(),
        }
    }

    /// What a choice on an overlay comes to: the overlay closes, its row's outs are carried
    /// out.
    fn choose(&mut self, choice: Choice) -> Vec<Effect> {
        match choice {
            Choice::Stay => Vec::new(),
            Choice::Close => {
                self.overlay = None;
                Vec::new()
            }
            Choice::Run { close, outs } => {
                if close {
                    self.overlay = None;
                }
                self.apply(outs)
            }
            Choice::Answer {
                turn,
                request,
                option,
            } => {
                self.overlay = None;
                vec![Effect::AnswerPermission {
                    turn,
                    request,
                    option,
                }]
            }
            Choice::Help => self.apply(vec![Out::Overlay(OverlayRequest::Help)]),
            Choice::Quit => self.apply(vec![Out::Quit]),
        }
    }
}
