//! The per-turn context server's name and its tools, by name: what every place that names them
//! (the MCP server, the grant, the plan's fingerprint, the adapters' spellings and permission
//! rules, the sentences that list them) derives its text from.

use serde::{Deserialize, Serialize};

/// The name the per-turn MCP server is registered under in an agent's session, and gives in
/// its `initialize` answer.
pub const CONTEXT_SERVER_NAME: &str = "agentero-context";

/// The context server's tools. Their order is their names' sorted order (the order a plan
/// grants them in and its fingerprint hashes them in).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ContextTool {
    ContextRead,
    ContextSearch,
    PaperRelations,
}

impl ContextTool {
    /// Every tool, in order.
    pub fn all() -> impl Iterator<Item = ContextTool> {
        <ContextTool as strum::IntoEnumIterator>::iter()
    }

    /// The tool's MCP name (`context_read`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The tool of an MCP name, if it is one of ours.
    pub fn of(name: &str) -> Option<ContextTool> {
        name.parse().ok()
    }

    /// The tools' names as a sentence lists them: `context_read, context_search and
    /// paper_relations`.
    pub fn listed() -> String {
        let names: Vec<&str> = ContextTool::all().map(ContextTool::as_str).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.concat(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_run_in_sorted_order() {
        let names: Vec<&str> = ContextTool::all().map(ContextTool::as_str).collect();
        assert_eq!(names, ["context_read", "context_search", "paper_relations"]);
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted, "the order the fingerprint hashes");
        for t in ContextTool::all() {
            assert_eq!(ContextTool::of(t.as_str()), Some(t));
            assert_eq!(t.to_string(), t.as_str());
            // The grant's JSON spells it as the MCP server does.
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
            let back: ContextTool = serde_json::from_value(t.as_str().into()).unwrap();
            assert_eq!(back, t);
        }
        assert_eq!(ContextTool::of("context_write"), None);
        assert_eq!(ContextTool::of("Context_Read"), None);
        assert_eq!(
            ContextTool::listed(),
            "context_read, context_search and paper_relations"
        );
    }
}
