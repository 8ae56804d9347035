//! The image view's fit, zoom and pan: which window of the page is on screen and how large.
//! Sizes are in cells; the page's shape (height over width) and a cell's (its height over its
//! width in image pixels: 2 for half-blocks, the font's for graphics) come back with each image.

/// How large the page is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fit {
    /// The whole page in the pane (the default).
    Page,
    /// The page's width across the pane.
    Width,
    /// The page's width in pane widths (1.0 is fit width).
    Zoom(f32),
}

/// The largest zoom, in pane widths: past it a page is a few letters and costs a lot.
pub const MAX_ZOOM: f32 = 6.0;
/// One `+` or `-`.
pub const STEP: f32 = 1.25;

pub use crate::tui::shot::{Shape, Window};

/// The fit and where the window's top-left corner is (parts of the page's width and height).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    pub fit: Fit,
    pub x: f32,
    pub y: f32,
}

impl Default for View {
    fn default() -> View {
        View {
            fit: Fit::Page,
            x: 0.0,
            y: 0.0,
        }
    }
}

type Pane = (u16, u16);

impl View {
    /// The page's size in cells in `pane`.
    fn page_cells(&self, pane: Pane, shape: Shape) -> (f32, f32) {
        let (w, h) = (f32::from(pane.0.max(1)), f32::from(pane.1.max(1)));
        let width = match self.fit {
            Fit::Page => w.min(h * shape.cell / shape.page),
            Fit::Width => w,
            Fit::Zoom(z) => w * z,
        };
        (width.max(1.0), (width * shape.page / shape.cell).max(1.0))
    }

    /// The visible size in cells and the furthest the corner can go (parts of the page).
    fn visible(&self, pane: Pane, shape: Shape) -> ((f32, f32), (f32, f32), (f32, f32)) {
        let (pw, ph) = self.page_cells(pane, shape);
        let (vw, vh) = (f32::from(pane.0).min(pw), f32::from(pane.1).min(ph));
        ((pw, ph), (vw, vh), (1.0 - vw / pw, 1.0 - vh / ph))
    }

    /// Keeps the corner inside the page.
    pub fn clamp(&mut self, pane: Pane, shape: Shape) {
        let (_, _, (mx, my)) = self.visible(pane, shape);
        self.x = self.x.clamp(0.0, mx.max(0.0));
        self.y = self.y.clamp(0.0, my.max(0.0));
    }

    /// What is on screen.
    pub fn window(&self, pane: Pane, shape: Shape) -> Window {
        let mut v = *self;
        v.clamp(pane, shape);
        let ((pw, ph), (vw, vh), _) = v.visible(pane, shape);
        let part = |f: f32| (f * 10_000.0).round().clamp(0.0, 10_000.0) as u16;
        let (l, t) = (part(v.x), part(v.y));
        let (r, b) = (
            part(v.x + vw / pw).max(l + 1),
            part(v.y + vh / ph).max(t + 1),
        );
        let cells = (
            (vw.round() as u16).clamp(1, pane.0.max(1)),
            (vh.round() as u16).clamp(1, pane.1.max(1)),
        );
        Window {
            frac: [l.min(9_999), t.min(9_999), r, b],
            cells,
            offset: (pane.0.saturating_sub(cells.0) / 2, 0),
        }
    }

    /// Moves the window by cells; whether it moved.
    pub fn pan(&mut self, dx: f32, dy: f32, pane: Pane, shape: Shape) -> bool {
        let before = (self.x, self.y);
        self.clamp(pane, shape);
        let (pw, ph) = self.page_cells(pane, shape);
        self.x += dx / pw;
        self.y += dy / ph;
        self.clamp(pane, shape);
        (self.x, self.y) != before
    }

    /// Whether the window is at the page's top or bottom edge.
    pub fn at_top(&self) -> bool {
        self.y <= 1e-4
    }

    pub fn at_bottom(&self, pane: Pane, shape: Shape) -> bool {
        let (_, _, (_, my)) = self.visible(pane, shape);
        self.y >= my - 1e-4
    }

    /// To the bottom edge of the page.
    pub fn to_bottom(&mut self, pane: Pane, shape: Shape) {
        self.y = 1.0;
        self.clamp(pane, shape);
    }

    /// The zoom in pane widths.
    pub fn zoom_level(&self, pane: Pane, shape: Shape) -> f32 {
        self.page_cells(pane, shape).0 / f32::from(pane.0.max(1))
    }

    /// Zooms by `factor` around the centre of what is on screen; below the whole page it stays
    /// the whole page, at the pane's width it is fit width.
    pub fn zoom(&mut self, factor: f32, pane: Pane, shape: Shape) {
        self.clamp(pane, shape);
        let ((pw, ph), (vw, vh), _) = self.visible(pane, shape);
        let (cx, cy) = (self.x + vw / pw / 2.0, self.y + vh / ph / 2.0);
        let page_fit = View {
            fit: Fit::Page,
            ..*self
        }
        .zoom_level(pane, shape);
        let z = (self.zoom_level(pane, shape) * factor).min(MAX_ZOOM);
        self.fit = if z <= page_fit + 1e-3 {
            Fit::Page
        } else if (z - 1.0).abs() < 0.02 {
            Fit::Width
        } else {
            Fit::Zoom(z)
        };
        let ((pw, ph), (vw, vh), _) = self.visible(pane, shape);
        self.x = cx - vw / pw / 2.0;
        self.y = cy - vh / ph / 2.0;
        self.clamp(pane, shape);
    }

    /// Fit width or fit page, from the top-left corner (fit width keeps the vertical place).
    pub fn set_fit(&mut self, fit: Fit, pane: Pane, shape: Shape) {
        self.fit = fit;
        self.x = 0.0;
        if fit == Fit::Page {
            self.y = 0.0;
        }
        self.clamp(pane, shape);
    }

    /// Scrolls (and pans across when the page is wider than the pane) so that the box `at`
    /// (left, top, right, bottom as parts of the page) is on screen, its top a little below
    /// the top edge and its left edge at the left; whether it moved.
    pub fn show(&mut self, at: [f32; 4], pane: Pane, shape: Shape) -> bool {
        self.clamp(pane, shape);
        let ((pw, ph), (vw, vh), _) = self.visible(pane, shape);
        let (seen_w, seen_h) = (vw / pw, vh / ph);
        let before = (self.x, self.y);
        let [left, top, right, bottom] = at;
        if top < self.y || bottom > self.y + seen_h {
            self.y = top - seen_h * 0.2;
        }
        if left < self.x || right.min(left + seen_w) > self.x + seen_w {
            self.x = left - seen_w * 0.03;
        }
        self.clamp(pane, shape);
        (self.x - before.0).abs() > 1e-4 || (self.y - before.1).abs() > 1e-4
    }

    /// Where the status line says the view is: `fit page`, `fit width · 42%`, `zoom 200% · 42%`
    /// (how far down the page, and across it when it is wider than the pane).
    pub fn label(&self, pane: Pane, shape: Shape) -> String {
        let mut v = *self;
        v.clamp(pane, shape);
        let (_, _, (mx, my)) = v.visible(pane, shape);
        let pct = |at: f32, max: f32| {
            if max <= 1e-4 {
                0
            } else {
                (at / max * 100.0).round() as u32
            }
        };
        let fit = match v.fit {
            Fit::Page => return "fit page".into(),
            Fit::Width => "fit width".to_string(),
            Fit::Zoom(z) => format!("zoom {}%", (z * 100.0).round() as u32),
        };
        let mut s = format!("{fit} · {}%", pct(v.y, my));
        if mx > 1e-4 {
            s.push_str(&format!(" · {}% across", pct(v.x, mx)));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANE: Pane = (160, 46);

    #[test]
    fn fit_page_shows_the_whole_page_centred_and_fit_width_spans_the_pane() {
        let s = Shape::default();
        let v = View::default();
        let w = v.window(PANE, s);
        assert_eq!(w.frac, [0, 0, 10_000, 10_000]);
        // 46 rows of half-blocks are 92 pixels: a Letter page 71 wide.
        assert_eq!(w.cells, (71, 46));
        assert_eq!(w.offset, ((160 - 71) / 2, 0));
        assert_eq!(v.label(PANE, s), "fit page");
        let mut v = View::default();
        v.set_fit(Fit::Width, PANE, s);
        let w = v.window(PANE, s);
        assert_eq!(w.cells, PANE);
        assert_eq!((w.frac[0], w.frac[2]), (0, 10_000));
        // 46 of the page's 103.5 rows.
        assert_eq!(w.frac[3], 4443);
        assert_eq!(v.label(PANE, s), "fit width · 0%");
    }

    #[test]
    fn pan_moves_within_the_page_and_stops_at_its_edges() {
        let s = Shape::default();
        let mut v = View::default();
        assert!(!v.pan(0.0, 10.0, PANE, s), "the whole page does not pan");
        v.set_fit(Fit::Width, PANE, s);
        assert!(v.pan(0.0, 20.0, PANE, s));
        assert!(!v.pan(10.0, 0.0, PANE, s), "no room across at fit width");
        let w = v.window(PANE, s);
        assert_eq!(w.frac[1], 1932);
        assert!(v.pan(0.0, 1000.0, PANE, s));
        assert!(v.at_bottom(PANE, s));
        assert_eq!(v.window(PANE, s).frac[3], 10_000);
        assert_eq!(v.label(PANE, s), "fit width · 100%");
        assert!(!v.pan(0.0, 5.0, PANE, s));
        assert!(v.pan(0.0, -1000.0, PANE, s) && v.at_top());
    }

    #[test]
    fn zoom_keeps_the_centre_and_snaps_to_the_fits() {
        let s = Shape::default();
        let mut v = View::default();
        v.set_fit(Fit::Width, PANE, s);
        v.pan(0.0, 30.0, PANE, s);
        let before = v.window(PANE, s);
        let centre = |w: &Window| (u32::from(w.frac[1]) + u32::from(w.frac[3])) / 2;
        v.zoom(STEP, PANE, s);
        assert_eq!(v.fit, Fit::Zoom(1.25));
        let after = v.window(PANE, s);
        assert!(centre(&before).abs_diff(centre(&after)) <= 2);
        assert_eq!((after.frac[0], after.frac[2]), (1000, 9000));
        assert_eq!(v.label(PANE, s), "zoom 125% · 52% · 50% across");
        v.zoom(1.0 / STEP, PANE, s);
        assert_eq!(v.fit, Fit::Width);
        for _ in 0..10 {
            v.zoom(1.0 / STEP, PANE, s);
        }
        assert_eq!(v.fit, Fit::Page);
        for _ in 0..20 {
            v.zoom(STEP, PANE, s);
        }
        assert_eq!(v.fit, Fit::Zoom(MAX_ZOOM));
    }

    #[test]
    fn show_brings_rows_on_screen_only_when_needed() {
        let s = Shape::default();
        let mut v = View::default();
        v.set_fit(Fit::Width, PANE, s);
        assert!(!v.show([0.1, 0.1, 0.5, 0.2], PANE, s));
        assert!(v.show([0.1, 0.7, 0.5, 0.72], PANE, s));
        let w = v.window(PANE, s);
        assert!(w.frac[1] <= 7000 && w.frac[3] >= 7200, "{w:?}");
        // Zoomed in: it pans across to the box's left edge too.
        v.zoom(4.0, PANE, s);
        v.show([0.6, 0.7, 0.9, 0.72], PANE, s);
        let w = v.window(PANE, s);
        assert!(w.frac[0] <= 6000 && w.frac[2] > 6000, "{w:?}");
        assert!(w.frac[1] <= 7000 && w.frac[3] >= 7200, "{w:?}");
        // A tiny pane never panics.
        let w = View::default().window((1, 1), s);
        assert_eq!(w.cells, (1, 1));
        let w = View::default().window((0, 0), s);
        assert!(w.frac[0] < w.frac[2]);
    }
}
