//! The vault MCP (`agentero serve`) over HTTP on the 1,000-paper vault (see `common`): round
//! trips p50/p99 of `vault_search` (goal: p99 under 15 ms), `paper_read` of a page (goal: p99
//! under 5 ms) and `locate_quote` (goal: p99 under 50 ms) from one client, then throughput with
//! 50 concurrent clients; then `vault_search` p99 while 1,150 slowloris connections (half-sent
//! requests, reopened when closed) press on the server, against the same without them (the
//! ratio), and the memory one MCP session costs (the server's RSS over 1,000 sessions). The
//! server is the real release binary on a free loopback port; the client speaks Streamable
//! HTTP (JSON-RPC over POST, SSE answers, a session) through hyper.
//!
//! Run: `cargo bench --bench serve` (release build).

mod common;

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

use common::{indexed_vault, report};

/// One MCP session over one keep-alive connection.
struct Session {
    sender: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    host: String,
    auth: String,
    session: Option<String>,
    protocol: String,
    next_id: u64,
}

impl Session {
    async fn connect(port: u16, token: &str) -> Session {
        let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        stream.set_nodelay(true).unwrap();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        let mut s = Session {
            sender,
            host: format!("127.0.0.1:{port}"),
            auth: format!("Bearer {token}"),
            session: None,
            protocol: "2025-06-18".into(),
            next_id: 0,
        };
        let init = s
            .rpc(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
            )
            .await;
        s.protocol = init["protocolVersion"].as_str().unwrap().to_string();
        s.post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        s
    }

    async fn post(&mut self, body: Value) -> (hyper::http::HeaderMap, Bytes) {
        let mut req = hyper::Request::post("/mcp")
            .header("host", &self.host)
            .header("authorization", &self.auth)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", &self.protocol);
        if let Some(id) = &self.session {
            req = req.header("mcp-session-id", id);
        }
        let req = req.body(Full::new(Bytes::from(body.to_string()))).unwrap();
        self.sender.ready().await.unwrap();
        let resp = self.sender.send_request(req).await.unwrap();
        assert!(resp.status().is_success(), "HTTP {}", resp.status());
        let headers = resp.headers().clone();
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        (headers, body)
    }

    async fn rpc(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let (headers, body) = self
            .post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        if let Some(s) = headers.get("mcp-session-id") {
            self.session = Some(s.to_str().unwrap().to_string());
        }
        let text = String::from_utf8_lossy(&body);
        let msg = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .chain(std::iter::once(text.as_ref()))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer in {text}"));
        assert!(msg.get("error").is_none(), "{method}: {msg}");
        msg["result"].clone()
    }

    async fn tool(&mut self, name: &str, args: Value) -> Value {
        let r = self
            .rpc("tools/call", json!({"name": name, "arguments": args}))
            .await;
        assert_ne!(r["isError"], true, "{name}: {r}");
        r["structuredContent"].clone()
    }
}

async fn timed(s: &mut Session, name: &str, args: Value) -> Duration {
    let t = Instant::now();
    s.tool(name, args).await;
    t.elapsed()
}

fn p99(v: &mut [Duration]) -> Duration {
    v.sort();
    v[((v.len() as f64 * 0.99).ceil() as usize).clamp(1, v.len()) - 1]
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Half-sent requests from 127.0.0.1 (a header line every 500 ms), each reopened when the
/// server closes it.
struct Slowloris {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<usize>,
}

impl Slowloris {
    fn start(port: u16, n: usize) -> Slowloris {
        use std::io::{Read, Write};
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
            let open = || -> Option<std::net::TcpStream> {
                let mut c = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
                c.set_nonblocking(true).ok()?;
                c.write_all(format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n").as_bytes())
                    .ok()?;
                Some(c)
            };
            let mut conns: Vec<Option<std::net::TcpStream>> = (0..n).map(|_| open()).collect();
            let mut reopened = 0;
            let mut buf = [0u8; 512];
            while !stop2.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(500));
                for slot in conns.iter_mut() {
                    let alive = slot.as_mut().is_some_and(|c| {
                        let closed = match c.read(&mut buf) {
                            Ok(_) => true,
                            Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
                        };
                        !closed && c.write_all(b"X-Slow: 1\r\n").is_ok()
                    });
                    if !alive {
                        *slot = open();
                        reopened += 1;
                    }
                }
            }
            reopened
        });
        Slowloris { stop, thread }
    }

    fn stop(self) -> usize {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

fn main() {
    #[cfg(unix)]
    {
        // The attack holds more sockets than a default soft limit allows.
        use rustix::process::{Resource, getrlimit, setrlimit};
        let mut lim = getrlimit(Resource::Nofile);
        lim.current = lim.maximum;
        let _ = setrlimit(Resource::Nofile, lim);
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (copies, vault) = indexed_vault(&root);
    agentero::context::library::ensure_cache(&vault, &vault.catalog()).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_agentero"))
        .args([
            "serve",
            root.to_str().unwrap(),
            "--port",
            "0",
            "--refresh",
            "0",
            // Room for the 1,000 sessions measured below (the default keeps 256 per token).
            "--max-sessions",
            "2000",
            "--max-sessions-per-token",
            "2000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.trim().strip_prefix("url:").map(|u| u.trim().to_string()))
        .expect("the server prints its URL");
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let token = String::from_utf8(
        Command::new(env!("CARGO_BIN_EXE_agentero"))
            .args(["serve", root.to_str().unwrap(), "--token"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string();

    let server_pid = child.id();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut s = Session::connect(port, &token).await;
        let queries = [
            "gutter",
            "citation precision",
            "dense retrieval",
            "hyphenation",
            "reading order",
            "BM25 recall",
            "ligature",
            "passage windows",
        ];
        let papers: Vec<&String> = copies.iter().step_by(37).collect();
        // Quotes from the papers' own pages, re-spaced as another extractor would give them.
        let mut quotes = Vec::new();
        for p in papers.iter().take(8) {
            let page = s.tool("paper_read", json!({"path": p, "mode": "page", "page": 1})).await;
            let words: Vec<&str> = page["text"].as_str().unwrap().split_whitespace().collect();
            if words.len() > 40 {
                quotes.push(words[20..36].join("\n"));
            }
        }
        assert!(!quotes.is_empty());
        // Warm-up: each paper's first touch loads it from the index.
        for p in &papers {
            s.tool("paper_read", json!({"path": p, "mode": "page", "page": 1})).await;
        }
        for q in &queries {
            s.tool("vault_search", json!({"query": q})).await;
        }
        let n = 300;
        let mut v = Vec::new();
        for i in 0..n {
            v.push(timed(&mut s, "vault_search", json!({"query": queries[i % queries.len()]})).await);
        }
        report("vault_search", v, Some(Duration::from_millis(15)));
        let mut v = Vec::new();
        for i in 0..n {
            let p = papers[i % papers.len()];
            v.push(timed(&mut s, "paper_read", json!({"path": p, "mode": "page", "page": 1 + (i % 2)})).await);
        }
        report("paper_read page", v, Some(Duration::from_millis(5)));
        let mut v = Vec::new();
        for i in 0..n {
            let q = &quotes[i % quotes.len()];
            let t = Instant::now();
            let r = s.tool("locate_quote", json!({"quote": q})).await;
            v.push(t.elapsed());
            assert_eq!(r["found"], true, "{q}");
        }
        report("locate_quote", v, Some(Duration::from_millis(50)));
        let mut v = Vec::new();
        for i in 0..n {
            v.push(timed(&mut s, "paper_list", json!({"offset": (i * 7) % 900, "limit": 50})).await);
        }
        report("paper_list (50)", v, None);
        let mut v = Vec::new();
        for i in 0..n {
            v.push(timed(&mut s, "paper_read", json!({"path": papers[i % papers.len()]})).await);
        }
        report("paper_read metadata", v, None);

        // Throughput: 50 clients, each its own connection and session, 100 calls each.
        let (clients, calls) = (50usize, 100usize);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for c in 0..clients {
            let token = token.clone();
            let paths: Vec<String> = papers.iter().map(|p| p.to_string()).collect();
            let quote = quotes[c % quotes.len()].clone();
            tasks.push(tokio::spawn(async move {
                let mut s = Session::connect(port, &token).await;
                let mut lat = Vec::with_capacity(calls);
                for k in 0..calls {
                    let (name, args) = match (c + k) % 3 {
                        0 => ("vault_search", json!({"query": queries[k % queries.len()]})),
                        1 => ("paper_read", json!({"path": paths[k % paths.len()], "mode": "page", "page": 1})),
                        _ => ("locate_quote", json!({"quote": quote})),
                    };
                    lat.push(timed(&mut s, name, args).await);
                }
                lat
            }));
        }
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "throughput: {clients} clients x {calls} calls (search, page, quote) in {secs:.2} s = {:.0} calls/s, 0 errors",
            (clients * calls) as f64 / secs
        );
        report("  latency under that load", all, None);

        // A real client while slowloris holds 1,150 half-sent requests.
        let mut quiet = Vec::new();
        for i in 0..300 {
            quiet.push(timed(&mut s, "vault_search", json!({"query": queries[i % queries.len()]})).await);
        }
        let attack = Slowloris::start(port, 1_150);
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut s = Session::connect(port, &token).await;
        let mut loaded = Vec::new();
        for i in 0..300 {
            loaded.push(timed(&mut s, "vault_search", json!({"query": queries[i % queries.len()]})).await);
        }
        let reopened = attack.stop();
        let (pq, pl) = (p99(&mut quiet), p99(&mut loaded));
        report("vault_search quiet", quiet, None);
        report("vault_search slowloris", loaded, None);
        println!(
            "slowloris (1,150 connections, {reopened} reopened after the server closed them): p99 {:.3} ms vs {:.3} ms quiet = {:.2}x",
            pl.as_secs_f64() * 1e3,
            pq.as_secs_f64() * 1e3,
            pl.as_secs_f64() / pq.as_secs_f64().max(1e-9)
        );

        // Memory per session: the server's RSS over 1,000 more sessions.
        let pid = server_pid;
        let before = rss_kb(pid);
        let n = 1_000;
        for _ in 0..n {
            let s = Session::connect(port, &token).await;
            drop(s);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = rss_kb(pid);
        println!(
            "memory per session: {:.1} kB ({n} sessions: RSS {before} kB -> {after} kB)",
            (after.saturating_sub(before)) as f64 / n as f64
        );
    });
    let _ = child.kill();
    let _ = child.wait();
}
