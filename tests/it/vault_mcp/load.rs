//! `agentero serve` under load, on 127.0.0.1 only: slowloris against a real client, the
//! connection caps (503/429), slow headers and idle keep-alive connections closed, the session
//! cap (the session idle longest expires), argument caps answered at once, and an SSE stream
//! whose first event is JSON.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{INIT, Served, fixture, python_client, raw_http, serve, serve_with};

const PROTOCOL: &str = "2025-06-18";

fn auth(s: &Served) -> (String, String) {
    (
        format!("127.0.0.1:{}", s.port),
        format!("Bearer {}", s.token),
    )
}

fn header<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let head = text.split("\r\n\r\n").next()?;
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The body of a raw response, with chunked transfer coding undone (a cut-off last chunk is
/// kept as far as it arrived).
fn body_of(text: &str) -> String {
    let Some((head, mut rest)) = text.split_once("\r\n\r\n") else {
        return String::new();
    };
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return rest.to_string();
    }
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 {
            break;
        }
        let n = n.min(after.len());
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// The `data` of each SSE event, in order (events without data count, as empty strings).
fn sse_events(body: &str) -> Vec<String> {
    body.replace("\r\n", "\n")
        .split("\n\n")
        .filter(|e| e.lines().any(|l| !l.is_empty() && !l.starts_with(':')))
        .map(|e| {
            e.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

fn rpc(s: &Served, session: &str, body: &str) -> (u16, String) {
    let (host, bearer) = auth(s);
    raw_http(
        s.port,
        &[
            ("Host", &host),
            ("Authorization", &bearer),
            ("Mcp-Session-Id", session),
            ("Mcp-Protocol-Version", PROTOCOL),
        ],
        "/mcp",
        body,
    )
}

/// A new legacy session (initialize, then the initialized notification); its id.
fn open_session(s: &Served) -> String {
    let (host, bearer) = auth(s);
    let (code, text) = raw_http(
        s.port,
        &[("Host", &host), ("Authorization", &bearer)],
        "/mcp",
        INIT,
    );
    assert_eq!(code, 200, "{text}");
    let id = header(&text, "mcp-session-id")
        .expect("a session id")
        .to_string();
    let (code, text) = rpc(
        s,
        &id,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(code, 202, "{text}");
    id
}

#[test]
fn the_first_sse_event_is_json() {
    let f = fixture();
    let s = serve(f.vault.path());
    let (host, bearer) = auth(&s);
    let (code, text) = raw_http(
        s.port,
        &[("Host", &host), ("Authorization", &bearer)],
        "/mcp",
        INIT,
    );
    assert_eq!(code, 200, "{text}");
    let events = sse_events(&body_of(&text));
    let first = events.first().expect("an SSE event");
    let v: Value = serde_json::from_str(first)
        .unwrap_or_else(|e| panic!("the first event is not JSON ({e}): {first:?}"));
    assert_eq!(v["id"], 1, "{v}");
    assert!(v["result"]["serverInfo"].is_object(), "{v}");
    let id = header(&text, "mcp-session-id").unwrap().to_string();
    rpc(
        &s,
        &id,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    // Every request's stream, not only the first one's.
    let (code, text) = rpc(&s, &id, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(code, 200, "{text}");
    let events = sse_events(&body_of(&text));
    let v: Value = serde_json::from_str(&events[0]).unwrap_or_else(|e| panic!("{e}: {events:?}"));
    assert_eq!(v["id"], 2, "{v}");
    assert!(v["result"].is_object(), "{v}");
}

/// The JSON-RPC message a tools/call answer carries.
fn call(s: &Served, session: &str, tool: &str, args: Value) -> (Value, Duration) {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": args}
    })
    .to_string();
    let started = Instant::now();
    let (code, text) = rpc(s, session, &body);
    let took = started.elapsed();
    assert_eq!(code, 200, "{}", &text[..text.len().min(500)]);
    let events = sse_events(&body_of(&text));
    let msg = events
        .iter()
        .find_map(|e| serde_json::from_str::<Value>(e).ok())
        .unwrap_or_else(|| panic!("no JSON answer: {}", &text[..text.len().min(500)]));
    (msg, took)
}

fn tool_error(msg: &Value) -> String {
    assert_eq!(msg["result"]["isError"], true, "{msg}");
    msg["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn oversized_arguments_get_a_prompt_tool_error() {
    let f = fixture();
    let s = serve(f.vault.path());
    let id = open_session(&s);
    let three_mb = "retrieval ".repeat(300_000);
    let one_mb = "dense ".repeat(175_000);
    let long_path = format!("papers/{}", "a".repeat(100_000));
    let cases = [
        (
            "locate_quote",
            serde_json::json!({"quote": three_mb}),
            "`quote` is too long: at most 2000 characters",
        ),
        (
            "vault_search",
            serde_json::json!({"query": one_mb}),
            "`query` is too long: at most 4000 characters",
        ),
        (
            "paper_read",
            serde_json::json!({"path": long_path}),
            "`path` is too long: at most 2048 characters",
        ),
        (
            "vault_search",
            serde_json::json!({"query": "retrieval", "limit": 51}),
            "`limit` is 51; it takes 1 to 50",
        ),
        (
            "paper_relations",
            serde_json::json!({"path": "papers/layoutflow/paper.pdf", "kinds": vec!["cites"; 300]}),
            "`kinds` has too many entries: at most 256",
        ),
        (
            "locate_quote",
            serde_json::json!({"quote": "a gutter is a vertical strip of whitespace", "limit": 0}),
            "it takes 1 to 10",
        ),
    ];
    for (tool, args, want) in cases {
        let (msg, took) = call(&s, &id, tool, args);
        let t = tool_error(&msg);
        assert!(t.contains(want), "{tool}: want {want:?}, got {t}");
        assert!(took < Duration::from_secs(5), "{tool} took {took:?}");
    }
    // A quote at the cap is looked for (and found) as before.
    let (msg, _) = call(
        &s,
        &id,
        "locate_quote",
        serde_json::json!({"quote": "A gutter is a vertical strip of whitespace"}),
    );
    assert_eq!(msg["result"]["structuredContent"]["found"], true, "{msg}");
}

#[test]
fn sessions_beyond_the_cap_expire_the_one_idle_longest() {
    let f = fixture();
    let s = serve_with(f.vault.path(), &["--max-sessions-per-token", "2"]);
    let list = r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#;
    let first = open_session(&s);
    std::thread::sleep(Duration::from_millis(20));
    let second = open_session(&s);
    std::thread::sleep(Duration::from_millis(20));
    // The first is used again, so the second is now the one idle longest.
    assert_eq!(rpc(&s, &first, list).0, 200);
    std::thread::sleep(Duration::from_millis(20));
    let third = open_session(&s);
    let (code, text) = rpc(&s, &second, list);
    assert_eq!(code, 404, "{text}");
    assert!(text.contains("Session not found"), "{text}");
    for live in [&first, &third] {
        let (code, text) = rpc(&s, live, list);
        assert_eq!(code, 200, "{text}");
    }
    // The client of the expired session initializes again and is served.
    let again = open_session(&s);
    assert_eq!(rpc(&s, &again, list).0, 200);
    assert_eq!(rpc(&s, &third, list).0, 200);
}

/// Connects from `ip` (any 127.x address is loopback on Linux).
async fn connect_from(ip: [u8; 4], port: u16) -> tokio::net::TcpStream {
    let sock = tokio::net::TcpSocket::new_v4().unwrap();
    sock.bind(SocketAddr::from((ip, 0))).unwrap();
    sock.connect(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap()
}

/// A connection whose request waits for a body that never comes (busy until the body timeout).
async fn busy_connection(ip: [u8; 4], s: &Served) -> tokio::net::TcpStream {
    let (host, bearer) = auth(s);
    let mut c = connect_from(ip, s.port).await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAuthorization: {bearer}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{"
    );
    c.write_all(head.as_bytes()).await.unwrap();
    c
}

/// Sends a small request on `c` and reads until the server closes or `limit` passes.
async fn answer(c: &mut tokio::net::TcpStream, port: u16, limit: Duration) -> String {
    let req = format!("GET /other HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let _ = c.write_all(req.as_bytes()).await;
    read_until_closed(c, limit).await
}

async fn read_until_closed(c: &mut tokio::net::TcpStream, limit: Duration) -> String {
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(limit, c.read_to_end(&mut buf)).await;
    String::from_utf8_lossy(&buf).into_owned()
}

#[tokio::test]
async fn connections_beyond_the_caps_get_503_and_429_and_slow_ones_are_closed() {
    let f = fixture();
    let s = serve_with(
        f.vault.path(),
        &[
            "--max-connections",
            "6",
            "--max-connections-per-source",
            "3",
            "--header-timeout",
            "2",
        ],
    );
    let port = s.port;
    let second = Duration::from_secs(1);
    // Idle connections make room: the oldest one that never sent a request is closed (at
    // once, not by the 2 s header timeout).
    let opened = Instant::now();
    let mut idle = connect_from([127, 0, 0, 4], port).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let _idle2 = connect_from([127, 0, 0, 4], port).await;
    let _idle3 = connect_from([127, 0, 0, 4], port).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut fresh = connect_from([127, 0, 0, 4], port).await;
    let got = answer(&mut fresh, port, 3 * second).await;
    assert!(got.starts_with("HTTP/1.1 404"), "{got}");
    assert_eq!(read_until_closed(&mut idle, 3 * second).await, "");
    assert!(
        opened.elapsed() < Duration::from_millis(1800),
        "the oldest idle one was closed to make room: {:?}",
        opened.elapsed()
    );

    // Busy connections are kept; past the caps new ones are refused with Retry-After.
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(busy_connection([127, 0, 0, 1], &s).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut over = connect_from([127, 0, 0, 1], port).await;
    let got = answer(&mut over, port, 3 * second).await;
    assert!(got.starts_with("HTTP/1.1 429"), "{got}");
    assert_eq!(header(&got, "retry-after"), Some("1"), "{got}");
    for _ in 0..3 {
        held.push(busy_connection([127, 0, 0, 2], &s).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut over = connect_from([127, 0, 0, 3], port).await;
    let got = answer(&mut over, port, 3 * second).await;
    assert!(got.starts_with("HTTP/1.1 503"), "{got}");
    assert_eq!(header(&got, "retry-after"), Some("1"), "{got}");
    // One busy connection ends: a new one is served again.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut next = connect_from([127, 0, 0, 3], port).await;
    let got = answer(&mut next, port, 3 * second).await;
    assert!(got.starts_with("HTTP/1.1 404"), "{got}");
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Headers sent too slowly, and a keep-alive connection left idle, are closed.
    let mut slow = connect_from([127, 0, 0, 5], port).await;
    slow.write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1")
        .await
        .unwrap();
    let started = Instant::now();
    read_until_closed(&mut slow, 5 * second).await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1800) && took < 5 * second,
        "{took:?}"
    );
    let mut kept = connect_from([127, 0, 0, 5], port).await;
    let req = format!("GET /other HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    kept.write_all(req.as_bytes()).await.unwrap();
    let started = Instant::now();
    let got = read_until_closed(&mut kept, 6 * second).await;
    assert!(got.starts_with("HTTP/1.1 404"), "{got}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1800) && took < 5 * second,
        "{took:?}"
    );
}

/// Raises this process's open-file limit (the attack below holds more than 1,100 sockets).
fn raise_own_fd_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut lim = getrlimit(Resource::Nofile);
    lim.current = lim.maximum;
    let _ = setrlimit(Resource::Nofile, lim);
}

struct Slowloris {
    stop: Arc<AtomicBool>,
    /// Connections the attack reopened after the server closed them.
    reopened: Arc<AtomicUsize>,
    thread: std::thread::JoinHandle<()>,
}

/// Keeps `n` half-sent requests open from 127.0.0.1 (a header line every 500 ms), reopening
/// each one the server closes. Returns once all `n` were opened once.
fn slowloris(port: u16, n: usize) -> Slowloris {
    let stop = Arc::new(AtomicBool::new(false));
    let reopened = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop2, reopened2) = (stop.clone(), reopened.clone());
    let thread = std::thread::spawn(move || {
        let open = || -> Option<TcpStream> {
            let mut c = TcpStream::connect(("127.0.0.1", port)).ok()?;
            c.set_nonblocking(true).ok()?;
            let head = format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
            c.write_all(head.as_bytes()).ok()?;
            Some(c)
        };
        let mut conns: Vec<Option<TcpStream>> = (0..n).map(|_| open()).collect();
        let _ = tx.send(conns.iter().filter(|c| c.is_some()).count());
        let mut buf = [0u8; 512];
        while !stop2.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(500));
            for slot in conns.iter_mut() {
                let alive = slot.as_mut().is_some_and(|c| {
                    // Data (a refusal) or the end: the server is done with it.
                    let closed = match c.read(&mut buf) {
                        Ok(_) => true,
                        Err(e) => e.kind() != ErrorKind::WouldBlock,
                    };
                    !closed && c.write_all(b"X-Slow: 1\r\n").is_ok()
                });
                if !alive {
                    *slot = open();
                    reopened2.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    });
    let opened = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    assert_eq!(
        opened, n,
        "every attacking connection was accepted by the kernel"
    );
    Slowloris {
        stop,
        reopened,
        thread,
    }
}

fn p99(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[((ms.len() as f64 * 0.99).ceil() as usize).clamp(1, ms.len()) - 1]
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

#[test]
fn slowloris_does_not_starve_a_real_client() {
    raise_own_fd_limit();
    let f = fixture();
    let s = serve(f.vault.path());
    let limit = Duration::from_secs(240);
    let args = ["http", &s.url, &s.token, "legacy", "steady", "30"];
    let Some(quiet) = python_client(&args, limit) else {
        return;
    };
    let attack = slowloris(s.port, 1_150);
    std::thread::sleep(Duration::from_secs(1));
    let fds = open_fds(s.child.id());
    let loaded = python_client(&args, limit).unwrap();
    let fds_after = open_fds(s.child.id());
    attack.stop.store(true, Ordering::Relaxed);
    attack.thread.join().unwrap();
    let ms = |r: &Value| -> Vec<f64> {
        r["latencies_ms"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_f64)
            .collect()
    };
    let (quiet_ms, loaded_ms) = (ms(&quiet), ms(&loaded));
    assert_eq!(loaded_ms.len(), 30, "every call was answered: {loaded}");
    let (a, b) = (p99(quiet_ms), p99(loaded_ms));
    eprintln!(
        "vault_search p99: {a:.1} ms quiet, {b:.1} ms under 1,150 slowloris connections ({:.2}x); server fds {fds}/{fds_after}; reopened {}",
        b / a.max(0.001),
        attack.reopened.load(Ordering::Relaxed)
    );
    assert!(b < 3000.0, "p99 under attack {b} ms");
    // At most 512 connections from one source are kept: the rest were closed.
    assert!(fds < 700 && fds_after < 700, "{fds} {fds_after}");
    assert!(
        attack.reopened.load(Ordering::Relaxed) >= 1_150 - 512,
        "the server closed the connections over the cap"
    );
}
