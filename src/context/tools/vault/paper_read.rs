//! `paper_read`: the read modes of `context_read` on a paper of the vault, and `pages`; a whole
//! page read points on to the next page.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::VaultTools;
use crate::context::tools::read::{self, MAX_QUOTE_CHARS, Mode};
use crate::context::tools::{Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, parse_args};
use crate::vault::scan::EntryKind;

/// Characters kept free in a page read for the cursor to the next page.
const NEXT_PAGE_ROOM: usize = 160;

impl VaultTools {
    pub(super) fn paper_read(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
        let a: read::Args = parse_args::<PaperReadArgs>(args)?.into();
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
}

/// `paper_read`'s arguments: every read mode and its fields; they are its input schema too
/// (see [`super::specs`]).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct PaperReadArgs {
    /// A vault path (papers/x/paper.pdf, notes/a.md) or a citation URI such as
    /// papers/x/paper.pdf#page=3 or notes/a.md#line=10,20.
    #[schemars(length(max = MAX_PATH_CHARS))]
    path: String,
    /// What to read (default metadata; page when the URI names a page).
    #[serde(default)]
    mode: Option<Mode>,
    /// page/pages/region: the 1-based physical page; full: the page to start from;
    /// annotations: only this page's.
    #[serde(default)]
    page: Option<u32>,
    /// pages: the last page to read (inclusive).
    #[serde(default)]
    end_page: Option<u32>,
    /// section: the section's title or number, e.g. "2.1" or "Method".
    // A bare number is taken as its string, as in `context_read`.
    #[serde(default, deserialize_with = "read::string_or_number")]
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    section: Option<String>,
    /// excerpt: the passage to locate (at least a few words).
    #[serde(default)]
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    quote: Option<String>,
    /// region: first character of the page; page/full/pages/section: where to continue (from
    /// `next`).
    #[serde(default)]
    start: Option<u64>,
    /// region: end character of the page (exclusive).
    #[serde(default)]
    end: Option<u64>,
    /// Return at most this many characters (capped by the server's per-call budget; a value
    /// below 200 is raised to 200).
    #[serde(default)]
    max_chars: Option<u64>,
}

impl From<PaperReadArgs> for read::Args {
    fn from(a: PaperReadArgs) -> read::Args {
        read::Args {
            path: a.path,
            mode: a.mode,
            quote: a.quote,
            section: a.section,
            page: a.page,
            end_page: a.end_page,
            start: a.start,
            end: a.end,
            max_chars: a.max_chars,
            furniture: None,
        }
    }
}
