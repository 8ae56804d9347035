//! Fuzz target "ACP lines from an agent": the real client (`agentero ask`) talks to the real
//! built-in agent through `tests/peers/acp_mangler.py`, which mixes malformed lines into what
//! the agent sends (seeded; seeds in `tests/fuzz/acp_lines.txt` plus mutations of the agent's
//! own lines). Whatever arrives, `ask` ends within its time limit — with the answer or a clear
//! error — never panics, and leaves a transcript whose every line is whole JSON; when lines are
//! only added, the turn is answered.
//!
//! Needs `python3` (or `AGENTERO_PYTHON`); skipped without it, except under CI.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn python() -> Option<String> {
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    if Command::new(&py)
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(py);
    }
    common::skip::missing(common::skip::Peer::Python, &format!("{py} does not run"));
    None
}

fn runs() -> usize {
    let scale: usize = std::env::var("AGENTERO_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    20 * scale.max(1)
}

#[test]
fn fuzz_acp_lines_from_a_hostile_agent() {
    let Some(py) = python() else { return };
    let dir = common::demo_vault();
    let root = dir.path();
    let v = root.to_str().unwrap();
    let indexed = common::agentero(&["index", v], root);
    assert!(indexed.status.success(), "{}", common::stderr(&indexed));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/acp_mangler.py");
    let stats = root.join("mangler-stats.jsonl");
    let seed: u64 = std::env::var("AGENTERO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let home = root.join(".agentero-test-home");
    let (mut answered, mut errors) = (0usize, 0usize);
    let started = Instant::now();
    for run in 0..runs() {
        // Most runs only add lines; every third may also mangle the agent's own.
        let (mode, rate, limit) = if run % 3 == 2 {
            ("replace", 0.3, 8)
        } else {
            ("inject", 0.5, 30)
        };
        let config = root.join(format!("mangled-{run}.toml"));
        std::fs::write(
            &config,
            format!(
                "[agents.mangled]\ncommand = {py:?}\nargs = [{:?}, \"{}\", \"{rate}\", \"{mode}\", {:?}, \"--\", {:?}, \"--builtin-agent\"]\nwarm_pool = 0\n",
                script.display().to_string(),
                seed + run as u64,
                stats.display().to_string(),
                env!("CARGO_BIN_EXE_agentero"),
            ),
        )
        .unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentero"))
            .args(["ask", "--vault", v, "--config"])
            .arg(&config)
            .args(["--agent", "mangled", "--timeout", &limit.to_string()])
            .arg("What is the reading order of a page? @notes/ @papers/layoutflow/paper.pdf")
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(limit + 30);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "run {run} (seed {}): ask did not end after its time limit",
                    seed + run as u64
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let out = child.wait_with_output().unwrap();
        let err = common::stderr(&out);
        assert!(!err.contains("panicked"), "run {run}: {err}");
        // Only added lines: every real one arrives, so the turn must be answered (the client
        // skips what it cannot read).
        assert!(
            mode != "inject" || out.status.success(),
            "run {run} (seed {}): bad lines ended the turn: {err}",
            seed + run as u64
        );
        if out.status.success() {
            answered += 1;
            assert!(common::stdout(&out).contains("Sources:"), "run {run}");
        } else {
            errors += 1;
            assert!(
                err.contains("agentero: "),
                "run {run}: no clear error: {err}"
            );
        }
        // The transcript: whole JSON lines only.
        if let Some(id) = err.lines().find_map(|l| l.strip_prefix("thread: ")) {
            let t = root
                .join(".agentero/chats")
                .join(id.trim())
                .join("transcript.jsonl");
            let text = std::fs::read_to_string(&t).unwrap_or_default();
            for line in text.lines() {
                assert!(
                    serde_json::from_str::<serde_json::Value>(line).is_ok(),
                    "run {run}: a torn transcript line: {line:?}"
                );
            }
        }
    }
    let (mut real, mut injected, mut replaced) = (0u64, 0u64, 0u64);
    for line in std::fs::read_to_string(&stats).unwrap_or_default().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        real += v["real"].as_u64().unwrap_or(0);
        injected += v["injected"].as_u64().unwrap_or(0);
        replaced += v["replaced"].as_u64().unwrap_or(0);
    }
    assert!(
        injected as usize >= 10 * runs(),
        "only {injected} bad lines reached the client"
    );
    eprintln!(
        "fuzz acp lines→client: {} turns in {:.1} s, {injected} bad lines injected and {replaced} real ones mangled among {real}; {answered} answered, {errors} ended with a clear error, 0 crashes",
        runs(),
        started.elapsed().as_secs_f64()
    );
}
