//! Permission requests from an agent, in the `acp` layer's own types (the UI never sees the
//! protocol structs), and the policy that answers them (SPEC §6).
//!
//! Every adapter asks differently. Claude Code's adapter titles a call of our server's tool
//! `mcp__agentero-context__context_search` (kind `other`, the arguments in `rawInput`); Gemini
//! CLI titles it `context_search (agentero-context MCP Server)` (kind `other`); Codex titles it
//! after the tool's own title ("Approve Search the granted sources"), with no kind, and names
//! the server in `rawInput.server_name`. [`classify`] maps all of them to one [`ToolIdentity`].
//!
//! The rules, in order:
//! 1. a call of the `agentero-context` server's own tools is allowed without asking: the
//!    server enforces the grant, so it cannot read past it;
//! 2. the agent's native tools (file reads, search, shell, fetch, edits) are rejected, unless
//!    native reads are switched on (`native_reads = true`) and the call is a read whose every
//!    location lies inside a granted source — then it is allowed and counted like a tool read
//!    (its chars against the turn budget, its URI among the sources);
//! 3. a remembered "always" answer for this agent and tool is applied;
//! 4. anything else goes to the asker (the TUI's modal), or is rejected when there is none
//!    (`agentero ask`).

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SelectedPermissionOutcome, ToolCallContent, ToolKind,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::CONTEXT_SERVER_NAME;
use crate::context::TOOL_NAMES;

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
    /// One of the `agentero-context` server's tools (by its MCP name).
    Context(String),
    /// A native read of files (`kind: read`).
    NativeRead,
    /// Another native tool: search, shell, fetch, edit, delete, move (the ACP kind).
    Native(String),
    /// Neither: a tool of another MCP server, or an agent that says nothing about it.
    Unknown,
}

impl ToolIdentity {
    /// A short description for messages and logs.
    pub fn describe(&self) -> String {
        match self {
            ToolIdentity::Context(t) => format!("{CONTEXT_SERVER_NAME} {t}"),
            ToolIdentity::NativeRead => "a native file read".into(),
            ToolIdentity::Native(k) => format!("a native {k} tool"),
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

    /// The key under which an "always" answer is remembered: the tool, not this call.
    pub fn remember_key(&self) -> String {
        match &self.tool {
            ToolIdentity::Context(t) => format!("{CONTEXT_SERVER_NAME}/{t}"),
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

/// The name of one of our tools inside `s`, in any adapter's spelling.
fn context_tool_in(s: &str) -> Option<String> {
    let server = CONTEXT_SERVER_NAME;
    for tool in TOOL_NAMES {
        let spellings = [
            format!("mcp__{server}__{tool}"),
            format!("mcp_{server}_{tool}"),
            format!("mcp__{}__{tool}", server.replace('-', "_")),
            format!("{tool} ({server} MCP Server)"),
            format!("{server}/{tool}"),
        ];
        if spellings.iter().any(|sp| s.contains(sp.as_str())) {
            return Some(tool.to_string());
        }
    }
    None
}

/// Our tool named by an adapter that describes the server and the tool in `rawInput`
/// (Codex: `server_name` + the request message, or `server` + `tool`).
fn context_tool_from_input(input: &Value) -> Option<String> {
    let server = input
        .get("server_name")
        .or_else(|| input.get("server"))
        .and_then(Value::as_str)?;
    if server != CONTEXT_SERVER_NAME {
        return None;
    }
    let named = input
        .get("tool")
        .and_then(Value::as_str)
        .map(str::to_string);
    let from_message = || {
        let msg = input.pointer("/request/message").and_then(Value::as_str)?;
        TOOL_NAMES
            .iter()
            .find(|t| msg.contains(&format!("\"{t}\"")))
            .map(|t| t.to_string())
    };
    named
        .filter(|t| TOOL_NAMES.contains(&t.as_str()))
        .or_else(from_message)
}

/// Which tool the request is about (see the module docs for each adapter's spelling).
pub fn classify(
    title: &str,
    tool_call_id: &str,
    kind: Option<ToolKind>,
    input: Option<&Value>,
) -> ToolIdentity {
    if let Some(t) = context_tool_in(title)
        .or_else(|| context_tool_in(tool_call_id))
        .or_else(|| input.and_then(context_tool_from_input))
    {
        return ToolIdentity::Context(t);
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
        _ => ToolIdentity::Unknown,
    }
}

/// The request in our own terms.
pub fn ask_of(r: &RequestPermissionRequest) -> PermissionAsk {
    let f = &r.tool_call.fields;
    let title = f.title.clone().unwrap_or_else(|| "a tool call".into());
    let id = r.tool_call.tool_call_id.0.to_string();
    let input = f.raw_input.clone();
    let detail = f.content.as_deref().and_then(|c| {
        let texts: Vec<&str> = c
            .iter()
            .filter_map(|c| match c {
                ToolCallContent::Content(c) => match &c.content {
                    agent_client_protocol::v1::schema::ContentBlock::Text(t) => {
                        Some(t.text.as_str())
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    });
    PermissionAsk {
        tool: classify(&title, &id, f.kind, input.as_ref()),
        tool_call_id: id,
        title,
        kind: f.kind.map(kind_name),
        input,
        detail,
        locations: f
            .locations
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|l| l.path.clone())
            .collect(),
        options: r
            .options
            .iter()
            .map(|o| PermissionChoice {
                id: o.option_id.0.to_string(),
                name: o.name.clone(),
                kind: match o.kind {
                    PermissionOptionKind::AllowOnce => PermissionKind::AllowOnce,
                    PermissionOptionKind::AllowAlways => PermissionKind::AllowAlways,
                    PermissionOptionKind::RejectAlways => PermissionKind::RejectAlways,
                    _ => PermissionKind::RejectOnce,
                },
            })
            .collect(),
    }
}

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

/// "Always" answers, per agent, kept in `{vault}/.agentero/permissions.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    #[serde(default)]
    pub agents: BTreeMap<String, BTreeMap<String, Remember>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    Allow,
    Reject,
}

pub const PERMISSIONS_FILE: &str = "permissions.json";

impl Remembered {
    /// Reads the file (missing, unreadable or not agentero's own — a planted link, another
    /// user's or a hard-linked file: nothing remembered, with a warning in the log).
    pub fn load(state_dir: &Path) -> Remembered {
        let path = state_dir.join(PERMISSIONS_FILE);
        match crate::vault::statefs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(error = %e, path = %path.display(), "ignoring a corrupt permissions file");
                Remembered::default()
            }),
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(error = %e, "ignoring the permissions file");
                }
                Remembered::default()
            }
        }
    }

    pub fn get(&self, agent: &str, key: &str) -> Option<Remember> {
        self.agents.get(agent).and_then(|m| m.get(key)).copied()
    }

    /// Records an answer and writes the file atomically.
    pub fn set(
        &mut self,
        state_dir: &Path,
        agent: &str,
        key: &str,
        r: Remember,
    ) -> std::io::Result<()> {
        self.agents
            .entry(agent.to_string())
            .or_default()
            .insert(key.to_string(), r);
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        Ok(crate::vault::statefs::atomic_write(
            &state_dir.join(PERMISSIONS_FILE),
            &bytes,
        )?)
    }
}

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
            ToolIdentity::Unknown => {}
        }
        let remembered = self
            .remembered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&self.agent, &ask.remember_key());
        match remembered {
            Some(Remember::Allow) => Verdict::Allow {
                reason: "allowed always for this agent".into(),
            },
            Some(Remember::Reject) => Verdict::Reject {
                reason: "rejected always for this agent".into(),
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
        let (agent, key, state) = (
            self.agent.clone(),
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
                if let Err(e) = m.set(&state, &agent, &key, r) {
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
         (context_search, context_read, paper_relations)",
        tool.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_adapters_spelling_of_our_tools_is_recognized() {
        // Claude Code (claude-agent-acp 0.23).
        assert_eq!(
            classify(
                "mcp__agentero-context__context_search",
                "toolu_1",
                Some(ToolKind::Other),
                Some(&json!({"query": "x"}))
            ),
            ToolIdentity::Context("context_search".into())
        );
        // Gemini CLI 0.61.
        assert_eq!(
            classify(
                "context_read (agentero-context MCP Server)",
                "mcp_agentero-context_context_read__mcp_agentero-context_context_read_17_0",
                Some(ToolKind::Other),
                None
            ),
            ToolIdentity::Context("context_read".into())
        );
        // Codex (codex-acp 0.16): the tool's title, no kind, the server in rawInput.
        let codex = json!({"server_name": "agentero-context", "request": {"message": "Allow the agentero-context MCP server to run tool \"paper_relations\"?", "_meta": {"tool_params": {"path": "p.pdf"}}}});
        assert_eq!(
            classify(
                "Approve Citations of a granted paper",
                "call_4",
                None,
                Some(&codex)
            ),
            ToolIdentity::Context("paper_relations".into())
        );
        // Another server's tool of the same name is not ours.
        let other =
            json!({"server_name": "evil", "request": {"message": "run tool \"context_read\""}});
        assert_eq!(
            classify("Approve Read", "call_5", None, Some(&other)),
            ToolIdentity::Unknown
        );
        assert_eq!(
            classify("Read /etc/passwd", "t", Some(ToolKind::Read), None),
            ToolIdentity::NativeRead
        );
        assert_eq!(
            classify("Bash", "t", Some(ToolKind::Execute), None),
            ToolIdentity::Native("execute".into())
        );
    }

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
            p.verdict(&ask(ToolIdentity::Context("context_read".into()), vec![])),
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
        let p = policy(root, false, true);
        let a = ask(ToolIdentity::Unknown, vec![]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        assert_eq!(rt.block_on(p.ask(&a)), PermissionDecision::AllowAlways);
        assert!(matches!(p.verdict(&a), Verdict::Allow { .. }));
        let again = Remembered::load(&root.join(".agentero"));
        assert_eq!(
            again.get("claude", &a.remember_key()),
            Some(Remember::Allow)
        );
        assert_eq!(again.get("gemini", &a.remember_key()), None);
        assert_eq!(a.arguments_line().as_deref(), Some("query: q"));
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
