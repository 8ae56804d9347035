//! Claude Code (`claude-agent-acp`, measured against 0.23): `session/new`'s
//! `_meta.claudeCode.options` is spread into the Claude Agent SDK's options. `tools: []`
//! removes the built-in tools (Read, Grep, Bash, WebFetch, …) from what the model is offered,
//! `allowedTools` pre-approves our three, so the adapter never asks. With `native_reads`,
//! `Read` stays and reaches our permission policy. Its memory files are off
//! (`CLAUDE_CODE_DISABLE_CLAUDE_MDS=1`, `settingSources: []`).

use serde_json::{Map, Value, json};

use std::path::Path;

use super::{AdapterSpec, CONTEXT_SERVER_NAME, CallFields, Launch, McpCall};
use crate::config::{Adapter, AgentDef};
use crate::context::ContextTool;

/// Claude Code's row.
pub(super) static SPEC: AdapterSpec = AdapterSpec {
    session_meta,
    mcp_call: Some(mcp_call),
    announced_tool_name: |meta| meta.and_then(tool_name),
    login_note: || {
        is_root().then_some(
            "Claude Code refuses to start as root unless IS_SANDBOX=1 is set in its environment.",
        )
    },
    failure_hint,
    root_sandbox_hint,
    attach_hint: |check| {
        format!(
            "Claude Code starts the servers a session is given; look for a `disabledMcpServers` \
             or `enableAllProjectMcpServers` setting in ~/.claude/settings.json. {check}."
        )
    },
    switches,
    memory_off: Some("CLAUDE_CODE_DISABLE_CLAUDE_MDS=1 and no settings files (settingSources: [])"),
    // Its built-in tools are not offered (`tools: []`): nothing reads on its own.
    restricted_reads: false,
    config_homes: |home, env| {
        vec![
            super::config_dir(env, "CLAUDE_CONFIG_DIR", home, ".claude"),
            home.join(".claude.json"),
        ]
    },
    ..AdapterSpec::generic(Adapter::Claude)
};

/// Claude Code's memory files (`CLAUDE.md` at every level, found from the working folder
/// upwards) off; the structured switch is `settingSources: []` in [`session_meta`].
fn switches(l: &mut Launch, _state_dir: &Path) -> std::io::Result<()> {
    l.env
        .entry("CLAUDE_CODE_DISABLE_CLAUDE_MDS".into())
        .or_insert_with(|| "1".into());
    Ok(())
}

/// Claude Code's tool name for a tool of an MCP server.
const MCP_PREFIX: &str = "mcp__";

/// What Claude Code's adapter says when the runtime refused to start (as root without
/// `IS_SANDBOX=1`, among others).
const QUERY_CLOSED: &str = "Query closed before response received";

/// The tool names as the Claude Agent SDK spells them.
fn tool_names() -> Vec<String> {
    ContextTool::all()
        .map(|t| format!("{MCP_PREFIX}{CONTEXT_SERVER_NAME}__{t}"))
        .collect()
}

/// `_meta` for every session: the built-in tools off (but `Read` with `native_reads`), ours
/// pre-approved, and no settings files read (`settingSources: []`: no project or local
/// settings, no `CLAUDE.md`; the adapter's own default is user, project and local).
fn session_meta(def: &AgentDef) -> Option<Map<String, Value>> {
    let tools: Vec<&str> = if def.native_reads {
        vec!["Read"]
    } else {
        Vec::new()
    };
    let meta = json!({
        "claudeCode": {
            "options": {
                "tools": tools,
                "allowedTools": tool_names(),
                "settingSources": [],
            }
        }
    });
    meta.as_object().cloned()
}

/// claude-agent-acp 0.23: the SDK's tool name `mcp__<server>__<tool>` in
/// `_meta.claudeCode.toolName`, of the request or (0.23.1 sends it only there) of the
/// session's `tool_call` for the same id; a Bash call's title is the model's command, so the
/// title is never read. Arguments: `rawInput`.
fn mcp_call(f: &CallFields) -> Option<McpCall> {
    let name = f
        .meta
        .and_then(tool_name)
        .or(f.announced.map(str::to_string))?;
    let (server, tool) = name.strip_prefix(MCP_PREFIX)?.split_once("__")?;
    Some(McpCall {
        server: server.into(),
        tool: tool.into(),
        arguments: f.raw_input.cloned().unwrap_or(Value::Null),
    })
}

/// The SDK's tool name in a `_meta`: `claudeCode.toolName`.
fn tool_name(meta: &Map<String, Value>) -> Option<String> {
    meta.get("claudeCode")?
        .get("toolName")?
        .as_str()
        .map(str::to_string)
}

/// "Query closed before response received" as root: the sandbox variable is missing.
fn failure_hint(def: &AgentDef, message: &str) -> Option<String> {
    if message.contains(QUERY_CLOSED) {
        return root_sandbox_hint(def);
    }
    None
}

/// Claude Code run as root without `IS_SANDBOX=1` refuses to start where it would skip its
/// permission checks, and its adapter then says only "Query closed before response
/// received" (agentero's own setup runs as root without it: this is advice for that error,
/// not a check): what to set.
fn root_sandbox_hint(def: &AgentDef) -> Option<String> {
    let sandbox = def
        .env
        .get("IS_SANDBOX")
        .cloned()
        .or_else(|| std::env::var("IS_SANDBOX").ok())
        .is_some_and(|v| !v.is_empty());
    (def.adapter == Adapter::Claude && is_root() && !sandbox).then(|| {
        format!(
            "Claude Code refuses to run as root unless IS_SANDBOX=1 is in its environment \
             (its adapter then says only \"{QUERY_CLOSED}\"): add `IS_SANDBOX = \"1\"` \
             to `env` of [agents.{}] in the config file, or export IS_SANDBOX=1 (only where \
             running as root is intended, e.g. a container).",
            def.name
        )
    })
}

fn is_root() -> bool {
    #[cfg(unix)]
    {
        std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tests::{WireCall, def};
    use super::super::{failure_hint, session_meta};
    use super::*;

    /// A call as claude-agent-acp 0.23.1 asks for it: the SDK's tool name announced by the
    /// session's `tool_call`, the arguments as `rawInput`, the model's title.
    pub(crate) fn wire(call: &McpCall) -> WireCall {
        WireCall {
            title: "anything the model wrote".into(),
            raw_input: Some(call.arguments.clone()),
            option_ids: ["allow_always", "allow", "reject"]
                .map(String::from)
                .to_vec(),
            announced: Some(format!("mcp__{}__{}", call.server, call.tool)),
            ..WireCall::default()
        }
    }

    #[test]
    fn query_closed_names_is_sandbox_for_claude_as_root_only() {
        let msg = "Internal error ({\"details\":\"Query closed before response received\"})";
        let mut claude = def("claude");
        claude.env.remove("IS_SANDBOX");
        let hint = failure_hint(&claude, msg);
        if is_root() && std::env::var_os("IS_SANDBOX").is_none() {
            assert!(hint.unwrap().contains("IS_SANDBOX = \"1\""));
        } else {
            assert!(hint.is_none());
        }
        claude.env.insert("IS_SANDBOX".into(), "1".into());
        assert!(failure_hint(&claude, msg).is_none(), "already set");
        assert!(failure_hint(&def("claude"), "Authentication required").is_none());
        assert!(failure_hint(&def("codex"), msg).is_none());
    }

    #[test]
    fn claude_sessions_offer_only_our_tools() {
        let m = session_meta(&def("claude")).unwrap();
        let o = &m["claudeCode"]["options"];
        assert_eq!(o["tools"], json!([]));
        assert_eq!(o["allowedTools"].as_array().unwrap().len(), 3);
        // The names it pre-approves are the ones it reads back as ours.
        for name in o["allowedTools"].as_array().unwrap() {
            let f = CallFields {
                announced: name.as_str(),
                ..CallFields::default()
            };
            assert_eq!(mcp_call(&f).unwrap().server, CONTEXT_SERVER_NAME);
        }
        let mut reads = def("claude");
        reads.native_reads = true;
        assert_eq!(
            session_meta(&reads).unwrap()["claudeCode"]["options"]["tools"],
            json!(["Read"])
        );
        assert!(session_meta(&def("gemini")).is_none());
    }
}
