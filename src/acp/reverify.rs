//! `agentero reverify THREAD`: every quote a thread's answers cited, checked again against the
//! vault as it is now, turn by turn, beside what the turn's receipt recorded (the verdict, where
//! the quote was, the hash of the source): what changed since, and whether the source is a new
//! version.

use serde::Serialize;

use super::threads::ThreadIndex;
use super::transcript::{Line, Thread};
use crate::context::receipt::{self, Rechecked};
use crate::vault::Vault;

/// One turn's citations checked again.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecheck {
    /// 1-based, in the thread's order.
    pub number: usize,
    pub question: String,
    /// The turn kept a receipt (threads written before receipts have only the verdicts).
    pub receipt: bool,
    /// The grant's fingerprint the answer was written under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
    pub citations: Vec<Rechecked>,
}

/// A thread's citations checked again.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reverified {
    pub thread: String,
    pub title: String,
    pub turns: Vec<TurnRecheck>,
}

impl Reverified {
    /// Citations that were ✓ and are not now.
    pub fn lost(&self) -> usize {
        self.all()
            .filter(|c| c.then.is_verified() && !c.now.is_verified())
            .count()
    }

    pub fn changed(&self) -> usize {
        self.all().filter(|c| c.changed).count()
    }

    pub fn all(&self) -> impl Iterator<Item = &Rechecked> {
        self.turns.iter().flat_map(|t| &t.citations)
    }
}

/// Checks the citations of thread `id` (its id or a prefix only it has) again.
pub fn reverify(vault: &Vault, id: &str) -> Result<Reverified, String> {
    let index = ThreadIndex::load(vault);
    let id = index.resolve(id)?;
    let thread = Thread::open(vault, &id).map_err(|e| e.to_string())?;
    let mut turns: Vec<TurnRecheck> = Vec::new();
    let mut questions: Vec<(String, String)> = Vec::new();
    for line in &thread.lines {
        match line {
            Line::User { turn, text, .. } => questions.push((turn.clone(), text.clone())),
            Line::Citations {
                turn,
                checks,
                receipt,
                ..
            } => {
                let number = questions
                    .iter()
                    .position(|(t, _)| t == turn)
                    .map_or(questions.len(), |i| i + 1);
                let question = questions
                    .iter()
                    .find(|(t, _)| t == turn)
                    .map(|(_, q)| q.clone())
                    .unwrap_or_default();
                turns.push(TurnRecheck {
                    number,
                    question,
                    receipt: receipt.is_some(),
                    grant: receipt.as_ref().map(|r| r.grant.clone()),
                    citations: receipt::reverify(vault, checks, receipt.as_ref()),
                });
            }
            _ => {}
        }
    }
    Ok(Reverified {
        thread: id,
        title: thread.state.title.clone(),
        turns,
    })
}
