//! The vault MCP's tools, for external clients (`agentero serve`): the whole vault, read-only,
//! through the same code as the context tools — the same resolver (hidden entries, `.agentero/`
//! and anything outside the vault are refused), the same index search and card rendering, the
//! same read modes and the same quote finder — with per-call limits instead of a turn budget.

mod common;
mod file_read;
mod locate_quote;
mod paper_list;
mod paper_read;
mod resources;
mod usage;
mod vault_search;

use serde_json::Value;

use super::spec::input_schema;
use super::vault_spec;
use super::{Access, Ctx, ToolError, ToolOutput, VaultReader, relations};
use crate::context::budget::{Budget, QUOTE_CAP};
use crate::vault::Vault;

pub use paper_list::PaperSummary;
pub use resources::{RESOURCE_PREFIX, resource_uri};
pub use usage::{UsageEntry, arg_paths, usage_log_path};
pub use vault_spec::{VaultTool, VaultToolSpec};

/// The most cards a search returns with the default [`Limits`] (`vault_search`'s schema says
/// so).
pub const MAX_CARDS: usize = 50;

/// The tools, in the order `tools/list` shows them, with the input schemas of their argument
/// types.
pub fn specs() -> Vec<VaultToolSpec> {
    vault_spec::specs(|tool| match tool {
        VaultTool::VaultSearch => input_schema::<vault_search::SearchArgs>(),
        VaultTool::PaperList => input_schema::<paper_list::ListArgs>(),
        VaultTool::PaperRead => input_schema::<paper_read::PaperReadArgs>(),
        VaultTool::PaperRelations => input_schema::<relations::Args>(),
        VaultTool::FileRead => input_schema::<file_read::FileReadArgs>(),
        VaultTool::LocateQuote => input_schema::<locate_quote::LocateArgs>(),
    })
}

/// What one call may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Cards a search returns when `limit` is not given.
    pub search_cards: usize,
    /// The most cards a search returns.
    pub max_cards: usize,
    pub excerpt_chars: usize,
    /// Characters one result returns at most — the whole JSON a client receives.
    pub read_chars: usize,
    /// Papers one `paper_list` page holds by default.
    pub list_page: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            search_cards: 10,
            max_cards: MAX_CARDS,
            excerpt_chars: 400,
            read_chars: 20_000,
            list_page: 50,
        }
    }
}

pub struct VaultTools {
    vault: Vault,
    reader: VaultReader,
    limits: Limits,
}

impl VaultTools {
    pub fn new(vault: Vault, limits: Limits) -> VaultTools {
        VaultTools {
            vault,
            reader: VaultReader::default(),
            limits,
        }
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            access: Access::WholeVault,
            vault: self.vault.clone(),
            budget: Budget {
                search_cards: self.limits.max_cards,
                excerpt_chars: self.limits.excerpt_chars,
                read_chars: self.limits.read_chars,
                turn_chars: self.limits.read_chars,
                quote_cap: QUOTE_CAP,
            },
            // No turns here: the per-call budget bounds each whole result as delivered (the
            // JSON, envelope and escaping included), so a client's own cap is never overrun.
            remaining: self.limits.read_chars,
        }
    }

    /// Runs one call. Errors are refusals or bad arguments, never partial output.
    pub fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let ctx = self.ctx();
        let Some(tool) = VaultTool::of(tool) else {
            let names: Vec<&str> = VaultTool::all().map(VaultTool::as_str).collect();
            return Err(ToolError::new(
                "unknown_tool",
                format!("no such tool; the tools are {}", names.join(", ")),
            ));
        };
        match tool {
            VaultTool::VaultSearch => self.search(&ctx, args),
            VaultTool::PaperList => self.paper_list(&ctx, args),
            VaultTool::PaperRead => self.paper_read(&ctx, args),
            VaultTool::PaperRelations => relations::run(&self.reader, &ctx, args),
            VaultTool::FileRead => self.file_read(&ctx, args),
            VaultTool::LocateQuote => self.locate_quote(&ctx, args),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::spec::tests::{Parse, parses, schema_matches_parser};
    use super::*;

    #[test]
    fn tool_names_round_trip_and_an_unknown_one_is_told_them_all() {
        let names: Vec<&str> = VaultTool::all().map(VaultTool::as_str).collect();
        assert_eq!(
            names,
            [
                "vault_search",
                "paper_list",
                "paper_read",
                "paper_relations",
                "file_read",
                "locate_quote"
            ]
        );
        for t in VaultTool::all() {
            assert_eq!(VaultTool::of(t.as_str()), Some(t));
            assert_eq!(t.to_string(), t.as_str());
        }
        assert_eq!(VaultTool::of("context_read"), None);
        let dir = tempfile::tempdir().unwrap();
        let tools = VaultTools::new(Vault::open(dir.path()).unwrap(), Limits::default());
        let e = tools.call("vault_write", json!({})).unwrap_err();
        assert_eq!(e.code, "unknown_tool");
        assert!(e.message.ends_with(&names.join(", ")), "{}", e.message);
    }

    #[test]
    fn every_schema_is_its_argument_types() {
        let parsers: [(&str, Parse); 6] = [
            ("vault_search", parses::<vault_search::SearchArgs>),
            ("paper_list", parses::<paper_list::ListArgs>),
            ("paper_read", parses::<paper_read::PaperReadArgs>),
            ("paper_relations", parses::<relations::Args>),
            ("file_read", parses::<file_read::FileReadArgs>),
            ("locate_quote", parses::<locate_quote::LocateArgs>),
        ];
        let specs = specs();
        assert_eq!(specs.len(), parsers.len());
        for (spec, (name, parse)) in specs.iter().zip(parsers) {
            assert_eq!(spec.name, name);
            schema_matches_parser(name, &spec.input_schema, parse, &[]);
        }
        // file_read lists the modes a text file is read in.
        let modes = &specs[4].input_schema["properties"]["mode"]["enum"];
        assert_eq!(modes, &json!(["metadata", "excerpt", "region", "full"]));
    }
}
