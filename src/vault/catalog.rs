//! What the index holds, file by file: `{vault}/.agentero/catalog.json`. It is how a re-index
//! knows what is unchanged (size + mtime, then sha256) without opening a single PDF.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::index::SCHEMA_VERSION;
use super::scan::EntryKind;
use super::statefs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Indexed with text.
    Indexed,
    /// Indexed, but no page has a text layer (a scan without OCR).
    NoText,
    /// Not indexed; `error` says why.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogEntry {
    pub kind: EntryKind,
    pub size: u64,
    pub mtime_ns: i128,
    pub sha256: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Pages of a paper, chunks of a file.
    pub units: u32,
    /// Pages of a paper whose text could not be decoded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub undecodable: u32,
    /// Pages of a paper without a usable text layer: OCR'd, or waiting for it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ocr: u32,
    pub title: String,
    /// sha256 of the metadata an outside source gave the paper (its Zotero item), so that a
    /// re-index picks up an item edited in Zotero while its PDF stayed the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    pub version: u32,
    pub entries: BTreeMap<String, CatalogEntry>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog {
            version: SCHEMA_VERSION,
            entries: BTreeMap::new(),
        }
    }
}

/// Why an existing catalog cannot be used (the index is then rebuilt).
#[derive(Debug, Clone, PartialEq)]
pub enum LoadOutcome {
    Loaded(Catalog),
    Missing,
    Unusable(String),
}

impl Catalog {
    pub fn load(path: &Path) -> LoadOutcome {
        let bytes = match statefs::read(path) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return LoadOutcome::Missing,
            Err(e) => return LoadOutcome::Unusable(format!("cannot read the catalog: {e}")),
        };
        match serde_json::from_slice::<Catalog>(&bytes) {
            Ok(c) if c.version == SCHEMA_VERSION => LoadOutcome::Loaded(c),
            Ok(c) => LoadOutcome::Unusable(format!(
                "the index was built by another version (schema {} ≠ {SCHEMA_VERSION})",
                c.version
            )),
            Err(e) => LoadOutcome::Unusable(format!("the catalog is corrupt ({e})")),
        }
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        Ok(statefs::atomic_write(path, &bytes)?)
    }
}
