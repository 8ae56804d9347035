//! The paper pane: the open document page by page, its cursor, search, outline jumps, marks and
//! the jump list (a citation jump is undoable), and the visual selection that becomes a chat
//! question's context or a Quick Chat.

mod code;
mod doc;
pub mod image;
mod image_view;
mod marks;
mod pending;
mod search;
pub mod view;
pub mod zoom;

use std::collections::BTreeMap;

use crate::vault::EntryKind;
use crate::vault::reading;

use super::action::Action;
use super::chips::Chip;
use super::effect::{Awaiting, Effect, Jump, Location, Out, OverlayRequest, Pane, PromptKind};
use super::text;
use super::widgets::WHEEL_ROWS;
use doc::Visual;
pub use doc::{Doc, DocInfo, Hit, Slot};
use image::{PageProto, Shot, ShotKey, ShotState};

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
    /// The annotations of `path` as they are now.
    Annotations {
        path: String,
        list: Vec<crate::vault::annotations::Annotation>,
    },
    /// Go to the annotation `i` of the list.
    AnnotationJump(usize),
    /// Delete the annotation `i` of the list (one of agentero's own).
    AnnotationDelete(usize),
    /// Write the paper's annotations as markdown.
    AnnotationsExport,
}

/// Copies `text` to the clipboard, saying what was copied.
fn copy(what: String, text: String) -> Vec<Out> {
    vec![
        Out::Run(Effect::Copy(text)),
        Out::info(format!("copied {what} (through the terminal, OSC 52)")),
    ]
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
            PaperMsg::AnnotationJump(i) => self.annotation_jump(i, view),
            PaperMsg::AnnotationDelete(i) => self.annotation_delete(i),
            PaperMsg::AnnotationsExport => self.annotations_export(),
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

    /// What survives a restart: the open document, the marks and the jump list.
    pub fn session(&self) -> reading::Session {
        reading::Session {
            open: self.spot().map(Spot::stored),
            marks: self
                .marks
                .iter()
                .map(|(c, s)| (*c, s.clone().stored()))
                .collect(),
            jumps: self.jumps.iter().cloned().map(Spot::stored).collect(),
            jump_pos: self.jump_pos,
        }
    }

    /// Takes back a stored session: the marks and the jump list, and the document that was
    /// open reopens where it was (unless one was opened meanwhile). Not a jump.
    pub fn restore(&mut self, s: reading::Session, view: Viewport) -> Vec<Out> {
        self.marks = s
            .marks
            .into_iter()
            .map(|(c, spot)| (c, Spot::from_stored(spot)))
            .collect();
        self.jumps = s.jumps.into_iter().map(Spot::from_stored).collect();
        self.jump_pos = s.jump_pos.min(self.jumps.len());
        match s.open {
            Some(open) if self.doc.is_none() => self.go_spot(Spot::from_stored(open), view),
            _ => Vec::new(),
        }
    }

    /// Whether pages are shown as images (for a PDF; other documents stay text).
    pub fn image_mode(&self) -> bool {
        self.image_mode
    }

    /// The image for what is on screen now: ready, being rendered, or failed (then the text
    /// shows). `None` when the text view is on or the document is not a PDF.
    pub fn shot(&self, cells: (u16, u16)) -> Option<&ShotState> {
        let key = self.shot_key(cells)?;
        let state = match &self.shot {
            Some(s) if s.key == key => &s.state,
            _ => &ShotState::Rendering,
        };
        match &self.shown {
            Some(s)
                if matches!(state, ShotState::Rendering)
                    && (s.key.req, s.key.page, s.key.cells) == (key.req, key.page, key.cells) =>
            {
                Some(&s.state)
            }
            _ => Some(state),
        }
    }

    /// What the image of the current page at `cells` would be, when the image view applies.
    fn shot_key(&self, cells: (u16, u16)) -> Option<ShotKey> {
        let p = self.doc.as_ref()?;
        if !self.image_mode || p.kind != EntryKind::Paper || !p.loaded || p.pages.is_empty() {
            return None;
        }
        if matches!(p.pages.first(), Some(Slot::Failed(_))) && p.pages.len() == 1 {
            return None;
        }
        // The cited quote, else the current search match on this page.
        let hit = p
            .search
            .current
            .and_then(|i| p.search.hits.get(i))
            .map(|h| (h.page, h.start, h.end));
        let quote = p
            .quote
            .or(hit)
            .filter(|q| q.0 == p.page)
            .and_then(|(page, s, e)| p.text(page)?.get(s..e).map(str::to_string));
        Some(ShotKey {
            req: p.req,
            page: p.page,
            cells,
            window: self.zoom.window(cells, self.shape),
            quote,
        })
    }

    /// Asks for the image of what is on screen when it is not the one asked for last.
    fn want_image(&mut self, view: Viewport) -> Vec<Out> {
        let cells = (view.0 as u16, view.1 as u16);
        let Some(key) = self.shot_key(cells) else {
            return Vec::new();
        };
        if cells.0 == 0 || cells.1 == 0 || self.shot.as_ref().is_some_and(|s| s.key == key) {
            return Vec::new();
        }
        let path = self
            .doc
            .as_ref()
            .map(|p| p.path.clone())
            .unwrap_or_default();
        self.shot = Some(Shot {
            key: key.clone(),
            state: ShotState::Rendering,
        });
        vec![Out::Run(Effect::RenderPage { key, path })]
    }

    fn image_arrived(&mut self, key: ShotKey, result: Result<PageProto, String>) -> Vec<Out> {
        let Some(shot) = self.shot.as_mut().filter(|s| s.key == key) else {
            return Vec::new();
        };
        match result {
            Ok(proto) => {
                let (shape, at) = (proto.shape, proto.quote_at);
                shot.state = ShotState::Ready(std::sync::Arc::new(proto));
                self.shown = Some(shot.clone());
                self.image_geometry(key.cells, shape, at, key.quote.is_some());
                Vec::new()
            }
            Err(e) => {
                shot.state = ShotState::Failed(e.clone());
                vec![Out::info(format!("{e}; showing its text"))]
            }
        }
    }

    fn toggle_image(&mut self) -> Vec<Out> {
        let Some(p) = self.doc.as_ref() else {
            return vec![Out::info("no paper open: nothing to show as an image")];
        };
        if p.kind != EntryKind::Paper {
            return vec![Out::info(
                "the image view shows PDF pages; this document is text",
            )];
        }
        self.image_mode = !self.image_mode;
        if !self.image_mode {
            self.shot = None;
            self.shown = None;
        }
        vec![Out::info(if self.image_mode {
            "image view (I again for the text)"
        } else {
            "text view"
        })]
    }

    pub fn in_visual(&self) -> bool {
        self.doc.as_ref().is_some_and(|p| p.visual.is_some())
    }

    fn spot(&self) -> Option<Spot> {
        Some(Spot {
            at: self.location()?,
            kind: self.doc.as_ref()?.kind,
        })
    }

    /// Records the current place in the jump list (dropping any forward history).
    fn push_jump(&mut self) {
        if let Some(spot) = self.spot() {
            self.jumps.truncate(self.jump_pos);
            if self.jumps.last() != Some(&spot) {
                self.jumps.push(spot);
            }
            self.jump_pos = self.jumps.len();
        }
    }

    /// Goes to a place: the same document moves, another one opens. Always undoable.
    fn jump(&mut self, jump: Jump, kind: EntryKind, view: Viewport) -> Vec<Out> {
        self.push_jump();
        self.go(jump, kind, view)
    }

    fn go(&mut self, jump: Jump, kind: EntryKind, view: Viewport) -> Vec<Out> {
        let Jump { to, quote, lines } = jump;
        let mut out = vec![Out::Focus(Pane::Paper)];
        self.zoom.y = 0.0;
        if quote.is_some() {
            self.land_on_evidence(view);
        }
        let same = self.doc.as_ref().is_some_and(|p| p.path == to.path);
        if !same {
            self.next_req += 1;
            let req = self.next_req;
            let mut doc = Doc::new(to.path.clone(), kind, req);
            doc.page = to.page.max(1);
            doc.cursor_row = to.row;
            doc.pending_quote = quote.map(|q| (to.page.max(1), q));
            doc.lines = lines;
            self.doc = Some(doc);
            out.push(Out::Run(Effect::OpenPaper {
                req,
                path: to.path,
                kind,
            }));
            return out;
        }
        let p = self.doc.as_mut().expect("checked above");
        p.page = to.page.clamp(1, p.page_count().max(1));
        p.cursor_row = to.row;
        p.cursor_col = 0;
        p.visual = None;
        p.lines = lines.or(p.lines);
        p.quote = None;
        p.pending_quote = quote.map(|q| (p.page, q));
        p.settle_quote();
        out.extend(self.ensure_page());
        self.place_highlight(view);
        self.follow(view);
        out
    }

    /// Goes back to a place of the jump list or a mark (not recorded again).
    fn go_spot(&mut self, spot: Spot, view: Viewport) -> Vec<Out> {
        let jump = Jump {
            to: spot.at,
            quote: None,
            lines: None,
        };
        self.go(jump, spot.kind, view)
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
        p.settle_quote();
        if !p.search.query.is_empty() {
            p.research();
        }
        self.follow(view);
    }

    fn mark(&mut self, wait: Awaiting, c: char, view: Viewport) -> Vec<Out> {
        match wait {
            Awaiting::SetMark => match self.spot() {
                Some(spot) => {
                    self.marks.insert(c, spot);
                    vec![Out::info(format!("mark {c} set"))]
                }
                None => Vec::new(),
            },
            Awaiting::JumpMark => match self.marks.get(&c).cloned() {
                Some(spot) => {
                    self.push_jump();
                    self.go_spot(spot, view)
                }
                None => vec![Out::info(format!("no mark {c}"))],
            },
        }
    }

    fn outline_jump(&mut self, selected: usize, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_ref() else {
            return Vec::new();
        };
        let Some(sec) = p.info.sections.get(selected) else {
            return Vec::new();
        };
        let (title, kind) = (sec.title.clone(), p.kind);
        let jump = Jump::to(p.path.clone(), sec.page);
        let out = self.jump(jump, kind, view);
        // Put the cursor on the heading when the page text is here.
        if let Some(p) = self.doc.as_mut()
            && let Some(t) = p.text(p.page)
            && let Some(off) = t.find(&title)
        {
            let rows = p.rows(view.0);
            p.cursor_to_offset(&rows, off);
        }
        self.follow(view);
        out
    }

    /// The wheel over the paper: three rows, the cursor kept in view; past the page's edge,
    /// the next or previous page.
    fn wheel(&mut self, down: bool, view: Viewport) -> Vec<Out> {
        let (pw, ph) = view;
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let h = ph.max(1);
        let rows = p.rows(pw).len();
        let max = rows.saturating_sub(h);
        if down && p.scroll >= max && p.page < p.page_count() {
            return self.on_action(Action::NextPage, None, view);
        }
        if !down && p.scroll == 0 && p.page > 1 {
            // From the top row half a page up goes to the end of the previous page.
            p.cursor_row = 0;
            return self.on_action(Action::HalfPageUp, None, view);
        }
        p.scroll = if down {
            (p.scroll + WHEEL_ROWS).min(max)
        } else {
            p.scroll.saturating_sub(WHEEL_ROWS)
        };
        p.cursor_row = p
            .cursor_row
            .clamp(p.scroll, p.scroll + h - 1)
            .min(rows.saturating_sub(1));
        Vec::new()
    }

    fn on_action(&mut self, action: Action, count: Option<u32>, view: Viewport) -> Vec<Out> {
        let n = count.unwrap_or(1).max(1) as usize;
        let (pw, ph) = view;
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
            Action::JumpBack => {
                if self.jump_pos == 0 {
                    return vec![Out::info("at the start of the jump list")];
                }
                if self.jump_pos == self.jumps.len()
                    && let Some(here) = self.spot()
                {
                    if self.jumps.last() != Some(&here) {
                        self.jumps.push(here);
                    }
                    self.jump_pos = self.jumps.len() - 1;
                }
                self.jump_pos = self.jump_pos.saturating_sub(1);
                let spot = self.jumps[self.jump_pos].clone();
                return self.go_spot(spot, view);
            }
            Action::JumpForward => {
                if self.jump_pos + 1 >= self.jumps.len() {
                    return vec![Out::info("at the end of the jump list")];
                }
                self.jump_pos += 1;
                let spot = self.jumps[self.jump_pos].clone();
                return self.go_spot(spot, view);
            }
            _ => {}
        }
        let Some(p) = self.doc.as_mut() else {
            return vec![Out::info(
                "no paper open: choose one in the vault browser (space f)",
            )];
        };
        let rows = p.rows(pw);
        let half = (ph / 2).max(1);
        match action {
            Action::MoveDown => p.cursor_row = (p.cursor_row + n).min(rows.len().saturating_sub(1)),
            Action::MoveUp => p.cursor_row = p.cursor_row.saturating_sub(n),
            Action::MoveLeft => p.cursor_col = p.cursor_col.saturating_sub(n),
            Action::MoveRight => p.cursor_col += n,
            Action::HalfPageDown => {
                if p.cursor_row + 1 >= rows.len() && p.page < p.page_count() {
                    p.page += 1;
                    p.cursor_row = 0;
                    p.scroll = 0;
                } else {
                    p.cursor_row = (p.cursor_row + half * n).min(rows.len().saturating_sub(1));
                    p.scroll = (p.scroll + half * n).min(rows.len().saturating_sub(1));
                }
            }
            Action::HalfPageUp => {
                if p.cursor_row == 0 && p.page > 1 {
                    p.page -= 1;
                    p.cursor_row = usize::MAX / 2;
                } else {
                    p.cursor_row = p.cursor_row.saturating_sub(half * n);
                    p.scroll = p.scroll.saturating_sub(half * n);
                }
            }
            Action::NextPage => {
                p.page = (p.page + n as u32).min(p.page_count().max(1));
                p.cursor_row = 0;
                p.scroll = 0;
            }
            Action::PrevPage => {
                p.page = p.page.saturating_sub(n as u32).max(1);
                p.cursor_row = 0;
                p.scroll = 0;
            }
            Action::GotoTop | Action::GotoPage => {
                let target = match (action, count) {
                    (Action::GotoTop, None) => 1,
                    (_, Some(c)) => c,
                    _ => p.page_count().max(1),
                };
                let (path, kind) = (p.path.clone(), p.kind);
                if p.kind == EntryKind::File {
                    // In a note, a count names a line.
                    let line = if action == Action::GotoTop {
                        1
                    } else {
                        count.unwrap_or(u32::MAX)
                    };
                    let row = rows
                        .iter()
                        .position(|r| r.line + 1 >= line as usize)
                        .unwrap_or(rows.len().saturating_sub(1));
                    let mut jump = Jump::to(path, p.page);
                    jump.to.row = row;
                    return self.jump(jump, kind, view);
                }
                let page = target.clamp(1, p.page_count().max(1));
                return self.jump(Jump::to(path, page), kind, view);
            }
            Action::Search => {
                return vec![Out::Prompt {
                    kind: PromptKind::Search,
                    text: String::new(),
                }];
            }
            Action::SearchNext | Action::SearchPrev => {
                let out = self.step_search(action == Action::SearchNext, n, view);
                self.land_on_evidence(view);
                return out;
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
                return vec![Out::Overlay(OverlayRequest::Outline(cur))];
            }
            Action::Metadata => return vec![Out::Overlay(OverlayRequest::Metadata)],
            Action::ToggleImage => return self.toggle_image(),
            Action::OpenViewer => {
                if p.kind != EntryKind::Paper {
                    return vec![Out::info(
                        "the PDF viewer opens papers; this document is text",
                    )];
                }
                return vec![Out::Run(Effect::OpenViewer {
                    path: p.path.clone(),
                    page: p.page,
                })];
            }
            Action::YankCitation => {
                let cite = match p.kind {
                    EntryKind::Paper => crate::vault::uri::page_uri(&p.path, p.page),
                    _ => crate::vault::uri::encode_path(&p.path),
                };
                return copy(format!("the citation {cite}"), cite);
            }
            Action::YankBibtex => {
                if p.kind != EntryKind::Paper {
                    return vec![Out::info("BibTeX entries are for papers")];
                }
                let i = &p.info;
                let meta = crate::vault::meta::PaperMeta {
                    title: i.title.clone(),
                    authors: i.authors.clone(),
                    year: i.year,
                    doi: i.doi.clone(),
                    arxiv: i.arxiv.clone(),
                    abstract_text: i.abstract_text.clone(),
                    ..Default::default()
                };
                let entry = crate::vault::bibtex::entry(&meta);
                let key = entry
                    .split_once('{')
                    .and_then(|(_, rest)| rest.split_once(','))
                    .map_or("", |(k, _)| k)
                    .to_string();
                return copy(format!("the BibTeX entry {key}"), entry);
            }
            Action::Yank => {
                let text = p.selected_text(&rows).filter(|t| !t.trim().is_empty());
                p.visual = None;
                return match text {
                    Some(t) => {
                        let n = t.chars().count();
                        copy(format!("the selection ({n} characters)"), t)
                    }
                    None => vec![Out::info("nothing selected to copy")],
                };
            }
            Action::SetMark => {
                return vec![
                    Out::Await(Awaiting::SetMark),
                    Out::info("mark: type a letter"),
                ];
            }
            Action::JumpMark => {
                return vec![
                    Out::Await(Awaiting::JumpMark),
                    Out::info("jump to mark: type a letter"),
                ];
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
                return Vec::new();
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
                return vec![Out::QuickChat {
                    chips,
                    fresh: false,
                }];
            }
            _ => return Vec::new(),
        }
        // Movement: clamp, load the page if needed, keep the cursor in view.
        let rows = p.rows(pw);
        p.cursor_row = p.cursor_row.min(rows.len().saturating_sub(1));
        if let Some(r) = rows.get(p.cursor_row) {
            let max = p
                .text(p.page)
                .map_or(0, |t| t[r.start..r.end].chars().count());
            p.cursor_col = p.cursor_col.min(max.saturating_sub(1));
        }
        let out = self.ensure_page();
        self.follow(view);
        out
    }
}

#[cfg(test)]
mod tests {
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
