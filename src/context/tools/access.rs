//! The only door from a tool argument to a file: every path is resolved through the vault's
//! safe resolver and then checked against this turn's grant — by the name the agent used and
//! by where it really leads, so a symlink inside a granted folder cannot reach past it.

use std::path::PathBuf;
use std::sync::Arc;

use super::ToolError;
use crate::context::grant::Grant;
use crate::context::mention;
use crate::vault::Vault;
use crate::vault::paths::to_rel;
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
}

fn refused(reason: &str) -> ToolError {
    let why = match reason {
        "not_granted" => "it is not among the sources granted for this turn",
        "paper_in_directory" => "papers inside a granted directory must be granted by name",
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

/// Escapes that could smuggle a dot, slash or another escape through decoding.
fn dangerous_escape(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ["%2e", "%2f", "%5c", "%25", "%00"]
        .iter()
        .any(|e| lower.contains(e))
}

/// Whether `rel` (a normalized vault path of `kind`) is covered by the grant. Exact sources of
/// any kind; inside a granted directory, text files and folders only.
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
    match (in_dir, kind) {
        (true, EntryKind::Paper) => Err("paper_in_directory"),
        (true, _) => Ok(()),
        (false, _) => Err("not_granted"),
    }
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
    let (path, page, lines) =
        if raw.contains('#') || mention::has_percent_escape(raw) || raw.contains("://") {
            if dangerous_escape(raw) {
                return Err(refused("encoded"));
            }
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
    let canonical_rel =
        to_rel(vault.root(), &resolved.abs).ok_or_else(|| refused("outside_vault"))?;
    // Behind a symlink, the real place must be granted too — unless the link itself was
    // granted by name (the user chose it when mentioning it). (For the whole vault the
    // resolver already refused real places that are hidden or outside.)
    if let Some(grant) = grant {
        let named_exactly = grant
            .sources
            .iter()
            .any(|s| s.path == resolved.rel && s.kind == kind);
        if canonical_rel != resolved.rel && !named_exactly {
            covered(grant, &canonical_rel, kind).map_err(refused)?;
        }
    }
    Ok(Target {
        rel: resolved.rel,
        canonical_rel,
        abs: resolved.abs,
        kind,
        page,
        lines,
    })
}

/// Whether a library paper at `path` may be read in this turn (for `inGrant` on cards).
pub fn paper_in_grant(grant: &Grant, path: &str) -> bool {
    grant
        .sources
        .iter()
        .any(|s| s.path == path && s.kind == EntryKind::Paper)
}
