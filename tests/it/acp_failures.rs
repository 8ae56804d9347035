//! Failing agents, as real processes (the built-in agent with its documented test hooks,
//! `AGENTERO_BUILTIN_FAULT`): a missing command, a refused `initialize`, authentication, a
//! crash mid-turn, a hang (cancel, then the time limit), one that never connects its MCP
//! server (fallback), `session/load` when resume is not offered, a kill of `ask` mid-turn
//! followed by a restart, and an agent that asks permission to write outside the grant. Each gives a clear error or the fallback, and the transcript stays
//! intact.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agentero::acp::transcript::{Line, Thread};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

const QUESTION: &str = "What is the reading order of a page? @papers/";

fn fixture() -> tempfile::TempDir {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let agents = [
        ("crashy", "crash"),
        ("hangs", "hang"),
        ("nomcp", "no-mcp"),
        ("badinit", "init-fail"),
        ("locked", "auth"),
        ("loader", "load-only"),
        ("loadauth", "load-auth"),
        ("asks", "ask-permission"),
        ("native", "ask-native"),
    ];
    let mut cfg = String::from("[agents.missing]\ncommand = \"agentero-no-such-agent\"\n\n");
    for (name, fault) in agents {
        cfg.push_str(&format!(
            "[agents.{name}]\ncommand = {:?}\nargs = [\"--builtin-agent\"]\nenv = {{ AGENTERO_BUILTIN_FAULT = \"{fault}\" }}\n\n",
            env!("CARGO_BIN_EXE_agentero")
        ));
    }
    std::fs::write(dir.path().join("agents.toml"), cfg).unwrap();
    dir
}

fn command(root: &Path, args: &[&str]) -> Command {
    let home = root.join(".agentero-test-home");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.arg("ask")
        .arg("--vault")
        .arg(root)
        .arg("--config")
        .arg(root.join("agents.toml"))
        .args(args)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn ask(root: &Path, args: &[&str]) -> Output {
    let child = command(root, args).spawn().unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(o) => o.unwrap(),
        Err(_) => {
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("ask did not finish in time");
        }
    }
}

fn thread_of(out: &Output) -> String {
    let err = common::stderr(out);
    err.lines()
        .find_map(|l| l.strip_prefix("thread: "))
        .unwrap_or_else(|| panic!("no thread id in: {err}"))
        .to_string()
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}\n{}",
        common::stderr(out),
        common::stdout(out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_missing_command_names_the_agent_and_what_to_install() {
    let dir = fixture();
    let out = ask(dir.path(), &["--agent", "missing", QUESTION]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("agent missing") && err.contains("agentero-no-such-agent"),
        "{err}"
    );
    assert!(
        err.contains("npx -y @zed-industries/claude-agent-acp") && err.contains("`gemini --acp`"),
        "{err}"
    );
    let out = ask(dir.path(), &["--agent", "nobody", QUESTION]);
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("unknown agent \"nobody\""),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn a_refused_initialize_and_authentication_are_clear_errors() {
    let dir = fixture();
    let out = ask(dir.path(), &["--agent", "badinit", QUESTION]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("agent badinit refused `initialize`") && err.contains("initialize refused"),
        "{err}"
    );

    let out = ask(dir.path(), &["--agent", "locked", QUESTION]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("agent locked needs a login: Authentication required"),
        "{err}"
    );
    assert!(
        err.contains("Test key") && err.contains("AGENTERO_TEST_KEY"),
        "{err}"
    );
}

#[test]
fn a_crash_mid_turn_is_an_error_and_the_transcript_stays_intact() {
    let dir = fixture();
    let out = ask(dir.path(), &["--agent", "crashy", QUESTION]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("agent crashy stopped during the turn"),
        "{err}"
    );
    let id = thread_of(&out);
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, &id).unwrap();
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert!(matches!(t.lines.first(), Some(Line::User { .. })));
    assert!(t.lines.iter().any(
        |l| matches!(l, Line::Agent { text, .. } if text.contains("From the granted sources"))
    ));
    assert!(
        matches!(t.lines.last(), Some(Line::Error { message, .. }) if message.contains("stopped"))
    );
    // The thread goes on with a working agent.
    let v = json(&ask(dir.path(), &["--json", "--thread", &id, QUESTION]));
    assert_eq!(v["stopReason"], "end_turn");
}

#[test]
fn a_hanging_agent_is_cancelled_then_stopped_at_the_time_limit() {
    let dir = fixture();
    let started = Instant::now();
    let out = ask(
        dir.path(),
        &["--agent", "hangs", "--timeout", "2", QUESTION],
    );
    let took = started.elapsed();
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("agent hangs did not answer within 2 s"),
        "{err}"
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, &thread_of(&out)).unwrap();
    assert!(t.warnings.is_empty());
    assert!(
        t.lines
            .iter()
            .any(|l| matches!(l, Line::Notice { text, .. } if text.contains("time limit")))
    );
    assert!(matches!(t.lines.last(), Some(Line::Error { .. })));
}

#[test]
fn an_agent_that_never_attaches_falls_back_to_inlined_evidence() {
    let dir = fixture();
    let args = [
        "--json",
        "--agent",
        "nomcp",
        "--paper",
        "papers/layoutflow/paper.pdf",
        "--page",
        "1",
    ];
    let mut first: Vec<&str> = args.to_vec();
    first.push(QUESTION);
    let v = json(&ask(dir.path(), &first));
    assert_eq!(v["mode"], "mcp");
    assert_eq!(v["attached"], false);
    assert!(
        v["notices"][0]
            .as_str()
            .unwrap()
            .contains("never connected"),
        "{v}"
    );
    // Why, and what to do.
    let why = v["notices"][1].as_str().unwrap();
    assert!(
        why.contains("nomcp never started the agentero-context server")
            && why.contains("`agentero agents nomcp`"),
        "{v}"
    );
    let thread = v["threadId"].as_str().unwrap().to_string();
    let mut second: Vec<&str> = args.to_vec();
    second.extend(["--thread", &thread, QUESTION]);
    let v2 = json(&ask(dir.path(), &second));
    assert_eq!(v2["mode"], "prompt_only", "{v2}");
    assert!(
        v2["answer"]
            .as_str()
            .unwrap()
            .contains("I cannot read further"),
        "{v2}"
    );
    assert!(v2["sources"].as_array().unwrap().iter().all(|s| {
        s.as_str()
            .unwrap()
            .starts_with("papers/layoutflow/paper.pdf")
    }));
    // A working agent on the same thread attaches again and the fallback ends.
    let mut third: Vec<&str> = vec![
        "--json",
        "--paper",
        "papers/layoutflow/paper.pdf",
        "--page",
        "1",
    ];
    third.extend(["--thread", &thread, QUESTION]);
    let v3 = json(&ask(dir.path(), &third));
    assert_eq!(v3["attached"], true);
    let v4 = json(&ask(dir.path(), &third));
    assert_eq!(v4["mode"], "mcp", "{v4}");
}

#[test]
fn without_resume_the_session_is_loaded_and_its_replay_not_shown() {
    let dir = fixture();
    let v1 = json(&ask(dir.path(), &["--json", "--agent", "loader", QUESTION]));
    let thread = v1["threadId"].as_str().unwrap().to_string();
    let v2 = json(&ask(
        dir.path(),
        &[
            "--json",
            "--agent",
            "loader",
            "--thread",
            &thread,
            "Columns? @papers/",
        ],
    ));
    assert_eq!(v2["session"], "loaded");
    assert_eq!(v2["sessionId"], v1["sessionId"]);
    assert!(
        !v2["answer"]
            .as_str()
            .unwrap()
            .contains("reading order of a page?"),
        "the replay is suppressed"
    );
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, &thread).unwrap();
    let users = t
        .lines
        .iter()
        .filter(|l| matches!(l, Line::User { .. }))
        .count();
    assert_eq!(users, 2, "the replayed history is not appended again");
}

#[test]
fn a_killed_ask_leaves_a_thread_that_loads_and_continues() {
    let dir = fixture();
    let mut child = command(dir.path(), &["--agent", "hangs", QUESTION])
        .spawn()
        .unwrap();
    let chats = dir.path().join(".agentero/chats");
    let deadline = Instant::now() + Duration::from_secs(60);
    let transcript = loop {
        let found = std::fs::read_dir(&chats)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| e.path().join("transcript.jsonl"));
        if let Some(p) = found
            && std::fs::read_to_string(&p).is_ok_and(|t| t.contains("From the granted sources"))
        {
            break p;
        }
        assert!(Instant::now() < deadline, "the turn never streamed");
        std::thread::sleep(Duration::from_millis(50));
    };
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    let before = std::fs::read_to_string(&transcript).unwrap();
    let complete = before.lines().count();
    let id = transcript
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, &id).unwrap();
    assert_eq!(t.lines.len(), complete, "every completed line loads");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    // Restart on the same thread with a working agent.
    let v = json(&ask(dir.path(), &["--json", "--thread", &id, QUESTION]));
    assert_eq!(v["stopReason"], "end_turn");
    let t = Thread::open(&vault, &id).unwrap();
    assert!(t.lines.len() > complete);
    assert!(t.warnings.is_empty());
}

/// `ask` answers the agent's `session/request_permission` with its read-only policy: a write
/// outside the grant ("edit notes/x.md") is rejected once, the agent says so, and the turn
/// still ends normally with quoted sources.
#[test]
fn asks_read_only_policy_rejects_a_write_outside_the_grant() {
    let dir = fixture();
    // A native write is refused by rule; a tool of another server because nobody can be asked.
    let v = json(&ask(dir.path(), &["--json", "--agent", "native", QUESTION]));
    assert!(
        v["answer"]
            .as_str()
            .unwrap()
            .starts_with("permission: rejected (reject_once)"),
        "{v}"
    );
    let notices = v["notices"].to_string();
    assert!(
        notices.contains("refused edit notes/x.md: a native edit tool is refused"),
        "{notices}"
    );
    let v = json(&ask(dir.path(), &["--json", "--agent", "asks", QUESTION]));
    assert_eq!(v["stopReason"], "end_turn", "{v}");
    assert!(
        v["notices"]
            .to_string()
            .contains("refused publish_note (notes-sync MCP Server): nobody can be asked"),
        "{v}"
    );
    let answer = v["answer"].as_str().unwrap();
    assert!(
        answer.starts_with("permission: rejected (reject_once)"),
        "{answer}"
    );
    assert!(!answer.contains("permission: allowed"), "{answer}");
    assert!(answer.contains("From the granted sources"), "{answer}");
    let sources = v["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{v}");
    assert!(
        sources.iter().any(|s| answer.contains(s.as_str().unwrap())),
        "{v}"
    );
    // Nothing was written: the agent only asked.
    assert!(!dir.path().join("notes/x.md").exists());
    // The transcript holds the answer that reports the refusal.
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, v["threadId"].as_str().unwrap()).unwrap();
    assert!(
        t.lines.iter().any(
            |l| matches!(l, Line::Agent { text, .. } if text.contains("permission: rejected"))
        )
    );
}

/// An agent that answers `session/load` with "Authentication required" though new sessions
/// work (Gemini CLI with only `GEMINI_API_KEY`): the next turn opens a new session seeded with
/// the conversation and answers; it is never reported as a missing login.
#[test]
fn a_refused_load_falls_back_to_a_seeded_new_session_not_a_login_error() {
    let dir = fixture();
    let first = ask(dir.path(), &["--json", "--agent", "loadauth", QUESTION]);
    let v1 = json(&first);
    let thread = v1["threadId"].as_str().unwrap().to_string();
    let second = ask(
        dir.path(),
        &[
            "--json",
            "--agent",
            "loadauth",
            "--thread",
            &thread,
            "Columns? @papers/",
        ],
    );
    let err = common::stderr(&second);
    assert!(second.status.success(), "the second turn failed: {err}");
    assert!(!err.contains("needs a login"), "{err}");
    let v2 = json(&second);
    assert_eq!(v2["session"], "new", "{v2}");
    assert_ne!(v2["sessionId"], v1["sessionId"]);
    assert!(
        !v2["answer"].as_str().unwrap_or("").is_empty(),
        "no answer in the second turn: {v2}"
    );
    let notices = format!("{v2}{err}");
    assert!(
        notices.contains("could not reopen the session"),
        "{notices}"
    );
}
