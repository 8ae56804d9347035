//! What the runner, the turns service ([`super::turns`]) and a running turn
//! ([`super::turn`]) say to each other: the service's commands, the agent's loan, and the
//! agent set-up turns run with.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use super::work::Held;
use crate::acp::client::AgentProcess;
use crate::acp::transcript::Thread as Transcript;
use crate::config::AgentDef;
use crate::context::{Budget, ContextRequest};

/// The agent the chat talks to and how turns run (from the config).
#[derive(Debug, Clone)]
pub struct AgentSetup {
    pub def: AgentDef,
    /// The executable that serves `--agentero-context-mcp` (normally the current one).
    pub host_exe: PathBuf,
    pub budget: Budget,
    pub timeout: Duration,
    /// How long a session may sit idle before it is closed (its context server stopped; its
    /// next turn reopens it), when the agent can close and reopen sessions.
    pub session_idle: Duration,
}

/// What a turn is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TurnKind {
    Chat,
    Handoff,
    /// A Quick Chat question: a scratch transcript outside `chats/`, so it is not a thread
    /// until promoted.
    Quick,
}

pub(super) enum Cmd {
    Setup(Box<AgentSetup>),
    StartAgent {
        held: Held,
    },
    Turn {
        turn: u64,
        thread: String,
        request: Box<ContextRequest>,
        kind: TurnKind,
        held: Held,
    },
    Cancel {
        turn: u64,
    },
    Answer {
        request: String,
        option: Option<String>,
    },
    Plan {
        seq: u64,
        request: Box<ContextRequest>,
        held: Held,
    },
    LoadThreads {
        held: Held,
    },
    Promote {
        turn: u64,
        held: Held,
    },
    DropQuick {
        turn: u64,
        held: Held,
    },
    /// The id of the thread behind the chat pane's id (a thread begun in this run has a
    /// local id until its transcript is made).
    ThreadId {
        id: String,
        reply: oneshot::Sender<String>,
    },
    /// From a turn: a question put to the user, answered through `answer`.
    Ask {
        id: String,
        answer: oneshot::Sender<Option<String>>,
    },
    /// From a turn: the question `id` is over (answered or not).
    Asked {
        id: String,
    },
    /// From a turn or the agent's start: the agent, lent as soon as no one else has it.
    Borrow(oneshot::Sender<Loan>),
    /// The agent back from its borrower (`None`: it was never started or failed to start).
    Return(Option<Box<AgentProcess>>),
    /// From a turn: it ended; its thread goes back to memory.
    Finished {
        turn: u64,
        thread_id: String,
        thread: Box<Transcript>,
        kind: TurnKind,
        held: Held,
    },
    ThreadsLoaded {
        found: Vec<Transcript>,
        held: Held,
    },
    /// From the service's clock: look for threads another process (`agentero ask`, a second
    /// app) has written to `.agentero/chats/` since they were loaded.
    Rescan,
    /// Those threads, read.
    Rescanned {
        found: Vec<Transcript>,
    },
    Promoted {
        result: Result<Box<Transcript>, String>,
        held: Held,
    },
}

/// The agent while a borrower has it; dropping the loan gives it back to the service.
pub(super) struct Loan {
    pub(super) agent: Option<AgentProcess>,
    pub(super) home: UnboundedSender<Cmd>,
}

impl Drop for Loan {
    fn drop(&mut self) {
        let _ = self.home.send(Cmd::Return(self.agent.take().map(Box::new)));
    }
}

/// Asks the service at `home` for the agent and waits for its turn (`None`: the service is
/// gone).
pub(super) async fn borrow(home: &UnboundedSender<Cmd>) -> Option<Loan> {
    let (tx, rx) = oneshot::channel();
    home.send(Cmd::Borrow(tx)).ok()?;
    rx.await.ok()
}
