//! Driving the real binary in tmux: a detached session, keys sent, the screen captured.

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs `tmux ARGS` and returns what it printed.
pub fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether tmux is installed (`.ci/run` installs it; a fresh clone may lack it).
pub fn available() -> bool {
    Command::new("tmux").arg("-V").output().is_ok()
}

/// The guard of a tmux test: whether tmux is there; when it is not, the test's skip is said
/// (and under `CI` the test fails, as every missing peer does).
pub fn ready() -> bool {
    let there = available();
    if !there {
        crate::common::skip::missing(crate::common::skip::Peer::Tmux, "");
    }
    there
}

/// A tmux session, killed when dropped.
pub struct Session(pub String);

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .status();
    }
}

/// A detached 120x40 session `name` running `command` in a clean environment: PATH=/usr/bin:/bin,
/// TERM=xterm-256color, HOME and the XDG folders in `home` (`command` may begin with more
/// `VAR=value` words, as `env` takes them).
pub fn start(name: &str, home: &std::path::Path, command: &[&str]) -> Session {
    let h = home.display();
    let status = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "40",
            "-s",
            name,
            "env",
            "-i",
            "PATH=/usr/bin:/bin",
            "TERM=xterm-256color",
            &format!("HOME={h}"),
            &format!("XDG_CONFIG_HOME={h}/.config"),
            &format!("XDG_DATA_HOME={h}/.local/share"),
        ])
        .args(command)
        .status()
        .expect("tmux runs");
    assert!(status.success());
    Session(name.to_string())
}

/// The screen once it shows `what`, or after `secs` seconds (the caller asserts).
pub fn wait_for(target: &str, what: &str, secs: u64) -> String {
    wait_until(target, secs, |s| s.contains(what))
}

/// The screen once it no longer shows `what`, or after `secs` seconds.
pub fn wait_gone(target: &str, what: &str, secs: u64) -> String {
    wait_until(target, secs, |s| !s.contains(what))
}

pub fn wait_until(target: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", target]);
        if done(&screen) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The page of the last paper source on screen (a source line reads `→ title · p. N …`).
pub fn last_source_page(screen: &str) -> Option<u32> {
    screen
        .lines()
        .filter(|l| l.contains("→ "))
        .filter_map(|l| l.split(" · p. ").nth(1))
        .filter_map(|n| {
            n.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .next_back()
}

/// Selects the chat's last cited source in the app in `target` (showing `screen`): `esc`, then
/// `k` — twice when the folded "consulted: N" line comes after it.
pub fn select_last_source(target: &str, screen: &str) {
    tmux(&["send-keys", "-t", target, "Escape"]);
    std::thread::sleep(Duration::from_millis(200));
    let presses = if screen.contains("consulted: ") { 2 } else { 1 };
    for _ in 0..presses {
        tmux(&["send-keys", "-t", target, "k"]);
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A temporary folder with the demo vault written to `vault/` and an empty `home/` for an app
/// started by [`start`].
pub fn demo_and_home() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    (dir, vault, home)
}
