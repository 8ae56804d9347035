//! `paper_relations`: slim cards for what a granted paper cites, what in the library cites it
//! and related library papers. A card names a library path only when a DOI or arXiv id
//! matched (never the asked-about paper's own path), carries a citation URI only when it can
//! be opened, and says whether it is readable in this turn (`inGrant`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    Ctx, MAX_ARRAY_ITEMS, MAX_PATH_CHARS, ToolError, ToolOutput, VaultReader, limit_arg, parse_args,
};
use crate::context::library::{self, openable_uri};
use crate::vault::scan::EntryKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Cites,
    CitedBy,
    Related,
}

/// `paper_relations`' arguments (the context tool's and the vault MCP's); they are its input
/// schema too (see [`super::spec`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Args {
    /// A paper's vault path.
    #[schemars(length(max = MAX_PATH_CHARS))]
    path: String,
    /// Which relations to list (default all three).
    #[serde(default)]
    #[schemars(length(max = MAX_ARRAY_ITEMS))]
    kinds: Option<Vec<Kind>>,
    /// Maximum cards per relation (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_LIMIT))]
    limit: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct RelCard {
    relation: Kind,
    title: String,
    authors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doi: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    arxiv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    paper_path: Option<String>,
    in_grant: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    citation_uri: Option<String>,
}

const DEFAULT_LIMIT: usize = 20;
const MAX_LIMIT: usize = 50;

pub(super) fn run(s: &VaultReader, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
    let a: Args = parse_args(args)?;
    let limit = limit_arg(a.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    let target = s.authorize(ctx, &a.path)?;
    if target.kind != EntryKind::Paper {
        return Err(ToolError::bad_args(
            "paper_relations takes a granted paper (a PDF), not a file or directory",
        ));
    }
    let kinds = a
        .kinds
        .unwrap_or_else(|| vec![Kind::Cites, Kind::CitedBy, Kind::Related]);
    let paper = s.paper(&ctx.vault, &target)?;
    let lib = s.library(&ctx.vault);
    let me = target.rel.as_str();
    let meta = &paper.record.meta;
    let own = library::keys(meta.doi.as_deref(), meta.arxiv.as_deref());
    let ref_keys: Vec<String> = paper
        .record
        .references
        .iter()
        .flat_map(library::reference_keys)
        .collect();

    let mut cards: Vec<RelCard> = Vec::new();
    let mut counts = Vec::new();
    for kind in [Kind::Cites, Kind::CitedBy, Kind::Related] {
        if !kinds.contains(&kind) {
            continue;
        }
        let before = cards.len();
        match kind {
            Kind::Cites => {
                for r in &paper.record.references {
                    let keys = library::reference_keys(r);
                    let hit = lib.find(&keys, me);
                    let path = hit.map(|p| p.path.clone());
                    let title = r
                        .title
                        .clone()
                        .or_else(|| hit.map(|p| p.title.clone()))
                        .unwrap_or_else(|| super::cap_chars(r.raw.trim(), 200));
                    cards.push(RelCard {
                        relation: kind,
                        title,
                        authors: if r.authors.is_empty() {
                            hit.map(|p| p.authors.clone()).unwrap_or_default()
                        } else {
                            r.authors.clone()
                        },
                        year: r.year.or(hit.and_then(|p| p.year)),
                        doi: r.doi.clone(),
                        arxiv: r.arxiv.clone(),
                        in_grant: path
                            .as_deref()
                            .is_some_and(|p| ctx.access.may_read_paper(p)),
                        citation_uri: openable_uri(
                            path.as_deref(),
                            r.doi.as_deref(),
                            r.arxiv.as_deref(),
                        ),
                        paper_path: path,
                    });
                    if cards.len() - before >= limit {
                        break;
                    }
                }
            }
            Kind::CitedBy => {
                for p in lib.citing(&own, me).into_iter().take(limit) {
                    cards.push(library_card(kind, p, ctx));
                }
            }
            Kind::Related => {
                for (p, _) in lib.related(me, &own, &ref_keys).into_iter().take(limit) {
                    cards.push(library_card(kind, p, ctx));
                }
            }
        }
        counts.push((kind, cards.len() - before));
    }

    let mut truncated = false;
    loop {
        let out = render(&target.rel, &meta.title, &cards, &counts, truncated);
        if out.chars() <= ctx.remaining {
            return Ok(out);
        }
        if cards.pop().is_none() {
            return Err(ctx.budget_exhausted());
        }
        truncated = true;
    }
}

fn library_card(relation: Kind, p: &library::LibraryPaper, ctx: &Ctx) -> RelCard {
    RelCard {
        relation,
        title: p.title.clone(),
        authors: p.authors.clone(),
        year: p.year,
        doi: p.doi.clone(),
        arxiv: p.arxiv.clone(),
        paper_path: Some(p.path.clone()),
        in_grant: ctx.access.may_read_paper(&p.path),
        citation_uri: openable_uri(Some(&p.path), None, None),
    }
}

fn label(k: Kind) -> &'static str {
    match k {
        Kind::Cites => "cites",
        Kind::CitedBy => "cited_by",
        Kind::Related => "related",
    }
}

fn render(
    path: &str,
    title: &str,
    cards: &[RelCard],
    counts: &[(Kind, usize)],
    truncated: bool,
) -> ToolOutput {
    let shown: serde_json::Map<String, Value> = counts
        .iter()
        .map(|(k, _)| {
            let n = cards.iter().filter(|c| c.relation == *k).count();
            (label(*k).to_string(), json!(n))
        })
        .collect();
    let mut v = json!({"path": path, "title": title, "cards": cards, "counts": shown, "truncated": truncated});
    if truncated {
        v["note"] = json!("more cards were left out: the turn's budget is nearly used up");
    }
    let uris = cards
        .iter()
        .filter_map(|c| c.citation_uri.clone())
        .collect();
    ToolOutput::new(v, uris)
}
