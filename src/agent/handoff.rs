//! The built-in agent's answer to a handoff request ([`crate::context::prompt::HANDOFF_PROMPT`]):
//! a summary of the conversation from its own record — the session's history, or the prior
//! conversation or handoff a new session was seeded with — in the four sections the host
//! parses. The request itself is never searched for: it is an instruction, not a question.

use crate::context::mention::syntax::without_mentions;
use crate::context::prompt::HANDOFF_PROMPT;

/// Whether the user's text is the handoff request.
pub fn is_handoff(question: &str) -> bool {
    let q = question.trim();
    q == HANDOFF_PROMPT.trim() || q.starts_with("Hand this conversation off to a fresh session")
}

/// One message of the conversation: `user` or `agent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub role: String,
    pub text: String,
}

/// The messages of a `<prior-conversation>` block (`[user]` / `[agent]` paragraphs).
pub fn parse_prior(prior: &str) -> Vec<Said> {
    let mut out: Vec<Said> = Vec::new();
    for line in prior.lines() {
        let t = line.trim();
        let role = match t {
            "[user]" => Some("user"),
            "[agent]" => Some("agent"),
            _ => None,
        };
        match (role, out.last_mut()) {
            (Some(r), _) => out.push(Said {
                role: r.into(),
                text: String::new(),
            }),
            (None, Some(m)) => {
                if !m.text.is_empty() {
                    m.text.push('\n');
                }
                m.text.push_str(line);
            }
            (None, None) => {}
        }
    }
    out
}

/// A quote line of an earlier answer: `> "text" — uri`.
fn quote_of(line: &str) -> Option<(String, String)> {
    let t = line.trim().strip_prefix('>')?.trim();
    let (quote, uri) = t.rsplit_once(" — ")?;
    let uri = uri.trim();
    if uri.is_empty() || uri.contains(' ') {
        return None;
    }
    Some((quote.trim().to_string(), uri.to_string()))
}

/// The summary in the four sections (`## Goal`, `## Findings`, `## Open questions`,
/// `## Sources`). `seed` is a handoff this session was started from (its findings and sources
/// carry over).
pub fn summary(conversation: &[Said], seed: &str) -> String {
    let conv: Vec<&Said> = conversation
        .iter()
        .filter(|m| !(m.role == "user" && is_handoff(&m.text)))
        .collect();
    // Answers to handoff requests are summaries, not findings.
    let mut answers: Vec<&Said> = Vec::new();
    let mut skip_next_agent = false;
    for m in conversation {
        if m.role == "user" {
            skip_next_agent = is_handoff(&m.text);
        } else if !skip_next_agent {
            answers.push(m);
        }
    }
    let questions: Vec<String> = conv
        .iter()
        .filter(|m| m.role == "user")
        .map(|m| without_mentions(&m.text))
        .filter(|q| !q.is_empty())
        .collect();
    let (seeded, _) = crate::context::prompt::handoff_sections(seed);
    let section = |name: &str| {
        seeded
            .iter()
            .filter(|(n, _)| *n == name)
            .flat_map(|(_, items)| items.clone())
            .collect::<Vec<String>>()
    };
    let goal = section("goal")
        .first()
        .cloned()
        .or_else(|| questions.first().cloned())
        .unwrap_or_else(|| "(no question was asked yet)".into());
    let mut findings: Vec<String> = section("findings");
    let mut sources: Vec<String> = section("sources");
    for a in &answers {
        for l in a.text.lines() {
            if let Some((q, u)) = quote_of(l) {
                let f = format!("{q} — {u}");
                if !findings.contains(&f) {
                    findings.push(f);
                }
                if !sources.contains(&u) {
                    sources.push(u);
                }
            }
        }
    }
    // A question whose answer quoted nothing is still open.
    let mut open: Vec<String> = Vec::new();
    let mut last_q: Option<String> = None;
    for m in &conv {
        if m.role == "user" {
            if let Some(q) = last_q.take() {
                open.push(q);
            }
            last_q = Some(without_mentions(&m.text));
        } else if m.text.lines().any(|l| quote_of(l).is_some()) {
            last_q = None;
        }
    }
    open.extend(last_q);
    open.retain(|q| !q.is_empty());
    let list = |items: &[String]| {
        if items.is_empty() {
            "- (none)\n".to_string()
        } else {
            items.iter().map(|i| format!("- {i}\n")).collect()
        }
    };
    format!(
        "## Goal\n\n{goal}\n\n## Findings\n\n{}\n## Open questions\n\n{}\n## Sources\n\n{}",
        list(&findings),
        list(&open),
        list(&sources)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(role: &str, text: &str) -> Said {
        Said {
            role: role.into(),
            text: text.into(),
        }
    }

    #[test]
    fn a_summary_from_the_conversation_without_searching_the_request() {
        let conv = vec![
            said("user", "What is the reading order? @papers/a/paper.pdf"),
            said(
                "agent",
                "From the granted sources:\n\n> \"Columns are read left to right.\" — papers/a/paper.pdf#page=2\n\n(Quoted verbatim.)",
            ),
            said("user", "And the gutters?"),
            said(
                "agent",
                "I could not find anything about \"gutters\" in the granted sources.",
            ),
            said("user", HANDOFF_PROMPT),
        ];
        let s = summary(&conv, "");
        assert!(
            s.starts_with("## Goal\n\nWhat is the reading order?\n"),
            "{s}"
        );
        assert!(s.contains("- \"Columns are read left to right.\" — papers/a/paper.pdf#page=2\n"));
        assert!(
            s.contains("## Open questions\n\n- And the gutters?\n"),
            "{s}"
        );
        assert!(s.contains("## Sources\n\n- papers/a/paper.pdf#page=2\n"));
        assert!(
            !s.contains("hand"),
            "the request is not part of the summary: {s}"
        );
        assert!(is_handoff(HANDOFF_PROMPT));
        assert!(!is_handoff("What is a handoff?"));
    }

    #[test]
    fn prior_conversation_blocks_parse() {
        let p = parse_prior(
            "The conversation so far:\n\n[user]\nQ one\n\n[agent]\n> \"A.\" — x.md#line=1,2\n\n",
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].text, "Q one\n");
        assert!(p[1].text.contains("x.md#line=1,2"));
    }
}
