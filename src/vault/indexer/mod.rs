//! Incremental indexing: scan, compare with the catalog (size + mtime, then sha256), extract
//! what changed on all cores, write it to the index from one thread, commit, save the catalog.
//! A missing, corrupt or old-schema index is rebuilt from scratch.

use std::collections::{HashSet, VecDeque};
use std::time::Instant;

use super::build::{Build, IndexState};
use super::catalog::{Catalog, LoadOutcome, Status};
use super::index::{IndexError, SearchIndex};
use super::scan::{Entry, EntryKind};
use super::statefs;
use super::{Vault, VaultError};

mod apply;
mod options;
mod work;

pub use options::{IndexOptions, IndexSummary, Progress};
use work::Job;

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
    let (index, mut catalog, rebuilt) = open_to_update(vault, opts)?;
    summary.rebuilt = rebuilt;

    let entries = vault.scan()?;
    let (jobs, removed) = plan(vault, &entries, &catalog, &mut summary);
    let total = jobs.len();
    build.progress(0, total);
    progress(Progress::Planned {
        to_process: total,
        unchanged: summary.unchanged,
        removed: removed.len(),
    });
    if total > 0 || !removed.is_empty() {
        // A first build (or one after everything was removed) has nothing to delete: tantivy
        // would look every path up at each segment it writes.
        let fresh = index.num_docs() == 0;
        update(
            vault,
            opts,
            (&index, fresh),
            (jobs, &removed),
            &mut catalog,
            &mut summary,
            &mut build,
            progress,
        )?;
    }
    if let Some(ocr) = &opts.ocr {
        // What is indexed so far is kept before the long pass: a kill during it loses at
        // most the page being read (each read page is in the cache at once).
        catalog
            .save(&vault.catalog_path())
            .map_err(|source| VaultError::StateNotWritable {
                path: vault.catalog_path(),
                source,
            })?;
        read_scans(
            vault,
            opts,
            ocr,
            (&index, &entries),
            &mut catalog,
            &mut summary,
            &mut build,
            progress,
        )?;
    }
    summary.embeddings =
        super::embed::sync(vault.embeddings(), &vault.vectors_path(), &index, &catalog);
    catalog
        .save(&vault.catalog_path())
        .map_err(|source| VaultError::StateNotWritable {
            path: vault.catalog_path(),
            source,
        })?;
    build.complete()?;
    tally(&catalog, &mut summary);
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// The index to update and its catalog, both empty when the index is rebuilt, and why it is.
fn open_to_update(
    vault: &Vault,
    opts: &IndexOptions,
) -> Result<(SearchIndex, Catalog, Option<String>), VaultError> {
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
        (None, Err(IndexError::Missing)) => {
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
    Ok((index, catalog, rebuild))
}

/// The files to process (new, changed, or with new metadata) and the catalog's paths that are
/// gone; counts the folders and the unchanged files into `summary`.
fn plan(
    vault: &Vault,
    entries: &[Entry],
    catalog: &Catalog,
    summary: &mut IndexSummary,
) -> (VecDeque<Job>, Vec<String>) {
    let present: HashSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
    let removed: Vec<String> = catalog
        .entries
        .keys()
        .filter(|p| !present.contains(p.as_str()))
        .cloned()
        .collect();
    let mut jobs = VecDeque::new();
    for entry in entries {
        match entry.kind {
            EntryKind::Directory => {
                summary.directories += 1;
                continue;
            }
            EntryKind::Paper | EntryKind::File => {}
        }
        let meta = match entry.kind {
            EntryKind::Paper => crate::vault::extract::outside_meta(vault, &entry.path),
            _ => None,
        };
        let stamp = meta.as_ref().map(work::meta_stamp);
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
    (jobs, removed)
}

/// The OCR pass over the pages still waiting for it, then the papers it read extracted again
/// (their pages now take the OCR from the cache).
#[allow(clippy::too_many_arguments)]
fn read_scans(
    vault: &Vault,
    opts: &IndexOptions,
    ocr: &crate::vault::ocr::OcrOptions,
    (index, entries): (&SearchIndex, &[Entry]),
    catalog: &mut Catalog,
    summary: &mut IndexSummary,
    build: &mut Build,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), VaultError> {
    let pass = crate::vault::ocr::run(vault, catalog, ocr, &mut |path, page, done, total| {
        progress(Progress::Ocr {
            path: path.to_string(),
            page,
            done,
            total,
        })
    })
    .map_err(|e| VaultError::Ocr(e.to_string()))?;
    if !pass.papers.is_empty() {
        let jobs: VecDeque<Job> = entries
            .iter()
            .filter(|e| pass.papers.contains(&e.path))
            .map(|e| Job {
                entry: e.clone(),
                known_sha: None,
                meta: match (e.kind, vault.zotero()) {
                    (EntryKind::Paper, Some(z)) => z.meta(&e.path),
                    _ => None,
                },
            })
            .collect();
        let updated = summary.updated;
        // The papers were written once this run already: their pages are replaced.
        update(
            vault,
            opts,
            (index, false),
            (jobs, &[]),
            catalog,
            summary,
            build,
            progress,
        )?;
        // Read again, not changed: counted once.
        summary.updated = updated;
    }
    summary.ocr = Some(pass);
    Ok(())
}

/// Deletes the removed paths, processes the jobs on the workers and writes each outcome as it
/// arrives, commits, and makes the paper records durable.
#[allow(clippy::too_many_arguments)]
fn update(
    vault: &Vault,
    opts: &IndexOptions,
    (index, fresh): (&SearchIndex, bool),
    (jobs, removed): (VecDeque<Job>, &[String]),
    catalog: &mut Catalog,
    summary: &mut IndexSummary,
    build: &mut Build,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), VaultError> {
    let total = jobs.len();
    let mut writer = index.writer()?;
    for path in removed {
        index.delete_path(&writer, path);
        catalog.entries.remove(path);
    }
    summary.removed = removed.len();
    let (rx, handles) = work::spawn(vault, opts, jobs)?;
    let records_dir = vault.records_dir();
    for (n, (entry, outcome)) in rx.into_iter().enumerate() {
        let done = n + 1;
        apply::apply(
            index,
            &writer,
            fresh,
            &records_dir,
            catalog,
            summary,
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
    apply::collect_garbage(&records_dir, catalog);
    // The paper records were written without an fsync each: one sync makes them durable
    // before the catalog that points at them (a crash before it re-extracts those papers).
    if summary.updated > 0 {
        let state_dir = vault.state_dir();
        statefs::sync_folder(&state_dir).map_err(|e| VaultError::StateNotWritable {
            path: state_dir.clone(),
            source: e.into(),
        })?;
    }
    Ok(())
}

/// The catalog's counts: papers, pages, files, chunks, and the papers without text or with
/// undecodable pages, and the failures.
fn tally(catalog: &Catalog, summary: &mut IndexSummary) {
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
}

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
