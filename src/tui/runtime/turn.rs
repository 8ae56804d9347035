//! Turns on the agent: its process started on demand, one turn at a time, events streamed into
//! the chat as `ChatEvent`s, permission questions put to the user through the modal.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::{Notify, oneshot};

use super::{AgentSetup, QUICK_DIR, Runner, TurnKind};
use crate::acp::client::AgentProcess;
use crate::acp::transcript::Thread as Transcript;
use crate::acp::turn::{
    PermissionAsk, PermissionAsker, PermissionDecision, TurnError, TurnEvent, TurnOutcome,
    TurnSpec, run_turn,
};
use crate::context::ContextRequest;
use crate::tui::app::{Msg, Status};
use crate::tui::chips::AgentState;
use crate::tui::thread::{
    self as chat, ChatEvent, PermissionKind, PermissionOption, PermissionRequest, SessionInfo,
    SourceRef,
};

impl Runner {
    /// Starts the agent process; the chat's status line follows (starting → ready/failed).
    pub(super) async fn start_agent(&self) {
        let Some(setup) = self.agent_setup() else {
            let _ = self.tx.send(Msg::Agent(AgentState::Unavailable(
                "no agent is configured".into(),
            )));
            return;
        };
        let mut slot = self.agent.lock().await;
        let state = match self.spawn_agent(&setup).await {
            Ok(a) => {
                *slot = Some(a);
                AgentState::Ready {
                    name: setup.def.name.clone(),
                    remote: setup.def.remote,
                }
            }
            Err(why) => AgentState::Unavailable(why),
        };
        let _ = self.tx.send(Msg::Agent(state));
    }

    pub(super) async fn spawn_agent(&self, setup: &AgentSetup) -> Result<AgentProcess, String> {
        match AgentProcess::start(&setup.def, &self.vault.state_dir()).await {
            Ok(a) => {
                if setup.def.remote && setup.def.warm_pool > 0 {
                    let dir = self
                        .vault
                        .state_dir()
                        .join(crate::context::grant::SESSIONS_DIR);
                    a.fill_pool(&dir, setup.def.warm_pool).await;
                }
                Ok(a)
            }
            Err(e) => Err(format!("{} failed to start: {e}", setup.def.name)),
        }
    }

    /// Who answers the questions the permission rules leave open: the modal. The future only
    /// waits on a oneshot, so the ACP dispatch loop is never blocked; an unanswered question
    /// (turn cancelled, app quit) is rejected.
    pub(super) fn ui_asker(&self, turn: u64) -> PermissionAsker {
        let tx = self.tx.clone();
        let answers = self.answers.clone();
        let next = Arc::new(AtomicUsize::new(0));
        Arc::new(move |ask: &PermissionAsk| {
            let id = format!("{turn}-{}", next.fetch_add(1, Ordering::SeqCst));
            let request = permission_request(&id, ask);
            let (answer_tx, answer_rx) = oneshot::channel();
            if let Ok(mut m) = answers.lock() {
                m.insert(id.clone(), answer_tx);
            }
            let shown = tx
                .send(Msg::Chat {
                    turn,
                    event: ChatEvent::Permission(request.clone()),
                })
                .is_ok();
            let answers = answers.clone();
            Box::pin(async move {
                let chosen = if shown {
                    answer_rx.await.ok().flatten()
                } else {
                    None
                };
                if let Ok(mut m) = answers.lock() {
                    m.remove(&id);
                }
                decision_for(&request, chosen.as_deref())
            })
        })
    }

    /// One turn (or the handoff turn) on the agent, streamed into the chat as `ChatEvent`s.
    pub(super) async fn turn(
        &self,
        turn: u64,
        thread_id: String,
        mut request: ContextRequest,
        kind: TurnKind,
    ) {
        let handoff = kind == TurnKind::Handoff;
        let send = {
            let tx = self.tx.clone();
            move |event: ChatEvent| {
                let _ = tx.send(Msg::Chat { turn, event });
            }
        };
        let Some(setup) = self.agent_setup() else {
            send(ChatEvent::TurnFailed("no agent is configured".into()));
            let _ = self.tx.send(Msg::TurnDone { turn });
            return;
        };
        let cancel = Arc::new(Notify::new());
        if let Ok(mut m) = self.cancels.lock() {
            m.insert(turn, cancel.clone());
        }
        let mut thread = if kind == TurnKind::Quick {
            let mut t = Transcript::create(&self.vault);
            t.dir = self.vault.state_dir().join(QUICK_DIR).join(&t.id);
            t
        } else {
            self.take_thread(&thread_id)
        };
        if handoff {
            let locality = request.locality;
            request = crate::acp::handoff::handoff_request(&thread);
            request.locality = locality;
            if setup.def.remote {
                request.locality = crate::context::Locality::Remote;
            }
        }
        request.budget = setup.budget;
        // The host's side of the context tools (the citing-scan cache) and the grant's sources,
        // off the async threads: both read the vault.
        let (vault, req) = (self.vault.clone(), request.clone());
        let planned = tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::context::library::ensure_cache(&vault, &vault.catalog()) {
                tracing::warn!(error = %e, "cannot write the citing-scan cache");
            }
            crate::context::plan(&vault, &req)
        })
        .await;
        let plan = match planned {
            Ok(p) => p,
            Err(e) => {
                send(ChatEvent::TurnFailed(format!(
                    "cannot plan the context: {e}"
                )));
                self.finish(turn, thread_id, thread, kind);
                return;
            }
        };
        let mut slot = self.agent.lock().await;
        // An agent that was killed (time limit, crash) is started again for this turn.
        if slot.as_ref().is_none_or(|a| a.has_exited()) {
            *slot = None;
            match self.spawn_agent(&setup).await {
                Ok(a) => *slot = Some(a),
                Err(why) => {
                    let _ = self
                        .tx
                        .send(Msg::Agent(AgentState::Unavailable(why.clone())));
                    send(ChatEvent::TurnFailed(why));
                    drop(slot);
                    self.finish(turn, thread_id, thread, kind);
                    return;
                }
            }
        }
        let agent = slot.as_mut().expect("started above");
        let spec = TurnSpec {
            request,
            plan: plan.clone(),
            host_exe: setup.host_exe.clone(),
            timeout: setup.timeout,
            cancel,
            asker: Some(self.ui_asker(turn)),
            remembered: self.remembered.clone(),
        };
        let mut on_event = {
            let send = send.clone();
            move |e: &TurnEvent| {
                for ev in chat_event(e).into_iter().chain(tool_detail(e)) {
                    send(ev);
                }
            }
        };
        let result: Result<(TurnOutcome, Option<String>), TurnError> = if handoff {
            crate::acp::handoff::run_handoff(&self.vault, agent, &mut thread, spec, &mut on_event)
                .await
                .map(|(_, o)| {
                    let path = thread.handoff_path();
                    let shown = path
                        .strip_prefix(self.vault.root())
                        .unwrap_or(&path)
                        .display()
                        .to_string();
                    (o, Some(shown))
                })
        } else {
            run_turn(&self.vault, agent, &mut thread, spec, &mut on_event)
                .await
                .map(|o| (o, None))
        };
        let exited = agent.has_exited();
        drop(slot);
        match result {
            Ok((o, handoff_file)) => {
                send(ChatEvent::Session(SessionInfo {
                    agent: setup.def.name.clone(),
                    mode: o.mode.as_str().to_string(),
                    grant_sources: plan.sources.len(),
                    fingerprint: o.fingerprint.clone(),
                    tools_attached: o.attached == Some(true),
                    session: session_name(o.session).into(),
                }));
                send(ChatEvent::Citations(o.citations.clone()));
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
                send(ChatEvent::Sources(cited));
                send(ChatEvent::Consulted(consulted));
                if let Some(file) = handoff_file {
                    send(ChatEvent::Notice(format!(
                        "handoff written to {file}: the next question starts a fresh session seeded from it"
                    )));
                    let _ = self.tx.send(Msg::Status(Status::info(format!(
                        "handoff written to {file}"
                    ))));
                }
                send(ChatEvent::TurnEnded {
                    stop_reason: o.stop_reason,
                });
            }
            Err(e) => {
                send(ChatEvent::TurnFailed(e.to_string()));
                if exited {
                    let _ = self.tx.send(Msg::Status(Status::info(format!(
                        "agent {} stopped; it starts again with the next question",
                        setup.def.name
                    ))));
                }
            }
        }
        self.finish(turn, thread_id, thread, kind);
    }

    pub(super) fn finish(&self, turn: u64, thread_id: String, thread: Transcript, kind: TurnKind) {
        if kind == TurnKind::Quick {
            // One Quick Chat at a time: the one before it was closed or promoted already.
            let old = self
                .quick
                .lock()
                .ok()
                .and_then(|mut q| q.replace((turn, thread)));
            if let Some((_, old)) = old {
                let _ = std::fs::remove_dir_all(&old.dir);
            }
        } else if let Ok(mut m) = self.threads.lock() {
            m.insert(thread_id, thread);
        }
        if let Ok(mut m) = self.cancels.lock() {
            m.remove(&turn);
        }
        // Questions of this turn that ended unanswered (the turn answered them `cancelled`).
        if let Ok(mut m) = self.answers.lock() {
            let prefix = format!("{turn}-");
            m.retain(|id, _| !id.starts_with(&prefix));
        }
        let _ = self.tx.send(Msg::TurnDone { turn });
    }
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
        let (runner, mut rx) = Runner::new(vault);
        let asker = runner.ui_asker(7);

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
        runner.answers.lock().unwrap().clear();
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
