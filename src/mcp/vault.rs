//! The vault MCP for external clients: a thin rmcp adapter over `context::tools::vault`. It sees
//! the whole current vault, read-only, and shares no permissions with the per-turn
//! `agentero-context` server. Every call (and every resource read) is appended to
//! `{vault}/.agentero/serve/usage.jsonl`, so the user can see what a client read.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::context::tools::vault::{self, Limits, RESOURCE_PREFIX, UsageEntry, VaultTools};
use crate::context::tools::{ToolError, ToolOutput};
use crate::vault::Vault;

pub const SERVER_NAME: &str = "agentero-vault";

/// Papers per `resources/list` page.
const RESOURCE_PAGE: usize = 100;

/// How the client reached the server, for the usage log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Transport {
    Http,
    Stdio,
}

impl Transport {
    fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One handler per client session; the tools (and their caches) are shared by all.
#[derive(Clone)]
pub struct VaultServer {
    tools: Arc<VaultTools>,
    listed: Arc<Vec<Tool>>,
    usage: Arc<PathBuf>,
    transport: Transport,
}

/// What a client sees before calling anything: how to read the vault and how URIs look.
fn instructions(vault: &Vault) -> String {
    let name = vault
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(
        "Read-only access to the user's paper vault \"{name}\": research papers (PDFs, read page by page) and \
text notes. Start with vault_search (short cards with citation URIs) or paper_list; read with paper_read \
(metadata, page, pages, section, excerpt, full) and file_read; find where a quote comes from with locate_quote; \
follow citations with paper_relations. Long results are cut at a per-call budget: `truncated: true` and `next` \
give the exact arguments of the call that continues, so any length can be read in steps.\n\
Citation URIs are vault-relative: papers/x/paper.pdf#page=3 is physical page 3 of a paper (RFC 8118; printed \
page labels are given separately as pageLabel), notes/a.md#line=10,20 is lines 10-20 of a file (RFC 5147), and \
external papers are https://doi.org/… or https://arxiv.org/abs/…. Every tool takes a citation URI where it takes \
a path. Cite what you use with these URIs.\n\
Resources: {RESOURCE_PREFIX}<path> is a paper's metadata (a file's text), {RESOURCE_PREFIX}<path>?page=N the \
text of page N; resources/list pages through the papers. Hidden files and the app's .agentero/ folder are never \
served."
    )
}

fn tool_list() -> Vec<Tool> {
    vault::specs()
        .into_iter()
        .map(|s| {
            let object = |v: Value| match v {
                Value::Object(m) => Arc::new(m),
                _ => Arc::new(Default::default()),
            };
            Tool::new(s.name, s.description, object(s.input_schema))
                .with_title(s.title)
                .with_raw_output_schema(object(s.output_schema))
                .with_annotations(
                    ToolAnnotations::with_title(s.title)
                        .read_only(true)
                        .destructive(false)
                        .idempotent(true)
                        .open_world(false),
                )
        })
        .collect()
}

/// A refusal or failure: text only. Structured content would have to follow the tool's output
/// schema, which describes results (MCP Inspector checks error results against it too).
fn error_result(e: &ToolError) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(e.to_string())])
}

impl VaultServer {
    pub fn new(vault: Vault, limits: Limits, transport: Transport) -> VaultServer {
        VaultServer {
            usage: Arc::new(vault::usage_log_path(&vault)),
            tools: Arc::new(VaultTools::new(vault, limits)),
            listed: Arc::new(tool_list()),
            transport,
        }
    }

    /// The same server for another transport (the tools and caches stay shared).
    pub fn with_transport(&self, transport: Transport) -> VaultServer {
        VaultServer {
            transport,
            ..self.clone()
        }
    }

    pub fn vault(&self) -> &Vault {
        self.tools.vault()
    }

    /// Runs `f` off the protocol's tasks (tool work reads files and may extract a PDF) and
    /// logs the call.
    async fn run_logged(
        &self,
        client: Option<String>,
        tool: &str,
        args: Value,
        f: impl FnOnce(&VaultTools, Value) -> Result<ToolOutput, ToolError> + Send + 'static,
    ) -> Result<ToolOutput, ToolError> {
        let tools = self.tools.clone();
        let args2 = args.clone();
        let outcome = tokio::task::spawn_blocking(move || f(&tools, args2)).await;
        let result = outcome.unwrap_or_else(|e| {
            tracing::error!(error = %e, "a vault tool call failed unexpectedly");
            Err(ToolError::new(
                "internal",
                "the tool failed unexpectedly; nothing was read",
            ))
        });
        let entry = UsageEntry::new(self.transport.as_str(), client, tool, &args, &result);
        if let Err(e) = entry.append(&self.usage) {
            tracing::warn!(error = %e, "cannot append to the vault MCP's usage log");
            // Once on stderr (never stdout: it may be the JSON-RPC channel), so a refused
            // planted log is seen by whoever started the server.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("agentero: the usage log is not written: {e}"));
        }
        result
    }
}

fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .peer
        .peer_info()
        .map(|i| i.client_info.name.clone())
        .filter(|n| !n.is_empty())
}

impl ServerHandler for VaultServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
        .with_instructions(instructions(self.vault()))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            self.listed.as_ref().clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let tool = name.clone();
        let result = self
            .run_logged(client_name(&context), &name, args, move |t, a| {
                t.call(&tool, a)
            })
            .await;
        let r = match result {
            Ok(out) => {
                let mut r = CallToolResult::success(vec![ContentBlock::text(out.text)]);
                r.structured_content = Some(out.structured);
                r
            }
            Err(e) => error_result(&e),
        };
        Ok(r.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let offset = match request.and_then(|r| r.cursor) {
            Some(c) => c
                .parse::<usize>()
                .map_err(|_| McpError::invalid_params("unknown cursor", None))?,
            None => 0,
        };
        let tools = self.tools.clone();
        let (papers, next) =
            tokio::task::spawn_blocking(move || tools.list_papers(offset, RESOURCE_PAGE))
                .await
                .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let resources = papers
            .into_iter()
            .map(|p| {
                let mut about = p
                    .authors
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                if let Some(y) = p.year {
                    about.push_str(&format!(" ({y})"));
                }
                let about = format!("{about} — {} pages, {}", p.pages, p.status);
                Resource::new(vault::resource_uri(&p.path, None), p.path.clone())
                    .with_title(p.title)
                    .with_description(about.trim_start_matches(" — ").to_string())
                    .with_mime_type("text/plain")
            })
            .collect();
        let mut r = ListResourcesResult::with_all_items(resources);
        r.next_cursor = next.map(|n| n.to_string());
        Ok(r)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("{RESOURCE_PREFIX}{{+path}}?page={{page}}"), "page")
                .with_title("A page of a paper")
                .with_description(
                    "The text of physical page `page` (1-based) of the paper at vault path `path`.",
                )
                .with_mime_type("text/plain"),
            ResourceTemplate::new(format!("{RESOURCE_PREFIX}{{+path}}"), "source")
                .with_title("A paper or file")
                .with_description(
                    "A paper's metadata and outline, a text file's text or a folder's listing.",
                )
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let u = uri.clone();
        let result = self
            .run_logged(
                client_name(&context),
                "resources/read",
                json!({"uri": uri}),
                move |t, _| t.read_resource(&u),
            )
            .await;
        match result {
            Ok(out) => {
                // A page or a file is its text; metadata and listings are the tool's JSON.
                let contents = match out.structured.get("text").and_then(Value::as_str) {
                    Some(text) if out.structured["truncated"] != true => {
                        ResourceContents::text(text, request.uri)
                    }
                    _ => ResourceContents::text(out.text, request.uri)
                        .with_mime_type("application/json"),
                };
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            Err(e) if e.code == "unknown_resource" || e.code == "refused" => Err(
                McpError::resource_not_found(e.message, Some(json!({"uri": request.uri}))),
            ),
            Err(e) => Err(McpError::invalid_params(
                e.message,
                Some(json!({"uri": request.uri})),
            )),
        }
    }
}
