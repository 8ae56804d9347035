//! Incremental indexing: scan, compare with the catalog (size + mtime, then sha256), extract
//! what changed on all cores, write it to the index from one thread, commit, save the catalog.
//! A missing, corrupt or old-schema index is rebuilt from scratch.

use std::collections::{HashSet, VecDeque};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::build::{Build, IndexState};
use super::catalog::{Catalog, CatalogEntry, LoadOutcome, Status};
use super::extract::{self, PaperRecord};
use super::fsutil::sha256_hex;
use super::index::{Identity, IndexDoc, IndexError, SearchIndex};
use super::meta::file_title;
use super::pdf::PageText;
use super::scan::{Entry, EntryKind, MAX_TEXT_BYTES};
use super::statefs;
use super::textfile;
use super::{Vault, VaultError};

#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Time allowed for one PDF before it is reported as failed.
    pub time_limit: Duration,
    /// Extraction threads (default: all cores).
    pub threads: usize,
    /// Rebuild from scratch, for this reason (a search found the index damaged).
    pub rebuild: Option<String>,
}

impl Default for IndexOptions {
    fn default() -> Self {
        // `AGENTERO_INDEX_THREADS` overrides the core count (benchmarks measure memory with it).
        let threads = std::env::var("AGENTERO_INDEX_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n: &usize| *n > 0)
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(2)
            });
        IndexOptions {
            time_limit: Duration::from_secs(60),
            threads,
            rebuild: None,
        }
    }
}

/// Bytes of PDF being extracted at once, over all threads. A parsed PDF takes ten to twenty times
/// its size in memory, and each thread's allocator keeps what its largest file needed, so this
/// bounds what extraction holds whatever the number of cores: about ten typical papers at once
/// (more than two cores can use), and a file larger than the budget goes alone.
const IN_FLIGHT_BYTES: u64 = 4 << 20;
/// What the smallest file counts for (a parse has a floor of its own).
const MIN_WEIGHT: u64 = 384 << 10;

#[derive(Default)]
struct Budget {
    used: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `size` bytes fit in the budget (or nothing else is in flight) and takes them.
    fn take(&self, size: u64) -> u64 {
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

    fn give_back(&self, taken: u64) {
        if let Ok(mut used) = self.used.lock() {
            *used = used.saturating_sub(taken);
        }
        self.freed.notify_all();
    }
}

/// Progress events, in order: one `Planned`, then one `Processed` per changed file.
#[derive(Debug, Clone)]
pub enum Progress {
    Planned {
        to_process: usize,
        unchanged: usize,
        removed: usize,
    },
    Processed {
        path: String,
        done: usize,
        total: usize,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexSummary {
    pub papers: usize,
    pub pages: usize,
    pub files: usize,
    pub chunks: usize,
    pub directories: usize,
    /// Files processed in this run (new or changed).
    pub updated: usize,
    /// Files whose size, mtime or hash matched the catalog.
    pub unchanged: usize,
    pub removed: usize,
    /// Papers without any text layer.
    pub no_text: Vec<String>,
    /// Papers with pages whose text could not be decoded, and how many such pages.
    pub undecodable: Vec<(String, u32)>,
    /// Entries not indexed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Warnings that did not stop a file (a broken sidecar, say).
    pub warnings: Vec<(String, String)>,
    /// Why the whole index was rebuilt, when it was.
    pub rebuilt: Option<String>,
    pub elapsed: Duration,
}

impl IndexSummary {
    pub fn up_to_date(&self) -> bool {
        self.updated == 0 && self.removed == 0 && self.rebuilt.is_none()
    }
}

struct Job {
    entry: Entry,
    known_sha: Option<String>,
    /// The paper's metadata from its Zotero item (it replaces what the PDF says).
    meta: Option<super::meta::PaperMeta>,
}

/// The stamp of metadata from an outside source ([`CatalogEntry::meta`]).
fn meta_stamp(meta: &super::meta::PaperMeta) -> String {
    sha256_hex(serde_json::to_string(meta).unwrap_or_default().as_bytes())
}

enum Outcome {
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

fn process(job: &Job, vault: &Vault, limit: Duration) -> Outcome {
    let abs = vault.abs_path(&job.entry.path);
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
            match extract::extract_paper(&abs, &job.entry.path, bytes, sha.clone(), limit) {
                Ok((mut record, pages)) => {
                    if let Some(meta) = &job.meta {
                        record.meta = meta.clone();
                    }
                    Outcome::Paper {
                        record: Box::new(record),
                        pages,
                    }
                }
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

/// Brings the index of `vault` up to date.
pub fn index_vault(
    vault: &Vault,
    opts: &IndexOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<IndexSummary, VaultError> {
    let started = Instant::now();
    vault.ensure_state_dir()?;
    // Held to the end: a search meanwhile says the index is being built, and one after a
    // crash says the build was interrupted.
    let mut build = Build::start(vault)?;
    let mut summary = IndexSummary::default();
    let index_dir = vault.index_dir();

    let (mut catalog, mut rebuild) = match Catalog::load(&vault.catalog_path()) {
        LoadOutcome::Loaded(c) => (c, None),
        LoadOutcome::Missing => (Catalog::default(), None),
        LoadOutcome::Unusable(why) => (Catalog::default(), Some(why)),
    };
    if let Some(why) = &opts.rebuild {
        rebuild = Some(why.clone());
    }
    let index = match (&rebuild, SearchIndex::open(&index_dir)) {
        (None, Ok(i)) if !catalog.entries.is_empty() || i.num_docs() == 0 => Some(i),
        (None, Ok(_)) => {
            rebuild = Some("the catalog is missing".into());
            None
        }
        (None, Err(super::index::IndexError::Missing)) => {
            if !catalog.entries.is_empty() {
                rebuild = Some("the index is missing".into());
            }
            None
        }
        (None, Err(e)) => {
            rebuild = Some(e.to_string());
            None
        }
        (Some(_), _) => None,
    };
    let index = match index {
        Some(i) => i,
        None => {
            if index_dir.symlink_metadata().is_ok() {
                statefs::remove_dir_all(&index_dir).map_err(|e| VaultError::StateNotWritable {
                    path: index_dir.clone(),
                    source: e.into(),
                })?;
            }
            if rebuild.is_some() {
                catalog = Catalog::default();
            }
            SearchIndex::create(&index_dir)?
        }
    };
    if let Some(why) = &rebuild {
        tracing::warn!(vault = %vault.root().display(), reason = %why, "rebuilding the index");
    }
    summary.rebuilt = rebuild;

    let entries = vault.scan()?;
    let present: HashSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    let removed: Vec<String> = catalog
        .entries
        .keys()
        .filter(|p| !present.contains(p.as_str()))
        .cloned()
        .collect();
    let mut jobs = VecDeque::new();
    for entry in &entries {
        match entry.kind {
            EntryKind::Directory => {
                summary.directories += 1;
                continue;
            }
            EntryKind::Paper | EntryKind::File => {}
        }
        let meta = match (entry.kind, vault.zotero()) {
            (EntryKind::Paper, Some(z)) => z.meta(&entry.path),
            _ => None,
        };
        let stamp = meta.as_ref().map(meta_stamp);
        match catalog.entries.get(&entry.path) {
            Some(known)
                if known.size == entry.size
                    && known.mtime_ns == entry.mtime_ns
                    && (known.meta == stamp || known.status == Status::Failed) =>
            {
                summary.unchanged += 1;
            }
            known => jobs.push_back(Job {
                entry: entry.clone(),
                // New metadata: the paper is recorded again even when its PDF is the same.
                known_sha: known
                    .filter(|k| k.kind == entry.kind && k.size == entry.size && k.meta == stamp)
                    .map(|k| k.sha256.clone()),
                meta,
            }),
        }
    }
    let total = jobs.len();
    build.progress(0, total);
    progress(Progress::Planned {
        to_process: total,
        unchanged: summary.unchanged,
        removed: removed.len(),
    });

    if total > 0 || !removed.is_empty() {
        let mut writer = index.writer()?;
        for path in &removed {
            index.delete_path(&writer, path);
            catalog.entries.remove(path);
        }
        summary.removed = removed.len();

        let queue = Arc::new(Mutex::new(jobs));
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
                    loop {
                        let job = match queue.lock() {
                            Ok(mut q) => q.pop_front(),
                            Err(_) => None,
                        };
                        let Some(job) = job else { break };
                        let taken = match job.entry.kind {
                            EntryKind::Paper => budget.take(job.entry.size),
                            _ => 0,
                        };
                        let outcome = process(&job, &worker_vault, limit);
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
        drop(tx);

        let records_dir = vault.records_dir();
        for (n, (entry, outcome)) in rx.into_iter().enumerate() {
            let done = n + 1;
            apply(
                &index,
                &writer,
                &records_dir,
                &mut catalog,
                &mut summary,
                entry.clone(),
                outcome,
            )?;
            build.progress(done, total);
            progress(Progress::Processed {
                path: entry.path,
                done,
                total,
            });
        }
        for h in handles {
            let _ = h.join();
        }
        writer.commit().map_err(IndexError::from)?;
        // Wait for merges so the next open sees a tidy index and no lock is left behind.
        writer.wait_merging_threads().map_err(IndexError::from)?;
        collect_garbage(&records_dir, &catalog);
        // The paper records were written without an fsync each: one sync makes them durable
        // before the catalog that points at them (a crash before it re-extracts those papers).
        if summary.updated > 0 {
            let state_dir = vault.state_dir();
            statefs::sync_folder(&state_dir).map_err(|e| VaultError::StateNotWritable {
                path: state_dir.clone(),
                source: e.into(),
            })?;
        }
    }
    catalog
        .save(&vault.catalog_path())
        .map_err(|source| VaultError::StateNotWritable {
            path: vault.catalog_path(),
            source,
        })?;
    build.complete()?;

    for (path, e) in &catalog.entries {
        match (e.kind, e.status) {
            (_, Status::Failed) => summary
                .failed
                .push((path.clone(), e.error.clone().unwrap_or_default())),
            (EntryKind::Paper, s) => {
                summary.papers += 1;
                summary.pages += e.units as usize;
                if s == Status::NoText {
                    summary.no_text.push(path.clone());
                }
                if e.undecodable > 0 {
                    summary.undecodable.push((path.clone(), e.undecodable));
                }
            }
            (EntryKind::File, _) => {
                summary.files += 1;
                summary.chunks += e.units as usize;
            }
            (EntryKind::Directory, _) => {}
        }
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// The index, ready to search: built first when there is none, rebuilt when it is damaged or
/// of another version, completed when its last build was interrupted. `notice` is told once,
/// before the work starts, what is being done and why; `progress` follows the (re)build.
pub fn open_or_rebuild(
    vault: &Vault,
    opts: &IndexOptions,
    progress: &mut dyn FnMut(Progress),
    notice: &mut dyn FnMut(&str),
) -> Result<SearchIndex, VaultError> {
    open_for_search(vault, opts, progress, notice).map(|(index, _)| index)
}

/// [`open_or_rebuild`], and what a search over the index must say because the index does not
/// cover the vault: another process is building it (what it has committed is searched; with
/// nothing committed yet this fails with [`IndexError::Building`]). `None`: it covers the vault.
pub fn open_for_search(
    vault: &Vault,
    opts: &IndexOptions,
    progress: &mut dyn FnMut(Progress),
    notice: &mut dyn FnMut(&str),
) -> Result<(SearchIndex, Option<String>), VaultError> {
    let building = |notice: &mut dyn FnMut(&str)| {
        let state = super::build::state(vault);
        match vault.open_index() {
            Ok(index) => {
                let text = state
                    .notice()
                    .filter(|_| matches!(state, IndexState::Building { .. }))
                    .unwrap_or_else(|| {
                        "another agentero process is updating this vault's index; results may be incomplete".into()
                    });
                notice(&text);
                Ok((index, Some(text)))
            }
            Err(VaultError::Index(IndexError::Missing)) => {
                Err(VaultError::Index(IndexError::Building(state.nothing_yet())))
            }
            Err(e) => Err(e),
        }
    };
    match super::build::state(vault) {
        IndexState::Building { .. } => return building(notice),
        IndexState::Interrupted => {
            tracing::warn!("the last index build was interrupted; completing it");
            notice("the index was interrupted before it was complete; rebuilding it…");
            return match index_vault(vault, opts, progress) {
                Ok(_) => Ok((vault.open_index()?, None)),
                Err(VaultError::Index(IndexError::Busy)) => building(notice),
                Err(e) => Err(e),
            };
        }
        IndexState::Missing | IndexState::Complete => {}
    }
    let why = match vault.open_index() {
        Ok(index) => return Ok((index, None)),
        Err(VaultError::Index(IndexError::Missing)) => {
            notice("No index yet: indexing the vault first…");
            None
        }
        Err(VaultError::Index(IndexError::Busy)) => {
            return Err(VaultError::Index(IndexError::Busy));
        }
        Err(e) => {
            tracing::warn!(error = %e, "the index cannot be used; rebuilding it");
            notice(&format!("{e}: rebuilding it from the vault…"));
            Some(e.to_string())
        }
    };
    let opts = IndexOptions {
        rebuild: why.or_else(|| opts.rebuild.clone()),
        ..opts.clone()
    };
    match index_vault(vault, &opts, progress) {
        Ok(_) => Ok((vault.open_index()?, None)),
        Err(VaultError::Index(IndexError::Busy)) => building(notice),
        Err(e) => Err(e),
    }
}

/// Runs `search` on the index and, when it finds the index damaged after all (a file that
/// passed its checksum but made tantivy fail), rebuilds it once and searches again.
pub fn search_or_rebuild<T>(
    vault: &Vault,
    index: SearchIndex,
    progress: &mut dyn FnMut(Progress),
    notice: &mut dyn FnMut(&str),
    search: impl Fn(&SearchIndex) -> Result<T, IndexError>,
) -> Result<T, VaultError> {
    match search(&index) {
        Err(IndexError::Corrupt(why)) => {
            drop(index);
            let why = format!("the search index is damaged ({why})");
            tracing::warn!(reason = %why, "rebuilding the index after a failed search");
            notice(&format!("{why}: rebuilding it from the vault…"));
            let opts = IndexOptions {
                rebuild: Some(why),
                ..IndexOptions::default()
            };
            index_vault(vault, &opts, progress)?;
            Ok(search(&vault.open_index()?)?)
        }
        other => Ok(other?),
    }
}

#[allow(clippy::too_many_arguments)]
fn apply(
    index: &SearchIndex,
    writer: &tantivy::IndexWriter,
    records_dir: &std::path::Path,
    catalog: &mut Catalog,
    summary: &mut IndexSummary,
    entry: Entry,
    outcome: Outcome,
) -> Result<(), VaultError> {
    let path = entry.path.clone();
    let base = |sha256: String, status, error, units, title| CatalogEntry {
        kind: entry.kind,
        size: entry.size,
        mtime_ns: entry.mtime_ns,
        sha256,
        status,
        error,
        units,
        undecodable: 0,
        title,
        meta: None,
    };
    match outcome {
        Outcome::SameContent => {
            summary.unchanged += 1;
            if let Some(known) = catalog.entries.get_mut(&path) {
                known.mtime_ns = entry.mtime_ns;
                known.size = entry.size;
            }
            return Ok(());
        }
        Outcome::Failed { sha256, reason } => {
            index.delete_path(writer, &path);
            catalog.entries.insert(
                path.clone(),
                base(sha256, Status::Failed, Some(reason), 0, file_title(&path)),
            );
        }
        Outcome::Paper { record, pages } => {
            index.delete_path(writer, &path);
            let authors = record.meta.authors.join(", ");
            for page in &pages {
                index.add(
                    writer,
                    &IndexDoc {
                        path: &path,
                        kind: EntryKind::Paper,
                        title: &record.meta.title,
                        authors: &authors,
                        carries_title: page.number == 1,
                        identity: Identity {
                            year: record.meta.year,
                            doi: record.meta.doi.as_deref(),
                            arxiv: record.meta.arxiv.as_deref(),
                            abstract_text: record.meta.abstract_text.as_deref(),
                        },
                        page: Some(page.number),
                        page_label: page.label.as_deref(),
                        lines: None,
                        text: &page.text,
                        sha256: &record.sha256,
                    },
                )?;
            }
            for w in &record.warnings {
                summary.warnings.push((path.clone(), w.clone()));
            }
            let status = if record.pages_without_text.len() == pages.len() {
                Status::NoText
            } else {
                Status::Indexed
            };
            let bytes = serde_json::to_vec(&*record).map_err(|e| VaultError::StateNotWritable {
                path: records_dir.to_path_buf(),
                source: std::io::Error::other(e),
            })?;
            // Made durable all at once, before the catalog that refers to it is saved.
            statefs::atomic_write_unsynced(
                &records_dir.join(format!("{}.json", record.sha256)),
                &bytes,
            )
            .map_err(|e| VaultError::StateNotWritable {
                path: records_dir.to_path_buf(),
                source: e.into(),
            })?;
            let mut entry = base(
                record.sha256.clone(),
                status,
                None,
                pages.len() as u32,
                record.meta.title.clone(),
            );
            entry.undecodable = record.pages_undecodable.len() as u32;
            entry.meta = (record.meta.title_source == super::meta::MetaSource::Zotero)
                .then(|| meta_stamp(&record.meta));
            catalog.entries.insert(path.clone(), entry);
        }
        Outcome::File {
            sha256,
            title,
            text,
        } => {
            index.delete_path(writer, &path);
            let chunks = textfile::chunks(&text);
            for (i, c) in chunks.iter().enumerate() {
                index.add(
                    writer,
                    &IndexDoc {
                        path: &path,
                        kind: EntryKind::File,
                        title: &title,
                        authors: "",
                        carries_title: i == 0,
                        identity: Identity::default(),
                        page: None,
                        page_label: None,
                        lines: Some((c.start, c.end)),
                        text: &c.text,
                        sha256: &sha256,
                    },
                )?;
            }
            catalog.entries.insert(
                path.clone(),
                base(sha256, Status::Indexed, None, chunks.len() as u32, title),
            );
        }
    }
    summary.updated += 1;
    Ok(())
}

/// Removes paper records no catalog entry refers to any more.
fn collect_garbage(records_dir: &std::path::Path, catalog: &Catalog) {
    let live: HashSet<&str> = catalog
        .entries
        .values()
        .map(|e| e.sha256.as_str())
        .collect();
    let Ok(names) = statefs::check_dir(records_dir).and_then(|d| d.list()) else {
        return;
    };
    for name in names {
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if !live.contains(stem) {
            let _ = statefs::remove_file(&records_dir.join(&name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
