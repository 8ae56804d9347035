//! A Zotero data directory (`zotero.sqlite` + `storage/`) as a vault, read-only always. The
//! database is read through [`db`] (immutable, or a copy of it and its `-wal` in the state
//! folder), its rows mapped by [`library`]; collections, notes and linked files get vault paths
//! of their own, kept in the state folder's `zotero/view/` (folders for collections, the notes'
//! text) so the rest of agentero lists and reads them like any folder and file. Nothing is
//! written inside the Zotero folder.

pub mod db;
mod fields;
pub mod library;
pub mod prefs;
pub mod read;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

pub use library::{Library, ZoteroItem};

use super::annotations::Annotation;
use super::meta::{MetaSource, PaperMeta};
use super::paths::{self, Refusal, Resolved, StateRel};
use super::publication::Publication;
use super::scan::{Entry, EntryKind, mtime_ns};
use super::{VaultError, statefs};

pub const DATABASE: &str = "zotero.sqlite";

/// Vault paths that are the library's own, not files of the Zotero folder.
const VIRTUAL_TOPS: [&str; 3] = ["collections", "notes", "linked"];

/// Whether `dir` is a Zotero data directory.
pub fn is_data_dir(dir: &Path) -> bool {
    dir.join(DATABASE).is_file() && dir.join("storage").is_dir()
}

/// An open Zotero library: its folder, its state folder and what was last read.
#[derive(Debug)]
pub struct Source {
    root: PathBuf,
    state: PathBuf,
    current: RwLock<(db::Stamp, Arc<Library>)>,
}

fn zotero_err(root: &Path, reason: impl std::fmt::Display) -> VaultError {
    VaultError::Zotero {
        path: root.to_path_buf(),
        reason: reason.to_string(),
    }
}

impl Source {
    pub fn open(root: &Path, state: &Path) -> Result<Source, VaultError> {
        statefs::ensure_dir(state).map_err(|e| VaultError::StateNotWritable {
            path: state.to_path_buf(),
            source: e.into(),
        })?;
        let (stamp, lib) = load(root, state)?;
        Ok(Source {
            root: root.to_path_buf(),
            state: state.to_path_buf(),
            current: RwLock::new((stamp, Arc::new(lib))),
        })
    }

    fn view(&self) -> PathBuf {
        view_dir(&self.state)
    }

    /// The library as last read.
    pub fn library(&self) -> Arc<Library> {
        self.current
            .read()
            .map(|g| g.1.clone())
            .unwrap_or_else(|e| e.into_inner().1.clone())
    }

    /// Reads the library again when the database changed since; returns the library now.
    pub fn refresh(&self) -> Result<Arc<Library>, VaultError> {
        let now = db::stamp(&self.root.join(DATABASE));
        let known = self.current.read().map(|g| g.0).unwrap_or_default();
        if now == known {
            return Ok(self.library());
        }
        let (stamp, lib) = load(&self.root, &self.state)?;
        let lib = Arc::new(lib);
        if let Ok(mut g) = self.current.write() {
            *g = (stamp, lib.clone());
        }
        Ok(lib)
    }

    /// The vault's entries: papers, their folders, collection folders, notes.
    pub fn scan(&self) -> Result<Vec<Entry>, VaultError> {
        let lib = self.refresh()?;
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        let mut out = Vec::new();
        let add_parents = |rel: &str, dirs: &mut BTreeSet<String>| {
            let mut p = rel;
            while let Some((d, _)) = p.rsplit_once('/') {
                dirs.insert(d.to_string());
                p = d;
            }
        };
        for (rel, item) in &lib.papers {
            let Ok(meta) = std::fs::metadata(&item.abs) else {
                continue;
            };
            add_parents(rel, &mut dirs);
            out.push(Entry {
                path: rel.clone(),
                kind: EntryKind::Paper,
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            });
        }
        for rel in lib.collections.keys() {
            dirs.insert(rel.clone());
            add_parents(rel, &mut dirs);
        }
        for rel in lib.notes.keys() {
            let Some(Ok(meta)) = in_view(&self.view(), rel).map(std::fs::metadata) else {
                continue;
            };
            add_parents(rel, &mut dirs);
            out.push(Entry {
                path: rel.clone(),
                kind: EntryKind::File,
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            });
        }
        out.extend(dirs.into_iter().map(|path| Entry {
            path,
            kind: EntryKind::Directory,
            size: 0,
            mtime_ns: 0,
        }));
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Whether `rel` names one of the library's own places rather than a file of the folder.
    pub fn is_virtual(&self, rel: &str) -> bool {
        VIRTUAL_TOPS.contains(&rel.split('/').next().unwrap_or(""))
    }

    /// Resolves a vault path: `storage/…` in the Zotero folder, the library's own places
    /// through its view; nothing else of the folder (its databases, its caches) is a vault path.
    pub fn resolve(&self, rel: &str) -> Result<Resolved, Refusal> {
        let norm = if rel.trim() == "." {
            String::new()
        } else {
            paths::normalize(rel)?
        };
        let top = norm.split('/').next().unwrap_or("");
        if norm.is_empty() || top == "storage" {
            return paths::resolve(&self.root, &norm);
        }
        if !self.is_virtual(&norm) {
            return Err(Refusal::NotFound);
        }
        let lib = self.library();
        if let Some(item) = lib.papers.get(&norm) {
            let abs = item.abs.canonicalize().map_err(|_| Refusal::NotFound)?;
            if !abs.is_file() {
                return Err(Refusal::NotFound);
            }
            return Ok(Resolved {
                rel: norm,
                abs,
                is_dir: false,
            });
        }
        let known_dir = lib.collections.contains_key(&norm)
            || lib
                .papers
                .keys()
                .any(|p| p.starts_with(&format!("{norm}/")))
            || lib.notes.contains_key(&norm)
            || lib.notes.keys().any(|p| p.starts_with(&format!("{norm}/")))
            || (norm == "collections" && !lib.collections.is_empty());
        if !known_dir {
            return Err(Refusal::NotFound);
        }
        let abs = in_view(&self.view(), &norm).ok_or(Refusal::NotFound)?;
        let meta = std::fs::symlink_metadata(&abs).map_err(|_| Refusal::NotFound)?;
        if meta.file_type().is_symlink() {
            return Err(Refusal::NotFound);
        }
        Ok(Resolved {
            rel: norm,
            abs,
            is_dir: meta.is_dir(),
        })
    }

    /// Where a linked file or a note is on disk (`None` for a path that is not one of the
    /// library's own places, or not made of checked components).
    pub fn abs_path(&self, rel: &str) -> Option<PathBuf> {
        if !self.is_virtual(rel) {
            return None;
        }
        let lib = self.library();
        if let Some(item) = lib.papers.get(rel) {
            return Some(item.abs.clone());
        }
        in_view(&self.view(), rel)
    }

    /// What the user should know about the library as last read: rows left out and why,
    /// a Better BibTeX database that could not be used. One line each.
    pub fn warnings(&self) -> Vec<String> {
        self.library().warnings.clone()
    }

    /// The papers of the collection folder `rel` and of its sub-collections, sorted.
    pub fn collection_papers(&self, rel: &str) -> Option<Vec<String>> {
        let rel = rel.trim_end_matches('/');
        let lib = self.library();
        lib.collections.get(rel)?;
        let below = format!("{rel}/");
        let mut out: Vec<String> = lib
            .collections
            .iter()
            .filter(|(k, _)| *k == rel || k.starts_with(&below))
            .flat_map(|(_, v)| v.iter().cloned())
            .collect();
        out.sort();
        out.dedup();
        Some(out)
    }

    pub fn annotations(&self, paper_rel: &str) -> Vec<Annotation> {
        self.library()
            .annotations
            .get(paper_rel)
            .cloned()
            .unwrap_or_default()
    }

    /// The papers that have Zotero annotations, in path order.
    pub fn annotated_papers(&self) -> Vec<String> {
        let mut out: Vec<String> = self.library().annotations.keys().cloned().collect();
        out.sort();
        out
    }

    /// The Zotero item behind the paper at `paper_rel`.
    pub fn item(&self, paper_rel: &str) -> Option<ZoteroItem> {
        self.library().papers.get(paper_rel).cloned()
    }

    /// The paper's metadata as Zotero has it (what the index records instead of the PDF's).
    pub fn meta(&self, paper_rel: &str) -> Option<PaperMeta> {
        let item = self.item(paper_rel)?;
        Some(PaperMeta {
            title: item.title.clone(),
            authors: item.author_names(),
            year: item.year,
            doi: item.doi.clone(),
            arxiv: item.arxiv.clone(),
            abstract_text: item.abstract_text.clone(),
            title_source: MetaSource::Zotero,
            publication: Publication {
                names: item.author_parts(),
                ..item.publication.clone()
            },
            citation_key: item.citation_key.clone(),
        })
    }
}

fn view_dir(state: &Path) -> PathBuf {
    state.join("zotero").join("view")
}

/// Reads the library and brings its view in the state folder up to date.
fn load(root: &Path, state: &Path) -> Result<(db::Stamp, Library), VaultError> {
    let copies = state.join("zotero").join("db");
    let deadline = std::time::Instant::now() + db::READ_DEADLINE;
    let (mut conn, stamp) =
        db::open(&root.join(DATABASE), &copies).map_err(|e| zotero_err(root, e))?;
    db::bound(&mut conn, deadline).map_err(|e| zotero_err(root, e))?;
    let rows = read::read(&conn).map_err(|e| zotero_err(root, e))?;
    drop(conn);
    let (bbt, bbt_warning) = db::bbt_keys(root, &copies, deadline);
    let base = prefs::base_dir(root);
    let mut lib = library::build(&rows, root, base.as_deref(), &bbt);
    lib.warnings.extend(bbt_warning);
    sync_view(&view_dir(state), &mut lib).map_err(|e| VaultError::StateNotWritable {
        path: view_dir(state),
        source: e.into(),
    })?;
    let skipped = lib.skipped.lines();
    lib.warnings.extend(skipped);
    for w in &lib.warnings {
        tracing::warn!(zotero = %root.display(), "{w}");
    }
    tracing::info!(
        zotero = %root.display(),
        papers = lib.papers.len(),
        collections = lib.collections.len(),
        notes = lib.notes.len(),
        "read the Zotero library"
    );
    Ok((stamp, lib))
}

/// Where the library's place `rel` (a collection folder, a note) is in the view, `None` when
/// `rel` is not made of checked components.
fn in_view(view: &Path, rel: &str) -> Option<PathBuf> {
    StateRel::parse(rel).ok().map(|r| r.on(view))
}

/// Makes `view` hold exactly the library's folders and note files: what is unchanged keeps
/// its times (so a re-index sees it unchanged), what is gone is removed. A folder or note that
/// cannot be written is left out of the library with a warning; a state folder that is not
/// agentero's own fails the whole load (its message says how to repair it).
fn sync_view(view: &Path, lib: &mut Library) -> Result<(), statefs::StateError> {
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    let mut parents = |rel: &str| {
        let mut p = rel;
        while let Some((d, _)) = p.rsplit_once('/') {
            dirs.insert(d.to_string());
            p = d;
        }
    };
    for rel in lib.collections.keys() {
        parents(&format!("{rel}/x"));
    }
    for rel in lib.notes.keys() {
        parents(rel);
    }
    for rel in lib.papers.keys().filter(|p| p.starts_with("linked/")) {
        parents(rel);
    }
    statefs::ensure_dir(view)?;
    remove_stale(view, "", &dirs, lib)?;
    let mut failed: Vec<String> = Vec::new();
    let mut fail = |rel: &str, e: Option<statefs::StateError>| -> Result<(), statefs::StateError> {
        match e {
            Some(e) if e.problem().is_some() => return Err(e),
            Some(e) => tracing::warn!(error = %e, "a Zotero entry is left out"),
            None => tracing::warn!("a Zotero entry with an unusable name is left out"),
        }
        failed.push(rel.to_string());
        Ok(())
    };
    for d in &dirs {
        match in_view(view, d).map(|p| statefs::ensure_dir(&p)) {
            Some(Ok(_)) => {}
            Some(Err(e)) => fail(d, Some(e))?,
            None => fail(d, None)?,
        }
    }
    for (rel, text) in &lib.notes {
        let Some(path) = in_view(view, rel) else {
            fail(rel, None)?;
            continue;
        };
        let same = match statefs::read_if_exists(&path) {
            Ok(old) => old.as_deref() == Some(text.as_bytes()),
            Err(e) if e.problem().is_some() => return Err(e),
            Err(_) => false,
        };
        if !same && let Err(e) = statefs::atomic_write(&path, text.as_bytes()) {
            fail(rel, Some(e))?;
        }
    }
    for rel in failed {
        let below = format!("{rel}/");
        lib.notes.retain(|k, _| *k != rel && !k.starts_with(&below));
        lib.collections
            .retain(|k, _| *k != rel && !k.starts_with(&below));
        lib.skipped.unwritable += 1;
    }
    Ok(())
}

fn remove_stale(
    view: &Path,
    rel: &str,
    dirs: &BTreeSet<String>,
    lib: &Library,
) -> Result<(), statefs::StateError> {
    let here = view.join(rel);
    for name in statefs::check_dir(&here)?.list()? {
        let Some(name) = name.to_str().map(str::to_string) else {
            continue;
        };
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Some(path) = in_view(view, &child) else {
            continue;
        };
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if is_dir && dirs.contains(&child) {
            remove_stale(view, &child, dirs, lib)?;
        } else if is_dir {
            statefs::remove_dir_all(&path)?;
        } else if !lib.notes.contains_key(&child) {
            statefs::remove_file(&path)?;
        }
    }
    Ok(())
}
