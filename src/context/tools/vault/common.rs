//! What the vault MCP's tools share: the folder, kind and year filter of `vault_search` and
//! `paper_list`, the library by path, a target of a required kind, the missing-index refusal.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::VaultTools;
use crate::context::library::LibraryPaper;
use crate::context::tools::{Ctx, Target, ToolError};
use crate::vault::Vault;
use crate::vault::scan::EntryKind;

/// Filters shared by `vault_search` and `paper_list`.
#[derive(Debug, Default)]
pub(super) struct Filter {
    pub(super) folder: Option<String>,
    pub(super) kind: Option<EntryKind>,
    pub(super) years: Option<(i32, i32)>,
}

impl Filter {
    pub(super) fn in_folder(&self, path: &str) -> bool {
        self.folder
            .as_deref()
            .is_none_or(|f| path.strip_prefix(f).is_some_and(|r| r.starts_with('/')))
    }
}

impl VaultTools {
    pub(super) fn filter(
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
}

/// The library's papers by vault path.
pub(super) fn by_path(lib: &crate::context::library::Library) -> HashMap<&str, &LibraryPaper> {
    lib.papers.iter().map(|p| (p.path.as_str(), p)).collect()
}

/// The target an argument names, which must be of `kind`.
pub(super) fn target_of_kind(
    ctx: &Ctx,
    raw: &str,
    kind: EntryKind,
    arg: &str,
) -> Result<Target, ToolError> {
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

pub(super) fn no_index(vault: &Vault) -> ToolError {
    use crate::vault::build::{self, IndexState};
    match build::state(vault) {
        state @ IndexState::Building { .. } => ToolError::new("index_missing", state.nothing_yet()),
        _ => ToolError::new(
            "index_missing",
            "the vault has no search index yet; it is built when the server starts (or run `agentero index`)",
        ),
    }
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum KindArg {
    Paper,
    File,
}

impl KindArg {
    pub(super) fn kind(self) -> EntryKind {
        match self {
            KindArg::Paper => EntryKind::Paper,
            KindArg::File => EntryKind::File,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct YearArgs {
    pub(super) year: Option<i32>,
    pub(super) year_from: Option<i32>,
    pub(super) year_to: Option<i32>,
}
