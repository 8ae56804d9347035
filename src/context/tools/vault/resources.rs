//! The vault MCP's resources: a URI for each vault path (and paper page), read through the
//! matching tool.

use serde_json::json;

use super::VaultTools;
use crate::context::tools::{ToolError, ToolOutput, check_string};
use crate::vault::scan::EntryKind;
use crate::vault::uri;

/// Resource URIs: `agentero://vault/<vault path>` is a paper's metadata (or a file's text, or a
/// folder's listing); `?page=N` (or `#page=N`) after a paper's path is that page's text.
pub const RESOURCE_PREFIX: &str = "agentero://vault/";

/// The resource URI of a vault path (percent-encoded like citation URIs).
pub fn resource_uri(path: &str, page: Option<u32>) -> String {
    match page {
        Some(p) => format!("{RESOURCE_PREFIX}{}?page={p}", uri::encode_path(path)),
        None => format!("{RESOURCE_PREFIX}{}", uri::encode_path(path)),
    }
}

impl VaultTools {
    /// Reads a resource (see [`RESOURCE_PREFIX`]); the text is what the matching tool returns.
    pub fn read_resource(&self, resource: &str) -> Result<ToolOutput, ToolError> {
        let rest = resource.strip_prefix(RESOURCE_PREFIX).ok_or_else(|| {
            ToolError::new(
                "unknown_resource",
                format!("resource URIs start with {RESOURCE_PREFIX}"),
            )
        })?;
        check_string("path", rest)?;
        let (path, page) = match rest.split_once('?') {
            Some((p, q)) => {
                let page = q
                    .strip_prefix("page=")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(|| ToolError::bad_args("the query of a resource URI is ?page=N"))?;
                (p.to_string(), Some(page))
            }
            None => match rest.split_once("#page=") {
                Some((p, n)) => (
                    p.to_string(),
                    Some(
                        n.parse::<u32>()
                            .map_err(|_| ToolError::bad_args("#page= takes a page number"))?,
                    ),
                ),
                None => (rest.to_string(), None),
            },
        };
        let ctx = self.ctx();
        let t = ctx.access.authorize(&ctx.vault, &path)?;
        match (t.kind, page) {
            (EntryKind::Paper, Some(n)) => {
                self.paper_read(&ctx, json!({"path": path, "mode": "page", "page": n}))
            }
            (EntryKind::Paper, None) => self.paper_read(&ctx, json!({"path": path})),
            (_, Some(_)) => Err(ToolError::bad_args("only papers have pages")),
            (_, None) => self.file_read(&ctx, json!({"path": path})),
        }
    }
}
