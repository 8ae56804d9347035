//! The agent's process and its line transport, owned here rather than by the SDK's
//! `AcpAgent`, so that one bad line cannot end a turn: a line that is not UTF-8 is logged and
//! skipped (the SDK's own reader stops the connection on it), while lines that are not
//! JSON-RPC are the SDK's to answer and skip. The agent runs in a process group of its own:
//! a clean stop closes its stdin and, after a grace, ends the whole group; dropping the
//! handle ends the group at once (some adapters leave children running after stdin closes).

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::Stream;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdout};

/// The longest line read from an agent (a larger one is cut and skipped, not buffered whole).
const MAX_LINE: usize = 64 << 20;
const STDERR_TAIL_LINES: usize = 20;

/// What the reader of an agent's output reports besides lines.
#[derive(Debug, Default)]
pub struct LineStats {
    /// Lines skipped because they were not UTF-8 or too long.
    pub skipped: AtomicU64,
}

type Outgoing = std::pin::Pin<Box<dyn futures::Sink<String, Error = std::io::Error> + Send>>;
type Incoming = std::pin::Pin<Box<dyn Stream<Item = std::io::Result<String>> + Send>>;

/// The spawned agent: its line transport (for the SDK), its stderr tail and its group.
pub struct Spawned {
    pub lines: agent_client_protocol::Lines<Outgoing, Incoming>,
    pub group: Group,
    pub stderr: Arc<Mutex<VecDeque<String>>>,
    pub stats: Arc<LineStats>,
}

/// Every agent process group this process started and has not yet ended, so that a signal
/// or a panic can end them all even where the owning [`Group`] is never dropped (a task
/// blocked on its agent, a runtime shut down with a timeout).
static LIVE_GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn live_groups() -> std::sync::MutexGuard<'static, Vec<u32>> {
    LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

fn forget_group(pgid: u32) {
    live_groups().retain(|g| *g != pgid);
}

/// Whether any process of group `pgid` is still alive (signal 0 reaches it).
#[cfg(unix)]
fn group_alive(pgid: u32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pgid as i32) else {
        return false;
    };
    // The group's leader is our child: once it has exited it stays a zombie (and the group
    // "alive") until reaped, so reap it here if it is done.
    let _ = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG);
    rustix::process::test_kill_process_group(pid).is_ok()
}

/// The agent process groups still running.
pub fn live_agent_groups() -> Vec<u32> {
    live_groups().clone()
}

/// Ends every agent process group still running: SIGTERM to each group, up to `grace` for
/// them to exit, then SIGKILL for what is left. Blocking (it runs on the way out: after the
/// app loop, on SIGHUP/SIGTERM, from the panic hook). Returns how many groups were ended.
pub fn stop_all_groups(grace: Duration) -> usize {
    let groups = std::mem::take(&mut *live_groups());
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let pids: Vec<Pid> = groups
            .iter()
            .filter_map(|g| Pid::from_raw(*g as i32))
            .collect();
        for pid in &pids {
            let _ = kill_process_group(*pid, Signal::TERM);
        }
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline && groups.iter().any(|g| group_alive(*g)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        for pid in &pids {
            let _ = kill_process_group(*pid, Signal::KILL);
        }
    }
    groups.len()
}

/// The agent's process group; ended when dropped.
pub struct Group {
    child: Option<Child>,
    pgid: Option<u32>,
}

impl Group {
    /// Ends the whole group now (SIGKILL).
    pub fn kill(&mut self) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid.take() {
            if let Some(pid) = rustix::process::Pid::from_raw(pgid as i32) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            forget_group(pgid);
        }
        if let Some(c) = self.child.as_mut() {
            let _ = c.start_kill();
        }
    }

    /// Ends the agent once its stdin is closed: a moment to exit on its own (Gemini CLI
    /// does), then SIGTERM to the group and up to `grace` to exit (adapters that ignore EOF,
    /// such as Claude Code's and Codex's, end on it), then SIGKILL for whatever is left.
    pub async fn stop(&mut self, grace: Duration) {
        if let Some(c) = self.child.as_mut() {
            let exited = tokio::time::timeout(Duration::from_millis(150), c.wait())
                .await
                .is_ok();
            if !exited {
                #[cfg(unix)]
                if let Some(pid) = self
                    .pgid
                    .and_then(|p| rustix::process::Pid::from_raw(p as i32))
                {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
                }
                let _ = tokio::time::timeout(grace, c.wait()).await;
            }
        }
        self.kill();
    }

    /// The agent's process has exited.
    pub fn has_exited(&mut self) -> bool {
        match self.child.as_mut() {
            Some(c) => !matches!(c.try_wait(), Ok(None)),
            None => true,
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads lines of an agent's stdout: UTF-8 lines are passed on, others skipped (logged).
fn line_stream(
    stdout: ChildStdout,
    agent: String,
    stats: Arc<LineStats>,
    on_line: Arc<dyn Fn(&str) + Send + Sync>,
) -> impl Stream<Item = std::io::Result<String>> + Send {
    futures::stream::unfold(
        (BufReader::with_capacity(1 << 16, stdout), Vec::new()),
        move |(mut reader, mut buf)| {
            let (agent, stats, on_line) = (agent.clone(), stats.clone(), on_line.clone());
            async move {
                loop {
                    buf.clear();
                    let mut too_long = false;
                    // read_until with a cap: a line beyond MAX_LINE is drained, not kept.
                    loop {
                        let chunk = match reader.fill_buf().await {
                            Ok(c) => c,
                            Err(e) => return Some((Err(e), (reader, buf))),
                        };
                        if chunk.is_empty() {
                            if buf.is_empty() && !too_long {
                                return None;
                            }
                            break;
                        }
                        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
                            Some(i) => (i + 1, true),
                            None => (chunk.len(), false),
                        };
                        if buf.len() + take <= MAX_LINE {
                            buf.extend_from_slice(&chunk[..take]);
                        } else {
                            too_long = true;
                        }
                        reader.consume(take);
                        if done {
                            break;
                        }
                    }
                    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                        buf.pop();
                    }
                    if too_long {
                        stats.skipped.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(agent = %agent, "skipped a line of more than {MAX_LINE} bytes from the agent");
                        continue;
                    }
                    match std::str::from_utf8(&buf) {
                        Ok(line) => {
                            on_line(line);
                            return Some((Ok(line.to_string()), (reader, buf)));
                        }
                        Err(_) => {
                            stats.skipped.fetch_add(1, Ordering::Relaxed);
                            tracing::warn!(
                                agent = %agent,
                                bytes = buf.len(),
                                "skipped a line from the agent that is not UTF-8: {}",
                                String::from_utf8_lossy(&buf).chars().take(200).collect::<String>()
                            );
                        }
                    }
                }
            }
        },
    )
}

/// Starts `command args` with `env` in a process group of its own, stdio piped. `on_stdout`
/// sees every line passed to the SDK (for the debug log and for raw fields the typed schema
/// drops); stderr lines go to the log and a short tail.
pub fn spawn(
    agent: &str,
    command: &Path,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&Path>,
    on_stdout: Arc<dyn Fn(&str) + Send + Sync>,
) -> std::io::Result<Spawned> {
    let mut cmd = tokio::process::Command::new(command);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd.spawn()?;
    let pgid = child.id();
    if let Some(g) = pgid {
        live_groups().push(g);
    }
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(std::io::Error::other(
            "the agent's stdio could not be piped",
        ));
    };
    let tail: Arc<Mutex<VecDeque<String>>> = Arc::default();
    let (name, t) = (agent.to_string(), tail.clone());
    tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).split(b'\n');
        while let Ok(Some(raw)) = lines.next_segment().await {
            let line = String::from_utf8_lossy(&raw).trim_end().to_string();
            tracing::info!(agent = %name, "stderr: {line}");
            let mut q = t.lock().unwrap_or_else(|e| e.into_inner());
            if q.len() == STDERR_TAIL_LINES {
                q.pop_front();
            }
            q.push_back(line);
        }
    });
    let stats = Arc::new(LineStats::default());
    let incoming = line_stream(stdout, agent.to_string(), stats.clone(), on_stdout);
    let name = agent.to_string();
    let outgoing = futures::sink::unfold(stdin, move |mut w, line: String| {
        let name = name.clone();
        async move {
            tracing::trace!(agent = %name, "-> {line}");
            w.write_all(line.as_bytes()).await?;
            w.write_all(b"\n").await?;
            w.flush().await?;
            Ok::<_, std::io::Error>(w)
        }
    });
    Ok(Spawned {
        lines: agent_client_protocol::Lines::new(Box::pin(outgoing), Box::pin(incoming)),
        group: Group {
            child: Some(child),
            pgid,
        },
        stderr: tail,
        stats,
    })
}
