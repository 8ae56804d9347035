//! Which index files have passed their checksum already.
//!
//! tantivy trusts its files (a damaged one makes it panic or misread), so an index is checked
//! before it is searched. Reading the whole index on every open, though, is most of a search's
//! cost in a short-lived process (`agentero search`, an MCP server per turn): 75 MB for a
//! 1,000-paper vault. Segment files are immutable once written, so a file that passed keeps its
//! verdict while its length, modification time and inode stay those it had then. The record,
//! `index-checked.json` beside the index folder, holds them. A file modified less than
//! [`SETTLED`] before it was checked is not recorded (file times tick coarsely, so a damage
//! right after the write could keep its time); it is checked again on the next open.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

const SETTLED: Duration = Duration::from_secs(2);

/// A file's identity as the record keeps it: length, modification time (ns), inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp(u64, u128, u64);

impl Stamp {
    pub fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        let t = m.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        Some(Stamp(m.len(), t.as_nanos(), m.ino()))
    }

    fn settled(&self, now: SystemTime) -> bool {
        let now = now
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        now.saturating_sub(self.1) >= SETTLED.as_nanos()
    }
}

#[derive(Default, Serialize, Deserialize)]
pub struct Checked {
    #[serde(default)]
    files: BTreeMap<String, Stamp>,
}

impl Checked {
    /// The record of the index in `index_dir` (empty when missing or unreadable).
    pub fn load(index_dir: &Path) -> Checked {
        match super::statefs::read(&record_path(index_dir)) {
            Ok(b) => serde_json::from_slice(&b).unwrap_or_default(),
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(%e, "the index's checksum record was not used");
                }
                Checked::default()
            }
        }
    }

    /// Whether `name` passed its checksum with the identity it has now.
    pub fn passed(&self, name: &str, now: Option<Stamp>) -> bool {
        now.is_some() && self.files.get(name).copied() == now
    }

    /// Writes the record: the files that passed (`name`, identity when checked), the others
    /// forgotten. Best effort: a read-only vault just checks again next time.
    pub fn save(index_dir: &Path, passed: &[(String, Stamp)], now: SystemTime) {
        let files: BTreeMap<String, Stamp> = passed
            .iter()
            .filter(|(_, s)| s.settled(now))
            .cloned()
            .collect();
        let record = Checked { files };
        if let Ok(bytes) = serde_json::to_vec(&record)
            && let Err(e) = super::statefs::atomic_write(&record_path(index_dir), &bytes)
        {
            tracing::debug!(%e, "the index's checksum record was not written");
        }
    }
}

fn record_path(index_dir: &Path) -> PathBuf {
    index_dir.with_file_name("index-checked.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_trusted_only_with_the_identity_it_was_checked_with() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index");
        std::fs::create_dir(&index).unwrap();
        let f = index.join("a.store");
        std::fs::write(&f, b"0123456789").unwrap();
        let stamp = Stamp::of(&f).unwrap();
        // Too young to record: checked again next time.
        Checked::save(&index, &[("a.store".into(), stamp)], SystemTime::now());
        assert!(!Checked::load(&index).passed("a.store", Stamp::of(&f)));
        let later = SystemTime::now() + SETTLED;
        Checked::save(&index, &[("a.store".into(), stamp)], later);
        assert!(Checked::load(&index).passed("a.store", Stamp::of(&f)));
        // Rewritten with the same length: another modification time.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&f, b"9876543210").unwrap();
        assert!(!Checked::load(&index).passed("a.store", Stamp::of(&f)));
        assert!(!Checked::load(&index).passed("gone.store", None));
        // A corrupt record trusts nothing.
        std::fs::write(index.with_file_name("index-checked.json"), b"{\"files\":").unwrap();
        assert!(!Checked::load(&index).passed("a.store", Stamp::of(&f)));
    }
}
