//! The built-in offline ACP agent (`agentero --builtin-agent`).
//!
//! A real ACP agent over stdio: `initialize` (advertising `loadSession`,
//! `sessionCapabilities.resume` and stdio MCP), `session/new`, `session/load` (replays the
//! stored history as `session/update` notifications), `session/resume`, `session/prompt` and
//! `session/cancel`. It connects to the stdio MCP servers it is given (rmcp client), reports
//! every tool call as `tool_call` + `tool_call_update`, and answers extractively: the sentences
//! of the granted sources that best match the question's key words, as short quotes each
//! followed by its citation URI, streamed as `agent_message_chunk`s. With no MCP server (a
//! `prompt_only` turn) it answers from the prompt's evidence alone and says it cannot read
//! further. `/search`, `/read` and `/relations` (announced with `available_commands_update`)
//! run a tool directly. No network, no API key.
//!
//! History: each session's prompts and answers are appended to `builtin-agent.jsonl` in the
//! session's cwd — the host sets it to the session's own folder under
//! `.agentero/context-sessions/`, inside the app's state folder, so this writes nothing into
//! the vault proper. That file is what lets a later process `session/load` or `session/resume`
//! the session.
//!
//! Test hooks (documented, used by `tests/it/acp_failures.rs`): `AGENTERO_BUILTIN_FAULT` =
//! `crash` (exit after the first chunk of a prompt), `hang` (stop after the first chunk and
//! ignore `session/cancel`), `no-mcp` (never connect the MCP servers), `init-fail` (refuse
//! `initialize`), `auth` (require authentication), `load-only` (advertise `loadSession` but
//! not `resume`), `load-auth` (the same, and answer every `session/load` with "Authentication
//! required" while new sessions work, as Gemini CLI does with only an API key), `ask-permission` (before the first tool call of a prompt, send a real
//! `session/request_permission` for a tool of another MCP server — "publish_note (notes-sync
//! MCP Server)", kind `other`, options allow_once/allow_always/reject_once/reject_always — wait
//! for the client's answer, start the answer with `permission: allowed|rejected|cancelled
//! (<option kind>)`, then proceed as usual; nothing is ever done), `ask-native` (the same for a
//! native write, "edit notes/x.md", kind `edit`). Used by `tests/it/acp_failures.rs` and
//! `tests/tui_keys.rs`.

pub mod answer;
pub mod choose;
pub mod handoff;
pub mod rank;
mod respond;
pub mod shape;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio as ProcStdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, AvailableCommand, AvailableCommandInput,
    AvailableCommandsUpdate, CancelNotification, Content, ContentBlock, ContentChunk,
    Implementation, InitializeRequest, InitializeResponse, LoadSessionRequest, LoadSessionResponse,
    McpServer, McpServerStdio, NewSessionRequest, NewSessionResponse, PermissionOption,
    PermissionOptionKind, PromptRequest, PromptResponse, RequestPermissionOutcome,
    RequestPermissionRequest, ResumeSessionRequest, ResumeSessionResponse, SessionCapabilities,
    SessionId, SessionNotification, SessionResumeCapabilities, SessionUpdate, StopReason,
    TextContent, ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
    ToolKind, UnstructuredCommandInput,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error as AcpError};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use answer::{Slash, parse_prompt};

pub const AGENT_NAME: &str = "agentero-builtin";
pub const HISTORY_FILE: &str = "builtin-agent.jsonl";
pub const FAULT_ENV: &str = "AGENTERO_BUILTIN_FAULT";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    None,
    Crash,
    Hang,
    NoMcp,
    InitFail,
    Auth,
    LoadOnly,
    LoadAuth,
    AskPermission,
    AskNative,
}

impl Fault {
    fn from_env() -> Fault {
        match std::env::var(FAULT_ENV).as_deref() {
            Ok("crash") => Fault::Crash,
            Ok("hang") => Fault::Hang,
            Ok("no-mcp") => Fault::NoMcp,
            Ok("init-fail") => Fault::InitFail,
            Ok("auth") => Fault::Auth,
            Ok("load-only") => Fault::LoadOnly,
            Ok("load-auth") => Fault::LoadAuth,
            Ok("ask-permission") => Fault::AskPermission,
            Ok("ask-native") => Fault::AskNative,
            _ => Fault::None,
        }
    }
}

type McpClient = RunningService<RoleClient, ()>;

struct Session {
    id: String,
    history: PathBuf,
    /// Connected context servers, keyed by their command line (a resume with the same server
    /// keeps the connection).
    tools: tokio::sync::Mutex<Vec<(String, Arc<McpClient>)>>,
    cancelled: AtomicBool,
    calls: AtomicU64,
}

impl Session {
    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }
}

struct State {
    fault: Fault,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
}

impl State {
    fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct HistoryLine {
    session: String,
    /// `created`, `user` or `agent`.
    role: String,
    #[serde(default)]
    text: String,
}

fn append_history(path: &Path, line: &HistoryLine) {
    let Ok(mut text) = serde_json::to_string(line) else {
        return;
    };
    text.push('\n');
    let written = crate::vault::statefs::append_whole(path, &text);
    if let Err(e) = written {
        tracing::warn!(error = %e, path = %path.display(), "cannot write the agent history");
    }
}

fn read_history(path: &Path, session: &str) -> Option<Vec<HistoryLine>> {
    let bytes = crate::vault::statefs::read(path).ok()?;
    let lines: Vec<HistoryLine> = String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str::<HistoryLine>(l).ok())
        .filter(|l| l.session == session)
        .collect();
    (!lines.is_empty()).then_some(lines)
}

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

fn stdio_servers(servers: &[McpServer]) -> Vec<McpServerStdio> {
    servers
        .iter()
        .filter_map(|s| match s {
            McpServer::Stdio(s) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

fn server_key(s: &McpServerStdio) -> String {
    let mut k = s.command.display().to_string();
    for a in &s.args {
        k.push('\u{1f}');
        k.push_str(a);
    }
    k
}

async fn connect_mcp(server: &McpServerStdio) -> anyhow::Result<McpClient> {
    let mut cmd = tokio::process::Command::new(&server.command);
    cmd.args(&server.args).kill_on_drop(true);
    for e in &server.env {
        cmd.env(&e.name, &e.value);
    }
    let (transport, stderr) = TokioChildProcess::builder(cmd)
        .stderr(ProcStdio::piped())
        .spawn()?;
    if let Some(stderr) = stderr {
        let name = server.name.clone();
        tokio::spawn(async move {
            use tokio::io::AsyncBufReadExt;
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(l)) = lines.next_line().await {
                tracing::info!(server = %name, "mcp stderr: {l}");
            }
        });
    }
    let client = ().serve(transport).await?;
    // Listing the tools is what the context server records as "attached".
    let tools = client.list_all_tools().await?;
    tracing::info!(server = %server.name, tools = tools.len(), "connected an MCP server");
    Ok(client)
}

/// Connects the session's servers, keeping the connections it already has to the same ones.
async fn attach(state: &State, session: &Session, servers: &[McpServer]) {
    if state.fault == Fault::NoMcp {
        tracing::info!("fault no-mcp: ignoring {} MCP servers", servers.len());
        return;
    }
    let wanted = stdio_servers(servers);
    let mut tools = session.tools.lock().await;
    tools.retain(|(k, _)| wanted.iter().any(|w| server_key(w) == *k));
    for s in wanted {
        let key = server_key(&s);
        if tools.iter().any(|(k, _)| *k == key) {
            continue;
        }
        match connect_mcp(&s).await {
            Ok(c) => tools.push((key, Arc::new(c))),
            Err(e) => tracing::warn!(server = %s.name, error = %e, "cannot connect an MCP server"),
        }
    }
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

fn send(cx: &ConnectionTo<Client>, session: &str, update: SessionUpdate) -> Result<(), AcpError> {
    cx.send_notification(SessionNotification::new(SessionId::new(session), update))
}

fn chunk(text: impl Into<String>) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(
        text.into(),
    ))))
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

/// One answer being streamed: every piece goes out as a chunk and into the history.
struct Reply<'a> {
    cx: &'a ConnectionTo<Client>,
    session: &'a Session,
    text: String,
    fault: Fault,
}

impl Reply<'_> {
    fn say(&mut self, piece: &str) -> Result<(), AcpError> {
        send(self.cx, &self.session.id, chunk(piece))?;
        self.text.push_str(piece);
        Ok(())
    }
}

/// The first text-bearing tools client of the session.
async fn tools_of(session: &Session) -> Option<Arc<McpClient>> {
    session.tools.lock().await.first().map(|(_, c)| c.clone())
}

/// Calls a tool and reports it as `tool_call` + `tool_call_update`. `Ok(Err(msg))` is a tool
/// error (reported as failed), `Err` a protocol failure.
async fn call_tool(
    cx: &ConnectionTo<Client>,
    session: &Session,
    client: &McpClient,
    tool: &str,
    title: String,
    kind: ToolKind,
    args: Value,
) -> Result<Result<Value, String>, AcpError> {
    let id = format!("call-{}", session.calls.fetch_add(1, Ordering::SeqCst) + 1);
    send(
        cx,
        &session.id,
        SessionUpdate::ToolCall(
            ToolCall::new(id.clone(), title)
                .kind(kind)
                .status(ToolCallStatus::InProgress)
                .raw_input(args.clone()),
        ),
    )?;
    let params = CallToolRequestParams::new(tool.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    let outcome = match client.call_tool(params).await {
        Ok(r) if r.is_error == Some(true) => Err(r
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .map(|t| t.text.clone())
            .collect::<Vec<_>>()
            .join(" ")),
        Ok(r) => Ok(r.structured_content.unwrap_or(Value::Null)),
        Err(e) => Err(format!("the context server failed: {e}")),
    };
    let (status, summary) = match &outcome {
        Ok(v) => (ToolCallStatus::Completed, summarize(tool, v)),
        Err(msg) => (ToolCallStatus::Failed, msg.clone()),
    };
    send(
        cx,
        &session.id,
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id,
            ToolCallUpdateFields::new()
                .status(status)
                .content(vec![ToolCallContent::Content(Content::new(summary))]),
        )),
    )?;
    Ok(outcome)
}

fn summarize(tool: &str, v: &Value) -> String {
    match tool {
        "context_search" | "paper_relations" => {
            let n = v.get("cards").and_then(Value::as_array).map_or(0, Vec::len);
            format!("{n} cards")
        }
        _ => {
            let n = v
                .get("text")
                .and_then(Value::as_str)
                .map_or(0, |t| t.chars().count());
            match v.get("citationUri").and_then(Value::as_str) {
                Some(u) => format!("{n} characters from {u}"),
                None => format!("{n} characters"),
            }
        }
    }
}

fn card_place(card: &Value) -> String {
    if let Some(p) = card.get("page").and_then(Value::as_u64) {
        return format!(" p. {p}");
    }
    if let Some([a, b]) = card.get("lines").and_then(Value::as_array).map(|l| {
        [
            l.first().and_then(Value::as_u64).unwrap_or(0),
            l.get(1).and_then(Value::as_u64).unwrap_or(0),
        ]
    }) {
        return format!(" lines {a}-{b}");
    }
    String::new()
}

async fn run_slash(
    reply: &mut Reply<'_>,
    client: Option<&McpClient>,
    cmd: Slash,
) -> Result<StopReason, AcpError> {
    let Some(client) = client else {
        reply.say("No vault tools are available in this turn (prompt only), so I cannot run this command.")?;
        return Ok(StopReason::EndTurn);
    };
    let (cx, session) = (reply.cx, reply.session);
    let (tool, title, kind, args) = match &cmd {
        Slash::Search(q) => (
            "context_search",
            format!("context_search {q:?}"),
            ToolKind::Search,
            json!({"query": q}),
        ),
        Slash::Read {
            path,
            page: Some(p),
        } => (
            "context_read",
            format!("context_read {path} p. {p}"),
            ToolKind::Read,
            json!({"path": path, "mode": "page", "page": p}),
        ),
        Slash::Read { path, page: None } => (
            "context_read",
            format!("context_read {path}"),
            ToolKind::Read,
            json!({"path": path}),
        ),
        Slash::Relations(path) => (
            "paper_relations",
            format!("paper_relations {path}"),
            ToolKind::Search,
            json!({"path": path}),
        ),
    };
    match call_tool(cx, session, client, tool, title, kind, args).await? {
        Err(msg) => reply.say(&format!("The tool refused: {msg}"))?,
        Ok(v) => {
            let mut out = String::new();
            if let Some(cards) = v.get("cards").and_then(Value::as_array) {
                if cards.is_empty() {
                    out.push_str("No cards.\n");
                }
                for c in cards {
                    let title = c.get("title").and_then(Value::as_str).unwrap_or("");
                    let rel = c
                        .get("relation")
                        .and_then(Value::as_str)
                        .map(|r| format!("[{r}] "))
                        .unwrap_or_default();
                    let uri = c.get("citationUri").and_then(Value::as_str).unwrap_or("");
                    out.push_str(&format!("- {rel}{title}{} {uri}\n", card_place(c)));
                    if let Some(x) = c.get("excerpt").and_then(Value::as_str) {
                        out.push_str(&format!("  {x}\n"));
                    }
                }
            } else {
                if let Some(t) = v.get("title").and_then(Value::as_str) {
                    out.push_str(&format!("{t}\n"));
                }
                if let Some(t) = v.get("text").and_then(Value::as_str) {
                    out.push_str(t);
                    out.push('\n');
                } else {
                    out.push_str(&serde_json::to_string_pretty(&v).unwrap_or_default());
                    out.push('\n');
                }
                if let Some(u) = v.get("citationUri").and_then(Value::as_str) {
                    out.push_str(&format!("{u}\n"));
                }
            }
            reply.say(&out)?;
        }
    }
    Ok(StopReason::EndTurn)
}

async fn prompt(
    state: &State,
    req: PromptRequest,
    cx: &ConnectionTo<Client>,
) -> Result<PromptResponse, AcpError> {
    let sid = req.session_id.0.to_string();
    let session = state
        .session(&sid)
        .ok_or_else(|| AcpError::invalid_params().data(json!(format!("unknown session {sid}"))))?;
    session.cancelled.store(false, Ordering::SeqCst);
    let text: String = req
        .prompt
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    append_history(
        &session.history,
        &HistoryLine {
            session: sid.clone(),
            role: "user".into(),
            text: text.clone(),
        },
    );
    let parsed = parse_prompt(&text);
    let client = tools_of(&session).await;
    let mut reply = Reply {
        cx,
        session: &session,
        text: String::new(),
        fault: state.fault,
    };
    let slash = answer::slash(&parsed.question);
    let calls_tools = match &slash {
        Some(Ok(_)) => client.is_some(),
        Some(Err(_)) => false,
        None => client.is_some() && !parsed.prompt_only,
    };
    if matches!(state.fault, Fault::AskPermission | Fault::AskNative) && calls_tools {
        let outcome = ask_permission(cx, &session, state.fault == Fault::AskNative).await;
        reply.say(&format!("permission: {outcome}\n\n"))?;
    }
    let stop = match slash {
        Some(Err(msg)) => {
            reply.say(&msg)?;
            StopReason::EndTurn
        }
        Some(Ok(cmd)) => run_slash(&mut reply, client.as_deref(), cmd).await?,
        None if handoff::is_handoff(&parsed.question) => {
            // Summarized from the record; the request is an instruction, not a question.
            let mut said: Vec<handoff::Said> = handoff::parse_prior(&parsed.prior);
            if let Some(lines) = read_history(&session.history, &sid) {
                said.extend(
                    lines
                        .into_iter()
                        .filter(|l| l.role == "user" || l.role == "agent")
                        .map(|l| handoff::Said {
                            role: l.role,
                            text: parse_prompt(&l.text).question,
                        }),
                );
            }
            reply.say(&handoff::summary(&said, &parsed.handoff))?;
            StopReason::EndTurn
        }
        None => match client.as_deref() {
            Some(c) if !parsed.prompt_only => {
                respond::answer_with_tools(&mut reply, c, &parsed).await?
            }
            _ => {
                if state.fault == Fault::Hang {
                    reply.say("Thinking")?;
                    std::future::pending::<()>().await;
                }
                respond::answer_from_prompt(&mut reply, &parsed)?
            }
        },
    };
    let stop = if session.is_cancelled() {
        StopReason::Cancelled
    } else {
        stop
    };
    append_history(
        &session.history,
        &HistoryLine {
            session: sid,
            role: "agent".into(),
            text: reply.text,
        },
    );
    Ok(PromptResponse::new(stop))
}

/// The `ask-permission` test hook: asks the client whether it may edit a note outside any
/// grant and describes the answer (`allowed (allow_once)`, `rejected (reject_once)`,
/// `cancelled`, ...). Runs in the prompt's spawned task, never on the dispatch loop, so
/// waiting for the answer blocks nothing else.
async fn ask_permission(cx: &ConnectionTo<Client>, session: &Session, native: bool) -> String {
    let id = format!("call-{}", session.calls.fetch_add(1, Ordering::SeqCst) + 1);
    let options = [
        ("allow-once", "Allow once", PermissionOptionKind::AllowOnce),
        (
            "allow-always",
            "Allow always",
            PermissionOptionKind::AllowAlways,
        ),
        (
            "reject-once",
            "Reject once",
            PermissionOptionKind::RejectOnce,
        ),
        (
            "reject-always",
            "Reject always",
            PermissionOptionKind::RejectAlways,
        ),
    ];
    let req = RequestPermissionRequest::new(
        session.id.clone(),
        ToolCallUpdate::new(
            id,
            if native {
                ToolCallUpdateFields::new()
                    .title("edit notes/x.md".to_string())
                    .kind(ToolKind::Edit)
            } else {
                ToolCallUpdateFields::new()
                    .title("publish_note (notes-sync MCP Server)".to_string())
                    .kind(ToolKind::Other)
            }
            .status(ToolCallStatus::Pending)
            .raw_input(json!({"path": "notes/x.md", "text": "test hook: never written"})),
        ),
        options
            .iter()
            .map(|(id, name, kind)| PermissionOption::new(*id, *name, *kind))
            .collect(),
    );
    match cx.send_request(req).block_task().await {
        Ok(resp) => match resp.outcome {
            RequestPermissionOutcome::Selected(sel) => {
                let kind = options
                    .iter()
                    .find(|(id, _, _)| *id == &*sel.option_id.0)
                    .map(|(_, _, k)| *k);
                match kind {
                    Some(PermissionOptionKind::AllowOnce) => "allowed (allow_once)".into(),
                    Some(PermissionOptionKind::AllowAlways) => "allowed (allow_always)".into(),
                    Some(PermissionOptionKind::RejectOnce) => "rejected (reject_once)".into(),
                    Some(PermissionOptionKind::RejectAlways) => "rejected (reject_always)".into(),
                    _ => format!("unknown option {:?}", sel.option_id.0),
                }
            }
            _ => "cancelled".into(),
        },
        Err(e) => format!("failed ({})", e.message),
    }
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

/// Serves ACP on stdin/stdout until the client closes the connection.
pub async fn serve() -> anyhow::Result<()> {
    let state = Arc::new(State {
        fault: Fault::from_env(),
        sessions: Mutex::new(HashMap::new()),
    });
    let (s_init, s_new, s_load, s_resume, s_prompt, s_cancel) = (
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
                let fault = s_init.fault;
                if fault == Fault::InitFail {
                    return responder.respond_with_error(
                        AcpError::internal_error().data(json!("test hook: initialize refused")),
                    );
                }
                let sessions = if matches!(fault, Fault::LoadOnly | Fault::LoadAuth) {
                    SessionCapabilities::new()
                } else {
                    SessionCapabilities::new().resume(SessionResumeCapabilities::new())
                };
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
                responder.respond(resp)
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
                respond_later(responder, async move {
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
                })
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
                respond_later(responder, async move {
                    check_cwd(&r.cwd)?;
                    let id = r.session_id.0.to_string();
                    let history = read_history(&r.cwd.join(HISTORY_FILE), &id)
                        .ok_or_else(|| unknown_session(&id))?;
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
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |r: ResumeSessionRequest,
                        responder: Responder<ResumeSessionResponse>,
                        _cx| {
                let state = s_resume.clone();
                respond_later(responder, async move {
                    check_cwd(&r.cwd)?;
                    let id = r.session_id.0.to_string();
                    if state.session(&id).is_none()
                        && read_history(&r.cwd.join(HISTORY_FILE), &id).is_none()
                    {
                        return Err(unknown_session(&id));
                    }
                    let session = register(&state, &id, &r.cwd);
                    attach(&state, &session, &r.mcp_servers).await;
                    Ok(ResumeSessionResponse::new())
                })
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

/// `agentero --builtin-agent`: a tokio runtime and [`serve`] until stdin closes.
pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve());
    if let Err(e) = &result {
        tracing::error!(error = %e, "the built-in agent stopped");
    }
    // MCP children are killed on drop; do not wait for idle blocking threads (stdin reader).
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    result
}
