//! The context pipeline: `ContextRequest → ContextPlan`, fingerprints, grants, prompt text and
//! the context tools' logic. Pure and UI-free; uses only `vault`.
//!
//! - [`plan`]: resolve a request (selection, current paper, @-mentions) into a deterministic
//!   [`ContextPlan`] with evidence, allowed and omitted sources, budget, mode and fingerprint.
//! - [`prompt`]: the context block handed to the agent.
//! - [`grant`]: the per-turn grant file the `agentero-context` server reads, its manifest,
//!   `usage.jsonl` and the attachment record.
//! - [`tools`]: `context_search`, `context_read` and `paper_relations` as plain functions over a
//!   grant, returning serde values (the MCP layer only wraps them).

pub mod budget;
pub mod canonical;
pub mod check;
pub mod citations;
pub mod grant;
pub mod library;
pub mod links;
pub mod mention;
pub mod plan;
pub mod prompt;
pub mod quote;
pub mod receipt;
pub mod seal;
pub mod server;
pub mod tools;
pub mod verify;

pub use budget::Budget;
pub use grant::{Grant, GrantFiles};
pub use plan::{
    ContextPlan, ContextRequest, CurrentPaper, Evidence, Locality, ManifestEntry, Mode, Omitted,
    PlanPreview, Selection, Source, Surface, plan,
};
pub use server::{CONTEXT_SERVER_NAME, ContextTool};
