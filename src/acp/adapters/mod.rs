//! What agentero knows about each real ACP adapter (measured against claude-agent-acp 0.23,
//! gemini-cli 0.61 `--acp` and codex-acp 0.16 with a scripted model API), so that a session
//! reads the grant through `agentero-context` and nothing else, with no permission prompt:
//!
//! - **Claude Code** (`claude-agent-acp`): `session/new`'s `_meta.claudeCode.options` is spread
//!   into the Claude Agent SDK's options. `tools: []` removes the built-in tools (Read, Grep,
//!   Bash, WebFetch, …) from what the model is offered, `allowedTools` pre-approves our three, so
//!   the adapter never asks. With `native_reads`, `Read` stays and reaches our permission policy.
//! - **Gemini CLI** (`gemini --acp`): MCP servers of an untrusted folder are skipped silently,
//!   so the process gets `GEMINI_CLI_TRUST_WORKSPACE=true` (trust for this process only; the
//!   user's settings are not touched). A policy file (`--policy`) denies every built-in tool
//!   (they disappear from the model's tool list) and allows the `agentero-context` server's.
//! - **Codex** (`codex-acp`): its shell and web search are switched off with `-c` overrides
//!   (the read-only sandbox would otherwise let the shell read any file without asking); an
//!   `env_var` auth method whose variables are set is sent as `authenticate` before sessions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::{Adapter, AgentDef};
use crate::context::TOOL_NAMES;

/// The MCP server every local session gets. Its name is spelled into each adapter's tool names
/// below (Claude's `mcp__<server>__<tool>`, Gemini's policy, Codex's approvals), so this table
/// is its one owner.
pub const CONTEXT_SERVER_NAME: &str = "agentero-context";

/// The folder under `.agentero/` for files agentero writes for its agents.
pub const AGENTS_DIR: &str = "agents";

/// How the agent's process is started: the command line and environment after the adapter's
/// switches are added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub command: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// Codex's switches: no shell, no unified exec, no web search, and never an approval
/// question. codex-acp offers a native edit (`apply_patch`) with approve/abort only, and the
/// abort agentero must give ends the whole turn; with `approval_policy="never"` Codex's own
/// read-only sandbox refuses the edit and the model carries on.
const CODEX_OVERRIDES: [&str; 4] = [
    "features.shell_tool=false",
    "features.unified_exec=false",
    "web_search=\"disabled\"",
    "approval_policy=\"never\"",
];

/// Why reopening (`session/load` or `session/resume`) a session of `adapter` that a process
/// last created or reopened at `opened_at` (Unix seconds) would harm it at `now`, if it would.
///
/// gemini-cli 0.61 names a session's recording `session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl` by
/// the UTC minute a process opens it; a load within that same minute writes a fresh recording
/// over the original, after which the session can never be loaded again. In a later minute
/// the load writes a new file beside it and works. agentero does not wait for the minute to
/// turn: the turn goes on in the live session, or in a new one seeded with the conversation.
pub fn reopen_hazard(adapter: Adapter, opened_at: Option<u64>, now: u64) -> Option<String> {
    match (adapter, opened_at) {
        (Adapter::Gemini, Some(t)) if t / 60 == now / 60 => Some(
            "gemini-cli overwrites the recording of a session reopened within the UTC minute \
             it was opened in, which would lose that session for good"
                .into(),
        ),
        _ => None,
    }
}

/// Gemini CLI's policy: built-in tools denied (and so not offered), ours allowed. The allow
/// rule names our tools exactly: a `mcpName` + `*` rule does not match them in gemini-cli 0.61.
pub fn gemini_policy() -> String {
    let ours: Vec<String> = TOOL_NAMES
        .iter()
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
         tools (context_search, context_read, paper_relations).\"\n\
         \n\
         [[rule]]\n\
         toolName = [{}]\n\
         decision = \"allow\"\n\
         priority = 900\n",
        ours.join(", ")
    )
}

/// The process to start for `def` in the vault whose state folder is `state_dir`. `npx` is the
/// fallback for a preset whose command is not installed (`found` tells whether it is).
pub fn launch(def: &AgentDef, state_dir: &Path, found: bool) -> std::io::Result<Launch> {
    let (mut command, mut args) = (def.command.clone(), def.args.clone());
    if !found && let Some(pkg) = &def.npx_package {
        command = PathBuf::from("npx");
        let mut a = vec!["-y".to_string(), pkg.clone()];
        a.append(&mut args);
        args = a;
    }
    let mut env = def.env.clone();
    match def.adapter {
        Adapter::Gemini => {
            env.entry("GEMINI_CLI_TRUST_WORKSPACE".into())
                .or_insert_with(|| "true".into());
            if !args.iter().any(|a| a == "--policy") {
                let file = state_dir.join(AGENTS_DIR).join("gemini-policy.toml");
                let text = gemini_policy();
                // A policy file that is not agentero's own is refused, not read or replaced.
                let current = crate::vault::statefs::read_if_exists(&file)?;
                if current.as_deref() != Some(text.as_bytes()) {
                    crate::vault::statefs::atomic_write(&file, text.as_bytes())?;
                }
                args.push("--policy".into());
                args.push(file.display().to_string());
            }
        }
        Adapter::Codex => {
            for o in CODEX_OVERRIDES {
                let key = o.split('=').next().unwrap_or(o);
                let set = args.windows(2).any(|w| {
                    (w[0] == "-c" || w[0] == "--config") && w[1].starts_with(&format!("{key}="))
                });
                if !set {
                    args.push("-c".into());
                    args.push(o.into());
                }
            }
            let provider =
                super::codex_provider::codex_provider(&args, &env, |k| std::env::var(k).ok());
            args.extend(provider);
        }
        _ => {}
    }
    Ok(Launch { command, args, env })
}

/// The tool names as the Claude Agent SDK spells them.
fn claude_tool_names() -> Vec<String> {
    TOOL_NAMES
        .iter()
        .map(|t| format!("mcp__{CONTEXT_SERVER_NAME}__{t}"))
        .collect()
}

/// `_meta` for `session/new`, `session/load` and `session/resume` of `def`'s adapter.
pub fn session_meta(def: &AgentDef) -> Option<serde_json::Map<String, Value>> {
    match def.adapter {
        Adapter::Claude => {
            let tools: Vec<&str> = if def.native_reads {
                vec!["Read"]
            } else {
                Vec::new()
            };
            let meta = json!({
                "claudeCode": {
                    "options": {
                        "tools": tools,
                        "allowedTools": claude_tool_names(),
                    }
                }
            });
            meta.as_object().cloned()
        }
        _ => None,
    }
}

/// The session mode to switch to after opening, when the agent offers it and is elsewhere.
pub fn wanted_mode(def: &AgentDef) -> Option<&'static str> {
    match def.adapter {
        Adapter::Codex => Some("read-only"),
        _ => None,
    }
}

/// What a permission request shows of its tool call, as the adapter built it (see
/// [`mcp_call`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallFields<'a> {
    pub title: &'a str,
    pub raw_input: Option<&'a Value>,
    /// The request's `toolCall._meta`.
    pub meta: Option<&'a serde_json::Map<String, Value>>,
    /// The text blocks of the request's content, in order.
    pub texts: &'a [String],
    /// The ids of the options offered.
    pub option_ids: &'a [String],
    /// The tool name the session's own `tool_call` updates gave this call id (see
    /// [`announced_tool_name`]).
    pub announced: Option<&'a str>,
}

/// An MCP tool call as an adapter encodes it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpCall {
    pub server: String,
    pub tool: String,
    /// `null` when the adapter sent none.
    pub arguments: Value,
}

/// Claude Code's tool name for a tool of an MCP server.
const CLAUDE_MCP_PREFIX: &str = "mcp__";
/// Gemini CLI's option that only its MCP confirmations offer.
const GEMINI_MCP_OPTION: &str = "proceed_always_server";
/// Codex's approval kind of an MCP tool call.
const CODEX_MCP_APPROVAL: &str = "mcp_tool_call";

/// The MCP call a permission request is about, read only from what `adapter` itself builds —
/// never from a title the model can write, a tool-call id, or the arguments:
/// - Claude Code (claude-agent-acp 0.23): the SDK's tool name `mcp__<server>__<tool>` in
///   `_meta.claudeCode.toolName`, of the request or (0.23.1 sends it only there) of the
///   session's `tool_call` for the same id; a Bash call's title is the model's command, so the
///   title is never read. Arguments: `rawInput`.
/// - Gemini CLI (0.61): an MCP confirmation (only those offer `proceed_always_server`), which
///   the adapter titles `<tool> (<server> MCP Server)`; the arguments are the JSON of its text
///   block (a tool with a string `command` argument is titled by it, but then the arguments
///   are not ours).
/// - Codex (codex-acp 0.16): an MCP tool-call approval (`rawInput.request._meta.
///   codex_approval_kind` = `mcp_tool_call`) of `rawInput.server_name`, whose message is
///   `Allow the <server> MCP server to run tool "<tool>"?`. Arguments: `_meta.tool_params`.
///
/// Any other adapter: none, as agentero does not know how it encodes one.
pub fn mcp_call(adapter: Adapter, f: &CallFields) -> Option<McpCall> {
    match adapter {
        Adapter::Claude => {
            let name = f
                .meta
                .and_then(claude_tool_name)
                .or(f.announced.map(str::to_string))?;
            let (server, tool) = name.strip_prefix(CLAUDE_MCP_PREFIX)?.split_once("__")?;
            Some(McpCall {
                server: server.into(),
                tool: tool.into(),
                arguments: f.raw_input.cloned().unwrap_or(Value::Null),
            })
        }
        Adapter::Gemini => {
            if !f.option_ids.iter().any(|o| o == GEMINI_MCP_OPTION) {
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
        Adapter::Codex => {
            let input = f.raw_input?;
            let request = input.get("request")?;
            let meta = request.get("_meta")?;
            if meta.get("codex_approval_kind")?.as_str()? != CODEX_MCP_APPROVAL {
                return None;
            }
            let server = input.get("server_name")?.as_str()?;
            let tool = request
                .get("message")?
                .as_str()?
                .strip_prefix(&format!("Allow the {server} MCP server to run tool \""))?
                .strip_suffix("\"?")?;
            Some(McpCall {
                server: server.into(),
                tool: tool.into(),
                arguments: meta.get("tool_params").cloned().unwrap_or(Value::Null),
            })
        }
        Adapter::Builtin | Adapter::Other => None,
    }
}

fn claude_tool_name(meta: &serde_json::Map<String, Value>) -> Option<String> {
    meta.get("claudeCode")?
        .get("toolName")?
        .as_str()
        .map(str::to_string)
}

/// The tool name a session update's `_meta` gives its tool call (Claude Code's adapter: the
/// SDK's tool name in `_meta.claudeCode.toolName`); none for other adapters.
pub fn announced_tool_name(
    adapter: Adapter,
    meta: Option<&serde_json::Map<String, Value>>,
) -> Option<String> {
    match adapter {
        Adapter::Claude => meta.and_then(claude_tool_name),
        _ => None,
    }
}

/// An authentication method as the agent advertised it (`initialize`'s `authMethods`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthInfo {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// `agent` (the agent handles it), `terminal` or `env_var`.
    pub kind: String,
    /// The variables an `env_var` method reads.
    pub vars: Vec<String>,
}

impl AuthInfo {
    /// From the raw JSON of one advertised method (the typed schema drops `type` and `vars`).
    pub fn from_json(v: &Value) -> Option<AuthInfo> {
        Some(AuthInfo {
            id: v.get("id")?.as_str()?.to_string(),
            name: v
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            description: v
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            kind: v
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("agent")
                .to_string(),
            vars: v
                .get("vars")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.get("name").and_then(Value::as_str))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
        })
    }

    /// One line for messages: name (id): description [environment: VARS].
    pub fn describe(&self) -> String {
        let mut s = format!("- {} ({})", self.name, self.id);
        if let Some(d) = &self.description {
            s.push_str(&format!(": {d}"));
        }
        if !self.vars.is_empty() {
            s.push_str(&format!(" [environment: {}]", self.vars.join(", ")));
        }
        s
    }
}

/// The `env_var` method to `authenticate` with: the first whose variables are all set (in the
/// agent's configured environment or agentero's own).
pub fn env_auth_method(
    methods: &[AuthInfo],
    env: &BTreeMap<String, String>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    methods
        .iter()
        .find(|m| {
            m.kind == "env_var"
                && !m.vars.is_empty()
                && m.vars.iter().all(|v| {
                    env.get(v)
                        .cloned()
                        .or_else(|| lookup(v))
                        .is_some_and(|x| !x.is_empty())
                })
        })
        .map(|m| m.id.clone())
}

/// What to do about a login wall, for this agent (its preset's advice, or a generic line).
pub fn login_hint(def: &AgentDef) -> String {
    let mut hint = match crate::config::preset_of(def) {
        Some(p) => format!("To log in: {}.", p.login),
        None => format!(
            "Log in with the agent's own command line, or set its API key in [agents.{}] env \
             of the config file.",
            def.name
        ),
    };
    if def.adapter == Adapter::Claude && is_root() {
        hint.push_str(
            " Claude Code refuses to start as root unless IS_SANDBOX=1 is set in its environment.",
        );
    }
    hint
}

/// What Claude Code's adapter says when the runtime refused to start (as root without
/// `IS_SANDBOX=1`, among others).
const CLAUDE_QUERY_CLOSED: &str = "Query closed before response received";

/// Advice for an agent's error message, when agentero knows its usual cause.
pub fn failure_hint(def: &AgentDef, message: &str) -> Option<String> {
    if message.contains(CLAUDE_QUERY_CLOSED) {
        return root_sandbox_hint(def);
    }
    None
}

/// Claude Code run as root without `IS_SANDBOX=1` refuses to start where it would skip its
/// permission checks, and its adapter then says only "Query closed before response
/// received" (agentero's own setup runs as root without it: this is advice for that error,
/// not a check): what to set.
pub fn root_sandbox_hint(def: &AgentDef) -> Option<String> {
    let sandbox = def
        .env
        .get("IS_SANDBOX")
        .cloned()
        .or_else(|| std::env::var("IS_SANDBOX").ok())
        .is_some_and(|v| !v.is_empty());
    (def.adapter == Adapter::Claude && is_root() && !sandbox).then(|| {
        format!(
            "Claude Code refuses to run as root unless IS_SANDBOX=1 is in its environment \
             (its adapter then says only \"{CLAUDE_QUERY_CLOSED}\"): add `IS_SANDBOX = \"1\"` \
             to `env` of [agents.{}] in the config file, or export IS_SANDBOX=1 (only where \
             running as root is intended, e.g. a container).",
            def.name
        )
    })
}

/// What to try when the agent did not attach the context server.
pub fn attach_hint(def: &AgentDef) -> String {
    let check = format!("`agentero agents {}` checks the agent", def.name);
    match def.adapter {
        Adapter::Gemini => format!(
            "Gemini CLI skips MCP servers of folders it does not trust; agentero starts it with \
             GEMINI_CLI_TRUST_WORKSPACE=true, so look for `mcp.allowed`/`mcp.excluded` or \
             `--allowed-mcp-server-names` in your Gemini settings. {check}."
        ),
        Adapter::Claude => format!(
            "Claude Code starts the servers a session is given; look for a `disabledMcpServers` \
             or `enableAllProjectMcpServers` setting in ~/.claude/settings.json. {check}."
        ),
        Adapter::Codex => format!(
            "Codex starts the servers a session is given; look for `[mcp_servers]` overrides in \
             ~/.codex/config.toml. {check}."
        ),
        _ => format!(
            "The agent may not support MCP servers over stdio (ACP `mcpServers`). {check}; until it \
             attaches, turns carry the evidence in the prompt."
        ),
    }
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
mod tests {
    use super::*;
    use crate::config::{Config, presets};

    fn def(name: &str) -> AgentDef {
        Config::defaults(Path::new("/opt/agentero"))
            .agent(Some(name))
            .unwrap()
            .clone()
    }

    #[test]
    fn presets_fall_back_to_npx_and_get_their_switches() {
        let dir = tempfile::tempdir().unwrap();
        let l = launch(&def("claude"), dir.path(), false).unwrap();
        assert_eq!(l.command, PathBuf::from("npx"));
        assert_eq!(l.args, ["-y", "@zed-industries/claude-agent-acp"]);
        let l = launch(&def("claude"), dir.path(), true).unwrap();
        assert_eq!(l.command, PathBuf::from("claude-agent-acp"));

        let l = launch(&def("gemini"), dir.path(), true).unwrap();
        assert_eq!(l.args[0], "--acp");
        assert_eq!(l.args[1], "--policy");
        let policy = std::fs::read_to_string(&l.args[2]).unwrap();
        assert!(
            policy.contains("\"mcp_agentero-context_context_read\""),
            "{policy}"
        );
        assert!(l.args[2].starts_with(&dir.path().display().to_string()));
        assert_eq!(
            l.env.get("GEMINI_CLI_TRUST_WORKSPACE").map(String::as_str),
            Some("true")
        );

        let mut codex = def("codex");
        codex.args = vec!["-c".into(), "web_search=\"live\"".into()];
        let l = launch(&codex, dir.path(), true).unwrap();
        // The user's own setting wins; the others are added.
        assert_eq!(
            l.args,
            [
                "-c",
                "web_search=\"live\"",
                "-c",
                "features.shell_tool=false",
                "-c",
                "features.unified_exec=false",
                "-c",
                "approval_policy=\"never\""
            ]
        );
        assert!(presets().iter().all(|p| !p.login.is_empty()));
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
        let mut reads = def("claude");
        reads.native_reads = true;
        assert_eq!(
            session_meta(&reads).unwrap()["claudeCode"]["options"]["tools"],
            json!(["Read"])
        );
        assert!(session_meta(&def("gemini")).is_none());
    }

    #[test]
    fn env_var_auth_needs_every_variable() {
        let raw = json!([
            {"id": "chatgpt", "name": "Login with ChatGPT"},
            {"type": "env_var", "id": "codex-api-key", "name": "Use CODEX_API_KEY", "vars": [{"name": "CODEX_API_KEY"}]},
            {"type": "env_var", "id": "openai-api-key", "name": "Use OPENAI_API_KEY", "vars": [{"name": "OPENAI_API_KEY"}]}
        ]);
        let methods: Vec<AuthInfo> = raw
            .as_array()
            .unwrap()
            .iter()
            .filter_map(AuthInfo::from_json)
            .collect();
        assert_eq!(methods[1].vars, ["CODEX_API_KEY"]);
        let none = BTreeMap::new();
        assert_eq!(env_auth_method(&methods, &none, |_| None), None);
        assert_eq!(
            env_auth_method(&methods, &none, |v| (v == "OPENAI_API_KEY")
                .then(|| "k".into())),
            Some("openai-api-key".into())
        );
        let mut env = BTreeMap::new();
        env.insert("CODEX_API_KEY".to_string(), "k".to_string());
        assert_eq!(
            env_auth_method(&methods, &env, |_| None),
            Some("codex-api-key".into())
        );
        assert!(
            methods[1]
                .describe()
                .contains("[environment: CODEX_API_KEY]")
        );
    }
}
