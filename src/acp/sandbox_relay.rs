//! The context server of a restricted agent: the agent starts `agentero
//! --agentero-context-relay <socket> <grant>` (inside its restriction), which connects to the
//! host's [`Broker`] on a Unix socket in a private folder, names its grant, and then passes the
//! MCP bytes both ways; the broker runs the real `--agentero-context-mcp <grant>` outside the
//! restriction. The broker serves only grants of its vault's session folders.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// The hidden flag of the relay.
pub const RELAY_FLAG: &str = "--agentero-context-relay";

/// The longest grant path a relay may name.
const MAX_NAME: u64 = 4096;

/// The host's end: a socket that runs one context server per connection, for grants under
/// `sessions` only. Ends (and removes its socket) when dropped.
pub struct Broker {
    pub socket: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Broker {
    /// Listens at `socket` (in a private folder) for relays of grants under `sessions`, and
    /// serves each with `host_exe --agentero-context-mcp <grant>`.
    pub fn start(socket: PathBuf, host_exe: PathBuf, sessions: PathBuf) -> std::io::Result<Broker> {
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)?;
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (exe, sessions) = (host_exe.clone(), sessions.clone());
                tokio::spawn(async move {
                    if let Err(e) = serve(stream, &exe, &sessions).await {
                        tracing::warn!(error = %e, "a context relay was refused");
                    }
                });
            }
        });
        Ok(Broker { socket, task })
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// The grant a relay names, when it is a `grant.json` of a session folder under `sessions`.
fn granted(line: &str, sessions: &Path) -> Option<PathBuf> {
    let path = PathBuf::from(line.trim_end_matches(['\n', '\r']));
    if !path.is_absolute() || path.file_name()? != crate::context::grant::GRANT_FILE {
        return None;
    }
    let dir = path.parent()?.canonicalize().ok()?;
    let sessions = sessions.canonicalize().ok()?;
    (dir.parent()? == sessions).then(|| dir.join(crate::context::grant::GRANT_FILE))
}

async fn serve(stream: UnixStream, exe: &Path, sessions: &Path) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = String::new();
    (&mut read).take(MAX_NAME).read_line(&mut line).await?;
    let Some(grant) = granted(&line, sessions) else {
        return Err(std::io::Error::other(format!(
            "not a grant of this vault's sessions: {:?}",
            line.trim_end()
        )));
    };
    let mut child = tokio::process::Command::new(exe)
        .arg("--agentero-context-mcp")
        .arg(&grant)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the context server's stdio"));
    };
    let up = async {
        let _ = tokio::io::copy(&mut read, &mut stdin).await;
        drop(stdin);
    };
    let down = async {
        let _ = tokio::io::copy(&mut stdout, &mut write).await;
        let _ = write.shutdown().await;
    };
    tokio::join!(up, down);
    let _ = child.kill().await;
    Ok(())
}

/// `agentero --agentero-context-relay <socket> <grant>`: stdin to the broker, the broker to
/// stdout, until either side ends.
pub fn relay_main(args: &[OsString]) -> anyhow::Result<()> {
    let [socket, grant] = args else {
        anyhow::bail!("usage: {RELAY_FLAG} <socket> <grant>");
    };
    let grant = std::path::absolute(grant)?;
    let mut stream = std::os::unix::net::UnixStream::connect(socket)
        .map_err(|e| anyhow::anyhow!("cannot reach agentero's context broker: {e}"))?;
    stream.write_all(grant.as_os_str().as_encoded_bytes())?;
    stream.write_all(b"\n")?;
    let mut up = stream.try_clone()?;
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut up);
        let _ = up.shutdown(std::net::Shutdown::Write);
    });
    let mut out = std::io::stdout().lock();
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        out.write_all(&buf[..n])?;
        out.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_broker_serves_only_grants_of_its_sessions() {
        let t = tempfile::tempdir().unwrap();
        let sessions = t.path().join("state/context-sessions");
        std::fs::create_dir_all(sessions.join("rt-1")).unwrap();
        std::fs::create_dir_all(t.path().join("other/rt-2")).unwrap();
        let ok = sessions.join("rt-1/grant.json");
        assert!(granted(&format!("{}\n", ok.display()), &sessions).is_some());
        for bad in [
            t.path().join("other/rt-2/grant.json"),
            sessions.join("rt-1/../../other/rt-2/grant.json"),
            sessions.join("rt-1/usage.jsonl"),
            PathBuf::from("rt-1/grant.json"),
        ] {
            assert!(
                granted(&bad.display().to_string(), &sessions).is_none(),
                "{bad:?}"
            );
        }
    }
}
