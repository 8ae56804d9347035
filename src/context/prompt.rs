//! The context block handed to the agent with the user's text.
//! It is derived from the plan but is not part of its fingerprint: rewording it never forces a
//! new agent session.

use std::fmt::Write;

use super::plan::{ContextPlan, Evidence, Locality, Mode, Origin};
use super::server::CONTEXT_SERVER_NAME;
use crate::vault::scan::EntryKind;

/// The context block followed by the user's text.
pub fn render(plan: &ContextPlan, user_text: &str) -> String {
    let mut out = context_block(plan);
    out.push('\n');
    out.push_str(user_text.trim());
    out.push('\n');
    out
}

/// Why a turn is prompt-only: the wording differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptOnlyReason {
    /// The agent is remote: it never gets the context server.
    Remote,
    /// Nothing mentioned could be granted.
    NoSources,
    /// The agent did not attach the context server in an earlier turn: the thread inlines the
    /// evidence until it does.
    NotAttached,
}

/// The reason a prompt-only plan is prompt-only (`None` for an `mcp` plan). A local plan with
/// granted sources is only shown prompt-only while the thread falls back.
pub fn prompt_only_reason(plan: &ContextPlan) -> Option<PromptOnlyReason> {
    match plan.mode {
        Mode::Mcp => None,
        Mode::PromptOnly if plan.locality == Locality::Remote => Some(PromptOnlyReason::Remote),
        Mode::PromptOnly if plan.sources.is_empty() => Some(PromptOnlyReason::NoSources),
        Mode::PromptOnly => Some(PromptOnlyReason::NotAttached),
    }
}

fn place_of(e: &Evidence) -> String {
    let mut place = String::new();
    if let Some(p) = e.page {
        let _ = write!(place, ", page {p}");
        if let Some(l) = e.page_label.as_deref().filter(|l| *l != p.to_string()) {
            let _ = write!(place, " (labelled {l})");
        }
    }
    if let Some([a, b]) = e.lines {
        let _ = write!(place, ", lines {a}-{b}");
    }
    if let Some(s) = &e.section {
        let _ = write!(place, ", section {s}");
    }
    place
}

/// The line under an evidence item's header saying where it comes from.
fn note_of(e: &Evidence) -> &'static str {
    match (e.origin, e.kind, e.quote.is_some()) {
        (Origin::Selection, _, _) => "(selected by the user)",
        (Origin::Current, _, _) => "(the page the user is reading)",
        (Origin::Mention, EntryKind::Paper, true) => {
            "(the start of the first page of a mentioned paper)"
        }
        (Origin::Mention, EntryKind::Paper, false) => {
            "(a mentioned paper; its text is not indexed yet, so none is inlined)"
        }
        (Origin::Mention, EntryKind::File, true) => "(the first lines of a mentioned file)",
        (Origin::Mention, EntryKind::Directory, true) => {
            "(what a mentioned folder covers: its papers and text files)"
        }
        (Origin::Mention, _, _) => {
            "(a mentioned source; not inlined: the inlined evidence is capped)"
        }
    }
}

fn render_evidence(o: &mut String, plan: &ContextPlan, items: &[&Evidence]) {
    let _ = writeln!(o, "\nEvidence:");
    for (i, e) in items.iter().enumerate() {
        let _ = writeln!(
            o,
            "[{}] \"{}\" — {}{} <{}>",
            i + 1,
            e.title,
            e.path,
            place_of(e),
            e.citation_uri
        );
        let _ = writeln!(o, "{}", note_of(e));
        if let Some(q) = &e.quote {
            for line in q.lines() {
                let _ = writeln!(o, "> {line}");
            }
            if e.truncated {
                let _ = writeln!(
                    o,
                    "(quote truncated at {} characters{})",
                    plan.budget.quote_cap,
                    if plan.mode == Mode::Mcp {
                        "; read the rest with context_read mode \"excerpt\""
                    } else {
                        ""
                    }
                );
            }
        }
    }
}

/// The context block alone.
pub fn context_block(plan: &ContextPlan) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "<agentero-context>");
    // Inlined mention evidence only when the agent cannot read the sources itself.
    let items: Vec<&Evidence> = match plan.mode {
        Mode::Mcp => plan.evidence.iter().collect(),
        Mode::PromptOnly => plan.evidence.iter().chain(&plan.inline).collect(),
    };
    let has_quotes = items.iter().any(|e| e.quote.is_some());
    match prompt_only_reason(plan) {
        None => {
            let _ = writeln!(
                o,
                "The user's vault of research papers is readable in this turn only through the \
                 `{CONTEXT_SERVER_NAME}` tools, and only the sources allowed below."
            );
        }
        Some(reason) => {
            let why: String = match reason {
                PromptOnlyReason::Remote => {
                    "This agent runs remotely, so no vault tools are available in this turn".into()
                }
                PromptOnlyReason::NoSources => {
                    "None of this turn's mentions could be granted, so no vault tools are available in this turn".into()
                }
                PromptOnlyReason::NotAttached => format!(
                    "The {CONTEXT_SERVER_NAME} server was not attached in an earlier turn of this thread, so no \
                     vault tools are available in this turn"
                ),
            };
            let what = if has_quotes {
                "answer from the evidence below and say plainly what you could not check."
            } else {
                "there is no evidence to answer from in this turn: say so plainly rather than guess."
            };
            let _ = writeln!(
                o,
                "This context cannot be expanded. {why}. Do not assume you can read the vault or any \
                 file in it; {what}"
            );
        }
    }
    if !plan.sources.is_empty() {
        let _ = writeln!(o, "\nAllowed sources:");
        let covers = |path: &str| {
            plan.manifest
                .iter()
                .find(|m| m.path == path && m.status == "allowed")
                .and_then(|m| m.covers.as_ref())
        };
        for s in &plan.sources {
            match s.kind {
                EntryKind::Directory => {
                    let what = covers(&s.path).map_or(String::new(), |c| {
                        format!(
                            "{} paper{} and {} text file{} under it",
                            c.papers,
                            if c.papers == 1 { "" } else { "s" },
                            c.files,
                            if c.files == 1 { "" } else { "s" }
                        )
                    });
                    if plan.mode == Mode::Mcp {
                        let _ = writeln!(
                            o,
                            "- directory {}/ ({what}; context_search searches them, context_read lists the \
                             folder's entries or reads any paper or file inside it named by path)",
                            s.path
                        );
                    } else {
                        let _ = writeln!(o, "- directory {}/ ({what})", s.path);
                    }
                }
                k => {
                    let _ = writeln!(o, "- {} {}", k.as_str(), s.path);
                }
            }
        }
    }
    if !items.is_empty() {
        render_evidence(&mut o, plan, &items);
    }
    if plan.mode == Mode::Mcp {
        let _ = writeln!(
            o,
            "\nTo read more: context_search {{query, limit?, paths?}} finds short cards; \
             context_read {{path, mode?}} reads a source — mode \"metadata\" (default), \"excerpt\" \
             (with quote), \"section\", \"page\", \"region\" (page + start/end characters, or lines of \
             a file) or \"full\" (cut at the budget); paper_relations {{path, kinds?}} lists what a \
             paper cites, what cites it and related papers. Budget: {} cards per search, {} characters \
             per read, {} characters for the whole turn. Cite with the citation URIs the tools return.",
            plan.budget.search_cards, plan.budget.read_chars, plan.budget.turn_chars
        );
    }
    let _ = writeln!(o, "</agentero-context>");
    o
}

/// What the agent is asked for a handoff. The headings are what
/// [`handoff_sections`] looks for; an agent that ignores them still gets its text kept as the
/// findings.
pub const HANDOFF_PROMPT: &str = "Hand this conversation off to a fresh session. Summarize it \
for a reader who has not seen it, in exactly these four markdown sections: `## Goal` (one \
paragraph: what the user is trying to find out), `## Findings` (a bullet list of what was \
established, each with its citation URI), `## Open questions` (a bullet list), `## Sources` \
(a bullet list of the citation URIs used).";

fn handoff_heading(line: &str) -> Option<&'static str> {
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
        "unverified" => Some("unverified"),
        "open questions" => Some("open"),
        "sources" => Some("sources"),
        _ => None,
    }
}

fn handoff_item(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("> "))
        .unwrap_or(t)
        .trim();
    (!t.is_empty() && t != "(none)").then(|| t.to_string())
}

/// The sections of a handoff summary (`goal`, `findings`, `unverified`, `open`, `sources`, in the order
/// written, each with its items) and the items before any heading.
pub fn handoff_sections(text: &str) -> (Vec<(&'static str, Vec<String>)>, Vec<String>) {
    let mut sections: Vec<(&'static str, Vec<String>)> = Vec::new();
    let mut loose = Vec::new();
    for line in text.lines() {
        if let Some(h) = handoff_heading(line) {
            sections.push((h, Vec::new()));
        } else if let Some(i) = handoff_item(line) {
            match sections.last_mut() {
                Some((_, items)) => items.push(i),
                None => loose.push(i),
            }
        }
    }
    (sections, loose)
}
