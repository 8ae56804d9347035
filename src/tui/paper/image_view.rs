//! The image view's keys: fit width and fit page, zoom around the centre, pan with the
//! movement keys (past the page's bottom or top, the next or previous page), `J`/`K` keeping
//! the zoom and the horizontal place; the maximised pane; and landing on the evidence — a
//! citation, a search hit or a verdict opened in the image view shows the page at fit width
//! scrolled to its highlighted quote.

use super::zoom::{Fit, STEP};
use super::{Paper, Viewport};
use crate::tui::action::Action;
use crate::tui::effect::Out;
use crate::vault::EntryKind;

/// Columns one `h`/`l` pans by, as a part of the pane's width; rows one `j`/`k` pans by.
const PAN_ACROSS: f32 = 0.125;
const PAN_ROWS: f32 = 3.0;

impl Paper {
    /// Whether the image view is what the pane shows (a PDF, the view on).
    pub(super) fn image_active(&self) -> bool {
        self.image_mode
            && self
                .doc
                .as_ref()
                .is_some_and(|p| p.kind == EntryKind::Paper)
    }

    /// Whether the paper pane is maximised (`Z`).
    pub fn maximised(&self) -> bool {
        self.maximised
    }

    /// Where the image view is (`fit width · 42%`), when it is on.
    pub fn zoom_label(&self, cells: (u16, u16)) -> Option<String> {
        self.image_active()
            .then(|| self.zoom.label(cells, self.shape))
    }

    pub(super) fn toggle_maximised(&mut self) -> Vec<Out> {
        self.maximised = !self.maximised;
        vec![Out::info(if self.maximised {
            "paper pane maximised (Z again for the other panes)"
        } else {
            "the other panes are back"
        })]
    }

    /// A key in the image view; `None` leaves it to the text view's handling (page changes,
    /// search, marks…), which the image follows.
    pub(super) fn image_action(
        &mut self,
        action: Action,
        n: usize,
        view: Viewport,
    ) -> Option<Vec<Out>> {
        let pane = (view.0 as u16, view.1 as u16);
        let shape = self.shape;
        let n = n as f32;
        let moved = match action {
            Action::FitWidth => {
                self.zoom.set_fit(Fit::Width, pane, shape);
                true
            }
            Action::FitPage => {
                self.zoom.set_fit(Fit::Page, pane, shape);
                true
            }
            Action::ZoomIn => {
                self.zoom.zoom(STEP.powf(n), pane, shape);
                true
            }
            Action::ZoomOut => {
                self.zoom.zoom(STEP.powf(-n), pane, shape);
                true
            }
            Action::MoveDown => self.zoom.pan(0.0, PAN_ROWS * n, pane, shape),
            Action::MoveUp => self.zoom.pan(0.0, -PAN_ROWS * n, pane, shape),
            Action::MoveLeft => self.pan_across(-n, pane),
            Action::MoveRight => self.pan_across(n, pane),
            Action::HalfPageDown | Action::HalfPageUp => {
                let down = action == Action::HalfPageDown;
                let p = self.doc.as_ref()?;
                let edge = if down {
                    self.zoom.at_bottom(pane, shape)
                } else {
                    self.zoom.at_top()
                };
                if edge {
                    // Past the edge: the next page's top, the previous page's bottom.
                    let (page, count) = (p.page, p.page_count());
                    if (down && page >= count) || (!down && page <= 1) {
                        return Some(vec![Out::info(self.where_label(pane))]);
                    }
                    let step = if down {
                        Action::NextPage
                    } else {
                        Action::PrevPage
                    };
                    let out = self.on_action(step, None, view);
                    if !down {
                        self.zoom.to_bottom(pane, shape);
                    }
                    return Some(out);
                }
                let half = f32::from(pane.1.max(2)) / 2.0 * n;
                self.zoom
                    .pan(0.0, if down { half } else { -half }, pane, shape)
            }
            Action::NextPage | Action::PrevPage => {
                // The zoom and the horizontal place stay; the page starts at its top.
                self.zoom.y = 0.0;
                return None;
            }
            _ => return None,
        };
        if !moved {
            let fits = matches!(self.zoom.fit, Fit::Page);
            return Some(vec![Out::info(if fits {
                "the whole page is on screen (w: fit width, +: zoom in)".into()
            } else {
                format!("{} (at the edge)", self.where_label(pane))
            })]);
        }
        Some(vec![Out::info(self.where_label(pane))])
    }

    /// `z h`/`z l` in the text view: the long code lines scroll across.
    pub(super) fn scroll_code(&mut self, action: Action, n: usize, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return Vec::new();
        };
        let step = super::code::SHIFT_STEP * n;
        p.shift = if action == Action::ScrollRight {
            p.shift + step
        } else {
            p.shift.saturating_sub(step)
        };
        // No further than the longest code line's end.
        let width = p.text_width(view.0).max(4);
        let longest = p.text(p.page).map_or(0, |t| {
            t.split('\n')
                .filter(|l| super::code::is_code(l))
                .map(|l| crate::tui::text::str_width(l).saturating_sub(width - 1))
                .max()
                .unwrap_or(0)
        });
        p.shift = p.shift.min(longest);
        p.cursor_row = p.cursor_row.min(p.rows(view.0).len().saturating_sub(1));
        vec![Out::info(if p.shift == 0 {
            "code lines from their start".into()
        } else {
            format!("code lines scrolled {} columns across (z h back)", p.shift)
        })]
    }

    fn pan_across(&mut self, n: f32, pane: (u16, u16)) -> bool {
        let step = (f32::from(pane.0) * PAN_ACROSS).max(1.0) * n;
        self.zoom.pan(step, 0.0, pane, self.shape)
    }

    fn where_label(&self, pane: (u16, u16)) -> String {
        let page = self.doc.as_ref().map_or(1, |p| p.page);
        format!("p. {page} · {}", self.zoom.label(pane, self.shape))
    }

    /// A quote or a search hit to show: the image view goes to fit width (a closer zoom
    /// stays) and scrolls to it when its place comes back with the image.
    pub(super) fn land_on_evidence(&mut self, view: Viewport) {
        if !self.image_mode {
            return;
        }
        let pane = (view.0 as u16, view.1 as u16);
        if self.zoom.fit == Fit::Page {
            self.zoom.set_fit(Fit::Width, pane, self.shape);
        }
        self.land = true;
    }

    /// An image arrived: its shapes are the ones from now on, and a pending landing scrolls
    /// to the quote (the next window is asked for by the update).
    pub(super) fn image_geometry(
        &mut self,
        cells: (u16, u16),
        shape: super::zoom::Shape,
        quote_at: Option<[f32; 4]>,
        had_quote: bool,
    ) {
        let near = |a: f32, b: f32| (a - b).abs() <= a.abs() * 0.005;
        if !near(self.shape.page, shape.page) || !near(self.shape.cell, shape.cell) {
            self.shape = shape;
        }
        if self.land && had_quote {
            self.land = false;
            if let Some(at) = quote_at {
                self.zoom.show(at, cells, self.shape);
            }
        }
        self.zoom.clamp(cells, self.shape);
    }
}

#[cfg(test)]
mod tests {
    use super::super::image::{PageProto, ShotKey, ShotState};
    use super::super::zoom::Shape;
    use super::super::{DocInfo, PaperMsg};
    use super::*;
    use crate::tui::effect::{Effect, Jump, Location};

    fn renders(out: &[Out]) -> Vec<ShotKey> {
        out.iter()
            .filter_map(|o| match o {
                Out::Run(Effect::RenderPage { key, .. }) => Some(key.clone()),
                _ => None,
            })
            .collect()
    }

    fn proto(key: &ShotKey, quote_at: Option<[f32; 4]>) -> PageProto {
        let (w, h) = key.window.cells;
        let img = image::DynamicImage::new_rgb8(u32::from(w), u32::from(h) * 2);
        let size = ratatui::layout::Size::new(w, h);
        PageProto {
            proto: ratatui_image::protocol::Protocol::Halfblocks(
                ratatui_image::protocol::halfblocks::Halfblocks::new(img, size).unwrap(),
            ),
            shape: Shape::default(),
            quote_at,
        }
    }

    /// A citation opened in the image view: fit width, then, once the image says where the
    /// quote is, the window that shows it is asked for (once); the text view does not move.
    #[test]
    fn a_citation_in_the_image_view_lands_on_its_quote() {
        let view = (100, 30);
        let mut paper = Paper::default();
        let open = Jump::to("papers/a/paper.pdf".into(), 1);
        let out = paper.update(PaperMsg::Jump(open, EntryKind::Paper), view);
        let req = paper.doc().unwrap().req;
        let _ = out;
        paper.update(
            PaperMsg::Opened {
                req,
                result: Ok((2, DocInfo::default())),
            },
            view,
        );
        paper.update(
            PaperMsg::Pages {
                req,
                pages: vec![(1, Ok("Top.\nThe quoted claim near the bottom.".into()))],
            },
            view,
        );
        paper.update(
            PaperMsg::Action {
                action: Action::ToggleImage,
                count: None,
            },
            view,
        );
        assert_eq!(paper.zoom_label((100, 30)).as_deref(), Some("fit page"));
        let jump = Jump {
            to: Location {
                path: "papers/a/paper.pdf".into(),
                page: 1,
                row: 0,
            },
            quote: Some("quoted claim".into()),
            lines: None,
        };
        let out = paper.update(PaperMsg::Jump(jump, EntryKind::Paper), view);
        let asked = renders(&out);
        assert_eq!(asked.len(), 1, "{out:?}");
        assert_eq!(asked[0].quote.as_deref(), Some("quoted claim"));
        assert_eq!(
            paper.zoom_label((100, 30)).as_deref(),
            Some("fit width · 0%")
        );
        // The quote is at 80% of the page's height: the next window shows it.
        let out = paper.update(
            PaperMsg::Image {
                key: asked[0].clone(),
                result: Ok(proto(&asked[0], Some([0.1, 0.8, 0.6, 0.82]))),
            },
            view,
        );
        let next = renders(&out);
        assert_eq!(next.len(), 1, "{out:?}");
        let [_, top, _, bottom] = next[0].window.frac;
        assert!(top <= 8000 && bottom >= 8200, "{:?}", next[0].window);
        // While it renders the last image stays on screen; once here, nothing more is asked.
        assert!(matches!(paper.shot((100, 30)), Some(ShotState::Ready(_))));
        let out = paper.update(
            PaperMsg::Image {
                key: next[0].clone(),
                result: Ok(proto(&next[0], Some([0.1, 0.8, 0.6, 0.82]))),
            },
            view,
        );
        assert!(renders(&out).is_empty(), "{out:?}");
    }

    /// A quote opened in the text view, then `I`: the image lands on it (fit width, the quote
    /// highlighted), as when it is opened from the image view; the occurrence of a phrase the
    /// page has twice is the one the text view shows.
    #[test]
    fn the_image_view_lands_on_the_quote_the_text_view_shows() {
        let view = (100, 30);
        let mut paper = Paper::default();
        let open = Jump::to("papers/a/paper.pdf".into(), 1);
        let _ = paper.update(PaperMsg::Jump(open, EntryKind::Paper), view);
        let req = paper.doc().unwrap().req;
        paper.update(
            PaperMsg::Opened {
                req,
                result: Ok((2, DocInfo::default())),
            },
            view,
        );
        paper.update(
            PaperMsg::Pages {
                req,
                pages: vec![(
                    1,
                    Ok("The model wins here.\nMuch later: the model wins there.".into()),
                )],
            },
            view,
        );
        // The second "model wins", as a search finds it after `n`.
        paper.update(PaperMsg::Search("model wins".into()), view);
        paper.update(
            PaperMsg::Action {
                action: Action::SearchNext,
                count: None,
            },
            view,
        );
        let out = paper.update(
            PaperMsg::Action {
                action: Action::ToggleImage,
                count: None,
            },
            view,
        );
        let asked = renders(&out);
        let out2;
        let asked = if asked.is_empty() {
            out2 = paper.update(PaperMsg::Resized, view);
            renders(&out2)
        } else {
            asked
        };
        assert_eq!(asked.len(), 1, "{out:?}");
        assert_eq!(asked[0].quote.as_deref(), Some("model wins"));
        assert_eq!(asked[0].quote_nth, 1);
        assert_eq!(
            paper.zoom_label((100, 30)).as_deref(),
            Some("fit width · 0%")
        );
    }
}
