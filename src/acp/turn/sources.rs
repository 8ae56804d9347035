//! What a turn read and what its answer cites: the evidence the agent was given and what the
//! tools returned (`usage.jsonl`), every quote of the answer checked against the page it cites,
//! and the turn's Sources and Citations transcript lines.

use super::super::transcript::{Line, Thread};
use crate::context::citations::{self, CitationCheck};
use crate::context::grant::{self, GrantFiles, now_rfc3339};
use crate::context::{ContextPlan, Evidence, Mode};
use crate::vault::Vault;

/// What the agent was given: the evidence (with the inlined mention evidence when the prompt
/// was prompt-only; a folder's listing is named, not a source).
pub(super) fn given(plan: &ContextPlan, prompt_mode: Mode) -> Vec<&Evidence> {
    match prompt_mode {
        Mode::PromptOnly => plan.evidence.iter().chain(&plan.inline).collect(),
        Mode::Mcp => plan.evidence.iter().collect(),
    }
}

/// Everything the agent was given or read this turn: `given`, then what the tools returned,
/// each place once.
pub(super) fn gather(given: &[&Evidence], files: &GrantFiles, turn: &str) -> Vec<String> {
    let mut sources: Vec<String> = Vec::new();
    for u in given
        .iter()
        .map(|e| e.citation_uri.clone())
        .filter(|u| !u.is_empty() && !u.ends_with('/'))
    {
        if !sources.contains(&u) {
            sources.push(u);
        }
    }
    for u in grant::read_usage(&files.usage())
        .into_iter()
        .filter(|u| u.turn_id == turn)
    {
        for uri in u.citation_uris {
            if !sources.contains(&uri) {
                sources.push(uri);
            }
        }
    }
    sources
}

/// The answer's citations against the turn's sources.
pub(super) struct Cited {
    /// The places the answer cites, in order.
    pub cited: Vec<String>,
    /// Sources read or given but not cited.
    pub consulted: Vec<String>,
    /// The verdict on each citation of the answer.
    pub checks: Vec<CitationCheck>,
}

/// Every quote beside a citation of `answer`, checked against the page it cites (off the async
/// threads: it reads the index and may extract a paper), and the sources it leaves uncited.
pub(super) async fn check(
    vault: &Vault,
    answer: &str,
    given: &[&Evidence],
    sources: &[String],
) -> Cited {
    let evidence: Vec<String> = given.iter().map(|e| e.citation_uri.clone()).collect();
    let checks = {
        let (vault, answer) = (vault.clone(), answer.to_string());
        tokio::task::spawn_blocking(move || citations::check_in_vault(&vault, &answer, &evidence))
            .await
            .unwrap_or_default()
    };
    let mut cited: Vec<String> = Vec::new();
    for c in &checks {
        if !cited.iter().any(|u| citations::same_place(u, &c.uri)) {
            cited.push(c.uri.clone());
        }
    }
    let consulted: Vec<String> = sources
        .iter()
        .filter(|s| !cited.iter().any(|c| citations::same_place(c, s)))
        .cloned()
        .collect();
    Cited {
        cited,
        consulted,
        checks,
    }
}

/// The turn's Sources line, and its Citations line (with its receipt) when the answer cites
/// anything.
pub(super) fn record(
    vault: &Vault,
    plan: &ContextPlan,
    thread: &mut Thread,
    turn: &str,
    sources: &[String],
    cited: &Cited,
) {
    let _ = thread.append(Line::Sources {
        ts: now_rfc3339(),
        turn: turn.to_string(),
        uris: sources.to_vec(),
        cited: cited.cited.clone(),
        consulted: cited.consulted.clone(),
    });
    if !cited.checks.is_empty() {
        let _ = thread.append(Line::Citations {
            ts: now_rfc3339(),
            turn: turn.to_string(),
            checks: cited.checks.clone(),
            receipt: Some(crate::context::receipt::receipt(vault, plan, &cited.checks)),
        });
    }
}
