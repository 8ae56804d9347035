//! One `session/prompt` turn of the built-in agent: the prompt recorded, then a slash command
//! run directly, a handoff summarized from the session's record, or the question answered
//! (with the context tools or from the prompt's evidence alone), and the answer recorded. The
//! `ask-permission` and `ask-native` test hooks ask the client before the first tool call.

use crate::context::server::ContextTool;
use std::sync::atomic::Ordering;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, PermissionOption, PermissionOptionKind, PromptRequest, PromptResponse,
    RequestPermissionOutcome, RequestPermissionRequest, StopReason, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind,
};
use agent_client_protocol::{Client, Error as AcpError};
use serde_json::{Value, json};

use super::answer::{self, Slash, parse_prompt};
use super::tools::{call_tool, card_place, tools_of};
use super::{
    Fault, HistoryLine, McpClient, Reply, Session, State, append_history, handoff, read_history,
    respond,
};

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
            ContextTool::ContextSearch,
            format!("context_search {q:?}"),
            ToolKind::Search,
            json!({"query": q}),
        ),
        Slash::Read {
            path,
            page: Some(p),
        } => (
            ContextTool::ContextRead,
            format!("context_read {path} p. {p}"),
            ToolKind::Read,
            json!({"path": path, "mode": "page", "page": p}),
        ),
        Slash::Read { path, page: None } => (
            ContextTool::ContextRead,
            format!("context_read {path}"),
            ToolKind::Read,
            json!({"path": path}),
        ),
        Slash::Relations(path) => (
            ContextTool::PaperRelations,
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

pub(super) async fn prompt(
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
