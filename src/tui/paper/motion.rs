//! Moving in the text view: the cursor by rows and columns, half pages and pages (past a
//! page's edge, the next one), `gg`/`G` (a count names a page, or a note's line), the wheel.

use super::{Paper, Viewport};
use crate::tui::action::Action;
use crate::tui::effect::{Jump, Out};
use crate::tui::widgets::WHEEL_ROWS;
use crate::vault::EntryKind;

impl Paper {
    /// A cursor move (`n` times): clamped, the page loaded if needed, the cursor kept in view.
    pub(super) fn move_cursor(&mut self, action: Action, n: usize, view: Viewport) -> Vec<Out> {
        let (pw, ph) = view;
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
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

    /// `gg` and `G`: to the first or last page, or the page (in a note, the line) of the count.
    pub(super) fn goto(&mut self, action: Action, count: Option<u32>, view: Viewport) -> Vec<Out> {
        let (pw, _) = view;
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let rows = p.rows(pw);
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
        let n = p.page_count().max(1);
        let (page, said) = match count {
            Some(c) => page_for_count(p, c),
            None => (target.clamp(1, n), None),
        };
        let mut out = self.jump(Jump::to(path, page), kind, view);
        out.extend(said.map(Out::info));
        out
    }

    /// The wheel over the paper: three rows, the cursor kept in view; past the page's edge,
    /// the next or previous page.
    pub(super) fn wheel(&mut self, down: bool, view: Viewport) -> Vec<Out> {
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
}

/// The page a count names: the page whose printed label it is (a journal paper printed as pp.
/// 361–365, a book's arabic pages after its roman ones), else that physical page; a count past
/// the end goes to the last page and says so. With what the status line should say.
fn page_for_count(p: &super::doc::Doc, c: u32) -> (u32, Option<String>) {
    let n = p.page_count().max(1);
    let printed = (1..=n).find(|&k| p.label(k) == Some(c.to_string().as_str()));
    match printed {
        Some(k) if k == c => (k, None),
        Some(k) => (k, Some(format!("printed page {c} (p. {k} of {n})"))),
        None if (1..=n).contains(&c) => (c, None),
        None => {
            let labels = match (p.label(1), p.label(n)) {
                (Some(a), Some(b)) if a != "1" || b != n.to_string() => {
                    format!(" (printed {a}–{b})")
                }
                _ => String::new(),
            };
            (
                n,
                Some(format!(
                    "no page {c}: the paper has {n} pages{labels}; at the last"
                )),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc::{Doc, DocInfo};
    use super::*;

    fn labelled(labels: &[&str]) -> Doc {
        let mut d = Doc::new("papers/a/paper.pdf".into(), EntryKind::Paper, 1);
        d.info = DocInfo {
            labels: labels.iter().map(|l| Some(l.to_string())).collect(),
            ..DocInfo::default()
        };
        d.pages = labels
            .iter()
            .map(|_| super::super::doc::Slot::Text(String::new()))
            .collect();
        d
    }

    #[test]
    fn a_count_goes_to_the_printed_page_first() {
        let journal = labelled(&["361", "362", "363", "364", "365"]);
        assert_eq!(
            page_for_count(&journal, 362),
            (2, Some("printed page 362 (p. 2 of 5)".to_string()))
        );
        // No page printed so, but a physical one.
        assert_eq!(page_for_count(&journal, 4), (4, None));
        let (page, said) = page_for_count(&journal, 400);
        assert_eq!(page, 5);
        assert_eq!(
            said.as_deref(),
            Some("no page 400: the paper has 5 pages (printed 361–365); at the last")
        );
        // A book's roman front matter, then arabic pages.
        let book = labelled(&["i", "ii", "iii", "1", "2", "3"]);
        assert_eq!(page_for_count(&book, 2).0, 5);
        // Labels that are the page numbers say nothing.
        let plain = labelled(&["1", "2", "3"]);
        assert_eq!(page_for_count(&plain, 2), (2, None));
        assert_eq!(
            page_for_count(&plain, 9).1.as_deref(),
            Some("no page 9: the paper has 3 pages; at the last")
        );
    }
}
