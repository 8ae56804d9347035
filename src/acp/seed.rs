//! What a new session is given of its thread's conversation so far: the visible messages,
//! minus what this prompt's evidence already quotes, introduced with why the session is new.

use super::session::NewSessionReason;

/// One message of the visible conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriorMessage {
    /// `user` or `agent`.
    pub role: String,
    pub text: String,
}

/// The seed block for a new session: the prior conversation, minus lines whose text is already
/// in this prompt's evidence quotes (nothing pasted twice), introduced with why the session is
/// new. Empty when nothing is left.
pub fn conversation_seed(
    prior: &[PriorMessage],
    evidence_quotes: &[&str],
    why: NewSessionReason,
) -> String {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let quotes: Vec<String> = evidence_quotes.iter().map(|q| norm(q)).collect();
    let already_quoted = |line: &str| {
        // Quote markers and citation tails around a line do not make it new text.
        let core = norm(line.trim_start_matches(['>', ' ', '"', '“']));
        let core = core
            .split(" — ")
            .next()
            .unwrap_or("")
            .trim_end_matches(['"', '”'])
            .trim()
            .to_string();
        core.chars().count() >= 12 && quotes.iter().any(|q| q.contains(&core))
    };
    let mut out = String::new();
    for m in prior {
        let kept: Vec<&str> = m.text.lines().filter(|l| !already_quoted(l)).collect();
        let text = kept.join("\n");
        if text.trim().is_empty() {
            continue;
        }
        out.push_str(&format!("[{}]\n{}\n\n", m.role, text.trim_end()));
    }
    if out.is_empty() {
        return out;
    }
    format!(
        "<prior-conversation>\nThe conversation so far in this thread ({}):\n\n{}</prior-conversation>\n",
        why.says(),
        out
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_omits_what_the_evidence_already_quotes() {
        let prior = vec![
            PriorMessage {
                role: "user".into(),
                text: "What is the reading order?".into(),
            },
            PriorMessage {
                role: "agent".into(),
                text: "> \"Attention weights follow the reading order of the page.\" — papers/a/paper.pdf#page=2\nThat is all."
                    .into(),
            },
        ];
        let seed = conversation_seed(
            &prior,
            &["Intro. Attention weights follow the reading order of the page. More."],
            NewSessionReason::ReopenFailed,
        );
        assert!(seed.contains("could not be reopened") && !seed.contains("sources changed"));
        assert_eq!(seed.matches("What is the reading order?").count(), 1);
        assert!(!seed.contains("Attention weights follow"), "{seed}");
        assert!(seed.contains("That is all."));
        assert!(conversation_seed(&[], &[], NewSessionReason::NoSession).is_empty());
    }
}
