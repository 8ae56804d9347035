//! Handoff (SPEC §7): the agent is asked for a summary of the thread (goal, findings, open
//! questions, sources); it becomes the thread's `HANDOFF.md`, and the thread's session is
//! forgotten so that the next turn opens a fresh session seeded from the file (the session
//! machine's `Seed::Handoff`), which is removed once that session has it.
//!
//! Used by `agentero ask --handoff --thread ID` and the terminal UI (`space h`).

use super::client::AgentProcess;
use super::transcript::{Handoff, Line, Thread};
use super::turn::{TurnError, TurnEvent, TurnOutcome, TurnSpec, run_turn};
use crate::context::ContextRequest;
use crate::vault::Vault;

/// What the agent is asked. The headings are what [`parse_summary`] looks for; an agent that
/// ignores them still gets its text kept as the findings.
pub const HANDOFF_PROMPT: &str = "Hand this conversation off to a fresh session. Summarize it \
for a reader who has not seen it, in exactly these four markdown sections: `## Goal` (one \
paragraph: what the user is trying to find out), `## Findings` (a bullet list of what was \
established, each with its citation URI), `## Open questions` (a bullet list), `## Sources` \
(a bullet list of the citation URIs used).";

/// The request of a handoff turn: the mentions of the thread's last question, so the grant —
/// and with it the fingerprint — is the one the conversation ran with and its session (which
/// has the whole conversation) is the one asked.
pub fn handoff_request(thread: &Thread) -> ContextRequest {
    let mentions = thread
        .lines
        .iter()
        .rev()
        .find_map(|l| match l {
            Line::User { mentions, .. } => Some(mentions.clone()),
            _ => None,
        })
        .unwrap_or_default();
    ContextRequest {
        text: HANDOFF_PROMPT.to_string(),
        mentions,
        ..ContextRequest::default()
    }
}

fn heading(line: &str) -> Option<&'static str> {
    let t = line.trim();
    let name = t
        .strip_prefix('#')
        .map(|r| r.trim_start_matches('#'))
        .or_else(|| t.strip_suffix(':'))?
        .trim()
        .trim_matches('*')
        .trim()
        .to_lowercase();
    match name.as_str() {
        "goal" => Some("goal"),
        "findings" => Some("findings"),
        "open questions" => Some("open"),
        "sources" => Some("sources"),
        _ => None,
    }
}

fn item(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("> "))
        .unwrap_or(t)
        .trim();
    (!t.is_empty() && t != "(none)").then(|| t.to_string())
}

/// The agent's summary over `base` (the thread's own record, [`Handoff::from_thread`]): the
/// sections it wrote replace the record's; without sections its whole text is the findings.
/// Sources are the union of the record's, the summary's and the handoff turn's.
pub fn parse_summary(answer: &str, base: Handoff, turn_sources: &[String]) -> Handoff {
    let mut sections: Vec<(&str, Vec<String>)> = Vec::new();
    let mut loose = Vec::new();
    for line in answer.lines() {
        if let Some(h) = heading(line) {
            sections.push((h, Vec::new()));
        } else if let Some(i) = item(line) {
            match sections.last_mut() {
                Some((_, items)) => items.push(i),
                None => loose.push(i),
            }
        }
    }
    let section = |name: &str| {
        sections
            .iter()
            .find(|(n, items)| *n == name && !items.is_empty())
            .map(|(_, items)| items.clone())
    };
    let mut h = Handoff {
        goal: section("goal").map(|g| g.join(" ")).unwrap_or(base.goal),
        findings: section("findings").unwrap_or(if sections.is_empty() {
            loose
        } else {
            base.findings
        }),
        open_questions: section("open").unwrap_or(base.open_questions),
        sources: base.sources,
    };
    for s in section("sources")
        .unwrap_or_default()
        .iter()
        .chain(turn_sources)
    {
        let s = s.trim_matches('`').to_string();
        if !h.sources.contains(&s) {
            h.sources.push(s);
        }
    }
    h
}

/// Asks the agent for the summary in a turn of `thread` (appended to its transcript like any
/// turn), writes `HANDOFF.md` and forgets the session. `spec.request` is normally
/// [`handoff_request`].
pub async fn run_handoff(
    vault: &Vault,
    agent: &mut AgentProcess,
    thread: &mut Thread,
    spec: TurnSpec,
    on_event: &mut (dyn FnMut(&TurnEvent) + Send),
) -> Result<(Handoff, TurnOutcome), TurnError> {
    if thread.conversation().is_empty() {
        return Err(TurnError::Handoff(
            "this thread has no conversation to hand off yet".into(),
        ));
    }
    // The record before the handoff turn: its question is not one of the user's.
    let mut base = Handoff::from_thread(thread);
    base.open_questions.retain(|q| q != HANDOFF_PROMPT);
    let outcome = run_turn(vault, agent, thread, spec, on_event).await?;
    if outcome.stop_reason != "end_turn" {
        return Err(TurnError::Handoff(format!(
            "the agent stopped before finishing the summary ({})",
            outcome.stop_reason
        )));
    }
    let handoff = parse_summary(&outcome.answer, base, &outcome.sources);
    thread.hand_off(&handoff).map_err(|source| TurnError::Io {
        what: "cannot write HANDOFF.md",
        source,
    })?;
    Ok((handoff, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Handoff {
        Handoff {
            goal: "first question".into(),
            findings: vec!["quoted".into()],
            open_questions: vec!["later question".into()],
            sources: vec!["papers/a.pdf#page=1".into()],
        }
    }

    #[test]
    fn sections_replace_the_record() {
        let answer = "## Goal\nFind the order.\n\n## Findings\n- Pages are read top down (papers/a.pdf#page=2)\n\n## Open questions\n- (none)\n\n## Sources\n- `papers/a.pdf#page=2`\n";
        let h = parse_summary(answer, base(), &["papers/b.pdf#page=1".into()]);
        assert_eq!(h.goal, "Find the order.");
        assert_eq!(
            h.findings,
            vec!["Pages are read top down (papers/a.pdf#page=2)".to_string()]
        );
        // An empty section keeps the record's.
        assert_eq!(h.open_questions, vec!["later question".to_string()]);
        assert_eq!(
            h.sources,
            vec![
                "papers/a.pdf#page=1".to_string(),
                "papers/a.pdf#page=2".to_string(),
                "papers/b.pdf#page=1".to_string()
            ]
        );
    }

    #[test]
    fn text_without_sections_is_the_findings() {
        let h = parse_summary("> a quote — papers/a.pdf#page=3\n\nmore", base(), &[]);
        assert_eq!(h.goal, "first question");
        assert_eq!(
            h.findings,
            vec![
                "a quote — papers/a.pdf#page=3".to_string(),
                "more".to_string()
            ]
        );
    }
}
