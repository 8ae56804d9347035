//! The built-in agent's context servers: connecting the stdio MCP servers a session is given
//! (keeping the ones it has), calling a tool with its `tool_call` + `tool_call_update` report,
//! and the short summaries and places those reports show.

use crate::context::server::ContextTool;
use std::process::Stdio as ProcStdio;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    Content, McpServer, McpServerStdio, SessionUpdate, ToolCall, ToolCallContent, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use agent_client_protocol::{Client, Error as AcpError};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

use super::{Fault, McpClient, Session, State, send};

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
pub(super) async fn attach(state: &State, session: &Session, servers: &[McpServer]) {
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

/// The first text-bearing tools client of the session.
pub(super) async fn tools_of(session: &Session) -> Option<Arc<McpClient>> {
    session.tools.lock().await.first().map(|(_, c)| c.clone())
}

/// Calls a tool and reports it as `tool_call` + `tool_call_update`. `Ok(Err(msg))` is a tool
/// error (reported as failed), `Err` a protocol failure.
pub(super) async fn call_tool(
    cx: &ConnectionTo<Client>,
    session: &Session,
    client: &McpClient,
    tool: ContextTool,
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
    let params = CallToolRequestParams::new(tool.as_str())
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

fn summarize(tool: ContextTool, v: &Value) -> String {
    match tool {
        ContextTool::ContextSearch | ContextTool::PaperRelations => {
            let n = v.get("cards").and_then(Value::as_array).map_or(0, Vec::len);
            format!("{n} cards")
        }
        ContextTool::ContextRead => {
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

pub(super) fn card_place(card: &Value) -> String {
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
