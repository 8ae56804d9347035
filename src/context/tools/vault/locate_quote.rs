//! `locate_quote`: where a quote occurs — in the named paper, or in the papers whose pages the
//! index finds by the quote's words — verbatim or approximately, with the page to cite.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::VaultTools;
use super::common::{no_index, target_of_kind};
use crate::context::quote;
use crate::context::tools::read::MAX_QUOTE_CHARS;
use crate::context::tools::{
    Ctx, MAX_PATH_CHARS, PaperData, ToolError, ToolOutput, cap_chars, limit_arg, parse_args, search,
};
use crate::vault::scan::EntryKind;
use crate::vault::uri;

/// Candidate papers `locate_quote` checks when no paper is named.
const LOCATE_PAPERS: usize = 6;
/// The most matches one `locate_quote` call returns.
const MAX_MATCHES: usize = 10;
/// Characters of matched text shown per `locate_quote` match.
const MATCH_CHARS: usize = 400;

impl VaultTools {
    pub(super) fn locate_quote(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
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
fn find_on_pages(rel: &str, data: &PaperData, indices: &[usize], q: &str) -> Option<QuoteMatch> {
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

/// `locate_quote`'s arguments; they are its input schema too (see [`super::specs`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct LocateArgs {
    /// The passage to locate (at least a few words).
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    quote: String,
    /// Only look in this paper (a vault path).
    #[serde(default)]
    #[schemars(length(max = MAX_PATH_CHARS))]
    paper: Option<String>,
    /// Maximum matches (default 1; more when a quote occurs in several papers).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_MATCHES))]
    limit: Option<u64>,
}
