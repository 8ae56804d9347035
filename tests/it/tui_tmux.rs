//! End to end: the real binary in a tmux session on a generated demo vault — open a paper,
//! see its text, ask the built-in agent (the default agent of an empty config) a question with
//! an @-mention, see the answer and its sources, jump to the cited page, quit with q, and
//! check the terminal is restored (no alternate screen).

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{Session, last_source_page, start, tmux, wait_for, wait_gone};

#[test]
fn real_binary_in_tmux() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let exe = env!("CARGO_BIN_EXE_agentero");
    let name = format!("agentero-e2e-{}", std::process::id());
    let session = start(&name, &home, &["PS1=READY$ ", "sh"]);
    let target = format!("{}:0", session.0);
    wait_for(&target, "READY$", 10);
    let cmd = format!("{exe} {}", vault.display());
    tmux(&["send-keys", "-t", &target, &cmd, "Enter"]);
    let screen = wait_for(&target, "Vault", 20);
    assert!(screen.contains("Vault"), "{screen}");
    // Wait for the background index so titles are shown, then open the first paper.
    let screen = open_by_title(&target, "Dense or Sparse", "Lena Fischbach");
    assert!(screen.contains("p. 1 / "), "{screen}");
    assert!(screen.contains("Lena Fischbach"), "{screen}");
    // The agent started in the background: the chat's status line names it and the grant.
    let screen = wait_for(&target, "builtin · mcp", 30);
    assert!(screen.contains("builtin · mcp"), "{screen}");
    // Ask with a mention taken from the popup.
    tmux(&["send-keys", "-t", &target, "i"]);
    tmux(&[
        "send-keys",
        "-t",
        &target,
        "-l",
        "What is the reading order of a page? @layoutflowpdf",
    ]);
    // The popup lists the paper by its title.
    let screen = wait_for(&target, "LayoutFlow: Recovering", 10);
    assert!(screen.contains("LayoutFlow: Recovering"), "{screen}");
    tmux(&["send-keys", "-t", &target, "Enter"]);
    // The chip is in the grant: the paper being read and the mentioned one.
    let screen = wait_for(&target, "grant 2 sources", 10);
    assert!(screen.contains("grant 2 sources"), "{screen}");
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let screen = wait_for(&target, "sources (", 60);
    assert!(screen.contains("sources ("), "{screen}");
    // The built-in agent's answer: verbatim quotes, each with its citation.
    assert!(screen.contains("Quoted verbatim"), "no answer:\n{screen}");
    assert!(screen.contains("\" —"), "no quoted evidence:\n{screen}");
    // The last source: its cited page opens in the paper pane.
    let page =
        last_source_page(&screen).unwrap_or_else(|| panic!("no paper source on screen:\n{screen}"));
    common::tmux::select_last_source(&target, &screen);
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let want = format!("p. {page} / ");
    let screen = wait_for(&target, &want, 20);
    assert!(screen.contains(&want), "{screen}");
    // Quit: the shell prompt is back and the alternate screen is gone.
    tmux(&["send-keys", "-t", &target, "q"]);
    let screen = {
        // The prompt printed again after the app exits (the first READY$ is the command line).
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let s = tmux(&["capture-pane", "-p", "-t", &target]);
            if s.lines().filter(|l| l.contains("READY$")).count() >= 2 || Instant::now() > deadline
            {
                break s;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let alt = tmux(&["display-message", "-p", "-t", &target, "#{alternate_on}"]);
    assert_eq!(alt.trim(), "0", "still in the alternate screen:\n{screen}");
    assert!(
        !screen.contains("p. 1 / "),
        "the app's screen was left behind:\n{screen}"
    );
    assert!(
        screen.lines().filter(|l| l.contains("READY$")).count() >= 2,
        "{screen}"
    );
}

/// `kill -9` of the terminal app while an answer streams (a real ACP agent peer that streams
/// slowly): the restarted app restores the thread with everything that had streamed, marked
/// interrupted.
#[test]
fn a_killed_app_restores_the_streamed_answer_as_interrupted() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    let cfg = home.join(".config/agentero");
    std::fs::create_dir_all(&cfg).unwrap();
    let peer =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/hostile_agent.py");
    std::fs::write(
        cfg.join("config.toml"),
        format!(
            "default_agent = \"slow\"\n[agents.slow]\ncommand = \"python3\"\nargs = [{:?}]\nenv = {{ HOSTILE_MODE = \"slow\", HOSTILE_CHUNKS = \"200\" }}\n",
            peer.display().to_string()
        ),
    )
    .unwrap();
    let exe = env!("CARGO_BIN_EXE_agentero");
    let name = format!("agentero-kill-{}", std::process::id());
    let session = Session(name.clone());
    let h = home.display();
    let path = std::env::var("PATH").unwrap_or_default();
    let start = |window: &str| {
        let cmd = format!(
            "env -i PATH={path} TERM=xterm-256color HOME={h} XDG_CONFIG_HOME={h}/.config XDG_DATA_HOME={h}/.local/share {exe} {}",
            vault.display()
        );
        let status = if window == "0" {
            Command::new("tmux")
                .args([
                    "new-session",
                    "-d",
                    "-x",
                    "160",
                    "-y",
                    "44",
                    "-s",
                    &name,
                    &cmd,
                ])
                .status()
        } else {
            Command::new("tmux")
                .args(["new-window", "-t", &name, "-n", window, &cmd])
                .status()
        };
        assert!(status.unwrap().success());
    };
    start("0");
    // The session outlives the app's window when the app is killed.
    tmux(&["set-option", "-t", &name, "remain-on-exit", "on"]);
    let first = format!("{}:0", session.0);
    let screen = wait_for(&first, "slow ·", 30);
    assert!(screen.contains("slow ·"), "{screen}");
    wait_gone(&first, "starting…", 30);
    tmux(&["send-keys", "-t", &first, "i"]);
    tmux(&["send-keys", "-t", &first, "-l", "Tell me everything."]);
    tmux(&["send-keys", "-t", &first, "Enter"]);
    let screen = wait_for(&first, "piece 12.", 60);
    assert!(screen.contains("piece 12."), "{screen}");
    // kill -9 the app (the pane's process) mid-answer.
    let pid = tmux(&["display-message", "-p", "-t", &first, "#{pane_pid}"]);
    let pid = pid.trim().to_string();
    let shown_at_kill: String = tmux(&["capture-pane", "-p", "-t", &first]);
    let _ = Command::new("kill").args(["-9", &pid]).status();
    std::thread::sleep(Duration::from_millis(300));
    // The last piece visible on screen when it was killed.
    let last_shown = shown_at_kill
        .split("piece ")
        .filter_map(|s| s.get(..2).and_then(|n| n.parse::<u32>().ok()))
        .max()
        .unwrap();
    start("again");
    let second = format!("{}:again", session.0);
    let screen = wait_for(&second, "interrupted: agentero stopped", 30);
    assert!(
        screen.contains("interrupted: agentero stopped"),
        "the restored thread is not marked interrupted:\n{screen}"
    );
    assert!(screen.contains("Tell me everything."), "{screen}");
    // Nothing that was on screen is lost: the transcript on disk has every piece shown.
    let chats = vault.join(".agentero/chats");
    let transcript: String = std::fs::read_dir(&chats)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path().join("transcript.jsonl")).unwrap_or_default())
        .collect();
    for n in 0..=last_shown {
        assert!(
            transcript.contains(&format!("piece {n:02}.")),
            "piece {n:02} was on screen at the kill but is not on disk (last shown {last_shown})"
        );
    }
    tmux(&["send-keys", "-t", &second, "q"]);
}

/// Starts the real binary on `vault` in a new tmux session `name` (120x40, HOME in `home`)
/// and returns the session and its target once the screen shows `what`.
fn start_app(
    name: &str,
    vault: &std::path::Path,
    home: &std::path::Path,
    what: &str,
) -> (Session, String) {
    let vault = vault.display().to_string();
    let session = start(name, home, &[env!("CARGO_BIN_EXE_agentero"), &vault]);
    let target = format!("{name}:0");
    let screen = wait_for(&target, what, 20);
    assert!(screen.contains(what), "{screen}");
    (session, target)
}

/// Waits for the background index (titles come from it), filters the browser by `title` and
/// opens the paper; the screen once `shown` is on it.
fn open_by_title(target: &str, title: &str, shown: &str) -> String {
    let screen = wait_for(target, "indexed:", 60);
    assert!(screen.contains("indexed:"), "{screen}");
    tmux(&["send-keys", "-t", target, "f"]);
    tmux(&["send-keys", "-t", target, "-l", title]);
    tmux(&["send-keys", "-t", target, "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux(&["send-keys", "-t", target, "Enter"]);
    let screen = wait_for(target, shown, 20);
    assert!(screen.contains(shown), "{screen}");
    screen
}

/// A second app on the same vault says, as it opens, that the first has it open (its pid);
/// once the first has quit, a new one says nothing of the kind.
#[test]
fn a_second_app_on_a_vault_is_told_of_the_first() {
    if !common::tmux::ready() {
        return;
    }
    let (_dir, vault, home) = common::tmux::demo_and_home();
    let id = std::process::id();
    let (first, a) = start_app(
        &format!("agentero-claim-a-{id}"),
        &vault,
        &home,
        "space f vault",
    );
    let pid = app_pid(&a, false);
    let (second, b) = start_app(
        &format!("agentero-claim-b-{id}"),
        &vault,
        &home,
        "vault also open in",
    );
    let screen = wait_for(&b, &format!("agentero pid {pid}"), 5);
    assert!(
        screen.contains(&format!("vault also open in agentero pid {pid}")),
        "{screen}"
    );
    drop(second);
    drop(first);
    let gone = std::time::Instant::now();
    while std::path::Path::new(&format!("/proc/{pid}")).exists()
        && gone.elapsed() < Duration::from_secs(10)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let (_third, c) = start_app(
        &format!("agentero-claim-c-{id}"),
        &vault,
        &home,
        "space f vault",
    );
    std::thread::sleep(Duration::from_millis(1000));
    let screen = tmux(&["capture-pane", "-p", "-t", &c]);
    assert!(!screen.contains("vault also open in"), "{screen}");
}

/// A thread `agentero ask` writes while the app is open appears in the app within seconds,
/// after the threads it had (its count in the chat pane's title goes up), without a restart.
#[test]
fn a_thread_asked_from_the_command_line_appears_in_the_running_app() {
    if !common::tmux::ready() {
        return;
    }
    let (_dir, vault, home) = common::tmux::demo_and_home();
    let name = format!("agentero-arrive-{}", std::process::id());
    let (_session, target) = start_app(&name, &vault, &home, "space f vault");
    tmux(&["resize-window", "-t", &target, "-x", "160", "-y", "44"]);
    let screen = wait_for(&target, "(1/1)", 10);
    assert!(screen.contains("(1/1)"), "{screen}");
    let out = common::command(&home)
        .args(["ask", "--vault"])
        .arg(&vault)
        .arg("What does @papers/layoutflow/paper.pdf say about the gutter?")
        .output()
        .expect("ask runs");
    assert!(out.status.success(), "ask: {}", common::stderr(&out));
    let screen = wait_for(&target, "a new thread from another process", 20);
    assert!(
        screen.contains("a new thread from another process"),
        "the thread did not arrive:\n{screen}"
    );
    assert!(screen.contains("(1/2)"), "{screen}");
}

/// The reading position survives a restart: open a long paper, go to page 5, quit, start
/// again — the paper is open at page 5.
#[test]
fn the_open_paper_and_its_page_survive_a_restart() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let long = agentero::vault::demo::fixtures::numbered_pages(9).unwrap();
    std::fs::create_dir_all(vault.join("papers/numbered")).unwrap();
    std::fs::write(vault.join("papers/numbered/paper.pdf"), &long.pdf).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();

    let first = format!("agentero-state-{}", std::process::id());
    let (session, target) = start_app(&first, &vault, &home, "Vault");
    // The index first (titles come from it), then the paper found by its title.
    let screen = open_by_title(&target, "Chapter 1 of 9", "p. 1 / 9");
    assert!(screen.contains("page number 1 in"), "{screen}");
    tmux(&["send-keys", "-t", &target, "5", "G"]);
    let screen = wait_for(&target, "p. 5 / 9", 20);
    assert!(screen.contains("page number 5 in"), "{screen}");
    tmux(&["send-keys", "-t", &target, "q"]);
    // The app's exit ends the session.
    let deadline = Instant::now() + Duration::from_secs(20);
    while Command::new("tmux")
        .args(["has-session", "-t", &first])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        let screen = tmux(&["capture-pane", "-p", "-t", &target]);
        assert!(Instant::now() < deadline, "the app did not quit:\n{screen}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(session);

    let second = format!("agentero-state2-{}", std::process::id());
    let (_session, target) = start_app(&second, &vault, &home, "page number 5 in");
    let screen = tmux(&["capture-pane", "-p", "-t", &target]);
    assert!(
        screen.contains("p. 5 / 9") && screen.contains("page number 5 in"),
        "page 5 is not open after the restart:\n{screen}"
    );
    tmux(&["send-keys", "-t", &target, "q"]);
}

/// The image view in tmux: `I` on an open paper draws its page in half-block cells (tmux
/// shows no graphics protocol to the app), `I` again the text; `y c` puts the page's citation
/// on tmux's clipboard through OSC 52.
#[test]
fn the_image_view_draws_half_blocks_and_y_copies_in_tmux() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = format!("agentero-image-{}", std::process::id());
    let (_session, target) = start_app(&name, &vault, &home, "Vault");
    let screen = open_by_title(&target, "Dense or Sparse", "Lena Fischbach");
    assert!(screen.contains("p. 1 / 2"), "{screen}");
    assert!(!screen.contains('▀'), "{screen}");
    tmux(&["send-keys", "-t", &target, "I"]);
    let screen = wait_for(&target, "▀", 20);
    let blocks = screen.matches(['▀', '▄']).count();
    assert!(blocks > 200, "{blocks} half-block cells:\n{screen}");
    assert!(screen.contains(" · image"), "{screen}");
    // The cells carry the page's colours (24-bit or 256, as tmux passes them on).
    let styled = tmux(&["capture-pane", "-p", "-e", "-t", &target]);
    assert!(
        styled.contains("48;2;") || styled.contains("48;5;"),
        "no coloured background cells"
    );
    tmux(&["send-keys", "-t", &target, "I"]);
    let screen = wait_gone(&target, "▀", 10);
    assert!(screen.contains("Lena Fischbach"), "{screen}");
    // OSC 52 reaches a tmux paste buffer (with set-clipboard on, tmux takes it from the app;
    // the server's setting is put back after).
    let before = tmux(&["show-options", "-s", "-v", "set-clipboard"]);
    tmux(&["set-option", "-s", "set-clipboard", "on"]);
    tmux(&["send-keys", "-t", &target, "y", "c"]);
    let want = "papers/dense-vs-sparse/paper.pdf#page=1";
    let deadline = Instant::now() + Duration::from_secs(10);
    let copied = loop {
        let names = tmux(&["list-buffers", "-F", "#{buffer_name}"]);
        let found = names
            .lines()
            .any(|b| tmux(&["show-buffer", "-b", b]) == want);
        if found || Instant::now() > deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if !before.trim().is_empty() {
        tmux(&["set-option", "-s", "set-clipboard", before.trim()]);
    }
    assert!(copied, "no tmux buffer holds {want}");
    tmux(&["send-keys", "-t", &target, "q"]);
}

/// A config whose default agent is the slow test peer (chunks every 100 ms) beside a process
/// that outlives it unless its group is ended, all marked by `AGENTERO_TEST_MARK` = `mark` in their environment.
fn slow_agent_home(home: &std::path::Path, mark: &str) {
    let cfg = home.join(".config/agentero");
    std::fs::create_dir_all(&cfg).unwrap();
    let peer =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/hostile_agent.py");
    std::fs::write(
        cfg.join("config.toml"),
        format!(
            "default_agent = \"slow\"\n[agents.slow]\ncommand = \"sh\"\nargs = [\"-c\", {:?}]\nenv = {{ HOSTILE_MODE = \"slow\", HOSTILE_CHUNKS = \"300\", AGENTERO_TEST_MARK = {mark:?} }}\n",
            // A helper process that ignores its parent's end, as adapters' runtimes do
            // (claude-agent-acp's Claude Code, codex-acp's binary): only ending the whole
            // process group stops it.
            format!("sleep 300 & exec python3 {}", peer.display())
        ),
    )
    .unwrap();
}

/// Live processes whose environment holds `AGENTERO_TEST_MARK=mark` (the agents started with
/// that config, and anything they started).
fn processes_marked(mark: &str) -> Vec<String> {
    let needle = format!("AGENTERO_TEST_MARK={mark}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| {
            std::fs::read(e.path().join("environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == needle.as_bytes()))
        })
        .filter(|e| {
            // A zombie is gone in all but name.
            std::fs::read_to_string(e.path().join("stat")).is_ok_and(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
        })
        .map(|e| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            format!(
                "{} {}",
                e.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            )
        })
        .collect()
}

fn wait_no_processes_marked(mark: &str, secs: u64) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = processes_marked(mark);
        if left.is_empty() || Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The pid of the app in `target`'s pane: the pane's process itself, or its child when the
/// pane runs a shell.
fn app_pid(target: &str, under_shell: bool) -> String {
    let pane = tmux(&["display-message", "-p", "-t", target, "#{pane_pid}"]);
    let pane = pane.trim().to_string();
    if !under_shell {
        return pane;
    }
    let children =
        std::fs::read_to_string(format!("/proc/{pane}/task/{pane}/children")).unwrap_or_default();
    children
        .split_whitespace()
        .next()
        .unwrap_or_else(|| panic!("the shell in {target} has no child"))
        .to_string()
}

/// Starts a question with the slow agent and waits for the answer to stream (the window
/// made wide enough for the chat pane first).
fn ask_slow(target: &str) {
    tmux(&["resize-window", "-t", target, "-x", "160", "-y", "44"]);
    let screen = wait_for(target, "slow ·", 30);
    assert!(screen.contains("slow ·"), "{screen}");
    wait_gone(target, "starting…", 30);
    tmux(&["send-keys", "-t", target, "i"]);
    tmux(&["send-keys", "-t", target, "-l", "Tell me everything."]);
    tmux(&["send-keys", "-t", target, "Enter"]);
    let screen = wait_for(target, "piece 08.", 60);
    assert!(screen.contains("piece 08."), "{screen}");
}

fn transcripts(vault: &std::path::Path) -> String {
    std::fs::read_dir(vault.join(".agentero/chats"))
        .map(|d| {
            d.flatten()
                .map(|e| {
                    std::fs::read_to_string(e.path().join("transcript.jsonl")).unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The highest `piece NN.` on `screen`.
fn last_piece(screen: &str) -> u32 {
    screen
        .split("piece ")
        .filter_map(|s| s.get(..2).and_then(|n| n.parse::<u32>().ok()))
        .max()
        .unwrap_or(0)
}

/// A demo vault and a HOME whose default agent is the slow peer marked `tag-PID`.
fn slow_setup(
    tag: &str,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    std::path::PathBuf,
    String,
) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    let mark = format!("{tag}-{}", std::process::id());
    slow_agent_home(&home, &mark);
    (dir, vault, home, mark)
}

/// Every `piece NN.` that was on `shown` (the screen when the app was ended) is in a transcript.
fn assert_on_disk(vault: &std::path::Path, shown: &str) {
    let transcript = transcripts(vault);
    for n in 0..=last_piece(shown) {
        assert!(
            transcript.contains(&format!("piece {n:02}.")),
            "piece {n:02} was on screen when the app was ended but is not on disk"
        );
    }
}

/// Closing the tmux window (SIGHUP to the app, as an SSH drop does) while an answer streams:
/// the agent's process group is gone within seconds and every piece that was on screen is in
/// the transcript.
#[test]
fn closing_the_window_ends_the_agent_and_keeps_what_streamed() {
    if !common::tmux::ready() {
        return;
    }
    let (dir, vault, home, mark) = slow_setup("hup");
    let name = format!("agentero-hup-{}", std::process::id());
    let vault_s = vault.display().to_string();
    let session = start(&name, &home, &[env!("CARGO_BIN_EXE_agentero"), &vault_s]);
    // A second window keeps the session (and its server) alive after the first closes.
    tmux(&["new-window", "-d", "-t", &name, "sleep", "60"]);
    let target = format!("{}:0", session.0);
    ask_slow(&target);
    assert!(
        !processes_marked(&mark).is_empty(),
        "the agent is not running"
    );
    let shown = tmux(&["capture-pane", "-p", "-t", &target]);
    tmux(&["kill-window", "-t", &target]);
    let left = wait_no_processes_marked(&mark, 6);
    assert!(
        left.is_empty(),
        "agent processes left after SIGHUP: {left:?}"
    );
    assert_on_disk(&vault, &shown);
    drop(dir);
}

/// SIGTERM to the app while an answer streams: the agent is gone, the terminal restored (the
/// shell's prompt is back, no alternate screen), the transcript has what streamed.
#[test]
fn sigterm_ends_the_agent_and_restores_the_terminal() {
    if !common::tmux::ready() {
        return;
    }
    let (dir, vault, home, mark) = slow_setup("term");
    let name = format!("agentero-term-{}", std::process::id());
    let session = start(&name, &home, &["PS1=READY$ ", "sh"]);
    let target = format!("{}:0", session.0);
    wait_for(&target, "READY$", 10);
    let cmd = format!("{} {}", env!("CARGO_BIN_EXE_agentero"), vault.display());
    tmux(&["send-keys", "-t", &target, &cmd, "Enter"]);
    ask_slow(&target);
    assert!(
        !processes_marked(&mark).is_empty(),
        "the agent is not running"
    );
    let shown = tmux(&["capture-pane", "-p", "-t", &target]);
    let pid = app_pid(&target, true);
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let left = wait_no_processes_marked(&mark, 6);
    assert!(
        left.is_empty(),
        "agent processes left after SIGTERM: {left:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let screen = loop {
        let s = tmux(&["capture-pane", "-p", "-t", &target]);
        if s.lines().filter(|l| l.contains("READY$")).count() >= 2 || Instant::now() > deadline {
            break s;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let alt = tmux(&["display-message", "-p", "-t", &target, "#{alternate_on}"]);
    assert_eq!(alt.trim(), "0", "still in the alternate screen:\n{screen}");
    assert!(
        !screen.contains("piece 0"),
        "the app's screen was left:\n{screen}"
    );
    assert_on_disk(&vault, &shown);
    drop(dir);
}

/// ctrl-z then `fg` in an interactive shell: the app stops, the prompt comes back, `fg`
/// brings the app back whole and it still takes keys; the first key typed at start counts
/// (with tmux's passthrough off, and on — where nothing answers the passthrough query).
#[test]
fn ctrl_z_and_fg_resume_and_the_first_key_counts() {
    if !common::tmux::ready() {
        return;
    }
    for passthrough in ["off", "on"] {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        agentero::vault::demo::write_demo_vault(&vault).unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let name = format!("agentero-fg-{passthrough}-{}", std::process::id());
        let session = start(&name, &home, &["PS1=READY$ ", "bash", "--norc", "-i"]);
        let target = format!("{}:0", session.0);
        tmux(&[
            "set-option",
            "-p",
            "-t",
            &target,
            "allow-passthrough",
            passthrough,
        ]);
        wait_for(&target, "READY$", 10);
        // The command and the first key in one go: `?` is typed before the app has even
        // drawn (it waits in the terminal's input while the app starts and asks its query).
        let cmd = format!("{} {}", env!("CARGO_BIN_EXE_agentero"), vault.display());
        tmux(&["send-keys", "-t", &target, &cmd, "Enter"]);
        tmux(&["send-keys", "-t", &target, "?"]);
        let screen = wait_for(&target, "Quit agentero", 20);
        assert!(
            screen.contains("Quit agentero"),
            "the first key was lost (passthrough {passthrough}):\n{screen}"
        );
        tmux(&["send-keys", "-t", &target, "Escape"]);
        wait_gone(&target, "Quit agentero", 10);
        // A key typed well after start counts too (a reader left behind took it).
        std::thread::sleep(Duration::from_millis(1500));
        tmux(&["send-keys", "-t", &target, "?"]);
        let screen = wait_for(&target, "Quit agentero", 10);
        assert!(
            screen.contains("Quit agentero"),
            "a later key was lost:\n{screen}"
        );
        tmux(&["send-keys", "-t", &target, "Escape"]);
        wait_gone(&target, "Quit agentero", 10);
        tmux(&["send-keys", "-t", &target, "C-z"]);
        let screen = wait_until_prompts(&target, 2, 10);
        let alt = tmux(&["display-message", "-p", "-t", &target, "#{alternate_on}"]);
        assert_eq!(
            alt.trim(),
            "0",
            "ctrl-z left the alternate screen on:\n{screen}"
        );
        tmux(&["send-keys", "-t", &target, "fg", "Enter"]);
        let screen = wait_for(&target, "Vault", 10);
        assert!(
            screen.contains("Vault"),
            "fg did not bring the app back:\n{screen}"
        );
        tmux(&["send-keys", "-t", &target, "?"]);
        let screen = wait_for(&target, "Quit agentero", 10);
        assert!(
            screen.contains("Quit agentero"),
            "no keys after fg:\n{screen}"
        );
        tmux(&["send-keys", "-t", &target, "Escape"]);
        wait_gone(&target, "Quit agentero", 10);
        tmux(&["send-keys", "-t", &target, "q"]);
        let screen = wait_until_prompts(&target, 3, 10);
        assert!(
            screen.lines().filter(|l| l.contains("READY$")).count() >= 3,
            "the app did not quit after fg:\n{screen}"
        );
    }
}

/// The screen once it shows at least `n` shell prompts.
fn wait_until_prompts(target: &str, n: usize, secs: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = tmux(&["capture-pane", "-p", "-t", target]);
        if s.lines().filter(|l| l.contains("READY$")).count() >= n || Instant::now() > deadline {
            return s;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `agentero --check DRAFT VAULT` in tmux: a manuscript outside the vault, whose keys resolve
/// through the bibliography its front matter names, opens as a checklist beside the paper; `]`
/// opens the citation that needs a look; a save from outside the app checks it again.
#[test]
fn a_manuscript_checked_from_the_command_line_follows_its_saves() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let thesis = dir.path().join("thesis");
    std::fs::create_dir_all(&thesis).unwrap();
    std::fs::write(
        thesis.join("refs.bib"),
        "@inproceedings{H09, title={Passages}, doi={10.5555/AGENTERO.2009.0283}}\n",
    )
    .unwrap();
    let draft = thesis.join("ch2.md");
    let text = |n: &str| {
        format!(
            "---\nbibliography: refs.bib\n---\n\nWindows: “Windows of 50 words reach a MAP of 0.251” [@H09, p. 284].\n\
             Again: “Windows of 50 words reach a MAP of {n}” [@H09, p. 284].\n"
        )
    };
    std::fs::write(&draft, text("0.215")).unwrap();
    let name = format!("agentero-check-{}", std::process::id());
    let (draft_s, vault_s) = (draft.display().to_string(), vault.display().to_string());
    let _session = start(
        &name,
        &home,
        &[
            env!("CARGO_BIN_EXE_agentero"),
            "--check",
            &draft_s,
            &vault_s,
        ],
    );
    let target = format!("{name}:0");
    let screen = wait_for(&target, "✓1 ⚠1", 60);
    assert!(screen.contains("Citations · ch2.md"), "{screen}");
    assert!(screen.contains("CHECKLIST"), "{screen}");
    tmux(&["send-keys", "-t", &target, "]"]);
    let screen = wait_for(&target, "Passage-Level Retrieval", 20);
    assert!(screen.contains("differs"), "{screen}");
    assert!(
        screen.contains("CHECKLIST"),
        "the checklist lost the keys:\n{screen}"
    );
    std::fs::write(&draft, text("0.251")).unwrap();
    let screen = wait_for(&target, "✓2 ⚠0", 20);
    assert!(
        screen.contains("✓2 ⚠0"),
        "the save was not checked:\n{screen}"
    );
    tmux(&["send-keys", "-t", &target, "q"]);
}

/// A Zotero library (built from Zotero's own schema) in the browser at 160x48: a paper filed
/// in a collection is listed once, under it; `storage/` lists only the unfiled paper, marked
/// `unfiled`; the selected paper's whole title is shown below the list; opening a collection
/// narrows the list to its papers.
#[test]
fn a_zotero_library_lists_each_paper_once_and_the_whole_title_of_the_selected_one() {
    use crate::zotero::library::{create, put, schema_dir};
    if !common::tmux::ready() {
        return;
    }
    let Some(schema) = schema_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let demo = common::demo_vault();
    let zdir = dir.path().join("Zotero");
    std::fs::create_dir_all(zdir.join("storage")).unwrap();
    let z = create(&zdir, &schema);
    let jit = z.collection("JIT compilers", None, "COLLJIT2");
    let tracing = z.collection("Tracing", Some(jit), "COLLTRC2");
    let papers = [
        (
            "DENSE223",
            "dense-vs-sparse",
            "Dense or Sparse? Retrieving Passages for Scientific Question Answering",
            Some(jit),
        ),
        (
            "LAYFLW23",
            "layoutflow",
            "LayoutFlow: Recovering Reading Order in Two-Column Scientific PDFs",
            Some(tracing),
        ),
        (
            "RECEIPT2",
            "receipts-qa",
            "Answering with Receipts: Grounded Citations in Generated Answers",
            None,
        ),
    ];
    for (i, (key, folder, title, collection)) in papers.iter().enumerate() {
        let item = z.item("journalArticle", key);
        z.set(item, "title", title);
        // Zotero keys have no 0, 1 or O (the reader refuses others).
        let att_key = format!("ATTACH{}2", ["A", "B", "C"][i]);
        z.attachment(Some(item), &att_key, 0, &format!("storage:{folder}.pdf"));
        let pdf = std::fs::read(demo.path().join(format!("papers/{folder}/paper.pdf")))
            .unwrap_or_else(|e| panic!("{folder}: {e}"));
        put(&zdir.join(format!("storage/{att_key}/{folder}.pdf")), &pdf);
        if let Some(c) = collection {
            z.file_in(*c, item);
        }
    }
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = format!("agentero-zlist-{}", std::process::id());
    let (_session, target) = start_app(&name, &zdir, &home, "space f vault");
    tmux(&["resize-window", "-t", &target, "-x", "160", "-y", "48"]);
    // The titles come from the index, run in the background.
    let screen = common::tmux::wait_until(&target, 60, |s| {
        s.contains("[unfiled]") && papers.iter().all(|p| s.contains(&p.2[..16]))
    });
    let browser: Vec<String> = screen
        .lines()
        .map(|l| l.chars().take(38).collect::<String>())
        .collect();
    let browser = browser.join("\n");
    for (_, _, title, _) in &papers {
        let head: String = title.chars().take(20).collect();
        assert_eq!(browser.matches(&head).count(), 1, "{head}:\n{browser}");
    }
    assert!(browser.contains("storage/ [unfiled]"), "{browser}");
    // Down to the paper in `Tracing`: its whole title below the list.
    tmux(&["send-keys", "-t", &target, "f"]);
    tmux(&["send-keys", "-t", &target, "-l", "layoutflow"]);
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let screen = wait_for(&target, "Two-Column Scientific PDFs", 10);
    assert!(screen.contains("Two-Column Scientific PDFs"), "{screen}");
    // A collection opened: its papers only (the sub-collection's too, by their folder).
    tmux(&["send-keys", "-t", &target, "Escape"]);
    tmux(&["send-keys", "-t", &target, "g", "g", "j"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let screen = wait_for(&target, "filter: collections/JIT com", 10);
    assert!(screen.contains("LayoutFlow: Recovering"), "{screen}");
    assert!(screen.contains("Dense or Sparse?"), "{screen}");
    assert!(!screen.contains("Answering with Receipts"), "{screen}");
}
