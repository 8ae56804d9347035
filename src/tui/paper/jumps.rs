//! Where the pane goes: the jump list (a citation jump is undoable), marks, the outline's
//! sections, and the session that keeps them across a restart.

use super::doc::Doc;
use super::{Paper, Spot, Viewport};
use crate::tui::effect::{Awaiting, Effect, Jump, Out, Pane};
use crate::vault::EntryKind;
use crate::vault::reading;

impl Paper {
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
            dark_pages: self.dark_pages,
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
        self.dark_pages = s.dark_pages;
        match s.open {
            Some(open) if self.doc.is_none() => self.go_spot(Spot::from_stored(open), view),
            _ => Vec::new(),
        }
    }

    pub(super) fn spot(&self) -> Option<Spot> {
        Some(Spot {
            at: self.location()?,
            kind: self.doc.as_ref()?.kind,
        })
    }

    /// Records the current place in the jump list (dropping any forward history).
    pub(super) fn push_jump(&mut self) {
        if let Some(spot) = self.spot() {
            self.jumps.truncate(self.jump_pos);
            if self.jumps.last() != Some(&spot) {
                self.jumps.push(spot);
            }
            self.jump_pos = self.jumps.len();
        }
    }

    /// Goes to a place: the same document moves, another one opens. Always undoable.
    pub(super) fn jump(&mut self, jump: Jump, kind: EntryKind, view: Viewport) -> Vec<Out> {
        self.push_jump();
        self.go(jump, kind, view)
    }

    pub(super) fn go(&mut self, jump: Jump, kind: EntryKind, view: Viewport) -> Vec<Out> {
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
    pub(super) fn go_spot(&mut self, spot: Spot, view: Viewport) -> Vec<Out> {
        let jump = Jump {
            to: spot.at,
            quote: None,
            lines: None,
        };
        self.go(jump, spot.kind, view)
    }

    pub(super) fn mark(&mut self, wait: Awaiting, c: char, view: Viewport) -> Vec<Out> {
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
                    let mut out = self.go_spot(spot, view);
                    // In place of the prompt, which would stay until it fades.
                    out.push(Out::info(format!("at mark {c} (ctrl-o goes back)")));
                    out
                }
                None => vec![Out::info(format!("no mark {c}"))],
            },
        }
    }

    pub(super) fn outline_jump(&mut self, selected: usize, view: Viewport) -> Vec<Out> {
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
    /// `ctrl-o`: back along the jump list (the place left is recorded first).
    pub(super) fn jump_back(&mut self, view: Viewport) -> Vec<Out> {
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
        self.go_spot(spot, view)
    }

    /// `ctrl-i`: forward along the jump list.
    pub(super) fn jump_forward(&mut self, view: Viewport) -> Vec<Out> {
        if self.jump_pos + 1 >= self.jumps.len() {
            return vec![Out::info("at the end of the jump list")];
        }
        self.jump_pos += 1;
        let spot = self.jumps[self.jump_pos].clone();
        self.go_spot(spot, view)
    }
}
