//! Safe resolution of vault-relative paths. Every path that reaches the file system from outside
//! (a mention, a tool argument, a citation URI) goes through [`resolve`], which refuses anything
//! that could leave the vault or touch hidden state, and says why in a machine-readable way.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

/// The directory inside a vault that holds all of agentero's state.
pub const STATE_DIR: &str = ".agentero";

/// Why a path was refused. The `as_str` names are part of the plan/tool contract.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    thiserror::Error,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Refusal {
    #[error("empty path")]
    Empty,
    #[error("absolute paths are not allowed; use a vault-relative path")]
    #[serde(rename = "absolute_path")]
    #[strum(serialize = "absolute_path")]
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
        self.into()
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

/// The longest file name (one path component) the common file systems take, in bytes.
pub const NAME_MAX_BYTES: usize = 255;

/// Why foreign text is not one path component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BadSegment {
    #[error("an empty path component")]
    Empty,
    #[error("a '.' or '..' path component")]
    Dot,
    #[error("a separator inside a path component")]
    Separator,
    #[error("a NUL byte in a path component")]
    Nul,
    #[error("a path component longer than {NAME_MAX_BYTES} bytes")]
    TooLong,
    #[error("a hidden path component (starting with '.')")]
    Hidden,
}

/// One checked path component: not empty, not `.` or `..`, no `/`, `\` or NUL, at most
/// [`NAME_MAX_BYTES`] bytes. The only thing [`Rel`] paths are made of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Segment(String);

impl Segment {
    pub fn new(s: &str) -> Result<Segment, BadSegment> {
        if s.is_empty() {
            return Err(BadSegment::Empty);
        }
        if s == "." || s == ".." {
            return Err(BadSegment::Dot);
        }
        if s.contains(['/', '\\']) {
            return Err(BadSegment::Separator);
        }
        if s.contains('\0') {
            return Err(BadSegment::Nul);
        }
        if s.len() > NAME_MAX_BYTES {
            return Err(BadSegment::TooLong);
        }
        Ok(Segment(s.to_string()))
    }

    /// A component made from foreign text (a title, a collection or file name): separators
    /// become `-`, control and look-alike characters are dropped, a leading `.` gets a `_`,
    /// and the rest is cut to `max_bytes` (at most [`NAME_MAX_BYTES`]) on a character
    /// boundary; `fallback` when nothing is left.
    pub fn fit(name: &str, max_bytes: usize, fallback: &str) -> Segment {
        let cleaned: String = name
            .chars()
            .map(|c| if c == '/' || c == '\\' { '-' } else { c })
            .filter(|c| !is_suspicious(*c))
            .collect();
        let mut s = cleaned.trim().to_string();
        if s.starts_with('.') {
            s.insert(0, '_');
        }
        let s = cut_bytes(&s, max_bytes.min(NAME_MAX_BYTES)).trim_end();
        Segment::new(s)
            .or_else(|_| Segment::new(cut_bytes(fallback, NAME_MAX_BYTES)))
            .unwrap_or_else(|_| Segment("_".into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `s` cut to at most `max` bytes, on a character boundary.
pub fn cut_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Which root a [`Rel`] path is relative to.
pub trait Place: Clone + std::fmt::Debug {
    /// Whether a component may start with `.`.
    const HIDDEN_OK: bool;
}

/// Relative to a vault's root: hidden components (and so `.agentero/`) are refused too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InVault;
/// Relative to a state folder (agentero's own names, and foreign text fitted into segments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InState;

impl Place for InVault {
    const HIDDEN_OK: bool = false;
}
impl Place for InState {
    const HIDDEN_OK: bool = true;
}

/// A relative path built only from checked [`Segment`]s: it cannot be absolute, climb, or
/// hold an empty, `.` or NUL component, whatever text it was made from. Joining it onto a
/// root ([`Rel::on`]) is the only way foreign names reach the vault or the state folder.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rel<P: Place> {
    parts: Vec<Segment>,
    place: std::marker::PhantomData<P>,
}

/// A vault-relative path (`storage/<KEY>/x.pdf`, `notes/a.md`).
pub type VaultRel = Rel<InVault>;
/// A path relative to a state folder (`zotero/view/notes/…`).
pub type StateRel = Rel<InState>;

impl<P: Place> Rel<P> {
    fn check(seg: Segment) -> Result<Segment, BadSegment> {
        if !P::HIDDEN_OK && seg.0.starts_with('.') {
            return Err(BadSegment::Hidden);
        }
        Ok(seg)
    }

    /// The path of `parts`, each checked.
    pub fn of(parts: &[&str]) -> Result<Self, BadSegment> {
        let parts = parts
            .iter()
            .map(|p| Segment::new(p).and_then(Self::check))
            .collect::<Result<Vec<_>, _>>()?;
        if parts.is_empty() {
            return Err(BadSegment::Empty);
        }
        Ok(Rel {
            parts,
            place: std::marker::PhantomData,
        })
    }

    /// A `/`-separated path, every component checked (no empty ones: `a//b` is refused).
    pub fn parse(s: &str) -> Result<Self, BadSegment> {
        Self::of(&s.split('/').collect::<Vec<_>>())
    }

    /// This path with `seg` appended.
    pub fn join(&self, seg: Segment) -> Result<Self, BadSegment> {
        let mut parts = self.parts.clone();
        parts.push(Self::check(seg)?);
        Ok(Rel {
            parts,
            place: std::marker::PhantomData,
        })
    }

    pub fn segments(&self) -> &[Segment] {
        &self.parts
    }

    /// This path under `root`.
    pub fn on(&self, root: &Path) -> PathBuf {
        let mut p = root.to_path_buf();
        for s in &self.parts {
            p.push(&s.0);
        }
        p
    }
}

impl<P: Place> std::fmt::Display for Rel<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, s) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(&s.0)?;
        }
        Ok(())
    }
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

    #[test]
    fn checked_segments_and_paths() {
        for bad in ["", ".", "..", "a/b", "a\\b", "a\0b"] {
            assert!(Segment::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Segment::new(&"x".repeat(256)), Err(BadSegment::TooLong));
        let emoji = "😀".repeat(70);
        let fitted = Segment::fit(&emoji, 200, "note");
        assert!(fitted.as_str().len() <= 200 && fitted.as_str().starts_with('😀'));
        assert_eq!(Segment::fit("a/../b", 50, "x").as_str(), "a-..-b");
        assert_eq!(Segment::fit("..", 50, "x").as_str(), "_..");
        assert_eq!(Segment::fit(" \u{202E} ", 50, "x").as_str(), "x");
        assert_eq!(cut_bytes("é", 1), "");
        assert_eq!(
            VaultRel::parse("storage/ABCD2345/a.pdf")
                .unwrap()
                .to_string(),
            "storage/ABCD2345/a.pdf"
        );
        for bad in ["../x", "a/../b", "a//b", "/a", "a/.agentero/b", "a/"] {
            assert!(VaultRel::parse(bad).is_err(), "{bad}");
        }
        assert!(StateRel::parse("zotero/.tmp").is_ok());
        assert!(StateRel::parse("zotero/../x").is_err());
        let root = Path::new("/r");
        assert_eq!(
            StateRel::parse("a/b").unwrap().on(root),
            Path::new("/r/a/b")
        );
    }
}
