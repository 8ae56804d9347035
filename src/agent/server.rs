//! The ACP side of the built-in agent: `initialize` (advertising `loadSession`,
//! `sessionCapabilities.resume` and stdio MCP, as the test hooks allow), `session/new`,
//! `session/load` (the stored history replayed), `session/resume`, `session/prompt` and
//! `session/cancel`, each answered by its own handler. Slow work (MCP connections, tool calls,
//! a turn) runs in a spawned task, never on the dispatch loop.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, AvailableCommand, AvailableCommandInput,
    AvailableCommandsUpdate, CancelNotification, CloseSessionRequest, CloseSessionResponse,
    ContentBlock, ContentChunk, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse, ResumeSessionRequest, ResumeSessionResponse, SessionCapabilities,
    SessionCloseCapabilities, SessionId, SessionResumeCapabilities, SessionUpdate, TextContent,
    UnstructuredCommandInput,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error as AcpError};
use serde_json::json;

use super::tools::attach;
use super::turn::prompt;
use super::{
    AGENT_NAME, Fault, HISTORY_FILE, HistoryLine, Session, State, answer, append_history,
    read_history, send,
};

fn internal(e: impl std::fmt::Display) -> AcpError {
    AcpError::internal_error().data(json!(e.to_string()))
}

/// Logs go to the vault's log file, found from the session folder
/// (`{vault}/.agentero/context-sessions/<id>/`); stdout is the protocol.
fn init_logging(cwd: &Path) {
    if let Some(state) = cwd.parent().and_then(Path::parent)
        && crate::vault::statefs::state_root_of(state).as_deref() == Some(state)
    {
        crate::logging::init(state);
    }
}

fn check_cwd(cwd: &Path) -> Result<(), AcpError> {
    if !cwd.is_absolute() {
        return Err(AcpError::invalid_params().data(json!("cwd must be an absolute path")));
    }
    crate::vault::statefs::ensure_dir(cwd).map_err(internal)?;
    init_logging(cwd);
    Ok(())
}

fn register(state: &State, id: &str, cwd: &Path) -> Arc<Session> {
    let mut map = state.sessions.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(id.to_string())
        .or_insert_with(|| {
            Arc::new(Session {
                id: id.to_string(),
                history: cwd.join(HISTORY_FILE),
                tools: tokio::sync::Mutex::new(Vec::new()),
                cancelled: AtomicBool::new(false),
                calls: AtomicU64::new(0),
            })
        })
        .clone()
}

fn commands_update() -> SessionUpdate {
    SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(
        answer::COMMANDS
            .iter()
            .map(|(name, desc, hint)| {
                AvailableCommand::new(*name, *desc).input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new(*hint),
                ))
            })
            .collect(),
    ))
}

fn respond_later<T>(
    responder: Responder<T>,
    work: impl Future<Output = Result<T, AcpError>> + Send + 'static,
) -> Result<(), AcpError>
where
    T: agent_client_protocol::JsonRpcResponse + Send + 'static,
{
    // Slow work (MCP connections, tool calls) must not hold the dispatch loop.
    tokio::spawn(async move {
        let result = work.await;
        if let Err(e) = &result {
            tracing::warn!(error = %e.message, "request failed");
        }
        let _ = responder.respond_with_result(result);
    });
    Ok(())
}

fn unknown_session(id: &str) -> AcpError {
    AcpError::new(
        agent_client_protocol::ErrorCode::RESOURCE_NOT_FOUND,
        format!("session {id} is unknown to the built-in agent"),
    )
}

/// `initialize`: the agent's capabilities, as the test hooks shape them (refused, no
/// `resume`, an authentication method).
fn initialize(fault: Fault, r: InitializeRequest) -> Result<InitializeResponse, AcpError> {
    if fault == Fault::InitFail {
        return Err(AcpError::internal_error().data(json!("test hook: initialize refused")));
    }
    let sessions = if matches!(fault, Fault::LoadOnly | Fault::LoadAuth) {
        SessionCapabilities::new()
    } else {
        SessionCapabilities::new().resume(SessionResumeCapabilities::new())
    }
    .close(SessionCloseCapabilities::new());
    let mut resp = InitializeResponse::new(r.protocol_version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .session_capabilities(sessions),
        )
        .agent_info(Implementation::new(AGENT_NAME, env!("CARGO_PKG_VERSION")));
    if fault == Fault::Auth {
        resp = resp.auth_methods(vec![AuthMethod::Agent(
            AuthMethodAgent::new("test-key", "Test key")
                .description("set AGENTERO_TEST_KEY in the agent's env (test hook)"),
        )]);
    }
    Ok(resp)
}

/// `session/new`: a new session in `cwd`, its creation recorded and its servers connected; the
/// slash commands are announced after the response.
async fn new_session(
    state: Arc<State>,
    r: NewSessionRequest,
    cx: ConnectionTo<Client>,
) -> Result<NewSessionResponse, AcpError> {
    check_cwd(&r.cwd)?;
    let id = format!("bs-{}", uuid::Uuid::new_v4().simple());
    let session = register(&state, &id, &r.cwd);
    append_history(
        &session.history,
        &HistoryLine {
            session: id.clone(),
            role: "created".into(),
            text: String::new(),
        },
    );
    attach(&state, &session, &r.mcp_servers).await;
    let cx2 = cx.clone();
    let id2 = id.clone();
    // After the response, so the client knows the session it is about.
    tokio::spawn(async move {
        tokio::task::yield_now().await;
        let _ = send(&cx2, &id2, commands_update());
    });
    Ok(NewSessionResponse::new(SessionId::new(id)))
}

/// `session/load`: a session recorded in `cwd`'s history, its servers connected and its
/// history replayed.
async fn load_session(
    state: Arc<State>,
    r: LoadSessionRequest,
    cx: ConnectionTo<Client>,
) -> Result<LoadSessionResponse, AcpError> {
    check_cwd(&r.cwd)?;
    let id = r.session_id.0.to_string();
    let history =
        read_history(&r.cwd.join(HISTORY_FILE), &id).ok_or_else(|| unknown_session(&id))?;
    let session = register(&state, &id, &r.cwd);
    attach(&state, &session, &r.mcp_servers).await;
    // The replay comes before the response, as the protocol asks.
    for h in history {
        let block = ContentBlock::Text(TextContent::new(h.text));
        let update = match h.role.as_str() {
            "user" => SessionUpdate::UserMessageChunk(ContentChunk::new(block)),
            "agent" => SessionUpdate::AgentMessageChunk(ContentChunk::new(block)),
            _ => continue,
        };
        send(&cx, &id, update)?;
    }
    Ok(LoadSessionResponse::new())
}

/// `session/resume`: a session this process knows or `cwd`'s history records, its servers
/// connected, nothing replayed.
async fn resume_session(
    state: Arc<State>,
    r: ResumeSessionRequest,
) -> Result<ResumeSessionResponse, AcpError> {
    check_cwd(&r.cwd)?;
    let id = r.session_id.0.to_string();
    if state.session(&id).is_none() && read_history(&r.cwd.join(HISTORY_FILE), &id).is_none() {
        return Err(unknown_session(&id));
    }
    let session = register(&state, &id, &r.cwd);
    attach(&state, &session, &r.mcp_servers).await;
    Ok(ResumeSessionResponse::new())
}

/// `session/close`: the session is forgotten by this process and its context servers are
/// stopped (their connections dropped, which ends the child processes); its history stays,
/// so `session/load` or `session/resume` opens it again.
async fn close_session(
    state: Arc<State>,
    r: CloseSessionRequest,
) -> Result<CloseSessionResponse, AcpError> {
    let id = r.session_id.0.to_string();
    let session = state
        .sessions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&id)
        .ok_or_else(|| unknown_session(&id))?;
    let servers = std::mem::take(&mut *session.tools.lock().await);
    tracing::info!(session = %id, servers = servers.len(), "closed a session");
    drop(servers);
    Ok(CloseSessionResponse::new())
}

/// Serves ACP on stdin/stdout until the client closes the connection.
pub async fn serve() -> anyhow::Result<()> {
    let state = Arc::new(State {
        fault: Fault::from_env(),
        sessions: Mutex::new(HashMap::new()),
    });
    let (s_init, s_new, s_load, s_resume, s_prompt, s_cancel, s_close) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    Agent
        .v1()
        .name(AGENT_NAME)
        .on_receive_request(
            async move |r: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                match initialize(s_init.fault, r) {
                    Ok(resp) => responder.respond(resp),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: NewSessionRequest,
                        responder: Responder<NewSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let state = s_new.clone();
                if state.fault == Fault::Auth {
                    return responder.respond_with_error(AcpError::auth_required());
                }
                respond_later(responder, new_session(state, r, cx))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: LoadSessionRequest,
                        responder: Responder<LoadSessionResponse>,
                        cx: ConnectionTo<Client>| {
                let state = s_load.clone();
                if state.fault == Fault::LoadAuth {
                    return responder.respond_with_error(AcpError::auth_required());
                }
                respond_later(responder, load_session(state, r, cx))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: ResumeSessionRequest,
                        responder: Responder<ResumeSessionResponse>,
                        _cx| {
                respond_later(responder, resume_session(s_resume.clone(), r))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: PromptRequest,
                        responder: Responder<PromptResponse>,
                        cx: ConnectionTo<Client>| {
                let state = s_prompt.clone();
                respond_later(responder, async move { prompt(&state, r, &cx).await })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: CloseSessionRequest, responder: Responder<CloseSessionResponse>, _cx| {
                respond_later(responder, close_session(s_close.clone(), r))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                if s_cancel.fault != Fault::Hang
                    && let Some(s) = s_cancel.session(&n.session_id.0)
                {
                    s.cancelled.store(true, Ordering::SeqCst);
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(agent_client_protocol::Stdio::new())
        .await
        .map_err(|e| anyhow::anyhow!("the ACP connection failed: {}", e.message))
}
