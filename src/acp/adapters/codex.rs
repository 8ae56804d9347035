//! Codex (`codex-acp`, measured against 0.16): its shell and web search are switched off with
//! `-c` overrides (the read-only sandbox would otherwise let the shell read any file without
//! asking), sessions switch to the `read-only` mode, and the model provider agentero gives it
//! on its command line: the `OPENAI_BASE_URL` provider, and no WebSocket retries for any
//! provider the command line defines. (An `env_var` auth method whose variables are set is
//! sent as `authenticate` before sessions: see [`super::env_auth_method`].)

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::{AdapterSpec, CallFields, Launch, McpCall};
use crate::config::Adapter;

/// Codex's row.
pub(super) static SPEC: AdapterSpec = AdapterSpec {
    switches,
    wanted_mode: Some("read-only"),
    mcp_call: Some(mcp_call),
    attach_hint: |check| {
        format!(
            "Codex starts the servers a session is given; look for `[mcp_servers]` overrides in \
             ~/.codex/config.toml. {check}."
        )
    },
    memory_off: Some("no project docs (-c project_doc_max_bytes=0)"),
    // Its built-in `view_image` reads any image without asking, whatever the switches say.
    restricted_reads: true,
    config_homes: |home, env| vec![super::config_dir(env, "CODEX_HOME", home, ".codex")],
    ..AdapterSpec::generic(Adapter::Codex)
};

/// Codex's switches: no shell, no unified exec, no web search, and never an approval
/// question. codex-acp offers a native edit (`apply_patch`) with approve/abort only, and the
/// abort agentero must give ends the whole turn; with `approval_policy="never"` Codex's own
/// read-only sandbox refuses the edit and the model carries on.
/// `project_doc_max_bytes=0`: no `AGENTS.md` from the repository around the working folder.
const OVERRIDES: [&str; 5] = [
    "features.shell_tool=false",
    "features.unified_exec=false",
    "web_search=\"disabled\"",
    "approval_policy=\"never\"",
    "project_doc_max_bytes=0",
];

/// Codex's approval kind of an MCP tool call.
const MCP_APPROVAL: &str = "mcp_tool_call";

/// [`OVERRIDES`] the command line does not set itself, then the model provider's.
fn switches(l: &mut Launch, _state_dir: &Path) -> std::io::Result<()> {
    for o in OVERRIDES {
        let key = o.split('=').next().unwrap_or(o);
        let set = l
            .args
            .windows(2)
            .any(|w| (w[0] == "-c" || w[0] == "--config") && w[1].starts_with(&format!("{key}=")));
        if !set {
            l.args.push("-c".into());
            l.args.push(o.into());
        }
    }
    let provider = provider_overrides(&l.args, &l.env, |k| std::env::var(k).ok());
    l.args.extend(provider);
    Ok(())
}

/// codex-acp 0.16: an MCP tool-call approval (`rawInput.request._meta.codex_approval_kind` =
/// `mcp_tool_call`) of `rawInput.server_name`, whose message is `Allow the <server> MCP server
/// to run tool "<tool>"?`. Arguments: `_meta.tool_params`.
fn mcp_call(f: &CallFields) -> Option<McpCall> {
    let input = f.raw_input?;
    let request = input.get("request")?;
    let meta = request.get("_meta")?;
    if meta.get("codex_approval_kind")?.as_str()? != MCP_APPROVAL {
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
/// The Codex provider agentero defines when the user points Codex at another endpoint with
/// `OPENAI_BASE_URL` (in the agent's `env` or agentero's environment), which Codex itself
/// ignores when it logs in with an API key.
const PROVIDER: &str = "agentero";

/// `-c` overrides for Codex's model provider: the `OPENAI_BASE_URL` provider (when set and the
/// user chose no provider of their own), and `supports_websockets = false` for every provider
/// the command line defines — Codex otherwise retries a WebSocket against a plain HTTP
/// endpoint for 7–10 s before each first request goes out over HTTP.
fn provider_overrides(
    args: &[String],
    env: &BTreeMap<String, String>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let overrides: Vec<&str> = args
        .windows(2)
        .filter(|w| w[0] == "-c" || w[0] == "--config")
        .map(|w| w[1].as_str())
        .collect();
    let mut out = Vec::new();
    let base = env
        .get("OPENAI_BASE_URL")
        .cloned()
        .or_else(|| lookup("OPENAI_BASE_URL"))
        .filter(|u| !u.trim().is_empty());
    let chosen = overrides.iter().any(|o| o.starts_with("model_provider="));
    if let (Some(url), false) = (base, chosen) {
        let key = ["CODEX_API_KEY", "OPENAI_API_KEY"]
            .into_iter()
            .find(|k| {
                env.get(*k)
                    .cloned()
                    .or_else(|| lookup(k))
                    .is_some_and(|v| !v.is_empty())
            })
            .unwrap_or("OPENAI_API_KEY");
        let p = format!("model_providers.{PROVIDER}");
        for o in [
            format!("model_provider={}", toml_str(PROVIDER)),
            format!("{p}.name={}", toml_str("OpenAI (OPENAI_BASE_URL)")),
            format!("{p}.base_url={}", toml_str(url.trim())),
            format!("{p}.wire_api={}", toml_str("responses")),
            format!("{p}.env_key={}", toml_str(key)),
        ] {
            out.push("-c".to_string());
            out.push(o);
        }
    }
    let mut providers: Vec<String> = overrides
        .iter()
        .copied()
        .chain(out.iter().map(String::as_str))
        .filter_map(|o| o.strip_prefix("model_providers."))
        // `ID.key=value`, or `ID={…}` (a whole inline table).
        .filter_map(|rest| {
            let end = rest.find(['.', '='])?;
            Some(rest[..end].to_string())
        })
        .collect();
    providers.dedup();
    providers.sort();
    providers.dedup();
    for id in providers {
        let key = format!("model_providers.{id}.supports_websockets");
        let table = format!("model_providers.{id}=");
        let set = overrides.iter().any(|o| {
            o.starts_with(&format!("{key}="))
                || (o.starts_with(&table) && o.contains("supports_websockets"))
        });
        if !set {
            out.push("-c".into());
            out.push(format!("{key}=false"));
        }
    }
    out
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::tests::WireCall;
    use super::*;
    use serde_json::json;

    /// A call as codex-acp 0.16 asks for it: an MCP tool-call approval of the server, the
    /// arguments in its `_meta`.
    pub(crate) fn wire(call: &McpCall) -> WireCall {
        let (server, tool) = (&call.server, &call.tool);
        WireCall {
            title: "Approve Read a granted source".into(),
            raw_input: Some(
                json!({"server_name": server, "id": "mcp_tool_call_approval_call_1",
                "request": {"mode": "form",
                    "_meta": {"codex_approval_kind": "mcp_tool_call", "tool_params": call.arguments},
                    "message": format!("Allow the {server} MCP server to run tool \"{tool}\"?")}}),
            ),
            option_ids: ["allow_always", "allow", "reject"]
                .map(String::from)
                .to_vec(),
            ..WireCall::default()
        }
    }

    #[test]
    fn codex_gets_a_provider_for_openai_base_url_without_websockets() {
        let none = BTreeMap::new();
        assert!(provider_overrides(&[], &none, |_| None).is_empty());
        let mut env = BTreeMap::new();
        env.insert(
            "OPENAI_BASE_URL".to_string(),
            "http://127.0.0.1:9/v1".to_string(),
        );
        env.insert("CODEX_API_KEY".to_string(), "k".to_string());
        let got = provider_overrides(&[], &env, |_| None);
        let overrides: Vec<&str> = got.iter().skip(1).step_by(2).map(String::as_str).collect();
        assert!(got.iter().step_by(2).all(|a| a == "-c"));
        assert_eq!(
            overrides,
            [
                "model_provider=\"agentero\"",
                "model_providers.agentero.name=\"OpenAI (OPENAI_BASE_URL)\"",
                "model_providers.agentero.base_url=\"http://127.0.0.1:9/v1\"",
                "model_providers.agentero.wire_api=\"responses\"",
                "model_providers.agentero.env_key=\"CODEX_API_KEY\"",
                "model_providers.agentero.supports_websockets=false",
            ]
        );
        // The user's own provider is kept; it only loses the websocket retries, unless they
        // chose otherwise.
        let own: Vec<String> = [
            "-c",
            "model_provider=\"ollama\"",
            "-c",
            "model_providers.ollama.base_url=\"http://127.0.0.1:11434/v1\"",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            provider_overrides(&own, &env, |_| None),
            ["-c", "model_providers.ollama.supports_websockets=false"]
        );
        let mut chosen = own.clone();
        chosen.extend([
            "-c".into(),
            "model_providers.ollama.supports_websockets=true".into(),
        ]);
        assert!(provider_overrides(&chosen, &none, |_| None).is_empty());
        // A provider given as one inline table (the `local` preset's) is one provider, and
        // one that already says `supports_websockets` is left as it is.
        let table = |extra: &str| {
            vec![
                "-c".to_string(),
                format!(
                    "model_providers.my-ollama={{name=\"O\", base_url=\"http://127.0.0.1:1/v1\"{extra}}}"
                ),
            ]
        };
        assert_eq!(
            provider_overrides(&table(""), &none, |_| None),
            ["-c", "model_providers.my-ollama.supports_websockets=false"]
        );
        assert!(
            provider_overrides(&table(", supports_websockets=false"), &none, |_| None).is_empty()
        );
        // The key variable agentero's own environment has.
        let mut url_only = BTreeMap::new();
        url_only.insert(
            "OPENAI_BASE_URL".to_string(),
            "https://gw.example/v1".to_string(),
        );
        let got = provider_overrides(&[], &url_only, |_| None);
        assert!(got.contains(&"model_providers.agentero.env_key=\"OPENAI_API_KEY\"".to_string()));
    }
}
