//! Highlights and exports, off the UI thread: each reports the paper's annotations as they are
//! now (after a change) and a status line that says what was done, or why not.

use super::Runner;
use crate::acp::cited;
use crate::acp::threads::ThreadIndex;
use crate::tui::app::{Msg, Status};
use crate::tui::effect::MarksEffect;
use crate::vault::highlights;
use crate::vault::visible::visible;

impl Runner {
    pub(super) fn marks(&self, e: MarksEffect) {
        let status = match e {
            MarksEffect::Add { path, new } => {
                let page = new.page;
                let s = match highlights::add(&self.vault, &path, new) {
                    Ok(h) => Ok(format!(
                        "highlighted on page {page}{} (A lists the paper's highlights)",
                        if h.comment.is_some() {
                            ", with the comment"
                        } else {
                            ""
                        }
                    )),
                    Err(e) => Err(format!("cannot save the highlight: {e}")),
                };
                self.send_annotations(&path);
                s
            }
            MarksEffect::Delete { path, id } => {
                let s = match highlights::delete(&self.vault, &path, &id) {
                    Ok(h) => Ok(format!("deleted the highlight on page {}", h.page)),
                    Err(e) => Err(format!("cannot delete the highlight: {e}")),
                };
                self.send_annotations(&path);
                s
            }
            MarksEffect::ExportHighlights { path } => self.export_highlights(&path),
            MarksEffect::ExportThread { thread, format } => {
                // A thread begun in this run has a local id until its transcript is made.
                let thread = self
                    .threads
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&thread).map(|t| t.id.clone()))
                    .unwrap_or(thread);
                let index = ThreadIndex::load(&self.vault);
                match cited::export(&self.vault, &index, &thread, format)
                    .and_then(|e| Ok((cited::write_to_state(&self.vault, &e, format)?, e)))
                {
                    Ok((file, e)) => Ok(format!(
                        "{} of the {} paper{} this thread cited written to {}",
                        format.name(),
                        e.sources.len(),
                        if e.sources.len() == 1 { "" } else { "s" },
                        file.display()
                    )),
                    Err(e) => Err(format!("cannot export the thread: {e}")),
                }
            }
        };
        let _ = self
            .tx
            .send(Msg::Status(Status::of(status.map(shown).map_err(shown))));
    }

    fn send_annotations(&self, path: &str) {
        let _ = self.tx.send(Msg::Annotations {
            path: path.to_string(),
            list: self.vault.annotations(path),
        });
    }

    fn export_highlights(&self, path: &str) -> Result<String, String> {
        let all = self.vault.annotations(path);
        let md = highlights::markdown(&self.vault, path, &all);
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
        let dir = self.vault.state_dir().join("exports");
        let file = dir.join(format!("highlights-{name}.md"));
        let written = self
            .vault
            .ensure_state_dir()
            .map_err(|e| e.to_string())
            .and_then(|_| crate::vault::statefs::ensure_dir(&dir).map_err(|e| e.to_string()))
            .and_then(|_| {
                crate::vault::statefs::atomic_write(&file, md.as_bytes()).map_err(|e| e.to_string())
            });
        match written {
            Ok(()) => Ok(format!(
                "{} highlight{} written to {}",
                all.len(),
                if all.len() == 1 { "" } else { "s" },
                file.display()
            )),
            Err(e) => Err(format!("cannot export the highlights: {e}")),
        }
    }
}

/// A status line's text as the terminal may show it (control characters escaped).
fn shown(text: String) -> String {
    visible(&text).into_owned()
}
