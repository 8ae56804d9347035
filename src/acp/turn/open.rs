//! Before the prompt: the session the [`SessionMachine`] chose, opened (a refused resume/load
//! goes round once more with `session/new`) in a session folder with this turn's grant, the
//! prompt's text, and the turn's first transcript lines.

use std::time::{Duration, Instant};

use super::super::client::{AgentProcess, OpenError, unix_now};
use super::super::seed::{PriorMessage, conversation_seed};
use super::super::session::{Caps, Effect, Event, Open, Opening, Seed, SessionMachine, TurnInput};
use super::super::transcript::{Line, Thread};
use super::{Turn, TurnError, apply_side_effects, io, record_failure};
use crate::context::grant::{self, GrantFiles, new_id, now_rfc3339};
use crate::context::{ContextPlan, Mode, prompt};

/// The session a turn prompts, open.
pub(super) struct OpenedSession {
    pub session_id: String,
    /// The session's folder (its cwd, grant and `usage.jsonl`).
    pub files: GrantFiles,
    /// The turn's id (the grant's).
    pub turn: String,
    pub opening: Opening,
    /// A session of the warm pool.
    pub warm: bool,
    /// The context server was offered.
    pub attach_mcp: bool,
    pub seed: Seed,
    pub prompt_mode: Mode,
    /// Host work until the session was open (agent round trips excluded).
    pub host: Duration,
}

/// What the session machine chooses from.
pub(super) async fn turn_input(
    agent: &AgentProcess,
    thread: &Thread,
    machine: &SessionMachine,
    plan: &ContextPlan,
    has_history: bool,
) -> TurnInput {
    let record = &machine.record;
    let live = record
        .session_id
        .clone()
        .filter(|id| record.agent == agent.def.name && agent.live_since(id).is_some());
    let reopen_hazard =
        super::super::adapters::reopen_hazard(agent.def.adapter, record.opened_at, unix_now());
    TurnInput {
        agent: agent.def.name.clone(),
        fingerprint: plan.fingerprint.clone(),
        mode: plan.mode,
        caps: Caps {
            load_session: agent.info.load_session,
            resume: agent.info.resume,
        },
        live,
        reopen_hazard,
        warm_available: agent.warm_available().await,
        has_handoff: thread.handoff().is_some(),
        has_history,
    }
}

/// Opens the session `effects` (the machine's answer to the turn's request) choose; a refused
/// resume/load loops once more with `session/new`. A failure is recorded in the thread.
pub(super) async fn open_session(
    t: &Turn<'_>,
    agent: &AgentProcess,
    thread: &mut Thread,
    machine: &mut SessionMachine,
    mut effects: Vec<Effect>,
    notices: &mut Vec<String>,
) -> Result<OpenedSession, TurnError> {
    if let Some(w) = agent.protections.warning(&agent.def.name) {
        notices.push(w);
    }
    let mut rpc = Duration::ZERO;
    loop {
        let Some((how, attach_mcp, seed, prompt_mode)) = Effect::open_of(&effects) else {
            return Err(TurnError::NoSession);
        };
        apply_side_effects(&effects, thread, machine, notices);
        let started = Instant::now();
        let tried = attempt(t, agent, machine, &how, attach_mcp).await?;
        rpc += started.elapsed();
        let host = t.t0.elapsed() - rpc;
        match tried.opened {
            Ok((id, opening)) => {
                let warm = matches!(how, Open::Warm) && opening == Opening::New && !attach_mcp;
                // A live session keeps the time it was opened; any other was opened now.
                let opened_at = match how {
                    Open::Live { .. } => None,
                    _ => Some(tried.created.unwrap_or_else(unix_now)),
                };
                effects = machine.handle(Event::Opened {
                    session_id: id.clone(),
                    runtime_id: tried.runtime_id.clone(),
                    opening,
                    opened_at,
                });
                apply_side_effects(&effects, thread, machine, notices);
                return Ok(OpenedSession {
                    session_id: id,
                    files: tried.files,
                    turn: tried.turn,
                    opening,
                    warm,
                    attach_mcp,
                    seed,
                    prompt_mode,
                    host,
                });
            }
            Err(OpenError::Refused(message)) => {
                let refused = match &how {
                    Open::Resume { session_id, .. } | Open::Load { session_id, .. } => {
                        session_id.clone()
                    }
                    _ => {
                        let e = TurnError::Refused {
                            agent: agent.def.name.clone(),
                            message,
                        };
                        record_failure(thread, machine, &tried.turn, &t.spec.request.text, &e);
                        return Err(e);
                    }
                };
                tracing::info!(session = %refused, %message, "the agent refused to reopen the session");
                notices.push(format!(
                    "{} could not reopen the session ({message}); a new session was started and \
                     given the conversation so far",
                    agent.def.name
                ));
                effects = machine.handle(Event::OpenRefused {
                    session_id: refused,
                });
            }
            Err(OpenError::Agent(e)) => {
                let e = TurnError::Agent(e);
                record_failure(thread, machine, &tried.turn, &t.spec.request.text, &e);
                return Err(e);
            }
        }
    }
}

/// One try at opening a session: its folder and grant written, the agent asked.
struct Attempt {
    runtime_id: String,
    files: GrantFiles,
    turn: String,
    /// When the agent created the warm session taken.
    created: Option<u64>,
    opened: Result<(String, Opening), OpenError>,
}

async fn attempt(
    t: &Turn<'_>,
    agent: &AgentProcess,
    machine: &SessionMachine,
    how: &Open,
    attach_mcp: bool,
) -> Result<Attempt, TurnError> {
    let mut created = None;
    let (runtime_id, warm_session) = match how {
        Open::Live { .. } | Open::Resume { .. } | Open::Load { .. } => (
            machine
                .record
                .runtime_id
                .clone()
                .unwrap_or_else(|| new_id("rt")),
            None,
        ),
        Open::New => (new_id("rt"), None),
        Open::Warm => match agent.take_warm().await {
            Some(w) => {
                created = Some(w.created);
                (w.runtime_id.clone(), Some(w))
            }
            None => (new_id("rt"), None),
        },
    };
    let (files, grant) = grant::write(t.vault, &runtime_id, &t.spec.plan)
        .map_err(|e| io("cannot write the grant", e))?;
    // The agent works outside the vault (the grant stays in the state folder).
    let cwd = agent
        .session_cwd(&runtime_id)
        .map_err(|e| io("cannot create the session's working folder", e))?;
    let mcp = if attach_mcp {
        vec![agent.context_server(&files.grant())]
    } else {
        Vec::new()
    };
    let opened: Result<(String, Opening), OpenError> = match (how, warm_session) {
        (_, Some(w)) => Ok((w.session_id, Opening::New)),
        (Open::Live { session_id }, _) => Ok((session_id.clone(), Opening::Resumed)),
        (Open::Resume { session_id, .. }, _) => agent
            .resume(session_id, &cwd, mcp)
            .await
            .map(|_| (session_id.clone(), Opening::Resumed)),
        (Open::Load { session_id, .. }, _) => agent.load(session_id, &cwd, mcp).await.map(|n| {
            tracing::info!(suppressed = n, "session/load replay suppressed");
            (session_id.clone(), Opening::Loaded)
        }),
        _ => agent
            .new_session(&cwd, mcp)
            .await
            .map(|id| (id, Opening::New)),
    };
    Ok(Attempt {
        runtime_id,
        files,
        turn: grant.turn_id,
        created,
        opened,
    })
}

/// The prompt: the seed (new sessions only), the context block, the user's words.
pub(super) fn prompt_text(
    t: &Turn<'_>,
    session: &OpenedSession,
    prior: &[PriorMessage],
    machine: &SessionMachine,
    thread: &Thread,
) -> String {
    let plan = &t.spec.plan;
    let mut text = String::new();
    match session.seed {
        Seed::Conversation => {
            let quotes: Vec<&str> = plan
                .evidence
                .iter()
                .filter_map(|e| e.quote.as_deref())
                .collect();
            text.push_str(&conversation_seed(
                prior,
                &quotes,
                machine.new_session_reason(),
            ));
        }
        Seed::Handoff => {
            if let Some(h) = thread.handoff() {
                text.push_str(&format!("<handoff>\n{}\n</handoff>\n", h.trim_end()));
            }
        }
        Seed::None => {}
    }
    let shown: ContextPlan = if session.prompt_mode == plan.mode {
        plan.clone()
    } else {
        ContextPlan {
            mode: session.prompt_mode,
            tools: Vec::new(),
            ..plan.clone()
        }
    };
    text.push_str(&prompt::render(&shown, &t.spec.request.text));
    text
}

/// The turn's first transcript lines (the user's words, the notices so far) and the thread's
/// title, summary and session, saved.
pub(super) fn begin(
    t: &Turn<'_>,
    thread: &mut Thread,
    turn: &str,
    notices: &[String],
    machine: &SessionMachine,
) -> Result<(), TurnError> {
    let request = &t.spec.request;
    if let Err(e) = thread.append(Line::User {
        ts: now_rfc3339(),
        turn: turn.to_string(),
        text: request.text.clone(),
        mentions: request.mentions.clone(),
    }) {
        return Err(io("cannot write the transcript", e));
    }
    for n in notices {
        let _ = thread.append(Line::Notice {
            ts: now_rfc3339(),
            turn: turn.to_string(),
            text: n.clone(),
        });
    }
    if thread.state.title.is_empty() {
        thread.state.title = request.text.chars().take(80).collect();
    }
    thread.state.summary = request
        .text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(120)
        .collect();
    thread.state.session = machine.record.clone();
    let _ = thread.save_state();
    Ok(())
}
