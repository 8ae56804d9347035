//! Receipts: what an answer's citations rested on, kept with the verdicts — the content hash of
//! every cited source as it was checked and the grant the agent had (fingerprint, mode, granted
//! sources) — so that [`reverify`] can check every quote again, on another machine or after a
//! paper was replaced by a new version, and say what changed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ContextPlan;
use super::citations::{Checker, CitationCheck, VaultDocs, Verdict};
use crate::vault::uri::{self, Target};
use crate::vault::{Vault, fsutil};

/// The evidence ledger of one answer, beside its citation verdicts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Receipt {
    /// The grant's fingerprint (sha256 of its canonical JSON).
    pub grant: String,
    /// `mcp` or `prompt_only`.
    pub mode: String,
    /// The sources the grant allowed (vault paths).
    pub granted: Vec<String>,
    /// sha256 of each cited source's bytes when its quotes were checked, by vault path; a
    /// source that could not be read has none.
    pub hashes: BTreeMap<String, String>,
}

/// The path of a vault citation URI.
fn path_of(u: &str) -> Option<String> {
    match uri::parse(u)? {
        Target::Vault { path, .. } if !path.is_empty() => Some(path),
        _ => None,
    }
}

/// The sha256 of the source at vault path `path`, read through the vault's rules (a path that
/// leaves the vault, a hidden entry or the app's state has none).
fn hash_of(vault: &Vault, path: &str) -> Option<String> {
    let target = super::tools::Access::WholeVault
        .authorize(vault, path)
        .ok()?;
    fsutil::sha256_file(&target.abs).ok()
}

/// The receipt of an answer whose citations are `checks`, checked under `plan`.
pub fn receipt(vault: &Vault, plan: &ContextPlan, checks: &[CitationCheck]) -> Receipt {
    let mut hashes = BTreeMap::new();
    for c in checks {
        if let Some(p) = path_of(&c.uri)
            && !hashes.contains_key(&p)
            && let Some(h) = hash_of(vault, &p)
        {
            hashes.insert(p, h);
        }
    }
    Receipt {
        grant: plan.fingerprint.clone(),
        mode: plan.mode.as_str().to_string(),
        granted: plan.sources.iter().map(|s| s.path.clone()).collect(),
        hashes,
    }
}

/// One citation checked again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rechecked {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    pub then: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub then_found_at: Option<String>,
    pub now: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now_found_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The source's bytes differ from those the receipt names (`None`: no receipt, or the
    /// source cannot be read now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_changed: Option<bool>,
    /// The verdict or the place differs from the first check.
    pub changed: bool,
    /// What happened, in words.
    pub says: String,
}

/// Every quote of `checks` checked again against the vault as it is now, each compared with its
/// first verdict; `receipt` tells whether each source is the same file.
pub fn reverify(
    vault: &Vault,
    checks: &[CitationCheck],
    receipt: Option<&Receipt>,
) -> Vec<Rechecked> {
    let mut docs = VaultDocs::new(vault);
    let mut checker = Checker::new(&mut docs);
    let mut now_hashes: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut out = Vec::new();
    for then in checks {
        let path = path_of(&then.uri);
        let source_changed = match (&path, receipt) {
            (Some(p), Some(r)) => {
                let now = now_hashes
                    .entry(p.clone())
                    .or_insert_with(|| hash_of(vault, p))
                    .clone();
                match (r.hashes.get(p), now) {
                    (Some(a), Some(b)) => Some(*a != b),
                    _ => None,
                }
            }
            _ => None,
        };
        let now = match &then.quote {
            Some(_) => checker.again(then),
            None => then.clone(),
        };
        let changed = now.verdict != then.verdict || now.found_at != then.found_at;
        let version = match source_changed {
            Some(true) => " of the new version",
            _ => "",
        };
        let place = place_words(&then.uri);
        let says = match (then.verdict, now.verdict, changed) {
            (_, _, false) if source_changed == Some(true) => {
                format!("still {} in the new version", now.verdict.says())
            }
            (_, _, false) => format!("unchanged: {}", now.verdict.says()),
            (Verdict::Verified | Verdict::VerifiedOcr, Verdict::OtherPage, _) => format!(
                "this quote is no longer on {place}{version}; it is at {}",
                now.found_at.as_deref().unwrap_or("?")
            ),
            (Verdict::Verified | Verdict::VerifiedOcr, Verdict::NotFound, _) => format!(
                "this quote is no longer on {place}{version}{}",
                now.detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
            (Verdict::Verified | Verdict::VerifiedOcr, Verdict::Unverifiable, _) => format!(
                "can no longer be checked: {}",
                now.detail.as_deref().unwrap_or("the source cannot be read")
            ),
            (_, Verdict::Verified | Verdict::VerifiedOcr, _) => {
                format!("now verified on {place}{version}")
            }
            _ => format!(
                "was {}, now {}{}",
                then.verdict.says(),
                now.verdict.says(),
                now.detail
                    .as_deref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            ),
        };
        out.push(Rechecked {
            uri: then.uri.clone(),
            quote: then.quote.clone(),
            then: then.verdict,
            then_found_at: then.found_at.clone(),
            now: now.verdict,
            now_found_at: now.found_at.clone(),
            detail: now.detail.clone(),
            source_changed,
            changed,
            says,
        });
    }
    out
}

/// `p. 4` of a page URI, `lines 3–9` of a lines URI, else the URI.
fn place_words(u: &str) -> String {
    match uri::parse(u) {
        Some(Target::Vault { page: Some(p), .. }) => format!("p. {p}"),
        Some(Target::Vault {
            lines: Some((a, b)),
            ..
        }) => format!("lines {a}–{b}"),
        _ => u.to_string(),
    }
}
