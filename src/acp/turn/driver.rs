//! The prompt phase's IO: `session/prompt` sent, then what arrives (updates, permission
//! requests, the response, the deadline, a cancel, the end of the grace) mapped to
//! [`TurnMachine`] events, and the machine's effects carried out.

use std::time::{Duration, Instant};

use agent_client_protocol::Agent;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, PromptRequest, PromptResponse, RequestPermissionResponse,
    SessionId, TextContent,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::super::client::{AgentError, AgentProcess, Inbound};
use super::super::events::TurnEvent;
use super::super::permission::{
    PermissionAsk, PermissionDecision, Policy, Verdict, ask_of, outcome_for,
};
use super::super::transcript::Thread;
use super::Turn;
use super::machine::{Answer, Effect, Event, State, TurnMachine};
use super::open::OpenedSession;
use super::writer::{Writer, handle_update};
use crate::context::grant::{self, GrantFiles, UsageLine, now_rfc3339};
use crate::vault::Vault;

/// How the prompt phase ended.
pub(super) struct Streamed {
    pub result: Result<PromptResponse, AgentError>,
    /// The agent's text, as streamed.
    pub answer: String,
    /// Until `session/prompt` was sent.
    pub prompt_sent: Duration,
    pub first_chunk: Option<Duration>,
}

/// Sends the prompt `text` in the open `session` and streams the turn into `thread` until the
/// response, a time-out or the agent's failure. Permission questions still open at the end are
/// answered `cancelled`.
pub(super) async fn stream(
    t: &Turn<'_>,
    agent: &AgentProcess,
    thread: &mut Thread,
    session: &OpenedSession,
    text: String,
    notices: &mut Vec<String>,
    on_event: &mut (dyn FnMut(&TurnEvent) + Send),
) -> Streamed {
    let spec = t.spec;
    let mut rx = agent.listen(&session.session_id);
    let cx = agent.connection().clone();
    let request = PromptRequest::new(
        SessionId::new(session.session_id.as_str()),
        vec![ContentBlock::Text(TextContent::new(text))],
    );
    let prompt_sent = t.t0.elapsed();
    let mut response = Box::pin(cx.send_request(request).block_task());
    // Permission questions being answered; `stop` answers the pending ones `cancelled`.
    let (stop, stopped) = watch::channel(false);
    let mut d = Driver {
        w: Writer {
            thread,
            turn: session.turn.clone(),
            answer: String::new(),
        },
        on_event,
        notices,
        policy: policy(t, agent),
        vault: t.vault,
        files: &session.files,
        turn_chars: spec.plan.budget.turn_chars,
        cx,
        session_id: session.session_id.clone(),
        stop,
        stopped,
        asking: JoinSet::new(),
        pending: None,
    };
    let mut machine = TurnMachine::new(&agent.def.name, agent.def.adapter, spec.timeout);
    let deadline = tokio::time::sleep(spec.timeout);
    tokio::pin!(deadline);
    let result = loop {
        let grace_left = machine.grace_left(Instant::now());
        let event = tokio::select! {
            // Updates before the response: they were sent first, and the first-chunk time
            // must be taken when a chunk is seen, not when the queue is drained.
            biased;
            Some(msg) = rx.recv() => d.event_of(msg, &machine, t.t0.elapsed()),
            r = &mut response => Event::Response(r.map_err(|e| agent.failure(&e))),
            _ = &mut deadline, if machine.stoppable() => Event::Deadline { now: Instant::now() },
            _ = spec.cancel.notified(), if machine.stoppable() => {
                Event::Cancel { now: Instant::now() }
            }
            _ = tokio::time::sleep(grace_left.unwrap_or(Duration::MAX)), if grace_left.is_some() => {
                Event::GraceOver
            }
        };
        if let Some(r) = d.carry_out(machine.handle(event)) {
            break r;
        }
    };
    // Updates sent before the response are already queued: take them all.
    while let Ok(msg) = rx.try_recv() {
        let event = d.event_of(msg, &machine, t.t0.elapsed());
        d.carry_out(machine.handle(event));
    }
    // Questions nobody answered before the turn ended are answered `cancelled`.
    let _ = d.stop.send(true);
    while d.asking.join_next().await.is_some() {}
    agent.unlisten(&session.session_id);
    Streamed {
        result,
        answer: std::mem::take(&mut d.w.answer),
        prompt_sent,
        first_chunk: machine.first_chunk(),
    }
}

/// The permission rules of this turn.
fn policy(t: &Turn<'_>, agent: &AgentProcess) -> Policy {
    Policy {
        agent: agent.def.name.clone(),
        command: agent.command_id().to_string(),
        vault_root: t.vault.root().to_path_buf(),
        granted: t.spec.plan.sources.iter().map(|s| s.path.clone()).collect(),
        native_reads: agent.def.native_reads,
        remembered: t.spec.remembered.clone(),
        state_dir: t.vault.state_dir(),
        asker: t.spec.asker.clone(),
    }
}

/// What carries out the machine's effects.
struct Driver<'a> {
    w: Writer<'a>,
    on_event: &'a mut (dyn FnMut(&TurnEvent) + Send),
    notices: &'a mut Vec<String>,
    policy: Policy,
    vault: &'a Vault,
    files: &'a GrantFiles,
    turn_chars: usize,
    cx: ConnectionTo<Agent>,
    session_id: String,
    stop: watch::Sender<bool>,
    stopped: watch::Receiver<bool>,
    asking: JoinSet<()>,
    /// The permission request of the event being handled.
    pending: Option<(PermissionAsk, Responder<RequestPermissionResponse>)>,
}

impl Driver<'_> {
    /// The machine's event for what arrived; a permission request is judged here (while the
    /// turn runs) and kept for the answer.
    fn event_of(&mut self, msg: Inbound, machine: &TurnMachine, at: Duration) -> Event {
        match msg {
            Inbound::Update(update) => Event::Update { update, at },
            Inbound::Permission(req, responder) => {
                let ask = ask_of(&req, machine.announced());
                let event = if machine.state == State::Done {
                    Event::PermissionAfterEnd
                } else {
                    Event::Permission {
                        title: ask.title.clone(),
                        verdict: self.verdict(&ask),
                    }
                };
                self.pending = Some((ask, responder));
                event
            }
        }
    }

    /// What the rules say, a native read counted against the turn's budget.
    fn verdict(&self, ask: &PermissionAsk) -> Verdict {
        match self.policy.verdict(ask) {
            Verdict::AllowNativeRead { paths } => match record_native_read(
                self.vault,
                self.files,
                &self.w.turn,
                self.turn_chars,
                &paths,
            ) {
                Ok(()) => Verdict::Allow {
                    reason: format!("a native read of {}", paths.join(", ")),
                },
                Err(reason) => Verdict::Reject { reason },
            },
            v => v,
        }
    }

    /// Carries out `effects`; the turn's result when they end the prompt phase.
    fn carry_out(&mut self, effects: Vec<Effect>) -> Option<Result<PromptResponse, AgentError>> {
        let mut result = None;
        for e in effects {
            match e {
                Effect::Show(u) => handle_update(&mut self.w, *u, self.on_event),
                Effect::Respond(answer) => self.respond(answer),
                Effect::StopAsking => {
                    let _ = self.stop.send(true);
                }
                Effect::SendCancel => {
                    let _ = self
                        .cx
                        .send_notification(CancelNotification::new(SessionId::new(
                            self.session_id.as_str(),
                        )));
                }
                Effect::Notice(n) => {
                    self.w.notice(n.clone());
                    (self.on_event)(&TurnEvent::Notice(n.clone()));
                    self.notices.push(n);
                }
                Effect::Note(n) => self.w.notice(n),
                Effect::Break(r) => result = Some(r),
            }
        }
        result
    }

    /// Answers the pending permission request.
    fn respond(&mut self, answer: Answer) {
        let Some((ask, responder)) = self.pending.take() else {
            return;
        };
        let decision = match answer {
            Answer::Allow { reason } => {
                tracing::info!(title = %ask.title, %reason, "permission allowed");
                PermissionDecision::AllowOnce
            }
            Answer::Reject { reason } => {
                tracing::info!(title = %ask.title, %reason, "permission rejected");
                PermissionDecision::RejectOnce
            }
            Answer::Cancelled => PermissionDecision::Cancelled,
            Answer::AskUser => {
                let decision = self.policy.ask(&ask);
                let mut stop = self.stopped.clone();
                self.asking.spawn(async move {
                    // Cancel (or the end of the turn) wins over an answer still awaited.
                    let d = tokio::select! {
                        biased;
                        _ = stop.wait_for(|s| *s) => PermissionDecision::Cancelled,
                        d = decision => d,
                    };
                    tracing::info!(decision = ?d, title = %ask.title, "permission asked");
                    let _ = responder.respond(RequestPermissionResponse::new(outcome_for(&ask, d)));
                });
                return;
            }
        };
        let _ = responder.respond(RequestPermissionResponse::new(outcome_for(&ask, decision)));
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
