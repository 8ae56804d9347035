//! The extraction workers: a queue of changed files, a bound on the bytes of PDF in flight,
//! and what each file came to ([`Outcome`]).

use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::options::IndexOptions;
use crate::vault::extract::{self, Isolation, PaperRecord};
use crate::vault::fsutil::sha256_hex;
use crate::vault::meta::PaperMeta;
use crate::vault::pdf::PageText;
use crate::vault::scan::{Entry, EntryKind, MAX_TEXT_BYTES};
use crate::vault::textfile;
use crate::vault::{Vault, VaultError};

/// Bytes of PDF being extracted at once, over all threads. A parsed PDF takes ten to twenty times
/// its size in memory, and each thread's allocator keeps what its largest file needed, so this
/// bounds what extraction holds whatever the number of cores: about ten typical papers at once
/// (more than two cores can use), and a file larger than the budget goes alone.
pub(super) const IN_FLIGHT_BYTES: u64 = 4 << 20;
/// What the smallest file counts for (a parse has a floor of its own).
pub(super) const MIN_WEIGHT: u64 = 384 << 10;
/// PDFs this large are parsed only by the first [`LARGE_FILE_WORKERS`] workers. Each thread's
/// allocator keeps about the peak of the largest file that thread parsed (a 1.8 MB manual needs
/// 23 MB): with sixteen threads, sixteen such peaks would stay held; this way two do, and the
/// other threads keep what papers of ordinary size need.
pub(super) const LARGE_FILE_BYTES: u64 = 1 << 20;
pub(super) const LARGE_FILE_WORKERS: usize = 2;

#[derive(Default)]
pub(super) struct Budget {
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `size` bytes fit in the budget (or nothing else is in flight) and takes them.
    pub(super) fn take(&self, size: u64) -> u64 {
        let want = size.clamp(MIN_WEIGHT, IN_FLIGHT_BYTES);
        let Ok(mut used) = self.used.lock() else {
            return 0;
        };
        while *used > 0 && *used + want > IN_FLIGHT_BYTES {
            used = match self.freed.wait(used) {
                Ok(u) => u,
                Err(_) => return 0,
            };
        }
        *used += want;
        want
    }

    pub(super) fn give_back(&self, taken: u64) {
        if let Ok(mut used) = self.used.lock() {
            *used = used.saturating_sub(taken);
        }
        self.freed.notify_all();
    }
}

pub(super) struct Job {
    pub(super) entry: Entry,
    pub(super) known_sha: Option<String>,
    /// The paper's metadata from its Zotero item (it replaces what the PDF says).
    pub(super) meta: Option<PaperMeta>,
}

/// The stamp of metadata from an outside source ([`CatalogEntry::meta`]).
pub(super) fn meta_stamp(meta: &PaperMeta) -> String {
    sha256_hex(serde_json::to_string(meta).unwrap_or_default().as_bytes())
}

pub(super) enum Outcome {
    /// Content unchanged (only the mtime moved).
    SameContent,
    Paper {
        record: Box<PaperRecord>,
        pages: Vec<PageText>,
    },
    File {
        sha256: String,
        title: String,
        text: String,
    },
    Failed {
        sha256: String,
        reason: String,
    },
}

/// The files still to extract, the large ones apart.
pub(super) struct Queue {
    large: VecDeque<Job>,
    other: VecDeque<Job>,
}

impl Queue {
    pub(super) fn new(jobs: VecDeque<Job>) -> Self {
        let (large, other) = jobs
            .into_iter()
            .partition(|j| j.entry.kind == EntryKind::Paper && j.entry.size >= LARGE_FILE_BYTES);
        Queue { large, other }
    }

    /// The next file for worker `n`: the large ones (slowest, so first) go only to the first
    /// workers.
    pub(super) fn next(&mut self, n: usize) -> Option<Job> {
        if n < LARGE_FILE_WORKERS {
            self.large.pop_front().or_else(|| self.other.pop_front())
        } else {
            self.other.pop_front()
        }
    }
}

fn process(job: &Job, vault: &Vault, limit: Duration, isolation: &mut Isolation) -> Outcome {
    // Read through the resolved path: a file whose links lead outside the vault is refused.
    let abs = match vault.read_path(&job.entry.path) {
        Ok(abs) => abs,
        Err(why) => {
            return Outcome::Failed {
                sha256: String::new(),
                reason: format!("not read: {why}"),
            };
        }
    };
    let bytes = match std::fs::read(&abs) {
        Ok(b) => b,
        Err(e) => {
            return Outcome::Failed {
                sha256: String::new(),
                reason: format!("cannot read the file: {e}"),
            };
        }
    };
    let sha = sha256_hex(&bytes);
    if job.known_sha.as_deref() == Some(sha.as_str()) {
        return Outcome::SameContent;
    }
    match job.entry.kind {
        EntryKind::Paper => {
            let ocr = crate::vault::ocr::OcrCache::new(vault);
            let file = extract::PaperFile {
                abs: &abs,
                rel: &job.entry.path,
                bytes,
                sha256: sha.clone(),
                meta: job.meta.clone(),
                ocr: Some(&ocr),
            };
            match extract::record(isolation, file, limit) {
                Ok((record, pages)) => Outcome::Paper {
                    record: Box::new(record),
                    pages,
                },
                Err(e) => Outcome::Failed {
                    sha256: sha,
                    reason: e.to_string(),
                },
            }
        }
        _ => {
            if bytes.len() as u64 > MAX_TEXT_BYTES {
                return Outcome::Failed {
                    sha256: sha,
                    reason: format!("larger than {} MB; not indexed", MAX_TEXT_BYTES >> 20),
                };
            }
            match String::from_utf8(bytes) {
                Ok(text) => Outcome::File {
                    title: textfile::title(&job.entry.path, &text),
                    sha256: sha,
                    text,
                },
                Err(_) => Outcome::Failed {
                    sha256: sha,
                    reason: "not valid UTF-8 text".into(),
                },
            }
        }
    }
}

/// The worker threads (`opts.threads`, at most 16), taking `jobs` in order; each file's outcome
/// arrives on the receiver, which closes when the queue is empty.
pub(super) type Workers = (
    mpsc::Receiver<(Entry, Outcome)>,
    Vec<std::thread::JoinHandle<()>>,
);

pub(super) fn spawn(
    vault: &Vault,
    opts: &IndexOptions,
    jobs: VecDeque<Job>,
) -> Result<Workers, VaultError> {
    let queue = Arc::new(Mutex::new(Queue::new(jobs)));
    let budget = Arc::new(Budget::default());
    let threads = opts.threads.clamp(1, 16);
    let (tx, rx) = mpsc::sync_channel::<(Entry, Outcome)>(threads * 2);
    let mut handles = Vec::new();
    for n in 0..threads {
        let queue = Arc::clone(&queue);
        let budget = Arc::clone(&budget);
        let tx = tx.clone();
        let worker_vault = vault.clone();
        let limit = opts.time_limit;
        let handle = std::thread::Builder::new()
            .name(format!("agentero-index-{n}"))
            .spawn(move || {
                let mut isolation = Isolation::default();
                loop {
                    let job = match queue.lock() {
                        Ok(mut q) => q.next(n),
                        Err(_) => None,
                    };
                    let Some(job) = job else { break };
                    let taken = match job.entry.kind {
                        EntryKind::Paper => budget.take(job.entry.size),
                        _ => 0,
                    };
                    let outcome = process(&job, &worker_vault, limit, &mut isolation);
                    budget.give_back(taken);
                    if tx.send((job.entry, outcome)).is_err() {
                        break;
                    }
                }
            })
            .map_err(|source| VaultError::Unreadable {
                path: vault.root().to_path_buf(),
                source,
            })?;
        handles.push(handle);
    }
    Ok((rx, handles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_papers_go_only_to_the_first_workers() {
        let job = |path: &str, kind, size| Job {
            entry: Entry {
                path: path.into(),
                kind,
                size,
                mtime_ns: 0,
            },
            known_sha: None,
            meta: None,
        };
        let mut q = Queue::new(VecDeque::from([
            job("a.pdf", EntryKind::Paper, 10_000),
            job("big.pdf", EntryKind::Paper, LARGE_FILE_BYTES),
            job("notes.md", EntryKind::File, 2 * LARGE_FILE_BYTES),
            job("b.pdf", EntryKind::Paper, 20_000),
        ]));
        let path = |j: Option<Job>| j.map(|j| j.entry.path);
        let last = LARGE_FILE_WORKERS + 3;
        assert_eq!(path(q.next(last)), Some("a.pdf".into()));
        assert_eq!(path(q.next(last)), Some("notes.md".into()), "not a PDF");
        assert_eq!(path(q.next(LARGE_FILE_WORKERS - 1)), Some("big.pdf".into()));
        assert_eq!(path(q.next(last)), Some("b.pdf".into()));
        assert_eq!(path(q.next(last)), None);
        assert_eq!(path(q.next(0)), None);
    }

    #[test]
    fn budget_bounds_the_bytes_in_flight() {
        let budget = Arc::new(Budget::default());
        let big = budget.take(IN_FLIGHT_BYTES * 3 / 4);
        assert_eq!(
            budget.take(1000),
            MIN_WEIGHT,
            "small files count for the floor"
        );
        let (tx, rx) = mpsc::channel();
        let waiting = Arc::clone(&budget);
        std::thread::spawn(move || {
            let taken = waiting.take(IN_FLIGHT_BYTES / 2);
            let _ = tx.send(taken);
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(200)).is_err(),
            "a file that does not fit waits"
        );
        budget.give_back(big);
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(10)),
            Ok(IN_FLIGHT_BYTES / 2)
        );
        budget.give_back(IN_FLIGHT_BYTES / 2);
        budget.give_back(MIN_WEIGHT);
        // Larger than the whole budget: it goes, alone.
        assert_eq!(budget.take(100 << 20), IN_FLIGHT_BYTES);
    }
}
