//! `file_read`: a text file of the vault (its whole text by default, or lines) or a folder's
//! listing; papers are for `paper_read`.

use serde_json::Value;

use super::VaultTools;
use crate::context::tools::read::{self, Mode};
use crate::context::tools::{Ctx, ToolError, ToolOutput, parse_args};
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
}
