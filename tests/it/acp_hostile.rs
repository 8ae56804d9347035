//! A hostile ACP agent (`tests/peers/hostile_agent.py`, a real process speaking ACP over
//! stdio) against `agentero ask`: broken lines mid-answer are skipped and the turn completes;
//! `kill -9` of `ask` mid-answer keeps everything that had streamed, and the thread shows the
//! turn as interrupted when it is opened again; look-alikes of our context tools in each real
//! adapter's encoding are refused while the genuine calls recorded from the adapters are
//! allowed; a planted `permissions.json` pre-approves nothing.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentero::acp::transcript::{Line, Thread};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

const QUESTION: &str = "What is the reading order? @papers/layoutflow/paper.pdf";

fn peer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/hostile_agent.py")
}

fn fixture(mode: &str) -> tempfile::TempDir {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let cfg = format!(
        "default_agent = \"hostile\"\n[agents.hostile]\ncommand = \"python3\"\nargs = [{:?}]\nenv = {{ HOSTILE_MODE = \"{mode}\", HOSTILE_LOG = {:?} }}\n",
        peer().display().to_string(),
        dir.path().join("sent.log").display().to_string(),
    );
    std::fs::write(dir.path().join("agents.toml"), cfg).unwrap();
    dir
}

/// The vault with the hostile agent in `permissions` mode, configured as `adapter`.
fn permissions_fixture(adapter: &str) -> tempfile::TempDir {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let cfg = format!(
        "default_agent = \"hostile\"\n[agents.hostile]\ncommand = \"python3\"\nargs = [{:?}]\nadapter = \"{adapter}\"\nenv = {{ HOSTILE_MODE = \"permissions\", HOSTILE_ADAPTER = \"{adapter}\" }}\n",
        peer().display().to_string(),
    );
    std::fs::write(dir.path().join("agents.toml"), cfg).unwrap();
    dir
}

/// `CASE <name> => <answer>` lines of the agent's answer.
fn answers(v: &Value) -> Vec<(String, String)> {
    v["answer"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (name, got) = l.strip_prefix("CASE ")?.split_once(" => ")?;
            Some((name.to_string(), got.to_string()))
        })
        .collect()
}

/// The option ids of the adapters' allow options.
const ALLOWS: [&str; 9] = [
    "allow",
    "allow_always",
    "proceed_once",
    "proceed_always",
    "proceed_always_server",
    "proceed_always_tool",
    "approved",
    "approved-for-session",
    "approved-always",
];

fn ask_json(dir: &Path) -> Value {
    let out = common::output_within(command(dir, true), Duration::from_secs(60));
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn lookalikes_of_our_tools_are_refused_and_the_genuine_calls_allowed() {
    let mut refused = 0;
    for adapter in ["claude", "gemini", "codex"] {
        let dir = permissions_fixture(adapter);
        let v = ask_json(dir.path());
        assert_eq!(v["stopReason"], "end_turn", "{adapter}: {v}");
        let got = answers(&v);
        assert!(got.len() >= 7, "{adapter}: {v}");
        for (name, answer) in &got {
            let allowed = ALLOWS.contains(&answer.as_str());
            if name.starts_with("lookalike:") {
                assert!(!allowed, "{adapter} {name}: allowed ({answer})");
                refused += 1;
            } else if name == "genuine" {
                assert!(
                    allowed,
                    "{adapter}: the genuine call was refused ({answer})"
                );
                // Once, not "always": nothing is remembered for a rule's allow.
                assert!(
                    ["allow", "proceed_once", "approved"].contains(&answer.as_str()),
                    "{answer}"
                );
            } else {
                assert!(!allowed, "{adapter} {name}: allowed ({answer})");
            }
        }
        assert!(got.iter().any(|(n, _)| n == "genuine"), "{adapter}: {v}");
        let notices = v["notices"].to_string();
        assert!(notices.contains("refused"), "{adapter}: {notices}");
        assert!(
            !dir.path().join(".agentero/permissions.json").exists(),
            "{adapter}: ask wrote answers"
        );
    }
    eprintln!("{refused} look-alikes refused through ask, 3 genuine calls allowed");
}

#[test]
fn a_planted_permissions_file_pre_approves_nothing_in_ask() {
    let dir = permissions_fixture("claude");
    let file = dir.path().join(".agentero/permissions.json");
    let program = agentero::acp::client::find_command(Path::new("python3")).unwrap();
    let ours = agentero::acp::permission::command_id(&program, &[peer().display().to_string()]);
    let tool = "mcp:notes-sync/publish_note";
    let entry = |version: u32, from: &str, command: &str| {
        serde_json::json!({"version": version, "answers": [{"agent": "hostile", "command": command,
            "tool": tool, "answer": "allow", "from": from}]})
    };
    let other_server = |v: &Value| {
        answers(v)
            .into_iter()
            .find(|(n, _)| n == "other-server")
            .map(|(_, a)| a)
            .unwrap_or_else(|| panic!("no answer for the other server's tool: {v}"))
    };
    for planted in [
        // The format before answers were bound to a command, allowing everything.
        serde_json::json!({"agents": {"hostile": {tool: "allow", "other:publish_note": "allow"}}}),
        entry(2, "hand", &ours),
        entry(2, "tui", "0000"),
        // Given "in the TUI" for this command, but not signed with the user's key.
        entry(2, "tui", &ours),
        entry(3, "tui", &ours),
    ] {
        std::fs::write(&file, planted.to_string()).unwrap();
        let v = ask_json(dir.path());
        assert_eq!(
            other_server(&v),
            "reject",
            "{planted} pre-approved the tool"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), planted.to_string());
    }
    // An answer given in the TUI for this agent's command, signed with the user's key (kept
    // in the user's state folder, outside the vault), applies (the test can fail).
    let state = dir.path().join(".agentero");
    let key = dir
        .path()
        .join(".agentero-test-home/state/agentero")
        .join(agentero::vault::state::ANSWER_KEY);
    let mut r = agentero::acp::permission::Remembered::load_keyed(&state, &key);
    r.set(
        &state,
        "hostile",
        &ours,
        tool,
        agentero::acp::permission::Remember::Allow,
    )
    .unwrap();
    assert_eq!(other_server(&ask_json(dir.path())), "allow");
    // The same file under another user's key: refused.
    std::fs::remove_file(&key).unwrap();
    agentero::acp::permission::AnswerKey::read_or_create(&key).unwrap();
    assert_eq!(other_server(&ask_json(dir.path())), "reject");
}

fn command(root: &Path, json: bool) -> Command {
    let home = root.join(".agentero-test-home");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.arg("ask")
        .arg("--vault")
        .arg(root)
        .arg("--config")
        .arg(root.join("agents.toml"));
    if json {
        cmd.arg("--json");
    }
    cmd.arg(QUESTION)
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"));
    cmd
}

fn agent_text(t: &Thread) -> String {
    t.lines
        .iter()
        .filter_map(|l| match l {
            Line::Agent { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn broken_agent_lines_are_skipped_and_the_turn_completes() {
    let dir = fixture("garbage");
    let out = common::output_within(command(dir.path(), true), Duration::from_secs(60));
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Not JSON, not UTF-8, the wrong shape, another session's update, a batch: all skipped.
    assert_eq!(v["answer"], "Part one. Part two.", "{v}");
    assert_eq!(v["stopReason"], "end_turn");
    let vault = Vault::open(dir.path()).unwrap();
    let t = Thread::open(&vault, v["threadId"].as_str().unwrap()).unwrap();
    assert_eq!(agent_text(&t), "Part one. Part two.");
    assert!(t.interrupted_turns(None).is_empty());
    let log = std::fs::read_to_string(dir.path().join(".agentero/logs/agentero.log")).unwrap();
    assert!(log.contains("not UTF-8"), "the skipped line is logged");
}

/// The chunks the agent had sent by `before` (its own log: one line per chunk, with the time).
fn sent_before(dir: &Path, before: f64) -> Vec<String> {
    std::fs::read_to_string(dir.join("sent.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (t, text) = l.split_once(' ')?;
            (t.parse::<f64>().ok()? < before).then(|| text.to_string())
        })
        .collect()
}

#[test]
fn a_killed_ask_keeps_what_streamed_and_restore_marks_the_turn_interrupted() {
    let mut kills = 0;
    let mut lost = 0;
    for round in 0..4 {
        let dir = fixture("slow");
        let mut child = command(dir.path(), false)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Kill at a different point of the answer each round: once the agent has sent a
        // number of chunks (its own log says so), whatever the machine's load.
        let want = 6 + 5 * round;
        let started = Instant::now();
        while std::fs::read_to_string(dir.path().join("sent.log")).map_or(0, |s| s.lines().count())
            < want
        {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "round {round}: the agent never sent {want} chunks"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap();
        let _ = child.wait();
        kills += 1;
        let killed_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        let vault = Vault::open(dir.path()).unwrap();
        let id = agentero::acp::transcript::Thread::latest(&vault).expect("a thread on disk");
        let t = Thread::open(&vault, &id).unwrap();
        let kept = agent_text(&t);
        // Everything the agent had sent a little before the kill is on disk (the writer
        // writes each chunk as it arrives; the margin covers the pipe and the scheduler).
        let sent = sent_before(dir.path(), killed_at - 0.25);
        assert!(!sent.is_empty(), "round {round}: the agent sent nothing");
        for piece in &sent {
            if !kept.contains(piece.as_str()) {
                lost += 1;
            }
        }
        assert!(kept.starts_with("piece 00. "), "round {round}: {kept:?}");
        let interrupted = t.interrupted_turns(None);
        assert_eq!(interrupted.len(), 1, "round {round}: {:?}", t.lines);
        // The thread continues after the interruption: asking again works and the earlier
        // turn stays interrupted with its text.
        let again = Command::new(env!("CARGO_BIN_EXE_agentero"))
            .args(["ask", "--vault"])
            .arg(dir.path())
            .arg("--config")
            .arg(dir.path().join("agents.toml"))
            .args(["--thread", &id, "--timeout", "60", "go on"])
            .env("HOME", dir.path().join(".agentero-test-home"))
            .env(
                "XDG_CONFIG_HOME",
                dir.path().join(".agentero-test-home/config"),
            )
            .env("XDG_DATA_HOME", dir.path().join(".agentero-test-home/data"))
            .env_remove("HOSTILE_MODE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let _ = std::io::stderr().write_all(&again.stderr);
        let t = Thread::open(&vault, &id).unwrap();
        assert_eq!(t.interrupted_turns(None), interrupted);
        assert!(agent_text(&t).starts_with(&kept));
    }
    eprintln!("kills {kills}, recoveries {kills}, chunks lost {lost}");
    assert_eq!(lost, 0, "streamed text was lost");
}
