//! The only door from a tool argument to a file: every path is resolved through the vault's
//! safe resolver and then checked against this turn's grant — by the name the agent used and
//! by where it really leads, so a symlink inside a granted folder cannot reach past it.

use std::path::PathBuf;
use std::sync::Arc;

use super::ToolError;
use crate::context::grant::Grant;
use crate::context::mention;
use crate::context::seal::{FileStamp, folder_seal};
use crate::vault::Vault;
use crate::vault::catalog::Catalog;
use crate::vault::fsutil::sha256_file;
use crate::vault::paths;
use crate::vault::scan::{self, EntryKind};
use crate::vault::uri::{self, Target as UriTarget};

/// A granted source (or an entry inside a granted directory) that a tool may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The vault-relative name the agent used, normalized.
    pub rel: String,
    /// Where it really is (differs from `rel` behind a symlink).
    pub canonical_rel: String,
    pub abs: PathBuf,
    pub kind: EntryKind,
    /// From a citation URI's `#page=`.
    pub page: Option<u32>,
    /// From a citation URI's `#line=`.
    pub lines: Option<(u32, u32)>,
    /// The content hash the grant names, when the target is one of its sources (not an entry
    /// inside a granted directory): what is served must still have it.
    pub granted_sha: Option<String>,
    /// The granted folder this target is or is inside, with its seal: the folder must still
    /// match it.
    pub sealed_folder: Option<SealedFolder>,
}

/// A granted folder and its seal at grant time ([`folder_seal`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedFolder {
    pub rel: String,
    pub abs: PathBuf,
    pub seal: String,
}

/// The deepest granted folder holding `rel` (or being it) that the grant has a seal for.
fn sealing_folder(grant: &Grant, vault: &Vault, rel: &str) -> Option<SealedFolder> {
    grant
        .folder_seals
        .iter()
        .filter(|(dir, _)| rel == dir.as_str() || rel.starts_with(&format!("{dir}/")))
        .max_by_key(|(dir, _)| dir.len())
        .and_then(|(dir, seal)| {
            let r = vault.resolve(dir).ok()?;
            Some(SealedFolder {
                rel: dir.clone(),
                abs: r.abs,
                seal: seal.clone(),
            })
        })
}

fn refused(reason: &str) -> ToolError {
    let why = match reason {
        "not_granted" => "it is not among the sources granted for this turn",
        "encoded" => "percent-encoded dots, slashes or percent signs are not accepted in paths",
        "external" => {
            "external papers (DOI or arXiv links) cannot be read; only granted vault paths"
        }
        "not_found" => "no such granted source",
        "traversal" => "'..' is not allowed",
        "absolute_path" => "absolute paths are not allowed; use a vault-relative path",
        "hidden" | "state_dir" => "hidden entries and the app's state are never readable",
        "outside_vault" => "it leads outside the vault",
        "suspicious_characters" => "the path contains look-alike or invisible characters",
        "unsupported" => "it is not a paper, text file or directory",
        "empty" => "the path is empty",
        "bad_uri" => "the citation URI cannot be understood",
        _ => "it cannot be read",
    };
    ToolError::new("refused", format!("refused: {why} [{reason}]"))
}

/// Whether `rel` (a normalized vault path of `kind`) is covered by the grant: an exact source
/// of any kind, or anything (papers, text files, folders) inside a granted directory at any
/// depth — the folder is the source.
pub fn covered(grant: &Grant, rel: &str, kind: EntryKind) -> Result<(), &'static str> {
    if grant
        .sources
        .iter()
        .any(|s| s.path == rel && s.kind == kind)
    {
        return Ok(());
    }
    let in_dir = grant
        .sources
        .iter()
        .any(|s| s.kind == EntryKind::Directory && rel.starts_with(&format!("{}/", s.path)));
    if in_dir { Ok(()) } else { Err("not_granted") }
}

/// What a tool call may read.
#[derive(Debug, Clone)]
pub enum Access {
    /// This turn's grant (the `agentero-context` server).
    Grant(Arc<Grant>),
    /// Every paper, file and folder of the vault except hidden entries and `.agentero/` (the
    /// vault MCP for external clients). The same resolver refuses the same escapes.
    WholeVault,
}

impl Access {
    /// Resolves a tool's `path` argument to a target this access covers.
    pub fn authorize(&self, vault: &Vault, raw: &str) -> Result<Target, ToolError> {
        match self {
            Access::Grant(g) => authorize(g, vault, raw),
            Access::WholeVault => resolve_target(None, vault, raw),
        }
    }

    /// Whether a library paper at `path` may be read (`inGrant` on relation cards).
    pub fn may_read_paper(&self, path: &str) -> bool {
        match self {
            Access::Grant(g) => paper_in_grant(g, path),
            Access::WholeVault => true,
        }
    }
}

/// Resolves a tool's `path` argument (a vault path or a citation URI) to a granted target.
pub fn authorize(grant: &Grant, vault: &Vault, raw: &str) -> Result<Target, ToolError> {
    resolve_target(Some(grant), vault, raw)
}

/// The one resolution path for both accesses; `None` is the whole vault.
fn resolve_target(grant: Option<&Grant>, vault: &Vault, raw: &str) -> Result<Target, ToolError> {
    let raw = raw.trim();
    // One escape policy for mentions and tools (vault::paths): refused escapes never reach
    // the URI parser, which decodes the rest.
    paths::unescape(raw).map_err(|r| refused(r.as_str()))?;
    let (path, page, lines) = if raw.contains('#') || paths::has_escape(raw) || raw.contains("://")
    {
        match uri::parse(raw) {
            Some(UriTarget::Vault { path, page, lines }) => (path, page, lines),
            Some(UriTarget::External(_)) => return Err(refused("external")),
            None => return Err(refused("bad_uri")),
        }
    } else {
        (raw.to_string(), None, None)
    };
    let resolved = vault.resolve(&path).map_err(|r| refused(r.as_str()))?;
    if resolved.rel.is_empty() {
        return Err(refused(if grant.is_some() {
            "not_granted"
        } else {
            "empty"
        }));
    }
    let kind = if resolved.is_dir {
        EntryKind::Directory
    } else {
        scan::classify_file(&resolved.abs).ok_or_else(|| refused("unsupported"))?
    };
    if let Some(grant) = grant {
        covered(grant, &resolved.rel, kind).map_err(refused)?;
    }
    let canonical_rel = vault
        .canonical_rel(&resolved)
        .ok_or_else(|| refused("outside_vault"))?;
    // Behind a symlink, the real place must be granted too — unless the link itself was
    // granted by name (the user chose it when mentioning it). (For the whole vault the
    // resolver already refused real places that are hidden or outside.)
    let named = grant.and_then(|g| {
        g.sources
            .iter()
            .find(|s| s.path == resolved.rel && s.kind == kind)
    });
    if let Some(grant) = grant
        && canonical_rel != resolved.rel
        && named.is_none()
    {
        covered(grant, &canonical_rel, kind).map_err(refused)?;
    }
    let rel = resolved.rel;
    Ok(Target {
        rel: rel.clone(),
        canonical_rel,
        abs: resolved.abs,
        kind,
        page,
        lines,
        granted_sha: named.map(|s| s.sha256.clone()),
        sealed_folder: grant.and_then(|g| sealing_folder(g, vault, &rel)),
    })
}

/// The refusal for a granted source whose content is no longer the one granted (rewritten,
/// replaced by a link to something else, or re-pointed when it is a symlink).
pub fn changed_since_grant(rel: &str) -> ToolError {
    ToolError::new(
        "changed_since_grant",
        format!(
            "refused: {rel} changed after this turn's grant was written, so it is not the source \
             the user granted; the user must mention it again [changed_since_grant]"
        ),
    )
}

/// Grant checks already passed, by path: a source is hashed again only when its stamp moved.
#[derive(Debug, Default)]
pub struct Seals {
    checked: std::collections::HashMap<String, (FileStamp, String)>,
}

impl Seals {
    /// Whether `t` still has the content its grant names (size and mtime against the catalog,
    /// then the hash when either changed), and whether the granted folder it is or is inside
    /// still matches its seal (entries inside granted folders are not hashed in the grant).
    pub fn check(&mut self, t: &Target, catalog: &Catalog) -> Result<(), ToolError> {
        if let Some(f) = &t.sealed_folder
            && folder_seal(&f.rel, &f.abs) != f.seal
        {
            tracing::warn!(folder = %f.rel, path = %t.rel, "a granted folder changed after the grant was written");
            return Err(if f.rel == t.rel {
                changed_since_grant(&t.rel)
            } else {
                changed_since_grant(&format!("{} (in the granted folder {})", t.rel, f.rel))
            });
        }
        let Some(want) = &t.granted_sha else {
            return Ok(());
        };
        if t.kind == EntryKind::Directory {
            let listing = mention::listing(&t.abs)
                .map_err(|_| ToolError::new("unreadable", "the directory cannot be listed"))?;
            return if mention::listing_sha256(&listing) == *want {
                Ok(())
            } else {
                Err(changed_since_grant(&t.rel))
            };
        }
        let meta = std::fs::metadata(&t.abs)
            .map_err(|_| ToolError::new("unreadable", "the source cannot be read"))?;
        let stamp = FileStamp::of(&meta);
        if let Some((s, sha)) = self.checked.get(&t.rel)
            && *s == stamp
        {
            return if sha == want {
                Ok(())
            } else {
                Err(changed_since_grant(&t.rel))
            };
        }
        let catalogued = [&t.rel, &t.canonical_rel].into_iter().find_map(|p| {
            catalog
                .entries
                .get(p.as_str())
                .filter(|e| e.size == stamp.len && e.mtime_ns == stamp.mtime_ns)
                .map(|e| e.sha256.clone())
        });
        let sha = match catalogued {
            Some(sha) => sha,
            None => sha256_file(&t.abs)
                .map_err(|_| ToolError::new("unreadable", "the source cannot be read"))?,
        };
        let ok = sha == *want;
        self.checked.insert(t.rel.clone(), (stamp, sha));
        if ok {
            Ok(())
        } else {
            tracing::warn!(path = %t.rel, "a granted source changed after the grant was written");
            Err(changed_since_grant(&t.rel))
        }
    }
}

/// Whether a library paper at `path` may be read in this turn (for `inGrant` on cards).
pub fn paper_in_grant(grant: &Grant, path: &str) -> bool {
    covered(grant, path, EntryKind::Paper).is_ok()
}
