//! The `local` preset: Codex (`codex-acp`) driving a model that Ollama serves on this machine,
//! for papers that must not go to a cloud model. Codex talks to Ollama's OpenAI-compatible
//! Responses API (`/v1/responses`, Ollama 0.13.3 or later) through a model provider agentero
//! defines with `-c` switches, so the user's own `~/.codex/config.toml` needs nothing and no
//! API key or login is involved.
//!
//! ```toml
//! [local]
//! model = "gpt-oss:20b"                    # any model pulled with `ollama pull`
//! ollama_url = "http://127.0.0.1:11434"    # default: $OLLAMA_HOST, else this
//! ```

/// The preset's name.
pub const LOCAL_AGENT: &str = "local";
/// Where Ollama listens unless `ollama_url` or `OLLAMA_HOST` says otherwise.
pub const DEFAULT_OLLAMA_URL: &str = "http://127.0.0.1:11434";
/// Codex's own default open-source model (tool calling and the Responses API work with it).
pub const DEFAULT_LOCAL_MODEL: &str = "gpt-oss:20b";
/// The id of the Codex model provider agentero defines for Ollama.
pub const PROVIDER_ID: &str = "agentero-ollama";

/// The model the `local` preset runs and the Ollama server that serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalModel {
    /// `http://host:port` without a trailing slash or path.
    pub ollama_url: String,
    pub model: String,
}

impl LocalModel {
    /// The settings: the config file's keys first, then `OLLAMA_HOST` for the URL, then the
    /// defaults.
    pub fn resolve(
        ollama_url: Option<&str>,
        model: Option<&str>,
        ollama_host: Option<&str>,
    ) -> LocalModel {
        let url = ollama_url
            .and_then(|u| normalize_url(u).ok())
            .or_else(|| ollama_host.and_then(|h| normalize_url(h).ok()))
            .unwrap_or_else(|| DEFAULT_OLLAMA_URL.to_string());
        LocalModel {
            ollama_url: url,
            model: model
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .unwrap_or(DEFAULT_LOCAL_MODEL)
                .to_string(),
        }
    }

    /// The defaults with `OLLAMA_HOST` of this process honoured.
    pub fn from_env() -> LocalModel {
        let host = std::env::var("OLLAMA_HOST").ok();
        LocalModel::resolve(None, None, host.as_deref())
    }

    /// The `-c` switches that point Codex at this model (agentero's read-only switches are
    /// added at launch, as for the `codex` preset).
    pub fn codex_args(&self) -> Vec<String> {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let provider = format!(
            "model_providers.{PROVIDER_ID}={{name={}, base_url={}, wire_api=\"responses\", \
             supports_websockets=false}}",
            q("Ollama (agentero local)"),
            q(&format!("{}/v1", self.ollama_url)),
        );
        vec![
            "-c".into(),
            format!("model_provider={}", q(PROVIDER_ID)),
            "-c".into(),
            format!("model={}", q(&self.model)),
            "-c".into(),
            provider,
        ]
    }
}

/// `OLLAMA_HOST`-style addresses made a URL: `host`, `host:port`, `:port`, `http://host[:port]`
/// or `https://…` (a path or trailing slash is dropped; the port defaults to 11434 for plain
/// http; `0.0.0.0`, a listening address, is reached as `127.0.0.1`).
pub fn normalize_url(raw: &str) -> Result<String, String> {
    let t = raw.trim();
    if t.is_empty() {
        return Err("an empty address".into());
    }
    let (scheme, rest) = match t.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_string(), t),
    };
    if scheme != "http" && scheme != "https" {
        return Err(format!("{raw:?} is not an http:// or https:// address"));
    }
    let authority = rest.split('/').next().unwrap_or("");
    if authority.is_empty() && !rest.starts_with(':') {
        return Err(format!("{raw:?} names no host"));
    }
    let (host, port) = match authority.rsplit_once(':') {
        // An IPv6 literal without a port ("[::1]") has its colons inside the brackets.
        Some((h, p)) if !p.contains(']') => {
            let port: u16 = p
                .parse()
                .map_err(|_| format!("{raw:?} has a bad port {p:?}"))?;
            (h, Some(port))
        }
        _ => (authority, None),
    };
    let host = match host {
        "" | "0.0.0.0" => "127.0.0.1",
        "[::]" => "[::1]",
        h => h,
    };
    if host.chars().any(|c| c.is_whitespace() || c == '@') {
        return Err(format!("{raw:?} is not a host name"));
    }
    Ok(match (port, scheme.as_str()) {
        (Some(p), _) => format!("{scheme}://{host}:{p}"),
        (None, "http") => format!("http://{host}:11434"),
        (None, _) => format!("{scheme}://{host}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_urls_the_way_ollama_reads_them() {
        let n = |s: &str| normalize_url(s).unwrap();
        assert_eq!(n("127.0.0.1"), "http://127.0.0.1:11434");
        assert_eq!(n("0.0.0.0:9999"), "http://127.0.0.1:9999");
        assert_eq!(n(":8080"), "http://127.0.0.1:8080");
        assert_eq!(n("http://gpu-box:11434/"), "http://gpu-box:11434");
        assert_eq!(
            n("https://ollama.lab.example"),
            "https://ollama.lab.example"
        );
        assert_eq!(n("[::1]:11434"), "http://[::1]:11434");
        assert_eq!(n("[::1]"), "http://[::1]:11434");
        assert!(normalize_url("ftp://x").is_err());
        assert!(normalize_url("host:notaport").is_err());
        assert!(normalize_url("  ").is_err());
    }

    #[test]
    fn the_file_wins_then_ollama_host_then_the_default() {
        let m = LocalModel::resolve(None, None, None);
        assert_eq!(m.ollama_url, DEFAULT_OLLAMA_URL);
        assert_eq!(m.model, DEFAULT_LOCAL_MODEL);
        let m = LocalModel::resolve(None, Some("qwen3:8b"), Some("10.0.0.2:7000"));
        assert_eq!(m.ollama_url, "http://10.0.0.2:7000");
        assert_eq!(m.model, "qwen3:8b");
        let m = LocalModel::resolve(Some("http://box:1"), None, Some("10.0.0.2"));
        assert_eq!(m.ollama_url, "http://box:1");
        // A bad OLLAMA_HOST is ignored, not fatal.
        let m = LocalModel::resolve(None, None, Some("ftp://nope"));
        assert_eq!(m.ollama_url, DEFAULT_OLLAMA_URL);
    }

    #[test]
    fn the_switches_name_the_provider_the_model_and_the_url() {
        let m = LocalModel::resolve(None, Some("llama3.1:8b \"x\""), Some("box:1"));
        let args = m.codex_args();
        assert_eq!(args[1], "model_provider=\"agentero-ollama\"");
        assert!(args[3].starts_with("model="), "{}", args[3]);
        assert!(
            args[5].contains("base_url=\"http://box:1/v1\""),
            "{}",
            args[5]
        );
        assert!(args[5].contains("supports_websockets=false"));
        // Each value is valid TOML, as Codex parses it, and says what it should.
        let value = |a: &str| {
            let (k, v) = a.split_once('=').unwrap();
            toml::from_str::<toml::Table>(&format!("x = {v}"))
                .unwrap_or_else(|e| panic!("{k}: {e}"))
                .remove("x")
                .unwrap()
        };
        assert_eq!(value(&args[3]).as_str(), Some("llama3.1:8b \"x\""));
        let provider = value(&args[5]);
        assert_eq!(provider["base_url"].as_str(), Some("http://box:1/v1"));
        assert_eq!(provider["wire_api"].as_str(), Some("responses"));
    }
}
