//! Safe resolution of vault-relative paths. Every path that reaches the file system from outside
//! (a mention, a tool argument, a citation URI) goes through [`resolve`], which refuses anything
//! that could leave the vault or touch hidden state, and says why in a machine-readable way.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// The directory inside a vault that holds all of agentero's state.
pub const STATE_DIR: &str = ".agentero";

/// Why a path was refused. The `as_str` names are part of the plan/tool contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    #[error("empty path")]
    Empty,
    #[error("absolute paths are not allowed; use a vault-relative path")]
    Absolute,
    #[error("'..' is not allowed in vault paths")]
    Traversal,
    #[error("hidden entries are not part of the vault")]
    Hidden,
    #[error("the app's state directory is not part of the vault")]
    StateDir,
    #[error("the path contains look-alike or invisible characters")]
    SuspiciousCharacters,
    #[error("no such file or directory in the vault")]
    NotFound,
    #[error("the path resolves outside the vault")]
    OutsideVault,
    #[error("the path cannot be read")]
    Unreadable,
    #[error("not a paper, text file or directory")]
    Unsupported,
    #[error("percent-encoded dots, slashes, percent signs or control characters are not accepted")]
    Encoded,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Empty => "empty",
            Refusal::Absolute => "absolute_path",
            Refusal::Traversal => "traversal",
            Refusal::Hidden => "hidden",
            Refusal::StateDir => "state_dir",
            Refusal::SuspiciousCharacters => "suspicious_characters",
            Refusal::NotFound => "not_found",
            Refusal::OutsideVault => "outside_vault",
            Refusal::Unreadable => "unreadable",
            Refusal::Unsupported => "unsupported",
            Refusal::Encoded => "encoded",
        }
    }
}

/// Whether `s` holds a `%XX` escape (so it is written as a URI, not as a plain path).
pub fn has_escape(s: &str) -> bool {
    s.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// The escape policy for every path that comes from outside (a mention, a tool argument, the
/// path of a citation URI): `%XX` escapes are decoded — citation URIs are percent-encoded —
/// except those of `.`, `/`, `\`, `%` and control characters, which are refused outright.
/// Decoding those is how `%2e%2e%2f` becomes `../` after a check, and how `%252e` survives
/// one decoding to be decoded again. The decoded text then goes through [`normalize`] like
/// any other path.
pub fn unescape(raw: &str) -> Result<std::borrow::Cow<'_, str>, Refusal> {
    if !has_escape(raw) {
        return Ok(std::borrow::Cow::Borrowed(raw));
    }
    let b = raw.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let escaped = (b[i] == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit())
        .then(|| hex(b[i + 1]) << 4 | hex(b[i + 2]));
        match escaped {
            Some(c) => {
                if matches!(c, b'.' | b'/' | b'\\' | b'%') || c < 0x20 || c == 0x7f {
                    return Err(Refusal::Encoded);
                }
                out.push(c);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out)
        .map(std::borrow::Cow::Owned)
        .map_err(|_| Refusal::Encoded)
}

fn hex(c: u8) -> u8 {
    (c as char).to_digit(16).unwrap_or(0) as u8
}

/// Characters that render like `.` or `/`, or not at all, and so can disguise a path.
fn is_suspicious(c: char) -> bool {
    matches!(c,
        '\u{2024}' | '\u{2025}' | '\u{2026}' | '\u{FF0E}' | '\u{FE52}' | '\u{3002}' | '\u{FF61}'
        | '\u{2215}' | '\u{2044}' | '\u{FF0F}' | '\u{29F8}' | '\u{2571}' | '\u{FE68}' | '\u{FF3C}'
        | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{FEFF}' | '\u{00AD}')
        || c.is_control()
}

/// A vault-relative path after lexical checks: `/`-separated, no empty or `.` segments.
pub fn normalize(rel: &str) -> Result<String, Refusal> {
    let rel = rel.trim();
    if rel.is_empty() {
        return Err(Refusal::Empty);
    }
    if rel.chars().any(is_suspicious) {
        return Err(Refusal::SuspiciousCharacters);
    }
    if rel.starts_with('/') || rel.starts_with('\\') || rel.starts_with('~') {
        return Err(Refusal::Absolute);
    }
    let rel = rel.replace('\\', "/");
    if Path::new(&rel).is_absolute() || rel.as_bytes().get(1) == Some(&b':') {
        return Err(Refusal::Absolute);
    }
    let mut parts = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => continue,
            ".." => return Err(Refusal::Traversal),
            p if p.eq_ignore_ascii_case(STATE_DIR) => return Err(Refusal::StateDir),
            p if p.starts_with('.') => return Err(Refusal::Hidden),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Ok(String::new());
    }
    Ok(parts.join("/"))
}

/// A path that passed every check: it exists, it is inside the vault after following symlinks,
/// and no component of it (before or after resolution) is hidden.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Normalized vault-relative path as given (the name the user knows).
    pub rel: String,
    /// Canonical absolute path on disk.
    pub abs: PathBuf,
    pub is_dir: bool,
}

/// Resolves `rel` inside the vault whose canonical root is `root`.
/// The empty path (or `.`) is the vault root itself.
pub fn resolve(root: &Path, rel: &str) -> Result<Resolved, Refusal> {
    let norm = if rel.trim() == "." {
        String::new()
    } else {
        normalize(rel)?
    };
    let joined = root.join(&norm);
    let abs = match joined.canonicalize() {
        Ok(p) => p,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A dangling symlink is "not found" too, but never reveals its target.
            return Err(Refusal::NotFound);
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(Refusal::Unreadable);
        }
        Err(_) => return Err(Refusal::NotFound),
    };
    let inside = abs.strip_prefix(root).map_err(|_| Refusal::OutsideVault)?;
    for comp in inside.components() {
        match comp {
            Component::Normal(name) => {
                let name = name.to_string_lossy();
                if name.eq_ignore_ascii_case(STATE_DIR) {
                    return Err(Refusal::StateDir);
                }
                if name.starts_with('.') {
                    return Err(Refusal::Hidden);
                }
            }
            _ => return Err(Refusal::OutsideVault),
        }
    }
    let meta = std::fs::metadata(&abs).map_err(|_| Refusal::Unreadable)?;
    Ok(Resolved {
        rel: norm,
        abs,
        is_dir: meta.is_dir(),
    })
}

/// Converts a path under `root` to the vault-relative `/`-separated form.
pub fn to_rel(root: &Path, abs: &Path) -> Option<String> {
    let inside = abs.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for comp in inside.components() {
        match comp {
            Component::Normal(n) => parts.push(n.to_str()?.to_string()),
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_refusals() {
        assert_eq!(normalize(""), Err(Refusal::Empty));
        assert_eq!(normalize("/etc/passwd"), Err(Refusal::Absolute));
        assert_eq!(normalize("~/x"), Err(Refusal::Absolute));
        assert_eq!(normalize("C:/x"), Err(Refusal::Absolute));
        assert_eq!(normalize("a/../../b"), Err(Refusal::Traversal));
        assert_eq!(normalize("a\\..\\b"), Err(Refusal::Traversal));
        assert_eq!(normalize(".git/config"), Err(Refusal::Hidden));
        assert_eq!(normalize("x/.agentero/index"), Err(Refusal::StateDir));
        assert_eq!(normalize("x/.AGENTERO"), Err(Refusal::StateDir));
        assert_eq!(
            normalize("\u{FF0E}\u{FF0E}/x"),
            Err(Refusal::SuspiciousCharacters)
        );
        assert_eq!(normalize("a\u{200B}b"), Err(Refusal::SuspiciousCharacters));
        assert_eq!(normalize("./a//b/"), Ok("a/b".into()));
    }

    #[test]
    fn one_escape_policy() {
        assert_eq!(unescape("notes/a b.md").unwrap(), "notes/a b.md");
        assert_eq!(unescape("my%20paper.pdf").unwrap(), "my paper.pdf");
        assert_eq!(unescape("caf%C3%A9.md").unwrap(), "café.md");
        assert_eq!(unescape("50%off.md").unwrap(), "50%off.md");
        assert_eq!(unescape("trailing%2").unwrap(), "trailing%2");
        for bad in [
            "%2e%2e/x",
            "notes%2Fa.md",
            "a%5cb",
            "%252e%252e",
            "a%00b",
            "a%1bb",
            "a%7F",
            "bad%ff%fe",
        ] {
            assert_eq!(unescape(bad), Err(Refusal::Encoded), "{bad}");
        }
        assert!(has_escape("a%41") && !has_escape("100%") && !has_escape("%g1"));
        assert_eq!(unescape("%+1%41").unwrap(), "%+1A");
    }

    #[test]
    fn symlinks_leaving_the_vault_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        let vault = tempfile::tempdir().unwrap();
        let root = vault.path().canonicalize().unwrap();
        std::fs::write(root.join("ok.md"), "fine").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt"))
            .unwrap();
        std::fs::create_dir(root.join(".agentero")).unwrap();
        std::os::unix::fs::symlink(root.join(".agentero"), root.join("state")).unwrap();
        assert_eq!(resolve(&root, "ok.md").unwrap().rel, "ok.md");
        assert_eq!(resolve(&root, "link.txt"), Err(Refusal::OutsideVault));
        assert_eq!(resolve(&root, "state"), Err(Refusal::StateDir));
        assert_eq!(resolve(&root, "missing.md"), Err(Refusal::NotFound));
        assert!(resolve(&root, ".").unwrap().is_dir);
        assert_eq!(resolve(&root, ""), Err(Refusal::Empty));
    }
}
