//! Lines of a region: its fragments grouped by baseline, each line's text built glyph by glyph
//! (word gaps, accents, drop caps, code's own spacing), put in reading order for right-to-left
//! scripts, and its characters' boxes kept when geometry is asked for.

use super::accents::{accent_left, accent_overlap, compose, compose_into, place_accents};
use super::{Frag, G, LayoutParams, Line, LineParams, TextBox, bidi, frag_text, glyph_cells};
use crate::content::PageGlyphs;

/// Drop caps: a single capital set at least twice the body size whose baseline is on a lower
/// line of its paragraph, with text starting just right of it at its top. Returns (cap fragment,
/// fragment of the line its word continues on).
fn drop_caps(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    region: &[usize],
    p: &LayoutParams,
) -> Vec<(usize, usize)> {
    let d = &p.drop_caps;
    let mut sizes: Vec<f32> = region.iter().map(|&i| frags[i].size).collect();
    if sizes.len() < d.min_fragments {
        return Vec::new();
    }
    sizes.sort_by(f32::total_cmp);
    let body = sizes[sizes.len() / 2];
    let mut out = Vec::new();
    for &i in region {
        let cap = &frags[i];
        if cap.end - cap.first != 1 || cap.size < d.min_size * body {
            continue;
        }
        let mut letters = frag_text(page, gs, cap).unwrap_or("").chars();
        if !matches!((letters.next(), letters.next()), (Some(c), None) if c.is_uppercase()) {
            continue;
        }
        let top = cap.y + d.cap_top * cap.size;
        let target = region
            .iter()
            .copied()
            .filter(|&j| {
                let f = &frags[j];
                j != i
                    && f.size < d.max_text_size * cap.size
                    && f.x0 >= cap.x1 - d.back * body
                    && f.x0 <= cap.x1 + d.reach * body
                    && f.y >= cap.y - d.below * body
                    && f.y + d.text_top * f.size <= top + d.above * body
            })
            .max_by(|&a, &b| {
                frags[a]
                    .y
                    .total_cmp(&frags[b].y)
                    .then(frags[b].x0.total_cmp(&frags[a].x0))
            });
        if let Some(j) = target
            && frags[j].y > cap.y + d.min_rise * body
        {
            out.push((i, j));
        }
    }
    out
}

pub(super) fn build_lines(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    mut region: Vec<usize>,
    geo: bool,
    p: &LayoutParams,
) -> Vec<Line> {
    let lp = &p.lines;
    let word_gap = p.words.word_gap;
    let caps = drop_caps(page, gs, frags, &region, p);
    region.retain(|i| !caps.iter().any(|c| c.0 == *i));
    region.sort_by(|&a, &b| {
        frags[b]
            .y
            .total_cmp(&frags[a].y)
            .then(frags[a].x0.total_cmp(&frags[b].x0))
    });
    let groups = baseline_groups(frags, region, lp);
    let mut lines = Vec::with_capacity(groups.len());
    for (y, size, mut members) in groups {
        members.sort_by(|&a, &b| frags[a].x0.total_cmp(&frags[b].x0));
        let accents = place_accents(page, gs, frags, &mut members);
        let (mono, mono_proven) = monospaced(page, gs, frags, &members, lp);
        // A byte and a space for each glyph, as a line of Latin text takes.
        let glyphs: usize = members.iter().map(|&m| frags[m].end - frags[m].first).sum();
        let mut text = String::with_capacity(glyphs * 2);
        let mut cells: Vec<TextBox> = Vec::new();
        let mut prev: Option<G> = None;
        let mut x0 = f32::INFINITY;
        for &m in &members {
            let f = &frags[m];
            x0 = x0.min(f.x0);
            if let Some(&(cap, _)) = caps.iter().find(|c| c.1 == m) {
                if prev.is_some() && !text.ends_with(' ') {
                    text.push(' ');
                }
                let cap_text = frag_text(page, gs, &frags[cap]).unwrap_or("");
                if geo && let Some(g) = gs.get(frags[cap].first) {
                    glyph_cells(&mut cells, text.len(), cap_text, g);
                }
                text.push_str(cap_text);
                prev = None;
                x0 = x0.min(frags[cap].x0);
            }
            let run = gs.get(f.first..f.end).unwrap_or(&[]);
            for (k, g) in run.iter().enumerate() {
                let mut t = page
                    .text
                    .get(g.start as usize..(g.start + g.len) as usize)
                    .unwrap_or("");
                let composed;
                if let Some((_, accent)) = accents.iter().find(|a| a.0 == g.start) {
                    composed = t
                        .chars()
                        .next()
                        .and_then(|c| compose(*accent, c))
                        .unwrap_or_else(|| t.to_string());
                    t = &composed;
                }
                if let Some(pg) = prev {
                    let gap = g.x - pg.x1;
                    let s = pg.size.max(g.size);
                    if let Some(cw) = mono.filter(|_| mono_proven) {
                        // Code keeps its spacing: one space per character width of gap.
                        let n = (gap / cw).round().max(0.0) as usize;
                        let n = if g.space_before || gap > word_gap * s {
                            n.max(1)
                        } else {
                            n
                        };
                        text.extend(std::iter::repeat_n(' ', n.min(lp.max_code_spaces)));
                        if geo {
                            glyph_cells(&mut cells, text.len(), t, g);
                        }
                        text.push_str(t);
                        prev = Some(*g);
                        continue;
                    }
                    if accent_overlap(&pg, g, t, &text, &p.accents) {
                        compose_into(&mut text, t);
                        if let Some(c) = cells.last_mut() {
                            c.x1 = c.x1.max(g.x1);
                        }
                        prev = Some(G {
                            x1: pg.x1.max(g.x1),
                            ..*g
                        });
                        continue;
                    }
                    // An accent set over the letter after it starts where that letter does.
                    let gap = accent_left(g, t, run.get(k + 1)).map_or(gap, |x| x - pg.x1);
                    let wants_space = g.space_before || gap > word_gap * s;
                    if wants_space && !text.ends_with(' ') {
                        text.push(' ');
                    }
                }
                let shown = if text.is_empty() { t.trim_start() } else { t };
                if geo {
                    glyph_cells(&mut cells, text.len(), shown, g);
                }
                text.push_str(shown);
                prev = Some(*g);
            }
        }
        let text = if mono_proven {
            let kept = text.trim_end().to_string();
            cells.retain(|c| (c.at as usize) < kept.len());
            kept
        } else {
            normalize_spaces(&text, &mut cells)
        };
        let text = bidi::to_logical(&text, &mut cells).unwrap_or(text);
        // Lines set beside a drop cap start at the paragraph's margin, not indented.
        for &(cap, _) in &caps {
            let c = &frags[cap];
            let d = &p.drop_caps;
            if y >= c.y - d.below * size
                && y <= c.y + d.cap_top * c.size
                && x0 >= c.x1 - d.edge_slack
            {
                x0 = c.x0;
            }
        }
        if !text.is_empty() {
            lines.push(Line {
                x0,
                y,
                size,
                text,
                mono,
                mono_proven,
                cells,
            });
        }
    }
    lines
}

/// The character width when every glyph of the line advances by the same amount, and whether the
/// line proves the font monospaced: it has letters that differ in width in any proportional font
/// (`i` and `m`, say).
fn monospaced(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    members: &[usize],
    lp: &LineParams,
) -> (Option<f32>, bool) {
    let glyphs = || {
        members
            .iter()
            .flat_map(|&m| gs.get(frags[m].first..frags[m].end).unwrap_or(&[]))
    };
    // The spread first: most lines are set in proportional fonts and end here, unsorted.
    let (mut narrow, mut wide) = (false, false);
    let (mut lo, mut hi, mut count) = (f32::INFINITY, f32::NEG_INFINITY, 0usize);
    for g in glyphs() {
        let text = page
            .text
            .get(g.start as usize..(g.start + g.len) as usize)
            .unwrap_or("");
        let mut it = text.chars();
        let (Some(c), None) = (it.next(), it.next()) else {
            return (None, false);
        };
        narrow |= matches!(c, 'i' | 'l' | 'j' | 't' | 'f' | 'r' | '.' | ',' | ';' | ':');
        wide |= matches!(c, 'm' | 'w' | 'M' | 'W' | '@' | '%');
        let w = g.x1 - g.x;
        // As a sort by `total_cmp` puts them: NaN widths last (and as the widest).
        if w.total_cmp(&lo).is_lt() {
            lo = w;
        }
        if w.total_cmp(&hi).is_gt() {
            hi = w;
        }
        count += 1;
    }
    if count == 0 || !(lo > 0.0 && hi - lo <= lp.mono_spread * hi) {
        return (None, false);
    }
    let mut widths: Vec<f32> = glyphs().map(|g| g.x1 - g.x).collect();
    let mid = widths.len() / 2;
    let median = *widths.select_nth_unstable_by(mid, f32::total_cmp).1;
    (
        Some(median),
        widths.len() >= lp.min_mono_glyphs && narrow && wide,
    )
}

/// `s` with runs of whitespace as single spaces and no space at either end; `cells` (sorted by
/// offset) follow their characters, and those on whitespace are dropped.
fn normalize_spaces(s: &str, cells: &mut Vec<TextBox>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut kept = Vec::with_capacity(cells.len());
    let mut next = cells.iter().peekable();
    let mut gap = false;
    for (off, c) in s.char_indices() {
        let mut own = None;
        while let Some(cell) = next.next_if(|cell| cell.at as usize <= off) {
            if cell.at as usize == off {
                own = Some(*cell);
            }
        }
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push(' ');
        }
        gap = false;
        if let Some(cell) = own {
            kept.push(TextBox {
                at: out.len() as u32,
                ..cell
            });
        }
        out.push(c);
    }
    *cells = kept;
    out
}

/// Fragments (sorted top to bottom, then left to right) grouped by baseline: a fragment joins the
/// current line when its vertical extent overlaps that of the line's main (largest) fragment by
/// at least half of the smaller one. Sub- and superscripts pass this test; the next line, or a
/// drop cap's first line, does not. Each group: its baseline, its size, its fragments.
fn baseline_groups(
    frags: &[Frag],
    region: Vec<usize>,
    lp: &LineParams,
) -> Vec<(f32, f32, Vec<usize>)> {
    let extent = |y: f32, s: f32| (y - lp.descent * s, y + lp.ascent * s);
    let mut groups: Vec<(f32, f32, Vec<usize>)> = Vec::new();
    for i in region {
        let f = &frags[i];
        let joined = groups.last_mut().is_some_and(|(y, size, members)| {
            let (a0, a1) = extent(*y, *size);
            let (b0, b1) = extent(f.y, f.size);
            let overlap = a1.min(b1) - a0.max(b0);
            if overlap >= lp.min_overlap * size.min(f.size) {
                members.push(i);
                if f.size > *size + lp.larger_size {
                    *size = f.size;
                    *y = f.y;
                }
                true
            } else {
                false
            }
        });
        if !joined {
            groups.push((f.y, f.size, vec![i]));
        }
    }
    groups
}
