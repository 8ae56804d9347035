//! `paper_list` (and `resources/list`): the vault's papers with their metadata, filtered by
//! folder, year and words of the title, authors or path, a page at a time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::VaultTools;
use super::common::{Filter, YearArgs, by_path};
use crate::context::tools::fit::fit;
use crate::context::tools::{
    Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, limit_arg, parse_args, search,
};
use crate::vault::catalog::Status;
use crate::vault::scan::EntryKind;
use crate::vault::uri;

/// The most papers one `paper_list` call returns.
const MAX_LIST: usize = 200;

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

impl VaultTools {
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

    pub(super) fn paper_list(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
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
        // The page is cut at the per-call budget, like a read: what the client receives,
        // 200 characters kept for the envelope.
        let page: Vec<PaperSummary> = all.into_iter().skip(offset).take(limit).collect();
        let (shown, _) = fit(page, 0, self.limits.read_chars.saturating_sub(200));
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
}

/// `paper_list`'s arguments; they are its input schema too (see [`super::specs`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct ListArgs {
    /// Only papers under this vault folder.
    #[serde(default)]
    #[schemars(length(max = MAX_PATH_CHARS))]
    folder: Option<String>,
    /// Only papers whose title, authors or path contain this text (any case).
    #[serde(default)]
    #[schemars(length(max = search::MAX_QUERY_CHARS))]
    query: Option<String>,
    /// Only papers published in this year.
    #[serde(default)]
    year: Option<i32>,
    /// Only papers published in or after this year.
    #[serde(default)]
    year_from: Option<i32>,
    /// Only papers published in or before this year.
    #[serde(default)]
    year_to: Option<i32>,
    /// Skip this many papers (from `next`).
    #[serde(default)]
    offset: Option<u64>,
    /// Papers per page (default 50).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_LIST))]
    limit: Option<u64>,
}
