//! Memory of the app with many chat threads (`cargo bench --bench sessions`): the terminal
//! app's state and runtime (driven headless, in this process) with the built-in agent, one
//! question with an @-mention (so each turn's session gets a context server) asked in each of
//! 20 threads. The resident memory of the whole process tree (this process, the agent, the
//! context servers) is read after the first thread and after the twentieth with sessions never
//! closed (an hour of idle time), then in a second app with `session_idle` of 2 s once its 20
//! idle sessions were closed (the app's default is five minutes).

use std::path::Path;
use std::time::{Duration, Instant};

use agentero::config::AgentDef;
use agentero::tui::chips::AgentState;
use agentero::tui::headless::Headless;
use agentero::tui::runtime::AgentSetup;
use agentero::vault::Vault;

const THREADS: usize = 20;
const TURN: Duration = Duration::from_secs(60);

/// Resident memory (KiB) of `pid` and every process below it.
fn tree_rss(pid: u32) -> u64 {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        parents.push((p, ppid));
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    tree.iter()
        .filter_map(|p| std::fs::read_to_string(format!("/proc/{p}/status")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .sum()
}

/// Processes below this one that are context servers.
fn context_servers() -> usize {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains("--agentero-context-mcp"))
        .count()
}

fn open(tmp: &Path, vault: &Path, session_idle: Duration) -> Headless {
    let exe = Path::new(env!("CARGO_BIN_EXE_agentero"));
    let home = tmp.join("home");
    let mut def = AgentDef::builtin(exe);
    for (k, v) in [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join("config")),
        ("XDG_DATA_HOME", home.join("data")),
    ] {
        def.env.insert(k.into(), v.display().to_string());
    }
    let setup = AgentSetup {
        def,
        host_exe: exe.to_path_buf(),
        budget: Default::default(),
        timeout: TURN,
        session_idle,
    };
    let mut h = Headless::open_with_agent(vault, 120, 40, setup).unwrap();
    let ready = h.wait_until(TURN, |a| {
        matches!(a.chat().agent(), AgentState::Ready { .. })
    });
    assert!(ready, "the agent did not start");
    h.settle();
    h
}

fn ask(h: &mut Headless, question: &str) {
    h.keys("i");
    h.type_text(&format!("{question} @densesparsepdf"));
    assert!(h.app.chat().mention().is_some(), "no mention popup");
    // The first enter accepts the mention, the second sends.
    h.keys("enter");
    h.keys("enter");
    let done = h.wait_until(TURN, |a| a.chat().turn().is_none());
    assert!(done, "the turn did not end");
    h.settle();
}

/// 20 threads asked in a new app on `vault`: the tree's memory and context servers after the
/// first and after the last, then (when `wait`) once the idle sessions were closed.
fn run(tmp: &Path, vault: &Path, idle: Duration, wait: bool) -> [(u64, usize); 3] {
    let mut h = open(tmp, vault, idle);
    let me = std::process::id();
    ask(&mut h, "What does reciprocal rank fusion reach?");
    let one = (tree_rss(me), context_servers());
    for n in 1..THREADS {
        h.keys("space n");
        ask(
            &mut h,
            &format!("Question {n}: which model wins on identifiers?"),
        );
    }
    let twenty = (tree_rss(me), context_servers());
    if !wait {
        return [one, twenty, twenty];
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while context_servers() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        h.settle();
    }
    std::thread::sleep(Duration::from_millis(500));
    [one, twenty, (tree_rss(me), context_servers())]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let v = Vault::open(&vault).unwrap();
    agentero::vault::indexer::index_vault(&v, &Default::default(), &mut |_| {}).unwrap();
    let mib = |k: u64| k as f64 / 1024.0;
    let [one, twenty, _] = run(dir.path(), &vault, Duration::from_secs(3600), false);
    println!(
        "after 1 thread:   {:7.1} MiB ({} context servers)",
        mib(one.0),
        one.1
    );
    println!(
        "after {THREADS} threads: {:7.1} MiB ({} context servers) = {:.2}x, sessions kept",
        mib(twenty.0),
        twenty.1,
        twenty.0 as f64 / one.0 as f64
    );
    let [one2, _, closed] = run(dir.path(), &vault, Duration::from_secs(2), true);
    println!(
        "after {THREADS} threads, idle sessions closed: {:7.1} MiB ({} context servers) = {:.2}x of 1 thread",
        mib(closed.0),
        closed.1,
        closed.0 as f64 / one2.0 as f64
    );
}
