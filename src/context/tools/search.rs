//! `context_search`: cards from the granted sources only. Sources the index holds as they are
//! on disk are searched through the index; a granted source that is missing from the index or
//! changed since it was indexed is searched in memory over freshly read text, so it is never
//! silently empty.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::access::{self, Access, Target};
use super::{Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, VaultReader, cap_chars, parse_args};
use crate::context::mention;
use crate::context::plan::COVERAGE_LIMIT;
use crate::vault::catalog::{Catalog, Status};
use crate::vault::index::sort_cards;
use crate::vault::ranking::{per_document_cap, shown_score, spread};
use crate::vault::scan::{self, EntryKind};
use crate::vault::{Card, Scope, SearchOptions, Vault, citekeys, textfile, uri};

/// `context_search`'s arguments; they are its input schema too (see [`super::spec`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Args {
    /// Words or a "quoted phrase" to look for; title:word and -word work too.
    #[schemars(length(max = MAX_QUERY_CHARS))]
    query: String,
    /// Maximum number of cards (capped by the budget's search_cards; 0 counts as 1).
    #[serde(default)]
    limit: Option<u64>,
    /// Restrict the search to these granted vault paths (papers, files or directories). A path
    /// that is not granted is an error.
    #[serde(default)]
    #[schemars(length(max = MAX_PATHS), inner(length(max = MAX_PATH_CHARS)))]
    paths: Option<Vec<String>>,
}

/// The longest query accepted: a few sentences. Longer ones cost the parser and the scorer
/// without finding anything better.
pub const MAX_QUERY_CHARS: usize = 4000;

/// Entries of `paths` accepted in one call.
const MAX_PATHS: usize = 256;

/// Papers inside granted folders that are not indexed (yet) and are extracted to be searched
/// in one call at most; the rest are named in the result (`notIndexed`). Papers granted by name
/// are always searched.
const FOLDER_EXTRACTIONS: usize = 4;

/// What to search: exact sources and directories (already authorized).
struct Plan {
    indexed: Vec<String>,
    stale: Vec<Target>,
    /// Papers under granted folders left out: not indexed and over [`FOLDER_EXTRACTIONS`].
    not_indexed: Vec<String>,
    /// How many documents can match (a one-document search may fill every card).
    documents: usize,
}

/// Cards of one document at most while other documents have matches too.
fn per_document(limit: usize) -> usize {
    limit.div_ceil(3).max(2)
}

/// The best `limit` cards with no document crowding out the rest: at most [`per_document`]
/// cards of one document first, then the remaining slots by score.
fn diversify(mut cards: Vec<Card>, limit: usize) -> Vec<Card> {
    sort_cards(&mut cards);
    let cap = per_document(limit);
    let mut taken: Vec<Card> = Vec::new();
    let mut rest: Vec<Card> = Vec::new();
    for c in cards {
        let of_doc = taken.iter().filter(|t| t.path == c.path).count();
        if taken.len() < limit && of_doc < cap {
            taken.push(c);
        } else {
            rest.push(c);
        }
    }
    for c in rest {
        if taken.len() >= limit {
            break;
        }
        taken.push(c);
    }
    sort_cards(&mut taken);
    taken
}

pub(super) fn run(s: &VaultReader, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
    let a: Args = parse_args(args)?;
    let query = a.query.trim();
    if query.is_empty() {
        return Err(ToolError::bad_args("`query` is empty"));
    }
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(ToolError::bad_args(format!(
            "`query` is too long; at most {MAX_QUERY_CHARS} characters (search for a few distinctive words)"
        )));
    }
    if a.paths.as_ref().is_some_and(|p| p.len() > MAX_PATHS) {
        return Err(ToolError::bad_args(format!(
            "`paths` names too many sources; at most {MAX_PATHS}"
        )));
    }
    let Access::Grant(grant) = &ctx.access else {
        return Err(ToolError::new(
            "unknown_tool",
            "context_search searches a turn's grant",
        ));
    };
    let budget = ctx.budget;
    let limit = a.limit.map_or(budget.search_cards, |l| {
        (l as usize).clamp(1, budget.search_cards)
    });
    // Roots: the `paths` filter (each one must be granted) or every granted source.
    // A granted source that changed since the grant is an error when named in `paths`, and
    // otherwise left out and listed in the result.
    let mut changed = Vec::new();
    let roots: Vec<Target> = match &a.paths {
        Some(paths) if !paths.is_empty() => paths
            .iter()
            .map(|p| s.authorize(ctx, p))
            .collect::<Result<_, _>>()?,
        _ => {
            let mut roots = Vec::new();
            for src in &grant.sources {
                match s.authorize(ctx, &src.path) {
                    Ok(t) => roots.push(t),
                    Err(e) if e.code == "changed_since_grant" => changed.push(src.path.clone()),
                    Err(_) => {}
                }
            }
            roots
        }
    };
    let catalog = s.catalog(&ctx.vault);
    let plan = plan(&ctx.vault, &catalog, grant, &roots);

    let mut cards: Vec<Card> = Vec::new();
    // More than shown, so that other documents' cards are there to take a crowded one's place.
    let fetch = if plan.documents > 1 {
        limit.saturating_mul(4).min(64)
    } else {
        limit
    };
    if !plan.indexed.is_empty() {
        let scope = Scope {
            files: plan.indexed.clone(),
            dirs: Vec::new(),
        };
        cards.extend(index_cards(s, ctx, query, fetch, Some(scope))?);
    }
    // Indexed sources the index could not open are searched in memory too.
    let mut stale = plan.stale;
    if s.index(&ctx.vault).is_none() {
        for rel in &plan.indexed {
            if let Ok(t) = s.authorize(ctx, rel) {
                stale.push(t);
            }
        }
    }
    for t in &stale {
        cards.extend(search_fresh(s, ctx, t, query, budget.excerpt_chars));
    }
    let cards = diversify(cards, limit);
    let mut out = finish(ctx, query, cards, limit, "the granted sources", &changed)?;
    if !plan.not_indexed.is_empty() {
        let n = plan.not_indexed.len();
        out = ToolOutput::new(
            {
                let mut v = out.structured;
                v["notIndexed"] = json!(plan.not_indexed.iter().take(20).collect::<Vec<_>>());
                v["notIndexedNote"] = json!(format!(
                    "{n} papers in the granted folders are not indexed yet and were not searched; \
                     name one in `paths` to search it anyway"
                ));
                v
            },
            out.citation_uris,
        );
        if out.chars() > ctx.remaining {
            return Err(ctx.budget_exhausted());
        }
    }
    with_index_state(out, ctx)
}

/// `out` with `indexIncomplete` when the index does not cover the vault — being built by a
/// process or interrupted — so that a result over a partial index says so, and an empty one
/// is not taken for "nothing matches".
pub(super) fn with_index_state(out: ToolOutput, ctx: &Ctx) -> Result<ToolOutput, ToolError> {
    use crate::vault::build::{self, IndexState};
    let state = build::state(&ctx.vault);
    let note = match state {
        IndexState::Building { .. } | IndexState::Interrupted => state.notice(),
        IndexState::Complete | IndexState::Missing => None,
    };
    let Some(note) = note else {
        return Ok(out);
    };
    let mut v = out.structured;
    if v["cards"].as_array().is_some_and(|c| c.is_empty()) {
        v["note"] = json!(format!(
            "nothing matches in the part of the vault indexed so far ({note}); search again later"
        ));
    }
    v["indexIncomplete"] = json!(note);
    let out = ToolOutput::new(v, out.citation_uris);
    if out.chars() > ctx.remaining {
        return Err(ctx.budget_exhausted());
    }
    Ok(out)
}

/// Cards from the index (none when there is no index, or when it turns out damaged: the
/// caller then searches the sources directly), within `scope`.
pub(super) fn index_cards(
    s: &VaultReader,
    ctx: &Ctx,
    query: &str,
    limit: usize,
    scope: Option<Scope>,
) -> Result<Vec<Card>, ToolError> {
    let Some(index) = s.index(&ctx.vault) else {
        return Ok(Vec::new());
    };
    let opts = SearchOptions {
        limit,
        excerpt_chars: ctx.budget.excerpt_chars,
        lenient: true,
        scope,
        per_document: Some(per_document_cap(limit)),
    };
    match index.search(query, &opts) {
        Ok(found) => Ok(found),
        Err(crate::vault::index::IndexError::BadQuery(m)) => Err(ToolError::bad_args(m)),
        Err(e) => {
            s.index_unusable(&e.to_string());
            Ok(Vec::new())
        }
    }
}

/// The best `limit` cards with capped excerpts, fitted to the remaining budget by dropping
/// the weakest cards (and saying so). `searched` names what was searched; `changed` lists
/// granted sources left out because they changed since the grant.
pub(super) fn finish(
    ctx: &Ctx,
    query: &str,
    mut cards: Vec<Card>,
    limit: usize,
    searched: &str,
    changed: &[String],
) -> Result<ToolOutput, ToolError> {
    // Page-level cards, but no document takes more than its share while others match.
    sort_cards(&mut cards);
    let mut cards = spread(cards, limit, per_document_cap(limit), |c| c.path.as_str());
    for c in &mut cards {
        c.excerpt = cap_chars(&c.excerpt, ctx.budget.excerpt_chars);
    }
    let mut truncated = false;
    loop {
        let out = render(query, &cards, truncated, searched, changed);
        if out.chars() <= ctx.remaining {
            return Ok(out);
        }
        if cards.pop().is_none() {
            return Err(ctx.budget_exhausted());
        }
        truncated = true;
        if cards.is_empty() {
            return Err(ctx.budget_exhausted());
        }
    }
}

fn render(
    query: &str,
    cards: &[Card],
    truncated: bool,
    searched: &str,
    changed: &[String],
) -> ToolOutput {
    let mut v = json!({ "query": query, "cards": cards, "truncated": truncated });
    if cards.is_empty() {
        v["note"] = json!(format!("nothing in {searched} matches; try other words"));
    } else if truncated {
        v["note"] = json!("more cards were left out: the turn's budget is nearly used up");
    }
    if !changed.is_empty() {
        // Not searched: changed after this turn's grant was written.
        v["changedSinceGrant"] = json!(changed);
        v["changedNote"] = json!(
            "these granted sources changed after the grant was written and were not searched; the user must mention them again"
        );
    }
    let uris = cards.iter().map(|c| c.citation_uri.clone()).collect();
    ToolOutput::new(v, uris)
}

/// Whether the index holds `t` as it is on disk — and, for a granted source, as granted.
fn is_fresh(catalog: &Catalog, t: &Target, meta: &std::fs::Metadata) -> bool {
    catalog.entries.get(&t.rel).is_some_and(|e| {
        e.kind == t.kind
            && e.status != Status::Failed
            && e.size == meta.len()
            && e.mtime_ns == scan::mtime_ns(meta)
            && t.granted_sha.as_ref().is_none_or(|g| *g == e.sha256)
    })
}

/// Splits the roots into what the index can answer and what must be read now. A granted
/// folder contributes every paper and text file under it ([`mention::coverage`]), each
/// authorized like a path the agent named.
fn plan(vault: &Vault, catalog: &Catalog, grant: &crate::context::Grant, roots: &[Target]) -> Plan {
    let mut indexed = BTreeSet::new();
    let mut stale = Vec::new();
    let mut not_indexed = Vec::new();
    let mut seen = BTreeSet::new();
    let mut extractions = 0usize;
    let mut consider =
        |t: Target, in_folder: bool, indexed: &mut BTreeSet<String>, stale: &mut Vec<Target>| {
            if !seen.insert(t.rel.clone()) {
                return;
            }
            match std::fs::metadata(&t.abs) {
                Ok(m) if is_fresh(catalog, &t, &m) => {
                    indexed.insert(t.rel);
                }
                Ok(_) if in_folder && t.kind == EntryKind::Paper => {
                    if extractions < FOLDER_EXTRACTIONS {
                        extractions += 1;
                        stale.push(t);
                    } else {
                        not_indexed.push(t.rel);
                    }
                }
                Ok(_) => stale.push(t),
                Err(_) => {}
            }
        };
    for root in roots {
        match root.kind {
            EntryKind::Directory => {
                let covered = mention::coverage(&root.rel, &root.abs, COVERAGE_LIMIT);
                for (rel, _) in covered.entries {
                    if let Ok(t) = access::authorize(grant, vault, &rel) {
                        consider(t, true, &mut indexed, &mut stale);
                    }
                }
            }
            _ => consider(root.clone(), false, &mut indexed, &mut stale),
        }
    }
    let documents = indexed.len() + stale.len();
    Plan {
        indexed: indexed.into_iter().collect(),
        stale,
        not_indexed,
        documents,
    }
}

/// Query words for the in-memory search (operators and one-letter words dropped).
fn terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2 && !matches!(*w, "AND" | "OR" | "NOT"))
        .map(|w| w.to_lowercase())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Cards from one source read now (pages of a paper, chunks of a file).
fn search_fresh(
    s: &VaultReader,
    ctx: &Ctx,
    t: &Target,
    query: &str,
    excerpt_chars: usize,
) -> Vec<Card> {
    let words = terms(query);
    if words.is_empty() {
        return Vec::new();
    }
    let mut cards = Vec::new();
    match t.kind {
        EntryKind::Paper => {
            let Ok(p) = s.paper(&ctx.vault, t) else {
                return cards;
            };
            let key = citekeys::key_of(&p.record.meta);
            for page in &p.pages {
                if let Some((score, excerpt)) = score_text(&page.text, &words, excerpt_chars) {
                    cards.push(Card {
                        path: t.rel.clone(),
                        kind: EntryKind::Paper,
                        title: p.record.meta.title.clone(),
                        page: Some(page.number),
                        page_label: page.label.clone(),
                        lines: None,
                        excerpt,
                        citation_uri: uri::page_uri(&t.rel, page.number),
                        citation_key: Some(key.clone()),
                        score,
                    });
                }
            }
        }
        _ => {
            let Ok(text) = s.read_text(t) else {
                return cards;
            };
            let title = textfile::title(&t.rel, &text);
            for c in textfile::chunks(&text) {
                if let Some((score, excerpt)) = score_text(&c.text, &words, excerpt_chars) {
                    cards.push(Card {
                        path: t.rel.clone(),
                        kind: EntryKind::File,
                        title: title.clone(),
                        page: None,
                        page_label: None,
                        lines: Some([c.start, c.end]),
                        excerpt,
                        citation_uri: uri::lines_uri(&t.rel, c.start, c.end),
                        citation_key: None,
                        score,
                    });
                }
            }
        }
    }
    cards
}

/// A simple term-frequency score (with a bonus for matching every word) and an excerpt around
/// the first match with the matched words in `**`.
fn score_text(text: &str, words: &[String], max: usize) -> Option<(f32, String)> {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = folded.to_ascii_lowercase();
    let mut score = 0f32;
    let mut matched = 0;
    let mut first: Option<usize> = None;
    for w in words {
        let hits: Vec<usize> = lower.match_indices(w.as_str()).map(|(i, _)| i).collect();
        if hits.is_empty() {
            continue;
        }
        matched += 1;
        score += 1.0 + (hits.len() as f32).ln();
        first = Some(first.map_or(hits[0], |f: usize| f.min(hits[0])));
    }
    let first = first?;
    score *= matched as f32 / words.len() as f32;
    let start = super::floor_boundary(&folded, first.saturating_sub(max / 3));
    let end = super::floor_boundary(&folded, start + max);
    let window = &folded[start..end];
    let lower_window = &lower[start..end];
    let mut marks: Vec<(usize, usize)> = Vec::new();
    for w in words {
        for (i, _) in lower_window.match_indices(w.as_str()) {
            marks.push((i, i + w.len()));
        }
    }
    marks.sort_unstable();
    let mut out = String::from("…");
    let mut pos = 0;
    for (a, b) in marks {
        if a < pos || !window.is_char_boundary(a) || !window.is_char_boundary(b) {
            continue;
        }
        out.push_str(&window[pos..a]);
        crate::vault::marked::Marked::push_match(&mut out, &window[a..b]);
        pos = b;
    }
    out.push_str(&window[pos..]);
    out.push('…');
    // On the index's scale, so cards of both kinds sort together.
    Some((shown_score(0, score), out))
}
