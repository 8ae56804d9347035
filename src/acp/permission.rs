//! Permission requests from an agent, in the `acp` layer's own types (the UI never sees the
//! protocol structs), and the policy that answers them.
//!
//! A request is a call of our server's tools only when its structure says so: the adapter's
//! own encoding of an MCP call ([`adapters::mcp_call`]: Claude Code's SDK tool name, Gemini
//! CLI's MCP confirmation, Codex's MCP tool-call approval) names the server `agentero-context`
//! and exactly one of its three tools, the ACP kind is absent, `read`, `search`, `fetch` or
//! `other`, and the arguments parse as that tool's arguments (as strictly as the server parses
//! them). Titles, tool-call ids and argument values are never searched for our names: a
//! model writes them. [`classify`] maps every request to one [`ToolIdentity`].
//!
//! The rules, in order:
//! 1. a call of the `agentero-context` server's own tools is allowed without asking: the
//!    server enforces the grant, so it cannot read past it;
//! 2. the agent's native tools (file reads, search, shell, fetch, edits) are rejected, unless
//!    native reads are switched on (`native_reads = true`) and the call is a read whose every
//!    location lies inside a granted source — then it is allowed and counted like a tool read
//!    (its chars against the turn budget, its URI among the sources);
//! 3. a remembered "always" answer is applied when it was given in the TUI for this agent and
//!    this command (the resolved program and arguments: what "claude" runs may change);
//! 4. anything else goes to the asker (the TUI's modal), or is rejected when there is none
//!    (`agentero ask`).

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    ContentBlock, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SelectedPermissionOutcome, SessionUpdate, ToolCallContent, ToolKind,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::adapters::{self, CONTEXT_SERVER_NAME, CallFields};
use crate::config::Adapter;
use crate::context::ContextTool;
use crate::context::tools::takes_arguments;

/// What kind of option the agent offers (ACP's four kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionKind {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionChoice {
    pub id: String,
    pub name: String,
    pub kind: PermissionKind,
}

/// Which tool a permission request is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolIdentity {
    /// One of the `agentero-context` server's tools, called as it takes it.
    Context(ContextTool),
    /// A native read of files (`kind: read`).
    NativeRead,
    /// Another native tool: search, shell, fetch, edit, delete, move (the ACP kind).
    Native(String),
    /// A tool of an MCP server, by the adapter's own encoding, that is not a call of ours (another
    /// server, another tool, or arguments our tool does not take).
    Mcp { server: String, tool: String },
    /// Neither: an agent that says nothing agentero can rely on about it.
    Unknown,
}

impl ToolIdentity {
    /// A short description for messages and logs.
    pub fn describe(&self) -> String {
        match self {
            ToolIdentity::Context(t) => format!("{CONTEXT_SERVER_NAME} {t}"),
            ToolIdentity::NativeRead => "a native file read".into(),
            ToolIdentity::Native(k) => format!("a native {k} tool"),
            ToolIdentity::Mcp { server, tool } => format!("{tool} of the MCP server {server}"),
            ToolIdentity::Unknown => "a tool agentero does not know".into(),
        }
    }
}

/// A permission request as the policy and the UI see it.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionAsk {
    pub tool_call_id: String,
    /// The agent's title for the call.
    pub title: String,
    /// The ACP kind (`read`, `edit`, `execute`, …; `None` when the agent sent none).
    pub kind: Option<String>,
    pub tool: ToolIdentity,
    /// The call's arguments (`rawInput`), when the agent sent them.
    pub input: Option<Value>,
    /// Text the agent attached to the call (its own description of it).
    pub detail: Option<String>,
    /// Files the call touches.
    pub locations: Vec<PathBuf>,
    pub options: Vec<PermissionChoice>,
}

impl PermissionAsk {
    /// The arguments as one readable line (`key: value, …`), for the modal.
    pub fn arguments_line(&self) -> Option<String> {
        let args = self.arguments()?;
        let obj = args.as_object()?;
        if obj.is_empty() {
            return None;
        }
        let parts: Vec<String> = obj
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect();
        Some(parts.join(", "))
    }

    /// The tool's own arguments: `rawInput`, or the nested form Codex uses
    /// (`request._meta.tool_params`, `arguments`).
    pub fn arguments(&self) -> Option<&Value> {
        let input = self.input.as_ref()?;
        input
            .pointer("/request/_meta/tool_params")
            .or_else(|| input.get("arguments"))
            .or(Some(input))
    }

    /// The key under which an "always" answer is remembered: the tool, not this call (an MCP
    /// tool by its server and name, anything else by its kind and title).
    pub fn remember_key(&self) -> String {
        match &self.tool {
            ToolIdentity::Context(t) => format!("{CONTEXT_SERVER_NAME}/{t}"),
            ToolIdentity::Mcp { server, tool } => format!("mcp:{server}/{tool}"),
            _ => {
                let kind = self.kind.as_deref().unwrap_or("other");
                format!("{kind}:{}", self.title)
            }
        }
    }
}

fn kind_name(k: ToolKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into())
}

/// The kinds the real adapters give a call of an MCP tool (and the read-only ones): a call of
/// ours never executes, edits, deletes or moves anything.
fn kind_fits_ours(kind: Option<ToolKind>) -> bool {
    matches!(
        kind,
        None | Some(ToolKind::Read | ToolKind::Search | ToolKind::Fetch | ToolKind::Other)
    )
}

/// Which tool the request is about (see the module docs): `fields` as `adapter` built them,
/// `kind` the request's ACP kind.
pub fn classify(adapter: Adapter, kind: Option<ToolKind>, fields: &CallFields) -> ToolIdentity {
    let call = adapters::mcp_call(adapter, fields);
    if let Some(c) = &call
        && c.server == CONTEXT_SERVER_NAME
        && let Some(tool) = ContextTool::of(&c.tool)
        && kind_fits_ours(kind)
        && takes_arguments(&c.tool, &c.arguments)
    {
        return ToolIdentity::Context(tool);
    }
    match kind {
        Some(ToolKind::Read) => ToolIdentity::NativeRead,
        Some(
            k @ (ToolKind::Edit
            | ToolKind::Delete
            | ToolKind::Move
            | ToolKind::Search
            | ToolKind::Execute
            | ToolKind::Fetch),
        ) => ToolIdentity::Native(kind_name(k)),
        _ => match call {
            Some(c) => ToolIdentity::Mcp {
                server: c.server,
                tool: c.tool,
            },
            None => ToolIdentity::Unknown,
        },
    }
}

#[path = "permission_ask.rs"]
mod ask;
pub use ask::{Announced, ask_of};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionDecision {
    AllowOnce,
    AllowAlways,
    RejectOnce,
    RejectAlways,
    Cancelled,
}

impl PermissionDecision {
    pub fn allows(self) -> bool {
        matches!(
            self,
            PermissionDecision::AllowOnce | PermissionDecision::AllowAlways
        )
    }
}

/// The protocol answer for a decision: the offered option of that kind (a reject falls back to
/// the other reject kind, an allow "always" to "once" — never a reject to an allow).
pub fn outcome_for(ask: &PermissionAsk, d: PermissionDecision) -> RequestPermissionOutcome {
    let (kind, fallback) = match d {
        PermissionDecision::AllowOnce => (PermissionKind::AllowOnce, None),
        PermissionDecision::AllowAlways => {
            (PermissionKind::AllowAlways, Some(PermissionKind::AllowOnce))
        }
        PermissionDecision::RejectOnce => (
            PermissionKind::RejectOnce,
            Some(PermissionKind::RejectAlways),
        ),
        PermissionDecision::RejectAlways => (
            PermissionKind::RejectAlways,
            Some(PermissionKind::RejectOnce),
        ),
        PermissionDecision::Cancelled => return RequestPermissionOutcome::Cancelled,
    };
    ask.options
        .iter()
        .find(|o| o.kind == kind)
        .or_else(|| fallback.and_then(|f| ask.options.iter().find(|o| o.kind == f)))
        .map(|o| RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(o.id.clone())))
        .unwrap_or(RequestPermissionOutcome::Cancelled)
}

/// A permission decision that may take a while (the UI waits for the user's answer).
pub type PermissionFuture = Pin<Box<dyn Future<Output = PermissionDecision> + Send>>;

/// Who is asked when the rules do not decide: the TUI's modal. The future is awaited in a task
/// of its own, never on the ACP dispatch loop nor in the turn's update loop, so updates keep
/// streaming and `session/cancel` still works while a question is open.
pub type PermissionAsker = Arc<dyn Fn(&PermissionAsk) -> PermissionFuture + Send + Sync>;

// The "always" answers of `permissions.json` live in their own file.
#[path = "permission_remembered.rs"]
mod remembered;
pub use remembered::{
    AnswerKey, AnswerSource, PERMISSIONS_FILE, Remember, Remembered, RememberedAnswer, command_id,
};

/// What the rules say before anyone is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow {
        reason: String,
    },
    /// Allowed as a native read of granted files: to be counted like a tool read.
    AllowNativeRead {
        paths: Vec<String>,
    },
    Reject {
        reason: String,
    },
    Ask,
}

/// The rules of the module docs, for one turn.
#[derive(Clone)]
pub struct Policy {
    pub agent: String,
    /// [`command_id`] of what the agent runs.
    pub command: String,
    pub vault_root: PathBuf,
    /// Vault-relative paths of the turn's granted sources.
    pub granted: Vec<String>,
    pub native_reads: bool,
    pub remembered: Arc<Mutex<Remembered>>,
    /// The folder the remembered answers are written to (`.agentero/`).
    pub state_dir: PathBuf,
    pub asker: Option<PermissionAsker>,
}

impl Policy {
    /// The vault-relative path of `p` when it lies inside a granted source.
    fn granted_rel(&self, p: &Path) -> Option<String> {
        let root = self
            .vault_root
            .canonicalize()
            .unwrap_or_else(|_| self.vault_root.clone());
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.vault_root.join(p)
        };
        let abs = abs.canonicalize().unwrap_or(abs);
        let rel = abs.strip_prefix(&root).ok()?.to_string_lossy().to_string();
        self.granted
            .iter()
            .any(|g| {
                let g = g.trim_end_matches('/');
                rel == g || rel.starts_with(&format!("{g}/"))
            })
            .then_some(rel)
    }

    pub fn verdict(&self, ask: &PermissionAsk) -> Verdict {
        match &ask.tool {
            ToolIdentity::Context(t) => {
                return Verdict::Allow {
                    reason: format!("{CONTEXT_SERVER_NAME} {t}: the server enforces the grant"),
                };
            }
            ToolIdentity::NativeRead => {
                let inside: Option<Vec<String>> =
                    ask.locations.iter().map(|l| self.granted_rel(l)).collect();
                return match inside {
                    Some(paths) if self.native_reads && !paths.is_empty() => {
                        Verdict::AllowNativeRead { paths }
                    }
                    _ if self.native_reads => Verdict::Reject {
                        reason: "a native read outside the grant: only granted sources may be read"
                            .into(),
                    },
                    _ => Verdict::Reject {
                        reason: native_reason(&ask.tool),
                    },
                };
            }
            ToolIdentity::Native(_) => {
                return Verdict::Reject {
                    reason: native_reason(&ask.tool),
                };
            }
            ToolIdentity::Mcp { .. } | ToolIdentity::Unknown => {}
        }
        let remembered = self
            .remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&self.agent, &self.command, &ask.remember_key());
        match remembered {
            Some(Remember::Allow) => Verdict::Allow {
                reason: "allowed always for this agent (answered in the TUI)".into(),
            },
            Some(Remember::Reject) => Verdict::Reject {
                reason: "rejected always for this agent (answered in the TUI)".into(),
            },
            None if self.asker.is_some() => Verdict::Ask,
            None => Verdict::Reject {
                reason:
                    "nobody can be asked here (agentero ask): only the context tools are allowed"
                        .into(),
            },
        }
    }

    /// Asks the asker (only for [`Verdict::Ask`]) and remembers an "always" answer.
    pub fn ask(&self, ask: &PermissionAsk) -> PermissionFuture {
        let Some(asker) = &self.asker else {
            return Box::pin(std::future::ready(PermissionDecision::RejectOnce));
        };
        let pending = asker(ask);
        let remembered = self.remembered.clone();
        let (agent, command, key, state) = (
            self.agent.clone(),
            self.command.clone(),
            ask.remember_key(),
            self.state_dir.clone(),
        );
        Box::pin(async move {
            let d = pending.await;
            let keep = match d {
                PermissionDecision::AllowAlways => Some(Remember::Allow),
                PermissionDecision::RejectAlways => Some(Remember::Reject),
                _ => None,
            };
            if let Some(r) = keep {
                let mut m = remembered.lock().unwrap_or_else(|e| e.into_inner());
                if let Err(e) = m.set(&state, &agent, &command, &key, r) {
                    tracing::warn!(error = %e, "cannot write the permissions file");
                }
            }
            d
        })
    }
}

fn native_reason(tool: &ToolIdentity) -> String {
    format!(
        "{} is refused: the vault is read only through the {CONTEXT_SERVER_NAME} tools \
         ({})",
        tool.describe(),
        ContextTool::listed()
    )
}

#[cfg(test)]
#[path = "permission_lookalikes.rs"]
mod lookalikes;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ask(tool: ToolIdentity, locations: Vec<PathBuf>) -> PermissionAsk {
        PermissionAsk {
            tool_call_id: "t1".into(),
            title: "t".into(),
            kind: None,
            tool,
            input: Some(
                json!({"server_name": "s", "request": {"_meta": {"tool_params": {"query": "q"}}}}),
            ),
            detail: None,
            locations,
            options: vec![
                PermissionChoice {
                    id: "a".into(),
                    name: "Allow".into(),
                    kind: PermissionKind::AllowOnce,
                },
                PermissionChoice {
                    id: "r".into(),
                    name: "Reject".into(),
                    kind: PermissionKind::RejectOnce,
                },
            ],
        }
    }

    fn policy(root: &Path, native_reads: bool, asker: bool) -> Policy {
        Policy {
            agent: "claude".into(),
            command: command_id(Path::new("/usr/bin/claude-agent-acp"), &[]),
            vault_root: root.to_path_buf(),
            granted: vec!["papers/a".into(), "notes/n.md".into()],
            native_reads,
            remembered: Arc::default(),
            state_dir: root.join(".agentero"),
            asker: asker.then(|| -> PermissionAsker {
                Arc::new(|_: &PermissionAsk| -> PermissionFuture {
                    Box::pin(std::future::ready(PermissionDecision::AllowAlways))
                })
            }),
        }
    }

    #[test]
    fn the_rules_allow_ours_reject_native_and_ask_about_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("papers/a")).unwrap();
        std::fs::create_dir_all(root.join(".agentero")).unwrap();
        std::fs::write(root.join("papers/a/paper.pdf"), b"%PDF").unwrap();
        std::fs::write(root.join("secret.md"), b"x").unwrap();
        let p = policy(root, false, true);
        assert!(matches!(
            p.verdict(&ask(
                ToolIdentity::Context(ContextTool::ContextRead),
                vec![]
            )),
            Verdict::Allow { .. }
        ));
        let inside = vec![root.join("papers/a/paper.pdf")];
        assert!(matches!(
            p.verdict(&ask(ToolIdentity::NativeRead, inside.clone())),
            Verdict::Reject { .. }
        ));
        assert!(matches!(
            p.verdict(&ask(ToolIdentity::Native("execute".into()), vec![])),
            Verdict::Reject { .. }
        ));
        assert_eq!(p.verdict(&ask(ToolIdentity::Unknown, vec![])), Verdict::Ask);
        // Native reads switched on: granted files only.
        let p = policy(root, true, false);
        assert_eq!(
            p.verdict(&ask(ToolIdentity::NativeRead, inside)),
            Verdict::AllowNativeRead {
                paths: vec!["papers/a/paper.pdf".into()]
            }
        );
        assert!(matches!(
            p.verdict(&ask(ToolIdentity::NativeRead, vec![root.join("secret.md")])),
            Verdict::Reject { .. }
        ));
        assert!(matches!(
            p.verdict(&ask(
                ToolIdentity::NativeRead,
                vec![root.join("papers/a/../../secret.md")]
            )),
            Verdict::Reject { .. }
        ));
        // No asker (ask): the unknown is rejected.
        assert!(matches!(
            p.verdict(&ask(ToolIdentity::Unknown, vec![])),
            Verdict::Reject { .. }
        ));
    }

    #[test]
    fn always_answers_are_remembered_per_agent_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".agentero")).unwrap();
        let key = dir.path().join("user-state/agentero/answer-key");
        let state = root.join(".agentero");
        let mut p = policy(root, false, true);
        p.remembered = Arc::new(Mutex::new(Remembered::load_keyed(&state, &key)));
        let a = ask(ToolIdentity::Unknown, vec![]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(rt.block_on(p.ask(&a)), PermissionDecision::AllowAlways);
        assert!(matches!(p.verdict(&a), Verdict::Allow { .. }));
        // The key was made on first use, readable by its user only.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = Remembered::load_keyed(&state, &key);
        assert_eq!(
            again.get("claude", &p.command, &a.remember_key()),
            Some(Remember::Allow)
        );
        assert_eq!(again.get("gemini", &p.command, &a.remember_key()), None);
        // What "claude" runs changed: the answer does not carry over.
        let other = command_id(Path::new("/usr/bin/claude-agent-acp"), &["--evil".into()]);
        assert_ne!(other, p.command);
        assert_eq!(again.get("claude", &other, &a.remember_key()), None);
        let mut moved = policy(root, false, false);
        moved.command = other;
        moved.remembered = Arc::new(Mutex::new(again.clone()));
        assert!(matches!(moved.verdict(&a), Verdict::Reject { .. }));
        // The answer was given in the TUI, and `ask` (no asker) applies it for the same command.
        let mut ask_policy = policy(root, false, false);
        ask_policy.remembered = Arc::new(Mutex::new(again));
        assert!(matches!(ask_policy.verdict(&a), Verdict::Allow { .. }));
        assert_eq!(a.arguments_line().as_deref(), Some("query: q"));
    }

    #[test]
    fn planted_forged_or_copied_answers_pre_approve_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let state = root.join(".agentero");
        std::fs::create_dir_all(&state).unwrap();
        let key = dir.path().join("user/answer-key");
        let a = ask(ToolIdentity::Unknown, vec![]);
        let tool = a.remember_key();
        let p = policy(root, false, false);
        let applies = |file: &Value, key: &Path| {
            std::fs::write(state.join(PERMISSIONS_FILE), file.to_string()).unwrap();
            let mut p = policy(root, false, false);
            p.remembered = Arc::new(Mutex::new(Remembered::load_keyed(&state, key)));
            matches!(p.verdict(&a), Verdict::Allow { .. })
        };
        // A genuine answer, signed with the user's key for this vault.
        let mut r = Remembered::load_keyed(&state, &key);
        r.set(&state, "claude", &p.command, &tool, Remember::Allow)
            .unwrap();
        let genuine: Value =
            serde_json::from_slice(&std::fs::read(state.join(PERMISSIONS_FILE)).unwrap()).unwrap();
        assert!(
            applies(&genuine, &key),
            "the genuine answer (the test can fail)"
        );
        let entry = |from: &str, command: &str, mac: &str| json!({"agent": "claude", "command": command, "tool": tool, "answer": "allow", "from": from, "mac": mac});
        let good_mac = genuine["answers"][0]["mac"].as_str().unwrap().to_string();
        let mut forged_at = genuine.clone();
        forged_at["answers"][0]["at"] = json!("2020-01-01T00:00:00Z");
        for planted in [
            // The formats before answers were signed.
            json!({"agents": {"claude": serde_json::Map::from_iter([(tool.clone(), json!("allow"))])}}),
            json!({"version": 2, "answers": [entry("tui", &p.command, "")]}),
            // Unsigned, or a signature copied onto another answer.
            json!({"version": 3, "answers": [entry("tui", &p.command, "")]}),
            json!({"version": 3, "answers": [entry("tui", "0123", &good_mac)]}),
            forged_at,
            // Not given in the TUI.
            json!({"version": 3, "answers": [entry("hand", &p.command, &good_mac)]}),
            json!("not an object"),
        ] {
            assert!(!applies(&planted, &key), "{planted} pre-approved a tool");
        }
        // Signed under another user's key: nothing applies.
        let other_key = dir.path().join("other-user/answer-key");
        AnswerKey::read_or_create(&other_key).unwrap();
        assert!(!applies(&genuine, &other_key));
        // No key at all: nothing applies.
        assert!(!applies(&genuine, &dir.path().join("nobody/answer-key")));
        // The same signed file copied into another vault: nothing applies there.
        let other_vault = root.join("other/.agentero");
        std::fs::create_dir_all(&other_vault).unwrap();
        std::fs::write(other_vault.join(PERMISSIONS_FILE), genuine.to_string()).unwrap();
        let copied = Remembered::load_keyed(&other_vault, &key);
        assert_eq!(copied.get("claude", &p.command, &tool), None);
        // A key others can read is no key.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(AnswerKey::read(&key).is_err());
        assert!(!applies(&genuine, &key));
    }

    #[test]
    fn outcomes_never_turn_a_reject_into_an_allow() {
        let a = ask(ToolIdentity::Unknown, vec![]);
        let id = |o: RequestPermissionOutcome| match o {
            RequestPermissionOutcome::Selected(s) => s.option_id.0.to_string(),
            _ => "cancelled".into(),
        };
        assert_eq!(id(outcome_for(&a, PermissionDecision::RejectAlways)), "r");
        assert_eq!(id(outcome_for(&a, PermissionDecision::AllowAlways)), "a");
        assert_eq!(
            id(outcome_for(&a, PermissionDecision::Cancelled)),
            "cancelled"
        );
    }
}
