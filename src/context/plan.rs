//! `ContextRequest → ContextPlan`: a pure function of the request and the vault's
//! bytes. Nothing here depends on time, randomness or hash-map order, so the same request over
//! the same vault gives a byte-identical plan.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::budget::Budget;
use super::canonical;
use super::mention::{self, DUPLICATE, Verified};
use super::quote;
use super::server::ContextTool;
use crate::vault::catalog::Catalog;
use crate::vault::scan::EntryKind;
use crate::vault::{PaperRecord, Vault, meta, textfile, uri};

mod evidence;
pub use evidence::{INLINE_CHARS, cap_quote};
use evidence::{inline_evidence, request_evidence};

/// Bumped when the plan's shape changes.
pub const PLAN_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    #[default]
    Sidebar,
    Quick,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Locality {
    #[default]
    Local,
    Remote,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Mode {
    /// A local agent with the `agentero-context` server attached.
    Mcp,
    /// Evidence inlined, nothing readable beyond it.
    PromptOnly,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Where a source came from, in priority order (a path named twice keeps its first origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Selection,
    Current,
    Mention,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurrentPaper {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    pub text: String,
}

/// One turn's request for context. The vault is the one the plan is computed over.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContextRequest {
    pub surface: Surface,
    /// The user's text (shapes the prompt only, never the plan's sources).
    pub text: String,
    /// Vault-relative paths the user @-mentioned (a leading `@` is accepted).
    pub mentions: Vec<String>,
    pub current: Option<CurrentPaper>,
    pub selection: Option<Selection>,
    pub locality: Locality,
    pub budget: Budget,
}

/// A piece of minimal evidence for the prompt. Never an abstract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub path: String,
    pub kind: EntryKind,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The quoted text (at most the quote cap); absent for "the user is reading this page".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// The quote was cut at the cap; the rest is readable with the tools.
    pub truncated: bool,
    pub citation_uri: String,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Source {
    pub kind: EntryKind,
    pub path: String,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Omitted {
    /// The mention as given.
    pub mention: String,
    pub origin: Origin,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The normalized path when it resolved, else the mention as given.
    pub path: String,
    pub origin: Origin,
    /// `allowed` or `omitted`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<EntryKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Bytes of a paper or file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Entries in a directory's one-level listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// What an allowed directory grants: the papers and text files under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub covers: Option<Covers>,
}

/// What a granted folder covers (the folder is the source: this is for the record, not the
/// fingerprint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Covers {
    pub papers: u64,
    pub files: u64,
    /// sha256 of the covered paths ([`super::mention::Coverage::sha256`]).
    pub sha256: String,
    /// More entries than are walked ([`COVERAGE_LIMIT`]): the rest is granted but not listed.
    pub truncated: bool,
}

/// Entries walked under one granted folder at most.
pub const COVERAGE_LIMIT: usize = 20_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextPlan {
    pub version: u32,
    pub surface: Surface,
    pub locality: Locality,
    pub mode: Mode,
    /// Tools the agent may call (sorted; empty in `prompt_only`).
    pub tools: Vec<ContextTool>,
    pub budget: Budget,
    pub evidence: Vec<Evidence>,
    /// Evidence of the mentioned sources — a file's first lines, a paper's first page, what a
    /// folder covers — inlined in the prompt only when the agent cannot read the vault itself
    /// (prompt-only wording), so that "the evidence below" is there.
    pub inline: Vec<Evidence>,
    /// Sorted by path.
    pub sources: Vec<Source>,
    pub omitted: Vec<Omitted>,
    pub manifest: Vec<ManifestEntry>,
    pub fingerprint: String,
}

impl ContextPlan {
    /// Pretty JSON with sorted keys (what `agentero plan` prints).
    pub fn to_json_pretty(&self) -> String {
        canonical::to_pretty(&serde_json::to_value(self).unwrap_or_default())
    }

    /// What the grant will be, in short: the chat's status line shows it before the turn.
    pub fn preview(&self) -> PlanPreview {
        let duplicates = self
            .omitted
            .iter()
            .filter(|o| o.reason == DUPLICATE)
            .count();
        PlanPreview {
            mode: self.mode.as_str().to_string(),
            sources: self.sources.len(),
            omitted: self.omitted.len() - duplicates,
            duplicates,
            fingerprint: self.fingerprint.clone(),
        }
    }
}

/// A plan in short ([`ContextPlan::preview`]): its mode, how many sources it grants, how many
/// mentions it leaves out, its fingerprint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanPreview {
    pub mode: String,
    pub sources: usize,
    /// Mentions not granted (not found, outside the vault, …).
    pub omitted: usize,
    /// Mentions of a source that another chip grants already (harmless).
    pub duplicates: usize,
    pub fingerprint: String,
}

/// The fingerprint of a grant: sha256 of the canonical JSON of
/// `{tools (sorted), sources (sorted {kind,path}), budget, mode}` — no quotes, no prompt text,
/// no content hashes, so editing a quote never changes it.
pub fn fingerprint(
    tools: &[ContextTool],
    sources: &[Source],
    budget: &Budget,
    mode: Mode,
) -> String {
    let mut tools: Vec<&str> = tools.iter().map(|t| t.as_str()).collect();
    tools.sort_unstable();
    tools.dedup();
    let mut srcs: Vec<(&str, EntryKind)> =
        sources.iter().map(|s| (s.path.as_str(), s.kind)).collect();
    srcs.sort_unstable();
    srcs.dedup();
    let sources: Vec<serde_json::Value> = srcs
        .iter()
        .map(|(path, kind)| json!({"kind": kind.as_str(), "path": path}))
        .collect();
    canonical::digest(&json!({
        "tools": tools,
        "sources": sources,
        "budget": budget,
        "mode": mode.as_str(),
    }))
}

struct Candidate<'a> {
    raw: &'a str,
    origin: Origin,
}

/// Computes the plan, loading the vault's catalog for titles and known hashes.
pub fn plan(vault: &Vault, req: &ContextRequest) -> ContextPlan {
    plan_with(vault, &vault.catalog(), req)
}

/// What a granted folder covers: the papers of a Zotero collection (and of its
/// sub-collections), else the papers and files under the folder.
fn coverage_of(vault: &Vault, v: &Verified) -> mention::Coverage {
    match vault.collection_papers(&v.path) {
        Some(papers) => mention::Coverage {
            entries: papers.into_iter().map(|p| (p, EntryKind::Paper)).collect(),
            truncated: false,
        },
        None => mention::coverage(&v.path, &v.abs, COVERAGE_LIMIT),
    }
}

/// Computes the plan with an already loaded catalog.
pub fn plan_with(vault: &Vault, catalog: &Catalog, req: &ContextRequest) -> ContextPlan {
    let budget = req.budget.sanitized();
    let mut granted = Granted::default();
    for c in candidates(req) {
        granted.verify(vault, catalog, c);
    }
    granted.sort();
    let Granted {
        sources,
        seen,
        omitted,
        manifest,
    } = granted;
    let evidence = request_evidence(vault, catalog, req, &seen, &budget);

    // By path, so that the order of the mentions does not change the plan.
    let mut mentioned: Vec<&Verified> = seen
        .iter()
        .filter(|(o, _)| *o == Origin::Mention)
        .filter_map(|(_, v)| v.as_ref())
        .collect();
    mentioned.sort_by(|a, b| a.path.cmp(&b.path));
    let inline = inline_evidence(vault, catalog, &mentioned, &evidence, &budget);

    let mode = if req.locality == Locality::Local && !sources.is_empty() {
        Mode::Mcp
    } else {
        Mode::PromptOnly
    };
    let tools: Vec<ContextTool> = match mode {
        Mode::Mcp => ContextTool::all().collect(),
        Mode::PromptOnly => Vec::new(),
    };
    let fingerprint = fingerprint(&tools, &sources, &budget, mode);
    ContextPlan {
        version: PLAN_VERSION,
        surface: req.surface,
        locality: req.locality,
        mode,
        tools,
        budget,
        evidence,
        inline,
        sources,
        omitted,
        manifest,
        fingerprint,
    }
}

/// What the request names, in the order it is granted: the selection, the current paper, the
/// @-mentions.
fn candidates(req: &ContextRequest) -> Vec<Candidate<'_>> {
    let mut candidates = Vec::new();
    if let Some(s) = &req.selection {
        candidates.push(Candidate {
            raw: &s.path,
            origin: Origin::Selection,
        });
    }
    if let Some(c) = &req.current {
        candidates.push(Candidate {
            raw: &c.path,
            origin: Origin::Current,
        });
    }
    for m in &req.mentions {
        candidates.push(Candidate {
            raw: m,
            origin: Origin::Mention,
        });
    }
    candidates
}

/// The candidates as verified: the granted sources, the omitted mentions and the manifest of
/// both, and each candidate's verified source (duplicates included) by origin.
#[derive(Default)]
struct Granted {
    sources: Vec<Source>,
    seen: Vec<(Origin, Option<Verified>)>,
    omitted: Vec<Omitted>,
    manifest: Vec<ManifestEntry>,
}

impl Granted {
    fn verify(&mut self, vault: &Vault, catalog: &Catalog, c: Candidate<'_>) {
        let outcome = mention::verify(vault, Some(catalog), c.raw);
        self.seen.push((c.origin, outcome.clone().ok()));
        match outcome {
            Ok(v) if self.sources.iter().any(|s| s.path == v.path) => {
                self.omit(&c, DUPLICATE, Some(v))
            }
            Ok(v) => self.allow(vault, catalog, c.origin, v),
            Err(reason) => self.omit(&c, reason, None),
        }
    }

    fn allow(&mut self, vault: &Vault, catalog: &Catalog, origin: Origin, v: Verified) {
        self.manifest.push(ManifestEntry {
            path: v.path.clone(),
            origin,
            status: "allowed".into(),
            kind: Some(v.kind),
            reason: None,
            sha256: Some(v.sha256.clone()),
            size: (v.kind != EntryKind::Directory).then_some(v.size),
            entries: (v.kind == EntryKind::Directory).then_some(v.size),
            covers: (v.kind == EntryKind::Directory).then(|| {
                let c = coverage_of(vault, &v);
                Covers {
                    papers: c.papers() as u64,
                    files: c.files() as u64,
                    sha256: c.sha256(),
                    truncated: c.truncated,
                }
            }),
        });
        self.sources.push(Source {
            kind: v.kind,
            path: v.path.clone(),
            sha256: v.sha256.clone(),
        });
        // A Zotero collection's papers live in storage/, not under its folder: each is
        // granted by name.
        for p in vault.collection_papers(&v.path).unwrap_or_default() {
            if self.sources.iter().any(|s| s.path == p) {
                continue;
            }
            if let Ok(pv) = mention::verify(vault, Some(catalog), &p) {
                self.sources.push(Source {
                    kind: pv.kind,
                    path: pv.path,
                    sha256: pv.sha256,
                });
            }
        }
    }

    fn omit(&mut self, c: &Candidate<'_>, reason: &str, dup: Option<Verified>) {
        self.omitted.push(Omitted {
            mention: c.raw.to_string(),
            origin: c.origin,
            reason: reason.to_string(),
        });
        self.manifest.push(ManifestEntry {
            path: dup
                .as_ref()
                .map_or_else(|| c.raw.to_string(), |v| v.path.clone()),
            origin: c.origin,
            status: "omitted".into(),
            kind: dup.as_ref().map(|v| v.kind),
            reason: Some(reason.to_string()),
            sha256: dup.as_ref().map(|v| v.sha256.clone()),
            size: None,
            entries: None,
            covers: None,
        });
    }

    /// Sources by path, omissions and the manifest in a fixed order.
    fn sort(&mut self) {
        self.sources
            .sort_by(|a, b| a.path.cmp(&b.path).then(a.kind.cmp(&b.kind)));
        self.omitted.sort_by(|a: &Omitted, b: &Omitted| {
            (a.origin, &a.mention, &a.reason).cmp(&(b.origin, &b.mention, &b.reason))
        });
        self.manifest.sort_by(|a, b| {
            (a.path.as_str(), a.origin, a.status.as_str()).cmp(&(
                b.path.as_str(),
                b.origin,
                b.status.as_str(),
            ))
        });
    }
}

#[cfg(test)]
mod tests;
