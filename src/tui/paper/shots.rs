//! The page images of the image view: which one is on screen, asking for it once, and what
//! came back.

use super::image::{PageProto, Shot, ShotKey, ShotState};
use super::{Paper, Slot, Viewport};
use crate::tui::effect::{Effect, Out};
use crate::vault::EntryKind;

impl Paper {
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
    pub(super) fn shot_key(&self, cells: (u16, u16)) -> Option<ShotKey> {
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
        let (quote, quote_nth) = p
            .quote
            .or(hit)
            .filter(|q| q.0 == p.page)
            .and_then(|(page, s, e)| {
                let text = p.text(page)?;
                let q = text.get(s..e)?;
                Some((
                    Some(q.to_string()),
                    crate::context::quote::occurrence(text, q, s),
                ))
            })
            .unwrap_or((None, 0));
        Some(ShotKey {
            req: p.req,
            page: p.page,
            cells,
            window: self.zoom.window(cells, self.shape),
            quote,
            quote_nth,
            dark: self.dark_pages,
            marks: crate::vault::render::PageMark::on_page(&p.info.annotations, p.page),
        })
    }

    /// Whether a cited quote or the current search hit is on the page shown.
    fn evidence_on_page(&self) -> bool {
        let Some(p) = self.doc.as_ref() else {
            return false;
        };
        let hit = p
            .search
            .current
            .and_then(|i| p.search.hits.get(i))
            .map(|h| h.page);
        p.quote.map(|q| q.0).or(hit) == Some(p.page)
    }

    /// Asks for the image of what is on screen when it is not the one asked for last.
    pub(super) fn want_image(&mut self, view: Viewport) -> Vec<Out> {
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

    pub(super) fn image_arrived(
        &mut self,
        key: ShotKey,
        result: Result<PageProto, String>,
    ) -> Vec<Out> {
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

    /// `ctrl-r`: page images dark or as printed (remembered across restarts).
    pub(super) fn toggle_dark(&mut self) -> Vec<Out> {
        self.dark_pages = !self.dark_pages;
        let how = if self.dark_pages {
            "page images dark: light and dark swapped, colours kept (ctrl-r: as printed)"
        } else {
            "page images as printed"
        };
        let mut out = vec![Out::info(how)];
        if !self.image_active() {
            out = vec![Out::info(format!("{how}; I shows the page image"))];
        }
        out
    }

    pub(super) fn toggle_image(&mut self, view: Viewport) -> Vec<Out> {
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
        } else if self.evidence_on_page() {
            // The quote or search hit the text view shows: the image lands on it too.
            self.land_on_evidence(view);
        }
        vec![Out::info(if self.image_mode {
            "image view (I again for the text)"
        } else {
            "text view"
        })]
    }
}
