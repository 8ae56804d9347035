//! Overstruck text: the same glyphs drawn again at (almost) the same place. Fake bold draws each
//! character two or three times a hair apart (ctex's and xeCJK's `AutoFakeBold`, many CJK
//! slides), a shadow or an outline effect draws a string twice; the page shows it once, and so
//! must its text ("研究", not "研研研究究究").

use super::{Frag, G, OverstrikeParams, frag_text};
use crate::content::PageGlyphs;

fn text<'p>(page: &'p PageGlyphs, g: &G) -> &'p str {
    page.text
        .get(g.start as usize..(g.start + g.len) as usize)
        .unwrap_or("")
}

/// Whether `g` is the glyph `prev` drawn again: same text, same size, same place.
pub(super) fn redrawn_glyph(page: &PageGlyphs, prev: &G, g: &G, p: &OverstrikeParams) -> bool {
    let s = prev.size.max(g.size);
    let reach = p.same_place * (g.x1 - g.x).max(p.min_advance * s);
    (g.x - prev.x).abs() < reach
        && (g.y - prev.y).abs() < p.same_baseline * s
        && (g.size - prev.size).abs() <= p.same_size * s
        && text(page, g) == text(page, prev)
}

/// Drops the last fragment (and its glyphs) when it repeats one of the few fragments before it:
/// the same text over the same extent on the same baseline.
pub(super) fn drop_redrawn_fragment(
    page: &PageGlyphs,
    gs: &mut Vec<G>,
    frags: &mut Vec<Frag>,
    p: &OverstrikeParams,
) {
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
    let repeats = before.iter().rev().take(p.look_back).any(|f| {
        let tol = p.same_place * s;
        (f.x0 - last.x0).abs() < tol
            && (f.x1 - last.x1).abs() < tol
            && (f.y - last.y).abs() < p.same_baseline * s
            && (f.size - s).abs() <= p.same_size * s
            && f.end - f.first == last.end - last.first
            && frag_text(page, gs, f) == Some(last_text)
    });
    if repeats {
        let first = last.first;
        frags.pop();
        gs.truncate(first);
    }
}
