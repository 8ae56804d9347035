//! The `agentero-context` stdio MCP server: a thin rmcp adapter over `context::tools`.
//!
//! `agentero --agentero-context-mcp <grant.json>` runs it. Stdout carries only the protocol
//! (logs go to the vault's log file); the only files it writes are `usage.jsonl` (through
//! `context::tools`) and `attached.json` (when a client initialized it and listed its tools,
//! so the host can tell whether the agent ever attached).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::context::grant::{self, Attachment, GrantFiles};
use crate::context::tools::{ToolError, ToolSession, specs};
use crate::context::{CONTEXT_SERVER_NAME, ContextTool};

pub mod guard;
pub mod http;
pub mod serve;
pub mod sessions;
pub mod vault;
pub mod wire;

#[derive(Clone)]
pub struct ContextServer {
    session: Arc<Mutex<ToolSession>>,
    files: GrantFiles,
    attachment: Arc<Mutex<Attachment>>,
    tools: Arc<Vec<Tool>>,
}

impl ContextServer {
    pub fn new(grant_path: &Path) -> ContextServer {
        let tools = specs()
            .into_iter()
            .map(|s| {
                let schema = match s.input_schema {
                    Value::Object(m) => m,
                    _ => Default::default(),
                };
                Tool::new(s.name, s.description, schema).with_title(s.title)
            })
            .collect();
        ContextServer {
            session: Arc::new(Mutex::new(ToolSession::new(grant_path))),
            files: GrantFiles::of_grant(grant_path),
            attachment: Arc::new(Mutex::new(Attachment {
                pid: std::process::id(),
                ..Attachment::default()
            })),
            tools: Arc::new(tools),
        }
    }

    fn current_grant(&self) -> Option<std::sync::Arc<crate::context::Grant>> {
        let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
        s.grant().ok().map(|(g, _)| g)
    }

    fn record(&self, update: impl FnOnce(&mut Attachment)) {
        let mut a = self.attachment.lock().unwrap_or_else(|e| e.into_inner());
        update(&mut a);
        if let Err(e) = grant::write_attachment(&self.files, &a) {
            tracing::warn!(error = %e, "cannot write attached.json");
        }
    }
}

fn error_result(e: &ToolError) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(e.message.clone())]);
    r.structured_content = Some(json!({"error": e.code, "message": e.message}));
    r
}

impl ServerHandler for ContextServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                CONTEXT_SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(format!(
                "Read-only access to the sources granted for this turn of the user's paper vault: \
                 {} for short cards, {} to read a source, {} for citations. Cite with the \
                 citation URIs the tools return.",
                ContextTool::ContextSearch,
                ContextTool::ContextRead,
                ContextTool::PaperRelations,
            ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let name = request.client_info.name.clone();
        let version = request.client_info.version.clone();
        self.record(|a| {
            a.initialized_at = Some(grant::now_rfc3339());
            a.client_name = Some(name);
            a.client_version = Some(version);
        });
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let grant = self.current_grant();
        let turn = grant.as_ref().map(|g| g.turn_id.clone());
        self.record(|a| {
            a.tools_listed_at = Some(grant::now_rfc3339());
            a.turn_id = turn;
        });
        // Only the tools this turn's grant allows (none when the grant cannot be read).
        let allowed: Vec<Tool> = self
            .tools
            .iter()
            .filter(|t| {
                grant
                    .as_ref()
                    .is_some_and(|g| g.tools.iter().any(|n| n.as_str() == t.name))
            })
            .cloned()
            .collect();
        Ok(ListToolsResult::with_all_items(allowed))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let session = self.session.clone();
        // Tool work reads files and may extract a PDF: keep it off the protocol's tasks.
        let outcome = tokio::task::spawn_blocking(move || {
            let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
            s.call(&name, args)
        })
        .await;
        let result = match outcome {
            Ok(Ok(out)) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(out.text)]);
                r.structured_content = Some(out.structured);
                r
            }
            Ok(Err(e)) => error_result(&e),
            Err(e) => {
                tracing::error!(error = %e, "a tool call failed unexpectedly");
                error_result(&ToolError::new(
                    "internal",
                    "the tool failed unexpectedly; nothing was read",
                ))
            }
        };
        Ok(result.into())
    }
}

/// Serves the grant at `grant_path` over stdin/stdout until the client disconnects.
pub async fn serve_stdio(grant_path: PathBuf) -> anyhow::Result<()> {
    let server = ContextServer::new(&grant_path);
    let running = server.serve(wire::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// The state folder (`.agentero/`, or a read-only vault's external one) a grant file lives in,
/// for logging: the grant itself may be unreadable, but its location is known.
pub fn state_dir_of_grant(grant_path: &Path) -> Option<PathBuf> {
    let dir = grant_path.parent()?.parent()?.parent()?;
    (crate::vault::statefs::state_root_of(dir).as_deref() == Some(dir)).then(|| dir.to_path_buf())
}

/// `agentero --agentero-context-mcp <grant>`: logging to the vault's log file, a tokio
/// runtime, and the server until stdin closes.
pub fn run(grant_path: &Path) -> anyhow::Result<()> {
    let grant_path = std::path::absolute(grant_path)?;
    if let Some(state) = state_dir_of_grant(&grant_path) {
        crate::logging::init(&state);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Tool calls run on the blocking pool, which takes this size too: a generous stack is
        // a second line of defence behind the bounds on query nesting and JSON depth.
        .thread_stack_size(8 << 20)
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve_stdio(grant_path));
    if let Err(e) = &result {
        tracing::error!(error = %e, "the context server stopped");
    }
    result
}
