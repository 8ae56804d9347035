//! Overstruck text: the same glyphs drawn again at (almost) the same place. Fake bold draws each
//! character two or three times a hair apart (ctex's and xeCJK's `AutoFakeBold`, many CJK
//! slides), a shadow or an outline effect draws a string twice; the page shows it once, and so
//! must its text ("研究", not "研研研究究究").

use super::{Frag, G, frag_text};
use crate::content::PageGlyphs;

/// How far apart two draws of one glyph may start, as a share of the glyph's advance (or of the
/// font size, for a glyph with no advance) and still be one glyph. The next letter of a word is
/// a whole advance away; fake bold moves a few hundredths of an em.
const SAME_PLACE: f32 = 0.3;
/// How many finished fragments back a redrawn string is looked for: producers redraw a string
/// right after it, or after the one or two other draws of the same effect.
const LOOK_BACK: usize = 4;

fn text<'p>(page: &'p PageGlyphs, g: &G) -> &'p str {
    page.text
        .get(g.start as usize..(g.start + g.len) as usize)
        .unwrap_or("")
}

/// Whether `g` is the glyph `prev` drawn again: same text, same size, same place.
pub(super) fn redrawn_glyph(page: &PageGlyphs, prev: &G, g: &G) -> bool {
    let s = prev.size.max(g.size);
    let reach = SAME_PLACE * (g.x1 - g.x).max(0.2 * s);
    (g.x - prev.x).abs() < reach
        && (g.y - prev.y).abs() < 0.1 * s
        && (g.size - prev.size).abs() <= 0.05 * s
        && text(page, g) == text(page, prev)
}

/// Drops the last fragment (and its glyphs) when it repeats one of the few fragments before it:
/// the same text over the same extent on the same baseline.
pub(super) fn drop_redrawn_fragment(page: &PageGlyphs, gs: &mut Vec<G>, frags: &mut Vec<Frag>) {
    let Some((last, before)) = frags.split_last() else {
        return;
    };
    let Some(last_text) = frag_text(page, gs, last) else {
        return;
    };
    if last_text.trim().is_empty() {
        return;
    }
    let s = last.size;
    let repeats = before.iter().rev().take(LOOK_BACK).any(|f| {
        let tol = SAME_PLACE * s;
        (f.x0 - last.x0).abs() < tol
            && (f.x1 - last.x1).abs() < tol
            && (f.y - last.y).abs() < 0.1 * s
            && (f.size - s).abs() <= 0.05 * s
            && f.end - f.first == last.end - last.first
            && frag_text(page, gs, f) == Some(last_text)
    });
    if repeats {
        let first = last.first;
        frags.pop();
        gs.truncate(first);
    }
}
