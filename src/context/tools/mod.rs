//! The three context tools as plain functions over a grant. A [`ToolSession`] holds
//! what one server process caches between calls: the grant (re-read whenever its file
//! changes), the catalog, a read-only index reader, papers extracted on demand and the
//! library's citing-scan. Every call is checked against the grant of the moment and, when
//! it succeeds, recorded in `usage.jsonl`.

mod access;
mod fit;
mod read;
mod relations;
mod search;
pub mod spec;
pub mod vault;
mod vault_spec;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde_json::Value;

pub use access::{Access, Target};
pub use spec::{ToolSpec, specs};

use super::Budget;
use super::grant::{self, Grant, GrantFiles, UsageLine, UsageMeter};
use super::library::Library;
use super::server::ContextTool;
use crate::vault::catalog::{Catalog, LoadOutcome};
use crate::vault::index::IndexError;
use crate::vault::pdf::PageText;
use crate::vault::{PaperRecord, SearchIndex, Vault};

/// What a successful call returns: the data as a JSON value, and the same JSON as text.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub structured: Value,
    /// `structured` serialized compactly: the text block of the result.
    pub text: String,
    /// The citation URIs the result carries (recorded in `usage.jsonl`).
    pub citation_uris: Vec<String>,
}

impl ToolOutput {
    /// One representation for every client. Claude Code hands the model `structuredContent`,
    /// Gemini CLI and Codex hand it the text block: with the same compact JSON in both, what
    /// the model receives is the same whichever adapter runs, nothing is in one and missing
    /// from the other, and the budget counts exactly what is delivered.
    pub fn new(structured: Value, citation_uris: Vec<String>) -> ToolOutput {
        let text = serde_json::to_string(&structured).unwrap_or_default();
        ToolOutput {
            structured,
            text,
            citation_uris,
        }
    }

    /// The characters the model receives.
    pub fn chars(&self) -> usize {
        self.text.chars().count()
    }
}

/// A refusal or failure, shown to the agent as an `isError` result. Messages never contain
/// absolute paths or content of anything outside the grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }
    pub fn bad_args(message: impl Into<String>) -> ToolError {
        ToolError::new("bad_arguments", message)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Identity of a file version: a rewrite (atomic rename) always changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime_ns: i128,
    ino: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some(Stamp {
        len: m.len(),
        mtime_ns: crate::vault::scan::mtime_ns(&m),
        ino,
    })
}

/// A paper's record and page texts, from the index or extracted on demand.
#[derive(Debug)]
pub struct PaperData {
    pub record: PaperRecord,
    pub pages: Vec<PageText>,
}

struct LoadedGrant {
    stamp: Stamp,
    grant: Arc<Grant>,
    vault: Vault,
}

pub struct ToolSession {
    grant_path: PathBuf,
    files: GrantFiles,
    grant: Option<LoadedGrant>,
    reader: VaultReader,
    meter: UsageMeter,
}

/// What the tools keep about one vault between calls: the catalog, a read-only index reader,
/// papers loaded on demand and the library's citing-scan. Shared by concurrent calls (each
/// cache has its own short-held lock; slow work such as extracting a paper runs outside them).
#[derive(Default)]
pub struct VaultReader {
    catalog: Mutex<Option<(Option<Stamp>, Arc<Catalog>)>>,
    index: Mutex<IndexSlot>,
    papers: Mutex<HashMap<(String, u64, i128), Arc<PaperData>>>,
    library: Mutex<Option<Arc<Library>>>,
    /// Grant checks already passed (sources of a grant whose content was verified).
    seals: Mutex<access::Seals>,
    /// The damaged-index warning was logged.
    index_warned: std::sync::atomic::AtomicBool,
}

/// The index reader and the catalog stamp it was last reloaded for.
type IndexSlot = (Option<Arc<SearchIndex>>, Option<Option<Stamp>>);

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Per-call view handed to the tools.
pub struct Ctx {
    /// What may be read: this turn's grant, or the whole vault.
    pub access: Access,
    pub vault: Vault,
    pub budget: Budget,
    /// Characters this turn may still return.
    pub remaining: usize,
}

impl Ctx {
    fn budget_exhausted(&self) -> ToolError {
        budget_exhausted(&self.budget)
    }
}

/// Papers kept in memory at most (each is a few hundred KB of text at worst).
const PAPER_CACHE: usize = 64;

impl ToolSession {
    pub fn new(grant_path: &Path) -> ToolSession {
        ToolSession {
            grant_path: grant_path.to_path_buf(),
            files: GrantFiles::of_grant(grant_path),
            grant: None,
            reader: VaultReader::default(),
            meter: UsageMeter::default(),
        }
    }

    pub fn files(&self) -> &GrantFiles {
        &self.files
    }

    /// The current grant, re-read when its file changed since the last call.
    pub fn grant(&mut self) -> Result<(Arc<Grant>, Vault), ToolError> {
        let unavailable = || {
            ToolError::new(
                "grant_unavailable",
                "this turn's grant cannot be read; no source is readable",
            )
        };
        let st = stamp(&self.grant_path).ok_or_else(unavailable)?;
        if let Some(g) = &self.grant
            && g.stamp == st
        {
            return Ok((g.grant.clone(), g.vault.clone()));
        }
        let grant = grant::read(&self.grant_path).map_err(|e| {
            tracing::warn!(error = %e, "cannot load the grant");
            unavailable()
        })?;
        let vault =
            Vault::open_for_state(&grant.vault, &self.grant_path).map_err(|_| unavailable())?;
        // The grant must live in its own vault's session folder: a grant elsewhere could
        // otherwise point the server at any folder on the machine.
        let sessions = vault.state_dir().join(grant::SESSIONS_DIR);
        let here = self.grant_path.canonicalize().map_err(|_| unavailable())?;
        if !here.starts_with(&sessions) {
            tracing::warn!("the grant file is not inside its vault's session folder");
            return Err(unavailable());
        }
        let grant = Arc::new(grant);
        self.grant = Some(LoadedGrant {
            stamp: st,
            grant: grant.clone(),
            vault: vault.clone(),
        });
        Ok((grant, vault))
    }

    /// Resolves a path argument against `ctx`'s grant and checks the granted content
    /// ([`VaultReader::authorize`]).
    pub fn authorize(&self, ctx: &Ctx, raw: &str) -> Result<Target, ToolError> {
        self.reader.authorize(ctx, raw)
    }

    /// Runs one tool call against the current grant.
    pub fn call(&mut self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let started = std::time::Instant::now();
        let Some(which) = ContextTool::of(tool) else {
            return Err(ToolError::new(
                "unknown_tool",
                format!("no such tool; the tools are {}", ContextTool::listed()),
            ));
        };
        let (grant, vault) = self.grant()?;
        if !grant.tools.contains(&which) {
            return Err(ToolError::new(
                "tool_not_allowed",
                "this turn's grant does not allow this tool (prompt-only turn)",
            ));
        }
        let used = self.meter.used(&self.files.usage(), &grant.turn_id) as usize;
        let remaining = grant.budget.turn_chars.saturating_sub(used);
        if remaining == 0 {
            return Err(budget_exhausted(&grant.budget));
        }
        let ctx = Ctx {
            access: Access::Grant(grant.clone()),
            vault,
            budget: grant.budget,
            remaining,
        };
        let digest = super::canonical::digest(&args);
        let reader = &self.reader;
        let out = match which {
            ContextTool::ContextSearch => search::run(reader, &ctx, args),
            ContextTool::ContextRead => read::run(reader, &ctx, args),
            ContextTool::PaperRelations => relations::run(reader, &ctx, args),
        }?;
        let chars = out.chars();
        if chars > remaining {
            return Err(budget_exhausted(&grant.budget));
        }
        let line = UsageLine {
            ts: grant::now_rfc3339(),
            turn_id: grant.turn_id.clone(),
            tool: which.as_str().to_string(),
            args_digest: digest,
            citation_uris: out.citation_uris.clone(),
            chars: chars as u64,
            micros: started.elapsed().as_micros() as u64,
        };
        if let Err(e) = grant::append_usage(&self.files.usage(), &line) {
            // Unrecorded output would escape the turn's budget and its list of sources.
            tracing::error!(error = %e, "cannot append to usage.jsonl");
            return Err(ToolError::new(
                "usage_unwritable",
                "the result could not be recorded, so it is withheld",
            ));
        }
        Ok(out)
    }
}

impl VaultReader {
    /// The catalog, re-read when `catalog.json` changed.
    pub fn catalog(&self, vault: &Vault) -> Arc<Catalog> {
        let st = stamp(&vault.catalog_path());
        let mut slot = locked(&self.catalog);
        if let Some((s, c)) = &*slot
            && *s == st
        {
            return c.clone();
        }
        let c = Arc::new(match Catalog::load(&vault.catalog_path()) {
            LoadOutcome::Loaded(c) => c,
            _ => Catalog::default(),
        });
        *slot = Some((st, c.clone()));
        c
    }

    /// The index reader (opened read-only; never a writer), reloaded after the host re-indexed.
    pub fn index(&self, vault: &Vault) -> Option<Arc<SearchIndex>> {
        let st = stamp(&vault.catalog_path());
        let mut slot = locked(&self.index);
        let (index, index_for) = &mut *slot;
        if *index_for != Some(st) {
            if let Some(i) = index
                && i.reload().is_err()
            {
                *index = None;
            }
            if index.is_none() {
                *index = match vault.open_index() {
                    Ok(i) => Some(Arc::new(i)),
                    Err(crate::vault::VaultError::Index(IndexError::Missing)) => None,
                    Err(e) => {
                        self.warn_index_unusable(&e.to_string());
                        None
                    }
                };
            }
            *index_for = Some(st);
        }
        index.clone()
    }

    /// Stops using a damaged index until the host re-indexes (the catalog changes): sources
    /// are then read and searched directly. The tools only read the index, so they never
    /// repair it; they say so in the log once.
    pub fn index_unusable(&self, why: &str) {
        locked(&self.index).0 = None;
        self.warn_index_unusable(why);
    }

    fn warn_index_unusable(&self, why: &str) {
        use std::sync::atomic::Ordering;
        if !self.index_warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                reason = %why,
                "the search index cannot be used; reading the sources directly"
            );
        }
    }

    /// Resolves a tool's path argument for this call's access ([`Access::authorize`]) and
    /// checks that a granted source still has the content the grant names.
    pub fn authorize(&self, ctx: &Ctx, raw: &str) -> Result<Target, ToolError> {
        let target = ctx.access.authorize(&ctx.vault, raw)?;
        if target.granted_sha.is_some() || target.sealed_folder.is_some() {
            let catalog = self.catalog(&ctx.vault);
            locked(&self.seals).check(&target, &catalog)?;
        }
        Ok(target)
    }

    /// A text file's content, refused when the bytes read are not the granted ones (closing
    /// the window between the check in [`VaultReader::authorize`] and the read).
    pub fn read_text(&self, target: &Target) -> Result<String, ToolError> {
        let bytes = std::fs::read(&target.abs)
            .map_err(|_| ToolError::new("unreadable", "the file cannot be read"))?;
        if let Some(want) = &target.granted_sha
            && crate::vault::fsutil::sha256_hex(&bytes) != *want
        {
            return Err(access::changed_since_grant(&target.rel));
        }
        String::from_utf8(bytes)
            .map_err(|_| ToolError::new("unreadable", "the file cannot be read as UTF-8 text"))
    }

    /// A paper's record and pages: from the index when it is current for the file on disk,
    /// else extracted now (and kept for the rest of the process).
    pub fn paper(&self, vault: &Vault, target: &Target) -> Result<Arc<PaperData>, ToolError> {
        let meta = std::fs::metadata(&target.abs)
            .map_err(|_| ToolError::new("unreadable", "the paper cannot be read"))?;
        let key = (
            target.rel.clone(),
            meta.len(),
            crate::vault::scan::mtime_ns(&meta),
        );
        if let Some(p) = locked(&self.papers).get(&key) {
            return Ok(p.clone());
        }
        let catalog = self.catalog(vault);
        let fresh = [&target.rel, &target.canonical_rel]
            .into_iter()
            .find_map(|p| {
                catalog
                    .entries
                    .get(p.as_str())
                    .filter(|e| {
                        e.size == key.1
                            && e.mtime_ns == key.2
                            && e.status != crate::vault::Status::Failed
                    })
                    .map(|e| (p.clone(), e.sha256.clone()))
            })
            .filter(|(_, sha)| target.granted_sha.as_ref().is_none_or(|g| g == sha));
        let mut data = None;
        if let Some((indexed_path, sha)) = fresh
            && let Some(record) = vault.record(&sha)
            && let Some(index) = self.index(vault)
            && let Ok(docs) = index.docs_of(&indexed_path)
            && docs.len() as u32 == record.pages
        {
            let pages = docs
                .into_iter()
                .map(|d| PageText {
                    number: d.page.unwrap_or(0),
                    label: d.page_label,
                    text: d.text,
                    ..PageText::default()
                })
                .collect();
            data = Some(PaperData { record, pages });
        }
        let data = match data {
            Some(d) => d,
            None => {
                tracing::info!(path = %target.rel, "extracting a granted paper on demand");
                let bytes = std::fs::read(&target.abs)
                    .map_err(|_| ToolError::new("unreadable", "the paper cannot be read"))?;
                let sha = crate::vault::fsutil::sha256_hex(&bytes);
                if target.granted_sha.as_ref().is_some_and(|g| *g != sha) {
                    return Err(access::changed_since_grant(&target.rel));
                }
                use crate::vault::extract;
                let ocr = crate::vault::ocr::OcrCache::new(vault);
                let file = extract::PaperFile {
                    abs: &target.abs,
                    rel: &target.rel,
                    bytes,
                    sha256: sha,
                    meta: extract::outside_meta(vault, &target.rel),
                    ocr: Some(&ocr),
                };
                let (mut record, pages) = extract::record(
                    &mut extract::Isolation::default(),
                    file,
                    extract::TIME_LIMIT,
                )
                .map_err(|_| {
                    ToolError::new("unreadable", "the paper's text cannot be extracted")
                })?;
                record.path = target.rel.clone();
                PaperData { record, pages }
            }
        };
        let data = Arc::new(data);
        let mut papers = locked(&self.papers);
        if papers.len() >= PAPER_CACHE {
            papers.clear();
        }
        papers.insert(key, data.clone());
        Ok(data)
    }

    /// The library's identities and citing-scan: the host's on-disk cache when it matches the
    /// catalog, else computed here, in memory only.
    pub fn library(&self, vault: &Vault) -> Arc<Library> {
        let catalog = self.catalog(vault);
        let key = super::library::cache_key(&catalog);
        // Held while building, so concurrent calls build the scan once.
        let mut slot = locked(&self.library);
        if let Some(l) = &*slot
            && l.key == key
        {
            return l.clone();
        }
        let lib = Library::load_cached(vault, &catalog)
            .unwrap_or_else(|| Library::build(vault, &catalog, slot.as_deref()));
        let lib = Arc::new(lib);
        *slot = Some(lib.clone());
        lib
    }
}

fn budget_exhausted(budget: &Budget) -> ToolError {
    ToolError::new(
        "budget_exhausted",
        format!(
            "this turn's reading budget of {} characters is used up; answer with what you have",
            budget.turn_chars
        ),
    )
}

/// The longest path-like argument (`path`, `paper`, `folder`, an entry of `paths`), in characters.
pub const MAX_PATH_CHARS: usize = 2048;
/// The longest string argument a tool takes where no field has a cap of its own.
pub const MAX_ARG_CHARS: usize = 4096;
/// The most entries of an array argument.
pub const MAX_ARRAY_ITEMS: usize = 256;

/// The cap on one string argument, by its name.
fn string_cap(field: &str) -> usize {
    match field {
        "quote" | "section" => read::MAX_QUOTE_CHARS,
        "query" => search::MAX_QUERY_CHARS,
        "path" | "paper" | "folder" | "paths" => MAX_PATH_CHARS,
        _ => MAX_ARG_CHARS,
    }
}

fn check_string(field: &str, s: &str) -> Result<(), ToolError> {
    let cap = string_cap(field);
    // A UTF-8 character is at most 4 bytes: longer inputs are refused without counting.
    if s.len() > cap && (s.len() > cap * 4 || s.chars().count() > cap) {
        return Err(ToolError::bad_args(format!(
            "`{field}` is too long: at most {cap} characters{}",
            match field {
                "quote" | "section" => "; quote a shorter, distinctive passage",
                "query" => " (search for a few distinctive words)",
                _ => "",
            }
        )));
    }
    Ok(())
}

/// Size caps on every argument, checked before any work: strings by field (see
/// [`string_cap`]), arrays at [`MAX_ARRAY_ITEMS`] entries.
fn check_arg_sizes(args: &Value) -> Result<(), ToolError> {
    let Value::Object(fields) = args else {
        return Ok(());
    };
    for (k, v) in fields {
        match v {
            Value::String(s) => check_string(k, s)?,
            Value::Array(items) => {
                if items.len() > MAX_ARRAY_ITEMS {
                    return Err(ToolError::bad_args(format!(
                        "`{k}` has too many entries: at most {MAX_ARRAY_ITEMS}"
                    )));
                }
                for item in items {
                    if let Value::String(s) = item {
                        check_string(k, s)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `limit` argument within 1..=`max` (`default` when absent); outside it, an error naming
/// the range.
fn limit_arg(limit: Option<u64>, default: usize, max: usize) -> Result<usize, ToolError> {
    match limit {
        None => Ok(default.min(max)),
        Some(l) if l >= 1 && l <= max as u64 => Ok(l as usize),
        Some(l) => Err(ToolError::bad_args(format!(
            "`limit` is {l}; it takes 1 to {max}"
        ))),
    }
}

/// Parses tool arguments strictly (unknown fields are an error), after the size caps.
fn parse_args<T: serde::de::DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    check_arg_sizes(&args)?;
    serde_json::from_value(args).map_err(|e| ToolError::bad_args(format!("invalid arguments: {e}")))
}

/// Whether `args` are arguments the context tool `tool` takes, parsed strictly as the server
/// parses them (an object, as MCP sends them, with no unknown fields; `null` is no arguments).
/// Any other tool: false.
pub fn takes_arguments(tool: &str, args: &Value) -> bool {
    if !(args.is_object() || args.is_null()) {
        return false;
    }
    let a = args.clone();
    match ContextTool::of(tool) {
        Some(ContextTool::ContextSearch) => parse_args::<search::Args>(a).is_ok(),
        Some(ContextTool::ContextRead) => parse_args::<read::Args>(a).is_ok(),
        Some(ContextTool::PaperRelations) => parse_args::<relations::Args>(a).is_ok(),
        None => false,
    }
}

/// Cuts `s` to at most `max` characters, marking the cut with `…` and keeping the excerpt
/// markup's marks balanced.
pub fn cap_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut cut: String = s.chars().take(max.saturating_sub(3)).collect();
    crate::vault::marked::Marked::close_cut(&mut cut);
    cut.push('…');
    cut
}

/// A byte index of `s` at or before `i` that is a char boundary.
pub(crate) fn floor_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The byte offset after the first `n` characters of `s`.
pub(crate) fn byte_of_char(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}
