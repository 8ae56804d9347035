//! Whether the index covers the vault. A build holds `{vault}/.agentero/index.lock` (an
//! exclusive file lock, released by the system when the process dies, even by `kill -9`) and
//! keeps `{vault}/.agentero/index-build.json`: `running` with its progress while it works,
//! `complete` — written atomically after the catalog — once a full pass has finished. So a
//! reader can tell an index that covers the vault from one being built now (the lock is
//! held) and from one whose build was interrupted (the record still says `running` and
//! nobody holds the lock).

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::index::IndexError;
use super::statefs;
use super::{Vault, VaultError};

pub const LOCK_FILE: &str = "index.lock";
pub const RECORD_FILE: &str = "index-build.json";

/// How often a running build rewrites its progress at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Phase {
    Running,
    Complete,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    state: Phase,
    /// Files processed so far in this build, and how many it has to process.
    done: usize,
    total: usize,
    pid: u32,
}

/// What the index is, as far as a search over it is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// The last build finished: the index covers the vault as of then.
    Complete,
    /// Another process is building it now; `done` of `total` files are processed (0 of 0
    /// while it is still scanning). What is committed so far can be searched.
    Building { done: usize, total: usize },
    /// A build stopped before it finished (killed or failed): part of the vault may be
    /// missing from the index until it is run again.
    Interrupted,
    /// There is no index.
    Missing,
}

impl IndexState {
    /// What to tell whoever searches this index; `None` when it covers the vault.
    pub fn notice(&self) -> Option<String> {
        match self {
            IndexState::Complete => None,
            IndexState::Building { done, total } => Some(format!(
                "{}; results may be incomplete",
                building(*done, *total)
            )),
            IndexState::Interrupted => Some(
                "the index was interrupted before it was complete; results may be incomplete \
                 until `agentero index` runs again"
                    .into(),
            ),
            IndexState::Missing => Some("the vault has no search index yet".into()),
        }
    }

    /// Why nothing can be searched yet, for an index being built that has nothing committed.
    pub fn nothing_yet(&self) -> String {
        let what = match self {
            IndexState::Building { done, total } => building(*done, *total),
            _ => "another agentero process is updating this vault's index".into(),
        };
        format!("{what}; nothing is searchable yet: search again when it is done")
    }
}

fn building(done: usize, total: usize) -> String {
    if total == 0 {
        "the index is being built by another agentero process".into()
    } else {
        format!("the index is being built by another agentero process ({done} of {total} files)")
    }
}

fn lock_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join(LOCK_FILE)
}

fn record_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join(RECORD_FILE)
}

fn read_record(path: &Path) -> Option<Record> {
    let bytes = statefs::read_if_exists(path).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Whether another process holds the build lock (a shared lock cannot be had).
fn locked_elsewhere(vault: &Vault) -> bool {
    let Ok(file) = statefs::open_read(&lock_path(vault)) else {
        return false;
    };
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(_)) => false,
    }
}

/// The state of `vault`'s index (a small file read and a lock probe; no index file is opened).
pub fn state(vault: &Vault) -> IndexState {
    let record = read_record(&record_path(vault));
    if locked_elsewhere(vault) {
        let (done, total) = record
            .filter(|r| r.state == Phase::Running)
            .map_or((0, 0), |r| (r.done, r.total));
        return IndexState::Building { done, total };
    }
    match record.map(|r| r.state) {
        Some(Phase::Complete) => IndexState::Complete,
        Some(Phase::Running) => IndexState::Interrupted,
        None if !vault.index_dir().join("meta.json").exists() => IndexState::Missing,
        // An index from a version without the record: complete when its catalog was saved
        // (the last step of a build), else a first build that never finished.
        None if vault.catalog_path().exists() => IndexState::Complete,
        None => IndexState::Interrupted,
    }
}

/// The lock of a build in progress, and its record. Dropping it without [`Build::complete`]
/// leaves the record `running`: the build counts as interrupted.
pub struct Build {
    file: File,
    record: PathBuf,
    done: usize,
    total: usize,
    written: Instant,
}

impl Build {
    /// Takes the build lock, or fails with [`IndexError::Busy`] while another process holds
    /// it, and records the build as running.
    pub fn start(vault: &Vault) -> Result<Build, VaultError> {
        let dir = vault.ensure_state_dir()?;
        let not_writable = |path: PathBuf| {
            move |source: std::io::Error| VaultError::StateNotWritable { path, source }
        };
        let lock = dir.join(LOCK_FILE);
        // Opened as agentero's own state file (no link followed, ours alone); the lock is
        // on the open file, whatever its mode.
        let file = statefs::open_append(&lock).map_err(|e| not_writable(lock.clone())(e.into()))?;
        // A search probing the lock holds it shared for a moment: try a few times.
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if tries < 10 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(TryLockError::WouldBlock) => return Err(IndexError::Busy.into()),
                Err(TryLockError::Error(e)) => return Err(not_writable(lock)(e)),
            }
        }
        let build = Build {
            file,
            record: dir.join(RECORD_FILE),
            done: 0,
            total: 0,
            written: Instant::now(),
        };
        build.write(Phase::Running, true)?;
        Ok(build)
    }

    /// Writes the record; `durable` waits for the disk (the start and the end of a build), the
    /// progress in between is only news and is not worth an fsync each time.
    fn write(&self, state: Phase, durable: bool) -> Result<(), VaultError> {
        let record = Record {
            state,
            done: self.done,
            total: self.total,
            pid: std::process::id(),
        };
        let bytes = serde_json::to_vec(&record).map_err(|e| VaultError::StateNotWritable {
            path: self.record.clone(),
            source: std::io::Error::other(e),
        })?;
        let written = if durable {
            statefs::atomic_write(&self.record, &bytes)
        } else {
            statefs::atomic_write_unsynced(&self.record, &bytes)
        };
        written.map_err(|e| VaultError::StateNotWritable {
            path: self.record.clone(),
            source: e.into(),
        })
    }

    /// Records progress (at most every [`PROGRESS_EVERY`]; a failed write only loses news).
    pub fn progress(&mut self, done: usize, total: usize) {
        self.done = done;
        self.total = total;
        if done == 0 || done == total || self.written.elapsed() >= PROGRESS_EVERY {
            self.written = Instant::now();
            let _ = self.write(Phase::Running, false);
        }
    }

    /// Records the build as complete (after the catalog is saved) and releases the lock.
    pub fn complete(self) -> Result<(), VaultError> {
        self.write(Phase::Complete, true)?;
        let _ = self.file.unlock();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_complete_only_once_it_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        assert_eq!(state(&vault), IndexState::Missing);
        let mut build = Build::start(&vault).unwrap();
        build.progress(0, 38);
        // The lock is per open file: this process probing through another one sees it held.
        assert_eq!(state(&vault), IndexState::Building { done: 0, total: 38 });
        build.progress(38, 38);
        assert_eq!(
            state(&vault),
            IndexState::Building {
                done: 38,
                total: 38
            }
        );
        assert!(matches!(
            Build::start(&vault),
            Err(VaultError::Index(IndexError::Busy))
        ));
        drop(build);
        assert_eq!(state(&vault), IndexState::Interrupted);
        let build = Build::start(&vault).unwrap();
        build.complete().unwrap();
        assert_eq!(state(&vault), IndexState::Complete);
        assert!(IndexState::Complete.notice().is_none());
        let n = IndexState::Building {
            done: 12,
            total: 38,
        }
        .notice()
        .unwrap();
        assert!(n.contains("(12 of 38 files)"), "{n}");
    }
}
