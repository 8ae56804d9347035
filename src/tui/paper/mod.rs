//! The paper pane: the open document page by page, its cursor, search, outline jumps, marks and
//! the jump list (a citation jump is undoable), and the visual selection that becomes a chat
//! question's context or a Quick Chat.

mod code;
mod commands;
mod doc;
pub mod image;
mod image_view;
mod jumps;
mod links;
mod lists;
mod marks;
mod motion;
mod pending;
mod search;
mod shots;
pub mod view;
pub mod zoom;

use std::collections::BTreeMap;

use crate::vault::EntryKind;
use crate::vault::reading;

use super::action::Action;
use super::effect::{Awaiting, Effect, Jump, Location, Out};
use super::text;
pub use doc::{Doc, DocInfo, Hit, Slot};
use image::{PageProto, Shot, ShotKey};

/// The text area's size in cells (width, height): wrapping and scrolling depend on it.
pub type Viewport = (usize, usize);

/// What the paper pane is told.
#[derive(Debug)]
pub enum PaperMsg {
    /// Go to a place (another document opens), recorded in the jump list.
    Jump(Jump, EntryKind),
    /// Page count and metadata of the document asked for with `req`.
    Opened {
        req: u64,
        result: Result<(u32, DocInfo), String>,
    },
    /// Page texts of the document asked for with `req`.
    Pages {
        req: u64,
        pages: Vec<(u32, Result<String, String>)>,
    },
    Action {
        action: Action,
        count: Option<u32>,
    },
    /// Search the document (the prompt's text).
    Search(String),
    /// The letter after `m` or `'`.
    Mark(Awaiting, char),
    /// The mouse wheel over the pane.
    Wheel {
        down: bool,
    },
    /// The outline's section `i` was chosen.
    Outline(usize),
    /// Esc: leave visual mode, else clear the search match and the quote.
    Cancel,
    /// The pane changed size: keep the cursor in view.
    Resized,
    /// The reading state stored at the last stop (marks, jump list, the open document).
    Restore(reading::Session),
    /// The page image asked for as `key`, encoded for the terminal, or why it could not be.
    Image {
        key: ShotKey,
        result: Result<PageProto, String>,
    },
    /// The highlight's comment prompt was answered (`None`: cancelled).
    Comment(Option<String>),
    /// The links of a page of `path`, asked for as `seq` (`L`).
    Links {
        seq: u64,
        path: String,
        links: crate::context::links::PageLinks,
    },
    /// The annotations of `path` as they are now.
    Annotations {
        path: String,
        list: Vec<crate::vault::annotations::Annotation>,
    },
}

/// A place in the jump list or a mark, with the kind of its document.
#[derive(Debug, Clone, PartialEq)]
struct Spot {
    at: Location,
    kind: EntryKind,
}

impl Spot {
    fn stored(self) -> reading::Spot {
        reading::Spot {
            path: self.at.path,
            kind: self.kind,
            page: self.at.page,
            row: self.at.row,
        }
    }

    fn from_stored(s: reading::Spot) -> Spot {
        Spot {
            at: Location {
                path: s.path,
                page: s.page.max(1),
                row: s.row,
            },
            kind: s.kind,
        }
    }
}

#[derive(Debug, Default)]
pub struct Paper {
    doc: Option<Doc>,
    next_req: u64,
    jumps: Vec<Spot>,
    jump_pos: usize,
    marks: BTreeMap<char, Spot>,
    /// Pages are shown as images (`I`), for PDFs.
    image_mode: bool,
    /// The images are drawn dark (`ctrl-r`): lightness turned over, colours kept.
    dark_pages: bool,
    shot: Option<Shot>,
    /// A highlight waiting for its comment.
    pending: Option<pending::Pending>,
    /// The image view's fit, zoom and place, and the shapes of the page and of a cell.
    zoom: zoom::View,
    shape: zoom::Shape,
    /// Scroll the image to the quote when its place comes back with the image.
    land: bool,
    /// The paper pane fills the screen (`Z`).
    maximised: bool,
    /// The image drawn last: it stays on screen while the next window of its page renders.
    shown: Option<Shot>,
    /// The links list asked for last (`L`): a later answer for an earlier one is dropped.
    links_seq: u64,
}

impl Paper {
    pub fn update(&mut self, msg: PaperMsg, view: Viewport) -> Vec<Out> {
        let mut out = self.handle(msg, view);
        out.extend(self.want_image(view));
        out
    }

    fn handle(&mut self, msg: PaperMsg, view: Viewport) -> Vec<Out> {
        match msg {
            PaperMsg::Jump(jump, kind) => self.jump(jump, kind, view),
            PaperMsg::Action {
                action: Action::Highlight,
                ..
            } => self.start_highlight(view),
            PaperMsg::Action {
                action: Action::Annotations,
                ..
            } => self.list_annotations(),
            PaperMsg::Comment(text) => self.comment(text),
            PaperMsg::Annotations { path, list } => self.annotations_arrived(&path, list),
            PaperMsg::Opened { req, result } => self.opened(req, result),
            PaperMsg::Pages { req, pages } => {
                self.pages(req, pages, view);
                Vec::new()
            }
            PaperMsg::Action { action, count } => self.on_action(action, count, view),
            PaperMsg::Search(query) => {
                let out = self.search(query, view);
                self.land_on_evidence(view);
                out
            }
            PaperMsg::Mark(wait, c) => self.mark(wait, c, view),
            // Over the image the wheel pans it.
            PaperMsg::Wheel { down } if self.image_active() => {
                let step = if down {
                    Action::MoveDown
                } else {
                    Action::MoveUp
                };
                self.image_action(step, 1, view).unwrap_or_default()
            }
            PaperMsg::Wheel { down } => self.wheel(down, view),
            PaperMsg::Outline(i) => self.outline_jump(i, view),
            PaperMsg::Cancel => {
                let Some(p) = self.doc.as_mut() else {
                    return vec![Out::clear_status()];
                };
                if p.visual.take().is_some() {
                    return Vec::new();
                }
                p.search.current = None;
                p.quote = None;
                vec![Out::clear_status()]
            }
            PaperMsg::Resized => {
                self.follow(view);
                Vec::new()
            }
            PaperMsg::Restore(session) => self.restore(session, view),
            PaperMsg::Image { key, result } => self.image_arrived(key, result),
            PaperMsg::Links { seq, path, links } => self.links_arrived(seq, &path, links),
        }
    }

    /// The open document, if any.
    pub fn doc(&self) -> Option<&Doc> {
        self.doc.as_ref()
    }

    /// Where the cursor is.
    pub fn location(&self) -> Option<Location> {
        let p = self.doc.as_ref()?;
        Some(Location {
            path: p.path.clone(),
            page: p.page,
            row: p.cursor_row,
        })
    }

    /// What the "reading" chip shows: the document and, for a paper, its page.
    pub fn reading(&self) -> Option<(String, Option<u32>)> {
        let p = self.doc.as_ref()?;
        Some((
            p.path.clone(),
            (p.kind == EntryKind::Paper).then_some(p.page),
        ))
    }

    /// The page to open `path` at: where it is when it is the open document, else the first.
    pub fn page_of(&self, path: &str) -> u32 {
        self.doc
            .as_ref()
            .filter(|p| p.path == path)
            .map_or(1, |p| p.page)
    }

    pub fn in_visual(&self) -> bool {
        self.doc.as_ref().is_some_and(|p| p.visual.is_some())
    }

    /// Puts the cursor on the highlighted quote or line range, when there is one.
    fn place_highlight(&mut self, view: Viewport) {
        let Some(p) = self.doc.as_mut() else { return };
        let rows = p.rows(view.0);
        if let Some((page, s, _)) = p.quote
            && page == p.page
        {
            p.cursor_to_offset(&rows, s);
        } else if let Some((a, _)) = p.lines
            && let Some(i) = rows.iter().position(|r| r.line + 1 >= a as usize)
        {
            p.cursor_row = i;
            p.cursor_col = 0;
        }
    }

    fn follow(&mut self, view: Viewport) {
        if let Some(p) = self.doc.as_mut() {
            p.follow(view.1);
        }
    }

    /// Asks for the current page when it is not loaded yet.
    fn ensure_page(&mut self) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let i = p.page as usize - 1;
        if p.pages.get(i) == Some(&Slot::Missing) {
            p.pages[i] = Slot::Loading;
            return vec![Out::Run(Effect::LoadPages {
                req: p.req,
                path: p.path.clone(),
                pages: vec![p.page],
            })];
        }
        Vec::new()
    }

    fn opened(&mut self, req: u64, result: Result<(u32, DocInfo), String>) -> Vec<Out> {
        let Some(p) = self.doc.as_mut().filter(|p| p.req == req) else {
            return Vec::new();
        };
        match result {
            Ok((pages, info)) => {
                p.loaded = true;
                p.info = info;
                p.pages = vec![Slot::Loading; pages.max(1) as usize];
                p.page = p.page.clamp(1, pages.max(1));
                let first = p.page;
                // The page asked for first, then the rest in the background.
                let mut order = vec![first];
                order.extend((1..=pages.max(1)).filter(|n| *n != first));
                vec![Out::Run(Effect::LoadPages {
                    req,
                    path: p.path.clone(),
                    pages: order,
                })]
            }
            Err(e) => {
                p.loaded = true;
                p.pages = vec![Slot::Failed(e.clone())];
                vec![Out::error(format!("cannot open {}: {e}", p.path))]
            }
        }
    }

    fn pages(&mut self, req: u64, pages: Vec<(u32, Result<String, String>)>, view: Viewport) {
        let Some(p) = self.doc.as_mut().filter(|p| p.req == req) else {
            return;
        };
        let reflow = p.kind == EntryKind::Paper;
        for (n, r) in pages {
            if let Some(slot) = p.pages.get_mut(n as usize - 1) {
                *slot = match r {
                    // A PDF's line breaks are the printed column's, not the pane's.
                    Ok(t) if reflow => Slot::Text(text::reflow(t)),
                    Ok(t) => Slot::Text(t),
                    Err(e) => Slot::Failed(e),
                };
            }
        }
        let pending = p.pending_quote.is_some();
        p.settle_quote();
        // A quote whose page just came: the cursor goes to it (a jump to a paper not open yet).
        let placed = pending && p.pending_quote.is_none();
        if !p.search.query.is_empty() {
            p.research();
        }
        if placed {
            self.place_highlight(view);
        }
        self.follow(view);
    }

    fn on_action(&mut self, action: Action, count: Option<u32>, view: Viewport) -> Vec<Out> {
        let n = count.unwrap_or(1).max(1) as usize;
        if self.image_active()
            && let Some(out) = self.image_action(action, n, view)
        {
            return out;
        }
        match action {
            Action::Maximise => return self.toggle_maximised(),
            Action::ScrollLeft | Action::ScrollRight => return self.scroll_code(action, n, view),
            Action::FitWidth | Action::FitPage | Action::ZoomIn | Action::ZoomOut => {
                return vec![Out::info(
                    "fit and zoom are for the image view (I shows the page as an image)",
                )];
            }
            Action::JumpBack => return self.jump_back(view),
            Action::JumpForward => return self.jump_forward(view),
            _ => {}
        }
        if self.doc.is_none() {
            return vec![Out::info(
                "no paper open: choose one in the vault browser (space f)",
            )];
        }
        match action {
            Action::MoveDown
            | Action::MoveUp
            | Action::MoveLeft
            | Action::MoveRight
            | Action::HalfPageDown
            | Action::HalfPageUp
            | Action::NextPage
            | Action::PrevPage => self.move_cursor(action, n, view),
            Action::GotoTop | Action::GotoPage => self.goto(action, count, view),
            _ => self.command(action, n, view),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::image::ShotState;
    use super::*;

    /// A citation jump highlights its quote although the PDF's text has a ligature, a
    /// hyphenated line break and typographic quotes the agent's quote has not (the context
    /// layer's finder, the one the tools verified the quote with).
    #[test]
    fn a_cited_quote_highlights_across_ligatures_and_hyphenation() {
        let mut paper = Paper::default();
        let page = "Results\nThe ﬁrst re-\nsult shows that “quoting first” makes answers check-\nable at almost no cost.";
        let quote = "the first result shows that \"quoting first\" makes answers checkable";
        let jump = Jump {
            to: Location {
                path: "papers/a/paper.pdf".into(),
                page: 1,
                row: 0,
            },
            quote: Some(quote.into()),
            lines: None,
        };
        let out = paper.update(PaperMsg::Jump(jump, EntryKind::Paper), (60, 20));
        let req = out
            .iter()
            .find_map(|o| match o {
                Out::Run(Effect::OpenPaper { req, .. }) => Some(*req),
                _ => None,
            })
            .expect("the paper opens");
        paper.update(
            PaperMsg::Opened {
                req,
                result: Ok((1, DocInfo::default())),
            },
            (60, 20),
        );
        paper.update(
            PaperMsg::Pages {
                req,
                pages: vec![(1, Ok(page.to_string()))],
            },
            (60, 20),
        );
        let doc = paper.doc().unwrap();
        let (p, s, e) = doc.quote().expect("the quote is highlighted");
        let text = doc.text(p).unwrap();
        assert!(text[s..e].starts_with("The ﬁrst re-"), "{:?}", &text[s..e]);
        assert!(text[s..e].ends_with("check-\nable") || text[s..e].ends_with("check- able"));
    }

    /// In the image view a page is asked for once per page and size, first without the quote
    /// (its page text has not arrived), then again with the quote to highlight; an image for
    /// something no longer on screen is dropped; a failure leaves the text.
    #[test]
    fn the_image_view_asks_for_each_page_once_with_its_quote() {
        let mut paper = Paper::default();
        let renders = |out: &[Out]| -> Vec<ShotKey> {
            out.iter()
                .filter_map(|o| match o {
                    Out::Run(Effect::RenderPage { key, .. }) => Some(key.clone()),
                    _ => None,
                })
                .collect()
        };
        let jump = Jump {
            to: Location {
                path: "papers/a/paper.pdf".into(),
                page: 2,
                row: 0,
            },
            quote: Some("second page".into()),
            lines: None,
        };
        let out = paper.update(PaperMsg::Jump(jump, EntryKind::Paper), (60, 20));
        assert!(renders(&out).is_empty(), "the text view is the default");
        let req = paper.doc().unwrap().req;
        paper.update(
            PaperMsg::Action {
                action: Action::ToggleImage,
                count: None,
            },
            (60, 20),
        );
        assert!(paper.image_mode());
        let out = paper.update(
            PaperMsg::Opened {
                req,
                result: Ok((3, DocInfo::default())),
            },
            (60, 20),
        );
        let first = renders(&out);
        assert_eq!(first.len(), 1);
        assert_eq!(
            (first[0].page, first[0].cells, first[0].quote.as_deref()),
            (2, (60, 20), None)
        );
        assert!(matches!(paper.shot((60, 20)), Some(ShotState::Rendering)));
        let out = paper.update(
            PaperMsg::Pages {
                req,
                pages: vec![(2, Ok("The second page of it.".into()))],
            },
            (60, 20),
        );
        let second = renders(&out);
        assert_eq!(second.len(), 1, "{out:?}");
        assert_eq!(second[0].quote.as_deref(), Some("second page"));
        // Nothing changed: not asked again.
        let out = paper.update(PaperMsg::Resized, (60, 20));
        assert!(renders(&out).is_empty());
        // The first answer comes late: dropped; the second fails: the text shows, said so.
        let out = paper.update(
            PaperMsg::Image {
                key: first[0].clone(),
                result: Err("late".into()),
            },
            (60, 20),
        );
        assert!(out.is_empty());
        let out = paper.update(
            PaperMsg::Image {
                key: second[0].clone(),
                result: Err("the renderer failed on page 2".into()),
            },
            (60, 20),
        );
        assert!(
            matches!(&out[..], [Out::Status(s)] if s.text.contains("showing its text")),
            "{out:?}"
        );
        assert!(matches!(paper.shot((60, 20)), Some(ShotState::Failed(_))));
        // Another size asks again.
        let out = paper.update(PaperMsg::Resized, (80, 30));
        assert_eq!(renders(&out).len(), 1);
    }
}
