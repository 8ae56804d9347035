//! The turn driver: the thin IO shell around the session state machine.
//!
//! plan → choose the session (state machine) → write the grant in the session's folder →
//! open/resume/load/take warm → `session/prompt` with the rendered context block and the user's
//! text → stream `session/update`s into the thread → at the end the turn's `usage.jsonl` lines
//! and the prompt's evidence are its sources.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, PromptRequest, RequestPermissionOutcome,
    RequestPermissionResponse, SessionId, SessionUpdate, StopReason, TextContent,
};
use serde::Serialize;
use tokio::sync::{Notify, watch};

use super::client::{AgentError, AgentProcess, Inbound, OpenError, context_server, unix_now};
pub use super::events::{ToolCallInfo, ToolStatus, ToolUpdateInfo, TurnEvent};
use super::permission::{Announced, Policy, Verdict, ask_of, outcome_for};
pub use super::permission::{
    PermissionAsk, PermissionAsker, PermissionDecision, PermissionFuture, Remembered,
};
use super::session::{
    Caps, Effect, Event, Open, Opening, Seed, SessionMachine, TurnInput, conversation_seed,
};
use super::transcript::{Line, Thread};
use crate::context::citations::{self, CitationCheck};
use crate::context::grant::{self, GrantFiles, SESSIONS_DIR, UsageLine, new_id, now_rfc3339};
use crate::context::{ContextPlan, ContextRequest, Mode, prompt};
use crate::vault::Vault;

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

fn kind_name(k: agent_client_protocol::v1::schema::ToolKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into())
}

fn text_of(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(t) => Some(&t.text),
        _ => None,
    }
}

/// Collects a turn's agent text and writes it to the transcript as it streams: each chunk is
/// one whole line, written before the chunk is shown, so whatever was on screen when the app
/// was killed is on disk.
struct Writer<'a> {
    thread: &'a mut Thread,
    turn: String,
    answer: String,
}

impl Writer<'_> {
    fn line(&mut self, line: Line) {
        if let Err(e) = self.thread.append(line) {
            tracing::warn!(error = %e, "cannot append to the transcript");
        }
    }

    fn chunk(&mut self, text: &str) {
        self.answer.push_str(text);
        self.line(Line::Agent {
            ts: now_rfc3339(),
            turn: self.turn.clone(),
            text: text.to_string(),
        });
    }

    fn notice(&mut self, text: String) {
        self.line(Line::Notice {
            ts: now_rfc3339(),
            turn: self.turn.clone(),
            text,
        });
    }
}

fn handle_update(
    w: &mut Writer<'_>,
    update: SessionUpdate,
    on_event: &mut (dyn FnMut(&TurnEvent) + Send),
) {
    let ts = now_rfc3339;
    match update {
        SessionUpdate::AgentMessageChunk(c) => {
            if let Some(n) = text_of(&c.content).and_then(super::ollama::runtime_notice) {
                w.notice(n.clone());
                on_event(&TurnEvent::Notice(n));
            } else if let Some(t) = text_of(&c.content) {
                w.chunk(t);
                on_event(&TurnEvent::MessageChunk(t.to_string()));
            }
        }
        SessionUpdate::AgentThoughtChunk(c) => {
            if let Some(t) = text_of(&c.content) {
                w.line(Line::Thought {
                    ts: ts(),
                    turn: w.turn.clone(),
                    text: t.to_string(),
                });
                on_event(&TurnEvent::ThoughtChunk(t.to_string()));
            }
        }
        SessionUpdate::ToolCall(tc) => {
            let info = ToolCallInfo {
                id: tc.tool_call_id.0.to_string(),
                title: tc.title.clone(),
                status: tc.status.into(),
                kind: Some(kind_name(tc.kind)),
                input: tc.raw_input.clone(),
            };
            w.line(Line::Tool {
                ts: ts(),
                turn: w.turn.clone(),
                id: info.id.clone(),
                title: info.title.clone(),
                status: info.status.key().into(),
            });
            on_event(&TurnEvent::ToolCall(info));
        }
        SessionUpdate::ToolCallUpdate(u) => {
            let info = ToolUpdateInfo {
                id: u.tool_call_id.0.to_string(),
                title: u.fields.title.clone(),
                status: u.fields.status.map(ToolStatus::from),
                input: u.fields.raw_input.clone(),
            };
            // Only status changes make a transcript line: content is fetched on demand.
            if let Some(s) = info.status {
                let known = w
                    .thread
                    .lines
                    .iter()
                    .rev()
                    .find_map(|l| match l {
                        Line::Tool { id: i, title, .. } if *i == info.id => Some(title.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                w.line(Line::Tool {
                    ts: ts(),
                    turn: w.turn.clone(),
                    id: info.id.clone(),
                    title: info.title.clone().unwrap_or(known),
                    status: s.key().into(),
                });
            }
            on_event(&TurnEvent::ToolUpdate(info));
        }
        SessionUpdate::Plan(p) => {
            let entries: Vec<String> = p.entries.iter().map(|e| e.content.clone()).collect();
            w.line(Line::Plan {
                ts: ts(),
                turn: w.turn.clone(),
                entries: entries.clone(),
            });
            on_event(&TurnEvent::Plan(entries));
        }
        SessionUpdate::AvailableCommandsUpdate(c) => {
            on_event(&TurnEvent::Commands(
                c.available_commands
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
            ));
        }
        SessionUpdate::SessionInfoUpdate(i) => {
            if let agent_client_protocol::schema::MaybeUndefined::Value(t) = i.title.clone() {
                on_event(&TurnEvent::SessionTitle(t));
            }
        }
        other => tracing::debug!(update = ?other, "session update not shown"),
    }
}

/// A native read allowed by `native_reads`: counted against the turn's budget and recorded in
/// `usage.jsonl` like a tool read, so its files are among the turn's sources. Refused (with the
/// reason) when the budget cannot cover the files.
fn record_native_read(
    vault: &Vault,
    files: &GrantFiles,
    turn: &str,
    turn_chars: usize,
    paths: &[String],
) -> Result<(), String> {
    let used: u64 = grant::read_usage(&files.usage())
        .iter()
        .filter(|u| u.turn_id == turn)
        .map(|u| u.chars)
        .sum();
    let mut chars = 0u64;
    let mut uris = Vec::new();
    for p in paths {
        let abs = vault.abs_path(p);
        let size = std::fs::metadata(&abs).map(|m| m.len()).unwrap_or(0);
        chars += size;
        if p.to_ascii_lowercase().ends_with(".pdf") {
            uris.push(crate::vault::uri::page_uri(p, 1));
        } else if let Ok(text) = std::fs::read_to_string(&abs) {
            let n = text.lines().count().max(1) as u32;
            uris.push(crate::vault::uri::lines_uri(p, 1, n));
        }
    }
    if used + chars > turn_chars as u64 {
        return Err(format!(
            "a native read of {} ({chars} characters) would pass this turn's reading budget of \
             {turn_chars} characters",
            paths.join(", ")
        ));
    }
    let line = UsageLine {
        ts: now_rfc3339(),
        turn_id: turn.to_string(),
        tool: "native_read".into(),
        args_digest: crate::context::canonical::digest(&serde_json::json!(paths)),
        citation_uris: uris,
        chars,
        micros: 0,
    };
    grant::append_usage(&files.usage(), &line).map_err(|e| format!("cannot record the read: {e}"))
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
    let t0 = Instant::now();
    let plan = spec.plan.clone();
    let sessions_dir = vault.state_dir().join(SESSIONS_DIR);
    let prior = thread.conversation();
    let mut machine = SessionMachine::new(thread.state.session.clone());
    let record = &machine.record;
    let live = record
        .session_id
        .clone()
        .filter(|id| record.agent == agent.def.name && agent.live_since(id).is_some());
    let reopen_hazard =
        super::adapters::reopen_hazard(agent.def.adapter, record.opened_at, unix_now());
    let input = TurnInput {
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
        has_history: !prior.is_empty(),
    };
    let mut effects = machine.handle(Event::TurnRequested(input));
    let mut notices = Vec::new();
    let mut host;
    let mut rpc = Duration::ZERO;

    // Open the session; a refused resume/load loops once more with `session/new`.
    let (session_id, files, grant, opening, warm, attach_mcp, seed, prompt_mode) = loop {
        let Some((how, attach_mcp, seed, prompt_mode)) = effects.iter().find_map(|e| match e {
            Effect::Open {
                how,
                attach_mcp,
                seed,
                prompt_mode,
            } => Some((how.clone(), *attach_mcp, *seed, *prompt_mode)),
            _ => None,
        }) else {
            return Err(TurnError::NoSession);
        };
        apply_side_effects(&effects, thread, &machine, &mut notices);
        let started = Instant::now();
        let mut created = None;
        let (runtime_id, warm_session) = match &how {
            Open::Live { .. } | Open::Resume { .. } | Open::Load { .. } => (
                machine
                    .record
                    .runtime_id
                    .clone()
                    .unwrap_or_else(|| new_id("rt")),
                None,
            ),
            Open::New => (new_id("rt"), None),
            Open::Warm => match agent.take_warm(&sessions_dir).await {
                Some(w) => {
                    created = Some(w.created);
                    (w.runtime_id.clone(), Some(w))
                }
                None => (new_id("rt"), None),
            },
        };
        let (files, grant) =
            grant::write(vault, &runtime_id, &plan).map_err(|e| io("cannot write the grant", e))?;
        let cwd = files.dir.clone();
        let mcp = if attach_mcp {
            vec![context_server(&spec.host_exe, &files.grant())]
        } else {
            Vec::new()
        };
        let opened: Result<(String, Opening), OpenError> = match (&how, warm_session) {
            (_, Some(w)) => Ok((w.session_id, Opening::New)),
            (Open::Live { session_id }, _) => Ok((session_id.clone(), Opening::Resumed)),
            (Open::Resume { session_id, .. }, _) => agent
                .resume(session_id, &cwd, mcp)
                .await
                .map(|_| (session_id.clone(), Opening::Resumed)),
            (Open::Load { session_id, .. }, _) => {
                agent.load(session_id, &cwd, mcp).await.map(|n| {
                    tracing::info!(suppressed = n, "session/load replay suppressed");
                    (session_id.clone(), Opening::Loaded)
                })
            }
            _ => agent
                .new_session(&cwd, mcp)
                .await
                .map(|id| (id, Opening::New)),
        };
        rpc += started.elapsed();
        host = t0.elapsed() - rpc;
        match opened {
            Ok((id, opening)) => {
                let is_warm = matches!(how, Open::Warm) && opening == Opening::New && !attach_mcp;
                // A live session keeps the time it was opened; any other was opened now.
                let opened_at = match how {
                    Open::Live { .. } => None,
                    _ => Some(created.unwrap_or_else(unix_now)),
                };
                effects = machine.handle(Event::Opened {
                    session_id: id.clone(),
                    runtime_id: runtime_id.clone(),
                    opening,
                    opened_at,
                });
                apply_side_effects(&effects, thread, &machine, &mut notices);
                break (
                    id,
                    files,
                    grant,
                    opening,
                    is_warm,
                    attach_mcp,
                    seed,
                    prompt_mode,
                );
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
                        record_failure(
                            thread,
                            &mut machine,
                            &grant.turn_id,
                            &spec.request.text,
                            &e,
                        );
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
                record_failure(thread, &mut machine, &grant.turn_id, &spec.request.text, &e);
                return Err(e);
            }
        }
    };
    let turn = grant.turn_id.clone();

    // The prompt: seed (new sessions only), the context block, the user's words.
    let mut text = String::new();
    match seed {
        Seed::Conversation => {
            let quotes: Vec<&str> = plan
                .evidence
                .iter()
                .filter_map(|e| e.quote.as_deref())
                .collect();
            text.push_str(&conversation_seed(
                &prior,
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
    let shown: ContextPlan = if prompt_mode == plan.mode {
        plan.clone()
    } else {
        ContextPlan {
            mode: prompt_mode,
            tools: Vec::new(),
            ..plan.clone()
        }
    };
    text.push_str(&prompt::render(&shown, &spec.request.text));
    if let Err(e) = thread.append(Line::User {
        ts: now_rfc3339(),
        turn: turn.clone(),
        text: spec.request.text.clone(),
        mentions: spec.request.mentions.clone(),
    }) {
        return Err(io("cannot write the transcript", e));
    }
    for n in &notices {
        let _ = thread.append(Line::Notice {
            ts: now_rfc3339(),
            turn: turn.clone(),
            text: n.clone(),
        });
    }
    if thread.state.title.is_empty() {
        thread.state.title = spec.request.text.chars().take(80).collect();
    }
    thread.state.summary = spec
        .request
        .text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(120)
        .collect();
    thread.state.session = machine.record.clone();
    let _ = thread.save_state();

    let mut rx = agent.listen(&session_id);
    let cx = agent.connection().clone();
    let request = PromptRequest::new(
        SessionId::new(session_id.as_str()),
        vec![ContentBlock::Text(TextContent::new(text))],
    );
    let prompt_sent = t0.elapsed();
    let mut response = Box::pin(cx.send_request(request).block_task());
    let mut w = Writer {
        thread,
        turn: turn.clone(),
        answer: String::new(),
    };
    let policy = Policy {
        agent: agent.def.name.clone(),
        command: agent.command_id().to_string(),
        vault_root: vault.root().to_path_buf(),
        granted: plan.sources.iter().map(|s| s.path.clone()).collect(),
        native_reads: agent.def.native_reads,
        remembered: spec.remembered.clone(),
        state_dir: vault.state_dir(),
        asker: spec.asker.clone(),
    };
    // One notice per refused tool title and turn: a model that retries is not a flood.
    let mut refused: Vec<String> = Vec::new();
    let mut announced = Announced::new(agent.def.adapter);
    let mut first_chunk = None;
    let deadline = tokio::time::sleep(spec.timeout);
    tokio::pin!(deadline);
    let mut cancelled_at: Option<Instant> = None;
    let grace = Duration::from_secs(3);
    // Permission questions being answered; `stop` answers the pending ones `cancelled`.
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut asking = tokio::task::JoinSet::new();
    let result = loop {
        let grace_left = cancelled_at.map(|t| grace.saturating_sub(t.elapsed()));
        tokio::select! {
            // Updates before the response: they were sent first, and the first-chunk time
            // must be taken when a chunk is seen, not when the queue is drained.
            biased;
            Some(msg) = rx.recv() => match msg {
                Inbound::Update(u) => {
                    if first_chunk.is_none() && matches!(*u, SessionUpdate::AgentMessageChunk(_)) {
                        first_chunk = Some(t0.elapsed());
                    }
                    announced.note(&u);
                    handle_update(&mut w, *u, on_event);
                }
                Inbound::Permission(req, responder) => {
                    let ask = ask_of(&req, &announced);
                    let verdict = match policy.verdict(&ask) {
                        Verdict::AllowNativeRead { paths } => match record_native_read(
                            vault, &files, &turn, plan.budget.turn_chars, &paths,
                        ) {
                            Ok(()) => Verdict::Allow { reason: format!("a native read of {}", paths.join(", ")) },
                            Err(reason) => Verdict::Reject { reason },
                        },
                        v => v,
                    };
                    match verdict {
                        Verdict::Allow { reason } => {
                            tracing::info!(title = %ask.title, %reason, "permission allowed");
                            let _ = responder.respond(RequestPermissionResponse::new(outcome_for(&ask, PermissionDecision::AllowOnce)));
                        }
                        Verdict::Reject { reason } => {
                            tracing::info!(title = %ask.title, %reason, "permission rejected");
                            let _ = responder.respond(RequestPermissionResponse::new(outcome_for(&ask, PermissionDecision::RejectOnce)));
                            if !refused.contains(&ask.title) {
                                refused.push(ask.title.clone());
                                let n = format!("refused {}: {reason}", ask.title);
                                w.notice(n.clone());
                                on_event(&TurnEvent::Notice(n.clone()));
                                notices.push(n);
                            }
                        }
                        Verdict::AllowNativeRead { .. } | Verdict::Ask => {
                            let decision = policy.ask(&ask);
                            let mut stop = stop_rx.clone();
                            asking.spawn(async move {
                                // Cancel (or the end of the turn) wins over an answer still awaited.
                                let d = tokio::select! {
                                    biased;
                                    _ = stop.wait_for(|s| *s) => PermissionDecision::Cancelled,
                                    d = decision => d,
                                };
                                tracing::info!(decision = ?d, title = %ask.title, "permission asked");
                                let _ = responder.respond(RequestPermissionResponse::new(outcome_for(&ask, d)));
                            });
                        }
                    }
                }
            },
            r = &mut response => break r.map_err(|e| agent.failure(&e)),
            _ = &mut deadline, if cancelled_at.is_none() => {
                let _ = stop_tx.send(true);
                let _ = cx.send_notification(CancelNotification::new(SessionId::new(session_id.as_str())));
                cancelled_at = Some(Instant::now());
                w.line(Line::Notice { ts: now_rfc3339(), turn: turn.clone(), text: format!("The turn hit its time limit of {} s; asked the agent to stop.", spec.timeout.as_secs()) });
            }
            _ = spec.cancel.notified(), if cancelled_at.is_none() => {
                let _ = stop_tx.send(true);
                let _ = cx.send_notification(CancelNotification::new(SessionId::new(session_id.as_str())));
                cancelled_at = Some(Instant::now());
            }
            _ = tokio::time::sleep(grace_left.unwrap_or(Duration::MAX)), if grace_left.is_some() => {
                break Err(AgentError::TimedOut { agent: agent.def.name.clone(), secs: spec.timeout.as_secs() });
            }
        }
    };
    // Updates sent before the response are already queued: take them all.
    while let Ok(msg) = rx.try_recv() {
        match msg {
            Inbound::Update(u) => handle_update(&mut w, *u, on_event),
            Inbound::Permission(_, responder) => {
                let _ = responder.respond(RequestPermissionResponse::new(
                    RequestPermissionOutcome::Cancelled,
                ));
            }
        }
    }
    // Questions nobody answered before the turn ended are answered `cancelled`.
    let _ = stop_tx.send(true);
    while asking.join_next().await.is_some() {}
    agent.unlisten(&session_id);
    let answer = std::mem::take(&mut w.answer);
    let thread = w.thread;
    let response = match result {
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

    // What the agent was given: the evidence (with the inlined mention evidence when the
    // prompt was prompt-only; a folder's listing is named, not a source), then what the tools
    // returned.
    let given = match prompt_mode {
        Mode::PromptOnly => plan.evidence.iter().chain(&plan.inline).collect::<Vec<_>>(),
        Mode::Mcp => plan.evidence.iter().collect(),
    };
    let mut sources: Vec<String> = Vec::new();
    for u in given
        .iter()
        .map(|e| e.citation_uri.clone())
        .filter(|u| !u.is_empty() && !u.ends_with('/'))
    {
        if !sources.contains(&u) {
            sources.push(u);
        }
    }
    for u in grant::read_usage(&files.usage())
        .into_iter()
        .filter(|u| u.turn_id == turn)
    {
        for uri in u.citation_uris {
            if !sources.contains(&uri) {
                sources.push(uri);
            }
        }
    }
    let attached = attach_mcp.then(|| attached(&files));
    let stop_reason = stop_name(response.stop_reason);
    // Every quote beside a citation, checked against the page it cites (off the async threads:
    // it reads the index and may extract a paper).
    let evidence: Vec<String> = given.iter().map(|e| e.citation_uri.clone()).collect();
    let checks = {
        let (vault, answer) = (vault.clone(), answer.clone());
        tokio::task::spawn_blocking(move || citations::check_in_vault(&vault, &answer, &evidence))
            .await
            .unwrap_or_default()
    };
    let mut cited: Vec<String> = Vec::new();
    for c in &checks {
        if !cited.iter().any(|u| citations::same_place(u, &c.uri)) {
            cited.push(c.uri.clone());
        }
    }
    let consulted: Vec<String> = sources
        .iter()
        .filter(|s| !cited.iter().any(|c| citations::same_place(c, s)))
        .cloned()
        .collect();
    let _ = thread.append(Line::Sources {
        ts: now_rfc3339(),
        turn: turn.clone(),
        uris: sources.clone(),
        cited: cited.clone(),
        consulted: consulted.clone(),
    });
    if !checks.is_empty() {
        let _ = thread.append(Line::Citations {
            ts: now_rfc3339(),
            turn: turn.clone(),
            checks: checks.clone(),
        });
    }
    let effects = machine.handle(Event::TurnEnded { attached });
    let mut end_notices = Vec::new();
    apply_side_effects(&effects, thread, &machine, &mut end_notices);
    if attached == Some(false) {
        end_notices.push(not_attached_reason(&files, agent));
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
        mode: prompt_mode.as_str().into(),
        session_id: session_id.clone(),
    });
    thread.state.session = machine.record.clone();
    thread
        .save_state()
        .map_err(|e| io("cannot save the thread state", e))?;
    let total = t0.elapsed();
    Ok(TurnOutcome {
        answer,
        sources,
        cited,
        consulted,
        citations: checks,
        thread_id: thread.id.clone(),
        session_id,
        fingerprint: plan.fingerprint.clone(),
        mode: prompt_mode,
        stop_reason,
        session: opening,
        warm,
        attached,
        notices,
        timing: Timing {
            host_ms: host.as_secs_f64() * 1e3,
            prompt_sent_ms: prompt_sent.as_secs_f64() * 1e3,
            first_chunk_ms: first_chunk.map(|d| d.as_secs_f64() * 1e3),
            total_ms: total.as_secs_f64() * 1e3,
        },
    })
}

/// Why the agent did not attach the context server, and what the user can do about it.
fn not_attached_reason(files: &GrantFiles, agent: &AgentProcess) -> String {
    let what = match grant::read_attachment(files) {
        None => "never started the agentero-context server".to_string(),
        Some(a) if a.initialized_at.is_none() => {
            "started the agentero-context server but never initialized it".to_string()
        }
        Some(_) => "started the agentero-context server but never listed its tools".to_string(),
    };
    let said: Vec<String> = agent
        .tail()
        .lines()
        .map(str::trim)
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("mcp") || l.contains("trust") || l.contains("agentero-context")
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
