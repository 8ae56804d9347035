//! Gemini CLI (`gemini --acp`, measured against 0.61): MCP servers of an untrusted folder are
//! skipped silently, so the process gets `GEMINI_CLI_TRUST_WORKSPACE=true` (trust for this
//! process only; the user's settings are not touched). A policy file (`--policy`) denies every
//! built-in tool (they disappear from the model's tool list) and allows the
//! `agentero-context` server's.

use std::path::Path;

use serde_json::Value;

use super::{AGENTS_DIR, AdapterSpec, CONTEXT_SERVER_NAME, CallFields, Launch, McpCall};
use crate::config::Adapter;
use crate::context::ContextTool;

/// Gemini CLI's row.
pub(super) static SPEC: AdapterSpec = AdapterSpec {
    switches,
    mcp_call: Some(mcp_call),
    reopen_hazard,
    attach_hint: |check| {
        format!(
            "Gemini CLI skips MCP servers of folders it does not trust; agentero starts it with \
             GEMINI_CLI_TRUST_WORKSPACE=true, so look for `mcp.allowed`/`mcp.excluded` or \
             `--allowed-mcp-server-names` in your Gemini settings. {check}."
        )
    },
    memory_off: Some("no GEMINI.md discovery (context.memoryBoundaryMarkers: [])"),
    prepare_cwd,
    // Its built-in tools are denied by the policy file: nothing reads on its own.
    restricted_reads: false,
    config_homes: |home, _| vec![home.join(".gemini")],
    ..AdapterSpec::generic(Adapter::Gemini)
};

/// The workspace settings gemini-cli 0.61 reads from a session's working folder (it loads
/// settings per session from its `cwd`; workspace settings win over the user's): no upward
/// `GEMINI.md` discovery.
pub const WORKSPACE_SETTINGS: &str = "{\"context\":{\"memoryBoundaryMarkers\":[]}}\n";

/// Writes [`WORKSPACE_SETTINGS`] to `{cwd}/.gemini/settings.json`.
fn prepare_cwd(cwd: &Path) -> std::io::Result<()> {
    let dir = cwd.join(".gemini");
    crate::acp::workdir::private_dir(&dir)?;
    std::fs::write(dir.join("settings.json"), WORKSPACE_SETTINGS)
}

/// Gemini CLI's option that only its MCP confirmations offer.
const MCP_OPTION: &str = "proceed_always_server";

/// Gemini CLI's policy: built-in tools denied (and so not offered), ours allowed. The allow
/// rule names our tools exactly: a `mcpName` + `*` rule does not match them in gemini-cli 0.61.
pub fn policy() -> String {
    let ours: Vec<String> = ContextTool::all()
        .map(|t| format!("\"mcp_{CONTEXT_SERVER_NAME}_{t}\""))
        .collect();
    format!(
        "# Written by agentero for Gemini CLI sessions: the vault is read only through the\n\
         # {CONTEXT_SERVER_NAME} tools, which enforce the turn's grant.\n\
         [[rule]]\n\
         toolName = \"*\"\n\
         decision = \"deny\"\n\
         priority = 500\n\
         deny_message = \"agentero: the vault is read only through the {CONTEXT_SERVER_NAME} \
         tools ({}).\"\n\
         \n\
         [[rule]]\n\
         toolName = [{}]\n\
         decision = \"allow\"\n\
         priority = 900\n",
        ContextTool::listed(),
        ours.join(", ")
    )
}

/// The workspace trusted for this process, and the policy file (written to the state folder)
/// unless the command line names its own.
fn switches(l: &mut Launch, state_dir: &Path) -> std::io::Result<()> {
    l.env
        .entry("GEMINI_CLI_TRUST_WORKSPACE".into())
        .or_insert_with(|| "true".into());
    if !l.args.iter().any(|a| a == "--policy") {
        let file = state_dir.join(AGENTS_DIR).join("gemini-policy.toml");
        let text = policy();
        // A policy file that is not agentero's own is refused, not read or replaced.
        let current = crate::vault::statefs::read_if_exists(&file)?;
        if current.as_deref() != Some(text.as_bytes()) {
            crate::vault::statefs::atomic_write(&file, text.as_bytes())?;
        }
        l.args.push("--policy".into());
        l.args.push(file.display().to_string());
    }
    Ok(())
}

/// gemini-cli 0.61: an MCP confirmation (only those offer `proceed_always_server`), which the
/// adapter titles `<tool> (<server> MCP Server)`; the arguments are the JSON of its text block
/// (a tool with a string `command` argument is titled by it, but then the arguments are not
/// ours).
fn mcp_call(f: &CallFields) -> Option<McpCall> {
    if !f.option_ids.iter().any(|o| o == MCP_OPTION) {
        return None;
    }
    let (tool, server) = f.title.strip_suffix(" MCP Server)")?.split_once(" (")?;
    let arguments = match f.texts {
        [] => Value::Null,
        [one] => serde_json::from_str(one).ok()?,
        _ => return None,
    };
    Some(McpCall {
        server: server.into(),
        tool: tool.into(),
        arguments,
    })
}

/// gemini-cli 0.61 names a session's recording `session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` by
/// the UTC minute a process opens it; a load within that same minute writes a fresh recording
/// over the original, after which the session can never be loaded again. In a later minute
/// the load writes a new file beside it and works. agentero does not wait for the minute to
/// turn: the turn goes on in the live session, or in a new one seeded with the conversation.
fn reopen_hazard(opened_at: Option<u64>, now: u64) -> Option<String> {
    match opened_at {
        Some(t) if t / 60 == now / 60 => Some(
            "gemini-cli overwrites the recording of a session reopened within the UTC minute \
             it was opened in, which would lose that session for good"
                .into(),
        ),
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::reopen_hazard;
    use super::super::tests::WireCall;
    use super::*;

    /// A call as gemini-cli 0.61 asks for it: its MCP confirmation's options, its title, the
    /// arguments as the JSON of a text block.
    pub(crate) fn wire(call: &McpCall) -> WireCall {
        WireCall {
            title: format!("{} ({} MCP Server)", call.tool, call.server),
            texts: vec![call.arguments.to_string()],
            option_ids: [
                "proceed_always_server",
                "proceed_always_tool",
                "proceed_once",
                "cancel",
            ]
            .map(String::from)
            .to_vec(),
            ..WireCall::default()
        }
    }

    #[test]
    fn gemini_sessions_are_not_reopened_in_the_minute_they_were_opened() {
        let at = 1_764_651_600; // 05:00:00 UTC
        let h = |opened: Option<u64>, now: u64| reopen_hazard(Adapter::Gemini, opened, now);
        assert!(h(Some(at), at + 59).is_some());
        assert!(h(Some(at + 50), at + 59).is_some());
        assert!(h(Some(at + 59), at + 60).is_none(), "the minute turned");
        assert!(h(None, at).is_none(), "an older record without the time");
        assert!(reopen_hazard(Adapter::Claude, Some(at), at + 1).is_none());
        assert!(reopen_hazard(Adapter::Codex, Some(at), at + 1).is_none());
    }
}
