//! `agentero threads`: the thread list and its export.

use super::*;

/// `agentero threads`: every line of it through `visible` (titles, questions and snippets are
/// the user's and the agents' text).
pub(super) fn threads(
    vault: &Vault,
    cites: Option<String>,
    search: Option<String>,
    json: bool,
    limit: usize,
) -> anyhow::Result<()> {
    use crate::acp::threads::{ThreadIndex, ThreadQuery};
    let index = ThreadIndex::load(vault);
    for w in &index.warnings {
        eprintln!("warning: {}", visible(w));
    }
    let query = ThreadQuery {
        cites,
        text: search,
    };
    let mut hits = index.search(&query)?;
    let total = hits.len();
    hits.truncate(limit.max(1));
    let mut out = std::io::stdout().lock();
    let written = print_threads(&mut out, vault, &query, &hits, total, json);
    match written {
        // A reader that stopped reading (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

pub(super) fn print_threads(
    out: &mut dyn Write,
    vault: &Vault,
    query: &crate::acp::threads::ThreadQuery,
    hits: &[crate::acp::threads::ThreadHit],
    total: usize,
    json: bool,
) -> std::io::Result<()> {
    if json {
        // JSON escapes control characters itself.
        return writeln!(out, "{}", crate::vault::visible::to_json_pretty(hits)?);
    }
    if hits.is_empty() {
        if query.is_empty() {
            let root = vault.root().display().to_string();
            writeln!(out, "No threads yet in {}.", visible(&root))?;
        } else {
            writeln!(out, "No thread matches.")?;
        }
        return Ok(());
    }
    for h in hits {
        let when = h.updated.get(..16).unwrap_or(&h.updated).replace('T', " ");
        writeln!(
            out,
            "{}  {}  {}  ({} turn{})",
            visible(&h.thread_id),
            visible(&when),
            crate::vault::output::terminal::line(
                &h.title,
                crate::vault::output::terminal::TITLE_WIDTH
            ),
            h.turn_count,
            if h.turn_count == 1 { "" } else { "s" }
        )?;
        if !query.is_empty() {
            for t in &h.turns {
                writeln!(out, "    turn {}: {}", t.number, visible(&t.question))?;
                for c in &t.cited {
                    writeln!(out, "      cites {}", visible(c))?;
                }
                if query.text.is_some() {
                    writeln!(out, "      {}", visible(&t.snippet))?;
                }
            }
        }
    }
    if total > hits.len() {
        writeln!(out, "({} more; --limit N shows more)", total - hits.len())?;
    }
    Ok(())
}
