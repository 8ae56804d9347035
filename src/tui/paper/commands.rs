//! The paper's commands that are not moves: search, the outline and metadata overlays, the
//! image view and the PDF viewer, copying (a citation, a BibTeX entry, the selection), marks,
//! the visual selection and what it becomes (a chat question's context, a Quick Chat).

use super::doc::Visual;
use super::{Paper, Viewport};
use crate::tui::action::Action;
use crate::tui::chips::Chip;
use crate::tui::effect::{Awaiting, Effect, Out, OverlayRequest, PromptKind};
use crate::vault::EntryKind;

/// Copies `text` to the clipboard, saying what was copied.
fn copy(what: String, text: String) -> Vec<Out> {
    vec![
        Out::Run(Effect::Copy(text)),
        Out::info(format!("copied {what} (through the terminal, OSC 52)")),
    ]
}

impl Paper {
    /// A command on the open document (`n`: the count, at least 1).
    pub(super) fn command(&mut self, action: Action, n: usize, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let rows = p.rows(view.0);
        match action {
            Action::Search => {
                vec![Out::Prompt {
                    kind: PromptKind::Search,
                    text: String::new(),
                }]
            }
            Action::SearchNext | Action::SearchPrev => {
                let out = self.step_search(action == Action::SearchNext, n, view);
                self.land_on_evidence(view);
                out
            }
            Action::Outline => {
                if p.info.sections.is_empty() {
                    return vec![Out::info(
                        "this paper has no outline or recognised section headings",
                    )];
                }
                let cur = p
                    .info
                    .sections
                    .iter()
                    .rposition(|s| s.page <= p.page)
                    .unwrap_or(0);
                vec![Out::Overlay(OverlayRequest::List(super::lists::outline(
                    p, cur,
                )))]
            }
            Action::Metadata => vec![Out::Overlay(super::lists::metadata(p))],
            Action::Links => self.list_links(),
            Action::ToggleImage => self.toggle_image(view),
            Action::DarkPages => self.toggle_dark(),
            Action::OpenViewer => {
                if p.kind != EntryKind::Paper {
                    return vec![Out::info(
                        "the PDF viewer opens papers; this document is text",
                    )];
                }
                vec![Out::Run(Effect::OpenViewer {
                    path: p.path.clone(),
                    page: p.page,
                })]
            }
            Action::YankCitation => {
                let cite = match p.kind {
                    EntryKind::Paper => crate::vault::uri::page_uri(&p.path, p.page),
                    _ => crate::vault::uri::encode_path(&p.path),
                };
                copy(format!("the citation {cite}"), cite)
            }
            Action::YankBibtex => {
                if p.kind != EntryKind::Paper {
                    return vec![Out::info("BibTeX entries are for papers")];
                }
                let meta = p.info.meta();
                // The key the paper's exports have (the reference manager's, else generated).
                let entry = crate::vault::bibtex::entry_with_key(
                    &meta,
                    &crate::vault::citekeys::key_of(&meta),
                );
                let key = entry
                    .split_once('{')
                    .and_then(|(_, rest)| rest.split_once(','))
                    .map_or("", |(k, _)| k)
                    .to_string();
                copy(format!("the BibTeX entry {key}"), entry)
            }
            Action::Yank => {
                let text = p.selected_text(&rows).filter(|t| !t.trim().is_empty());
                p.visual = None;
                match text {
                    Some(t) => {
                        let n = t.chars().count();
                        copy(format!("the selection ({n} characters)"), t)
                    }
                    None => vec![Out::info("nothing selected to copy")],
                }
            }
            Action::SetMark => {
                vec![
                    Out::Await(Awaiting::SetMark),
                    Out::info("mark: type a letter"),
                ]
            }
            Action::JumpMark => {
                vec![
                    Out::Await(Awaiting::JumpMark),
                    Out::info("jump to mark: type a letter"),
                ]
            }
            Action::VisualChar | Action::VisualLine => {
                let lines = action == Action::VisualLine;
                match p.visual {
                    Some(v) if v.lines == lines => p.visual = None,
                    Some(ref mut v) => v.lines = lines,
                    None => {
                        let anchor = p.cursor_offset(&rows);
                        p.visual = Some(Visual { lines, anchor });
                    }
                }
                Vec::new()
            }
            Action::QuickChat | Action::UseSelection => {
                let text = p.selected_text(&rows).filter(|t| !t.trim().is_empty());
                let (path, kind) = (p.path.clone(), p.kind);
                p.visual = None;
                let page = (kind == EntryKind::Paper).then_some(p.page);
                let selection = text.map(|text| Chip::Selection {
                    path: path.clone(),
                    page,
                    text,
                });
                if action == Action::UseSelection {
                    return vec![Out::UseSelection(selection)];
                }
                let mut chips = vec![Chip::Reading { path, page }];
                chips.extend(selection);
                vec![Out::QuickChat {
                    chips,
                    fresh: false,
                }]
            }
            _ => Vec::new(),
        }
    }
}
