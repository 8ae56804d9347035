//! Handoff: the agent is asked for a summary of the thread (goal, findings, open
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

pub use crate::context::prompt::HANDOFF_PROMPT;

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

/// The agent's summary over `base` (the thread's own record, [`Handoff::from_thread`]): the
/// sections it wrote replace the record's; without sections its whole text is the findings.
/// Sources are the union of the record's, the summary's and the handoff turn's.
pub fn parse_summary(answer: &str, base: Handoff, turn_sources: &[String]) -> Handoff {
    let (sections, loose) = crate::context::prompt::handoff_sections(answer);
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
        unverified: section("unverified").unwrap_or(base.unverified),
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

/// Adds a pandoc citation to each finding that cites a page of a paper: `[@key, p. N]` after
/// it (`[@a, p. 2; @b, p. 5]` for several), keyed as `agentero threads --export` keys them, so the
/// findings paste into a pandoc or Quarto document whose bibliography is that export. The
/// citation URIs stay: the next session follows them.
pub fn cite_findings(vault: &Vault, findings: &mut [String]) {
    let places: Vec<Vec<(String, Option<u32>)>> = findings
        .iter()
        .map(|f| {
            let mut v: Vec<(String, Option<u32>)> = Vec::new();
            for u in crate::context::citations::cited_places(f) {
                if let Some(crate::vault::uri::Target::Vault { path, page, .. }) =
                    crate::vault::uri::parse(&u)
                    && crate::vault::scan::classify_file(std::path::Path::new(&path))
                        == Some(crate::vault::EntryKind::Paper)
                    && !v.contains(&(path.clone(), page))
                {
                    v.push((path, page));
                }
            }
            v
        })
        .collect();
    let papers: Vec<String> = places.iter().flatten().map(|(p, _)| p.clone()).collect();
    if papers.is_empty() {
        return;
    }
    let sources = crate::vault::citekeys::sources(vault, &papers);
    let key_of = |path: &str| sources.iter().find(|s| s.path == path).map(|s| &s.key);
    for (f, cited) in findings.iter_mut().zip(places) {
        let cites: Vec<String> = cited
            .iter()
            .filter_map(|(path, page)| {
                let key = key_of(path)?;
                Some(match page {
                    Some(n) => format!("@{key}, p. {n}"),
                    None => format!("@{key}"),
                })
            })
            .filter(|c| !f.contains(&format!("[{c}")) && !f.contains(&format!("; {c}")))
            .collect();
        if !cites.is_empty() {
            f.push_str(&format!(" [{}]", cites.join("; ")));
        }
    }
}

/// Keeps as findings only what a quote verifies: a finding stays when it quotes and every quote
/// of it is ✓ on its cited page; the others move to `unverified` with the reason (a finding
/// without a quote, a quote not on its page, one that spans two blocks …).
pub fn verify_findings(vault: &Vault, h: &mut Handoff) {
    let mut kept = Vec::new();
    for f in std::mem::take(&mut h.findings) {
        let checks = crate::context::citations::check_in_vault(vault, &f, &[]);
        let quoted: Vec<_> = checks.iter().filter(|c| c.quote.is_some()).collect();
        let reason = match quoted.iter().find(|c| !c.verdict.is_verified()) {
            _ if quoted.is_empty() => Some("no quote of a cited page to check".to_string()),
            Some(c) => {
                let mut r = format!("{} {}", c.verdict.glyph(), c.verdict.says());
                if let Some(d) = &c.detail {
                    r.push_str(&format!(": {d}"));
                }
                if let Some(at) = &c.found_at {
                    r.push_str(&format!("; it is at {at}"));
                }
                Some(r)
            }
            None => None,
        };
        match reason {
            None => kept.push(f),
            Some(r) => {
                let line = format!("{} ({r})", f.trim());
                if !h.unverified.contains(&line) {
                    h.unverified.push(line);
                }
            }
        }
    }
    h.findings = kept;
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
    let mut handoff = parse_summary(&outcome.answer, base, &outcome.sources);
    verify_findings(vault, &mut handoff);
    cite_findings(vault, &mut handoff.findings);
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
            unverified: Vec::new(),
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
    fn findings_cite_their_papers_with_pandoc_keys() {
        let dir = tempfile::tempdir().unwrap();
        crate::vault::demo::write_demo_vault(dir.path()).unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let mut findings = vec![
            "Columns are read in order (papers/layoutflow/paper.pdf#page=2).".to_string(),
            "Both agree (papers/layoutflow/paper.pdf#page=3, papers/citeweave/paper.pdf#page=1)"
                .to_string(),
            "A note says so (notes/reading-list.md#line=1,2)".to_string(),
        ];
        cite_findings(&vault, &mut findings);
        let key = |f: &str| {
            let at = f.find("[@").unwrap() + 2;
            f[at..].split(',').next().unwrap().to_string()
        };
        let k1 = key(&findings[0]);
        assert!(
            findings[0].ends_with(&format!(" [@{k1}, p. 2]")),
            "{findings:?}"
        );
        assert!(
            findings[1].contains(&format!("[@{k1}, p. 3; @")),
            "{findings:?}"
        );
        assert!(findings[1].ends_with(", p. 1]"), "{findings:?}");
        assert!(!findings[2].contains("[@"), "{findings:?}");
        // Twice is once.
        let again = findings.clone();
        cite_findings(&vault, &mut findings);
        assert_eq!(findings, again);
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

    #[test]
    fn only_verified_quotes_are_findings() {
        use crate::context::citations::{Doc, Docs, VaultDocs};
        let dir = tempfile::tempdir().unwrap();
        crate::vault::demo::write_demo_vault(dir.path()).unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let path = "papers/layoutflow/paper.pdf";
        let Some(Doc::Pages(pages)) = VaultDocs::new(&vault).doc(path) else {
            panic!("the demo paper reads");
        };
        // Eight words of page 2, as they are printed.
        let words: Vec<&str> = pages[1].split_whitespace().skip(4).take(8).collect();
        let quote = words.join(" ");
        let mut altered = words.clone();
        altered[3] = "zebra";
        let mut h = Handoff {
            findings: vec![
                format!("\"{quote}\" ({path}#page=2)"),
                format!("\"{}\" ({path}#page=2)", altered.join(" ")),
                format!("Layout is hard ({path}#page=2)"),
            ],
            ..Handoff::default()
        };
        verify_findings(&vault, &mut h);
        assert_eq!(h.findings.len(), 1, "{h:?}");
        assert!(h.findings[0].contains(&quote), "{h:?}");
        assert_eq!(h.unverified.len(), 2, "{h:?}");
        assert!(
            h.unverified[0].contains("zebra") && h.unverified[0].contains("(⚠ "),
            "{h:?}"
        );
        assert!(
            h.unverified[1].ends_with("(no quote of a cited page to check)"),
            "{h:?}"
        );
        // HANDOFF.md keeps them apart, and reads back the same way.
        let md = h.to_markdown();
        assert!(md.contains("## Unverified"), "{md}");
        let again = parse_summary(&md, Handoff::default(), &[]);
        assert_eq!(again.findings, h.findings);
        assert_eq!(again.unverified.len(), 2, "{again:?}");
    }
}
