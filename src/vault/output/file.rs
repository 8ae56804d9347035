//! Files written where the user says (`-o FILE`): whole or not at all. The text goes to a
//! temporary file beside the target (`.{name}.agentero-{pid}.{n}.tmp`, so the rename stays in
//! one file system), is synced, then renamed over the target; on any error the temporary file
//! is removed. A writer killed in between leaves the old file (or none) under the name, never
//! a part of the new one, and its temporary file is swept by the next export into that folder
//! ([`sweep_exports`]). The state folder's own temporary files (`.{name}.{pid}.{n}.tmp`, from
//! [`statefs::atomic_write`]) are swept by [`sweep_state`].

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::super::statefs;

static SEQ: AtomicU64 = AtomicU64::new(0);

/// The marker of our export temporary files, before the pid.
const EXPORT_MARK: &str = ".agentero-";

/// Replaces (or creates) `path` with `bytes` atomically. An existing target that is not a
/// regular file (a folder, a device, a FIFO) is refused.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(std::io::Error::other("it exists and is not a regular file"));
        }
        _ => {}
    }
    sweep_exports(&dir);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        "{EXPORT_MARK}{}.{}.tmp",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = dir.join(&tmp_name);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        // The file keeps the permissions of the one it replaces.
        if let Ok(m) = std::fs::metadata(path) {
            f.set_permissions(m.permissions())?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    match written {
        Ok(()) => {
            // The rename made durable; a folder that cannot be synced still has the file.
            if let Ok(d) = std::fs::File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The pid in a temporary file's name `.{name}{mark}{pid}.{n}.tmp`.
fn tmp_pid(name: &OsStr, mark: &str) -> Option<i32> {
    let name = name.to_str()?;
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (before, seq) = rest.rsplit_once('.')?;
    if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let at = before.rfind(mark)?;
    let pid = &before[at + mark.len()..];
    if at == 0 || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether the process `pid` is gone (so a temporary file it named can no longer be written).
/// Our own pid is never gone; a process we may not signal is alive.
fn gone(pid: i32) -> bool {
    if u32::try_from(pid).ok() == Some(std::process::id()) {
        return false;
    }
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Removes the export temporary files in `dir` whose writer is gone; returns how many.
pub fn sweep_exports(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if is_file
            && tmp_pid(&e.file_name(), EXPORT_MARK).is_some_and(gone)
            && std::fs::remove_file(e.path()).is_ok()
        {
            n += 1;
        }
    }
    n
}

/// Removes the temporary files of [`statefs::atomic_write`] in the state folder `dir` whose
/// writer is gone (a highlight save or an export killed before its rename); returns how many.
pub fn sweep_state(dir: &Path) -> usize {
    let Ok(names) = statefs::check_dir(dir).and_then(|d| d.list()) else {
        return 0;
    };
    let mut n = 0;
    for name in names {
        if tmp_pid(&name, ".").is_some_and(gone) && statefs::remove_file(&dir.join(&name)).is_ok() {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_give_their_pid() {
        let pid = |s: &str, m: &str| tmp_pid(OsStr::new(s), m);
        assert_eq!(pid(".out.bib.agentero-4242.0.tmp", EXPORT_MARK), Some(4242));
        assert_eq!(pid(".a.b.json.77.3.tmp", "."), Some(77));
        assert_eq!(pid(".out.bib.agentero-x.0.tmp", EXPORT_MARK), None);
        assert_eq!(pid("out.bib.agentero-1.0.tmp", EXPORT_MARK), None);
        assert_eq!(pid(".agentero-1.0.tmp", EXPORT_MARK), None);
        assert_eq!(pid(".notes.md", "."), None);
        assert_eq!(pid(".x.12.tmp", "."), None);
    }

    #[test]
    fn a_write_replaces_whole_and_sweeps_what_a_dead_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.bib");
        write_atomic(&target, b"old").unwrap();
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A child that has exited: its pid is gone.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = dir.path().join(format!(".out.bib.agentero-{dead}.0.tmp"));
        let live = dir
            .path()
            .join(format!(".out.bib.agentero-{}.99.tmp", std::process::id()));
        std::fs::write(&stale, b"half").unwrap();
        std::fs::write(&live, b"busy").unwrap();
        write_atomic(&target, b"newer").unwrap();
        assert!(!stale.exists());
        assert!(live.exists(), "a live writer's file stays");
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        // A folder under the name is refused, and nothing is left behind.
        std::fs::create_dir(dir.path().join("d")).unwrap();
        assert!(write_atomic(&dir.path().join("d"), b"x").is_err());
        assert!(write_atomic(&dir.path().join("missing/x.bib"), b"x").is_err());
    }
}
