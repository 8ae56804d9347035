//! The turns service: the agent, its turns and the chat threads. It owns the agent process
//! (lent to one turn at a time), the threads in memory by the chat pane's id, the last Quick
//! Chat's scratch transcript, the cancel switch of each running turn and the permission
//! questions waiting for the user. Turns run in tasks of their own ([`super::turn`]) and talk
//! back on the service's channel.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::{
    UnboundedReceiver, UnboundedSender, WeakUnboundedSender, unbounded_channel,
};
use tokio::sync::{Notify, oneshot};

use super::threads;
use super::turn::{self, TurnJob};
use super::turns_cmd::{AgentSetup, Cmd, Loan, TurnKind};
use super::work::{Busy, Held};
use crate::acp::client::AgentProcess;
use crate::acp::permission::Remembered;
use crate::acp::transcript::Thread as Transcript;
use crate::context::ContextRequest;
use crate::tui::app::Msg;
use crate::tui::chips::AgentState;
use crate::tui::thread::ChatEvent;
use crate::vault::Vault;

/// How often `.agentero/chats/` is looked at for threads written by another process.
const RESCAN_EVERY: Duration = Duration::from_secs(3);

/// The door to the turns service.
pub(super) struct Turns {
    tx: UnboundedSender<Cmd>,
    busy: Busy,
}

impl Turns {
    pub(super) fn start(vault: Vault, ui: UnboundedSender<Msg>, busy: Busy) -> Turns {
        let (tx, rx) = unbounded_channel();
        let remembered = Arc::new(Mutex::new(Remembered::load(&vault.state_dir())));
        let service = Service {
            vault,
            ui,
            busy: busy.clone(),
            me: tx.downgrade(),
            setup: None,
            remembered,
            agent: None,
            lent: false,
            borrowers: VecDeque::new(),
            threads: HashMap::new(),
            quick: None,
            cancels: HashMap::new(),
            answers: HashMap::new(),
            loaded: false,
            seen: HashSet::new(),
            used: HashMap::new(),
        };
        // The clock of the rescan: threads other processes write appear without a restart.
        let me = tx.downgrade();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(RESCAN_EVERY).await;
                match me.upgrade() {
                    Some(tx) if tx.send(Cmd::Rescan).is_ok() => {}
                    _ => break,
                }
            }
        });
        tokio::spawn(service.serve(rx));
        Turns { tx, busy }
    }

    /// Sends `cmd` built around a count of busy work (it ends when the service is done).
    pub(super) fn counted(&self, cmd: impl FnOnce(Held) -> Cmd) {
        let _ = self.tx.send(cmd(self.busy.hold()));
    }

    pub(super) fn send(&self, cmd: Cmd) {
        let _ = self.tx.send(cmd);
    }

    /// The channel turns report on (for [`turn::ui_asker`] in tests).
    #[cfg(test)]
    pub(super) fn home(&self) -> UnboundedSender<Cmd> {
        self.tx.clone()
    }
}

struct Service {
    vault: Vault,
    ui: UnboundedSender<Msg>,
    busy: Busy,
    /// Its own channel, for the tasks it starts (weak: the service ends with the runner).
    me: WeakUnboundedSender<Cmd>,
    setup: Option<AgentSetup>,
    /// The "always" permission answers of this vault (`.agentero/permissions.json`), shared
    /// with the turn running (the acp layer records new ones in it).
    remembered: Arc<Mutex<Remembered>>,
    /// The agent process while no one borrows it.
    agent: Option<AgentProcess>,
    lent: bool,
    /// Who waits for the agent, first come first served.
    borrowers: VecDeque<oneshot::Sender<Loan>>,
    /// Threads by the chat pane's id (new threads have a local id until their first turn).
    threads: HashMap<String, Transcript>,
    /// The last Quick Chat's scratch transcript, by turn, kept for `Effect::Promote`.
    quick: Option<(u64, Transcript)>,
    cancels: HashMap<u64, Arc<Notify>>,
    /// Answers for permission questions on screen, by question id.
    answers: HashMap<String, oneshot::Sender<Option<String>>>,
    /// The threads on disk have been loaded (a rescan before that would find them all).
    loaded: bool,
    /// The ids of every transcript this run has held: a rescan brings only others.
    seen: HashSet<String>,
    /// When each agent session last ended a turn: an idle one is closed (see
    /// [`Service::reap_idle`]).
    used: HashMap<String, std::time::Instant>,
}

impl Service {
    async fn serve(mut self, mut rx: UnboundedReceiver<Cmd>) {
        while let Some(cmd) = rx.recv().await {
            self.handle(cmd);
        }
    }

    fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Setup(s) => self.setup = Some(*s),
            Cmd::StartAgent { held } => self.start_agent(held),
            Cmd::Turn {
                turn,
                thread,
                request,
                kind,
                held,
            } => self.turn(turn, thread, *request, kind, held),
            Cmd::Cancel { turn } => {
                if let Some(c) = self.cancels.get(&turn) {
                    // notify_one keeps the permit if the driver is not waiting yet.
                    c.notify_one();
                }
            }
            Cmd::Answer { request, option } => {
                if let Some(tx) = self.answers.remove(&request) {
                    let _ = tx.send(option);
                }
            }
            Cmd::Plan { seq, request, held } => self.plan(seq, *request, held),
            Cmd::ThreadId { id, reply } => {
                let known = self.threads.get(&id).map(|t| t.id.clone());
                let _ = reply.send(known.unwrap_or(id));
            }
            Cmd::Ask { id, answer } => {
                self.answers.insert(id, answer);
            }
            Cmd::Asked { id } => {
                self.answers.remove(&id);
            }
            Cmd::Borrow(borrower) => {
                self.borrowers.push_back(borrower);
                self.lend();
            }
            Cmd::Return(agent) => {
                self.agent = agent.map(|a| *a);
                self.lent = false;
                self.lend();
            }
            Cmd::Finished {
                turn,
                thread_id,
                thread,
                kind,
                held,
            } => self.finished(turn, thread_id, *thread, kind, held),
            other => self.threads_cmd(other),
        }
    }

    /// The commands on the threads in memory and on disk.
    fn threads_cmd(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::LoadThreads { held } => {
                let (vault, me) = (self.vault.clone(), self.me.clone());
                tokio::task::spawn_blocking(move || {
                    // Quick Chats of an earlier run that were never promoted or closed (the
                    // app quit with the popup open): nothing refers to them any more.
                    let _ = crate::vault::statefs::remove_dir_all(
                        &vault.state_dir().join(threads::QUICK_DIR),
                    );
                    let found = threads::load(&vault);
                    if let Some(me) = me.upgrade() {
                        let _ = me.send(Cmd::ThreadsLoaded { found, held });
                    }
                });
            }
            Cmd::ThreadsLoaded { found, held } => {
                let _ = self.ui.send(Msg::Threads(threads::shown(&found)));
                for t in found {
                    self.seen.insert(t.id.clone());
                    self.threads.entry(t.id.clone()).or_insert(t);
                }
                self.loaded = true;
                drop(held);
            }
            // Not while a turn runs: a thread begun in this run gets its transcript's id only
            // when its turn gives it back.
            Cmd::Rescan if self.loaded && self.cancels.is_empty() => {
                self.reap_idle();
                let mut known = self.seen.clone();
                known.extend(self.threads.keys().cloned());
                known.extend(self.threads.values().map(|t| t.id.clone()));
                let (vault, me) = (self.vault.clone(), self.me.clone());
                tokio::task::spawn_blocking(move || {
                    let found = threads::new_on_disk(&vault, &known);
                    if !found.is_empty()
                        && let Some(me) = me.upgrade()
                    {
                        let _ = me.send(Cmd::Rescanned { found });
                    }
                });
            }
            Cmd::Rescanned { found } => {
                let found: Vec<Transcript> = found
                    .into_iter()
                    .filter(|t| !self.seen.contains(&t.id) && !self.threads.contains_key(&t.id))
                    .collect();
                if !found.is_empty() {
                    let _ = self.ui.send(Msg::ThreadsArrived(threads::shown(&found)));
                    for t in found {
                        self.seen.insert(t.id.clone());
                        self.threads.insert(t.id.clone(), t);
                    }
                }
            }
            Cmd::Promote { turn, held } => {
                let Some((_, quick)) = self.quick.take_if(|(t, _)| *t == turn) else {
                    let gone = "this Quick Chat is gone (it was closed or replaced)";
                    let _ = self.ui.send(Msg::Promoted(Err(gone.into())));
                    return;
                };
                let (vault, me) = (self.vault.clone(), self.me.clone());
                tokio::task::spawn_blocking(move || {
                    let result = threads::promote(&vault, quick).map(Box::new);
                    if let Some(me) = me.upgrade() {
                        let _ = me.send(Cmd::Promoted { result, held });
                    }
                });
            }
            Cmd::Promoted { result, held } => {
                let shown = result.map(|thread| {
                    let shown = crate::tui::thread::from_transcript(&thread);
                    self.seen.insert(thread.id.clone());
                    self.threads.insert(thread.id.clone(), *thread);
                    shown
                });
                let _ = self.ui.send(Msg::Promoted(shown));
                drop(held);
            }
            Cmd::DropQuick { turn, held } => {
                if let Some((_, q)) = self.quick.take_if(|(t, _)| *t == turn) {
                    tokio::task::spawn_blocking(move || {
                        let _ = crate::vault::statefs::remove_dir_all(&q.dir);
                        drop(held);
                    });
                }
            }
            _ => {}
        }
    }

    /// Lends the agent to the first borrower still waiting, if no one has it.
    /// Closes the agent's sessions idle for the setup's `session_idle` (no turn runs, the agent is home):
    /// each holds a context server, so nine threads held nine. Only with an agent that can
    /// open a closed session again (resume or load), so the thread goes on where it was.
    fn reap_idle(&mut self) {
        if self.lent {
            return;
        }
        let Some(agent) = self.agent.as_ref() else {
            return;
        };
        if !agent.info.close || !(agent.info.resume || agent.info.load_session) {
            return;
        }
        let Some(idle) = self.setup.as_ref().map(|s| s.session_idle) else {
            return;
        };
        let ids: Vec<String> = self
            .used
            .iter()
            .filter(|(id, at)| at.elapsed() >= idle && agent.live_since(id).is_some())
            .map(|(id, _)| id.clone())
            .collect();
        if ids.is_empty() {
            return;
        }
        let Some(home) = self.me.upgrade() else {
            return;
        };
        for id in &ids {
            self.used.remove(id);
        }
        self.lent = true;
        let loan = Loan {
            agent: self.agent.take(),
            home,
        };
        tokio::spawn(async move {
            if let Some(a) = loan.agent.as_ref() {
                for id in ids {
                    a.close_session(&id).await;
                }
            }
            drop(loan);
        });
    }

    fn lend(&mut self) {
        while !self.lent {
            let Some(borrower) = self.borrowers.pop_front() else {
                return;
            };
            let Some(home) = self.me.upgrade() else {
                return;
            };
            self.lent = true;
            let loan = Loan {
                agent: self.agent.take(),
                home,
            };
            // A borrower gone meanwhile drops the loan, which comes back as a Return.
            let _ = borrower.send(loan);
        }
    }

    fn start_agent(&mut self, held: Held) {
        let Some(setup) = self.setup.clone() else {
            let _ = self.ui.send(Msg::Agent(AgentState::Unavailable(
                "no agent is configured".into(),
            )));
            return;
        };
        let (vault, ui) = (self.vault.clone(), self.ui.clone());
        let Some(home) = self.me.upgrade() else {
            return;
        };
        self.busy.task(async move {
            let _held = held;
            turn::start_agent(&vault, &ui, &home, &setup).await;
        });
    }

    fn turn(
        &mut self,
        turn: u64,
        thread_id: String,
        request: ContextRequest,
        kind: TurnKind,
        held: Held,
    ) {
        let Some(setup) = self.setup.clone() else {
            let failed = ChatEvent::TurnFailed("no agent is configured".into());
            let _ = self.ui.send(Msg::Chat {
                turn,
                event: failed,
            });
            let _ = self.ui.send(Msg::TurnDone { turn });
            return;
        };
        let Some(home) = self.me.upgrade() else {
            return;
        };
        let cancel = Arc::new(Notify::new());
        self.cancels.insert(turn, cancel.clone());
        let thread = match kind {
            TurnKind::Quick => None,
            _ => self.threads.remove(&thread_id),
        };
        let job = TurnJob {
            turn,
            thread_id,
            thread,
            request,
            kind,
            setup,
            cancel,
            remembered: self.remembered.clone(),
        };
        let (vault, ui) = (self.vault.clone(), self.ui.clone());
        self.busy
            .task(async move { turn::run(vault, ui, home, job, held).await });
    }

    fn finished(
        &mut self,
        turn: u64,
        thread_id: String,
        thread: Transcript,
        kind: TurnKind,
        held: Held,
    ) {
        if kind == TurnKind::Quick {
            // One Quick Chat at a time: the one before it was closed or promoted already.
            if let Some((_, old)) = self.quick.replace((turn, thread)) {
                let gone = held.again();
                tokio::task::spawn_blocking(move || {
                    let _ = std::fs::remove_dir_all(&old.dir);
                    drop(gone);
                });
            }
        } else {
            if let Some(id) = thread.state.session.session_id.clone() {
                self.used.insert(id, std::time::Instant::now());
            }
            self.seen.insert(thread.id.clone());
            self.threads.insert(thread_id, thread);
        }
        self.cancels.remove(&turn);
        // Questions of this turn that ended unanswered (the turn answered them `cancelled`).
        let prefix = format!("{turn}-");
        self.answers.retain(|id, _| !id.starts_with(&prefix));
        let _ = self.ui.send(Msg::TurnDone { turn });
        drop(held);
    }

    /// The preview of the grant a turn would get (with the budget the turn will use).
    fn plan(&self, seq: u64, mut request: ContextRequest, held: Held) {
        if let Some(s) = &self.setup {
            request.budget = s.budget;
        }
        let (vault, ui) = (self.vault.clone(), self.ui.clone());
        tokio::task::spawn_blocking(move || {
            let preview = crate::context::plan(&vault, &request).preview();
            let _ = ui.send(Msg::Plan { seq, preview });
            drop(held);
        });
    }
}
