//! `agentero serve`, the vault MCP for external clients: the real binary on a free loopback
//! port (and over stdio) driven by independent clients — the MCP Python SDK
//! (`tests/peers/vault_mcp_client.py`) and MCP Inspector's CLI — plus raw HTTP for the gates
//! (401 without the token, 403 for a foreign Origin or Host) and a SIGTERM stop.
//!
//! The peers are installed by `.ci/run` (`AGENTERO_PYTHON`, `AGENTERO_MCP_INSPECTOR`; it sets
//! `AGENTERO_MCP_PEERS=required`, so a missing peer fails there); elsewhere a test whose peer
//! is missing says so and skips. The corpus test uses the `AGENTERO_CORPUS` gate of
//! `tests/common`.

use crate::common;
mod load;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/peers/vault_mcp_client.py"
);
const PINNED_MCP: &str = "2.3.0";

fn peers_required() -> bool {
    std::env::var("AGENTERO_MCP_PEERS").is_ok_and(|v| v == "required")
}

fn missing_peer(peer: common::skip::Peer, detail: &str) -> Option<()> {
    assert!(
        !peers_required(),
        "{} is missing but AGENTERO_MCP_PEERS=required ({detail}; .ci/run installs it)",
        peer.what()
    );
    common::skip::missing(peer, detail);
    None
}

/// The interpreter with the pinned MCP SDK (`AGENTERO_PYTHON`, the venv .ci/run makes, else
/// `python3`).
fn python() -> Option<Command> {
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    let make = || Command::new(&py);
    let probe = make()
        .args([
            "-c",
            "import importlib.metadata as m, mcp, httpx2; print(m.version('mcp'))",
        ])
        .output();
    match probe {
        Ok(o) if o.status.success() => {
            let v = String::from_utf8_lossy(&o.stdout).trim().to_string();
            assert_eq!(
                v, PINNED_MCP,
                "the MCP Python SDK must be the pinned version"
            );
            Some(make())
        }
        _ => missing_peer(common::skip::Peer::PythonMcp, "").map(|_| make()),
    }
}

/// MCP Inspector's launcher, from `AGENTERO_MCP_INSPECTOR` or the cache folder .ci/run uses.
fn inspector() -> Option<PathBuf> {
    let path = std::env::var_os("AGENTERO_MCP_INSPECTOR")
        .map(PathBuf::from)
        .or_else(|| {
            let home = std::env::var_os("HOME")?;
            Some(
                PathBuf::from(home)
                    .join(".cache/agentero-ci/inspector/node_modules/.bin/mcp-inspector"),
            )
        })?;
    if path.exists() {
        Some(path)
    } else {
        missing_peer(common::skip::Peer::Inspector, &path.display().to_string()).map(|_| path)
    }
}

/// The demo vault, indexed, with things that must never be served: hidden files, the app's
/// state and a symlink to a file outside the vault.
struct Fixture {
    vault: tempfile::TempDir,
    _outside: tempfile::TempDir,
}

fn fixture() -> Fixture {
    let vault = common::demo_vault();
    let outside = tempfile::tempdir().unwrap();
    let root = vault.path();
    std::fs::write(outside.path().join("outside.md"), "TOP-SECRET outside\n").unwrap();
    std::fs::write(root.join(".secret.md"), "TOP-SECRET hidden\n").unwrap();
    std::fs::write(root.join("notes/.hidden.txt"), "TOP-SECRET hidden\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("outside.md"),
        root.join("notes/escape.md"),
    )
    .unwrap();
    let out = common::agentero(&["index", root.to_str().unwrap()], root);
    assert!(out.status.success(), "{}", common::stderr(&out));
    Fixture {
        vault,
        _outside: outside,
    }
}

/// A running `agentero serve` on a free loopback port (killed on drop).
struct Served {
    child: Child,
    url: String,
    port: u16,
    token: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(vault: &Path) -> Served {
    serve_with(vault, &[])
}

/// [`serve`] with more arguments (limits).
fn serve_with(vault: &Path, extra: &[&str]) -> Served {
    let home = vault.join(".agentero-test-home");
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentero"))
        .args([
            "serve",
            vault.to_str().unwrap(),
            "--port",
            "0",
            "--refresh",
            "0",
        ])
        .args(extra)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("agentero serve starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.trim().strip_prefix("url:") {
                let _ = tx.send(url.trim().to_string());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the server prints its URL");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let out = common::agentero(&["serve", vault.to_str().unwrap(), "--token"], vault);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let token = common::stdout(&out).trim().to_string();
    Served {
        child,
        url,
        port,
        token,
    }
}

/// Runs a command to its end (killed after `limit`); its status and output.
fn run_limited(mut cmd: Command, limit: Duration) -> (std::process::ExitStatus, String, String) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the peer runs");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "the peer did not finish within {limit:?}: {}",
                e.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, o.join().unwrap(), e.join().unwrap())
}

/// The Python client's report (its last stdout line); fails with its stderr.
fn python_client(args: &[&str], limit: Duration) -> Option<Value> {
    let mut cmd = python()?;
    cmd.arg(CLIENT).args(args);
    let (status, out, err) = run_limited(cmd, limit);
    assert!(
        status.success(),
        "the Python MCP client failed ({args:?}):\n{err}\n{out}"
    );
    let last = out.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|_| panic!("no report: {out}\n{err}")))
}

/// One raw HTTP/1.1 exchange: the status and the whole response text.
fn raw_http(port: u16, head: &[(&str, &str)], path: &str, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut req = format!("POST {path} HTTP/1.1\r\n");
    for (k, v) in head {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ));
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                // An SSE answer is complete once its JSON-RPC result arrived.
                if String::from_utf8_lossy(&buf).contains("\"result\"") {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, text)
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-http","version":"1"}}}"#;

#[test]
fn the_http_gates_refuse_what_they_must() {
    let f = fixture();
    let s = serve(f.vault.path());
    let host = format!("127.0.0.1:{}", s.port);
    let bearer = format!("Bearer {}", s.token);
    let own_origin = format!("http://127.0.0.1:{}", s.port);

    let (code, text) = raw_http(s.port, &[("Host", &host)], "/mcp", INIT);
    assert_eq!(code, 401, "no token: {text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{text}"
    );
    let wrong = format!("Bearer {}x", s.token);
    for auth in [
        wrong.as_str(),
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        s.token.as_str(),
    ] {
        let (code, _) = raw_http(
            s.port,
            &[("Host", &host), ("Authorization", auth)],
            "/mcp",
            INIT,
        );
        assert_eq!(code, 401, "Authorization: {auth}");
    }
    for origin in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        "https://localhost",
    ] {
        let (code, text) = raw_http(
            s.port,
            &[
                ("Host", &host),
                ("Authorization", &bearer),
                ("Origin", origin),
            ],
            "/mcp",
            INIT,
        );
        assert_eq!(code, 403, "Origin {origin}: {text}");
    }
    for bad_host in ["evil.example", "attacker.example:8765", "127.0.0.1:1"] {
        let (code, _) = raw_http(
            s.port,
            &[("Host", bad_host), ("Authorization", &bearer)],
            "/mcp",
            INIT,
        );
        assert_eq!(code, 403, "Host {bad_host}");
    }
    let (code, _) = raw_http(
        s.port,
        &[("Host", &host), ("Authorization", &bearer)],
        "/other",
        INIT,
    );
    assert_eq!(code, 404);
    for origin in [None, Some(own_origin.as_str())] {
        let mut head = vec![("Host", host.as_str()), ("Authorization", bearer.as_str())];
        head.extend(origin.map(|o| ("Origin", o)));
        let (code, text) = raw_http(s.port, &head, "/mcp", INIT);
        assert_eq!(code, 200, "{text}");
        assert!(text.contains("agentero-vault"), "{text}");
    }
    // A rotated token replaces the old one at once.
    let out = common::agentero(
        &["serve", f.vault.path().to_str().unwrap(), "--rotate-token"],
        f.vault.path(),
    );
    let new = common::stdout(&out).trim().to_string();
    assert_ne!(new, s.token);
    let (code, _) = raw_http(
        s.port,
        &[("Host", &host), ("Authorization", &bearer)],
        "/mcp",
        INIT,
    );
    assert_eq!(code, 401, "the old token after a rotation");
    let (code, _) = raw_http(
        s.port,
        &[("Host", &host), ("Authorization", &format!("Bearer {new}"))],
        "/mcp",
        INIT,
    );
    assert_eq!(code, 200);
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(f.vault.path().join(".agentero/serve-token"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let f = fixture();
    let mut s = serve(f.vault.path());
    let host = format!("127.0.0.1:{}", s.port);
    let (code, _) = raw_http(
        s.port,
        &[
            ("Host", &host),
            ("Authorization", &format!("Bearer {}", s.token)),
        ],
        "/mcp",
        INIT,
    );
    assert_eq!(code, 200);
    // An open connection does not keep the server alive.
    let idle = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    let pid = s.child.id() as libc::pid_t;
    // SAFETY: kill(2) on the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let started = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "exit after SIGTERM: {status:?}");
    drop(idle);
    assert!(
        TcpStream::connect(("127.0.0.1", s.port)).is_err(),
        "the port is closed"
    );
}

#[test]
fn python_sdk_over_http_every_tool_and_the_usage_log() {
    let f = fixture();
    let s = serve(f.vault.path());
    let limit = Duration::from_secs(180);
    let Some(r) = python_client(&["http", &s.url, &s.token, "auto", "suite"], limit) else {
        return;
    };
    assert_eq!(r["protocol"], "2026-07-28", "{r}");
    assert_eq!(r["tools"].as_array().unwrap().len(), 6);
    let r = python_client(&["http", &s.url, &s.token, "legacy", "suite"], limit).unwrap();
    assert_ne!(r["protocol"], "2026-07-28", "{r}");
    let r = python_client(&["http", &s.url, "", "auto", "unauthorized"], limit).unwrap();
    assert_eq!(r["refused"], true);
    let r = python_client(
        &["http", &s.url, "agt_wrong", "legacy", "unauthorized"],
        limit,
    )
    .unwrap();
    assert_eq!(r["refused"], true);

    // One line per call: time, tool, the paths named, the size; refusals with their code.
    let log = std::fs::read_to_string(f.vault.path().join(".agentero/serve/usage.jsonl")).unwrap();
    assert!(!log.contains(&s.token), "the token never reaches the log");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 100, "{}", lines.len());
    for l in &lines {
        assert!(l["ts"].as_str().unwrap().ends_with('Z'), "{l}");
        assert_eq!(l["transport"], "http");
        assert!(
            l["chars"].as_u64().is_some() && l["paths"].is_array(),
            "{l}"
        );
    }
    let tools: std::collections::BTreeSet<&str> =
        lines.iter().filter_map(|l| l["tool"].as_str()).collect();
    for t in [
        "vault_search",
        "paper_list",
        "paper_read",
        "paper_relations",
        "file_read",
        "locate_quote",
        "resources/read",
    ] {
        assert!(tools.contains(t), "{t} not logged: {tools:?}");
    }
    let refusal = lines
        .iter()
        .find(|l| {
            l["paths"] == serde_json::json!([".agentero/serve-token"]) && l["tool"] == "file_read"
        })
        .expect("the refused read of the token file is logged");
    assert_eq!(refusal["error"], "refused");
    assert!(
        lines.iter().any(|l| l["client"].is_string()),
        "client names are logged"
    );
}

#[test]
fn python_sdk_over_stdio() {
    let f = fixture();
    let vault = f.vault.path().to_str().unwrap();
    let Some(r) = python_client(
        &[
            "stdio",
            env!("CARGO_BIN_EXE_agentero"),
            vault,
            "auto",
            "suite",
        ],
        Duration::from_secs(180),
    ) else {
        return;
    };
    assert_eq!(r["tools"].as_array().unwrap().len(), 6);
    let r = python_client(
        &[
            "stdio",
            env!("CARGO_BIN_EXE_agentero"),
            vault,
            "legacy",
            "suite",
        ],
        Duration::from_secs(180),
    )
    .unwrap();
    assert_ne!(r["protocol"], "2026-07-28");
    let log = std::fs::read_to_string(f.vault.path().join(".agentero/serve/usage.jsonl")).unwrap();
    assert!(log.lines().all(|l| l.contains("\"transport\":\"stdio\"")));
}

#[test]
fn fifty_concurrent_clients_make_a_hundred_calls_each() {
    let f = fixture();
    let s = serve(f.vault.path());
    let Some(r) = python_client(
        &["http", &s.url, &s.token, "auto", "concurrency"],
        Duration::from_secs(600),
    ) else {
        return;
    };
    assert_eq!(r["calls"], 5000, "{r}");
    assert_eq!(r["errors"], 0, "{r}");
}

/// MCP Inspector's CLI: the exit status and the parsed JSON it printed.
fn inspector_cli(bin: &Path, home: &Path, args: &[&str]) -> (i32, Value, String) {
    let mut cmd = Command::new(bin);
    cmd.arg("--cli").args(args).env("HOME", home);
    let (status, out, err) = run_limited(cmd, Duration::from_secs(120));
    let start = out.find('{').unwrap_or(out.len());
    let json = serde_json::Deserializer::from_str(&out[start..])
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok)
        .unwrap_or(Value::Null);
    (status.code().unwrap_or(-1), json, format!("{out}\n{err}"))
}

#[test]
fn mcp_inspector_over_http_and_stdio() {
    let Some(bin) = inspector() else {
        return;
    };
    let f = fixture();
    let s = serve(f.vault.path());
    let home = tempfile::tempdir().unwrap();
    let auth = format!("Authorization: Bearer {}", s.token);
    let vault = f.vault.path().to_str().unwrap();
    let exe = env!("CARGO_BIN_EXE_agentero");
    let http = |args: &[&str]| {
        let mut all = vec![
            s.url.as_str(),
            "--transport",
            "http",
            "--header",
            auth.as_str(),
        ];
        all.extend_from_slice(args);
        inspector_cli(&bin, home.path(), &all)
    };
    let stdio = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--", exe, "serve", "--stdio", "--refresh", "0", vault]);
        inspector_cli(&bin, home.path(), &all)
    };
    for run in [&http as &dyn Fn(&[&str]) -> (i32, Value, String), &stdio] {
        // --strict: every schema portable, no warning.
        let (code, v, all) = run(&["--method", "tools/list", "--strict"]);
        assert_eq!(code, 0, "{all}");
        assert!(!all.contains("Warning"), "{all}");
        let tools = v["tools"].as_array().unwrap();
        assert_eq!(tools.len(), 6, "{v}");
        assert!(tools.iter().all(|t| t["outputSchema"]["type"] == "object"));
        let (code, v, all) = run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "vault_search",
            "--tool-arg",
            "query=gutter",
        ]);
        assert_eq!(code, 0, "{all}");
        assert!(
            !v["structuredContent"]["cards"]
                .as_array()
                .unwrap()
                .is_empty(),
            "{v}"
        );
        let (code, v, all) = run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "paper_read",
            "--tool-arg",
            "path=papers/layoutflow/paper.pdf",
            "mode=page",
            "page=1",
        ]);
        assert_eq!(code, 0, "{all}");
        assert_eq!(v["structuredContent"]["next"]["page"], 2, "{v}");
        let (code, v, all) = run(&[
            "--method",
            "tools/call",
            "--tool-name",
            "locate_quote",
            "--tool-arg",
            "quote=A gutter is a vertical strip of whitespace",
        ]);
        assert_eq!(code, 0, "{all}");
        assert_eq!(
            v["structuredContent"]["matches"][0]["path"], "papers/layoutflow/paper.pdf",
            "{v}"
        );
        for args in [
            [
                "--tool-name",
                "file_read",
                "--tool-arg",
                "path=.agentero/serve-token",
            ],
            ["--tool-name", "file_read", "--tool-arg", "path=.secret.md"],
            [
                "--tool-name",
                "paper_read",
                "--tool-arg",
                "path=../outside.md",
            ],
        ] {
            let mut a = vec!["--method", "tools/call"];
            a.extend_from_slice(&args);
            let (code, v, all) = run(&a);
            assert_ne!(code, 0, "{all}");
            assert_eq!(v["isError"], true, "{all}");
            assert!(
                !all.contains("TOP-SECRET") && !all.contains("agt_"),
                "{all}"
            );
        }
        let (code, v, all) = run(&["--method", "resources/list"]);
        assert_eq!(code, 0, "{all}");
        assert_eq!(v["resources"].as_array().unwrap().len(), 8, "{v}");
        let (code, v, all) = run(&[
            "--method",
            "resources/read",
            "--uri",
            "agentero://vault/papers/layoutflow/paper.pdf?page=1",
        ]);
        assert_eq!(code, 0, "{all}");
        assert!(
            v["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("LayoutFlow"),
            "{v}"
        );
    }
    // Without the token, or from a foreign origin, the Inspector cannot connect.
    let (code, _, all) = inspector_cli(
        &bin,
        home.path(),
        &[&s.url, "--transport", "http", "--method", "tools/list"],
    );
    assert_ne!(code, 0, "{all}");
    let (code, _, all) = inspector_cli(
        &bin,
        home.path(),
        &[
            &s.url,
            "--transport",
            "http",
            "--header",
            &auth,
            "--header",
            "Origin: http://evil.example",
            "--method",
            "tools/list",
        ],
    );
    assert_ne!(code, 0, "{all}");
}

#[test]
fn corpus_long_manual_paging_and_pdftotext_quotes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    if python().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, dir.path());
    let out = common::agentero(&["index", dir.path().to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    let s = serve(dir.path());
    let manual = "papers/the-latex3-interfaces/paper.pdf";
    let r = python_client(
        &["http", &s.url, &s.token, "auto", "manual", manual],
        Duration::from_secs(600),
    )
    .unwrap();
    assert!(r["pages"].as_u64().unwrap() >= 345, "{r}");
    assert!(r["full_steps"].as_u64().unwrap() > 10, "{r}");
    assert!(
        r["longest_text"].as_u64().unwrap() <= 20_000,
        "every step within the per-call budget: {r}"
    );

    // Quotes from pdftotext (another extractor) of corpus pages: the right paper and page.
    let vault = agentero::vault::Vault::open(dir.path()).unwrap();
    let catalog = vault.catalog();
    let mut cases = Vec::new();
    for (path, e) in &catalog.entries {
        if e.kind != agentero::vault::EntryKind::Paper
            || e.status != agentero::vault::Status::Indexed
        {
            continue;
        }
        let pdf = dir.path().join(path);
        let pages: Vec<u32> = if e.units > 40 {
            (1..=e.units).step_by((e.units / 12) as usize).collect()
        } else {
            (1..=e.units.min(6)).collect()
        };
        for n in pages {
            if let Some(q) = common::pdftotext_quote(&pdf, n) {
                cases.push(serde_json::json!({"paper": path, "page": n, "quote": q}));
            }
        }
    }
    assert!(cases.len() >= 40, "only {} quotes", cases.len());
    let file = dir.path().join("quotes.json");
    std::fs::write(&file, serde_json::to_string(&cases).unwrap()).unwrap();
    let r = python_client(
        &[
            "http",
            &s.url,
            &s.token,
            "auto",
            "quotes",
            file.to_str().unwrap(),
        ],
        Duration::from_secs(600),
    )
    .unwrap();
    let hits = r["hits"].as_u64().unwrap() as f64;
    let n = r["cases"].as_u64().unwrap() as f64;
    eprintln!(
        "locate_quote: {hits}/{n} right paper and page; misses: {}",
        r["misses"]
    );
    assert!(hits / n >= 0.95, "{hits}/{n}: {}", r["misses"]);
}

/// What the terminal app uses to toggle the vault MCP: start on its runtime, address, running
/// state, stop.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_api_starts_and_stops_a_server() {
    use agentero::mcp::http::{HttpOptions, VaultMcp};
    let f = fixture();
    let vault = agentero::vault::Vault::open(f.vault.path()).unwrap();
    let opts = HttpOptions {
        port: 0,
        ..HttpOptions::default()
    };
    let server = VaultMcp::start(vault.clone(), opts.clone()).await.unwrap();
    assert!(server.is_running());
    let addr = server.addr();
    assert!(addr.ip().is_loopback() && addr.port() != 0);
    assert_eq!(
        server.url(),
        format!("http://127.0.0.1:{}/mcp", addr.port())
    );
    let token = agentero::mcp::http::ensure_token(&vault).unwrap();
    let port = addr.port();
    let (code, _) = tokio::task::spawn_blocking(move || {
        raw_http(
            port,
            &[
                ("Host", &format!("127.0.0.1:{port}")),
                ("Authorization", &format!("Bearer {token}")),
            ],
            "/mcp",
            INIT,
        )
    })
    .await
    .unwrap();
    assert_eq!(code, 200);
    // The port is taken while it runs: a second server on it fails with a clear error.
    let busy = VaultMcp::start(vault.clone(), HttpOptions { port, ..opts }).await;
    let err = busy.err().expect("the port is in use").to_string();
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
    tokio::time::timeout(Duration::from_secs(10), server.stop())
        .await
        .expect("stops within 10 s");
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

/// `serve --print-config gemini` handed to the real Gemini CLI (installed by `.ci/run` with the
/// ACP adapters): its settings take the snippet as it is, and `gemini mcp list` starts our
/// server over stdio and lists it connected.
#[test]
fn the_printed_gemini_config_connects_in_the_real_gemini_cli() {
    let Some(dir) = std::env::var_os("AGENTERO_ADAPTERS") else {
        common::skip::missing(common::skip::Peer::Adapters, "Gemini CLI reads the config");
        return;
    };
    let gemini = Path::new(&dir).join("node_modules/.bin/gemini");
    assert!(gemini.is_file(), "{} is not installed", gemini.display());
    let vault = common::demo_vault();
    let home = tempfile::tempdir().unwrap();
    let out = common::command(vault.path())
        .args([
            "serve",
            vault.path().to_str().unwrap(),
            "--print-config",
            "gemini",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    std::fs::create_dir_all(home.path().join(".gemini")).unwrap();
    std::fs::write(home.path().join(".gemini/settings.json"), &out.stdout).unwrap();
    let mut cmd = Command::new(&gemini);
    cmd.args(["mcp", "list"])
        .current_dir(home.path())
        .env("HOME", home.path())
        // This throwaway folder is trusted for the one run (servers of untrusted folders are
        // listed as disabled and never started).
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    let listed = common::output_within(cmd, Duration::from_secs(120));
    let text = format!("{}{}", common::stdout(&listed), common::stderr(&listed));
    let line = text
        .lines()
        .find(|l| l.contains("agentero:"))
        .unwrap_or_else(|| panic!("not listed: {text}"));
    assert!(line.contains("serve --stdio"), "{line}");
    assert!(line.contains("Connected"), "{text}");
}
