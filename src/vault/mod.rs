//! The vault: scanning, PDF page text, metadata, references and the derived search index.
//! Knows nothing of agents or the UI.

pub mod annotation_search;
pub mod annotations;
pub mod bibtex;
pub mod boxes;
pub mod build;
pub mod catalog;
pub mod checked;
pub mod citekeys;
pub mod demo;
pub mod embed;
pub mod extract;
pub mod fsutil;
pub mod furniture;
pub mod highlights;
pub mod ids;
pub mod index;
pub mod indexer;
pub mod links;
pub mod marked;
pub mod meta;
pub mod ocr;
pub mod output;
pub mod paths;
pub mod pdf;
pub mod publication;
pub mod ranking;
pub mod reading;
pub mod refs;
pub mod render;
pub mod scan;
pub mod state;
pub mod statefs;
pub mod textfile;
pub mod tokenizer;
pub mod uri;
pub mod visible;
pub mod zotero;

use std::path::{Path, PathBuf};

pub use catalog::{Catalog, CatalogEntry, Status};
pub use extract::{PaperRecord, Section};
pub use index::{Card, PageRef, PaperHit, Scope, SearchIndex, SearchOptions};
pub use paths::{Refusal, Resolved};
pub use scan::{Entry, EntryKind};

#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    #[error("no vault at {0}: the folder does not exist")]
    NotFound(PathBuf),
    #[error("{0} is not a folder")]
    NotADirectory(PathBuf),
    #[error("cannot read the vault at {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the vault's state folder {path}: {source}")]
    StateNotWritable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Index(#[from] index::IndexError),
    #[error("{0}")]
    Ocr(String),
    #[error("cannot read the Zotero library at {path}: {reason}")]
    Zotero { path: PathBuf, reason: String },
}

/// What kind of folder a vault is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VaultKind {
    /// A folder of PDFs and notes.
    Folder,
    /// A Zotero data directory (`zotero.sqlite` + `storage/`), read from its database and
    /// never written.
    Zotero,
}

/// An open vault: a canonical root folder, its kind, and the state folder that belongs to it
/// (`{vault}/.agentero/` when the vault can be written, else outside it: [`state`]).
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
    state: state::StateLocation,
    zotero: Option<std::sync::Arc<zotero::Source>>,
    /// The embedding model its index and searches use (this process's, unless set).
    embeddings: embed::ModelChoice,
}

impl Vault {
    pub fn open(path: &Path) -> Result<Vault, VaultError> {
        Vault::open_at(path, None, &state::external_base())
    }

    /// Opens the vault with external state folders under `base` instead of
    /// `$XDG_STATE_HOME/agentero` (tests and benchmarks keep everything in a scratch folder).
    pub fn open_with_state_base(path: &Path, base: &Path) -> Result<Vault, VaultError> {
        Vault::open_at(path, None, base)
    }

    /// Opens the vault at `path` whose state folder holds `inside` (a grant file, say): that
    /// state folder is used when it is this vault's own — `{vault}/.agentero/` or its external
    /// folder by name — whatever `$XDG_STATE_HOME` says in this process. A child process (the
    /// context server an agent starts) may not see the variable the app saw.
    pub fn open_for_state(path: &Path, inside: &Path) -> Result<Vault, VaultError> {
        Vault::open_at(
            path,
            statefs::state_root_of(inside).as_deref(),
            &state::external_base(),
        )
    }

    fn open_at(path: &Path, state_hint: Option<&Path>, base: &Path) -> Result<Vault, VaultError> {
        let root = Self::canonical_root(path)?;
        let zotero = zotero::is_data_dir(&root);
        let prefix = zotero.then_some("zotero");
        let mut location = if zotero {
            state::decide(&root, false, prefix, base)
        } else {
            state::decide(&root, state::writable(&root), None, base)
        };
        if let Some(hint) = state_hint
            && state::belongs_to(hint, &root, prefix)
        {
            location = state::StateLocation {
                dir: hint.to_path_buf(),
                external: hint != root.join(paths::STATE_DIR),
            };
        }
        let source = if zotero {
            Some(std::sync::Arc::new(zotero::Source::open(
                &root,
                &location.dir,
            )?))
        } else {
            None
        };
        Ok(Vault {
            root,
            state: location,
            zotero: source,
            embeddings: embed::process_choice(),
        })
    }

    fn canonical_root(path: &Path) -> Result<PathBuf, VaultError> {
        let root = match path.canonicalize() {
            Ok(p) => p,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(VaultError::NotFound(path.to_path_buf()));
            }
            Err(source) => {
                return Err(VaultError::Unreadable {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        if !root.is_dir() {
            return Err(VaultError::NotADirectory(root));
        }
        if let Err(source) = std::fs::read_dir(&root) {
            return Err(VaultError::Unreadable { path: root, source });
        }
        Ok(root)
    }

    pub fn kind(&self) -> VaultKind {
        if self.zotero.is_some() {
            VaultKind::Zotero
        } else {
            VaultKind::Folder
        }
    }

    /// The vault is not written: its state is kept outside it ([`Vault::state_dir`]).
    pub fn is_read_only(&self) -> bool {
        self.state.external
    }

    /// The one line a read-only vault is announced with (`None` for a writable one).
    pub fn read_only_notice(&self) -> Option<String> {
        self.is_read_only().then(|| {
            let what = match self.kind() {
                VaultKind::Zotero => "Zotero library is read-only",
                VaultKind::Folder => "vault is read-only",
            };
            format!("{what}: state kept in {}", self.state.dir.display())
        })
    }

    /// Says this process has the vault open: an advisory lock on `.agentero/app.lock` (released
    /// by the kernel when the process ends, however it ends), holding its pid. When another
    /// process holds it, the notice says so — two apps on one vault each save their highlights
    /// and marks without seeing the other's until restarted (threads arrive on their own). Keep the returned lock for
    /// as long as the vault is open; `None` for a read-only vault or one whose state folder
    /// cannot be written.
    pub fn claim(&self) -> (Option<std::fs::File>, Option<String>) {
        use std::io::{Read, Seek, Write};
        let path = self.state_dir().join("app.lock");
        let Ok(mut f) = statefs::open_rw(&path) else {
            return (None, None);
        };
        match f.try_lock() {
            Ok(()) => {
                let _ = f.set_len(0);
                let _ = f.seek(std::io::SeekFrom::Start(0));
                let _ = write!(f, "{}", std::process::id());
                (Some(f), None)
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut pid = String::new();
                let _ = f.read_to_string(&mut pid);
                let pid: String = pid
                    .trim()
                    .chars()
                    .filter(char::is_ascii_digit)
                    .take(10)
                    .collect();
                let who = if pid.is_empty() {
                    "another agentero".to_string()
                } else {
                    format!("agentero pid {pid}")
                };
                (
                    None,
                    Some(format!(
                        "vault also open in {who}: highlights and marks one saves, the other sees after a restart"
                    )),
                )
            }
            Err(std::fs::TryLockError::Error(e)) => {
                tracing::warn!(error = %e, "cannot lock app.lock");
                (None, None)
            }
        }
    }

    /// The Zotero library behind this vault, when it is one.
    pub fn zotero(&self) -> Option<&zotero::Source> {
        self.zotero.as_deref()
    }

    /// Zotero's annotations of the PDF at `paper_rel` (empty for a folder vault).
    pub fn zotero_annotations(&self, paper_rel: &str) -> Vec<annotations::Annotation> {
        self.zotero
            .as_ref()
            .map(|z| z.annotations(paper_rel))
            .unwrap_or_default()
    }

    /// The papers a Zotero collection folder (`collections/<name>/…`) holds, with those of its
    /// sub-collections; `None` when `rel` is not one.
    pub fn collection_papers(&self, rel: &str) -> Option<Vec<String>> {
        self.zotero.as_ref()?.collection_papers(rel)
    }

    /// Where the file of the entry at `rel` is on disk (a linked Zotero file, a note written
    /// out in the state folder, or the vault's own file). A name that is not made of checked
    /// components ([`paths::VaultRel`]: no `..`, no hidden or empty ones) leads nowhere: the
    /// empty path, which no read finds. To read a file, [`Vault::read_path`] also follows its
    /// links and checks where they lead.
    pub fn abs_path(&self, rel: &str) -> PathBuf {
        let Ok(checked) = paths::VaultRel::parse(rel.trim_end_matches('/')) else {
            return PathBuf::new();
        };
        match &self.zotero {
            Some(z) if z.is_virtual(rel) => z.abs_path(rel).unwrap_or_default(),
            _ => checked.on(&self.root),
        }
    }

    /// Where to read the file at `rel` from: its real place with every link followed, and
    /// only when that is inside the library ([`Vault::resolve`]) — the one rule for every
    /// source, so a symlink or a `..` that leads outside is never read.
    pub fn read_path(&self, rel: &str) -> Result<PathBuf, Refusal> {
        let r = self.resolve(rel)?;
        if r.is_dir {
            return Err(Refusal::Unsupported);
        }
        Ok(r.abs)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The state folder: `{vault}/.agentero/`, or outside a read-only vault
    /// (`$XDG_STATE_HOME/agentero/<name>-<hash>/`). The only place the app writes.
    pub fn state_dir(&self) -> PathBuf {
        self.state.dir.clone()
    }

    pub fn index_dir(&self) -> PathBuf {
        self.state_dir().join("index")
    }

    pub fn catalog_path(&self) -> PathBuf {
        self.state_dir().join("catalog.json")
    }

    pub fn records_dir(&self) -> PathBuf {
        self.state_dir().join("cache").join("papers")
    }

    /// Creates the state folder, or says clearly why it cannot be written.
    pub fn ensure_state_dir(&self) -> Result<PathBuf, VaultError> {
        let dir = self.state_dir();
        statefs::ensure_dir(&dir).map_err(|e| VaultError::StateNotWritable {
            path: dir.clone(),
            source: e.into(),
        })?;
        Ok(dir)
    }

    /// Every entry of the vault, sorted by path. A Zotero library is read again first when
    /// its database changed, so new and changed items are picked up.
    pub fn scan(&self) -> Result<Vec<Entry>, VaultError> {
        if let Some(z) = &self.zotero {
            return z.scan();
        }
        scan::scan(&self.root).map_err(|source| VaultError::Unreadable {
            path: self.root.clone(),
            source,
        })
    }

    /// Resolves a vault-relative path safely (see [`paths::resolve`]).
    pub fn resolve(&self, rel: &str) -> Result<Resolved, Refusal> {
        match &self.zotero {
            Some(z) => z.resolve(rel),
            None => paths::resolve(&self.root, rel),
        }
    }

    /// The vault path a resolved path really is (behind symlinks), `None` when it is outside
    /// the vault. A Zotero library's own places (linked files, collections, notes) are what
    /// they are named.
    pub fn canonical_rel(&self, resolved: &Resolved) -> Option<String> {
        if let Some(z) = &self.zotero
            && z.is_virtual(&resolved.rel)
        {
            return Some(resolved.rel.clone());
        }
        paths::to_rel(&self.root, &resolved.abs)
    }

    pub fn catalog(&self) -> Catalog {
        match Catalog::load(&self.catalog_path()) {
            catalog::LoadOutcome::Loaded(c) => c,
            _ => Catalog::default(),
        }
    }

    /// The stored record of a paper by content hash.
    pub fn record(&self, sha256: &str) -> Option<PaperRecord> {
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let bytes = statefs::read(&self.records_dir().join(format!("{sha256}.json"))).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// The record of the paper at `path`, as of the last index run.
    pub fn record_for(&self, path: &str) -> Option<PaperRecord> {
        let catalog = self.catalog();
        let entry = catalog.entries.get(path)?;
        self.record(&entry.sha256)
    }

    /// The index, with the passage vectors attached when this vault's model wrote them.
    pub fn open_index(&self) -> Result<SearchIndex, VaultError> {
        let index = SearchIndex::open(&self.index_dir())?;
        Ok(
            match embed::attach(&self.embeddings, &self.vectors_path()) {
                Some(v) => index.with_vectors(v),
                None => index,
            },
        )
    }

    /// The same vault with another embedding model (or none).
    pub fn with_embeddings(mut self, choice: embed::ModelChoice) -> Vault {
        self.embeddings = choice;
        self
    }

    pub fn embeddings(&self) -> &embed::ModelChoice {
        &self.embeddings
    }

    /// The passage vectors beside the index ([`embed::store`]).
    pub fn vectors_path(&self) -> PathBuf {
        self.state_dir().join("vectors.bin")
    }
}
