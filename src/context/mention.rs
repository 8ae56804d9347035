//! Turning a mention (or any path from outside) into a verified source: kind, vault-relative
//! path and content hash — or a machine-readable reason why not. Everything goes through the
//! vault's escape policy ([`crate::vault::paths::unescape`], the same one the context tools
//! apply) and then [`Vault::resolve`]. How a mention is written is [`syntax`]'s.

pub mod syntax;

use std::path::Path;

use serde::Serialize;

use crate::vault::catalog::Catalog;
use crate::vault::fsutil::{sha256_file, sha256_hex};
use crate::vault::paths;
use crate::vault::scan::{self, EntryKind};
use crate::vault::{Resolved, Vault};

/// Reason names beyond [`crate::vault::Refusal::as_str`].
pub const ENCODED: &str = "encoded";
pub const VAULT_ROOT: &str = "vault_root";
pub const UNSUPPORTED: &str = "unsupported";
pub const UNREADABLE: &str = "unreadable";
pub const DUPLICATE: &str = "duplicate";

/// A source that passed every check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verified {
    pub kind: EntryKind,
    /// Normalized vault-relative path (`/`-separated, no trailing slash).
    pub path: String,
    pub sha256: String,
    /// Bytes of a paper or file; entries of a directory's one-level listing.
    pub size: u64,
    #[serde(skip)]
    pub abs: std::path::PathBuf,
}

/// The vault path nearest to a mention that names nothing (a typo, a name with spaces written
/// without its quotes): the shortest path that starts with it, else the closest by edit distance
/// within a quarter of its length. A folder is written with its `/`.
pub fn nearest(vault: &Vault, raw: &str) -> Option<String> {
    let want = syntax::clean(raw);
    let want = want.split('#').next().unwrap_or(want).trim_end_matches('/');
    if want.is_empty() {
        return None;
    }
    let limit = (want.chars().count() / 4).max(2);
    let mut best: Option<(usize, usize, String)> = None;
    for e in vault.scan().ok()? {
        let d = if e.path.starts_with(want) && e.path.len() > want.len() {
            0
        } else {
            strsim::levenshtein(want, &e.path)
        };
        let written = if e.kind == EntryKind::Directory {
            format!("{}/", e.path)
        } else {
            e.path
        };
        let key = (d, written.len());
        if d <= limit && best.as_ref().is_none_or(|b| key < (b.0, b.1)) {
            best = Some((key.0, key.1, written));
        }
    }
    best.map(|b| b.2)
}

/// Resolves a path safely and classifies it. `catalog` (when given) supplies content hashes for
/// files whose size and mtime it already knows, so planning does not re-hash unchanged PDFs.
pub fn verify(
    vault: &Vault,
    catalog: Option<&Catalog>,
    raw: &str,
) -> Result<Verified, &'static str> {
    let rel = paths::unescape(syntax::clean(raw)).map_err(|r| r.as_str())?;
    let resolved = vault.resolve(&rel).map_err(|r| r.as_str())?;
    if resolved.rel.is_empty() {
        return Err(VAULT_ROOT);
    }
    classify(&resolved, catalog)
}

/// Kind, hash and size of a resolved path.
pub fn classify(resolved: &Resolved, catalog: Option<&Catalog>) -> Result<Verified, &'static str> {
    if resolved.is_dir {
        let listing = listing(&resolved.abs).map_err(|_| UNREADABLE)?;
        return Ok(Verified {
            kind: EntryKind::Directory,
            path: resolved.rel.clone(),
            sha256: listing_sha256(&listing),
            size: listing.len() as u64,
            abs: resolved.abs.clone(),
        });
    }
    let kind = scan::classify_file(&resolved.abs).ok_or(UNSUPPORTED)?;
    let meta = std::fs::metadata(&resolved.abs).map_err(|_| UNREADABLE)?;
    let known = catalog
        .and_then(|c| c.entries.get(&resolved.rel))
        .filter(|e| {
            e.kind == kind
                && e.size == meta.len()
                && e.mtime_ns == scan::mtime_ns(&meta)
                && !e.sha256.is_empty()
        });
    let sha256 = match known {
        Some(e) => e.sha256.clone(),
        None => sha256_file(&resolved.abs).map_err(|_| UNREADABLE)?,
    };
    Ok(Verified {
        kind,
        path: resolved.rel.clone(),
        sha256,
        size: meta.len(),
        abs: resolved.abs.clone(),
    })
}

/// A directory's content hash: of its listing's display names, one a line.
pub fn listing_sha256(listing: &[ListedEntry]) -> String {
    let text: String = listing
        .iter()
        .map(|e| format!("{}\n", e.display_name()))
        .collect();
    sha256_hex(text.as_bytes())
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedEntry {
    pub name: String,
    pub kind: EntryKind,
}

impl ListedEntry {
    /// The name with a trailing `/` for folders (the form hashed and shown to agents).
    pub fn display_name(&self) -> String {
        match self.kind {
            EntryKind::Directory => format!("{}/", self.name),
            _ => self.name.clone(),
        }
    }
}

/// The visible one-level listing of the folder at canonical `abs`, sorted by name: hidden
/// entries, `.agentero/`, symlinks and anything that is not a paper, text file or folder are
/// left out (a symlink is only followed when named, through [`Vault::resolve`]).
pub fn listing(abs: &Path) -> std::io::Result<Vec<ListedEntry>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(abs)?.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let Ok(ft) = entry.file_type() else { continue };
        let kind = if ft.is_dir() {
            EntryKind::Directory
        } else if ft.is_file() {
            match scan::classify_file(&entry.path()) {
                Some(k) => k,
                None => continue,
            }
        } else {
            continue;
        };
        out.push(ListedEntry { name, kind });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// What a granted folder covers: the papers and text files under it at any depth, by
/// vault-relative path in sorted order. Walked through [`listing`], so hidden entries, the
/// app's state and symlinks are never part of it. At most `limit` entries are walked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Coverage {
    pub entries: Vec<(String, EntryKind)>,
    /// The walk stopped at the limit.
    pub truncated: bool,
}

impl Coverage {
    pub fn papers(&self) -> usize {
        self.entries
            .iter()
            .filter(|(_, k)| *k == EntryKind::Paper)
            .count()
    }

    pub fn files(&self) -> usize {
        self.entries
            .iter()
            .filter(|(_, k)| *k == EntryKind::File)
            .count()
    }

    /// The sha256 of the covered paths, one a line (`paper <path>` / `file <path>`).
    pub fn sha256(&self) -> String {
        let text: String = self
            .entries
            .iter()
            .map(|(p, k)| format!("{} {p}\n", k.as_str()))
            .collect();
        sha256_hex(text.as_bytes())
    }
}

/// The papers and text files under the folder `rel` (canonical `abs`).
pub fn coverage(rel: &str, abs: &Path, limit: usize) -> Coverage {
    let mut out = Coverage::default();
    let mut stack = vec![(rel.trim_end_matches('/').to_string(), abs.to_path_buf())];
    let mut walked = 0usize;
    while let Some((dir, dir_abs)) = stack.pop() {
        let Ok(entries) = listing(&dir_abs) else {
            continue;
        };
        for e in entries {
            walked += 1;
            if walked > limit {
                out.truncated = true;
                stack.clear();
                break;
            }
            let child = if dir.is_empty() {
                e.name.clone()
            } else {
                format!("{dir}/{}", e.name)
            };
            match e.kind {
                EntryKind::Directory => stack.push((child, dir_abs.join(&e.name))),
                k => out.entries.push((child, k)),
            }
        }
    }
    out.entries.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_refuses_and_classifies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("notes/sub")).unwrap();
        std::fs::write(root.join("notes/a.md"), "# A\n").unwrap();
        std::fs::write(root.join("notes/.hidden.md"), "x").unwrap();
        std::fs::write(root.join("notes/pic.png"), [0u8, 1]).unwrap();
        let vault = Vault::open(root).unwrap();
        let v = verify(&vault, None, "@notes/a.md").unwrap();
        assert_eq!(
            (v.kind, v.path.as_str(), v.size),
            (EntryKind::File, "notes/a.md", 4)
        );
        assert_eq!(v.sha256, sha256_hex(b"# A\n"));
        let d = verify(&vault, None, "notes/").unwrap();
        assert_eq!(
            (d.kind, d.path.as_str(), d.size),
            (EntryKind::Directory, "notes", 2)
        );
        assert_eq!(d.sha256, sha256_hex(b"a.md\nsub/\n"));
        assert_eq!(verify(&vault, None, "notes%2fa.md"), Err(ENCODED));
        assert_eq!(verify(&vault, None, "notes/%2e%2e/x"), Err(ENCODED));
        // Escapes of other characters are decoded, as in a citation URI.
        assert_eq!(
            verify(&vault, None, "notes/%61.md").unwrap().path,
            "notes/a.md"
        );
        assert_eq!(verify(&vault, None, "notes/.hidden.md"), Err("hidden"));
        assert_eq!(verify(&vault, None, "notes/pic.png"), Err(UNSUPPORTED));
        assert_eq!(verify(&vault, None, "."), Err(VAULT_ROOT));
        assert_eq!(verify(&vault, None, "../x"), Err("traversal"));
        assert_eq!(verify(&vault, None, "nope.md"), Err("not_found"));
    }

    #[test]
    fn coverage_walks_every_level_but_nothing_hidden() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("lib/deep/deeper")).unwrap();
        std::fs::create_dir_all(root.join("lib/.secret")).unwrap();
        std::fs::write(root.join("lib/a.md"), "# A\n").unwrap();
        std::fs::write(root.join("lib/deep/b.txt"), "b").unwrap();
        std::fs::write(root.join("lib/deep/deeper/p.pdf"), b"%PDF-1.4\n").unwrap();
        std::fs::write(root.join("lib/.secret/s.md"), "s").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("lib/a.md"), root.join("lib/link.md")).unwrap();
        let c = coverage("lib", &root.join("lib"), 100);
        let paths: Vec<&str> = c.entries.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            vec!["lib/a.md", "lib/deep/b.txt", "lib/deep/deeper/p.pdf"]
        );
        assert_eq!((c.papers(), c.files(), c.truncated), (1, 2, false));
        let cut = coverage("lib", &root.join("lib"), 2);
        assert!(cut.truncated);
        assert_ne!(cut.sha256(), c.sha256());
    }
}
