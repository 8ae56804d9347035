//! The vault MCP's tools, for external clients (`agentero serve`): the whole vault, read-only,
//! through the same code as the context tools — the same resolver (hidden entries, `.agentero/`
//! and anything outside the vault are refused), the same index search and card rendering, the
//! same read modes and the same quote finder — with per-call limits instead of a turn budget.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::read::{self, Mode};
use super::{
    Access, Ctx, ToolError, ToolOutput, VaultReader, cap_chars, check_string, limit_arg,
    parse_args, relations,
};
use super::{search, vault_spec};
use crate::context::budget::{Budget, QUOTE_CAP};
use crate::context::library::LibraryPaper;
use crate::context::quote;
use crate::vault::annotation_search;
use crate::vault::catalog::Status;
use crate::vault::scan::EntryKind;
use crate::vault::{Scope, Vault, uri};

/// The vault MCP's tools, in the order `tools/list` shows them.
pub const TOOL_NAMES: [&str; 6] = [
    "vault_search",
    "paper_list",
    "paper_read",
    "paper_relations",
    "file_read",
    "locate_quote",
];

/// What one call may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Cards a search returns when `limit` is not given.
    pub search_cards: usize,
    /// The most cards a search returns.
    pub max_cards: usize,
    pub excerpt_chars: usize,
    /// Characters one result returns at most — the whole JSON a client receives.
    pub read_chars: usize,
    /// Papers one `paper_list` page holds by default.
    pub list_page: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            search_cards: 10,
            max_cards: 50,
            excerpt_chars: 400,
            read_chars: 20_000,
            list_page: 50,
        }
    }
}

/// Characters kept free in a page read for the cursor to the next page.
const NEXT_PAGE_ROOM: usize = 160;
/// The most papers one `paper_list` call returns.
const MAX_LIST: usize = 200;
/// Candidate papers `locate_quote` checks when no paper is named.
const LOCATE_PAPERS: usize = 6;
/// The most matches one `locate_quote` call returns.
const MAX_MATCHES: usize = 10;
/// Characters of matched text shown per `locate_quote` match.
const MATCH_CHARS: usize = 400;

pub struct VaultTools {
    vault: Vault,
    reader: VaultReader,
    limits: Limits,
}

/// One paper as `paper_list` and `resources/list` show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperSummary {
    pub path: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub pages: u32,
    /// `indexed`, `no_text` (a scan without a text layer) or `failed` (not readable).
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_uri: Option<String>,
}

/// Filters shared by `vault_search` and `paper_list`.
#[derive(Debug, Default)]
struct Filter {
    folder: Option<String>,
    kind: Option<EntryKind>,
    years: Option<(i32, i32)>,
}

impl Filter {
    fn in_folder(&self, path: &str) -> bool {
        self.folder
            .as_deref()
            .is_none_or(|f| path.strip_prefix(f).is_some_and(|r| r.starts_with('/')))
    }
}

impl VaultTools {
    pub fn new(vault: Vault, limits: Limits) -> VaultTools {
        VaultTools {
            vault,
            reader: VaultReader::default(),
            limits,
        }
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            access: Access::WholeVault,
            vault: self.vault.clone(),
            budget: Budget {
                search_cards: self.limits.max_cards,
                excerpt_chars: self.limits.excerpt_chars,
                read_chars: self.limits.read_chars,
                turn_chars: self.limits.read_chars,
                quote_cap: QUOTE_CAP,
            },
            // No turns here: the per-call budget bounds each whole result as delivered (the
            // JSON, envelope and escaping included), so a client's own cap is never overrun.
            remaining: self.limits.read_chars,
        }
    }

    /// Runs one call. Errors are refusals or bad arguments, never partial output.
    pub fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let ctx = self.ctx();
        match tool {
            "vault_search" => self.search(&ctx, args),
            "paper_list" => self.paper_list(&ctx, args),
            "paper_read" => self.paper_read(&ctx, args),
            "paper_relations" => relations::run(&self.reader, &ctx, args),
            "file_read" => self.file_read(&ctx, args),
            "locate_quote" => self.locate_quote(&ctx, args),
            _ => Err(ToolError::new(
                "unknown_tool",
                format!("no such tool; the tools are {}", TOOL_NAMES.join(", ")),
            )),
        }
    }

    fn filter(
        &self,
        ctx: &Ctx,
        folder: Option<&str>,
        kind: Option<KindArg>,
        years: YearArgs,
    ) -> Result<Filter, ToolError> {
        let folder = match folder.map(str::trim).filter(|f| !f.is_empty() && *f != ".") {
            Some(f) => Some(target_of_kind(ctx, f, EntryKind::Directory, "folder")?.rel),
            None => None,
        };
        let years = match (years.year, years.year_from, years.year_to) {
            (Some(y), None, None) => Some((y, y)),
            (Some(_), _, _) => {
                return Err(ToolError::bad_args(
                    "give either `year` or `yearFrom`/`yearTo`, not both",
                ));
            }
            (None, None, None) => None,
            (None, from, to) => Some((from.unwrap_or(i32::MIN), to.unwrap_or(i32::MAX))),
        };
        if let Some((a, b)) = years
            && a > b
        {
            return Err(ToolError::bad_args("`yearFrom` is after `yearTo`"));
        }
        Ok(Filter {
            folder,
            kind: kind.map(KindArg::kind),
            years,
        })
    }

    fn search(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        let a: SearchArgs = parse_args(args)?;
        let query = a.query.trim();
        if query.is_empty() {
            return Err(ToolError::bad_args("`query` is empty"));
        }
        let limit = limit_arg(a.limit, self.limits.search_cards, self.limits.max_cards)?;
        let years = YearArgs {
            year: a.year,
            year_from: a.year_from,
            year_to: a.year_to,
        };
        let f = self.filter(ctx, a.folder.as_deref(), a.kind, years)?;
        if self.reader.index(&self.vault).is_none() {
            return Err(no_index(&self.vault));
        }
        let scope = if f.kind.is_some() || f.years.is_some() {
            // Narrowed by what the catalog and the records know; an empty set finds nothing.
            let catalog = self.reader.catalog(&self.vault);
            let lib = f.years.map(|_| self.reader.library(&self.vault));
            let by_path = lib.as_deref().map(by_path);
            let files: Vec<String> = catalog
                .entries
                .iter()
                .filter(|(p, e)| {
                    e.kind != EntryKind::Directory
                        && e.status != Status::Failed
                        && f.kind.is_none_or(|k| k == e.kind)
                        && f.in_folder(p)
                        && f.years.is_none_or(|(lo, hi)| {
                            by_path
                                .as_ref()
                                .and_then(|l| l.get(p.as_str()))
                                .and_then(|r| r.year)
                                .is_some_and(|y| (lo..=hi).contains(&y))
                        })
                })
                .map(|(p, _)| p.clone())
                .collect();
            Some(Scope {
                files,
                dirs: Vec::new(),
            })
        } else {
            f.folder.clone().map(|d| Scope {
                files: Vec::new(),
                dirs: vec![d],
            })
        };
        let mut cards = match &scope {
            Some(s) if s.files.is_empty() && s.dirs.is_empty() => Vec::new(),
            _ => search::index_cards(&self.reader, ctx, query, limit, scope.clone())?,
        };
        // The reader's comments and highlighted text are searched too.
        let in_scope = |p: &str| {
            f.in_folder(p)
                && f.kind.is_none_or(|k| k == EntryKind::Paper)
                && scope
                    .as_ref()
                    .is_none_or(|s| s.files.is_empty() || s.files.iter().any(|x| x == p))
        };
        let top = cards.iter().map(|c| c.score).fold(1.0f32, f32::max);
        let excerpt_chars = ctx.budget.excerpt_chars;
        cards.extend(annotation_search::cards(
            &self.vault,
            query,
            &in_scope,
            excerpt_chars,
            top,
        ));
        search::with_index_state(
            search::finish(ctx, query, cards, limit, "the vault", &[])?,
            ctx,
        )
    }

    /// Papers of the catalog (sorted by path) that pass `f`, with their metadata.
    fn papers(&self, f: &Filter, text: Option<&str>) -> Vec<PaperSummary> {
        let catalog = self.reader.catalog(&self.vault);
        let lib = self.reader.library(&self.vault);
        let lib = by_path(&lib);
        let needle = text
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty());
        catalog
            .entries
            .iter()
            .filter(|(p, e)| e.kind == EntryKind::Paper && f.in_folder(p))
            .filter_map(|(p, e)| {
                let rec = lib.get(p.as_str());
                let s = PaperSummary {
                    path: p.clone(),
                    title: rec
                        .map(|r| r.title.clone())
                        .filter(|t| !t.is_empty())
                        .unwrap_or_else(|| e.title.clone()),
                    authors: rec.map(|r| r.authors.clone()).unwrap_or_default(),
                    year: rec.and_then(|r| r.year),
                    doi: rec.and_then(|r| r.doi.clone()),
                    arxiv: rec.and_then(|r| r.arxiv.clone()),
                    pages: e.units,
                    status: match e.status {
                        Status::Indexed => "indexed",
                        Status::NoText => "no_text",
                        Status::Failed => "failed",
                    },
                    citation_uri: (e.status != Status::Failed).then(|| uri::page_uri(p, 1)),
                };
                let year_ok = f
                    .years
                    .is_none_or(|(lo, hi)| s.year.is_some_and(|y| (lo..=hi).contains(&y)));
                let text_ok = needle.as_deref().is_none_or(|n| {
                    s.title.to_lowercase().contains(n)
                        || s.authors.iter().any(|a| a.to_lowercase().contains(n))
                        || s.path.to_lowercase().contains(n)
                });
                (year_ok && text_ok).then_some(s)
            })
            .collect()
    }

    /// One page of the vault's papers for `resources/list`: from `offset`, at most `limit`.
    pub fn list_papers(&self, offset: usize, limit: usize) -> (Vec<PaperSummary>, Option<usize>) {
        let all = self.papers(&Filter::default(), None);
        let end = offset.saturating_add(limit).min(all.len());
        let next = (end < all.len()).then_some(end);
        let page = all.into_iter().skip(offset).take(limit).collect();
        (page, next)
    }

    fn paper_list(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        let a: ListArgs = parse_args(args)?;
        let years = YearArgs {
            year: a.year,
            year_from: a.year_from,
            year_to: a.year_to,
        };
        let f = self.filter(ctx, a.folder.as_deref(), None, years)?;
        let all = self.papers(&f, a.query.as_deref());
        let total = all.len();
        let offset = a.offset.unwrap_or(0) as usize;
        let limit = limit_arg(a.limit, self.limits.list_page, MAX_LIST)?;
        let mut shown: Vec<PaperSummary> = Vec::new();
        // The page is cut at the per-call budget, like a read: what the client receives.
        let mut used = 200;
        for p in all.into_iter().skip(offset).take(limit) {
            let n = serde_json::to_string(&p).map_or(0, |t| t.chars().count()) + 1;
            if !shown.is_empty() && used + n > self.limits.read_chars {
                break;
            }
            used += n;
            shown.push(p);
        }
        let end = offset + shown.len();
        let next = (end < total).then(|| {
            let mut n = json!({"offset": end, "limit": limit});
            if let Some(folder) = &f.folder {
                n["folder"] = json!(folder);
            }
            if let Some(q) = &a.query {
                n["query"] = json!(q);
            }
            for (k, v) in [
                ("year", a.year),
                ("yearFrom", a.year_from),
                ("yearTo", a.year_to),
            ] {
                if let Some(y) = v {
                    n[k] = json!(y);
                }
            }
            n
        });
        let mut structured = json!({
            "papers": shown,
            "total": total,
            "offset": offset,
            "truncated": next.is_some(),
        });
        if let Some(n) = next {
            structured["note"] = json!(format!("more papers: continue with paper_list {n}"));
            structured["next"] = n;
        } else if total == 0 {
            structured["note"] = json!("no paper matches");
        }
        let citation_uris = shown
            .iter()
            .filter_map(|p| p.citation_uri.clone())
            .collect();
        Ok(ToolOutput::new(structured, citation_uris))
    }

    fn paper_read(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        let a: read::Args = parse_args(args)?;
        let max_chars = a.max_chars.map(|m| m.max(read::MIN_MAX_CHARS as u64));
        let target = std::cell::RefCell::new(None);
        // Room for the next-page cursor added below.
        let ctx = &Ctx {
            remaining: ctx.remaining.saturating_sub(NEXT_PAGE_ROOM),
            access: ctx.access.clone(),
            vault: ctx.vault.clone(),
            budget: ctx.budget,
        };
        let mut out = read::read(&self.reader, ctx, a, "paper_read", &|t| {
            *target.borrow_mut() = Some(t.clone());
            match t.kind {
                EntryKind::Paper => Ok(()),
                k => Err(ToolError::bad_args(format!(
                    "{} is a {}; paper_read reads papers (PDFs), file_read reads text files and folders",
                    t.rel,
                    k.as_str()
                ))),
            }
        })?;
        // A whole page read points on to the next page, so a book can be read page by page.
        if out.structured["mode"] == "page"
            && out.structured.get("next").is_none()
            && let (Some(t), Some(page)) = (target.into_inner(), out.structured["page"].as_u64())
        {
            let pages = self.reader.paper(&ctx.vault, &t)?.pages.len() as u64;
            if page < pages {
                let mut next = json!({"path": t.rel, "mode": "page", "page": page + 1});
                if let Some(m) = max_chars {
                    next["maxChars"] = json!(m);
                }
                out.structured["next"] = next;
                out = ToolOutput::new(out.structured, out.citation_uris);
            }
        }
        Ok(out)
    }

    fn file_read(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        if let Some(k) = ["page", "endPage", "section"]
            .into_iter()
            .find(|k| args.get(*k).is_some())
        {
            return Err(ToolError::bad_args(format!(
                "invalid arguments: unknown field `{k}` (file_read reads lines; pages are for paper_read)"
            )));
        }
        let mut a: read::Args = parse_args(args)?;
        // Reading a file means its text; a `#line=` URI means those lines.
        if a.mode.is_none() && !a.path.contains("#line=") {
            a.mode = Some(Mode::Full);
        }
        read::read(&self.reader, ctx, a, "file_read", &|t| match t.kind {
            EntryKind::Paper => Err(ToolError::bad_args(format!(
                "{} is a paper; read it with paper_read",
                t.rel
            ))),
            _ => Ok(()),
        })
    }

    fn locate_quote(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        let a: LocateArgs = parse_args(args)?;
        let q = a.quote.trim();
        if quote::reduce(q).text.chars().count() < quote::MIN_CHARS {
            return Err(ToolError::bad_args(format!(
                "the quote is too short to locate (at least {} letters or digits)",
                quote::MIN_CHARS
            )));
        }
        let limit = limit_arg(a.limit, 1, MAX_MATCHES)?;
        let mut matches: Vec<QuoteMatch> = Vec::new();
        match &a.paper {
            Some(p) => {
                let t = target_of_kind(ctx, p, EntryKind::Paper, "paper")?;
                let data = self.reader.paper(&ctx.vault, &t)?;
                let all: Vec<usize> = (0..data.pages.len()).collect();
                matches.extend(find_on_pages(&t.rel, &data, &all, q));
            }
            None => {
                if self.reader.index(&self.vault).is_none() {
                    return Err(no_index(&self.vault));
                }
                // Candidate pages from the index, by the quote's words; then the tolerant finder
                // on those pages and their neighbours, then on the whole candidate paper.
                let words = query_words(q);
                let cards =
                    search::index_cards(&self.reader, ctx, &words, LOCATE_PAPERS * 4, None)?;
                let mut order: Vec<(String, Vec<u32>)> = Vec::new();
                for c in cards.iter().filter(|c| c.kind == EntryKind::Paper) {
                    let Some(page) = c.page else { continue };
                    match order.iter_mut().find(|(p, _)| *p == c.path) {
                        Some((_, pages)) => pages.push(page),
                        None => order.push((c.path.clone(), vec![page])),
                    }
                }
                for (path, hits) in order.into_iter().take(LOCATE_PAPERS) {
                    if matches.len() >= limit {
                        break;
                    }
                    let Ok(t) = ctx.access.authorize(&ctx.vault, &path) else {
                        continue;
                    };
                    let Ok(data) = self.reader.paper(&ctx.vault, &t) else {
                        continue;
                    };
                    let mut window: Vec<usize> = Vec::new();
                    for n in hits {
                        if let Some(i) = data.pages.iter().position(|p| p.number == n) {
                            window.extend(i.saturating_sub(1)..=(i + 1).min(data.pages.len() - 1));
                        }
                    }
                    window.sort_unstable();
                    window.dedup();
                    let mut found = find_on_pages(&t.rel, &data, &window, q);
                    if found.is_none() {
                        let all: Vec<usize> = (0..data.pages.len()).collect();
                        found = find_on_pages(&t.rel, &data, &all, q);
                    }
                    matches.extend(found);
                }
            }
        }
        // Verbatim matches first; the index order otherwise.
        matches.sort_by_key(|m| !m.exact);
        matches.truncate(limit);
        Ok(render_matches(q, &matches))
    }
}

/// Resource URIs: `agentero://vault/<vault path>` is a paper's metadata (or a file's text, or a
/// folder's listing); `?page=N` (or `#page=N`) after a paper's path is that page's text.
pub const RESOURCE_PREFIX: &str = "agentero://vault/";

/// The resource URI of a vault path (percent-encoded like citation URIs).
pub fn resource_uri(path: &str, page: Option<u32>) -> String {
    match page {
        Some(p) => format!("{RESOURCE_PREFIX}{}?page={p}", uri::encode_path(path)),
        None => format!("{RESOURCE_PREFIX}{}", uri::encode_path(path)),
    }
}

impl VaultTools {
    /// Reads a resource (see [`RESOURCE_PREFIX`]); the text is what the matching tool returns.
    pub fn read_resource(&self, resource: &str) -> Result<ToolOutput, ToolError> {
        let rest = resource.strip_prefix(RESOURCE_PREFIX).ok_or_else(|| {
            ToolError::new(
                "unknown_resource",
                format!("resource URIs start with {RESOURCE_PREFIX}"),
            )
        })?;
        check_string("path", rest)?;
        let (path, page) = match rest.split_once('?') {
            Some((p, q)) => {
                let page = q
                    .strip_prefix("page=")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| ToolError::bad_args("the query of a resource URI is ?page=N"))?;
                (p.to_string(), Some(page))
            }
            None => match rest.split_once("#page=") {
                Some((p, n)) => (
                    p.to_string(),
                    Some(
                        n.parse::<u32>()
                            .map_err(|_| ToolError::bad_args("#page= takes a page number"))?,
                    ),
                ),
                None => (rest.to_string(), None),
            },
        };
        let ctx = self.ctx();
        let t = ctx.access.authorize(&ctx.vault, &path)?;
        match (t.kind, page) {
            (EntryKind::Paper, Some(n)) => {
                self.paper_read(&ctx, json!({"path": path, "mode": "page", "page": n}))
            }
            (EntryKind::Paper, None) => self.paper_read(&ctx, json!({"path": path})),
            (_, Some(_)) => Err(ToolError::bad_args("only papers have pages")),
            (_, None) => self.file_read(&ctx, json!({"path": path})),
        }
    }
}

/// The library's papers by vault path.
fn by_path(lib: &crate::context::library::Library) -> HashMap<&str, &LibraryPaper> {
    lib.papers.iter().map(|p| (p.path.as_str(), p)).collect()
}

/// The target an argument names, which must be of `kind`.
fn target_of_kind(
    ctx: &Ctx,
    raw: &str,
    kind: EntryKind,
    arg: &str,
) -> Result<super::Target, ToolError> {
    let t = ctx.access.authorize(&ctx.vault, raw)?;
    if t.kind != kind {
        return Err(ToolError::bad_args(format!(
            "`{arg}` must name a {} of the vault; {} is a {}",
            kind.as_str(),
            t.rel,
            t.kind.as_str()
        )));
    }
    Ok(t)
}

fn no_index(vault: &Vault) -> ToolError {
    use crate::vault::build::{self, IndexState};
    match build::state(vault) {
        state @ IndexState::Building { .. } => ToolError::new("index_missing", state.nothing_yet()),
        _ => ToolError::new(
            "index_missing",
            "the vault has no search index yet; it is built when the server starts (or run `agentero index`)",
        ),
    }
}

/// The quote's words as a plain OR query (no operators, no field names).
fn query_words(q: &str) -> String {
    let mut seen = Vec::new();
    for w in q.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.chars().count() >= 3 && !seen.contains(&w) {
            seen.push(w);
        }
        if seen.len() >= 32 {
            break;
        }
    }
    if seen.is_empty() {
        quote::reduce(q).text
    } else {
        seen.join(" ")
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct QuoteMatch {
    path: String,
    title: String,
    page: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_label: Option<String>,
    #[serde(rename = "match")]
    kind: &'static str,
    #[serde(skip)]
    exact: bool,
    text: String,
    citation_uri: String,
}

/// The quote on the pages at `indices` (sorted, consecutive runs joined so a quote across a
/// page break is found).
fn find_on_pages(
    rel: &str,
    data: &super::PaperData,
    indices: &[usize],
    q: &str,
) -> Option<QuoteMatch> {
    let mut run_start = 0;
    for i in 0..indices.len() {
        let ends_run = i + 1 == indices.len() || indices[i + 1] != indices[i] + 1;
        if !ends_run {
            continue;
        }
        let run = &indices[run_start..=i];
        run_start = i + 1;
        let joined = quote::Joined::new(run.iter().map(|&k| data.pages[k].text.as_str()));
        if let Some(m) = quote::find_in_pages(&joined, q) {
            let page = &data.pages[run[m.first]];
            let raw = &joined.text[m.found.range.clone()];
            let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            return Some(QuoteMatch {
                path: rel.to_string(),
                title: data.record.meta.title.clone(),
                page: page.number,
                page_label: page.label.clone(),
                kind: if m.found.exact {
                    "exact"
                } else {
                    "approximate"
                },
                exact: m.found.exact,
                text: cap_chars(&text, MATCH_CHARS),
                citation_uri: uri::page_uri(rel, page.number),
            });
        }
    }
    None
}

fn render_matches(q: &str, matches: &[QuoteMatch]) -> ToolOutput {
    let mut v = json!({
        "quote": q,
        "found": !matches.is_empty(),
        "matches": matches,
    });
    if matches.is_empty() {
        v["note"] = json!(
            "the quote occurs in no paper of the vault; check the wording, or name the paper"
        );
    }
    ToolOutput::new(v, matches.iter().map(|m| m.citation_uri.clone()).collect())
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum KindArg {
    Paper,
    File,
}

impl KindArg {
    fn kind(self) -> EntryKind {
        match self {
            KindArg::Paper => EntryKind::Paper,
            KindArg::File => EntryKind::File,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct YearArgs {
    year: Option<i32>,
    year_from: Option<i32>,
    year_to: Option<i32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SearchArgs {
    query: String,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    folder: Option<String>,
    #[serde(default)]
    kind: Option<KindArg>,
    #[serde(default)]
    year: Option<i32>,
    #[serde(default)]
    year_from: Option<i32>,
    #[serde(default)]
    year_to: Option<i32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ListArgs {
    #[serde(default)]
    folder: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    year: Option<i32>,
    #[serde(default)]
    year_from: Option<i32>,
    #[serde(default)]
    year_to: Option<i32>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct LocateArgs {
    quote: String,
    #[serde(default)]
    paper: Option<String>,
    #[serde(default)]
    limit: Option<u64>,
}

/// Where the vault MCP's usage log lives: `{vault}/.agentero/serve/usage.jsonl`.
pub fn usage_log_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join("serve").join("usage.jsonl")
}

pub use vault_spec::{VaultToolSpec, specs};

/// One line of the vault MCP's usage log: what an external client read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageEntry {
    pub ts: String,
    /// `http` or `stdio`.
    pub transport: String,
    /// The client's name from its handshake, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// A tool name, or `resources/read`.
    pub tool: String,
    /// The vault paths (or resource URIs) the arguments named.
    pub paths: Vec<String>,
    /// Characters returned (the text; the structured content carries the same data).
    pub chars: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citation_uris: Vec<String>,
    /// The error code of a refused or failed call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The log is moved aside (to `usage.jsonl.1`) once it grows past this.
const USAGE_ROTATE_BYTES: u64 = 8 << 20;

impl UsageEntry {
    pub fn new(
        transport: &str,
        client: Option<String>,
        tool: &str,
        args: &Value,
        result: &Result<ToolOutput, ToolError>,
    ) -> UsageEntry {
        let (chars, citation_uris, error) = match result {
            Ok(o) => (o.text.chars().count() as u64, o.citation_uris.clone(), None),
            Err(e) => (
                e.message.chars().count() as u64,
                Vec::new(),
                Some(e.code.to_string()),
            ),
        };
        UsageEntry {
            ts: crate::context::grant::now_rfc3339(),
            transport: transport.to_string(),
            client,
            tool: tool.to_string(),
            paths: arg_paths(args),
            chars,
            citation_uris,
            error,
        }
    }

    /// Appends the line whole (concurrent servers never interleave). A log that is not
    /// agentero's own (a planted link, another user's or a hard-linked file) is refused.
    pub fn append(&self, path: &std::path::Path) -> std::io::Result<()> {
        use crate::vault::statefs;
        let mut line =
            crate::vault::visible::to_json_string(self).map_err(std::io::Error::other)?;
        line.push('\n');
        let file = statefs::open_append(path)?;
        if file.metadata().is_ok_and(|m| m.len() > USAGE_ROTATE_BYTES) {
            drop(file);
            let _ = statefs::rename(path, &path.with_extension("jsonl.1"));
        }
        Ok(statefs::append_whole(path, &line)?)
    }
}

/// The path-like arguments of a call: `path`, `paper`, `folder`, a resource `uri`.
pub fn arg_paths(args: &Value) -> Vec<String> {
    ["path", "paper", "folder", "uri"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|s| cap_chars(s, 300))
        .collect()
}
