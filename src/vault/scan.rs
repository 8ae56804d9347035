//! Walking a vault: every PDF is a paper, text files (and extensionless UTF-8 files)
//! are files, folders are directories. Hidden entries and `.agentero/` are skipped; a symlink
//! whose target leaves the vault is not followed.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::paths::to_rel;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum EntryKind {
    Paper,
    File,
    Directory,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Vault-relative, `/`-separated.
    pub path: String,
    pub kind: EntryKind,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (0 when unknown).
    pub mtime_ns: i128,
}

/// Sidecar names that belong to the PDF beside them rather than being files of their own.
pub const SIDECARS: [&str; 3] = ["info.yaml", "references.json", "references.bib"];

/// Extensions of files we read as text.
const TEXT_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "tex", "bib", "rst", "org", "adoc", "csv", "tsv", "json",
    "jsonl", "yaml", "yml", "toml", "xml", "html", "htm", "ris", "nbib", "py", "r", "jl", "rs",
    "c", "h", "cpp", "hpp", "java", "js", "ts", "go", "sh", "m", "ipynb", "log", "cfg", "ini",
    "sty", "cls", "bbl",
];

/// A text file larger than this is listed but not indexed (it is not a note; it is data).
pub const MAX_TEXT_BYTES: u64 = 8 * 1024 * 1024;

/// Classifies a file by name (and, for extensionless files, by content).
pub fn classify_file(path: &Path) -> Option<EntryKind> {
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext) if ext.eq_ignore_ascii_case("pdf") => Some(EntryKind::Paper),
        Some(ext) => TEXT_EXTENSIONS
            .iter()
            .any(|t| t.eq_ignore_ascii_case(ext))
            .then_some(EntryKind::File),
        None => is_utf8_text(path).then_some(EntryKind::File),
    }
}

fn is_utf8_text(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if meta.len() > MAX_TEXT_BYTES {
        return false;
    }
    match std::fs::read(path) {
        Ok(bytes) => !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok(),
        Err(_) => false,
    }
}

fn is_sidecar(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if !SIDECARS.contains(&name) {
        return false;
    }
    // Only a sidecar when a PDF sits beside it.
    path.parent()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .map(|entries| {
            entries.flatten().any(|e| {
                e.path()
                    .extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case("pdf"))
            })
        })
        .unwrap_or(false)
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// All entries of the vault at canonical `root`, sorted by path. Directories are included
/// (not the root itself).
pub fn scan(root: &Path) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut visited = HashSet::new();
    visited.insert(root.to_path_buf());
    walk(root, root, &mut visited, &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn walk(
    root: &Path,
    dir: &Path,
    visited: &mut HashSet<PathBuf>,
    out: &mut Vec<Entry>,
) -> std::io::Result<()> {
    let mut children: Vec<_> = std::fs::read_dir(dir)?.flatten().collect();
    children.sort_by_key(|e| e.file_name());
    for child in children {
        let name = child.file_name();
        let Some(name_str) = name.to_str() else {
            tracing::warn!(path = %child.path().display(), "skipping a name that is not UTF-8");
            continue;
        };
        if name_str.starts_with('.') {
            continue;
        }
        let path = dir.join(&name);
        let Ok(file_type) = child.file_type() else {
            continue;
        };
        // Follow symlinks only when they resolve inside the vault (and not into hidden state).
        let (real, meta) = if file_type.is_symlink() {
            let Ok(real) = path.canonicalize() else {
                continue;
            };
            let Ok(inside) = real.strip_prefix(root) else {
                tracing::info!(path = %path.display(), "not following a symlink that leaves the vault");
                continue;
            };
            if inside
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&real) else {
                continue;
            };
            (real, meta)
        } else {
            let Ok(meta) = child.metadata() else {
                continue;
            };
            (path.clone(), meta)
        };
        let Some(rel) = to_rel(root, &path) else {
            continue;
        };
        if meta.is_dir() {
            // A folder symlink inside the vault only repeats what its real path already lists
            // (and could loop): the real path is the one name it gets.
            if file_type.is_symlink() || !visited.insert(real) {
                continue;
            }
            out.push(Entry {
                path: rel,
                kind: EntryKind::Directory,
                size: 0,
                mtime_ns: mtime_ns(&meta),
            });
            if let Err(e) = walk(root, &path, visited, out) {
                tracing::warn!(path = %path.display(), error = %e, "cannot read a folder");
            }
        } else if meta.is_file() {
            if is_sidecar(&path) {
                continue;
            }
            if let Some(kind) = classify_file(&path) {
                out.push(Entry {
                    path: rel,
                    kind,
                    size: meta.len(),
                    mtime_ns: mtime_ns(&meta),
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names the code writes (`as_str`, derived) are the names serde writes and reads.
    #[test]
    fn derived_names_are_the_serialized_names() {
        use strum::IntoEnumIterator;
        for k in EntryKind::iter() {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for k in crate::vault::annotations::AnnotationKind::iter() {
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        for r in crate::vault::paths::Refusal::iter() {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        assert_eq!(
            crate::vault::paths::Refusal::Absolute.as_str(),
            "absolute_path"
        );
    }

    #[test]
    fn classifies_and_skips() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("papers/x")).unwrap();
        std::fs::write(root.join("papers/x/paper.pdf"), b"%PDF-1.4").unwrap();
        std::fs::write(root.join("papers/x/info.yaml"), "title: X").unwrap();
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("notes/a.md"), "# A").unwrap();
        std::fs::write(root.join("notes/TODO"), "plain text").unwrap();
        std::fs::write(root.join("notes/blob"), [0u8, 159, 146, 150]).unwrap();
        std::fs::write(root.join("notes/pic.png"), [1u8, 2]).unwrap();
        std::fs::create_dir_all(root.join(".agentero/index")).unwrap();
        std::fs::write(root.join(".agentero/index/x.md"), "no").unwrap();
        std::fs::write(root.join(".hidden.md"), "no").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.md"), "secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        std::os::unix::fs::symlink(root.join("notes"), root.join("loop")).unwrap();

        let got: Vec<(String, EntryKind)> = scan(&root)
            .unwrap()
            .into_iter()
            .map(|e| (e.path, e.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("notes".into(), EntryKind::Directory),
                ("notes/TODO".into(), EntryKind::File),
                ("notes/a.md".into(), EntryKind::File),
                ("papers".into(), EntryKind::Directory),
                ("papers/x".into(), EntryKind::Directory),
                ("papers/x/paper.pdf".into(), EntryKind::Paper),
            ]
        );
    }
}
