//! `agentero highlights` (a paper's annotations: list, markdown export, delete) and
//! `agentero threads --export` (a thread's cited papers as BibTeX or CSL-JSON).

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use crate::acp::cited::{self, Format};
use crate::acp::threads::ThreadIndex;
use crate::vault::annotations::AnnotationOrigin;
use crate::vault::output::terminal::{TITLE_WIDTH, line};
use crate::vault::visible::visible;
use crate::vault::{Vault, highlights, output, uri};

pub enum HighlightsDo {
    List { json: bool },
    Export(Option<std::path::PathBuf>),
    Delete(String),
}

/// Writes `text` (an export its format's gate made) to `out`, a file the user named, whole or
/// not at all (`output::file::write_atomic`), or to standard output, through the terminal's
/// gate too (a no-op on an export, which holds no control character).
fn emit(text: &str, out: Option<&Path>, what: &str) -> anyhow::Result<()> {
    match out {
        Some(p) if p.as_os_str() != "-" => {
            output::file::write_atomic(p, text.as_bytes())
                .with_context(|| format!("cannot write {}", visible(&p.display().to_string())))?;
            eprintln!("{what} written to {}", visible(&p.display().to_string()));
            Ok(())
        }
        _ => match std::io::stdout().lock().write_all(visible(text).as_bytes()) {
            // A reader that stopped reading (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
            r => Ok(r?),
        },
    }
}

pub fn export_thread(
    vault: &Vault,
    id: &str,
    format: Format,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let index = ThreadIndex::load(vault);
    for w in &index.warnings {
        eprintln!("warning: {}", visible(w));
    }
    let e = cited::export(vault, &index, id, format)
        .map_err(|m| anyhow::anyhow!(visible(&m).into_owned()))?;
    for w in &e.warnings {
        eprintln!("warning: {}", visible(w));
    }
    if !e.not_papers.is_empty() {
        eprintln!(
            "note: {} cited file{} without a bibliography entry: {}",
            e.not_papers.len(),
            if e.not_papers.len() == 1 { "" } else { "s" },
            visible(&e.not_papers.join(", "))
        );
    }
    let what = format!(
        "{} of thread {} ({} paper{})",
        format.name(),
        visible(&e.thread),
        e.sources.len(),
        if e.sources.len() == 1 { "" } else { "s" }
    );
    emit(&e.text, out, &what)
}

pub fn highlights(vault: &Vault, paper: &str, what: HighlightsDo) -> anyhow::Result<()> {
    // A mention (`@papers/x.pdf`) or a citation URI (`papers/x.pdf#page=3`) names it too.
    let paper = crate::context::mention::syntax::clean(paper);
    let rel = match uri::parse(paper) {
        Some(uri::Target::Vault { path, .. }) => path,
        _ => paper.to_string(),
    };
    let resolved = vault.resolve(&rel).map_err(|e| anyhow::anyhow!("{e}"))?;
    let rel = resolved.rel;
    match what {
        HighlightsDo::Delete(id) => {
            let gone = highlights::delete(vault, &rel, &id)?;
            eprintln!(
                "deleted the highlight {} on page {} of {}",
                visible(&gone.id),
                gone.page,
                visible(&rel)
            );
            Ok(())
        }
        HighlightsDo::Export(out) => {
            // Fails loudly on what `annotations` would only log.
            highlights::list(vault, &rel)?;
            let md = highlights::markdown(vault, &rel, &vault.annotations(&rel));
            emit(&md, out.as_deref(), "the highlights")
        }
        HighlightsDo::List { json } => {
            highlights::list(vault, &rel)?;
            let all = vault.annotations(&rel);
            let mut out = String::new();
            if json {
                out = crate::vault::visible::to_json_pretty(&all)?;
                out.push('\n');
            } else if all.is_empty() {
                out.push_str("No highlights yet (select text in the paper pane with v, then H).\n");
            } else {
                for a in &all {
                    let id = match &a.origin {
                        AnnotationOrigin::Agentero { id } => id.clone(),
                        AnnotationOrigin::Zotero { key } => format!("zotero:{key}"),
                    };
                    // One line each, cut: a highlight may hold 20,000 characters.
                    out.push_str(&format!(
                        "{}  {}  {}  {}\n",
                        line(&id, 40),
                        uri::page_uri(&rel, a.page),
                        a.kind.as_str(),
                        line(a.text.as_deref().unwrap_or(""), 2 * TITLE_WIDTH)
                    ));
                    if let Some(c) = &a.comment {
                        out.push_str(&format!("    {}\n", line(c, 2 * TITLE_WIDTH)));
                    }
                }
            }
            emit(&out, None, "")
        }
    }
}
