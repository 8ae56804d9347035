//! `vault_search`: the index's cards and the reader's annotations that match a query, narrowed
//! by folder, kind and year.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::common::{KindArg, YearArgs, by_path, no_index};
use super::{MAX_CARDS, VaultTools};
use crate::context::tools::{
    Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, limit_arg, parse_args, search,
};
use crate::vault::Scope;
use crate::vault::annotation_search;
use crate::vault::catalog::Status;
use crate::vault::scan::EntryKind;

impl VaultTools {
    pub(super) fn search(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
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
}

/// `vault_search`'s arguments; they are its input schema too (see [`super::specs`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct SearchArgs {
    /// Words or a "quoted phrase"; title:word and -word work too.
    #[schemars(length(max = search::MAX_QUERY_CHARS))]
    query: String,
    /// Maximum number of cards (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_CARDS))]
    limit: Option<u64>,
    /// Only papers and files under this vault folder, e.g. papers/ml.
    #[serde(default)]
    #[schemars(length(max = MAX_PATH_CHARS))]
    folder: Option<String>,
    /// Only papers (PDFs) or only text files.
    #[serde(default)]
    kind: Option<KindArg>,
    /// Only papers published in this year.
    #[serde(default)]
    year: Option<i32>,
    /// Only papers published in or after this year.
    #[serde(default)]
    year_from: Option<i32>,
    /// Only papers published in or before this year.
    #[serde(default)]
    year_to: Option<i32>,
}
