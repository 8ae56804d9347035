//! Lifecycle benchmarks (release): the real binary in a pseudo-terminal of its own (it is the
//! session's leader, the pty its controlling terminal, as a login shell's child over SSH).
//!
//! 1. Hang-up: a turn streams from the slow test agent (a helper process beside it that only
//!    ending the whole process group stops); the pty's master is closed (the kernel sends
//!    SIGHUP, as an SSH drop does); time until the last agent process is gone.
//! 2. Resume: ctrl-z typed into the pty (the app gives the terminal back and stops), then
//!    SIGCONT (what `fg` sends); time until the app has written its first whole frame.
//!
//! 3. Start: the app started on the demo vault (indexed, the built-in agent, no config) until its
//!    first frame (the vault pane drawn), beside `less` started on the README in the same kind
//!    of pty until its first screen (the ratio run by run).
//!
//! `cargo bench --bench lifecycle` (RUNS=n for more than 12 runs of each).

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the app wrote to its terminal, each read with the time it arrived.
type Output = Arc<Mutex<Vec<(Instant, Vec<u8>)>>>;

/// What the thread that owns the pty's master is asked to do.
enum ToMaster {
    Write(Vec<u8>),
    /// Close the master (the terminal goes away): the time it was closed is sent back.
    Close(std::sync::mpsc::Sender<Instant>),
}

struct Pty {
    /// To the thread that owns the master, its only descriptor (so that closing it is a
    /// hang-up).
    to_master: std::sync::mpsc::Sender<ToMaster>,
    child: Child,
    out: Output,
}

impl Pty {
    /// Starts `cmd` as the leader of a new session whose controlling terminal is a fresh
    /// `cols`×`rows` pty.
    fn spawn(mut cmd: Command, cols: u16, rows: u16) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let ws = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors it opened; the pointers are valid.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &ws,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both descriptors were just opened and are owned here only.
        let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        // Not inherited by the app (or the agents it starts): the master must close with us.
        // SAFETY: a flag on a descriptor we own.
        unsafe { libc::fcntl(master.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
        let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup the pty"));
        cmd.stdin(io(&slave)).stdout(io(&slave)).stderr(io(&slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("the app starts");
        drop(slave);
        let out: Output = Arc::default();
        let sink = out.clone();
        let (to_master, rx) = std::sync::mpsc::channel::<ToMaster>();
        std::thread::spawn(move || {
            let mut master = master;
            let mut buf = [0u8; 65536];
            loop {
                match rx.try_recv() {
                    Ok(ToMaster::Write(bytes)) => {
                        let _ = master.write_all(&bytes);
                    }
                    Ok(ToMaster::Close(done)) => {
                        drop(master);
                        let _ = done.send(Instant::now());
                        return;
                    }
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => return,
                    Err(std::sync::mpsc::TryRecvError::Empty) => {}
                }
                let mut pfd = libc::pollfd {
                    fd: master.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                let ready = unsafe { libc::poll(&mut pfd, 1, 2) };
                if ready > 0 && pfd.revents & libc::POLLIN != 0 {
                    match master.read(&mut buf) {
                        Ok(n) if n > 0 => sink
                            .lock()
                            .unwrap()
                            .push((Instant::now(), buf[..n].to_vec())),
                        _ => std::thread::sleep(Duration::from_millis(2)),
                    }
                } else if ready > 0 {
                    // The app closed its side (POLLHUP): keep taking orders.
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        });
        Pty {
            to_master,
            child,
            out,
        }
    }

    fn write(&mut self, bytes: &[u8]) {
        let _ = self.to_master.send(ToMaster::Write(bytes.to_vec()));
    }

    /// Closes the terminal: returns when the master was closed.
    fn hang_up(&mut self) -> Instant {
        let (tx, rx) = std::sync::mpsc::channel();
        let _ = self.to_master.send(ToMaster::Close(tx));
        rx.recv_timeout(Duration::from_secs(5))
            .unwrap_or_else(|_| Instant::now())
    }

    /// Everything written since `since`, as text.
    fn text_since(&self, since: Instant) -> String {
        let out = self.out.lock().unwrap();
        let bytes: Vec<u8> = out
            .iter()
            .filter(|(t, _)| *t >= since)
            .flat_map(|(_, b)| b.iter().copied())
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Waits until what was written since `since` contains `what`.
    fn wait_for(&self, since: Instant, what: &str, secs: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            if self.text_since(since).contains(what) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    /// The arrival of the bytes that completed `what` in the output since `since` (waiting at
    /// most `secs`).
    fn first_with(&self, since: Instant, what: &str, secs: u64) -> Option<Instant> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            {
                let out = self.out.lock().unwrap();
                let mut text = Vec::new();
                for (t, b) in out.iter().filter(|(t, _)| *t >= since) {
                    text.extend_from_slice(b);
                    if String::from_utf8_lossy(&text).contains(what) {
                        return Some(*t);
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        None
    }

    /// The arrival of the last bytes written after `since` once the app has been quiet for
    /// `quiet` (its frame is whole then), or `None` after `secs`.
    fn frame_end(&self, since: Instant, quiet: Duration, secs: u64) -> Option<Instant> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while Instant::now() < deadline {
            let last = self
                .out
                .lock()
                .unwrap()
                .iter()
                .rev()
                .find(|(t, _)| *t >= since)
                .map(|(t, _)| *t);
            if let Some(t) = last
                && t.elapsed() >= quiet
            {
                return Some(t);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        None
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A demo vault and a HOME whose default agent is the slow test peer (a chunk every 100 ms)
/// beside a helper process that outlives it unless its group is ended, all marked by
/// `AGENTERO_TEST_MARK` = `mark`.
fn setup(root: &Path, mark: &str) -> (PathBuf, PathBuf) {
    let vault = root.join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = root.join("home");
    let cfg = home.join(".config/agentero");
    std::fs::create_dir_all(&cfg).unwrap();
    let peer = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/hostile_agent.py");
    std::fs::write(
        cfg.join("config.toml"),
        format!(
            "default_agent = \"slow\"\n[agents.slow]\ncommand = \"sh\"\nargs = [\"-c\", {:?}]\nenv = {{ HOSTILE_MODE = \"slow\", HOSTILE_CHUNKS = \"600\", AGENTERO_TEST_MARK = {mark:?} }}\n",
            format!("sleep 300 & exec python3 {}", peer.display())
        ),
    )
    .unwrap();
    (vault, home)
}

fn app(vault: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    let h = home.display();
    cmd.arg(vault)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TERM", "xterm-256color")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", format!("{h}/.config"))
        .env("XDG_DATA_HOME", format!("{h}/.local/share"))
        .env("XDG_STATE_HOME", format!("{h}/.local/state"))
        // No graphics query: the frames measured are the app's own.
        .env("AGENTERO_IMAGES", "halfblocks");
    cmd
}

/// Live processes whose environment holds `AGENTERO_TEST_MARK=mark`.
fn marked(mark: &str) -> usize {
    let needle = format!("AGENTERO_TEST_MARK={mark}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
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
        .count()
}

/// One hang-up while a turn streams: the time from closing the terminal to the last agent
/// process gone (`None`: the turn never streamed, or processes were left after 10 s).
fn hang_up(run: usize) -> Option<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("bench-hup-{}-{run}", std::process::id());
    let (vault, home) = setup(dir.path(), &mark);
    let start = Instant::now();
    let mut pty = Pty::spawn(app(&vault, &home), 160, 44);
    if !pty.wait_for(start, "slow ·", 30) {
        eprintln!("run {run}: the app did not show the agent");
        return None;
    }
    // The agent and the index settle first (keys typed then are the app's).
    std::thread::sleep(Duration::from_secs(3));
    pty.write(b"i");
    std::thread::sleep(Duration::from_millis(200));
    pty.write(b"Tell me everything.");
    std::thread::sleep(Duration::from_millis(300));
    // The agent may still be starting: enter again until the answer streams.
    let mut streaming = false;
    for _ in 0..30 {
        let sent = Instant::now();
        pty.write(b"\r");
        if pty.wait_for(sent, "piece", 1) {
            streaming = true;
            break;
        }
    }
    if !streaming || marked(&mark) == 0 {
        let screen = pty.text_since(start);
        let tail: String = screen
            .chars()
            .rev()
            .take(1500)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        eprintln!(
            "run {run}: the turn did not stream ({} agent processes):\n{tail:?}",
            marked(&mark)
        );
        pty.hang_up();
        std::thread::sleep(Duration::from_secs(3));
        return None;
    }
    std::thread::sleep(Duration::from_millis(300));
    let t0 = pty.hang_up();
    let deadline = t0 + Duration::from_secs(10);
    while marked(&mark) > 0 {
        if Instant::now() > deadline {
            eprintln!("run {run}: agent processes left 10 s after the hang-up");
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let took = t0.elapsed();
    let _ = pty.child.wait();
    Some(took)
}

/// The state letter of process `pid` (`T`: stopped).
fn state(pid: u32) -> char {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next()?.trim_start().chars().next())
        .unwrap_or('?')
}

/// ctrl-z then SIGCONT, `runs` times in one app: the time from SIGCONT to its first whole
/// frame.
fn resume(runs: usize) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let mark = format!("bench-fg-{}", std::process::id());
    let (vault, home) = setup(dir.path(), &mark);
    let start = Instant::now();
    let mut pty = Pty::spawn(app(&vault, &home), 160, 44);
    assert!(pty.wait_for(start, "slow ·", 30), "the app did not draw");
    // Idle: the agent started, nothing streaming, no status message to expire.
    std::thread::sleep(Duration::from_secs(3));
    let pid = pty.child.id();
    let mut out = Vec::new();
    for run in 0..runs {
        pty.write(b"\x1a");
        let deadline = Instant::now() + Duration::from_secs(10);
        while state(pid) != 'T' {
            assert!(
                Instant::now() < deadline,
                "run {run}: ctrl-z did not stop the app"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(200));
        let t0 = Instant::now();
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(pid as i32, libc::SIGCONT) };
        let Some(end) = pty.frame_end(t0, Duration::from_millis(150), 10) else {
            panic!("run {run}: no frame after SIGCONT");
        };
        assert!(
            pty.text_since(t0).contains("Vault"),
            "run {run}: the frame after SIGCONT has no vault pane"
        );
        out.push(end - t0);
        std::thread::sleep(Duration::from_millis(100));
    }
    pty.write(b"q");
    let deadline = Instant::now() + Duration::from_secs(10);
    while pty.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    out
}

/// Start to first frame, `runs` times: the app on an indexed demo vault (no config: the
/// built-in agent) until its vault pane is drawn, and `less` on the README until its first
/// screen, in turn; the pairs (app, less).
fn start(runs: usize) -> Vec<(Duration, Duration)> {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let index = Command::new(env!("CARGO_BIN_EXE_agentero"))
        .args(["index"])
        .arg(&vault)
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(index.status.success(), "the demo vault was not indexed");
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let mut out = Vec::new();
    for run in 0..runs + 1 {
        let t0 = Instant::now();
        let mut pty = Pty::spawn(app(&vault, &home), 160, 44);
        let Some(first) = pty.first_with(t0, "Vault", 30) else {
            panic!("run {run}: the app drew no vault pane");
        };
        let app_took = first - t0;
        pty.write(b"q");
        let deadline = Instant::now() + Duration::from_secs(10);
        while pty.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(pty);
        let mut less = Command::new("less");
        less.arg(&readme)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("TERM", "xterm-256color")
            .env("LESS", "");
        let t0 = Instant::now();
        let mut pty = Pty::spawn(less, 160, 44);
        let Some(first) = pty.first_with(t0, "agentero", 30) else {
            panic!("run {run}: less drew nothing");
        };
        let less_took = first - t0;
        pty.write(b"q");
        drop(pty);
        // The first pair warms the caches.
        if run > 0 {
            out.push((app_took, less_took));
        }
    }
    out
}

fn main() {
    let runs_start: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(12);
    let pairs = start(runs_start);
    let mut ratios: Vec<f64> = pairs
        .iter()
        .map(|(a, l)| a.as_secs_f64() / l.as_secs_f64().max(1e-6))
        .collect();
    ratios.sort_by(f64::total_cmp);
    common::report(
        "start → first frame (demo vault, indexed)",
        pairs.iter().map(|p| p.0).collect(),
        Some(Duration::from_millis(300)),
    );
    common::report(
        "less README.md: start → first screen",
        pairs.iter().map(|p| p.1).collect(),
        None,
    );
    println!(
        "app / less, run by run: median {:.2}x (min {:.2}x, max {:.2}x)",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
    if std::env::var_os("LIFECYCLE_START_ONLY").is_some() {
        return;
    }
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(12)
        .max(if std::env::var_os("LIFECYCLE_DEBUG").is_some() {
            1
        } else {
            10
        });
    let mut hup = Vec::new();
    for run in 0..runs {
        if let Some(d) = hang_up(run) {
            hup.push(d);
        }
    }
    assert!(
        hup.len() == runs,
        "{} of {runs} hang-ups measured",
        hup.len()
    );
    common::report(
        "hang-up → last agent gone",
        hup,
        Some(Duration::from_secs(2)),
    );
    common::report(
        "SIGCONT → first frame",
        resume(runs),
        Some(Duration::from_millis(100)),
    );
}
