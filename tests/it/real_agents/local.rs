//! The `local` preset end to end: the real codex-acp runtime on a model "served by Ollama" —
//! a scripted Ollama on 127.0.0.1 that answers what Ollama answers (`/api/version`,
//! `/api/tags`, and `/v1/responses` streamed event by event in chunks, reasoning first, as
//! Ollama streams a thinking model) — searches and reads through agentero-context and answers
//! with sources, with no API key or login. The doctor says when Ollama is not running and when
//! the model is not pulled, with the command that fixes it (those checks need no adapter).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::model_api::{Api, Reply, Script, ToolResult, Turn, strip_wrappers};
use super::{Agent, LAYOUTFLOW, LIMIT, adapters, assert_pages_open, common, scripted};

/// One request the scripted Ollama received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    body: Value,
}

/// A scripted Ollama: `models` are "pulled"; `/v1/responses` asks `script` what to do.
struct Ollama {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    turns: Arc<Mutex<Vec<Turn>>>,
    stop: Arc<AtomicBool>,
}

impl Ollama {
    fn start(models: &[&str], script: Script) -> Ollama {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let o = Ollama {
            port,
            seen: Arc::default(),
            turns: Arc::default(),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let models: Arc<Vec<String>> = Arc::new(models.iter().map(|m| m.to_string()).collect());
        let (seen, turns, stop) = (o.seen.clone(), o.turns.clone(), o.stop.clone());
        let ids = Arc::new(AtomicU64::new(1));
        std::thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((s, _)) => {
                        let (m, sc, se, t, i) = (
                            models.clone(),
                            script.clone(),
                            seen.clone(),
                            turns.clone(),
                            ids.clone(),
                        );
                        std::thread::spawn(move || serve(s, &m, &sc, &se, &t, &i));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => break,
                }
            }
        });
        o
    }

    /// The address as a user would put it in `OLLAMA_HOST`.
    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Ollama {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn serve(
    stream: TcpStream,
    models: &[String],
    script: &Script,
    seen: &Mutex<Vec<Seen>>,
    turns: &Mutex<Vec<Turn>>,
    ids: &AtomicU64,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(300)));
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("").to_string();
        let (mut length, mut close) = (0usize, false);
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end().to_ascii_lowercase();
            if h.is_empty() {
                break;
            }
            if let Some(v) = h.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            close |= h.starts_with("connection:") && h.contains("close");
        }
        let mut body = vec![0u8; length];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        seen.lock().unwrap().push(Seen {
            method: method.clone(),
            path: path.clone(),
            body: body.clone(),
        });
        let ok = match (method.as_str(), path.as_str()) {
            ("GET", "/api/version") => reply(&mut out, "200 OK", &json!({"version": "0.13.5"})),
            ("GET", "/api/tags") => {
                let list: Vec<Value> = models
                    .iter()
                    .map(|m| {
                        json!({"name": m, "model": m, "modified_at": "2026-11-30T10:00:00Z",
                            "size": 13_780_173_839u64, "digest": "a2af6cc3eb7f",
                            "details": {"format": "gguf", "family": "gptoss",
                                "parameter_size": "20.9B", "quantization_level": "MXFP4"}})
                    })
                    .collect();
                reply(&mut out, "200 OK", &json!({"models": list}))
            }
            ("POST", "/v1/responses") => {
                let model = body["model"].as_str().unwrap_or("");
                if models.iter().any(|m| m == model) {
                    let turn = turn_of(&body);
                    let answer = if turn.tools.is_empty() {
                        Reply::Text("ok".into())
                    } else {
                        script(&turn)
                    };
                    if !turn.tools.is_empty() {
                        turns.lock().unwrap().push(turn);
                    }
                    stream_events(&mut out, model, &answer, ids.fetch_add(1, Ordering::SeqCst))
                } else {
                    reply(
                        &mut out,
                        "404 Not Found",
                        &json!({"error": {"message": format!("model '{model}' not found"),
                            "type": "not_found_error", "param": null, "code": null}}),
                    )
                }
            }
            _ => reply(&mut out, "404 Not Found", &json!("404 page not found")),
        };
        if !ok || close {
            return;
        }
    }
}

fn reply(out: &mut TcpStream, status: &str, v: &Value) -> bool {
    let body = v.to_string();
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json; charset=utf-8\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    out.write_all(head.as_bytes()).is_ok() && out.write_all(body.as_bytes()).is_ok()
}

/// What the model sees: the offered tools (`namespace::name` for Codex's MCP namespaces), the
/// last user message and the tool results after it.
fn turn_of(body: &Value) -> Turn {
    let mut tools = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        if t["type"] == "namespace" {
            for u in t["tools"].as_array().into_iter().flatten() {
                tools.push(format!(
                    "{}::{}",
                    t["name"].as_str().unwrap_or(""),
                    u["name"].as_str().unwrap_or("")
                ));
            }
        } else if let Some(n) = t["name"].as_str() {
            tools.push(n.to_string());
        }
    }
    let items = body["input"].as_array().cloned().unwrap_or_default();
    let start = items
        .iter()
        .rposition(|i| i["type"] == "message" && i["role"] == "user")
        .unwrap_or(0);
    let prompt = items
        .get(start)
        .and_then(|i| i["content"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let results = items
        .iter()
        .skip(start + 1)
        .filter(|i| i["type"] == "function_call_output")
        .map(|i| {
            let raw = match &i["output"] {
                Value::String(s) => s.clone(),
                Value::Array(a) => a
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            };
            let text = strip_wrappers(&raw);
            ToolResult {
                wrapper_chars: raw.chars().count().saturating_sub(text.chars().count()),
                is_error: raw.starts_with("Error"),
                text,
            }
        })
        .collect();
    Turn {
        api: Api::OpenAi,
        prompt,
        results,
        tools,
    }
}

/// The answer as Ollama streams `/v1/responses`: `response.created`, `response.in_progress`, a
/// reasoning item (gpt-oss thinks first), then the function call or the message text in
/// deltas, `response.completed` — each event a chunk of its own, with `sequence_number`.
fn stream_events(out: &mut TcpStream, model: &str, reply: &Reply, n: u64) -> bool {
    let rid = format!("resp_{n}");
    let mut events: Vec<Value> = Vec::new();
    let response = |status: &str, output: Value| {
        json!({"id": rid, "object": "response", "created_at": 1_796_188_800u64,
            "status": status, "model": model, "output": output, "error": null,
            "usage": if status == "completed" { json!({"input_tokens": 900, "output_tokens": 40,
                "total_tokens": 940, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0}}) } else { Value::Null }})
    };
    events
        .push(json!({"type": "response.created", "response": response("in_progress", json!([]))}));
    events.push(
        json!({"type": "response.in_progress", "response": response("in_progress", json!([]))}),
    );
    let thinking = "The user wants the sources read first.";
    let rs = format!("rs_{n}");
    events.push(
        json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"id": rs, "type": "reasoning", "summary": []}}),
    );
    for part in thinking.split_inclusive(' ') {
        events.push(
            json!({"type": "response.reasoning_summary_text.delta", "item_id": rs,
            "output_index": 0, "summary_index": 0, "delta": part}),
        );
    }
    let reasoning = json!({"id": rs, "type": "reasoning",
        "summary": [{"type": "summary_text", "text": thinking}], "encrypted_content": thinking});
    events.push(
        json!({"type": "response.reasoning_summary_text.done", "item_id": rs,
        "output_index": 0, "summary_index": 0, "text": thinking}),
    );
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning}));
    let item = match reply {
        Reply::Call { tool, args } => {
            let (ns, name) = tool.split_once("::").unwrap_or(("", tool.as_str()));
            let fc = format!("fc_{n}_0");
            let args = args.to_string();
            let mut added = json!({"id": fc, "type": "function_call", "status": "in_progress",
                "call_id": format!("call_{n}"), "name": name, "arguments": ""});
            if !ns.is_empty() {
                added["namespace"] = json!(ns);
            }
            let mut done = added.clone();
            done["status"] = json!("completed");
            done["arguments"] = json!(args);
            events.push(
                json!({"type": "response.output_item.added", "output_index": 1, "item": added}),
            );
            events.push(
                json!({"type": "response.function_call_arguments.delta", "item_id": fc,
                "output_index": 1, "delta": args}),
            );
            events.push(
                json!({"type": "response.function_call_arguments.done", "item_id": fc,
                "output_index": 1, "arguments": args}),
            );
            events.push(
                json!({"type": "response.output_item.done", "output_index": 1, "item": done}),
            );
            done
        }
        Reply::Text(text) => {
            let id = format!("msg_{n}");
            let part = |t: &str| json!({"type": "output_text", "text": t, "annotations": [], "logprobs": []});
            events.push(json!({"type": "response.output_item.added", "output_index": 1,
                "item": {"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}}));
            events.push(json!({"type": "response.content_part.added", "item_id": id,
                "output_index": 1, "content_index": 0, "part": part("")}));
            for piece in text.split_inclusive(' ').collect::<Vec<_>>().chunks(4) {
                events.push(json!({"type": "response.output_text.delta", "item_id": id,
                    "output_index": 1, "content_index": 0, "delta": piece.concat(), "logprobs": []}));
            }
            events.push(json!({"type": "response.output_text.done", "item_id": id,
                "output_index": 1, "content_index": 0, "text": text, "logprobs": []}));
            events.push(json!({"type": "response.content_part.done", "item_id": id,
                "output_index": 1, "content_index": 0, "part": part(text)}));
            let done = json!({"id": id, "type": "message", "status": "completed",
                "role": "assistant", "content": [part(text)]});
            events.push(
                json!({"type": "response.output_item.done", "output_index": 1, "item": done}),
            );
            done
        }
    };
    events.push(json!({"type": "response.completed", "response": response("completed", json!([reasoning, item]))}));
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n";
    if out.write_all(head.as_bytes()).is_err() {
        return false;
    }
    for (seq, mut e) in events.into_iter().enumerate() {
        e["sequence_number"] = json!(seq);
        let frame = format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or(""));
        let chunk = format!("{:x}\r\n{frame}\r\n", frame.len());
        if out.write_all(chunk.as_bytes()).is_err() || out.flush().is_err() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    out.write_all(b"0\r\n\r\n").is_ok() && out.flush().is_ok()
}

/// `agentero ARGS` in a demo vault with a throwaway home: no key of any cloud model, `OLLAMA_HOST`
/// at `host`, the adapters (when installed) first on PATH.
fn agentero(root: &Path, host: &str, args: &[&str]) -> Output {
    let home = root.join(".agentero-test-home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    let mut path = std::env::var("PATH").unwrap_or_default();
    if let Some(dir) = std::env::var_os("AGENTERO_ADAPTERS") {
        path = format!(
            "{}:{path}",
            Path::new(&dir).join("node_modules/.bin").display()
        );
    }
    cmd.args(args)
        .current_dir(root)
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("OLLAMA_HOST", host)
        .env_remove("AGENTERO_BUILTIN_FAULT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for v in [
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "CODEX_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "CODEX_OSS_BASE_URL",
    ] {
        cmd.env_remove(v);
    }
    common::output_within(cmd, LIMIT)
}

fn write_config(root: &Path, text: &str) {
    let dir = root.join(".agentero-test-home/config/agentero");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

#[test]
fn local_model_through_ollama_reads_the_grant_and_answers_with_sources() {
    if adapters().is_none() {
        return;
    }
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = agentero::vault::Vault::open(root).unwrap();
    agentero::vault::indexer::index_vault(
        &vault,
        &agentero::vault::indexer::IndexOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let ollama = Ollama::start(&["qwen3:8b", "gpt-oss:20b"], scripted(Agent::Codex));
    // The model comes from [local]; the address from OLLAMA_HOST.
    write_config(root, "[local]\nmodel = \"qwen3:8b\"\n");
    let v = root.to_str().unwrap();
    let q = format!("What is the reading order of a page? @{LAYOUTFLOW}");
    let out = agentero(
        root,
        &ollama.host(),
        &["ask", "--json", "--vault", v, "--agent", "local", &q],
    );
    let log = std::fs::read_to_string(root.join(".agentero/logs/agentero.log")).unwrap_or_default();
    assert!(
        out.status.success(),
        "ask --agent local failed:\n{}\n{}\n--- log:\n{}",
        common::stderr(&out),
        common::stdout(&out),
        log.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stopReason"], "end_turn", "{v}");
    assert_eq!(v["mode"], "mcp", "{v}");
    assert_eq!(v["attached"], true, "{v}");
    let answer = v["answer"].as_str().unwrap();
    assert!(answer.starts_with("The paper says: \""), "{answer}");
    assert!(!answer.contains("Model metadata"), "{answer}");
    let sources: Vec<&str> = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(!sources.is_empty(), "{v}");
    let cited = answer.rsplit('(').next().unwrap().trim_end_matches(')');
    assert!(sources.contains(&cited), "{cited} not among {sources:?}");
    assert_pages_open(
        &vault,
        &sources.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    // Every model call went to Ollama, for the configured model, and Codex offered our tools
    // and no shell.
    let posts: Vec<Seen> = ollama
        .seen()
        .into_iter()
        .filter(|s| s.method == "POST")
        .collect();
    assert!(posts.len() >= 4, "{posts:?}");
    for p in &posts {
        assert_eq!(p.path, "/v1/responses");
        assert_eq!(p.body["model"], "qwen3:8b");
    }
    let turns = ollama.turns.lock().unwrap().clone();
    let last = turns.last().unwrap();
    assert_eq!(last.results.len(), 3, "search, page, excerpt");
    assert!(last.tool("context_search").is_some(), "{:?}", last.tools);
    assert!(
        !last
            .tools
            .iter()
            .any(|t| t == "exec_command" || t == "shell")
    );
}

#[test]
fn the_doctor_says_when_ollama_is_not_running() {
    // The doctor checks the preset's adapter (codex-acp) before Ollama.
    if adapters().is_none() {
        return;
    }
    let dir = common::demo_vault();
    let root = dir.path();
    // A port nothing listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let host = format!("127.0.0.1:{port}");
    let out = agentero(
        root,
        &host,
        &["agents", "--vault", root.to_str().unwrap(), "local"],
    );
    let report = common::stdout(&out);
    assert!(!out.status.success(), "{report}");
    assert!(report.starts_with("✗ local (codex)"), "{report}");
    assert!(
        report.contains(&format!(
            "ollama: FAILED: Ollama is not running at http://{host} (connection refused)"
        )),
        "{report}"
    );
    assert!(report.contains("`ollama serve`"), "{report}");
    // The agent is not started when there is no model to answer.
    assert!(!report.contains("initialize:"), "{report}");
}

#[test]
fn the_doctor_says_when_the_model_is_not_pulled_and_when_all_is_ready() {
    // The doctor checks the preset's adapter (codex-acp) before Ollama.
    if adapters().is_none() {
        return;
    }
    let dir = common::demo_vault();
    let root = dir.path();
    let ollama = Ollama::start(&["llama3.2:3b"], scripted(Agent::Codex));
    let v = root.to_str().unwrap();
    let out = agentero(root, &ollama.host(), &["agents", "--vault", v, "local"]);
    let report = common::stdout(&out);
    assert!(!out.status.success(), "{report}");
    assert!(
        report.contains("the model gpt-oss:20b is not pulled in Ollama 0.13.5"),
        "{report}"
    );
    assert!(report.contains("pulled: llama3.2:3b"), "{report}");
    assert!(report.contains("run `ollama pull gpt-oss:20b`"), "{report}");
    let json = agentero(
        root,
        &ollama.host(),
        &["agents", "--json", "--vault", v, "local"],
    );
    let j: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(j[0]["ollama"]["ok"], false, "{j}");

    // With the model that is pulled (written the way `ollama list` shows it, `:latest` implied).
    write_config(root, "[local]\nmodel = \"llama3.2:3b\"\n");
    let out = agentero(root, &ollama.host(), &["agents", "--vault", v, "local"]);
    let report = common::stdout(&out);
    let url = format!("http://{}", ollama.host());
    assert!(
        report.contains(&format!(
            "ollama: Ollama 0.13.5 at {url} · model llama3.2:3b is pulled"
        )),
        "{report}\n{}",
        common::stderr(&out)
    );
    assert!(out.status.success(), "{report}\n{}", common::stderr(&out));
    assert!(report.contains("session: ok"), "{report}");
    assert!(report.contains("login: none needed"), "{report}");
    let paths: Vec<String> = ollama.seen().into_iter().map(|s| s.path).collect();
    assert!(paths.iter().any(|p| p == "/api/tags"), "{paths:?}");
}
