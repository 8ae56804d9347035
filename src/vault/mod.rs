//! The vault: scanning, PDF page text, metadata, references and the derived search index.
//! Knows nothing of agents or the UI.

pub mod annotation_search;
pub mod annotations;
pub mod bibtex;
pub mod build;
pub mod catalog;
pub mod checked;
pub mod citekeys;
pub mod demo;
pub mod extract;
pub mod fsutil;
pub mod highlights;
pub mod ids;
pub mod index;
pub mod indexer;
pub mod meta;
pub mod paths;
pub mod pdf;
pub mod ranking;
pub mod reading;
pub mod refs;
pub mod render;
pub mod scan;
pub mod statefs;
pub mod textfile;
pub mod tokenizer;
pub mod uri;
pub mod visible;

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
}

/// An open vault: a canonical root folder and the state folder inside it.
#[derive(Debug, Clone)]
pub struct Vault {
    root: PathBuf,
}

impl Vault {
    pub fn open(path: &Path) -> Result<Vault, VaultError> {
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
        Ok(Vault { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `{vault}/.agentero/`: the only place the app writes.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(paths::STATE_DIR)
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

    pub fn scan(&self) -> Result<Vec<Entry>, VaultError> {
        scan::scan(&self.root).map_err(|source| VaultError::Unreadable {
            path: self.root.clone(),
            source,
        })
    }

    /// Resolves a vault-relative path safely (see [`paths::resolve`]).
    pub fn resolve(&self, rel: &str) -> Result<Resolved, Refusal> {
        paths::resolve(&self.root, rel)
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

    pub fn open_index(&self) -> Result<SearchIndex, VaultError> {
        Ok(SearchIndex::open(&self.index_dir())?)
    }
}
