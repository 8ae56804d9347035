//! What agentero knows about each real ACP adapter (measured against claude-agent-acp 0.23,
//! gemini-cli 0.61 `--acp` and codex-acp 0.16 with a scripted model API), so that a session
//! reads the grant through `agentero-context` and nothing else, with no permission prompt.
//!
//! One file per adapter, each holding that adapter's row of the table ([`AdapterSpec`]): its
//! switches, its session set-up, how it spells an MCP tool call, its hazards and its hints.
//! - `claude.rs`: Claude Code (`claude-agent-acp`): the built-in tools removed through
//!   `session/new`'s `_meta`, ours pre-approved.
//! - `gemini.rs`: Gemini CLI (`gemini --acp`): trusted for this process, a policy file that
//!   denies every built-in tool and allows ours.
//! - `codex.rs`: Codex (`codex-acp`): shell and web search off with `-c` overrides, its model
//!   provider, the read-only mode.
//!
//! The built-in agent and unknown adapters get [`AdapterSpec::generic`]'s defaults. This file
//! holds what every adapter shares: the command line's npx fallback, the advertised
//! authentication methods, and [`spec`], the one place an [`Adapter`] is turned into its row.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::config::{Adapter, AgentDef};

mod claude;
mod codex;
mod gemini;

pub use gemini::policy as gemini_policy;

/// The MCP server every local session gets (its name is owned by `context::server`). Its name
/// is spelled into each adapter's tool names (Claude's `mcp__<server>__<tool>`, Gemini's
/// policy, Codex's approvals).
pub use crate::context::CONTEXT_SERVER_NAME;

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

/// What a permission request shows of its tool call, as the adapter built it (see
/// [`mcp_call`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallFields<'a> {
    pub title: &'a str,
    pub raw_input: Option<&'a Value>,
    /// The request's `toolCall._meta`.
    pub meta: Option<&'a Map<String, Value>>,
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

/// One adapter's row: everything agentero does differently for it. A row names only what
/// its adapter needs and takes the rest from [`AdapterSpec::generic`] (`..generic(adapter)`).
pub struct AdapterSpec {
    /// The adapter this row is for.
    pub adapter: Adapter,
    /// Its switches, added to the command line and environment (after the npx fallback);
    /// `state_dir` is the vault's state folder, for files agentero writes for the agent.
    pub switches: fn(launch: &mut Launch, state_dir: &Path) -> std::io::Result<()>,
    /// `_meta` for `session/new`, `session/load` and `session/resume`.
    pub session_meta: fn(&AgentDef) -> Option<Map<String, Value>>,
    /// The session mode to switch to after opening, when the agent offers it.
    pub wanted_mode: Option<&'static str>,
    /// How it encodes an MCP tool call in a permission request: the call read back from
    /// what the adapter itself builds, never from what the model can write. `None`: agentero
    /// does not know, and takes no request for a call of its tools.
    pub mcp_call: Option<fn(&CallFields) -> Option<McpCall>>,
    /// The tool name a session update's `_meta` gives its tool call.
    pub announced_tool_name: fn(Option<&Map<String, Value>>) -> Option<String>,
    /// Why reopening a session a process last opened at `opened_at` (Unix seconds) would
    /// harm it `now`, if it would.
    pub reopen_hazard: fn(opened_at: Option<u64>, now: u64) -> Option<String>,
    /// A sentence added to the advice for a login wall.
    pub login_note: fn() -> Option<&'static str>,
    /// Advice for an error message of the agent, when its usual cause is known.
    pub failure_hint: fn(&AgentDef, message: &str) -> Option<String>,
    /// What to set when the agent refuses to start as root.
    pub root_sandbox_hint: fn(&AgentDef) -> Option<String>,
    /// What to try when the agent did not attach the context server; `check` is the sentence
    /// that names `agentero agents <name>`.
    pub attach_hint: fn(check: &str) -> String,
    /// Its sessions run in a working folder outside the vault (see `acp::workdir`): every
    /// agent but agentero's own, which discovers nothing on its own.
    pub works_outside: bool,
    /// How its memory and instruction files (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`) are
    /// switched off, for `agentero agents`; `None`: agentero does not know how.
    pub memory_off: Option<&'static str>,
    /// Writes what a session's working folder needs before the session opens in it.
    pub prepare_cwd: fn(cwd: &Path) -> std::io::Result<()>,
    /// Its process tree is started inside the read restriction (see `acp::sandbox`): its own
    /// tools read files without asking the client.
    pub restricted_reads: bool,
    /// The folders of its own configuration that the read restriction leaves readable, for a
    /// user whose home is `home` (`env`: the agent's configured environment).
    pub config_homes: fn(home: &Path, env: &BTreeMap<String, String>) -> Vec<PathBuf>,
}

impl AdapterSpec {
    /// The row of an adapter agentero knows nothing particular about: no switches, no
    /// `_meta`, no MCP spelling, no hazards, and generic advice.
    pub const fn generic(adapter: Adapter) -> AdapterSpec {
        AdapterSpec {
            adapter,
            switches: |_, _| Ok(()),
            session_meta: |_| None,
            wanted_mode: None,
            mcp_call: None,
            announced_tool_name: |_| None,
            reopen_hazard: |_, _| None,
            login_note: || None,
            failure_hint: |_, _| None,
            root_sandbox_hint: |_| None,
            attach_hint: |check| {
                format!(
                    "The agent may not support MCP servers over stdio (ACP `mcpServers`). \
                     {check}; until it attaches, turns carry the evidence in the prompt."
                )
            },
            works_outside: !matches!(adapter, Adapter::Builtin),
            memory_off: None,
            prepare_cwd: |_| Ok(()),
            restricted_reads: false,
            config_homes: |_, _| Vec::new(),
        }
    }
}

/// The built-in offline agent's row: it reads only through the MCP server it is given, and
/// needs nothing of the real adapters' switches.
static BUILTIN: AdapterSpec = AdapterSpec::generic(Adapter::Builtin);

/// The row of an adapter agentero does not know.
static OTHER: AdapterSpec = AdapterSpec::generic(Adapter::Other);

/// The table: `adapter`'s row.
pub fn spec(adapter: Adapter) -> &'static AdapterSpec {
    match adapter {
        Adapter::Claude => &claude::SPEC,
        Adapter::Gemini => &gemini::SPEC,
        Adapter::Codex => &codex::SPEC,
        Adapter::Builtin => &BUILTIN,
        Adapter::Other => &OTHER,
    }
}

/// Why reopening (`session/load` or `session/resume`) a session of `adapter` that a process
/// last created or reopened at `opened_at` (Unix seconds) would harm it at `now`, if it would
/// (gemini-cli's recordings: see `gemini.rs`).
pub fn reopen_hazard(adapter: Adapter, opened_at: Option<u64>, now: u64) -> Option<String> {
    (spec(adapter).reopen_hazard)(opened_at, now)
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
    let mut launch = Launch {
        command,
        args,
        env: def.env.clone(),
    };
    (spec(def.adapter).switches)(&mut launch, state_dir)?;
    Ok(launch)
}

/// Prepares a session's working folder for `def`'s adapter (see [`AdapterSpec::prepare_cwd`]).
pub fn prepare_cwd(def: &AgentDef, cwd: &Path) -> std::io::Result<()> {
    (spec(def.adapter).prepare_cwd)(cwd)
}

/// A folder of the agent's configuration: `var` in its environment (or agentero's), else
/// `home/default`.
pub(crate) fn config_dir(
    env: &BTreeMap<String, String>,
    var: &str,
    home: &Path,
    default: &str,
) -> PathBuf {
    env.get(var)
        .cloned()
        .or_else(|| std::env::var(var).ok())
        .filter(|v| Path::new(v).is_absolute())
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(default))
}

/// `_meta` for `session/new`, `session/load` and `session/resume` of `def`'s adapter.
pub fn session_meta(def: &AgentDef) -> Option<Map<String, Value>> {
    (spec(def.adapter).session_meta)(def)
}

/// The session mode to switch to after opening, when the agent offers it and is elsewhere.
pub fn wanted_mode(def: &AgentDef) -> Option<&'static str> {
    spec(def.adapter).wanted_mode
}

/// The MCP call a permission request is about, read only from what `adapter` itself builds —
/// never from a title the model can write, a tool-call id, or the arguments (each adapter's
/// encoding is described in its file). Any other adapter: none, as agentero does not know how
/// it encodes one.
pub fn mcp_call(adapter: Adapter, f: &CallFields) -> Option<McpCall> {
    spec(adapter).mcp_call.and_then(|read| read(f))
}

/// The tool name a session update's `_meta` gives its tool call (Claude Code's adapter: the
/// SDK's tool name in `_meta.claudeCode.toolName`); none for other adapters.
pub fn announced_tool_name(adapter: Adapter, meta: Option<&Map<String, Value>>) -> Option<String> {
    (spec(adapter).announced_tool_name)(meta)
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

/// What to do about a login wall, for this agent (its preset's advice, or a generic line, and
/// its adapter's note).
pub fn login_hint(def: &AgentDef) -> String {
    let mut hint = match crate::config::preset_of(def) {
        Some(p) => format!("To log in: {}.", p.login),
        None => format!(
            "Log in with the agent's own command line, or set its API key in [agents.{}] env \
             of the config file.",
            def.name
        ),
    };
    if let Some(note) = (spec(def.adapter).login_note)() {
        hint.push(' ');
        hint.push_str(note);
    }
    hint
}

/// Advice for an agent's error message, when agentero knows its usual cause.
pub fn failure_hint(def: &AgentDef, message: &str) -> Option<String> {
    (spec(def.adapter).failure_hint)(def, message)
}

/// What to set when the agent refuses to start as root (Claude Code without `IS_SANDBOX=1`),
/// if it would.
pub fn root_sandbox_hint(def: &AgentDef) -> Option<String> {
    (spec(def.adapter).root_sandbox_hint)(def)
}

/// What to try when the agent did not attach the context server.
pub fn attach_hint(def: &AgentDef) -> String {
    let check = format!("`agentero agents {}` checks the agent", def.name);
    (spec(def.adapter).attach_hint)(&check)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, presets};
    use crate::context::ContextTool;
    use serde_json::json;

    pub(super) fn def(name: &str) -> AgentDef {
        Config::defaults(Path::new("/opt/agentero"))
            .agent(Some(name))
            .unwrap()
            .clone()
    }

    /// A permission request's tool call as an adapter builds it, owned (see [`CallFields`]).
    #[derive(Debug, Default)]
    pub(super) struct WireCall {
        pub title: String,
        pub raw_input: Option<Value>,
        pub meta: Option<Map<String, Value>>,
        pub texts: Vec<String>,
        pub option_ids: Vec<String>,
        pub announced: Option<String>,
    }

    impl WireCall {
        fn fields(&self) -> CallFields<'_> {
            CallFields {
                title: &self.title,
                raw_input: self.raw_input.as_ref(),
                meta: self.meta.as_ref(),
                texts: &self.texts,
                option_ids: &self.option_ids,
                announced: self.announced.as_deref(),
            }
        }
    }

    const EVERY: [Adapter; 5] = [
        Adapter::Builtin,
        Adapter::Claude,
        Adapter::Gemini,
        Adapter::Codex,
        Adapter::Other,
    ];

    /// How each adapter builds the permission request of an MCP call (as recorded from its
    /// wire; in its own file's tests): the inverse of its row's `mcp_call`.
    fn wire_of(adapter: Adapter) -> Option<fn(&McpCall) -> WireCall> {
        match adapter {
            Adapter::Claude => Some(claude::tests::wire),
            Adapter::Gemini => Some(gemini::tests::wire),
            Adapter::Codex => Some(codex::tests::wire),
            Adapter::Builtin | Adapter::Other => None,
        }
    }

    #[test]
    fn every_adapter_has_a_complete_and_consistent_row() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_764_651_600;
        for a in EVERY {
            let row = spec(a);
            assert_eq!(
                row.adapter, a,
                "{a:?}: the table gives another adapter's row"
            );
            assert_eq!(
                row.mcp_call.is_some(),
                wire_of(a).is_some(),
                "{a:?}: an MCP spelling comes with the wire it reads"
            );
            assert!((row.attach_hint)("CHECK").contains("CHECK"), "{a:?}");
            assert!((row.reopen_hazard)(None, now).is_none(), "{a:?}");
            let Some(wire) = wire_of(a) else {
                continue;
            };
            assert!(
                presets().iter().any(|p| p.adapter == a),
                "{a:?}: a real adapter has a preset"
            );
            let d = def(presets().iter().find(|p| p.adapter == a).unwrap().name);
            let first = launch(&d, dir.path(), true).unwrap();
            assert_eq!(launch(&d, dir.path(), true).unwrap(), first, "{a:?}");
            for tool in ContextTool::all() {
                let call = McpCall {
                    server: CONTEXT_SERVER_NAME.into(),
                    tool: tool.to_string(),
                    arguments: json!({"path": "papers/a/paper.pdf", "page": 1}),
                };
                let w = wire(&call);
                assert_eq!(mcp_call(a, &w.fields()), Some(call.clone()), "{a:?} {w:?}");
                // Each adapter reads its own encoding only.
                for b in EVERY.into_iter().filter(|b| *b != a) {
                    assert_eq!(mcp_call(b, &w.fields()), None, "{b:?} reads {a:?}'s {w:?}");
                }
            }
        }
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
                "approval_policy=\"never\"",
                "-c",
                "project_doc_max_bytes=0"
            ]
        );
        // Claude Code's memory files are off, in the environment and in the session's options.
        let l = launch(&def("claude"), dir.path(), true).unwrap();
        assert_eq!(
            l.env
                .get("CLAUDE_CODE_DISABLE_CLAUDE_MDS")
                .map(String::as_str),
            Some("1")
        );
        let meta = session_meta(&def("claude")).unwrap();
        assert_eq!(
            meta["claudeCode"]["options"]["settingSources"],
            serde_json::json!([])
        );
        // Gemini CLI's session folder gets workspace settings with no upward discovery.
        let cwd = dir.path().join("session");
        std::fs::create_dir_all(&cwd).unwrap();
        prepare_cwd(&def("gemini"), &cwd).unwrap();
        let settings: Value =
            serde_json::from_slice(&std::fs::read(cwd.join(".gemini/settings.json")).unwrap())
                .unwrap();
        assert_eq!(
            settings["context"]["memoryBoundaryMarkers"],
            serde_json::json!([])
        );
        // Every adapter but agentero's own works outside the vault; Codex is restricted.
        assert!(!spec(Adapter::Builtin).works_outside);
        assert!(spec(Adapter::Claude).works_outside && spec(Adapter::Other).works_outside);
        assert!(spec(Adapter::Codex).restricted_reads);
        assert!(presets().iter().all(|p| !p.login.is_empty()));
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
