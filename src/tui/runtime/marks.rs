//! Highlights and exports, off the UI thread: each reports the paper's annotations as they are
//! now (after a change) and a status line that says what was done, or why not.

use tokio::sync::mpsc::UnboundedSender;

use crate::acp::cited;
use crate::acp::threads::ThreadIndex;
use crate::tui::app::{Msg, Status};
use crate::tui::effect::MarksEffect;
use crate::vault::visible::visible;
use crate::vault::{Vault, highlights};

/// Does `e` (a thread to export named by its id on disk) and says what was done.
pub(super) fn marks(vault: &Vault, ui: &UnboundedSender<Msg>, e: MarksEffect) {
    let status = match e {
        MarksEffect::Add { path, new } => {
            let page = new.page;
            let s = match highlights::add(vault, &path, new) {
                Ok(h) => Status::info(format!(
                    "highlighted on page {page}{} (A lists the paper's highlights)",
                    if h.comment.is_some() {
                        ", with the comment"
                    } else {
                        ""
                    }
                )),
                Err(e) => Status::error(format!("cannot save the highlight: {e}")),
            };
            send_annotations(vault, ui, &path);
            s
        }
        MarksEffect::Delete { path, id } => {
            let s = match highlights::delete(vault, &path, &id) {
                Ok(h) => {
                    let with = if h.comment.is_some() {
                        " and its comment"
                    } else {
                        ""
                    };
                    let s = Status::info(format!(
                        "deleted the highlight on page {}{with} (u undoes)",
                        h.page
                    ));
                    let _ = ui.send(Msg::HighlightDeleted {
                        path: path.clone(),
                        highlight: Box::new(h),
                    });
                    s
                }
                Err(e) => Status::error(format!("cannot delete the highlight: {e}")),
            };
            send_annotations(vault, ui, &path);
            s
        }
        MarksEffect::Restore { path, highlight } => {
            let s = match highlights::restore(vault, &path, *highlight) {
                Ok(h) => Status::info(format!("the highlight on page {} is back", h.page)),
                Err(e) => Status::error(format!("cannot put the highlight back: {e}")),
            };
            send_annotations(vault, ui, &path);
            s
        }
        MarksEffect::ExportHighlights { path } => export_highlights(vault, &path),
        MarksEffect::ExportThread { thread, format } => {
            let index = ThreadIndex::load(vault);
            match cited::export(vault, &index, &thread, format)
                .and_then(|e| Ok((cited::write_to_state(vault, &e, format)?, e)))
            {
                Ok((file, e)) => Status::info(format!(
                    "{} of the {} paper{} this thread cited written to {}{}",
                    format.name(),
                    e.sources.len(),
                    if e.sources.len() == 1 { "" } else { "s" },
                    file.display(),
                    match e.warnings.len() {
                        0 => String::new(),
                        n => format!(
                            " ({n} citation key{} replaced: `agentero threads --export` says why)",
                            if n == 1 { "" } else { "s" }
                        ),
                    }
                )),
                Err(e) => Status::error(format!("cannot export the thread: {e}")),
            }
        }
    };
    let _ = ui.send(Msg::Status(Status {
        text: visible(&status.text).into_owned(),
        ..status
    }));
}

fn send_annotations(vault: &Vault, ui: &UnboundedSender<Msg>, path: &str) {
    let _ = ui.send(Msg::Annotations {
        path: path.to_string(),
        list: vault.annotations(path),
    });
}

fn export_highlights(vault: &Vault, path: &str) -> Status {
    let all = vault.annotations(path);
    let md = highlights::markdown(vault, path, &all);
    let name: String = path
        .trim_end_matches(".pdf")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let dir = vault.state_dir().join("exports");
    let file = dir.join(format!("highlights-{name}.md"));
    let written = vault
        .ensure_state_dir()
        .map_err(|e| e.to_string())
        .and_then(|_| crate::vault::statefs::ensure_dir(&dir).map_err(|e| e.to_string()))
        .and_then(|_| {
            crate::vault::output::file::sweep_state(&dir);
            crate::vault::statefs::atomic_write(&file, md.as_bytes()).map_err(|e| e.to_string())
        });
    match written {
        Ok(()) => Status::info(format!(
            "{} highlight{} written to {}",
            all.len(),
            if all.len() == 1 { "" } else { "s" },
            file.display()
        )),
        Err(e) => Status::error(format!("cannot export the highlights: {e}")),
    }
}
