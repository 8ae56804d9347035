//! The context block handed to the agent with the user's text (SPEC §4 "Prompt rendering").
//! It is derived from the plan but is not part of its fingerprint: rewording it never forces a
//! new agent session.

use std::fmt::Write;

use super::plan::{ContextPlan, Mode};
use crate::vault::scan::EntryKind;

/// The context block followed by the user's text.
pub fn render(plan: &ContextPlan, user_text: &str) -> String {
    let mut out = context_block(plan);
    out.push('\n');
    out.push_str(user_text.trim());
    out.push('\n');
    out
}

/// The context block alone.
pub fn context_block(plan: &ContextPlan) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "<agentero-context>");
    match plan.mode {
        Mode::Mcp => {
            let _ = writeln!(
                o,
                "The user's vault of research papers is readable in this turn only through the \
                 `agentero-context` tools, and only the sources allowed below."
            );
        }
        Mode::PromptOnly => {
            let _ = writeln!(
                o,
                "This context cannot be expanded: no vault tools are available in this turn. Do not \
                 assume you can read the vault or any file in it; answer from the evidence below \
                 and say plainly what you could not check."
            );
        }
    }
    if !plan.sources.is_empty() {
        let _ = writeln!(o, "\nAllowed sources:");
        for s in &plan.sources {
            match s.kind {
                EntryKind::Directory => {
                    let _ = writeln!(
                        o,
                        "- directory {}/ (context_read lists its entries; name a file inside it to read that file)",
                        s.path
                    );
                }
                k => {
                    let _ = writeln!(o, "- {} {}", k.as_str(), s.path);
                }
            }
        }
    }
    if !plan.evidence.is_empty() {
        let _ = writeln!(o, "\nEvidence:");
        for (i, e) in plan.evidence.iter().enumerate() {
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
            let _ = writeln!(
                o,
                "[{}] \"{}\" — {}{} <{}>",
                i + 1,
                e.title,
                e.path,
                place,
                e.citation_uri
            );
            match &e.quote {
                Some(q) => {
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
                None => {
                    let _ = writeln!(o, "(the page the user is reading)");
                }
            }
        }
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
