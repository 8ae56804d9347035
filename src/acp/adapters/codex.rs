//! The model provider agentero gives Codex on its command line: the `OPENAI_BASE_URL`
//! provider, and no WebSocket retries for any provider the command line defines.

use std::collections::BTreeMap;

/// The Codex provider agentero defines when the user points Codex at another endpoint with
/// `OPENAI_BASE_URL` (in the agent's `env` or agentero's environment), which Codex itself
/// ignores when it logs in with an API key.
pub const CODEX_PROVIDER: &str = "agentero";

/// `-c` overrides for Codex's model provider: the `OPENAI_BASE_URL` provider (when set and the
/// user chose no provider of their own), and `supports_websockets = false` for every provider
/// the command line defines — Codex otherwise retries a WebSocket against a plain HTTP
/// endpoint for 7–10 s before each first request goes out over HTTP.
pub(super) fn codex_provider(
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
        let p = format!("model_providers.{CODEX_PROVIDER}");
        for o in [
            format!("model_provider={}", toml_str(CODEX_PROVIDER)),
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
mod tests {
    use super::*;

    #[test]
    fn codex_gets_a_provider_for_openai_base_url_without_websockets() {
        let none = BTreeMap::new();
        assert!(codex_provider(&[], &none, |_| None).is_empty());
        let mut env = BTreeMap::new();
        env.insert(
            "OPENAI_BASE_URL".to_string(),
            "http://127.0.0.1:9/v1".to_string(),
        );
        env.insert("CODEX_API_KEY".to_string(), "k".to_string());
        let got = codex_provider(&[], &env, |_| None);
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
            codex_provider(&own, &env, |_| None),
            ["-c", "model_providers.ollama.supports_websockets=false"]
        );
        let mut chosen = own.clone();
        chosen.extend([
            "-c".into(),
            "model_providers.ollama.supports_websockets=true".into(),
        ]);
        assert!(codex_provider(&chosen, &none, |_| None).is_empty());
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
            codex_provider(&table(""), &none, |_| None),
            ["-c", "model_providers.my-ollama.supports_websockets=false"]
        );
        assert!(codex_provider(&table(", supports_websockets=false"), &none, |_| None).is_empty());
        // The key variable agentero's own environment has.
        let mut url_only = BTreeMap::new();
        url_only.insert(
            "OPENAI_BASE_URL".to_string(),
            "https://gw.example/v1".to_string(),
        );
        let got = codex_provider(&[], &url_only, |_| None);
        assert!(got.contains(&"model_providers.agentero.env_key=\"OPENAI_API_KEY\"".to_string()));
    }
}
