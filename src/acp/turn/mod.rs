//! The turn: the thin IO shell around two state machines.
//!
//! plan → choose the session (`SessionMachine`) → write the grant in the session's folder →
//! open/resume/load/take warm (`open`) → `session/prompt` with the rendered context block and
//! the user's text → stream `session/update`s into the thread (`writer`) under the permission
//! policy, the time limit and cancel (`machine` decides, `driver` carries out) → at the end the
//! turn's `usage.jsonl` lines and the prompt's evidence are its sources, and the answer's
//! citations are checked (`sources`).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::StopReason;
use serde::Serialize;
use tokio::sync::Notify;

use super::client::{AgentError, AgentProcess};
pub use super::events::{ToolCallInfo, ToolStatus, ToolUpdateInfo, TurnEvent};
pub use super::permission::{
    PermissionAsk, PermissionAsker, PermissionDecision, PermissionFuture, Remembered,
};
use super::session::{Effect, Event, Opening, SessionMachine};
use super::transcript::{Line, Thread};
use crate::context::citations::CitationCheck;
use crate::context::grant::{self, GrantFiles, now_rfc3339};
use crate::context::{CONTEXT_SERVER_NAME, ContextPlan, ContextRequest, Mode};
use crate::vault::Vault;

mod driver;
mod machine;
mod open;
mod sources;
mod writer;

pub struct TurnSpec {
    pub request: ContextRequest,
    /// The plan of `request`, computed once by the caller (off the async threads).
    pub plan: ContextPlan,
    /// The executable that serves `--agentero-context-mcp` (normally the current one).
    pub host_exe: std::path::PathBuf,
    pub timeout: Duration,
    /// Notified to cancel the turn (`session/cancel`).
    pub cancel: Arc<Notify>,
    /// Who answers the permission questions the rules leave open (the TUI's modal); `None`
    /// rejects them (`agentero ask`). See [`super::permission`].
    pub asker: Option<PermissionAsker>,
    /// The "always" answers of this vault (`.agentero/permissions.json`).
    pub remembered: Arc<Mutex<Remembered>>,
}

impl TurnSpec {
    /// A spec with the plan of `request` computed here (blocking: it reads the vault).
    pub fn planned(
        vault: &Vault,
        request: ContextRequest,
        host_exe: std::path::PathBuf,
        timeout: Duration,
    ) -> TurnSpec {
        let plan = crate::context::plan(vault, &request);
        TurnSpec {
            request,
            plan,
            host_exe,
            timeout,
            cancel: Arc::new(Notify::new()),
            asker: None,
            remembered: Arc::new(Mutex::new(Remembered::load(&vault.state_dir()))),
        }
    }
}

/// Milestones of a turn, measured from the start of [`run_turn`].
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// Plan, grant and thread bookkeeping (host work, agent round trips excluded).
    pub host_ms: f64,
    /// Until `session/prompt` was sent (includes opening the session).
    pub prompt_sent_ms: f64,
    pub first_chunk_ms: Option<f64>,
    pub total_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    pub answer: String,
    /// Everything the agent was given or read this turn (evidence, tool results).
    pub sources: Vec<String>,
    /// The places the answer cites, in order.
    pub cited: Vec<String>,
    /// Sources read or given but not cited.
    pub consulted: Vec<String>,
    /// The verdict on each citation of the answer.
    pub citations: Vec<CitationCheck>,
    pub thread_id: String,
    pub session_id: String,
    pub fingerprint: String,
    pub mode: Mode,
    pub stop_reason: String,
    pub session: Opening,
    pub warm: bool,
    /// Whether the agent attached the context server (absent: none was offered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attached: Option<bool>,
    pub notices: Vec<String>,
    pub timing: Timing,
}

#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error("{what}: {source}")]
    Io {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("agent {agent} refused the session: {message}")]
    Refused { agent: String, message: String },
    #[error("the session machine chose no session")]
    NoSession,
    #[error("{0}")]
    Handoff(String),
}

fn io(what: &'static str, source: std::io::Error) -> TurnError {
    TurnError::Io { what, source }
}

fn stop_name(s: StopReason) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{s:?}"))
}

/// What every phase of a turn reads.
struct Turn<'a> {
    vault: &'a Vault,
    spec: &'a TurnSpec,
    /// When [`run_turn`] started.
    t0: Instant,
}

/// Runs one turn of `thread` on `agent`. The thread's state and transcript are updated on
/// every path; on error the transcript gets an error line.
pub async fn run_turn(
    vault: &Vault,
    agent: &mut AgentProcess,
    thread: &mut Thread,
    spec: TurnSpec,
    on_event: &mut (dyn FnMut(&TurnEvent) + Send),
) -> Result<TurnOutcome, TurnError> {
    let t = Turn {
        vault,
        spec: &spec,
        t0: Instant::now(),
    };
    let plan = &spec.plan;
    let prior = thread.conversation();
    let mut machine = SessionMachine::new(thread.state.session.clone());
    let input = open::turn_input(agent, thread, &machine, plan, !prior.is_empty()).await;
    let effects = machine.handle(Event::TurnRequested(input));
    let mut notices = Vec::new();
    let session =
        open::open_session(&t, agent, thread, &mut machine, effects, &mut notices).await?;
    let turn = session.turn.clone();
    let text = open::prompt_text(&t, &session, &prior, &machine, thread);
    open::begin(&t, thread, &turn, &notices, &machine)?;

    let streamed = driver::stream(&t, agent, thread, &session, text, &mut notices, on_event).await;
    let response = match streamed.result {
        Ok(r) => r,
        Err(e) => {
            if matches!(e, AgentError::TimedOut { .. } | AgentError::Crashed { .. }) {
                // An agent that ignores cancel or died is not trusted with the next turn.
                agent.kill();
            }
            let e = TurnError::Agent(e);
            record_failure(thread, &mut machine, &turn, "", &e);
            return Err(e);
        }
    };
    let answer = streamed.answer;

    let given = sources::given(plan, session.prompt_mode);
    let uris = sources::gather(&given, &session.files, &turn);
    let attached = session.attach_mcp.then(|| attached(&session.files));
    let stop_reason = stop_name(response.stop_reason);
    let cited = sources::check(vault, &answer, &given, &uris).await;
    sources::record(vault, plan, thread, &turn, &uris, &cited);

    let effects = machine.handle(Event::TurnEnded { attached });
    let mut end_notices = Vec::new();
    apply_side_effects(&effects, thread, &machine, &mut end_notices);
    if attached == Some(false) {
        end_notices.push(not_attached_reason(&session.files, agent));
    }
    for n in &end_notices {
        on_event(&TurnEvent::Notice(n.clone()));
        let _ = thread.append(Line::Notice {
            ts: now_rfc3339(),
            turn: turn.clone(),
            text: n.clone(),
        });
    }
    notices.extend(end_notices);
    let _ = thread.append(Line::End {
        ts: now_rfc3339(),
        turn: turn.clone(),
        stop_reason: stop_reason.clone(),
        mode: session.prompt_mode.as_str().into(),
        session_id: session.session_id.clone(),
    });
    thread.state.session = machine.record.clone();
    thread
        .save_state()
        .map_err(|e| io("cannot save the thread state", e))?;
    let total = t.t0.elapsed();
    Ok(TurnOutcome {
        answer,
        sources: uris,
        cited: cited.cited,
        consulted: cited.consulted,
        citations: cited.checks,
        thread_id: thread.id.clone(),
        session_id: session.session_id,
        fingerprint: plan.fingerprint.clone(),
        mode: session.prompt_mode,
        stop_reason,
        session: session.opening,
        warm: session.warm,
        attached,
        notices,
        timing: Timing {
            host_ms: session.host.as_secs_f64() * 1e3,
            prompt_sent_ms: streamed.prompt_sent.as_secs_f64() * 1e3,
            first_chunk_ms: streamed.first_chunk.map(|d| d.as_secs_f64() * 1e3),
            total_ms: total.as_secs_f64() * 1e3,
        },
    })
}

/// Why the agent did not attach the context server, and what the user can do about it.
fn not_attached_reason(files: &GrantFiles, agent: &AgentProcess) -> String {
    let what = match grant::read_attachment(files) {
        None => format!("never started the {CONTEXT_SERVER_NAME} server"),
        Some(a) if a.initialized_at.is_none() => {
            format!("started the {CONTEXT_SERVER_NAME} server but never initialized it")
        }
        Some(_) => format!("started the {CONTEXT_SERVER_NAME} server but never listed its tools"),
    };
    let said: Vec<String> = agent
        .tail()
        .lines()
        .map(str::trim)
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("mcp") || l.contains("trust") || l.contains(CONTEXT_SERVER_NAME)
        })
        .map(str::to_string)
        .collect();
    let mut s = format!("{} {what} this turn", agent.def.name);
    if !said.is_empty() {
        s.push_str(&format!(" (it said: {})", said.join(" / ")));
    }
    s.push_str(&format!(". {}", super::adapters::attach_hint(&agent.def)));
    s
}

/// The context server recorded a client that initialized it and listed its tools.
fn attached(files: &GrantFiles) -> bool {
    grant::read_attachment(files)
        .is_some_and(|a| a.initialized_at.is_some() && a.tools_listed_at.is_some())
}

fn apply_side_effects(
    effects: &[Effect],
    thread: &mut Thread,
    machine: &SessionMachine,
    notices: &mut Vec<String>,
) {
    for e in effects {
        match e {
            Effect::Persist => {
                thread.state.session = machine.record.clone();
                if let Err(e) = thread.save_state() {
                    tracing::warn!(error = %e, "cannot save the thread state");
                }
            }
            Effect::Notice(n) => notices.push(n.clone()),
            Effect::ConsumeHandoff => {
                if let Err(e) = thread.consume_handoff() {
                    tracing::warn!(error = %e, "cannot remove HANDOFF.md");
                }
            }
            Effect::Open { .. } => {}
        }
    }
}

fn record_failure(
    thread: &mut Thread,
    machine: &mut SessionMachine,
    turn: &str,
    user_text: &str,
    e: &TurnError,
) {
    if !user_text.is_empty() {
        let _ = thread.append(Line::User {
            ts: now_rfc3339(),
            turn: turn.to_string(),
            text: user_text.to_string(),
            mentions: Vec::new(),
        });
    }
    let _ = thread.append(Line::Error {
        ts: now_rfc3339(),
        turn: turn.to_string(),
        message: e.to_string(),
    });
    machine.handle(Event::TurnFailed);
    thread.state.session = machine.record.clone();
    if let Err(e) = thread.save_state() {
        tracing::warn!(error = %e, "cannot save the thread state");
    }
}
