//! The vault MCP's usage log: one line per call, what an external client read.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::tools::{ToolError, ToolOutput, cap_chars};
use crate::vault::Vault;

/// Where the vault MCP's usage log lives: `{vault}/.agentero/serve/usage.jsonl`.
pub fn usage_log_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join("serve").join("usage.jsonl")
}

/// One line of the vault MCP's usage log: what an external client read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageEntry {
    pub ts: String,
    /// `http` or `stdio`.
    pub transport: String,
    /// The client's name from its handshake, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// A tool name, or `resources/read`.
    pub tool: String,
    /// The vault paths (or resource URIs) the arguments named.
    pub paths: Vec<String>,
    /// Characters returned (the text; the structured content carries the same data).
    pub chars: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citation_uris: Vec<String>,
    /// The error code of a refused or failed call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The log is moved aside (to `usage.jsonl.1`) once it grows past this.
const USAGE_ROTATE_BYTES: u64 = 8 << 20;

impl UsageEntry {
    pub fn new(
        transport: &str,
        client: Option<String>,
        tool: &str,
        args: &Value,
        result: &Result<ToolOutput, ToolError>,
    ) -> UsageEntry {
        let (chars, citation_uris, error) = match result {
            Ok(o) => (o.text.chars().count() as u64, o.citation_uris.clone(), None),
            Err(e) => (
                e.message.chars().count() as u64,
                Vec::new(),
                Some(e.code.to_string()),
            ),
        };
        UsageEntry {
            ts: crate::context::grant::now_rfc3339(),
            transport: transport.to_string(),
            client,
            tool: tool.to_string(),
            paths: arg_paths(args),
            chars,
            citation_uris,
            error,
        }
    }

    /// Appends the line whole (concurrent servers never interleave). A log that is not
    /// agentero's own (a planted link, another user's or a hard-linked file) is refused.
    pub fn append(&self, path: &std::path::Path) -> std::io::Result<()> {
        use crate::vault::statefs;
        let mut line =
            crate::vault::visible::to_json_string(self).map_err(std::io::Error::other)?;
        line.push('\n');
        let file = statefs::open_append(path)?;
        if file.metadata().is_ok_and(|m| m.len() > USAGE_ROTATE_BYTES) {
            drop(file);
            let _ = statefs::rename(path, &path.with_extension("jsonl.1"));
        }
        Ok(statefs::append_whole(path, &line)?)
    }
}

/// The path-like arguments of a call: `path`, `paper`, `folder`, a resource `uri`.
pub fn arg_paths(args: &Value) -> Vec<String> {
    ["path", "paper", "folder", "uri"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|s| cap_chars(s, 300))
        .collect()
}
