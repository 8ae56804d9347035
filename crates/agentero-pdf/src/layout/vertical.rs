//! Vertical writing (tategaki, 縦書き): columns running top to bottom, read right to left.
//!
//! Two ways a PDF sets it. A vertical font (WMode 1: `Identity-V` or another `-V` CMap) advances
//! downwards; the interpreter already turns its glyphs a quarter (see `content.rs`), so that a
//! column reads like a line. Or a horizontal font whose glyphs are placed one under the other,
//! each by its own text position (what many office and typesetting programs write): [`restack`]
//! finds such stacked runs and turns them the same way, so the layout reads both alike.
//!
//! Vertical text also uses the presentation forms of punctuation (`︒`, `︑`, `﹁`, …), glyphs
//! turned for the column; `forms::horizontal_form` gives the character each one stands for, so
//! that search finds `。` and `「` whichever way the page was set.

use super::{VerticalParams, short_of};
use crate::content::{Dir, Glyph, PageGlyphs};

/// Whether `g` sits right under `p` in one column: about the same centre across, one glyph
/// height (give or take spacing) lower.
fn stacked_under(p: &Glyph, g: &Glyph, v: &VerticalParams) -> bool {
    let s = p.size.max(g.size);
    if s <= 0.0 {
        return false;
    }
    let (pc, gc) = (p.x + p.w / 2.0, g.x + g.w / 2.0);
    let drop = p.y - g.y;
    (pc - gc).abs() < v.same_column * s && drop > v.min_drop * s && drop < v.max_drop * s
}

/// Whether `g` starts the next column of a vertical page: to the left of `p`, at or above it.
fn next_column(p: &Glyph, g: &Glyph, v: &VerticalParams) -> bool {
    let s = p.size.max(g.size);
    g.x + g.w / 2.0 < p.x - v.next_column * s && g.y > p.y - v.next_column * s
}

/// The page's glyphs with those of vertical columns set in a horizontal font turned into the
/// frame of vertical writing (`Dir::Up270`, as the interpreter gives a vertical font's), when
/// the page is set that way: most of its upright glyphs stacked one under the other in runs,
/// and the runs following each other leftwards. `None` when the page has nothing stacked.
pub fn restack(page: &PageGlyphs, v: &VerticalParams) -> Option<Vec<Glyph>> {
    let shown: Vec<usize> = (0..page.glyphs.len())
        .filter(|&i| page.glyphs[i].dir == Dir::Up0 && !page.glyphs[i].space)
        .collect();
    if shown.len() < v.min_stacked {
        return None;
    }
    // Runs of glyphs in stream order, each right under the one before.
    let mut in_run = vec![false; page.glyphs.len()];
    let (mut stacked, mut leftward, mut rightward) = (0usize, 0usize, 0usize);
    let mut run_len = 1;
    let mut run_start: Option<&Glyph> = None;
    for w in shown.windows(2) {
        let (p, g) = (&page.glyphs[w[0]], &page.glyphs[w[1]]);
        if run_start.is_none() {
            run_start = Some(p);
        }
        if stacked_under(p, g, v) {
            run_len += 1;
            if run_len == 2 {
                in_run[w[0]] = true;
                stacked += 1;
            }
            in_run[w[1]] = true;
            stacked += 1;
        } else {
            if run_len >= 2 {
                let head = run_start.unwrap_or(p);
                if next_column(head, g, v) || next_column(p, g, v) {
                    leftward += 1;
                } else if g.x > p.x + p.size {
                    rightward += 1;
                }
            }
            run_len = 1;
            run_start = None;
        }
    }
    if stacked < v.min_stacked
        || short_of(stacked, shown.len(), v.min_stacked_share)
        || leftward < rightward
    {
        return None;
    }
    // Ideographs and kana stack; a column of digits or letters is a table or a formula.
    let wide = (0..page.glyphs.len())
        .filter(|&i| in_run[i] && is_wide(page, &page.glyphs[i]))
        .count();
    if short_of(wide, stacked, v.min_wide_share) {
        return None;
    }
    let mut glyphs = page.glyphs.clone();
    // Spaces between stacked glyphs belong to their column.
    let mut last_stacked = false;
    for (i, g) in glyphs.iter_mut().enumerate() {
        if g.dir != Dir::Up0 {
            continue;
        }
        let turn = in_run[i] || (g.space && last_stacked);
        if !g.space {
            last_stacked = in_run[i];
        }
        if turn {
            *g = turned(g, v);
        }
    }
    Some(glyphs)
}

fn is_wide(page: &PageGlyphs, g: &Glyph) -> bool {
    let text = page
        .text
        .get(g.start as usize..(g.start + g.len) as usize)
        .unwrap_or("");
    text.chars().next().is_some_and(|c| {
        matches!(c as u32, 0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE10..=0xFE4F
            | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
    })
}

/// An upright glyph of a stacked column in the quarter-turned frame of vertical writing: along
/// the column downwards from its top, across it at its centre.
fn turned(g: &Glyph, v: &VerticalParams) -> Glyph {
    let top = g.y + v.glyph_top * g.size;
    Glyph {
        x: -top,
        y: g.x + g.w / 2.0,
        w: g.size,
        dir: Dir::Up270,
        ..*g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyph(x: f32, y: f32, start: u32) -> Glyph {
        Glyph {
            x,
            y,
            w: 10.0,
            size: 10.0,
            start: start * 3,
            len: 3,
            space: false,
            dir: Dir::Up0,
        }
    }

    #[test]
    fn stacked_columns_turn_and_rows_do_not() {
        // Five columns of ten glyphs, right to left.
        let mut page = PageGlyphs::default();
        let mut n = 0;
        for col in 0..5 {
            for row in 0..10 {
                page.text.push('縦');
                page.glyphs.push(glyph(
                    500.0 - 15.0 * col as f32,
                    700.0 - 10.0 * row as f32,
                    n,
                ));
                n += 1;
            }
        }
        let turned = restack(&page, &VerticalParams::DEFAULT).expect("a vertical page");
        assert!(turned.iter().all(|g| g.dir == Dir::Up270));
        // Down the column is along the line; the next column (to the left) is lower.
        assert!(turned[1].x > turned[0].x);
        assert!(turned[10].y < turned[0].y);

        // The same glyphs as rows of a horizontal page stay as they are.
        let mut rows = PageGlyphs::default();
        for (i, g) in page.glyphs.iter().enumerate() {
            rows.text.push('横');
            rows.glyphs.push(glyph(
                100.0 + 10.0 * (i % 10) as f32,
                700.0 - 15.0 * (i / 10) as f32,
                i as u32,
            ));
            let _ = g;
        }
        assert!(restack(&rows, &VerticalParams::DEFAULT).is_none());
    }
}
