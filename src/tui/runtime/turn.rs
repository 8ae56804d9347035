//! One turn on the agent, in a task of its own: the context planned off the async threads, the
//! agent borrowed from the turns service (started again if it died), events streamed into the
//! chat as `ChatEvent`s, permission questions put to the user through the modal, the thread
//! handed back to the service at the end.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::{Notify, oneshot};

use super::threads;
use super::turns_cmd::{self as turns, AgentSetup, Cmd, TurnKind};
use super::work::Held;
use crate::acp::client::AgentProcess;
use crate::acp::permission::Remembered;
use crate::acp::transcript::Thread as Transcript;
use crate::acp::turn::{
    PermissionAsk, PermissionAsker, PermissionDecision, TurnError, TurnEvent, TurnOutcome,
    TurnSpec, run_turn,
};
use crate::context::{ContextPlan, ContextRequest};
use crate::tui::app::{Msg, Status};
use crate::tui::chips::AgentState;
use crate::tui::thread::{
    self as chat, ChatEvent, PermissionKind, PermissionOption, PermissionRequest, SessionInfo,
    SourceRef,
};
use crate::vault::Vault;

/// A turn as the turns service hands it over.
pub(super) struct TurnJob {
    pub(super) turn: u64,
    /// The chat pane's id of the thread.
    pub(super) thread_id: String,
    /// The thread when the service had it in memory.
    pub(super) thread: Option<Transcript>,
    pub(super) request: ContextRequest,
    pub(super) kind: TurnKind,
    pub(super) setup: AgentSetup,
    pub(super) cancel: Arc<Notify>,
    pub(super) remembered: Arc<Mutex<Remembered>>,
}

/// Where a turn reports: the app's channel and the turns service's.
struct Reports {
    turn: u64,
    ui: UnboundedSender<Msg>,
    home: UnboundedSender<Cmd>,
}

impl Reports {
    fn chat(&self, event: ChatEvent) {
        let _ = self.ui.send(Msg::Chat {
            turn: self.turn,
            event,
        });
    }

    /// The turn is over: its thread goes back to the service, which tells the app.
    fn finish(&self, job: &TurnJob, thread: Transcript, held: Held) {
        let _ = self.home.send(Cmd::Finished {
            turn: self.turn,
            thread_id: job.thread_id.clone(),
            thread: Box::new(thread),
            kind: job.kind,
            held,
        });
    }
}

/// Starts the agent process (replacing the one the service had); the chat's status line
/// follows (starting → ready/failed).
pub(super) async fn start_agent(
    vault: &Vault,
    ui: &UnboundedSender<Msg>,
    home: &UnboundedSender<Cmd>,
    setup: &AgentSetup,
) {
    let Some(mut loan) = turns::borrow(home).await else {
        return;
    };
    let state = match spawn_agent(vault, setup).await {
        Ok(a) => {
            loan.agent = Some(a);
            AgentState::Ready {
                name: setup.def.name.clone(),
                remote: setup.def.remote,
            }
        }
        Err(why) => AgentState::Unavailable(why),
    };
    drop(loan);
    let _ = ui.send(Msg::Agent(state));
}

async fn spawn_agent(vault: &Vault, setup: &AgentSetup) -> Result<AgentProcess, String> {
    let place = crate::acp::client::Place::of(vault, &setup.host_exe);
    match AgentProcess::start(&setup.def, &place).await {
        Ok(a) => {
            if setup.def.remote && setup.def.warm_pool > 0 {
                a.fill_pool(setup.def.warm_pool).await;
            }
            Ok(a)
        }
        Err(e) => Err(format!("{} failed to start: {e}", setup.def.name)),
    }
}

/// Who answers the questions the permission rules leave open: the modal. The future only
/// waits on a oneshot, so the ACP dispatch loop is never blocked; an unanswered question
/// (turn cancelled, app quit) is rejected.
pub(super) fn ui_asker(
    ui: UnboundedSender<Msg>,
    home: UnboundedSender<Cmd>,
    turn: u64,
) -> PermissionAsker {
    let next = Arc::new(AtomicUsize::new(0));
    Arc::new(move |ask: &PermissionAsk| {
        let id = format!("{turn}-{}", next.fetch_add(1, Ordering::SeqCst));
        let request = permission_request(&id, ask);
        let (answer, answer_rx) = oneshot::channel();
        let asked = home
            .send(Cmd::Ask {
                id: id.clone(),
                answer,
            })
            .is_ok();
        let shown = asked
            && ui
                .send(Msg::Chat {
                    turn,
                    event: ChatEvent::Permission(request.clone()),
                })
                .is_ok();
        let home = home.clone();
        Box::pin(async move {
            let chosen = if shown {
                answer_rx.await.ok().flatten()
            } else {
                None
            };
            let _ = home.send(Cmd::Asked { id });
            decision_for(&request, chosen.as_deref())
        })
    })
}

/// One turn (or the handoff turn) on the agent, streamed into the chat as `ChatEvent`s.
pub(super) async fn run(
    vault: Vault,
    ui: UnboundedSender<Msg>,
    home: UnboundedSender<Cmd>,
    mut job: TurnJob,
    held: Held,
) {
    let reports = Reports {
        turn: job.turn,
        ui,
        home,
    };
    let mut thread = match (job.kind, job.thread.take()) {
        (TurnKind::Quick, _) => threads::scratch(&vault),
        (_, Some(t)) => t,
        (_, None) => threads::open_or_create(&vault, &job.thread_id),
    };
    let request = request_for(&job, &thread);
    let plan = match plan_off_thread(&vault, &request).await {
        Ok(p) => p,
        Err(e) => {
            reports.chat(ChatEvent::TurnFailed(format!(
                "cannot plan the context: {e}"
            )));
            reports.finish(&job, thread, held);
            return;
        }
    };
    let result = drive(&vault, &reports, &job, &mut thread, request, &plan).await;
    match result {
        Ok(done) => report_outcome(&reports, &job.setup, &plan, done),
        Err((e, exited)) => {
            reports.chat(ChatEvent::TurnFailed(e));
            if exited {
                let _ = reports.ui.send(Msg::Status(Status::error(format!(
                    "agent {} stopped; it starts again with the next question",
                    job.setup.def.name
                ))));
            }
        }
    }
    reports.finish(&job, thread, held);
}

/// The request the turn sends: the handoff's own for a handoff, with the agent's budget.
fn request_for(job: &TurnJob, thread: &Transcript) -> ContextRequest {
    let mut request = job.request.clone();
    if job.kind == TurnKind::Handoff {
        let locality = request.locality;
        request = crate::acp::handoff::handoff_request(thread);
        request.locality = locality;
        if job.setup.def.remote {
            request.locality = crate::context::Locality::Remote;
        }
    }
    request.budget = job.setup.budget;
    request
}

/// The host's side of the context tools (the citing-scan cache) and the grant's sources, off
/// the async threads: both read the vault.
async fn plan_off_thread(
    vault: &Vault,
    request: &ContextRequest,
) -> Result<ContextPlan, tokio::task::JoinError> {
    let (vault, req) = (vault.clone(), request.clone());
    tokio::task::spawn_blocking(move || {
        if let Err(e) = crate::context::library::ensure_cache(&vault, &vault.catalog()) {
            tracing::warn!(error = %e, "cannot write the citing-scan cache");
        }
        crate::context::plan(&vault, &req)
    })
    .await
}

/// A turn's outcome and, for a handoff, the handoff file as shown.
type Done = (TurnOutcome, Option<String>);

/// Runs the turn on the borrowed agent (started again when it was killed: time limit,
/// crash). The error says why, and whether the agent exited.
async fn drive(
    vault: &Vault,
    reports: &Reports,
    job: &TurnJob,
    thread: &mut Transcript,
    request: ContextRequest,
    plan: &ContextPlan,
) -> Result<Done, (String, bool)> {
    let gone = || ("the agent is no longer available".to_string(), false);
    let mut loan = turns::borrow(&reports.home).await.ok_or_else(gone)?;
    if loan.agent.as_ref().is_none_or(|a| a.has_exited()) {
        loan.agent = None;
        match spawn_agent(vault, &job.setup).await {
            Ok(a) => loan.agent = Some(a),
            Err(why) => {
                let _ = reports
                    .ui
                    .send(Msg::Agent(AgentState::Unavailable(why.clone())));
                return Err((why, false));
            }
        }
    }
    let agent = loan.agent.as_mut().expect("started above");
    let spec = TurnSpec {
        request,
        plan: plan.clone(),
        host_exe: job.setup.host_exe.clone(),
        timeout: job.setup.timeout,
        cancel: job.cancel.clone(),
        asker: Some(ui_asker(reports.ui.clone(), reports.home.clone(), job.turn)),
        remembered: job.remembered.clone(),
    };
    let mut on_event = |e: &TurnEvent| {
        for ev in chat_event(e).into_iter().chain(tool_detail(e)) {
            reports.chat(ev);
        }
    };
    let result: Result<Done, TurnError> = if job.kind == TurnKind::Handoff {
        crate::acp::handoff::run_handoff(vault, agent, thread, spec, &mut on_event)
            .await
            .map(|(_, o)| {
                let path = thread.handoff_path();
                let shown = path
                    .strip_prefix(vault.root())
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                (o, Some(shown))
            })
    } else {
        run_turn(vault, agent, thread, spec, &mut on_event)
            .await
            .map(|o| (o, None))
    };
    let exited = agent.has_exited();
    result.map_err(|e| (e.to_string(), exited))
}

/// What the chat shows of a finished turn: the session, the citations, the sources cited and
/// consulted, the handoff file, the end.
fn report_outcome(reports: &Reports, setup: &AgentSetup, plan: &ContextPlan, done: Done) {
    let (o, handoff_file) = done;
    reports.chat(ChatEvent::Session(SessionInfo {
        agent: setup.def.name.clone(),
        mode: o.mode.as_str().to_string(),
        grant_sources: plan.sources.len(),
        fingerprint: o.fingerprint.clone(),
        tools_attached: o.attached == Some(true),
        session: session_name(o.session).into(),
    }));
    reports.chat(ChatEvent::Citations(o.citations.clone()));
    let (cited, consulted): (Vec<SourceRef>, Vec<SourceRef>) = o
        .sources
        .iter()
        .map(|uri| SourceRef {
            uri: uri.clone(),
            quote: plan
                .evidence
                .iter()
                .find(|e| &e.citation_uri == uri)
                .and_then(|e| e.quote.clone())
                .or_else(|| chat::quote_for(&o.answer, uri)),
        })
        .partition(|s| !o.consulted.contains(&s.uri));
    reports.chat(ChatEvent::Sources(cited));
    reports.chat(ChatEvent::Consulted(consulted));
    if let Some(file) = handoff_file {
        reports.chat(ChatEvent::Notice(format!(
            "handoff written to {file}: the next question starts a fresh session seeded from it"
        )));
        let _ = reports.ui.send(Msg::Status(Status::info(format!(
            "handoff written to {file}"
        ))));
    }
    reports.chat(ChatEvent::TurnEnded {
        stop_reason: o.stop_reason,
    });
}

fn session_name(o: crate::acp::session::Opening) -> &'static str {
    use crate::acp::session::Opening;
    match o {
        Opening::New => "new",
        Opening::Resumed => "resumed",
        Opening::Loaded => "loaded",
    }
}

/// A turn event as the chat shows it (`None`: nothing to show).
pub fn chat_event(e: &TurnEvent) -> Option<ChatEvent> {
    Some(match e {
        TurnEvent::MessageChunk(t) => ChatEvent::MessageChunk(t.clone()),
        TurnEvent::ThoughtChunk(t) => ChatEvent::ThoughtChunk(t.clone()),
        TurnEvent::ToolCall(t) => ChatEvent::ToolCall {
            id: t.id.clone(),
            title: t.title.clone(),
            status: t.status,
        },
        TurnEvent::ToolUpdate(u) => ChatEvent::ToolCallUpdate {
            id: u.id.clone(),
            status: u.status,
            title: u.title.clone(),
            detail: u.input.as_ref().and_then(arguments_text),
        },
        TurnEvent::Plan(entries) => ChatEvent::Notice(format!("plan: {}", entries.join("; "))),
        TurnEvent::Notice(n) => ChatEvent::Notice(n.clone()),
        TurnEvent::Commands(_) | TurnEvent::SessionTitle(_) => return None,
    })
}

/// What a tool card shows when expanded (`z`): the call's arguments as it was announced,
/// sent as an update right after the call (`None`: the agent sent none).
pub fn tool_detail(e: &TurnEvent) -> Option<ChatEvent> {
    let TurnEvent::ToolCall(t) = e else {
        return None;
    };
    Some(ChatEvent::ToolCallUpdate {
        id: t.id.clone(),
        status: None,
        title: None,
        detail: Some(arguments_text(t.input.as_ref()?)?),
    })
}

/// A tool call's arguments, one `name: value` per line.
fn arguments_text(v: &serde_json::Value) -> Option<String> {
    let lines: Vec<String> = match v {
        serde_json::Value::Object(o) if !o.is_empty() => o
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect(),
        serde_json::Value::Object(_) | serde_json::Value::Null => return None,
        other => vec![other.to_string()],
    };
    Some(lines.join("\n"))
}

/// The modal's view of a permission question: the tool, its arguments and files.
pub fn permission_request(id: &str, ask: &PermissionAsk) -> PermissionRequest {
    let mut details = Vec::new();
    if let Some(k) = &ask.kind {
        details.push(format!("kind: {k}"));
    }
    if let Some(a) = ask.arguments_line() {
        details.push(format!("arguments: {a}"));
    }
    if !ask.locations.is_empty() {
        let files: Vec<String> = ask
            .locations
            .iter()
            .map(|l| l.display().to_string())
            .collect();
        details.push(format!("files: {}", files.join(", ")));
    }
    if let Some(d) = &ask.detail {
        let first = d.lines().next().unwrap_or_default();
        if !first.is_empty() && !details.iter().any(|x| x.contains(first)) {
            details.push(first.to_string());
        }
    }
    PermissionRequest {
        id: id.to_string(),
        title: ask.title.clone(),
        details,
        options: ask
            .options
            .iter()
            .map(|o| PermissionOption {
                id: o.id.clone(),
                name: o.name.clone(),
                kind: o.kind,
            })
            .collect(),
    }
}

/// The user's option as a decision; no answer (dismissed, no such option) is a reject.
pub fn decision_for(request: &PermissionRequest, chosen: Option<&str>) -> PermissionDecision {
    let kind = chosen.and_then(|id| request.options.iter().find(|o| o.id == id).map(|o| o.kind));
    match kind {
        Some(PermissionKind::AllowOnce) => PermissionDecision::AllowOnce,
        Some(PermissionKind::AllowAlways) => PermissionDecision::AllowAlways,
        Some(PermissionKind::RejectAlways) => PermissionDecision::RejectAlways,
        Some(PermissionKind::RejectOnce) | None => PermissionDecision::RejectOnce,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::acp::events::ToolStatus;
    use crate::acp::permission::{PermissionChoice, ToolIdentity};
    use crate::tui::app::Effect;
    use crate::tui::runtime::Runner;
    use crate::vault::Vault;

    /// A question as the acp layer hands it over (its own type, not the protocol's).
    fn ask(root: &std::path::Path, path: &str) -> PermissionAsk {
        let choice = |id: &str, name: &str, kind| PermissionChoice {
            id: id.into(),
            name: name.into(),
            kind,
        };
        PermissionAsk {
            tool_call_id: "call-1".into(),
            title: "edit".into(),
            kind: Some("other".into()),
            tool: ToolIdentity::Unknown,
            input: Some(serde_json::json!({"path": path})),
            detail: None,
            locations: vec![root.join(path)],
            options: vec![
                choice("yes", "Allow", PermissionKind::AllowOnce),
                choice("no", "Reject", PermissionKind::RejectOnce),
                choice("never", "Never", PermissionKind::RejectAlways),
            ],
        }
    }

    /// The asker's question shows as the modal (with the call's arguments and files); the
    /// user's option comes back through `Effect::AnswerPermission` while the future waits (no
    /// blocking anywhere).
    #[test]
    fn permission_questions_wait_for_the_users_answer() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("papers/a")).unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let root = vault.root().to_path_buf();
        let _g = rt.enter();
        let (runner, mut rx) = Runner::new(vault, &Default::default());
        let asker = ui_asker(runner.sender(), runner.turns.home(), 7);

        let write = ask(&root, "papers/a/paper.pdf");
        let pending = asker(&write);
        let Ok(Msg::Chat {
            turn: 7,
            event: ChatEvent::Permission(shown),
        }) = rx.try_recv()
        else {
            panic!("no permission question");
        };
        assert_eq!(shown.title, "edit");
        assert!(
            shown
                .details
                .iter()
                .any(|d| d == "arguments: path: papers/a/paper.pdf"),
            "{:?}",
            shown.details
        );
        assert!(shown.details.iter().any(|d| d.starts_with("files: ")));
        assert_eq!(shown.options.len(), 3);
        runner.run(Effect::AnswerPermission {
            turn: 7,
            request: shown.id.clone(),
            option: Some("yes".into()),
        });
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::AllowOnce);

        // Dismissed (no option) and a question nobody can answer any more: reject.
        let pending = asker(&write);
        let Ok(Msg::Chat {
            event: ChatEvent::Permission(shown),
            ..
        }) = rx.try_recv()
        else {
            panic!("no permission question");
        };
        runner.run(Effect::AnswerPermission {
            turn: 7,
            request: shown.id,
            option: None,
        });
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::RejectOnce);
        let pending = asker(&write);
        // The turn ends with the question still open: the service forgets it.
        let _ = runner.turns.home().send(Cmd::Finished {
            turn: 7,
            thread_id: "t".into(),
            thread: Box::new(Transcript::create(&runner.vault)),
            kind: TurnKind::Chat,
            held: runner.busy.hold(),
        });
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::RejectOnce);
    }

    #[test]
    fn the_chosen_option_maps_to_its_kind() {
        let r = PermissionRequest {
            id: "1".into(),
            title: "t".into(),
            details: Vec::new(),
            options: vec![PermissionOption {
                id: "x".into(),
                name: "Always".into(),
                kind: PermissionKind::RejectAlways,
            }],
        };
        assert_eq!(
            decision_for(&r, Some("x")),
            PermissionDecision::RejectAlways
        );
        assert_eq!(
            decision_for(&r, Some("other")),
            PermissionDecision::RejectOnce
        );
    }

    #[test]
    fn turn_events_become_chat_events() {
        let e = chat_event(&TurnEvent::ToolUpdate(crate::acp::events::ToolUpdateInfo {
            id: "c".into(),
            title: None,
            status: Some(ToolStatus::Completed),
            input: None,
        }));
        assert_eq!(
            e,
            Some(ChatEvent::ToolCallUpdate {
                id: "c".into(),
                status: Some(ToolStatus::Completed),
                title: None,
                detail: None
            })
        );
        assert_eq!(chat_event(&TurnEvent::Commands(vec![])), None);
        // A call's arguments become its card's detail (z shows them).
        let call = TurnEvent::ToolCall(crate::acp::events::ToolCallInfo {
            id: "c".into(),
            title: "context_search".into(),
            status: ToolStatus::Pending,
            kind: None,
            input: Some(serde_json::json!({"query": "dense retrieval", "limit": 4})),
        });
        assert_eq!(
            tool_detail(&call),
            Some(ChatEvent::ToolCallUpdate {
                id: "c".into(),
                status: None,
                title: None,
                detail: Some("query: dense retrieval\nlimit: 4".into()),
            })
        );
    }
}
