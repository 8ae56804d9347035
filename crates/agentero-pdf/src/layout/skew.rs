//! Text set at a slant: a diagonal "DRAFT" or "Preprint" stamp across the page, the letters of a
//! seal set around a circle. Such glyphs are read in the order they are drawn, a run going on
//! while each glyph starts where the one before it ended (whatever its angle, so that a circle
//! of letters reads as its words), and each run is a line of its own after the page's upright
//! text.

use super::{LayoutParams, TextBox};
use crate::content::{Dir, Glyph, PageGlyphs};

/// Where a glyph starts and ends on the page.
fn ends(g: &Glyph) -> ((f32, f32), (f32, f32)) {
    (g.dir.page(g.x, g.y), g.dir.page(g.x + g.w.max(0.0), g.y))
}

/// Whether `b` is within the run gap (`run_gap` ems) of `a`.
fn near(a: (f32, f32), b: (f32, f32), em: f32, run_gap: f32) -> bool {
    (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2) <= (run_gap * em).powi(2)
}

/// Which glyphs (of `all`, in drawing order) are read as slanted text: those at a slant, and
/// those that carry a slanted run on (or lead into one), starting where the glyph before them
/// ended. A circle of letters passes through upright and quarter-turned ones; they belong to
/// its words, not to the page's lines.
pub(super) fn slanted(all: &[Glyph], p: &LayoutParams) -> Vec<bool> {
    let mut marks: Vec<bool> = all.iter().map(|g| matches!(g.dir, Dir::Skew(_))).collect();
    let em = |g: &Glyph| p.words.size_of(g.size);
    // Whether glyph `b` starts where glyph `a`, drawn just before it, ended.
    let chained =
        |a: &Glyph, b: &Glyph| near(ends(a).1, ends(b).0, em(a).max(em(b)), p.slant.run_gap);
    // Forward: a glyph that starts where a slanted one ended goes on its run.
    for i in 1..all.len() {
        if marks[i - 1] && !marks[i] && chained(&all[i - 1], &all[i]) {
            marks[i] = true;
        }
    }
    // Backward: a glyph that ends where a slanted one starts leads into its run.
    for i in (1..all.len()).rev() {
        if marks[i] && !marks[i - 1] && chained(&all[i - 1], &all[i]) {
            marks[i - 1] = true;
        }
    }
    marks
}

pub(super) fn slanted_text(
    page: &PageGlyphs,
    glyphs: &[&Glyph],
    geo: bool,
    p: &LayoutParams,
) -> (String, Vec<TextBox>) {
    let mut out = String::new();
    let mut cells: Vec<TextBox> = Vec::new();
    // Where the last glyph of the current run ended, on the page, and its size.
    let mut end: Option<((f32, f32), f32)> = None;
    let mut space = false;
    for g in glyphs {
        if g.space {
            // A space moves the run's end on by its own advance.
            space = true;
            if let Some((_, s)) = end {
                end = Some((ends(g).1, s));
            }
            continue;
        }
        let Some(text) = page.text.get(g.start as usize..(g.start + g.len) as usize) else {
            continue;
        };
        let size = p.words.size_of(g.size);
        let start = g.dir.page(g.x, g.y);
        if let Some(((ex, ey), s)) = end {
            let gap = ((start.0 - ex).powi(2) + (start.1 - ey).powi(2)).sqrt();
            let em = s.max(size);
            if gap > p.slant.run_gap * em {
                out.push('\n');
            } else if (space || gap > p.words.word_gap * em) && !out.ends_with(' ') {
                out.push(' ');
            }
        }
        if geo {
            cells.push(TextBox {
                at: out.len() as u32,
                x0: g.x,
                x1: g.x + g.w.max(0.0),
                y: g.y,
                size,
                dir: g.dir,
            });
        }
        out.push_str(text);
        end = Some((g.dir.page(g.x + g.w.max(0.0), g.y), size));
        space = false;
    }
    // Trimmed at the end only: the cells count from the start.
    (out.trim_end().to_string(), cells)
}
