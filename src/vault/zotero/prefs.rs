//! The base directory of linked attachments (`attachments:` paths) from Zotero's `prefs.js`
//! (`extensions.zotero.baseAttachmentPath`). `prefs.js` lives in the Zotero profile, not in
//! the data directory: the profile is `$AGENTERO_ZOTERO_PROFILE` when set, else the one of
//! `~/.zotero/zotero/profiles.ini` (Linux) or `~/Library/Application Support/Zotero/` (macOS)
//! whose `extensions.zotero.dataDir` is this data directory (or that sets none, for `~/Zotero`).

use std::path::{Path, PathBuf};

/// The value of `user_pref("name", "value");` in a prefs.js text.
pub fn pref(text: &str, name: &str) -> Option<String> {
    let needle = format!("user_pref(\"{name}\",");
    let line = text.lines().find(|l| l.trim_start().starts_with(&needle))?;
    let rest = line.trim_start()[needle.len()..].trim();
    let rest = rest.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

fn profile_dirs() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("AGENTERO_ZOTERO_PROFILE") {
        return vec![PathBuf::from(p)];
    }
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for base in [
        home.join(".zotero").join("zotero"),
        home.join("Library/Application Support/Zotero"),
    ] {
        let Ok(ini) = std::fs::read_to_string(base.join("profiles.ini")) else {
            continue;
        };
        let mut relative = true;
        for line in ini.lines() {
            let line = line.trim();
            if let Some(v) = line.strip_prefix("IsRelative=") {
                relative = v.trim() != "0";
            } else if let Some(p) = line.strip_prefix("Path=") {
                out.push(if relative {
                    base.join(p.trim())
                } else {
                    PathBuf::from(p.trim())
                });
                relative = true;
            }
        }
    }
    out
}

/// The base directory for relative linked files of the data directory `data_dir`, if a
/// profile names one.
pub fn base_dir(data_dir: &Path) -> Option<PathBuf> {
    let default_dir = std::env::var_os("HOME").map(|h| PathBuf::from(h).join("Zotero"));
    for profile in profile_dirs() {
        let Ok(text) = std::fs::read_to_string(profile.join("prefs.js")) else {
            continue;
        };
        let dir = pref(&text, "extensions.zotero.dataDir")
            .map(PathBuf::from)
            .or_else(|| default_dir.clone());
        let same = dir
            .and_then(|d| d.canonicalize().ok())
            .is_some_and(|d| d == data_dir);
        if same || std::env::var_os("AGENTERO_ZOTERO_PROFILE").is_some() {
            return pref(&text, "extensions.zotero.baseAttachmentPath").map(PathBuf::from);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefs_are_read() {
        let text = "// Mozilla User Preferences\nuser_pref(\"extensions.zotero.baseAttachmentPath\", \"/home/u/Papers \\\"x\\\"\");\nuser_pref(\"extensions.zotero.dataDir\", \"/home/u/Zotero\");\n";
        assert_eq!(
            pref(text, "extensions.zotero.baseAttachmentPath").as_deref(),
            Some("/home/u/Papers \"x\"")
        );
        assert_eq!(
            pref(text, "extensions.zotero.dataDir").as_deref(),
            Some("/home/u/Zotero")
        );
        assert_eq!(pref(text, "nope"), None);
    }
}
