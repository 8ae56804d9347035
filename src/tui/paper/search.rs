//! Search in the paper: every loaded page, the next or previous match from the cursor.

use super::{Paper, Slot, Viewport};
use crate::tui::effect::Out;

impl Paper {
    pub(super) fn search(&mut self, query: String, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        p.search.query = query.clone();
        p.search.current = None;
        p.research();
        if p.search.hits.is_empty() {
            let loading = p
                .pages
                .iter()
                .any(|s| matches!(s, Slot::Loading | Slot::Missing));
            return vec![Out::info(if loading {
                format!("no match for {query:?} yet (pages still loading)")
            } else {
                format!("no match for {query:?}")
            })];
        }
        self.step_search(true, 1, view)
    }

    pub(super) fn step_search(&mut self, forward: bool, n: usize, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let hits = &p.search.hits;
        if hits.is_empty() {
            return vec![Out::info(if p.search.query.is_empty() {
                "no search: / to search".into()
            } else {
                format!("no match for {:?}", p.search.query)
            })];
        }
        let rows = p.rows(view.0);
        let here = (p.page, p.cursor_offset(&rows));
        let mut idx = match p.search.current {
            Some(c) => c,
            None => {
                // The first hit after (or before) the cursor.
                let after = hits.iter().position(|h| (h.page, h.start) > here);
                match (forward, after) {
                    (true, Some(i)) => i,
                    (true, None) => 0,
                    (false, Some(i)) => (i + hits.len() - 1) % hits.len(),
                    (false, None) => hits.len() - 1,
                }
            }
        };
        let first_step = p.search.current.is_none();
        for _ in 0..(if first_step { n - 1 } else { n }) {
            idx = if forward {
                (idx + 1) % hits.len()
            } else {
                (idx + hits.len() - 1) % hits.len()
            };
        }
        p.search.current = Some(idx);
        let hit = hits[idx].clone();
        let status = format!(
            "match {} of {} for {:?}",
            idx + 1,
            hits.len(),
            p.search.query
        );
        if hit.page != p.page {
            self.push_jump();
        }
        let p = self.doc.as_mut().expect("checked above");
        p.page = hit.page;
        let rows = p.rows(view.0);
        p.cursor_to_offset(&rows, hit.start);
        self.follow(view);
        vec![Out::info(status)]
    }
}
