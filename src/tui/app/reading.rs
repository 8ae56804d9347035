//! The reading state the app keeps for the panes: where each document was left (opening one
//! from a list goes back there), when it was opened (the browser's sort, the recent list),
//! the paper's session, and saving it.

use super::{AppState, Effect, Jump, RECENT};
use crate::tui::browser::BrowserMsg;
use crate::vault::reading;

impl AppState {
    /// Where opening `path` from a list goes: where it is when it is the open document, else
    /// where it was left last time, else its start.
    pub(super) fn entry_place(&self, path: String) -> Jump {
        if self.paper.doc().is_some_and(|d| d.path() == path) {
            let page = self.paper.page_of(&path);
            return Jump::to(path, page);
        }
        match self.reading.as_ref().and_then(|r| r.place(&path)) {
            Some(place) => {
                let mut jump = Jump::to(path, place.page);
                jump.to.row = place.row;
                jump
            }
            None => Jump::to(path, 1),
        }
    }

    /// Records the open document's place and the paper's session in the reading state;
    /// whether that changed it.
    pub(super) fn sync_reading(&mut self) -> bool {
        let Some(r) = self.reading.as_mut() else {
            return false;
        };
        let mut changed = false;
        let mut newly_opened = false;
        if let Some(at) = self.paper.location() {
            let opened =
                (self.reading_doc.as_deref() != Some(at.path.as_str())).then(reading::now_ms);
            let before = r.place(&at.path).cloned();
            r.set_place(&at.path, at.page, at.row, opened);
            changed |= before.as_ref() != r.place(&at.path);
            self.reading_doc = Some(at.path);
            newly_opened = opened.is_some();
        }
        let session = self.paper.session();
        if session != r.session {
            r.session = session;
            changed = true;
        }
        if newly_opened {
            self.tell_browser_opened();
        }
        changed
    }

    /// When each document was last opened, for the browser's sort by recent.
    pub(super) fn tell_browser_opened(&mut self) {
        let opened = self.reading.as_ref().map_or_else(Default::default, |r| {
            r.places
                .iter()
                .map(|(p, place)| (p.clone(), place.opened_ms))
                .collect()
        });
        self.browser.update(BrowserMsg::Opened(opened));
    }

    pub(super) fn save_reading(&self, now: bool) -> Effect {
        Effect::SaveReading {
            state: Box::new(self.reading.clone().unwrap_or_default()),
            now,
        }
    }

    /// The recently opened documents, the latest first: path, and the page it was left at.
    pub fn recent(&self) -> Vec<(String, u32)> {
        self.reading.as_ref().map_or_else(Vec::new, |r| {
            r.recent(RECENT)
                .into_iter()
                .map(|(path, place)| (path.to_string(), place.page))
                .collect()
        })
    }

    /// The recently opened documents with their titles: path, title (empty: none), page.
    pub(super) fn recent_titled(&self) -> Vec<(String, String, u32)> {
        self.recent()
            .into_iter()
            .map(|(path, page)| {
                let title = self
                    .browser
                    .entries()
                    .iter()
                    .find(|e| e.path == path)
                    .map(|e| e.title.clone())
                    .unwrap_or_default();
                (path, title, page)
            })
            .collect()
    }
}
