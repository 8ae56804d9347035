//! The real agents on the path a user of docs/configuration.md takes, only the model API
//! scripted on 127.0.0.1:
//!
//! - Gemini CLI logged in with `GEMINI_API_KEY` alone (no `GOOGLE_GEMINI_BASE_URL`, which
//!   would switch it to the gateway login): it talks HTTPS to `generativelanguage.googleapis.com`
//!   through `HTTPS_PROXY`, an HTTPS proxy on 127.0.0.1 run by the test (`tls_proxy.py`) that
//!   terminates TLS with a throwaway CA (`NODE_EXTRA_CA_CERTS`) and relays to the scripted
//!   model. The thread's next turn in the same minute, and again after a restart, answers.
//! - Codex with `OPENAI_BASE_URL` (agentero defines its provider): every request is plain HTTP
//!   (no WebSocket attempts), and a native edit (`apply_patch`) is refused by Codex's own
//!   sandbox while the turn completes with an answer and nothing is written.
//! - `agentero serve` over HTTP used by the real Gemini CLI as an MCP client
//!   (`gemini mcp add --transport http`, then `gemini -p`): the vault tool's result reaches the
//!   model.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::model_api::{ModelServer, Reply, Script, Turn};
use super::{Agent, LAYOUTFLOW, LIMIT, Rig, adapters, common, scripted, wait_for_the_next_minute};

const GEMINI_HOST: &str = "generativelanguage.googleapis.com";

/// Fails under `CI`, else says why the test cannot run and skips it.
fn cannot_run(peer: common::skip::Peer, why: &str) {
    common::skip::missing(peer, why);
}

fn python() -> PathBuf {
    std::env::var_os("AGENTERO_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

fn run_ok(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map(|o| {
            if !o.status.success() {
                eprintln!("{cmd:?}: {}", String::from_utf8_lossy(&o.stderr));
            }
            o.status.success()
        })
        .unwrap_or(false)
}

/// The HTTPS proxy for one host, with its throwaway CA (killed on drop).
struct TlsRoute {
    child: Child,
    port: u16,
    ca: PathBuf,
    log: PathBuf,
}

impl Drop for TlsRoute {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TlsRoute {
    /// A CA and a certificate for `host` made with the openssl CLI in `dir`, and the proxy
    /// relaying `host`'s TLS to `upstream` on 127.0.0.1. `None` (said) when openssl or Python
    /// is missing.
    fn start(dir: &Path, host: &str, upstream: u16) -> Option<TlsRoute> {
        std::fs::create_dir_all(dir).unwrap();
        let f = |n: &str| dir.join(n);
        let ssl = |args: &[&str]| run_ok(Command::new("openssl").args(args).current_dir(dir));
        if Command::new("openssl").arg("version").output().is_err() {
            cannot_run(common::skip::Peer::Openssl, "it makes the throwaway CA");
            return None;
        }
        std::fs::write(
            f("leaf.ext"),
            format!(
                "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n\
                 extendedKeyUsage=serverAuth\nsubjectAltName=DNS:{host}\n"
            ),
        )
        .unwrap();
        let made = ssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=agentero test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]) && ssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "leaf.key",
            "-out",
            "leaf.csr",
            "-subj",
            &format!("/CN={host}"),
        ]) && ssl(&[
            "x509",
            "-req",
            "-in",
            "leaf.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "leaf.pem",
            "-days",
            "2",
            "-extfile",
            "leaf.ext",
        ]);
        assert!(made, "openssl could not make the test certificates");
        let log = f("proxy.log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real_agents/tls_proxy.py");
        let mut child = match Command::new(python())
            .arg(&script)
            .arg(host)
            .arg(f("leaf.pem"))
            .arg(f("leaf.key"))
            .arg(upstream.to_string())
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                cannot_run(common::skip::Peer::Python, &format!("the HTTPS proxy: {e}"));
                return None;
            }
        };
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the proxy prints its port");
        Some(TlsRoute {
            child,
            port,
            ca: f("ca.pem"),
            log,
        })
    }

    fn connects(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

fn minute(t: u64) -> u64 {
    t / 60
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The thread's `state.json`.
fn state(rig: &Rig, thread: &str) -> Value {
    let p = rig
        .root()
        .join(".agentero/chats")
        .join(thread)
        .join("state.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// Gemini's recordings of a session (`~/.gemini/tmp/<project>/chats/session-*-<id8>.jsonl`).
fn recordings(home: &Path, session: &str) -> Vec<PathBuf> {
    let id8: String = session.chars().take(8).collect();
    let mut out = Vec::new();
    let mut stack = vec![home.join(".gemini")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("session-") && n.ends_with(&format!("-{id8}.jsonl")))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn assert_answered(v: &Value, what: &str) {
    assert_eq!(v["stopReason"], "end_turn", "{what}: {v}");
    let answer = v["answer"].as_str().unwrap_or_default();
    assert!(answer.contains("The paper says: \""), "{what}: {v}");
}

/// The prompt the model got for the question containing `needle` (the last such turn).
fn prompt_of(model: &ModelServer, needle: &str) -> String {
    model
        .turns()
        .into_iter()
        .rev()
        .find(|t| t.prompt.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} never reached the model"))
        .prompt
}

#[test]
fn gemini_with_only_its_api_key_answers_the_next_turn_in_the_same_minute_and_after_a_restart() {
    let Some(bin) = adapters() else {
        return;
    };
    let rig = Rig::new(Agent::Gemini, &bin);
    let Some(route) = TlsRoute::start(&rig.home.join("tls"), GEMINI_HOST, rig.model.port) else {
        return;
    };
    let proxy = format!("http://127.0.0.1:{}", route.port);
    let ca = route.ca.clone();
    // Exactly the login docs/configuration.md gives: the key, nothing else; the network is the
    // proxy.
    let readme_user = move |cmd: &mut Command| {
        for v in [
            "GOOGLE_GEMINI_BASE_URL",
            "GOOGLE_CLOUD_PROJECT",
            "GOOGLE_GENAI_USE_VERTEXAI",
            "HTTP_PROXY",
            "http_proxy",
            "https_proxy",
            "NO_PROXY",
            "no_proxy",
        ] {
            cmd.env_remove(v);
        }
        cmd.env("HTTPS_PROXY", &proxy)
            .env("NODE_EXTRA_CA_CERTS", &ca);
    };
    // Two turns within one minute: start early in a minute.
    if unix_now() % 60 > 30 {
        wait_for_the_next_minute();
    }
    let q1 = format!("What is the reading order of a page? @{LAYOUTFLOW}");
    let v1 = rig.ask_with(&q1, None, &readme_user);
    assert_answered(&v1, "turn 1");
    assert_eq!(v1["session"], "new", "{v1}");
    assert!(
        route
            .connects()
            .contains(&format!("CONNECT {GEMINI_HOST}:443")),
        "gemini-cli did not go through the HTTPS proxy:\n{}",
        route.connects()
    );
    let thread = v1["threadId"].as_str().unwrap().to_string();
    let s1 = v1["sessionId"].as_str().unwrap().to_string();
    let opened = state(&rig, &thread)["openedAt"]
        .as_u64()
        .expect("the session's opening time is recorded");
    let before = recordings(&rig.home, &s1);
    eprintln!("gemini recordings of {s1}: {before:?}");

    // 2. `ask --thread` in the same minute: a second process must not load the session (that
    // would overwrite its recording); the turn answers in a new session given the thread.
    let t2 = unix_now();
    let q2 = format!("And in two columns? @{LAYOUTFLOW}");
    let v2 = rig.ask_with(&q2, Some(&thread), &readme_user);
    assert_answered(&v2, "turn 2, same minute");
    assert_eq!(v2["session"], "new", "{v2}");
    assert_ne!(v2["sessionId"], v1["sessionId"]);
    let notices = v2["notices"].to_string();
    if minute(t2) == minute(opened) {
        assert!(
            notices.contains("was not asked to reopen"),
            "the same-minute load was not avoided: {notices}"
        );
        eprintln!("turn 2 ran in the minute the session was opened: {notices}");
    } else {
        eprintln!("the minute turned before turn 2 (a slow machine): {notices}");
    }
    assert!(
        prompt_of(&rig.model, "And in two columns?")
            .contains("What is the reading order of a page?"),
        "the new session was not given the conversation"
    );
    let after = recordings(&rig.home, &s1);
    assert_eq!(before, after, "the first session's recordings changed");
    for p in &after {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.contains("What is the reading order of a page?"),
            "{} lost the first turn:\n{text}",
            p.display()
        );
    }

    // 3. A restart in a later minute (the terminal app reopening the thread): the turn
    // answers, whether gemini-cli loads the session or agentero seeds a new one.
    wait_for_the_next_minute();
    let q3 = format!("Which figure shows it? @{LAYOUTFLOW}");
    let v3 = rig.ask_with(&q3, Some(&thread), &readme_user);
    assert_answered(&v3, "turn 3, after a restart");
    eprintln!(
        "turn 3: session {} · notices {}",
        v3["session"], v3["notices"]
    );
    if v3["session"] == "new" {
        assert!(
            prompt_of(&rig.model, "Which figure shows it?").contains("And in two columns?"),
            "the new session was not given the conversation"
        );
    } else {
        assert_eq!(v3["sessionId"], v2["sessionId"], "{v3}");
    }
    let log =
        std::fs::read_to_string(rig.root().join(".agentero/logs/agentero.log")).unwrap_or_default();
    assert!(!log.contains("needs a login"), "{}", rig.log_tail());
}

/// A patch that adds a file to the vault (absolute path) and one to the session's folder.
fn patch(vault: &Path) -> String {
    format!(
        "*** Begin Patch\n*** Add File: {}\n+written by the model\n*** Add File: agentero-patched.txt\n\
         +written by the model\n*** End Patch\n",
        vault.join("notes/patched-by-codex.md").display()
    )
}

#[test]
fn codex_attempting_apply_patch_completes_with_an_answer_and_writes_nothing() {
    let Some(bin) = adapters() else {
        return;
    };
    let vault_slot: Arc<std::sync::OnceLock<PathBuf>> = Arc::default();
    let slot = vault_slot.clone();
    let base = scripted(Agent::Codex);
    let script: Script = Arc::new(move |t: &Turn| {
        if !t.prompt.contains("[patch]") {
            return base(t);
        }
        match t.results.first() {
            None => Reply::Call {
                tool: "apply_patch".into(),
                args: Value::String(patch(slot.get().expect("the vault is set"))),
            },
            Some(r) => Reply::Text(format!("The edit was not made: {}", r.text)),
        }
    });
    let rig = Rig::with_script(Agent::Codex, &bin, script);
    vault_slot.set(rig.root().to_path_buf()).unwrap();
    let v = rig.ask(&format!("[patch] Fix the notes. @{LAYOUTFLOW}"), None);
    assert_eq!(v["stopReason"], "end_turn", "{v}");
    let answer = v["answer"].as_str().unwrap_or_default();
    assert!(answer.starts_with("The edit was not made: "), "{v}");
    let offered = &rig.model.turns()[0].tools;
    assert!(
        offered.iter().any(|t| t == "apply_patch"),
        "codex did not offer apply_patch: {offered:?}"
    );
    eprintln!("codex's answer to the patch: {answer}");
    assert!(!rig.root().join("notes/patched-by-codex.md").exists());
    // The session's working folder is outside the vault: the test's HOME lies inside it, so
    // agentero's private temp folder (`/tmp/agentero-<uid>/agent-work/sessions/<runtime>`).
    let uid = rustix::process::getuid().as_raw();
    let work = std::env::temp_dir().join(format!("agentero-{uid}/agent-work/sessions"));
    let sessions = rig.root().join(".agentero/context-sessions");
    let written: Vec<PathBuf> = walk(&sessions)
        .into_iter()
        .chain(walk(&work))
        .filter(|p| p.ends_with("agentero-patched.txt"))
        .collect();
    assert!(written.is_empty(), "the patch wrote {written:?}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn codex_through_openai_base_url_goes_straight_to_http() {
    let Some(bin) = adapters() else {
        return;
    };
    let rig = Rig::new(Agent::Codex, &bin);
    // No provider of the test's own: agentero defines one from OPENAI_BASE_URL.
    std::fs::write(rig.home.join(".codex/config.toml"), "model = \"gpt-5.4\"\n").unwrap();
    let url = format!("{}/v1", rig.model.url());
    let t = Instant::now();
    let v = rig.ask_with(
        &format!("What is the reading order of a page? @{LAYOUTFLOW}"),
        None,
        &|cmd: &mut Command| {
            cmd.env("OPENAI_BASE_URL", &url);
        },
    );
    let secs = t.elapsed().as_secs_f64();
    assert_answered(&v, "codex via OPENAI_BASE_URL");
    let requests = rig.model.requests.lock().unwrap().clone();
    let lines: Vec<String> = requests
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    eprintln!("codex first turn {secs:.1} s; requests: {lines:?}");
    assert!(
        requests.iter().all(|r| r.method == "POST"),
        "codex tried something other than plain HTTP POSTs (a WebSocket?): {lines:?}"
    );
    assert!(lines[0].ends_with("/v1/responses"), "{lines:?}");
}

/// `agentero serve` on a free port (killed on drop), and its token.
struct Served {
    child: Child,
    url: String,
    token: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(rig: &Rig) -> Served {
    let vault = rig.root().to_str().unwrap();
    let mut child = rig
        .command(&["serve", vault, "--port", "0", "--refresh", "0"], false)
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
        .recv_timeout(Duration::from_secs(60))
        .expect("the server prints its URL");
    let out = rig.run(&["serve", vault, "--token"], false);
    assert!(out.status.success(), "{}", common::stderr(&out));
    Served {
        child,
        url,
        token: common::stdout(&out).trim().to_string(),
    }
}

#[test]
fn gemini_cli_uses_agentero_serve_over_http_as_an_mcp_client() {
    let Some(bin) = adapters() else {
        return;
    };
    // The model searches the vault through the served tool, then answers with what it got.
    let script: Script = Arc::new(
        |t: &Turn| match (t.tool("vault_search"), t.results.first()) {
            (Some(tool), None) => Reply::Call {
                tool,
                args: json!({"query": "reading order of columns"}),
            },
            (_, Some(r)) => Reply::Text(format!(
                "From the vault: {}",
                r.text.chars().take(300).collect::<String>()
            )),
            (None, None) => Reply::Text(format!("no vault tool among {:?}", t.tools)),
        },
    );
    let rig = Rig::with_script(Agent::Gemini, &bin, script);
    let served = serve(&rig);
    // `gemini -p` with only the key, as docs/configuration.md runs it (a gateway base URL is
    // refused there: "Invalid auth method selected").
    let Some(route) = TlsRoute::start(&rig.home.join("tls"), GEMINI_HOST, rig.model.port) else {
        return;
    };
    let gemini = bin.join("gemini");
    let cwd = rig.home.join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let gemini_cmd = |args: &[&str]| {
        let mut c = Command::new(&gemini);
        c.args(args)
            .current_dir(&cwd)
            .env("HOME", &rig.home)
            .env("GEMINI_API_KEY", "gemini-test")
            .env_remove("GOOGLE_GEMINI_BASE_URL")
            .env("HTTPS_PROXY", format!("http://127.0.0.1:{}", route.port))
            .env("NODE_EXTRA_CA_CERTS", &route.ca)
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for v in [
            "HTTP_PROXY",
            "http_proxy",
            "https_proxy",
            "NO_PROXY",
            "no_proxy",
        ] {
            c.env_remove(v);
        }
        c
    };
    // As docs/mcp.md says.
    let auth = format!("Authorization: Bearer {}", served.token);
    let out = common::output_within(
        gemini_cmd(&[
            "mcp",
            "add",
            "--scope",
            "user",
            "--transport",
            "http",
            "--trust",
            "--header",
            &auth,
            "papers",
            &served.url,
        ]),
        LIMIT,
    );
    assert!(
        out.status.success(),
        "gemini mcp add: {}\n{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    let out = common::output_within(
        gemini_cmd(&[
            "-p",
            "What is the reading order of a page? Search my papers.",
        ]),
        LIMIT,
    );
    let (so, se) = (common::stdout(&out), common::stderr(&out));
    assert!(out.status.success(), "gemini -p: {so}\n{se}");
    assert!(
        !se.contains("Unexpected end of JSON input"),
        "gemini's MCP client choked on the stream: {se}"
    );
    let turns = rig.model.turns();
    let with_result = turns
        .iter()
        .find(|t| !t.results.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "no tool result reached the model; offered {:?}\n{se}",
                turns.first().map(|t| &t.tools)
            )
        });
    let result = &with_result.results[0].text;
    assert!(
        result.contains("papers/layoutflow/paper.pdf"),
        "the served search's result did not reach the model: {result}"
    );
    assert!(so.contains("From the vault:"), "{so}");
    let usage =
        std::fs::read_to_string(rig.root().join(".agentero/serve/usage.jsonl")).unwrap_or_default();
    assert!(usage.contains("\"vault_search\""), "{usage}");
}

#[test]
fn codex_uses_agentero_serve_over_http_as_the_readme_configures_it() {
    let Some(bin) = adapters() else {
        return;
    };
    // The model searches through the served server's tool (whatever its namespace), then
    // answers with what it got.
    let script: Script = Arc::new(|t: &Turn| {
        let served = t
            .tools
            .iter()
            .find(|n| n.contains("papers") && n.ends_with("vault_search"))
            .cloned();
        match (served, t.results.first()) {
            (Some(tool), None) => Reply::Call {
                tool,
                args: json!({"query": "reading order of columns"}),
            },
            (_, Some(r)) => Reply::Text(format!(
                "From the vault: {}",
                r.text.chars().take(300).collect::<String>()
            )),
            (None, None) => Reply::Text(format!("no served tool among {:?}", t.tools)),
        }
    });
    let rig = Rig::with_script(Agent::Codex, &bin, script);
    let served = serve(&rig);
    // docs/mcp.md's snippet, added to the (throwaway) Codex config.
    let config = rig.home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[mcp_servers.papers-http]\nurl = \"{}\"\nbearer_token_env_var = \"AGENTERO_TOKEN\"\n",
        served.url
    ));
    std::fs::write(&config, text).unwrap();
    let token = served.token.clone();
    let v = rig.ask_with(
        "What is the reading order of a page? Search my papers.",
        None,
        &|cmd: &mut Command| {
            cmd.env("AGENTERO_TOKEN", &token);
        },
    );
    let answer = v["answer"].as_str().unwrap_or_default();
    eprintln!(
        "codex through the served vault: {}",
        answer.chars().take(200).collect::<String>()
    );
    assert_eq!(v["stopReason"], "end_turn", "{v}");
    assert!(answer.starts_with("From the vault: "), "{v}");
    assert!(answer.contains("papers/layoutflow/paper.pdf"), "{v}");
    let usage =
        std::fs::read_to_string(rig.root().join(".agentero/serve/usage.jsonl")).unwrap_or_default();
    assert!(usage.contains("\"vault_search\""), "{usage}");
}

#[test]
fn the_doctor_tests_new_load_and_resume_of_each_real_agent() {
    let Some(bin) = adapters() else {
        return;
    };
    for agent in [Agent::Claude, Agent::Gemini, Agent::Codex] {
        let name = agent.name();
        let rig = Rig::new(agent, &bin);
        let root = rig.root().to_str().unwrap().to_string();
        let out = rig.run(&["agents", "--json", "--vault", &root, name], true);
        let text = common::stdout(&out);
        assert!(
            out.status.success(),
            "{name}: {text}\n{}",
            common::stderr(&out)
        );
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let r = &v[0];
        eprintln!("{name}: {r}");
        assert_eq!(r["found"], true, "{name}: {r}");
        assert!(
            r["version"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: {r}"
        );
        assert!(r["protocol"].is_u64(), "a JSON number: {name}: {r}");
        assert!(r["auth_methods"].is_array(), "{name}: {r}");
        assert_eq!(r["session"]["state"], "ok", "{name}: {r}");
        assert_eq!(
            r["attach"]["state"], "ok",
            "{name}: the context server: {r}"
        );
        for step in ["load", "resume"] {
            let state = r[step]["state"].as_str().unwrap_or_default();
            assert!(
                ["ok", "refused", "not_offered"].contains(&state),
                "{name} {step}: {r}"
            );
            if state == "refused" {
                assert!(
                    r[step]["message"].is_string(),
                    "{name} {step}: the agent's words: {r}"
                );
            }
        }
        // The text report says the same, step by step.
        let out = rig.run(&["agents", "--vault", &root, name], true);
        let report = common::stdout(&out);
        for label in ["session: ok", "attach: ok", "load: ", "resume: "] {
            assert!(report.contains(label), "{name}: {report}");
        }
        assert!(report.starts_with(&format!("✓ {name}")), "{report}");
    }

    // A missing adapter is a dash, not a tick.
    let rig = Rig::new(Agent::Gemini, &bin);
    let root = rig.root().to_str().unwrap().to_string();
    let out = common::output_within(
        {
            let mut c = rig.command(&["agents", "--vault", &root, "gemini"], true);
            c.env("PATH", "/nonexistent");
            c
        },
        LIMIT,
    );
    let report = common::stdout(&out);
    assert!(report.starts_with("– gemini"), "{report}");
    assert!(!report.contains('✓'), "{report}");

    // Claude Code as root without IS_SANDBOX=1 works in agentero's setup (it refuses root
    // only where it would skip its permission checks): no false alarm from the doctor, and a
    // turn answers. (The advice for its "Query closed" error is unit tested in adapters/claude.rs.)
    let root_user = std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    if !root_user {
        eprintln!("not root: Claude Code as root is not checked");
        return;
    }
    let rig = Rig::new(Agent::Claude, &bin);
    let root = rig.root().to_str().unwrap().to_string();
    let mut c = rig.command(&["agents", "--json", "--vault", &root, "claude"], true);
    c.env_remove("IS_SANDBOX");
    let out = common::output_within(c, LIMIT);
    let text = common::stdout(&out);
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(out.status.success(), "{text}");
    assert!(!v[0]["hint"].to_string().contains("IS_SANDBOX"), "{}", v[0]);
    let q = format!("What is the reading order of a page? @{LAYOUTFLOW}");
    let v = rig.ask_with(&q, None, &|c: &mut Command| {
        c.env_remove("IS_SANDBOX");
    });
    assert_answered(&v, "claude as root without IS_SANDBOX");
}
