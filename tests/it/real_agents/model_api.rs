//! A scripted model API on 127.0.0.1: the one mock the real-agent tests use, standing in for
//! the cloud LLM behind each real adapter. It speaks the three wire formats the runtimes use —
//! Anthropic Messages (streaming SSE) for Claude Code, Gemini's `generateContent` /
//! `streamGenerateContent` for Gemini CLI and OpenAI Responses (SSE) for Codex — and answers
//! each request with what a script decides from the turn so far: the user's prompt, the tool
//! results the runtime sent back, and the tools it offers. Every request body is recorded.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// Which runtime sent a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    Gemini,
    OpenAi,
}

/// One tool result the runtime sent back to the model.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The tool's output as the model receives it, without the runtime's wrapper (see
    /// [`strip_wrappers`]).
    pub text: String,
    /// Characters of the wrapper the runtime added around it.
    pub wrapper_chars: usize,
    pub is_error: bool,
}

impl ToolResult {
    fn new(raw: String, is_error: bool) -> ToolResult {
        let text = strip_wrappers(&raw);
        ToolResult {
            wrapper_chars: raw.chars().count().saturating_sub(text.chars().count()),
            text,
            is_error,
        }
    }

    /// The result as JSON when it is (our tools answer with JSON), else `None`.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(self.text.trim()).ok()
    }
}

/// What the model sees in this turn.
#[derive(Debug, Clone)]
pub struct Turn {
    pub api: Api,
    /// The text of the turn's user message (with whatever the runtime prepended).
    pub prompt: String,
    /// Tool results since that message, in order.
    pub results: Vec<ToolResult>,
    /// The tools offered, as the runtime names them (`ns::name` for OpenAI namespaces).
    pub tools: Vec<String>,
}

impl Turn {
    /// The offered name of the tool whose name ends with `suffix` (our tools in every
    /// runtime's spelling: `mcp__agentero-context__context_read`, `mcp_agentero-context_…`,
    /// `mcp__agentero_context::context_read`).
    pub fn tool(&self, suffix: &str) -> Option<String> {
        self.tools.iter().find(|t| t.ends_with(suffix)).cloned()
    }
}

/// What the model does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Call { tool: String, args: Value },
    Text(String),
}

pub type Script = Arc<dyn Fn(&Turn) -> Reply + Send + Sync>;

/// A recorded request.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Value,
    /// The turn, for requests of the main agent loop (those that offer tools).
    pub turn: Option<Turn>,
}

pub struct ModelServer {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl ModelServer {
    /// Starts the server on a free loopback port (a thread per connection).
    pub fn start(script: Script) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (reqs, halt) = (requests.clone(), stop.clone());
        let ids = Arc::new(AtomicU64::new(1));
        std::thread::spawn(move || {
            while !halt.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (script, reqs, ids) = (script.clone(), reqs.clone(), ids.clone());
                        std::thread::spawn(move || serve(stream, script, reqs, ids));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(_) => break,
                }
            }
        });
        ModelServer {
            port,
            requests,
            stop,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The main-loop requests recorded so far (those with tools offered).
    pub fn turns(&self) -> Vec<Turn> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .filter_map(|r| r.turn.clone())
            .collect()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn serve(stream: TcpStream, script: Script, reqs: Arc<Mutex<Vec<Request>>>, ids: Arc<AtomicU64>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(300)));
    let mut out = match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    };
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut length = 0usize;
        let mut chunked = false;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let lower = h.to_ascii_lowercase();
            if let Some(v) = lower.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
                chunked = true;
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                if r.read_line(&mut size).unwrap_or(0) == 0 {
                    return;
                }
                let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                    .unwrap_or(0);
                if n == 0 {
                    let mut end = String::new();
                    let _ = r.read_line(&mut end);
                    break;
                }
                let mut chunk = vec![0u8; n];
                if r.read_exact(&mut chunk).is_err() {
                    return;
                }
                body.extend_from_slice(&chunk);
                let mut crlf = String::new();
                let _ = r.read_line(&mut crlf);
            }
        } else if length > 0 {
            body.resize(length, 0);
            if r.read_exact(&mut body).is_err() {
                return;
            }
        }
        let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (status, content_type, payload, turn) = respond(&method, &path, &json, &script, &ids);
        reqs.lock().unwrap().push(Request {
            method,
            path,
            body: json,
            turn,
        });
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n",
            payload.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(&payload).is_err() {
            return;
        }
        let _ = out.flush();
    }
}

type Response = (&'static str, &'static str, Vec<u8>, Option<Turn>);

fn respond(method: &str, path: &str, body: &Value, script: &Script, ids: &AtomicU64) -> Response {
    let json_reply = |v: Value| -> Response {
        (
            "200 OK",
            "application/json",
            v.to_string().into_bytes(),
            None,
        )
    };
    if method != "POST" {
        return ("404 Not Found", "application/json", b"{}".to_vec(), None);
    }
    if path.contains("count_tokens") {
        return json_reply(json!({"input_tokens": 100}));
    }
    if path.contains(":countTokens") {
        return json_reply(json!({"totalTokens": 100}));
    }
    if path.contains("/v1/messages") {
        return anthropic(body, script, ids);
    }
    if path.to_ascii_lowercase().contains("generatecontent") {
        return gemini(path, body, script);
    }
    if path.contains("/responses") {
        return openai(body, script, ids);
    }
    ("404 Not Found", "application/json", b"{}".to_vec(), None)
}

fn sse(events: &[(Option<&str>, Value)]) -> Vec<u8> {
    let mut s = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            s.push_str(&format!("event: {n}\n"));
        }
        s.push_str(&format!("data: {data}\n\n"));
    }
    s.into_bytes()
}

/// The text of a tool result in any of the shapes the runtimes send (a string, a list of
/// text blocks, `{output}`/`{error}` objects), wrappers included.
fn result_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("output")
            .or_else(|| o.get("error"))
            .or_else(|| o.get("content"))
            .map(result_text)
            .unwrap_or_else(|| v.to_string()),
        other => other.to_string(),
    }
}

/// The tool's own output inside what a runtime adds around it: Gemini CLI's
/// `<untrusted_context>` tags, Codex's `Wall time: … seconds\nOutput:\n` header.
pub fn strip_wrappers(raw: &str) -> String {
    let t = raw.trim();
    let t = t
        .strip_prefix("<untrusted_context>")
        .and_then(|t| t.strip_suffix("</untrusted_context>"))
        .unwrap_or(t)
        .trim();
    let t = match t.strip_prefix("Wall time:") {
        Some(rest) => rest.split_once("Output:\n").map_or(t, |(_, out)| out),
        None => t,
    };
    t.trim().to_string()
}

fn anthropic(body: &Value, script: &Script, ids: &AtomicU64) -> Response {
    let tools: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let is_prompt = |m: &Value| {
        m["role"] == "user"
            && match &m["content"] {
                Value::String(_) => true,
                Value::Array(a) => a.iter().any(|b| b["type"] == "text"),
                _ => false,
            }
            && !m["content"]
                .as_array()
                .is_some_and(|a| a.iter().any(|b| b["type"] == "tool_result"))
    };
    let start = messages.iter().rposition(is_prompt).unwrap_or(0);
    let prompt = match messages.get(start).map(|m| &m["content"]) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let results: Vec<ToolResult> = messages
        .iter()
        .skip(start + 1)
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| ToolResult::new(result_text(&b["content"]), b["is_error"] == true))
        .collect();
    let turn = Turn {
        api: Api::Anthropic,
        prompt,
        results,
        tools: tools.clone(),
    };
    let reply = if tools.is_empty() {
        Reply::Text("A short title".into())
    } else {
        script(&turn)
    };
    let n = ids.fetch_add(1, Ordering::SeqCst);
    let (block, delta, stop) = match &reply {
        Reply::Call { tool, args } => (
            json!({"type": "tool_use", "id": format!("toolu_{n}"), "name": tool, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": args.to_string()}),
            "tool_use",
        ),
        Reply::Text(t) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": t}),
            "end_turn",
        ),
    };
    let model = body["model"].as_str().unwrap_or("claude-test").to_string();
    if body["stream"] != true {
        let content = match &reply {
            Reply::Call { tool, args } => {
                json!([{"type": "tool_use", "id": format!("toolu_{n}"), "name": tool, "input": args}])
            }
            Reply::Text(t) => json!([{"type": "text", "text": t}]),
        };
        let v = json!({"id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 5}});
        return (
            "200 OK",
            "application/json",
            v.to_string().into_bytes(),
            (!tools.is_empty()).then_some(turn),
        );
    }
    let events = [
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ];
    (
        "200 OK",
        "text/event-stream",
        sse(&events),
        (!tools.is_empty()).then_some(turn),
    )
}

fn gemini(path: &str, body: &Value, script: &Script) -> Response {
    let tools: Vec<String> = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["functionDeclarations"].as_array())
        .flatten()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect();
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    let parts = |c: &Value| c["parts"].as_array().cloned().unwrap_or_default();
    let is_prompt = |c: &Value| {
        c["role"] == "user"
            && parts(c).iter().any(|p| p.get("text").is_some())
            && !parts(c).iter().any(|p| p.get("functionResponse").is_some())
    };
    let start = contents.iter().rposition(is_prompt).unwrap_or(0);
    let prompt = contents
        .get(start)
        .map(|c| {
            parts(c)
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let results: Vec<ToolResult> = contents
        .iter()
        .skip(start + 1)
        .flat_map(parts)
        .filter_map(|p| p.get("functionResponse").cloned())
        .map(|f| {
            ToolResult::new(
                result_text(&f["response"]),
                f["response"].get("error").is_some(),
            )
        })
        .collect();
    let turn = Turn {
        api: Api::Gemini,
        prompt,
        results,
        tools: tools.clone(),
    };
    let wants_json = body["generationConfig"]["responseMimeType"] == "application/json";
    let reply = if wants_json || tools.is_empty() {
        // The CLI's own helpers (model router, next-speaker check) ask for JSON.
        Reply::Text(
            json!({"complexity_reasoning": "a simple question", "complexity_score": 10,
                   "reasoning": "the answer is complete", "next_speaker": "user"})
            .to_string(),
        )
    } else {
        script(&turn)
    };
    let part = match &reply {
        Reply::Call { tool, args } => json!({"functionCall": {"name": tool, "args": args}}),
        Reply::Text(t) => json!({"text": t}),
    };
    let v = json!({"candidates": [{"content": {"parts": [part], "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}});
    let main = !wants_json && !tools.is_empty();
    if path.contains(":streamGenerateContent") {
        (
            "200 OK",
            "text/event-stream",
            sse(&[(None, v)]),
            main.then_some(turn),
        )
    } else {
        (
            "200 OK",
            "application/json",
            v.to_string().into_bytes(),
            main.then_some(turn),
        )
    }
}

fn openai(body: &Value, script: &Script, ids: &AtomicU64) -> Response {
    let mut tools = Vec::new();
    // Freeform tools (Codex's `apply_patch`): called with a string, not JSON arguments.
    let mut custom = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        if t["type"] == "custom"
            && let Some(n) = t["name"].as_str()
        {
            custom.push(n.to_string());
        }
        if t["type"] == "namespace" {
            for u in t["tools"].as_array().into_iter().flatten() {
                if let (Some(ns), Some(n)) = (t["name"].as_str(), u["name"].as_str()) {
                    tools.push(format!("{ns}::{n}"));
                }
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
        .map(|c| {
            c.iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let results: Vec<ToolResult> = items
        .iter()
        .skip(start + 1)
        .filter(|i| i["type"] == "function_call_output" || i["type"] == "custom_tool_call_output")
        .map(|i| {
            let raw = result_text(&i["output"]);
            let is_error = raw.starts_with("Error") || raw.contains("cancelled");
            ToolResult::new(raw, is_error)
        })
        .collect();
    let turn = Turn {
        api: Api::OpenAi,
        prompt,
        results,
        tools: tools.clone(),
    };
    let reply = if tools.is_empty() {
        Reply::Text("ok".into())
    } else {
        script(&turn)
    };
    let n = ids.fetch_add(1, Ordering::SeqCst);
    let rid = format!("resp_{n}");
    let mut events = vec![(
        Some("response.created"),
        json!({"type": "response.created", "response": {"id": rid}}),
    )];
    match &reply {
        Reply::Call { tool, args } => {
            let (ns, name) = match tool.split_once("::") {
                Some((ns, name)) => (Some(ns), name),
                None => (None, tool.as_str()),
            };
            let mut item = match args {
                Value::String(input) if custom.iter().any(|c| c == name) => {
                    json!({"type": "custom_tool_call", "id": format!("ctc_{n}"), "call_id": format!("call_{n}"),
                        "name": name, "input": input, "status": "completed"})
                }
                Value::String(input) => {
                    json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"),
                    "name": name, "arguments": json!({"input": input}).to_string(), "status": "completed"})
                }
                _ => {
                    json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": format!("call_{n}"),
                    "name": name, "arguments": args.to_string(), "status": "completed"})
                }
            };
            if let Some(ns) = ns {
                item["namespace"] = json!(ns);
            }
            events.push((
                Some("response.output_item.added"),
                json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
            ));
            events.push((
                Some("response.output_item.done"),
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ));
        }
        Reply::Text(t) => {
            let id = format!("msg_{n}");
            let item = json!({"type": "message", "id": id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": t, "annotations": []}]});
            let mut empty = item.clone();
            empty["content"] = json!([]);
            events.push((
                Some("response.output_item.added"),
                json!({"type": "response.output_item.added", "output_index": 0, "item": empty}),
            ));
            events.push((
                Some("response.output_text.delta"),
                json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "item_id": id, "delta": t}),
            ));
            events.push((
                Some("response.output_item.done"),
                json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
            ));
        }
    }
    events.push((
        Some("response.completed"),
        json!({"type": "response.completed", "response": {"id": rid, "usage": {"input_tokens": 10,
            "input_tokens_details": null, "output_tokens": 5, "output_tokens_details": null, "total_tokens": 15}}}),
    ));
    (
        "200 OK",
        "text/event-stream",
        sse(&events),
        (!tools.is_empty()).then_some(turn),
    )
}
