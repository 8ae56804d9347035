//! What `agentero agents local` checks before starting Codex on a local model: Ollama answers
//! at its address (`/api/version`, new enough for the Responses API Codex speaks) and has the
//! model pulled (`/api/tags`). Each failure says the command that fixes it. Also: the Codex
//! runtime notice that arrives as answer text when it has no metadata for a local model.

use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::LocalModel;

/// A check that passes or not, with what it found (Ollama's, for the `local` preset; the
/// doctor's report carries it).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub ok: bool,
    pub detail: String,
}

/// The first Ollama with `/v1/responses` (the only wire API of Codex's model providers).
pub const MIN_VERSION: (u64, u64, u64) = (0, 13, 3);
/// How long one request to Ollama may take (it answers these from memory).
const TIMEOUT: Duration = Duration::from_secs(5);
/// The most of an answer read (a long model list is a few kB).
const MAX_BODY: usize = 4 << 20;

/// Why a request to Ollama got no answer.
#[derive(Debug)]
enum Failure {
    Refused,
    TimedOut,
    Other(String),
}

/// Checks Ollama and the model for the `local` preset.
pub async fn check(m: &LocalModel) -> Check {
    let url = &m.ollama_url;
    let Some(hostport) = url.strip_prefix("http://") else {
        return Check {
            ok: true,
            detail: format!(
                "{url}: not checked (agentero checks a plain-http Ollama only); model {}",
                m.model
            ),
        };
    };
    let fail = |detail: String| Check { ok: false, detail };
    let version = match get(hostport, "/api/version").await {
        Ok((200, body)) => serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["version"].as_str().map(str::to_string))
            .unwrap_or_default(),
        Ok((status, _)) => {
            return fail(format!(
                "{url} is not an Ollama server (GET /api/version answered HTTP {status}): set \
                 `ollama_url` under [local] in the config file, or OLLAMA_HOST"
            ));
        }
        Err(Failure::Refused) => {
            return fail(format!(
                "Ollama is not running at {url} (connection refused): start it with `ollama \
                 serve` (or the Ollama app; install it from https://ollama.com), or point \
                 `ollama_url` under [local] / OLLAMA_HOST at where it runs"
            ));
        }
        Err(Failure::TimedOut) => {
            return fail(format!(
                "Ollama at {url} did not answer within {} s: is it running there?",
                TIMEOUT.as_secs()
            ));
        }
        Err(Failure::Other(e)) => return fail(format!("cannot reach Ollama at {url}: {e}")),
    };
    if let Some(v) = parse_version(&version)
        && v < MIN_VERSION
        && v != (0, 0, 0)
    {
        return fail(format!(
            "Ollama {version} at {url} is too old: Codex needs its /v1/responses API, in Ollama \
             {}.{}.{} or later (update Ollama)",
            MIN_VERSION.0, MIN_VERSION.1, MIN_VERSION.2
        ));
    }
    let names = match get(hostport, "/api/tags").await {
        Ok((200, body)) => model_names(&body),
        Ok((status, _)) => {
            return fail(format!(
                "Ollama at {url} answered GET /api/tags with HTTP {status}"
            ));
        }
        Err(e) => return fail(format!("Ollama at {url} stopped answering: {e:?}")),
    };
    let shown = if version.is_empty() {
        "Ollama".to_string()
    } else {
        format!("Ollama {version}")
    };
    if names.iter().any(|n| same_model(n, &m.model)) {
        return Check {
            ok: true,
            detail: format!("{shown} at {url} · model {} is pulled", m.model),
        };
    }
    let pulled = if names.is_empty() {
        "no model is pulled yet".to_string()
    } else {
        format!("pulled: {}", names.join(", "))
    };
    fail(format!(
        "the model {} is not pulled in {shown} at {url} ({pulled}): run `ollama pull {}`, or \
         set `model` under [local] in the config file to one that is",
        m.model, m.model
    ))
}

/// `name` (as `/api/tags` lists it) is the model `want`: equal, or equal but for Ollama's
/// implicit `:latest` tag.
fn same_model(name: &str, want: &str) -> bool {
    let strip = |s: &str| s.strip_suffix(":latest").unwrap_or(s).to_string();
    name == want || strip(name) == strip(want)
}

fn model_names(body: &[u8]) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    v["models"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["name"].as_str().or_else(|| m["model"].as_str()))
        .map(str::to_string)
        .collect()
}

/// `0.13.5`, `0.13.5-rc1` → (0, 13, 5).
fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let core = v.trim().trim_start_matches('v');
    let core = core.split(['-', '+', ' ']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

/// `GET path` over plain HTTP/1.1: (status, body).
async fn get(hostport: &str, path: &str) -> Result<(u16, Vec<u8>), Failure> {
    let work = async {
        let mut s = tokio::net::TcpStream::connect(hostport)
            .await
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::ConnectionRefused => Failure::Refused,
                _ => Failure::Other(e.to_string()),
            })?;
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: {hostport}\r\nAccept: application/json\r\n\
             User-Agent: agentero\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes())
            .await
            .map_err(|e| Failure::Other(e.to_string()))?;
        let mut raw = Vec::new();
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let n = s
                .read(&mut chunk)
                .await
                .map_err(|e| Failure::Other(e.to_string()))?;
            raw.extend_from_slice(&chunk[..n]);
            // Done when the answer is whole (a server may keep the connection open).
            if let Some(r) = parse_response(&raw, n == 0) {
                return Ok(r);
            }
            if n == 0 || raw.len() > MAX_BODY {
                return Err(Failure::Other("a cut or oversized HTTP answer".into()));
            }
        }
    };
    tokio::time::timeout(TIMEOUT, work)
        .await
        .unwrap_or(Err(Failure::TimedOut))
}

/// The status and body of an HTTP/1.1 response, once it is whole (`eof`: the server closed
/// the connection, which ends a body of unstated length).
fn parse_response(raw: &[u8], eof: bool) -> Option<(u16, Vec<u8>)> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..split]).ok()?;
    let body = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let (mut chunked, mut length) = (false, None);
    for l in lines {
        let l = l.to_ascii_lowercase();
        if l.starts_with("transfer-encoding:") && l.contains("chunked") {
            chunked = true;
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    if !chunked {
        return match length {
            Some(n) => body.get(..n).map(|b| (status, b.to_vec())),
            None => eof.then(|| (status, body.to_vec())),
        };
    }
    let (mut out, mut rest) = (Vec::new(), body);
    loop {
        let end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&rest[..end]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[end + 2..];
        if size == 0 {
            return Some((status, out));
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}

/// Codex's notice that it runs a model it has no metadata for (every local model), which it
/// sends as the first chunk of the answer: as a notice instead, so the answer is the model's.
pub fn runtime_notice(chunk: &str) -> Option<String> {
    let t = chunk.trim();
    let rest = t.strip_prefix("Model metadata for `")?;
    let (model, tail) = rest.split_once('`')?;
    tail.starts_with(" not found. Defaulting to fallback metadata")
        .then(|| {
            format!("Codex has no metadata for the model `{model}` and runs it with its defaults")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_match_with_the_implicit_latest_tag() {
        assert!(same_model("qwen3:latest", "qwen3"));
        assert!(same_model("qwen3", "qwen3:latest"));
        assert!(same_model("gpt-oss:20b", "gpt-oss:20b"));
        assert!(!same_model("gpt-oss:120b", "gpt-oss:20b"));
        let body = br#"{"models":[{"name":"gpt-oss:20b","model":"gpt-oss:20b"},{"model":"x:1"}]}"#;
        assert_eq!(model_names(body), ["gpt-oss:20b", "x:1"]);
        assert!(model_names(b"not json").is_empty());
    }

    #[test]
    fn versions_and_http_answers_are_read() {
        assert_eq!(parse_version("0.13.5"), Some((0, 13, 5)));
        assert_eq!(parse_version("0.14.0-rc2"), Some((0, 14, 0)));
        assert_eq!(parse_version("0.12"), Some((0, 12, 0)));
        assert_eq!(parse_version("dev"), None);
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(parse_response(plain, false), Some((200, b"{}".to_vec())));
        let short = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}";
        assert_eq!(parse_response(short, false), None);
        let unstated = b"HTTP/1.0 404 Not Found\r\n\r\nno";
        assert_eq!(parse_response(unstated, false), None);
        assert_eq!(parse_response(unstated, true), Some((404, b"no".to_vec())));
        let chunked =
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n2\r\n\"}\r\n0\r\n\r\n";
        assert_eq!(
            parse_response(chunked, false),
            Some((200, b"{\"a\"}".to_vec()))
        );
        assert_eq!(parse_response(b"garbage", true), None);
        let cut = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab";
        assert_eq!(parse_response(cut, true), None);
    }

    #[test]
    fn only_codexs_own_metadata_notice_is_taken_out_of_the_answer() {
        let n = runtime_notice(
            "Model metadata for `gpt-oss:20b` not found. Defaulting to fallback metadata; this \
             can degrade performance and cause issues.",
        );
        assert!(n.unwrap().contains("`gpt-oss:20b`"));
        assert_eq!(
            runtime_notice("Model metadata for the paper is on p. 3."),
            None
        );
        assert_eq!(runtime_notice("The answer."), None);
    }
}
