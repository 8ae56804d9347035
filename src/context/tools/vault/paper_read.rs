//! `paper_read`: the read modes of `context_read` on a paper of the vault, and `pages`; a whole
//! page read points on to the next page.

use serde_json::{Value, json};

use super::VaultTools;
use crate::context::tools::read;
use crate::context::tools::{Ctx, ToolError, ToolOutput, parse_args};
use crate::vault::scan::EntryKind;

/// Characters kept free in a page read for the cursor to the next page.
const NEXT_PAGE_ROOM: usize = 160;

impl VaultTools {
    pub(super) fn paper_read(&self, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
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
}
