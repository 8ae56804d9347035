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
//! `tests/it/tui_keys.rs`.

pub mod answer;
pub mod apparatus;
pub mod candidate;
pub mod choose;
pub mod handoff;
mod kind;
pub mod names;
pub mod rank;
mod respond;
mod server;
pub mod shape;
pub mod text;
mod tools;
mod turn;
pub mod value;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, SessionId, SessionNotification, SessionUpdate, TextContent,
};
use agent_client_protocol::{Client, Error as AcpError};
use rmcp::service::{RoleClient, RunningService};
use serde::{Deserialize, Serialize};

pub use server::serve;

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

fn send(cx: &ConnectionTo<Client>, session: &str, update: SessionUpdate) -> Result<(), AcpError> {
    cx.send_notification(SessionNotification::new(SessionId::new(session), update))
}

fn chunk(text: impl Into<String>) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(
        text.into(),
    ))))
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
