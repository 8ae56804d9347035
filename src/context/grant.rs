//! The per-turn grant: `{vault}/.agentero/context-sessions/{runtime-id}/grant.json`
//! with the manifest beside it, `usage.jsonl` (one line per successful tool call) and
//! `attached.json` (when a client initialized the server and listed its tools).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::budget::Budget;
use super::plan::{ContextPlan, ManifestEntry, Mode, Source};
use super::seal::folder_seal;
use super::server::ContextTool;
use crate::vault::Vault;
use crate::vault::fsutil::sha256_hex;
use crate::vault::statefs::{self, StateError};

pub const GRANT_VERSION: u32 = 1;
pub const SESSIONS_DIR: &str = "context-sessions";
pub const GRANT_FILE: &str = "grant.json";
pub const MANIFEST_FILE: &str = "manifest.json";
pub const USAGE_FILE: &str = "usage.jsonl";
pub const ATTACHED_FILE: &str = "attached.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub version: u32,
    pub runtime_id: String,
    /// Canonical absolute path of the vault.
    pub vault: PathBuf,
    pub turn_id: String,
    pub sources: Vec<Source>,
    pub budget: Budget,
    pub tools: Vec<ContextTool>,
    pub fingerprint: String,
    pub mode: Mode,
    /// Each granted folder's seal at grant time ([`folder_seal`]): what is under it, at any
    /// depth, with every file's size, times and inode. A read inside the folder is refused once
    /// the folder no longer matches (a file added, removed, rewritten or swapped).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub folder_seals: std::collections::BTreeMap<String, String>,
}

/// Where one runtime's files live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantFiles {
    pub dir: PathBuf,
}

impl GrantFiles {
    pub fn new(vault: &Vault, runtime_id: &str) -> Option<GrantFiles> {
        valid_id(runtime_id).then(|| GrantFiles {
            dir: vault.state_dir().join(SESSIONS_DIR).join(runtime_id),
        })
    }

    /// The files beside a grant file.
    pub fn of_grant(grant_path: &Path) -> GrantFiles {
        GrantFiles {
            dir: grant_path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        }
    }

    pub fn grant(&self) -> PathBuf {
        self.dir.join(GRANT_FILE)
    }
    pub fn manifest(&self) -> PathBuf {
        self.dir.join(MANIFEST_FILE)
    }
    pub fn usage(&self) -> PathBuf {
        self.dir.join(USAGE_FILE)
    }
    pub fn attached(&self) -> PathBuf {
        self.dir.join(ATTACHED_FILE)
    }
}

/// Runtime and turn ids become folder names: letters, digits, `-` and `_` only.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A fresh id: time, process and a counter hashed, so two ids never collide in practice
/// without needing a random-number crate.
pub fn new_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!("{t}:{}:{n}", std::process::id());
    format!("{prefix}-{}", &sha256_hex(seed.as_bytes())[..16])
}

/// Writes this turn's grant for `plan` (with a new turn id) and its manifest, atomically.
/// The host calls it at the start of every turn; the server re-reads it on every call.
pub fn write(
    vault: &Vault,
    runtime_id: &str,
    plan: &ContextPlan,
) -> std::io::Result<(GrantFiles, Grant)> {
    let files = GrantFiles::new(vault, runtime_id).ok_or_else(|| {
        std::io::Error::other("invalid runtime id (letters, digits, - and _ only)")
    })?;
    let grant = Grant {
        version: GRANT_VERSION,
        runtime_id: runtime_id.to_string(),
        vault: vault.root().to_path_buf(),
        turn_id: new_id("turn"),
        sources: plan.sources.clone(),
        budget: plan.budget,
        tools: plan.tools.clone(),
        fingerprint: plan.fingerprint.clone(),
        mode: plan.mode,
        folder_seals: plan
            .sources
            .iter()
            .filter(|s| s.kind == crate::vault::EntryKind::Directory)
            .filter_map(|s| {
                let r = vault.resolve(&s.path).ok()?;
                Some((s.path.clone(), folder_seal(&s.path, &r.abs)))
            })
            .collect(),
    };
    write_grant(&files, &grant, &plan.manifest)?;
    Ok((files, grant))
}

/// Writes an explicit grant (the manifest first, so a reader that sees the new grant also
/// finds its manifest).
pub fn write_grant(
    files: &GrantFiles,
    grant: &Grant,
    manifest: &[ManifestEntry],
) -> std::io::Result<()> {
    let manifest = serde_json::json!({
        "runtimeId": grant.runtime_id,
        "turnId": grant.turn_id,
        "fingerprint": grant.fingerprint,
        "manifest": manifest,
    });
    statefs::atomic_write(
        &files.manifest(),
        super::canonical::to_pretty(&manifest).as_bytes(),
    )?;
    let bytes = serde_json::to_vec_pretty(grant).map_err(std::io::Error::other)?;
    Ok(statefs::atomic_write(&files.grant(), &bytes)?)
}

pub fn read(path: &Path) -> Result<Grant, String> {
    let bytes = statefs::read(path).map_err(|e| match e {
        StateError::Io { source, .. } => format!("cannot read the grant: {}", source.kind()),
        refused @ StateError::Refused { .. } => format!("cannot read the grant: {refused}"),
    })?;
    let grant: Grant =
        serde_json::from_slice(&bytes).map_err(|_| "the grant file is not valid".to_string())?;
    if grant.version != GRANT_VERSION {
        return Err(format!("unsupported grant version {}", grant.version));
    }
    if !valid_id(&grant.turn_id) || !valid_id(&grant.runtime_id) {
        return Err("the grant has an invalid turn or runtime id".into());
    }
    Ok(grant)
}

/// One line of `usage.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageLine {
    pub ts: String,
    pub turn_id: String,
    pub tool: String,
    pub args_digest: String,
    pub citation_uris: Vec<String>,
    pub chars: u64,
    /// Time the server spent on the call, in microseconds (0 in lines of older versions).
    #[serde(default)]
    pub micros: u64,
}

/// Appends one line whole (see [`statefs::append_whole`]): concurrent servers never interleave.
pub fn append_usage(path: &Path, line: &UsageLine) -> std::io::Result<()> {
    let mut text = crate::vault::visible::to_json_string(line).map_err(std::io::Error::other)?;
    text.push('\n');
    Ok(statefs::append_whole(path, &text)?)
}

/// Every well-formed line of a usage file (a torn or foreign line is skipped).
pub fn read_usage(path: &Path) -> Vec<UsageLine> {
    let Ok(bytes) = statefs::read(path) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Running per-turn totals of a usage file, read incrementally: only bytes appended since the
/// last call are parsed, so the cost of a call does not grow with the turn's history.
#[derive(Debug, Default)]
pub struct UsageMeter {
    offset: u64,
    totals: std::collections::HashMap<String, u64>,
}

impl UsageMeter {
    pub fn used(&mut self, path: &Path, turn_id: &str) -> u64 {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut f) = statefs::open_read(path) else {
            self.offset = 0;
            self.totals.clear();
            return 0;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len < self.offset {
            self.offset = 0;
            self.totals.clear();
        }
        if len > self.offset && f.seek(SeekFrom::Start(self.offset)).is_ok() {
            let mut buf = Vec::new();
            if f.read_to_end(&mut buf).is_ok() {
                // Only complete lines count; a line still being written is read next time.
                let complete = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                for line in buf[..complete].split(|b| *b == b'\n') {
                    if let Ok(u) = serde_json::from_slice::<UsageLine>(line) {
                        *self.totals.entry(u.turn_id).or_default() += u.chars;
                    }
                }
                self.offset += complete as u64;
            }
        }
        self.totals.get(turn_id).copied().unwrap_or(0)
    }
}

/// The attachment record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initialized_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools_listed_at: Option<String>,
    /// The turn whose grant was current when the tools were listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub pid: u32,
}

pub fn read_attachment(files: &GrantFiles) -> Option<Attachment> {
    serde_json::from_slice(&statefs::read(&files.attached()).ok()?).ok()
}

pub fn write_attachment(files: &GrantFiles, a: &Attachment) -> std::io::Result<()> {
    Ok(statefs::atomic_write(
        &files.attached(),
        &serde_json::to_vec_pretty(a).map_err(std::io::Error::other)?,
    )?)
}

/// Current UTC time as RFC 3339 with milliseconds.
pub fn now_rfc3339() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(d.as_secs() as i64, d.subsec_millis())
}

fn rfc3339(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_and_ids() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400 + 86_399, 5), "2000-02-29T23:59:59.005Z");
        let (a, b) = (new_id("turn"), new_id("turn"));
        assert_ne!(a, b);
        assert!(valid_id(&a));
        assert!(!valid_id("../x") && !valid_id(""));
    }

    #[test]
    fn usage_meter_counts_per_turn_incrementally() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("usage.jsonl");
        let line = |turn: &str, chars| UsageLine {
            ts: now_rfc3339(),
            turn_id: turn.into(),
            tool: "context_read".into(),
            args_digest: "d".into(),
            citation_uris: vec!["a.md#line=1,2".into()],
            chars,
            micros: 0,
        };
        let mut m = UsageMeter::default();
        assert_eq!(m.used(&p, "t1"), 0);
        append_usage(&p, &line("t1", 10)).unwrap();
        append_usage(&p, &line("t2", 5)).unwrap();
        assert_eq!(m.used(&p, "t1"), 10);
        append_usage(&p, &line("t1", 7)).unwrap();
        assert_eq!(m.used(&p, "t1"), 17);
        assert_eq!(m.used(&p, "t2"), 5);
        assert_eq!(read_usage(&p).len(), 3);
    }
}
