//! `file_read`: a text file of the vault (its whole text by default, or lines) or a folder's
//! listing; papers are for `paper_read`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::VaultTools;
use crate::context::tools::read::{self, MAX_QUOTE_CHARS, Mode, only_modes};
use crate::context::tools::{Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, parse_args};
use crate::vault::scan::EntryKind;

impl VaultTools {
    pub(super) fn file_read(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        if let Some(k) = ["page", "endPage", "section"]
            .into_iter()
            .find(|k| args.get(*k).is_some())
        {
            return Err(ToolError::bad_args(format!(
                "invalid arguments: unknown field `{k}` (file_read reads lines; pages are for paper_read)"
            )));
        }
        let mut a: read::Args = parse_args::<FileReadArgs>(args)?.into();
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
}

/// The modes a text file is read in (a folder lists its entries whatever the mode).
const FILE_MODES: [Mode; 4] = [Mode::Full, Mode::Region, Mode::Excerpt, Mode::Metadata];

/// `file_read`'s arguments: no pages and no sections (refused before parsing, with a pointer to
/// `paper_read`); they are its input schema too (see [`super::specs`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct FileReadArgs {
    /// A vault path (papers/x/paper.pdf, notes/a.md) or a citation URI such as
    /// papers/x/paper.pdf#page=3 or notes/a.md#line=10,20.
    #[schemars(length(max = MAX_PATH_CHARS))]
    path: String,
    /// What to read (default full).
    // Every mode parses; the paper modes are refused on a file with a pointer to the file ones.
    #[serde(default)]
    #[schemars(transform = only_modes(&FILE_MODES))]
    mode: Option<Mode>,
    /// excerpt: the passage to locate.
    #[serde(default)]
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    quote: Option<String>,
    /// region/full: the first line (1-based; 0 counts as 1); a folder: the first entry
    /// (0-based, from `next`).
    #[serde(default)]
    start: Option<u64>,
    /// region: the last line (inclusive).
    #[serde(default)]
    end: Option<u64>,
    /// Return at most this many characters (capped by the server's per-call budget; a value
    /// below 200 is raised to 200).
    #[serde(default)]
    max_chars: Option<u64>,
}

impl From<FileReadArgs> for read::Args {
    fn from(a: FileReadArgs) -> read::Args {
        read::Args {
            path: a.path,
            mode: a.mode,
            quote: a.quote,
            section: None,
            page: None,
            end_page: None,
            start: a.start,
            end: a.end,
            max_chars: a.max_chars,
            furniture: None,
        }
    }
}
