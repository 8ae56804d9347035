//! The line-level edge of our stdio MCP servers: one JSON-RPC message per line, checked here
//! before rmcp sees it, so that every request gets an answer (JSON-RPC 2.0 §5) and no input
//! costs more than a bounded amount of work.
//!
//! - a line over [`MAX_LINE_BYTES`] is dropped unread: `-32600` "too large";
//! - bytes that are not UTF-8, text that is not JSON, JSON nested beyond serde's limit and
//!   strings with a lone UTF-16 surrogate: `-32700`;
//! - JSON that is not a JSON-RPC 2.0 message (a batch, a wrong `jsonrpc`, a `method` that is
//!   not a string, an `id` that is neither a string nor a number): `-32600`;
//! - a standard method whose params do not fit it (`tools/call` with a numeric `name`):
//!   `-32602`, where rmcp would say "method not found".
//!
//! Each error reply carries the request's `id` whenever it can be read — even from a line that
//! failed to parse ([`top_level_id`]) — and `null` otherwise. [`LineTransport`] is an rmcp
//! [`Transport`] over any reader and writer (stdin/stdout for `--agentero-context-mcp` and
//! `serve --stdio`; in-memory pipes in tests).

use std::borrow::Cow;
use std::collections::VecDeque;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest message accepted. Tool arguments are a few hundred bytes; a megabyte leaves
/// room for any honest client and bounds what a hostile one can make us parse.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Bytes of an oversized line kept to find its `id`.
const HEAD_BYTES: usize = 4096;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// Request methods rmcp parses into typed requests: for these, params that do not fit are
/// `-32602` (rmcp would take them for an unknown method).
const TYPED_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "tools/call",
    "tools/list",
];

/// What to do with one incoming line.
#[derive(Debug)]
pub enum Inbound {
    /// A well-formed message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// An error reply to write back (one JSON line, without the newline).
    Reply(String),
    /// Nothing to do (a blank line, a notification nobody handles, a malformed response).
    Ignore,
}

/// A JSON-RPC error reply line.
pub fn error_reply(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Checks one line (without its newline) and says what to do with it.
pub fn classify(line: &[u8]) -> Inbound {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Inbound::Ignore;
    }
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(_) => {
            // An id that itself held the bad bytes is not the client's id any more.
            let id = match top_level_id(&String::from_utf8_lossy(line)) {
                Value::String(s) if s.contains('\u{FFFD}') => Value::Null,
                id => id,
            };
            return Inbound::Reply(error_reply(
                id,
                PARSE_ERROR,
                "parse error: the message is not valid UTF-8",
            ));
        }
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let why = e.to_string();
            let message = if why.contains("recursion limit") {
                "parse error: the JSON is nested too deeply".to_string()
            } else if why.contains("surrogate") || why.contains("hex escape") {
                format!(
                    "parse error: a string holds a bad \\u escape (a lone UTF-16 surrogate?): {why}"
                )
            } else {
                format!("parse error: {why}")
            };
            return Inbound::Reply(error_reply(top_level_id(text), PARSE_ERROR, &message));
        }
    };
    classify_value(value)
}

fn classify_value(value: Value) -> Inbound {
    let mut obj = match value {
        Value::Object(o) => o,
        Value::Array(a) => {
            let why = if a.is_empty() {
                "invalid request: an empty batch"
            } else {
                "invalid request: batches are not supported; send one message per line"
            };
            return Inbound::Reply(error_reply(Value::Null, INVALID_REQUEST, why));
        }
        _ => {
            return Inbound::Reply(error_reply(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: a message is a JSON object",
            ));
        }
    };
    let id = match obj.get("id") {
        None => None,
        Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
        Some(_) => {
            return Inbound::Reply(error_reply(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: `id` must be a string or a number",
            ));
        }
    };
    let reply = |code, message: &str| {
        Inbound::Reply(error_reply(
            id.clone().unwrap_or(Value::Null),
            code,
            message,
        ))
    };
    if obj.get("jsonrpc") != Some(&json!("2.0")) {
        return reply(
            INVALID_REQUEST,
            "invalid request: `jsonrpc` must be \"2.0\"",
        );
    }
    let method = match obj.get("method") {
        None => None,
        Some(Value::String(m)) => Some(m.clone()),
        Some(_) => {
            return reply(
                INVALID_REQUEST,
                "invalid request: `method` must be a string",
            );
        }
    };
    let Some(method) = method else {
        // A response to one of our requests (or junk): nobody to answer.
        if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) {
            return match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(obj)) {
                Ok(m) => Inbound::Message(Box::new(m)),
                Err(e) => {
                    tracing::debug!(error = %e, "ignoring a malformed response");
                    Inbound::Ignore
                }
            };
        }
        return reply(
            INVALID_REQUEST,
            "invalid request: neither a `method` nor a `result` or `error`",
        );
    };
    if id.is_none() {
        // Notifications get no answer, whatever is wrong with them.
        return match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(obj)) {
            Ok(m) => Inbound::Message(Box::new(m)),
            Err(e) => {
                tracing::debug!(error = %e, %method, "ignoring a malformed notification");
                Inbound::Ignore
            }
        };
    }
    match obj.get("params") {
        None | Some(Value::Object(_)) => {}
        Some(Value::Null) => {
            obj.remove("params");
        }
        Some(_) => return reply(INVALID_PARAMS, "invalid params: `params` must be an object"),
    }
    let typed = TYPED_METHODS.contains(&method.as_str());
    let params = obj.get("params").cloned();
    match serde_json::from_value::<ClientJsonRpcMessage>(Value::Object(obj)) {
        Ok(JsonRpcMessage::Request(r))
            if typed && matches!(r.request, ClientRequest::CustomRequest(_)) =>
        {
            reply(
                INVALID_PARAMS,
                &format!(
                    "invalid params for {method}: {}",
                    params_problem(&method, params.as_ref())
                ),
            )
        }
        Ok(m) => Inbound::Message(Box::new(m)),
        Err(e) if typed => reply(INVALID_PARAMS, &format!("invalid params for {method}: {e}")),
        Err(e) => reply(INVALID_REQUEST, &format!("invalid request: {e}")),
    }
}

/// A readable reason why a standard method's params were not accepted.
fn params_problem(method: &str, params: Option<&Value>) -> String {
    let get = |k: &str| params.and_then(|p| p.get(k));
    match method {
        "tools/call" => match (get("name"), get("arguments")) {
            (None, _) => "`name` is required".into(),
            (Some(n), _) if !n.is_string() => "`name` must be a string".into(),
            (_, Some(a)) if !a.is_object() && !a.is_null() => {
                "`arguments` must be an object".into()
            }
            _ => "they do not match the method's schema".into(),
        },
        "initialize" => match (get("protocolVersion"), get("clientInfo")) {
            (None, _) => "`protocolVersion` is required".into(),
            (Some(v), _) if !v.is_string() => "`protocolVersion` must be a string".into(),
            (_, None) => "`clientInfo` is required".into(),
            _ => "they do not match the method's schema".into(),
        },
        _ => "they do not match the method's schema".into(),
    }
}

/// The top-level `"id"` of a JSON object given as text that need not parse (cut off, nested too
/// deeply, holding a bad string elsewhere): a string or number, else `null`.
pub fn top_level_id(text: &str) -> Value {
    let b = text.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    // At depth 1, whether the next string is a key.
    let mut key_next = false;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                key_next = depth == 1 && b[i] == b'{';
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' => {
                key_next = depth == 1;
                i += 1;
            }
            b'"' => {
                let end = string_end(b, i);
                if depth == 1 && key_next && &b[i..end] == b"\"id\"" {
                    let mut j = skip_ws(b, end);
                    if b.get(j) != Some(&b':') {
                        return Value::Null;
                    }
                    j = skip_ws(b, j + 1);
                    let value_end = match b.get(j) {
                        Some(b'"') => string_end(b, j),
                        Some(c) if c.is_ascii_digit() || *c == b'-' => {
                            let mut k = j;
                            while k < b.len()
                                && matches!(b[k], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                            {
                                k += 1;
                            }
                            k
                        }
                        _ => return Value::Null,
                    };
                    return match serde_json::from_slice::<Value>(&b[j..value_end]) {
                        Ok(v @ (Value::String(_) | Value::Number(_))) => v,
                        _ => Value::Null,
                    };
                }
                key_next = false;
                i = end;
            }
            _ => i += 1,
        }
    }
    Value::Null
}

/// The index just past the string starting at `b[start] == '"'` (or the end of the text).
fn string_end(b: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// One line read from the peer.
enum LineRead {
    Line,
    /// Longer than [`MAX_LINE_BYTES`]; its first bytes are in the buffer.
    Oversized(usize),
    Eof,
}

/// An rmcp transport over newline-delimited JSON-RPC with the checks above. Writes go through
/// one task, so replies from rmcp and from these checks never interleave within a line.
pub struct LineTransport<R> {
    read: BufReader<R>,
    line: Vec<u8>,
    /// Bytes of the current line seen so far (more than `line` holds once it is oversized).
    seen: usize,
    /// Error replies not yet handed to the writer (kept here so a cancelled receive loses none).
    pending: VecDeque<String>,
    out: Option<mpsc::Sender<String>>,
}

impl<R: AsyncRead + Send + Unpin + 'static> LineTransport<R> {
    /// Reads from `read`, writes to `write` (from a task of the current tokio runtime).
    pub fn new<W: AsyncWrite + Send + Unpin + 'static>(read: R, mut write: W) -> Self {
        let (tx, mut rx) = mpsc::channel::<String>(64);
        tokio::spawn(async move {
            while let Some(mut line) = rx.recv().await {
                line.push('\n');
                if write.write_all(line.as_bytes()).await.is_err() || write.flush().await.is_err() {
                    break;
                }
            }
        });
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            seen: 0,
            pending: VecDeque::new(),
            out: Some(tx),
        }
    }

    /// Reads up to the next newline into `self.line`, keeping at most [`HEAD_BYTES`] of a line
    /// that grows past the limit. Cancel-safe: a partial line stays in `self.line`.
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        loop {
            let buf = self.read.fill_buf().await?;
            if buf.is_empty() {
                // A last line without a newline is still a message.
                return Ok(self.end_of_line(false));
            }
            let (take, done) = match buf.iter().position(|&c| c == b'\n') {
                Some(n) => (n, true),
                None => (buf.len(), false),
            };
            let keep = if self.seen > MAX_LINE_BYTES {
                0
            } else {
                take.min(MAX_LINE_BYTES + 1 - self.line.len())
            };
            self.line.extend_from_slice(&buf[..keep]);
            self.seen += take;
            self.read.consume(if done { take + 1 } else { take });
            if self.seen > MAX_LINE_BYTES && self.line.len() > HEAD_BYTES {
                // Keep only the head while the rest streams past.
                self.line.truncate(HEAD_BYTES);
                self.line.shrink_to(HEAD_BYTES);
            }
            if done {
                return Ok(self.end_of_line(true));
            }
        }
    }

    fn end_of_line(&mut self, newline: bool) -> LineRead {
        let seen = std::mem::take(&mut self.seen);
        if seen > MAX_LINE_BYTES {
            LineRead::Oversized(seen)
        } else if newline || seen > 0 {
            LineRead::Line
        } else {
            LineRead::Eof
        }
    }
}

impl<R: AsyncRead + Send + Unpin + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "agentero-line-transport".into()
    }

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            // Controls in the vault's text (C1, bidi) travel as JSON escapes, never raw.
            let line =
                crate::vault::visible::to_json_string(&item).map_err(std::io::Error::other)?;
            match out {
                Some(tx) => tx.send(line).await.map_err(|_| closed()),
                None => Err(closed()),
            }
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            while let Some(reply) = self.pending.front() {
                let tx = self.out.as_ref()?;
                if tx.send(reply.clone()).await.is_err() {
                    return None;
                }
                self.pending.pop_front();
            }
            let read = match self.read_line().await {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot read from the client");
                    return None;
                }
            };
            let line = std::mem::take(&mut self.line);
            match read {
                LineRead::Eof => return None,
                LineRead::Oversized(bytes) => {
                    tracing::warn!(bytes, "dropped a message over the size limit");
                    let id = top_level_id(&String::from_utf8_lossy(&line));
                    self.pending.push_back(error_reply(
                        id,
                        INVALID_REQUEST,
                        &format!(
                            "invalid request: the message has {bytes} bytes; at most {MAX_LINE_BYTES} are accepted"
                        ),
                    ));
                }
                LineRead::Line => match classify(&line) {
                    Inbound::Message(m) => return Some(*m),
                    Inbound::Reply(r) => {
                        tracing::debug!(reply = %r, "answered a malformed message");
                        self.pending.push_back(r);
                    }
                    Inbound::Ignore => {}
                },
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out = None;
        Ok(())
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotConnected,
        "the client closed the connection",
    )
}

/// The transport on this process's stdin and stdout.
pub fn stdio() -> LineTransport<rmcp::transport::io::StdioReader> {
    let (read, write) = rmcp::transport::stdio_pipes();
    LineTransport::new(read, write)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_of(line: &[u8]) -> Value {
        match classify(line) {
            Inbound::Reply(r) => serde_json::from_str(&r).unwrap(),
            other => panic!(
                "expected a reply for {:?}, got {other:?}",
                String::from_utf8_lossy(line)
            ),
        }
    }

    fn code_and_id(v: &Value) -> (i64, Value) {
        (v["error"]["code"].as_i64().unwrap(), v["id"].clone())
    }

    #[test]
    fn every_malformed_request_gets_an_answer() {
        let cases: Vec<(Vec<u8>, i64, Value)> = vec![
            (b"hello".to_vec(), PARSE_ERROR, Value::Null),
            (b"{\"jsonrpc\":\"2.0\",\"id\":3,".to_vec(), PARSE_ERROR, json!(3)),
            (
                format!("{}{}", "[".repeat(500), "]".repeat(500)).into_bytes(),
                PARSE_ERROR,
                Value::Null,
            ),
            (
                format!("{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{{\"x\":{}1{}}}}}", "[".repeat(300), "]".repeat(300)).into_bytes(),
                PARSE_ERROR,
                json!(4),
            ),
            (
                br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"\ud800"}}}"#.to_vec(),
                PARSE_ERROR,
                json!(9),
            ),
            (b"{\"jsonrpc\":\"2.0\",\"id\":\"s\xff\",\"method\":\"ping\"}".to_vec(), PARSE_ERROR, Value::Null),
            (b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"x\":\"\xff\"}".to_vec(), PARSE_ERROR, json!(5)),
            (b"[]".to_vec(), INVALID_REQUEST, Value::Null),
            (br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_vec(), INVALID_REQUEST, Value::Null),
            (b"42".to_vec(), INVALID_REQUEST, Value::Null),
            (br#"{"jsonrpc":"2.0","id":7,"method":5}"#.to_vec(), INVALID_REQUEST, json!(7)),
            (br#"{"jsonrpc":"2.0","method":5}"#.to_vec(), INVALID_REQUEST, Value::Null),
            (br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#.to_vec(), INVALID_REQUEST, json!("a")),
            (br#"{"id":8,"method":"ping"}"#.to_vec(), INVALID_REQUEST, json!(8)),
            (br#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#.to_vec(), INVALID_REQUEST, Value::Null),
            (br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_vec(), INVALID_REQUEST, Value::Null),
            (br#"{"jsonrpc":"2.0","id":10}"#.to_vec(), INVALID_REQUEST, json!(10)),
            (br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":5}}"#.to_vec(), INVALID_PARAMS, json!(11)),
            (br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"context_read","arguments":[1]}}"#.to_vec(), INVALID_PARAMS, json!(12)),
            (br#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":[1,2]}"#.to_vec(), INVALID_PARAMS, json!(13)),
            (br#"{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":7}}"#.to_vec(), INVALID_PARAMS, json!(14)),
            (br#"{"jsonrpc":"2.0","id":15,"method":"tools/call"}"#.to_vec(), INVALID_PARAMS, json!(15)),
        ];
        for (line, code, id) in cases {
            let r = reply_of(&line);
            assert_eq!(
                code_and_id(&r),
                (code, id),
                "{}: {r}",
                String::from_utf8_lossy(&line)
            );
            assert!(r["error"]["message"].as_str().unwrap().len() > 10);
        }
    }

    #[test]
    fn good_messages_and_notifications_pass() {
        for line in [
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":"x","method":"tools/list","params":null}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"a"}}}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"agentero/unknown"}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert!(
                matches!(classify(line), Inbound::Message(_)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        for line in [
            b"".as_slice(),
            b"  \r",
            br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}"#,
            br#"{"jsonrpc":"2.0","id":4,"result":"not a result"}"#,
        ] {
            let c = classify(line);
            assert!(
                matches!(c, Inbound::Ignore | Inbound::Message(_)),
                "{}: {c:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn ids_are_found_in_broken_text() {
        assert_eq!(
            top_level_id(r#"{"jsonrpc":"2.0","id":17,"params":{"#),
            json!(17)
        );
        assert_eq!(
            top_level_id(r#"{"params":{"id":1},"id":"top"}"#),
            json!("top")
        );
        assert_eq!(top_level_id(r#"{"x":"\"id\":3","id":-4}"#), json!(-4));
        assert_eq!(top_level_id(r#"{"a":["id",1],"id" : 2.5 }"#), json!(2.5));
        assert_eq!(top_level_id(r#"{"id":"\ud800"}"#), Value::Null);
        assert_eq!(top_level_id("[1,2]"), Value::Null);
        assert_eq!(top_level_id("garbage"), Value::Null);
        assert_eq!(top_level_id(r#"{"id":{"x":1}}"#), Value::Null);
    }

    #[tokio::test]
    async fn oversized_and_garbage_lines_are_answered_in_order() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let mut t = LineTransport::new(server_read, server_write);
        let (client_read, mut client_write) = tokio::io::split(client);
        let writer = tokio::spawn(async move {
            let big = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{{\"name\":\"x\",\"arguments\":{{\"q\":\"{}\"}}}}}}\n",
                "a".repeat(3 * MAX_LINE_BYTES)
            );
            client_write.write_all(big.as_bytes()).await.unwrap();
            client_write.write_all(b"garbage\n").await.unwrap();
            client_write
                .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\"}")
                .await
                .unwrap();
            client_write.shutdown().await.unwrap();
        });
        // The last line has no newline and still arrives; the two errors were answered first.
        let m = t.receive().await.expect("the ping");
        assert!(matches!(m, JsonRpcMessage::Request(_)));
        assert!(t.receive().await.is_none());
        writer.await.unwrap();
        t.close().await.unwrap();
        let mut lines = tokio::io::BufReader::new(client_read).lines();
        let first: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(code_and_id(&first), (INVALID_REQUEST, json!(21)));
        assert!(
            first["error"]["message"]
                .as_str()
                .unwrap()
                .contains("at most")
        );
        let second: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(code_and_id(&second), (PARSE_ERROR, Value::Null));
    }
}
