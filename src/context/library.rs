//! What the library knows about papers as a whole: identities (DOI, arXiv), reference keys,
//! the citing-scan (which in-library papers cite a given paper) and relatedness.
//!
//! The scan reads every paper's record once; its result is cached on disk at
//! `.agentero/cache/citing-scan.json`, keyed by the content hashes of all papers (any changed
//! paper changes the key, and unchanged papers' entries are reused by hash when rebuilding).
//! The host writes that file ([`ensure_cache`], called by `agentero plan --grant` and the host's
//! turn setup); the `agentero-context` server only reads it and otherwise computes the scan in
//! memory, because the server may write nothing but `usage.jsonl`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::vault::catalog::{Catalog, Status};
use crate::vault::fsutil::sha256_hex;
use crate::vault::scan::EntryKind;
use crate::vault::statefs;
use crate::vault::{PaperRecord, Vault, ids, refs::Reference, uri};

pub const CACHE_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryPaper {
    pub path: String,
    pub sha256: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    /// `doi:…` / `arxiv:…` keys of the references it cites.
    pub ref_keys: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CacheFile {
    version: u32,
    key: String,
    papers: Vec<LibraryPaper>,
}

#[derive(Debug, Clone, Default)]
pub struct Library {
    /// Digest of every paper's (path, sha256): the cache key.
    pub key: String,
    pub papers: Vec<LibraryPaper>,
    by_identity: HashMap<String, Vec<usize>>,
    citing: HashMap<String, Vec<usize>>,
}

pub fn doi_key(doi: &str) -> Option<String> {
    ids::normalize_doi(doi).map(|d| format!("doi:{d}"))
}

pub fn arxiv_key(id: &str) -> Option<String> {
    ids::normalize_arxiv(id).map(|a| format!("arxiv:{a}"))
}

/// Identity keys of a paper or reference.
pub fn keys(doi: Option<&str>, arxiv: Option<&str>) -> Vec<String> {
    doi.and_then(doi_key)
        .into_iter()
        .chain(arxiv.and_then(arxiv_key))
        .collect()
}

pub fn reference_keys(r: &Reference) -> Vec<String> {
    keys(r.doi.as_deref(), r.arxiv.as_deref())
}

/// Papers of the catalog that have a record, as (path, sha256), sorted by path.
fn indexed_papers(catalog: &Catalog) -> Vec<(&str, &str)> {
    catalog
        .entries
        .iter()
        .filter(|(_, e)| {
            e.kind == EntryKind::Paper && e.status != Status::Failed && !e.sha256.is_empty()
        })
        .map(|(p, e)| (p.as_str(), e.sha256.as_str()))
        .collect()
}

pub fn cache_key(catalog: &Catalog) -> String {
    let mut text = String::new();
    for (p, s) in indexed_papers(catalog) {
        text.push_str(p);
        text.push('\t');
        text.push_str(s);
        text.push('\n');
    }
    sha256_hex(text.as_bytes())
}

pub fn cache_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join("cache").join("citing-scan.json")
}

pub fn paper_from_record(path: &str, r: &PaperRecord) -> LibraryPaper {
    let mut ref_keys: Vec<String> = r.references.iter().flat_map(reference_keys).collect();
    ref_keys.sort();
    ref_keys.dedup();
    LibraryPaper {
        path: path.to_string(),
        sha256: r.sha256.clone(),
        title: r.meta.title.clone(),
        authors: r.meta.authors.clone(),
        year: r.meta.year,
        doi: r.meta.doi.clone(),
        arxiv: r.meta.arxiv.clone(),
        ref_keys,
    }
}

impl Library {
    fn from_papers(key: String, papers: Vec<LibraryPaper>) -> Library {
        let mut by_identity: HashMap<String, Vec<usize>> = HashMap::new();
        let mut citing: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, p) in papers.iter().enumerate() {
            for k in keys(p.doi.as_deref(), p.arxiv.as_deref()) {
                by_identity.entry(k).or_default().push(i);
            }
            for k in &p.ref_keys {
                citing.entry(k.clone()).or_default().push(i);
            }
        }
        Library {
            key,
            papers,
            by_identity,
            citing,
        }
    }

    /// Reads every indexed paper's record (reusing `previous` entries with the same hash).
    pub fn build(vault: &Vault, catalog: &Catalog, previous: Option<&Library>) -> Library {
        let reuse: HashMap<(&str, &str), &LibraryPaper> = previous
            .map(|l| {
                l.papers
                    .iter()
                    .map(|p| ((p.path.as_str(), p.sha256.as_str()), p))
                    .collect()
            })
            .unwrap_or_default();
        let mut papers = Vec::new();
        for (path, sha) in indexed_papers(catalog) {
            if let Some(p) = reuse.get(&(path, sha)) {
                papers.push((*p).clone());
            } else if let Some(r) = vault.record(sha) {
                papers.push(paper_from_record(path, &r));
            }
        }
        Library::from_papers(cache_key(catalog), papers)
    }

    /// The on-disk cache, when it matches the catalog.
    pub fn load_cached(vault: &Vault, catalog: &Catalog) -> Option<Library> {
        let bytes = statefs::read(&cache_path(vault)).ok()?;
        let file: CacheFile = serde_json::from_slice(&bytes).ok()?;
        (file.version == CACHE_VERSION && file.key == cache_key(catalog))
            .then(|| Library::from_papers(file.key, file.papers))
    }

    /// Stale cache contents regardless of key: a head start for [`Library::build`].
    fn load_any(vault: &Vault) -> Option<Library> {
        let file: CacheFile =
            serde_json::from_slice(&statefs::read(&cache_path(vault)).ok()?).ok()?;
        (file.version == CACHE_VERSION).then(|| Library::from_papers(file.key, file.papers))
    }

    pub fn save(&self, vault: &Vault) -> std::io::Result<()> {
        let file = CacheFile {
            version: CACHE_VERSION,
            key: self.key.clone(),
            papers: self.papers.clone(),
        };
        Ok(statefs::atomic_write(
            &cache_path(vault),
            &serde_json::to_vec(&file).map_err(std::io::Error::other)?,
        )?)
    }

    /// The in-library paper with one of these identity keys, other than `except`.
    pub fn find(&self, keys: &[String], except: &str) -> Option<&LibraryPaper> {
        keys.iter()
            .filter_map(|k| self.by_identity.get(k))
            .flatten()
            .map(|&i| &self.papers[i])
            .find(|p| p.path != except)
    }

    /// In-library papers whose references name one of `keys`, sorted by path.
    pub fn citing(&self, keys: &[String], except: &str) -> Vec<&LibraryPaper> {
        let idx: BTreeSet<usize> = keys
            .iter()
            .filter_map(|k| self.citing.get(k))
            .flatten()
            .copied()
            .collect();
        let mut out: Vec<&LibraryPaper> = idx
            .into_iter()
            .map(|i| &self.papers[i])
            .filter(|p| p.path != except)
            .collect();
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// Papers related to the one at `path` (identity `own`, references `refs`): bibliographic
    /// coupling (shared references) plus co-citation (cited together by a library paper),
    /// strongest first, ties by path. Papers it cites or that cite it are listed under those
    /// relations instead.
    pub fn related(
        &self,
        path: &str,
        own: &[String],
        refs: &[String],
    ) -> Vec<(&LibraryPaper, usize)> {
        let mut score: HashMap<usize, usize> = HashMap::new();
        let refs: HashSet<&String> = refs.iter().collect();
        let cited: HashSet<usize> = refs
            .iter()
            .filter_map(|k| self.by_identity.get(*k))
            .flatten()
            .copied()
            .collect();
        let citing: BTreeSet<usize> = own
            .iter()
            .filter_map(|k| self.citing.get(k))
            .flatten()
            .copied()
            .collect();
        let skip =
            |i: usize| self.papers[i].path == path || cited.contains(&i) || citing.contains(&i);
        // Bibliographic coupling, through the reverse index: only papers sharing a reference
        // are touched.
        for k in &refs {
            for &i in self.citing.get(*k).into_iter().flatten() {
                if !skip(i) {
                    *score.entry(i).or_default() += 1;
                }
            }
        }
        // Co-citation; a bounded number of citing papers keeps a heavily cited paper (or a
        // library full of duplicates) from costing a scan of everything.
        for &c in citing.iter().take(CO_CITATION_SAMPLE) {
            for k in &self.papers[c].ref_keys {
                for &q in self.by_identity.get(k).into_iter().flatten() {
                    if q != c && !skip(q) {
                        *score.entry(q).or_default() += 1;
                    }
                }
            }
        }
        let mut out: Vec<(&LibraryPaper, usize)> = score
            .into_iter()
            .map(|(i, s)| (&self.papers[i], s))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.path.cmp(&b.0.path)));
        out
    }
}

/// Citing papers sampled (in path order) for co-citation.
const CO_CITATION_SAMPLE: usize = 64;

/// Host side: the current library, from the on-disk cache when it is fresh, else rebuilt
/// (reusing unchanged entries) and saved.
pub fn ensure_cache(vault: &Vault, catalog: &Catalog) -> std::io::Result<Library> {
    if let Some(l) = Library::load_cached(vault, catalog) {
        return Ok(l);
    }
    let previous = Library::load_any(vault);
    let lib = Library::build(vault, catalog, previous.as_ref());
    lib.save(vault)?;
    Ok(lib)
}

/// The URI to open an in-library paper, or an external one by DOI/arXiv; `None` when nothing
/// can be opened (no dead links).
pub fn openable_uri(
    paper_path: Option<&str>,
    doi: Option<&str>,
    arxiv: Option<&str>,
) -> Option<String> {
    if let Some(p) = paper_path {
        return Some(uri::page_uri(p, 1));
    }
    if let Some(d) = doi.and_then(ids::normalize_doi) {
        return Some(uri::doi_uri(&d));
    }
    arxiv
        .and_then(ids::normalize_arxiv)
        .map(|a| uri::arxiv_uri(&a))
}
