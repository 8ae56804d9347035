//! From positioned glyphs to reading-order text: glyphs → fragments (runs in stream order) →
//! columns and full-width bands → lines → paragraphs, with words split at visible gaps and
//! line-end hyphenation undone.

use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::content::{Dir, Glyph, PageGlyphs};

/// Gap between glyphs, relative to the font size, above which a word break is assumed. TeX's
/// tightest inter-word space is about 0.22 em while kerns stay below about 0.1 em.
const WORD_GAP: f32 = 0.15;
/// Gap (relative to font size) that ends a fragment: wider than any justified word space.
const FRAGMENT_GAP: f32 = 1.0;

#[derive(Debug, Clone, Copy)]
struct G {
    x: f32,
    x1: f32,
    y: f32,
    size: f32,
    dir: Dir,
    start: u32,
    len: u32,
    space_before: bool,
}

#[derive(Debug, Clone)]
struct Frag {
    first: usize,
    end: usize,
    x0: f32,
    x1: f32,
    y: f32,
    size: f32,
}

#[derive(Debug)]
struct Line {
    x0: f32,
    y: f32,
    size: f32,
    text: String,
    /// Character width when every glyph of the line advances by the same amount.
    mono: Option<f32>,
    /// The line proves its font monospaced: letters of different widths elsewhere advance alike.
    mono_proven: bool,
    /// Where each character of `text` sits (only when geometry was asked for), `at` being the
    /// offset in `text`.
    cells: Vec<TextBox>,
}

/// A character of the page text and its box on the page: what a highlight over a quote is
/// drawn from. While the text is built, `at` is the offset in the piece being built (a line,
/// a block) and moves with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextBox {
    /// Byte offset of the character in the page text.
    pub at: u32,
    /// Extent along the baseline, baseline and font size, in the writing direction's frame.
    x0: f32,
    x1: f32,
    y: f32,
    size: f32,
    dir: Dir,
}

/// Share of the font size above and below the baseline a highlight covers (ascenders and
/// descenders of a typical text face).
const ASCENT: f32 = 0.8;
const DESCENT: f32 = 0.25;

impl TextBox {
    /// The box in PDF user space: `[x0, y0, x1, y1]`, y growing upwards.
    pub fn rect(&self) -> [f32; 4] {
        let (y0, y1) = (self.y - DESCENT * self.size, self.y + ASCENT * self.size);
        // The inverse of `content::orient`.
        let corners = [(self.x0, y0), (self.x1, y1)].map(|(x, y)| match self.dir {
            Dir::Up0 => (x, y),
            Dir::Up180 => (-x, -y),
            Dir::Up90 => (-y, x),
            Dir::Up270 => (y, -x),
        });
        let (a, b) = (corners[0], corners[1]);
        [a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1)]
    }
}

/// Rectangles covering `boxes` (in page-text order), one per run of characters on the same
/// line: consecutive boxes merge while they share a direction and a baseline and no wide gap
/// separates them.
pub fn merge_boxes(boxes: &[TextBox]) -> Vec<[f32; 4]> {
    let mut runs: Vec<TextBox> = Vec::new();
    for b in boxes {
        if let Some(r) = runs.last_mut() {
            let s = r.size.max(b.size);
            let same_line = r.dir == b.dir && (r.y - b.y).abs() < 0.3 * s;
            if same_line && b.x0 >= r.x0 - 0.5 * s && b.x0 <= r.x1 + 2.0 * s {
                r.x1 = r.x1.max(b.x1);
                r.x0 = r.x0.min(b.x0);
                r.size = s;
                continue;
            }
        }
        runs.push(*b);
    }
    runs.iter().map(TextBox::rect).collect()
}

/// Appends `cells` to `into`, their offsets moved by `base` bytes.
fn shift_into(into: &mut Vec<TextBox>, cells: Vec<TextBox>, base: usize) {
    into.extend(cells.into_iter().map(|c| TextBox {
        at: c.at + base as u32,
        ..c
    }));
}

/// One cell per character of `shown` (a glyph's text, placed at byte `at` of the line), the
/// glyph's advance shared evenly (a ligature's letters split it).
fn glyph_cells(cells: &mut Vec<TextBox>, at: usize, shown: &str, g: &G) {
    let n = shown.chars().count().max(1) as f32;
    let step = (g.x1 - g.x) / n;
    for (i, (off, _)) in shown.char_indices().enumerate() {
        let x0 = g.x + step * i as f32;
        cells.push(TextBox {
            at: (at + off) as u32,
            x0,
            x1: x0 + step,
            y: g.y,
            size: g.size,
            dir: g.dir,
        });
    }
}

/// The page's text: upright text first, then text in each other direction.
pub fn page_text(page: &PageGlyphs) -> String {
    layout(page, false).0
}

/// The page's text (exactly [`page_text`]) and the box of each of its characters, in text
/// order.
pub fn page_layout(page: &PageGlyphs) -> (String, Vec<TextBox>) {
    layout(page, true)
}

fn layout(page: &PageGlyphs, geo: bool) -> (String, Vec<TextBox>) {
    let mut dirs: Vec<Dir> = page.glyphs.iter().map(|g| g.dir).collect();
    dirs.sort();
    dirs.dedup();
    let mut out = String::new();
    let mut cells = Vec::new();
    for dir in dirs {
        let glyphs: Vec<&Glyph> = page.glyphs.iter().filter(|g| g.dir == dir).collect();
        let (text, dir_cells) = direction_text(page, &glyphs, geo);
        if !text.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            shift_into(&mut cells, dir_cells, out.len());
            out.push_str(&text);
        }
    }
    let text = compose_marks(out, &mut cells);
    (text, cells)
}

/// Letters followed by combining marks, composed (NFC) where Unicode has a precomposed letter.
/// Only those clusters: NFC of the whole text would also rewrite CJK compatibility ideographs
/// and conjoining Hangul jamo, which are meant as printed. `cells` follow their characters (a
/// composed cluster's onto its start).
fn compose_marks(text: String, cells: &mut [TextBox]) -> String {
    let is_mark = |c: char| {
        matches!(c as u32, 0x300..=0x36F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF
            | 0xFE20..=0xFE2F)
    };
    if !text.chars().any(is_mark) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut cluster = String::new();
    // Each cluster: its offset before and after, and whether it was copied as it was.
    let mut moves: Vec<(usize, usize, bool)> = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if !is_mark(c) && !cluster.is_empty() {
            let verbatim = is_nfc(&cluster);
            moves.push((start, out.len(), verbatim));
            if verbatim {
                out.push_str(&cluster);
            } else {
                out.extend(cluster.nfc());
            }
            cluster.clear();
            start = i;
        }
        cluster.push(c);
    }
    moves.push((start, out.len(), is_nfc(&cluster)));
    out.extend(cluster.nfc());
    let mut k = 0;
    for cell in cells.iter_mut() {
        let at = cell.at as usize;
        while k + 1 < moves.len() && moves[k + 1].0 <= at {
            k += 1;
        }
        let (old, new, verbatim) = moves[k];
        cell.at = if verbatim { new + (at - old) } else { new } as u32;
    }
    out
}

/// The run of consecutive upright lines set in the page's largest font, when that font is
/// clearly larger than the body text (a title), joined with spaces.
pub fn title_hint(page: &PageGlyphs) -> Option<String> {
    let glyphs: Vec<&Glyph> = page.glyphs.iter().filter(|g| g.dir == Dir::Up0).collect();
    let (gs, frags) = fragments(page, &glyphs);
    let lines = build_lines(page, &gs, &frags, (0..frags.len()).collect(), false);
    // Body size: the size carrying the most characters.
    let mut weights: Vec<(f32, usize)> = Vec::new();
    for l in &lines {
        let n = l.text.chars().filter(|c| c.is_alphanumeric()).count();
        match weights.iter_mut().find(|(s, _)| (s - l.size).abs() < 0.3) {
            Some(w) => w.1 += n,
            None => weights.push((l.size, n)),
        }
    }
    let body = weights.iter().max_by_key(|w| w.1)?.0;
    let is_wordy = |l: &Line| l.text.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    let max = lines
        .iter()
        .filter(|l| is_wordy(l))
        .map(|l| l.size)
        .fold(0.0, f32::max);
    if max < 1.2 * body {
        return None;
    }
    let same = |l: &Line| (l.size - max).abs() <= 0.05 * max && is_wordy(l);
    let first = lines.iter().position(same)?;
    let run: Vec<&str> = lines[first..]
        .iter()
        .take_while(|l| same(l))
        .map(|l| l.text.as_str())
        .collect();
    let mut out = String::new();
    for part in run {
        if ends_with_hyphenated_word(&out) && starts_lowercase(part) {
            out.pop();
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    (!out.is_empty()).then_some(out)
}

fn direction_text(page: &PageGlyphs, glyphs: &[&Glyph], geo: bool) -> (String, Vec<TextBox>) {
    let (gs, mut frags) = fragments(page, glyphs);
    drop_line_numbers(page, &gs, &mut frags);
    if frags.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut blocks: Vec<Vec<Line>> = Vec::new();
    for region in regions(page, &gs, &frags) {
        let lines = build_lines(page, &gs, &frags, region, geo);
        if !lines.is_empty() {
            blocks.push(lines);
        }
    }
    let mut out = String::new();
    let mut cells = Vec::new();
    for lines in blocks {
        let (text, block_cells) = paragraphs(lines);
        if text.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        shift_into(&mut cells, block_cells, out.len());
        out.push_str(&text);
    }
    (out, cells)
}

/// The page's glyph runs in content-stream order (margin line numbers dropped), grouped into
/// blocks: a run joins the block before it when it overlaps the run before it on the same
/// baseline (drawn out of order within a formula), or is set a little above or below without
/// jumping right (a sub- or superscript, the next line). A run further along the same
/// baseline is at least a word gap wider than any word space away (a column, a sidebar, a
/// table cell) and starts a block. Nothing is sorted by position, so text the PDF draws apart
/// is never interleaved: a second witness of what the page says, independent of the layout
/// decisions of [`page_text`].
pub fn stream_blocks(page: &PageGlyphs) -> Vec<String> {
    let glyphs: Vec<&Glyph> = page.glyphs.iter().collect();
    let (gs, mut frags) = fragments(page, &glyphs);
    drop_line_numbers(page, &gs, &mut frags);
    let mut blocks: Vec<String> = Vec::new();
    let mut prev: Option<&Frag> = None;
    for f in &frags {
        let Some(t) = frag_text(page, &gs, f)
            .map(str::trim)
            .filter(|t| !t.is_empty())
        else {
            continue;
        };
        let s = f.size.max(prev.map_or(0.0, |p| p.size));
        let same_line = prev.is_some_and(|p| {
            (f.y - p.y).abs() < 0.2 * s && f.x0 <= p.x1 + 0.2 * s && f.x1 >= p.x0 - 0.2 * s
        });
        let next_line = prev.is_some_and(|p| {
            let dy = p.y - f.y;
            dy.abs() >= 0.2 * s && dy < 2.5 * s && dy > -1.5 * s && f.x0 < p.x1 + s
        });
        match blocks.last_mut() {
            Some(b) if same_line => {
                b.push(' ');
                b.push_str(t);
            }
            Some(b) if next_line => {
                b.push('\n');
                b.push_str(t);
            }
            _ => blocks.push(t.to_string()),
        }
        prev = Some(f);
    }
    blocks
}

/// Runs of glyphs in content order that sit on one baseline with no wide gap.
fn fragments(page: &PageGlyphs, glyphs: &[&Glyph]) -> (Vec<G>, Vec<Frag>) {
    let mut gs: Vec<G> = Vec::with_capacity(glyphs.len());
    let mut frags: Vec<Frag> = Vec::new();
    let mut pending_space = false;
    // Whether the current fragment is a number so far: one set apart from the text after it
    // by more than half an em (a margin line number, a list number) is a fragment of its own.
    let mut digits_only = false;
    for g in glyphs {
        if !(g.x.is_finite() && g.y.is_finite() && g.size.is_finite() && g.w.is_finite()) {
            continue;
        }
        if g.space {
            pending_space = true;
            continue;
        }
        let size = if g.size > 0.1 { g.size } else { 1.0 };
        let w = g.w.max(0.0);
        let text = page
            .text
            .get(g.start as usize..(g.start + g.len) as usize)
            .unwrap_or("");
        let continues = frags.last().is_some_and(|f| {
            let s = f.size.max(size);
            let gap = if digits_only && !text.bytes().all(|b| b.is_ascii_digit()) {
                0.5
            } else {
                FRAGMENT_GAP
            };
            (g.y - f.y).abs() < 0.2 * s && g.x < f.x1 + gap * s && g.x > f.x1 - 1.5 * s - w
        });
        let is_digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        digits_only = is_digits && (digits_only || !continues);
        if !continues {
            frags.push(Frag {
                first: gs.len(),
                end: gs.len(),
                x0: g.x,
                x1: g.x + w,
                y: g.y,
                size,
            });
            pending_space = false;
        }
        gs.push(G {
            x: g.x,
            x1: g.x + w,
            y: g.y,
            size,
            dir: g.dir,
            start: g.start,
            len: g.len,
            space_before: pending_space,
        });
        pending_space = false;
        if let Some(f) = frags.last_mut() {
            f.end = gs.len();
            f.x0 = f.x0.min(g.x);
            f.x1 = f.x1.max(g.x + w);
            if size > f.size {
                f.size = size;
                f.y = g.y;
            }
        }
    }
    (gs, frags)
}

fn frag_text<'p>(page: &'p PageGlyphs, gs: &[G], f: &Frag) -> Option<&'p str> {
    let first = gs.get(f.first)?;
    let last = gs.get(f.end.checked_sub(1)?)?;
    page.text
        .get(first.start as usize..(last.start + last.len) as usize)
}

/// Removes margin line numbers (the `lineno` package, review copies): a column of plain numbers
/// of up to four digits, aligned on one edge, counting up down the page by one step (every line,
/// or every fifth), in a strip of the page no other text reaches. Page numbers of a table of
/// contents repeat and jump, and stay.
fn drop_line_numbers(page: &PageGlyphs, gs: &[G], frags: &mut Vec<Frag>) {
    let number = |f: &Frag| -> Option<u32> {
        let t = frag_text(page, gs, f)?;
        (!t.is_empty() && t.len() <= 4 && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let candidates: Vec<(usize, u32)> = frags
        .iter()
        .enumerate()
        .filter_map(|(i, f)| number(f).map(|n| (i, n)))
        .collect();
    if candidates.len() < 5 {
        return;
    }
    let mut drop = vec![false; frags.len()];
    // Right-aligned numbers share their right edge, left-aligned ones their left edge.
    for edge in [|f: &Frag| f.x1, |f: &Frag| f.x0] {
        let mut order = candidates.clone();
        order.sort_by(|a, b| edge(&frags[a.0]).total_cmp(&edge(&frags[b.0])));
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len()
                && edge(&frags[order[end].0]) - edge(&frags[order[end - 1].0]) < 1.5
            {
                end += 1;
            }
            let mut column: Vec<(usize, u32)> = order[start..end].to_vec();
            start = end;
            if column.len() < 5 {
                continue;
            }
            column.sort_by(|a, b| frags[b.0].y.total_cmp(&frags[a.0].y));
            let steps: Vec<i64> = column
                .windows(2)
                .map(|w| i64::from(w[1].1) - i64::from(w[0].1))
                .collect();
            let Some(step) = [1, 2, 5, 10]
                .into_iter()
                .max_by_key(|s| steps.iter().filter(|d| **d == *s).count())
            else {
                continue;
            };
            if steps.iter().filter(|d| **d == step).count() * 5 < steps.len() * 4 {
                continue;
            }
            // Numbers count lines: the distance down the page per count is (mostly) the line
            // pitch. Section numbers of a contents list are spaced by their subsections.
            let mut pitches: Vec<f32> = column
                .windows(2)
                .filter(|w| w[1].1 > w[0].1)
                .map(|w| (frags[w[0].0].y - frags[w[1].0].y) / (w[1].1 - w[0].1) as f32)
                .collect();
            pitches.sort_by(f32::total_cmp);
            let Some(&pitch) = pitches.get(pitches.len() / 2) else {
                continue;
            };
            let regular = pitches
                .iter()
                .filter(|p| (**p - pitch).abs() <= 0.2 * pitch)
                .count();
            if pitch <= 0.0 || regular * 2 < pitches.len() {
                continue;
            }
            // A strip of its own: (almost) no other text on the page overlaps the column.
            let members: Vec<usize> = column.iter().map(|c| c.0).collect();
            let cx0 = members
                .iter()
                .map(|&i| frags[i].x0)
                .fold(f32::INFINITY, f32::min);
            let cx1 = members
                .iter()
                .map(|&i| frags[i].x1)
                .fold(f32::NEG_INFINITY, f32::max);
            let overlapping = frags
                .iter()
                .enumerate()
                .filter(|(i, f)| !members.contains(i) && f.x0 < cx1 - 0.5 && f.x1 > cx0 + 0.5)
                .count();
            if overlapping * 10 > members.len() {
                continue;
            }
            // Numbers on the right: the justified lines before them end at one margin. A table
            // of contents has ragged entries or dot leaders before its page numbers.
            let left_side = frags.iter().filter(|f| f.x0 > cx1).count()
                > frags.iter().filter(|f| f.x1 < cx0).count();
            let mut edges: Vec<f32> = Vec::new();
            let mut leaders = 0;
            for &n in &members {
                let num = &frags[n];
                let level = frags.iter().enumerate().filter(|(i, f)| {
                    !members.contains(i) && (f.y - num.y).abs() < 0.3 * f.size.max(num.size)
                });
                let near = if left_side {
                    level
                        .filter(|(_, f)| f.x0 >= num.x1)
                        .min_by(|a, b| a.1.x0.total_cmp(&b.1.x0))
                } else {
                    level
                        .filter(|(_, f)| f.x1 <= num.x0)
                        .max_by(|a, b| a.1.x1.total_cmp(&b.1.x1))
                };
                if let Some((_, f)) = near {
                    edges.push(if left_side { f.x0 } else { f.x1 });
                    if frag_text(page, gs, f)
                        .is_some_and(|t| t.trim_end().ends_with("..") || t.ends_with(". ."))
                    {
                        leaders += 1;
                    }
                }
            }
            if !left_side {
                if edges.len() < 3 || leaders * 2 > edges.len() {
                    continue;
                }
                edges.sort_by(f32::total_cmp);
                let median = edges[edges.len() / 2];
                let aligned = edges.iter().filter(|e| (**e - median).abs() <= 2.0).count();
                if aligned * 10 < edges.len() * 7 {
                    continue;
                }
            }
            for i in members {
                drop[i] = true;
            }
        }
    }
    let mut k = 0;
    frags.retain(|_| {
        k += 1;
        !drop[k - 1]
    });
}

/// Splits the fragments into reading-order regions: on a two-column page, full-width bands and
/// between them the left column followed by the right one; otherwise the whole page. Sidebars
/// and margin notes are regions of their own, after the region of the text they sit beside.
fn regions(page: &PageGlyphs, gs: &[G], frags: &[Frag]) -> Vec<Vec<usize>> {
    let mut asides: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let mut main: Vec<usize> = (0..frags.len()).collect();
    for left in [true, false] {
        let sub: Vec<Frag> = main.iter().map(|&i| frags[i].clone()).collect();
        if let Some((aside, beside)) = find_aside(page, gs, &sub, left) {
            let aside: Vec<usize> = aside.into_iter().map(|k| main[k]).collect();
            let beside: Vec<usize> = beside.into_iter().map(|k| main[k]).collect();
            main.retain(|i| !aside.contains(i));
            asides.push((aside, beside));
        }
    }
    let sub: Vec<Frag> = main.iter().map(|&i| frags[i].clone()).collect();
    let mut out: Vec<Vec<usize>> = body_regions(&sub)
        .into_iter()
        .map(|r| r.into_iter().map(|k| main[k]).collect())
        .collect();
    for (aside, beside) in asides {
        let at = out
            .iter()
            .rposition(|r| r.iter().any(|i| beside.contains(i)))
            .map_or(out.len(), |k| k + 1);
        out.insert(at, aside);
    }
    out
}

/// A sidebar or margin notes on one side of the page (`left` or right): text on that side of a
/// vertical cut with a clear strip between it and everything level with it, where the text beside
/// is prose in lines more than twice as wide and holds more of the page. Returns (aside, beside).
fn find_aside(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    left: bool,
) -> Option<(Vec<usize>, Vec<usize>)> {
    if frags.len() < 6 {
        return None;
    }
    let x0 = frags.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
    let x1 = frags.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    let width = x1 - x0;
    if !(width.is_finite() && width > 100.0 && width < 20_000.0) {
        return None;
    }
    let mut sizes: Vec<f32> = frags.iter().map(|f| f.size).collect();
    sizes.sort_by(f32::total_cmp);
    let em = sizes[sizes.len() / 2].max(1.0);
    let mut cuts: Vec<f32> = frags
        .iter()
        .map(|f| if left { f.x1 } else { f.x0 })
        .filter(|&c| {
            if left {
                c - x0 <= 0.4 * width
            } else {
                x1 - c <= 0.4 * width
            }
        })
        .map(|c| c.round())
        .collect();
    cuts.sort_by(f32::total_cmp);
    cuts.dedup();
    if !left {
        cuts.reverse();
    }
    let glyphs = |set: &[usize]| {
        set.iter()
            .map(|&i| frags[i].end - frags[i].first)
            .sum::<usize>()
    };
    // Mean width of the lines a set of fragments makes (fragments on one baseline together).
    let mean_width = |set: &[usize]| {
        let mut order = set.to_vec();
        order.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
        let mut lines: Vec<(f32, f32, f32)> = Vec::new();
        for i in order {
            let f = &frags[i];
            match lines.last_mut() {
                Some(l) if (l.0 - f.y).abs() < 0.3 * em => {
                    l.1 = l.1.min(f.x0);
                    l.2 = l.2.max(f.x1);
                }
                _ => lines.push((f.y, f.x0, f.x1)),
            }
        }
        lines.iter().map(|l| l.2 - l.1).sum::<f32>() / lines.len().max(1) as f32
    };
    // The aside grows with the cut: fragments join it in order of their inner edge.
    let edge = |f: &Frag| if left { f.x1 } else { -f.x0 };
    let mut order: Vec<usize> = (0..frags.len()).collect();
    order.sort_by(|&a, &b| edge(&frags[a]).total_cmp(&edge(&frags[b])));
    let mut by_y: Vec<usize> = (0..frags.len()).collect();
    by_y.sort_by(|&a, &b| frags[a].y.total_cmp(&frags[b].y));
    let mut in_aside = vec![false; frags.len()];
    let mut taken = 0;
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    let (mut aside_glyphs, mut aside_letters) = (0usize, 0usize);
    let mut best = None;
    for g in cuts.into_iter().take(400) {
        let limit = if left { g + 0.5 } else { -(g - 0.5) };
        while taken < order.len() && edge(&frags[order[taken]]) <= limit {
            let i = order[taken];
            in_aside[i] = true;
            lo = lo.min(frags[i].y - 0.5 * em);
            hi = hi.max(frags[i].y + frags[i].size);
            aside_glyphs += frags[i].end - frags[i].first;
            // Words, not a column of numbers (contents page numbers, equation numbers).
            aside_letters += frag_text(page, gs, &frags[i])
                .map_or(0, |t| t.chars().filter(|c| c.is_alphabetic()).count());
            taken += 1;
        }
        if taken < 2 || aside_letters * 2 < aside_glyphs {
            continue;
        }
        // A clear strip between the aside and everything level with it.
        let mut beside = Vec::new();
        let mut crowded = false;
        let from = by_y.partition_point(|&i| frags[i].y < lo);
        for &i in by_y[from..].iter().take_while(|&&i| frags[i].y <= hi) {
            let f = &frags[i];
            if in_aside[i] {
                continue;
            }
            if (left && f.x0 < g + em) || (!left && f.x1 > g - em) {
                crowded = true;
                break;
            }
            beside.push(i);
        }
        if crowded || beside.is_empty() || aside_glyphs >= glyphs(&beside) {
            continue;
        }
        let aside: Vec<usize> = order[..taken].to_vec();
        let beside_width = mean_width(&beside);
        if beside_width < 2.0 * mean_width(&aside) || beside_width < 0.35 * width {
            continue;
        }
        best = Some((aside, beside));
    }
    best
}

/// Reading-order regions of the body: columns and bands, or the whole page.
fn body_regions(frags: &[Frag]) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..frags.len()).collect();
    if let Some(gutter) = find_gutter(frags) {
        return column_regions(frags, all, gutter);
    }
    // A full-width block on top (title, centred authors, abstract) can hide the gutter of the
    // columns below it: read that block in place and the rest column by column.
    if let Some(split) = split_header(frags) {
        let mut out = vec![split.block];
        out.extend(column_regions(frags, split.columns, split.gutter));
        return out;
    }
    vec![all]
}

/// A page cut into a full-width block on top and two columns below it.
struct HeaderSplit {
    /// Fragments above the cut, read in place.
    block: Vec<usize>,
    /// Fragments below the cut, read column by column.
    columns: Vec<usize>,
    gutter: (f32, f32),
}

/// The topmost horizontal cut below which the page has a gutter over (almost) the page's full
/// text width, lowered to the end of the block above the columns.
fn split_header(frags: &[Frag]) -> Option<HeaderSplit> {
    let x0 = frags.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
    let x1 = frags.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    let width = x1 - x0;
    if !(width.is_finite() && width > 50.0) {
        return None;
    }
    let mut order: Vec<usize> = (0..frags.len()).collect();
    order.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
    // Both columns need several lines, so the cut leaves at least eight fragments below it.
    for k in 1..order.len().saturating_sub(8) {
        let (above, below) = (&frags[order[k - 1]], &frags[order[k]]);
        // Only between lines: never between a line and its sub- or superscripts.
        if above.y - below.y < 0.6 * above.size.max(below.size) {
            continue;
        }
        let lower: Vec<Frag> = order[k..].iter().map(|&i| frags[i].clone()).collect();
        let l0 = lower.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
        let l1 = lower.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
        if l1 - l0 < 0.8 * width {
            continue;
        }
        let Some((g0, g1)) = find_gutter(&lower) else {
            continue;
        };
        // Below the cut most text sits in the two columns: not a single column beside a margin
        // of notes or labels.
        let mut amount = [0usize; 3];
        for f in &lower {
            let n = f.end - f.first;
            if f.x1 <= g0 + 1.0 {
                amount[0] += n;
            } else if f.x0 >= g1 - 1.0 {
                amount[1] += n;
            } else if f.x0 < g0 - 1.0 && f.x1 > g1 + 1.0 {
                amount[2] += n;
            }
        }
        let total: usize = lower.iter().map(|f| f.end - f.first).sum();
        if 4 * amount[0] < total || 4 * amount[1] < total || 100 * amount[2] > 15 * total {
            continue;
        }
        // The block ends at its last line straddling the gutter above the columns' first full
        // line; headings between the two belong to their columns.
        let mid = (g0 + g1) / 2.0;
        let (left_w, right_w) = (g0 - l0, l1 - g1);
        let body_top = lower
            .iter()
            .filter(|f| {
                let w = f.x1 - f.x0;
                (f.x1 <= g0 + 1.0 && w >= 0.85 * left_w)
                    || (f.x0 >= g1 - 1.0 && w >= 0.85 * right_w)
            })
            .map(|f| f.y)
            .fold(f32::NEG_INFINITY, f32::max);
        let mut cut = k;
        for (j, &i) in order.iter().enumerate().skip(k) {
            let f = &frags[i];
            if f.y <= body_top {
                break;
            }
            if side(f, mid) == 0 || (f.x0 < g0 && f.x1 > g1) {
                cut = j + 1;
            }
        }
        // Never between a line and its sub- or superscripts.
        while cut > k
            && cut < order.len()
            && frags[order[cut - 1]].y - frags[order[cut]].y
                < 0.6 * frags[order[cut - 1]].size.max(frags[order[cut]].size)
        {
            cut += 1;
        }
        return Some(HeaderSplit {
            block: order[..cut].to_vec(),
            columns: order[cut..].to_vec(),
            gutter: (g0, g1),
        });
    }
    None
}

/// Side of a fragment relative to the gutter's middle: -1 left, 1 right, 0 spanning it.
fn side(f: &Frag, mid: f32) -> i8 {
    if f.x1 <= mid {
        return -1;
    }
    if f.x0 >= mid {
        return 1;
    }
    let left = mid - f.x0;
    let right = f.x1 - mid;
    let width = (f.x1 - f.x0).max(1e-3);
    // A column line that pokes into the gutter still belongs to its column.
    if right < 0.15 * width {
        -1
    } else if left < 0.15 * width {
        1
    } else {
        0
    }
}

/// Reading-order regions of the fragments `all` around the gutter `(g0, g1)`: full-width bands
/// and between them the left column followed by the right one.
fn column_regions(frags: &[Frag], all: Vec<usize>, (g0, g1): (f32, f32)) -> Vec<Vec<usize>> {
    let mid = (g0 + g1) / 2.0;
    let side = |f: &Frag| side(f, mid);
    let mut spanning: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| side(&frags[i]) == 0)
        .collect();
    spanning.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
    // Band boundaries: baselines of spanning fragments, top to bottom.
    let mut bands: Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> =
        vec![(Vec::new(), Vec::new(), Vec::new())];
    let mut cuts: Vec<f32> = Vec::new();
    for &s in &spanning {
        let y = frags[s].y;
        let tol = 0.5 * frags[s].size;
        match cuts.last() {
            Some(&last) if (last - y).abs() <= tol.max(1.0) => {}
            _ => {
                cuts.push(y);
                bands.push((Vec::new(), Vec::new(), Vec::new()));
            }
        }
        if let Some(b) = bands.last_mut() {
            b.0.push(s);
        }
    }
    // Band k (k ≥ 1) starts with the k-th cut; column text goes to the band above which it sits.
    for i in all {
        let f = &frags[i];
        let sd = side(f);
        if sd == 0 {
            continue;
        }
        let k = cuts.iter().take_while(|&&c| c > f.y + 0.3 * f.size).count();
        if let Some(b) = bands.get_mut(k) {
            if sd < 0 { b.1.push(i) } else { b.2.push(i) }
        }
    }
    let mut out = Vec::new();
    for (span, left, right) in bands {
        for r in [span, left, right] {
            if !r.is_empty() {
                out.push(r);
            }
        }
    }
    out
}

/// A vertical strip near the middle of the text that (almost) no fragment crosses while both
/// sides carry several lines of text.
fn find_gutter(frags: &[Frag]) -> Option<(f32, f32)> {
    let x0 = frags.iter().map(|f| f.x0).fold(f32::INFINITY, f32::min);
    let x1 = frags.iter().map(|f| f.x1).fold(f32::NEG_INFINITY, f32::max);
    let width = x1 - x0;
    if !(width.is_finite() && width > 50.0 && width < 20_000.0) {
        return None;
    }
    let mut sizes: Vec<f32> = frags.iter().map(|f| f.size).collect();
    sizes.sort_by(f32::total_cmp);
    let median_size = sizes[sizes.len() / 2].max(1.0);

    let bins = (width.ceil() as usize).clamp(1, 4000);
    let scale = bins as f32 / width;
    // Lines wider than a column (title, abstract) cross any gutter; they do not count here.
    // Coverage is summed from per-bin differences, so its cost does not grow with line width.
    let mut diff = vec![0f64; bins + 2];
    for f in frags.iter().filter(|f| f.x1 - f.x0 < 0.55 * width) {
        let a = (((f.x0 - x0) * scale).floor().max(0.0) as usize).min(bins);
        let b = (((f.x1 - x0) * scale).ceil().max(0.0) as usize).min(bins);
        if a < b {
            diff[a] += f64::from(f.size);
            diff[b] -= f64::from(f.size);
        }
    }
    let mut run = 0f64;
    let cov: Vec<f32> = diff[..=bins]
        .iter()
        .map(|d| {
            run += d;
            run as f32
        })
        .collect();
    let lo = (bins as f32 * 0.3) as usize;
    let hi = (bins as f32 * 0.7) as usize;
    if hi <= lo {
        return None;
    }
    let min_cov = cov[lo..hi].iter().copied().fold(f32::INFINITY, f32::min);
    let left_max = cov[..lo].iter().copied().fold(0.0, f32::max);
    let right_max = cov[hi..].iter().copied().fold(0.0, f32::max);

    // The strip must be emptier than the text beside it; centred title blocks may still cross
    // it, which the zone test below allows as long as they sit outside the columns.
    if left_max.max(right_max) < 4.0 * median_size || min_cov >= 0.8 * left_max.max(right_max) {
        return None;
    }
    // The widest run of low coverage in the middle part.
    let limit = min_cov + 0.05 * left_max.min(right_max);
    let mut best: Option<(usize, usize)> = None;
    let mut i = lo;
    while i < hi {
        if cov[i] <= limit {
            let start = i;
            while i < hi && cov[i] <= limit {
                i += 1;
            }
            if best.is_none_or(|(s, e)| i - start > e - s) {
                best = Some((start, i));
            }
        } else {
            i += 1;
        }
    }
    let (s, e) = best?;
    let g0 = x0 + s as f32 / scale;
    let g1 = x0 + e as f32 / scale;
    if g1 - g0 < (0.6 * median_size).max(4.0) {
        return None;
    }
    // Text on each side must extend over a real column, not a few labels.
    let left_w: f32 = frags
        .iter()
        .filter(|f| f.x1 <= g0 + 1.0)
        .map(|f| f.x1 - f.x0)
        .fold(0.0, f32::max);
    let right_w: f32 = frags
        .iter()
        .filter(|f| f.x0 >= g1 - 1.0)
        .map(|f| f.x1 - f.x0)
        .fold(0.0, f32::max);
    if left_w < 0.2 * width || right_w < 0.2 * width {
        return None;
    }
    // Where both columns have text, lines crossing the gutter must be rare: otherwise this is a
    // single-column page with an accidental vertical gap (a table, a list of short items).
    let y_span = |keep: &dyn Fn(&Frag) -> bool| {
        frags
            .iter()
            .filter(|f| keep(f))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), f| {
                (lo.min(f.y), hi.max(f.y))
            })
    };
    let is_left = |f: &Frag| f.x1 <= g0 + 1.0;
    let is_right = |f: &Frag| f.x0 >= g1 - 1.0;
    let (l_lo, l_hi) = y_span(&is_left);
    let (r_lo, r_hi) = y_span(&is_right);
    let (z_lo, z_hi) = (l_lo.max(r_lo), l_hi.min(r_hi));
    if z_hi <= z_lo {
        return None;
    }
    let lines_on = |keep: &dyn Fn(&Frag) -> bool| {
        frags
            .iter()
            .filter(|f| keep(f))
            .map(|f| f.size)
            .sum::<f32>()
    };
    if lines_on(&is_left) < 4.0 * median_size || lines_on(&is_right) < 4.0 * median_size {
        return None;
    }
    let zone: Vec<&Frag> = frags
        .iter()
        .filter(|f| f.y >= z_lo && f.y <= z_hi)
        .collect();
    let crossing = zone
        .iter()
        .filter(|f| f.x0 < g0 - 1.0 && f.x1 > g1 + 1.0)
        .count();
    let sides = zone.iter().filter(|f| is_left(f) || is_right(f)).count();
    if crossing > 2 && crossing * 10 > sides {
        return None;
    }
    Some((g0, g1))
}

/// Drop caps: a single capital set at least twice the body size whose baseline is on a lower
/// line of its paragraph, with text starting just right of it at its top. Returns (cap fragment,
/// fragment of the line its word continues on).
fn drop_caps(page: &PageGlyphs, gs: &[G], frags: &[Frag], region: &[usize]) -> Vec<(usize, usize)> {
    let mut sizes: Vec<f32> = region.iter().map(|&i| frags[i].size).collect();
    if sizes.len() < 3 {
        return Vec::new();
    }
    sizes.sort_by(f32::total_cmp);
    let body = sizes[sizes.len() / 2];
    let mut out = Vec::new();
    for &i in region {
        let cap = &frags[i];
        if cap.end - cap.first != 1 || cap.size < 1.8 * body {
            continue;
        }
        let mut letters = frag_text(page, gs, cap).unwrap_or("").chars();
        if !matches!((letters.next(), letters.next()), (Some(c), None) if c.is_uppercase()) {
            continue;
        }
        // The cap's top is about 0.7 of its size above its baseline.
        let top = cap.y + 0.72 * cap.size;
        let target = region
            .iter()
            .copied()
            .filter(|&j| {
                let f = &frags[j];
                j != i
                    && f.size < 0.7 * cap.size
                    && f.x0 >= cap.x1 - 0.3 * body
                    && f.x0 <= cap.x1 + 1.5 * body
                    && f.y >= cap.y - 0.3 * body
                    && f.y + 0.7 * f.size <= top + 0.5 * body
            })
            .max_by(|&a, &b| {
                frags[a]
                    .y
                    .total_cmp(&frags[b].y)
                    .then(frags[b].x0.total_cmp(&frags[a].x0))
            });
        if let Some(j) = target
            && frags[j].y > cap.y + 0.5 * body
        {
            out.push((i, j));
        }
    }
    out
}

fn build_lines(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    mut region: Vec<usize>,
    geo: bool,
) -> Vec<Line> {
    let caps = drop_caps(page, gs, frags, &region);
    region.retain(|i| !caps.iter().any(|c| c.0 == *i));
    region.sort_by(|&a, &b| {
        frags[b]
            .y
            .total_cmp(&frags[a].y)
            .then(frags[a].x0.total_cmp(&frags[b].x0))
    });
    // Group by baseline: a fragment joins the current line when its vertical extent overlaps
    // that of the line's main (largest) fragment by at least half of the smaller one. Sub- and
    // superscripts pass this test; the next line, or a drop cap's first line, does not.
    let extent = |y: f32, s: f32| (y - 0.25 * s, y + 0.75 * s);
    let mut groups: Vec<(f32, f32, Vec<usize>)> = Vec::new();
    for i in region {
        let f = &frags[i];
        let joined = groups.last_mut().is_some_and(|(y, size, members)| {
            let (a0, a1) = extent(*y, *size);
            let (b0, b1) = extent(f.y, f.size);
            let overlap = a1.min(b1) - a0.max(b0);
            if overlap >= 0.5 * size.min(f.size) {
                members.push(i);
                if f.size > *size + 0.5 {
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
    let mut lines = Vec::with_capacity(groups.len());
    for (y, size, mut members) in groups {
        members.sort_by(|&a, &b| frags[a].x0.total_cmp(&frags[b].x0));
        let accents = place_accents(page, gs, frags, &mut members);
        let (mono, mono_proven) = monospaced(page, gs, frags, &members);
        let mut text = String::new();
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
            for g in gs.get(f.first..f.end).unwrap_or(&[]) {
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
                if let Some(p) = prev {
                    let gap = g.x - p.x1;
                    let s = p.size.max(g.size);
                    if let Some(cw) = mono.filter(|_| mono_proven) {
                        // Code keeps its spacing: one space per character width of gap.
                        let n = (gap / cw).round().max(0.0) as usize;
                        let n = if g.space_before || gap > WORD_GAP * s {
                            n.max(1)
                        } else {
                            n
                        };
                        text.extend(std::iter::repeat_n(' ', n.min(200)));
                        if geo {
                            glyph_cells(&mut cells, text.len(), t, g);
                        }
                        text.push_str(t);
                        prev = Some(*g);
                        continue;
                    }
                    if accent_overlap(&p, g, t, &text) {
                        compose_into(&mut text, t);
                        if let Some(c) = cells.last_mut() {
                            c.x1 = c.x1.max(g.x1);
                        }
                        prev = Some(G {
                            x1: p.x1.max(g.x1),
                            ..*g
                        });
                        continue;
                    }
                    let wants_space = g.space_before || gap > WORD_GAP * s;
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
        // Lines set beside a drop cap start at the paragraph's margin, not indented.
        for &(cap, _) in &caps {
            let c = &frags[cap];
            if y >= c.y - 0.3 * size && y <= c.y + 0.72 * c.size && x0 >= c.x1 - 1.0 {
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

/// TeX sets an accent as a glyph of its own over its letter, raised over capitals, so it can be a
/// fragment of its own that sorts after the fragment holding its letter. Such accents are taken
/// out of `members` and returned with the text offset of the letter each one goes on.
fn place_accents(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    members: &mut Vec<usize>,
) -> Vec<(u32, char)> {
    let mut placed: Vec<(u32, char)> = Vec::new();
    if members.len() < 2 {
        return placed;
    }
    let all = members.clone();
    members.retain(|&m| {
        let f = &frags[m];
        if f.end - f.first != 1 {
            return true;
        }
        let mut chars = frag_text(page, gs, f).unwrap_or("").chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return true;
        };
        let Some(accent) = spacing_accent(c).filter(|_| !('\u{300}'..='\u{36F}').contains(&c))
        else {
            return true;
        };
        let a = &gs[f.first];
        let center = (a.x + a.x1) / 2.0;
        for &o in all.iter().filter(|&&o| o != m) {
            for g in gs.get(frags[o].first..frags[o].end).unwrap_or(&[]) {
                if center < g.x || center > g.x1 || placed.iter().any(|p| p.0 == g.start) {
                    continue;
                }
                let text = page
                    .text
                    .get(g.start as usize..(g.start + g.len) as usize)
                    .unwrap_or("");
                let mut it = text.chars();
                if let (Some(base), None) = (it.next(), it.next())
                    && compose(accent, base).is_some()
                {
                    placed.push((g.start, accent));
                    return false;
                }
            }
        }
        true
    });
    placed
}

/// The character width when every glyph of the line advances by the same amount, and whether the
/// line proves the font monospaced: it has letters that differ in width in any proportional font
/// (`i` and `m`, say).
fn monospaced(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    members: &[usize],
) -> (Option<f32>, bool) {
    let mut widths: Vec<f32> = Vec::new();
    let (mut narrow, mut wide) = (false, false);
    for &m in members {
        for g in gs.get(frags[m].first..frags[m].end).unwrap_or(&[]) {
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
            widths.push(g.x1 - g.x);
        }
    }
    if widths.is_empty() {
        return (None, false);
    }
    widths.sort_by(f32::total_cmp);
    let (lo, hi) = (widths[0], widths[widths.len() - 1]);
    if !(lo > 0.0 && hi - lo <= 0.03 * hi) {
        return (None, false);
    }
    (
        Some(widths[widths.len() / 2]),
        widths.len() >= 4 && narrow && wide,
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

/// Lines of one region joined into paragraphs (blank line between them), with hyphenated
/// line ends rejoined; the lines' cells follow, at offsets in the joined text.
fn paragraphs(mut lines: Vec<Line>) -> (String, Vec<TextBox>) {
    if lines.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut deltas: Vec<f32> = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|d| *d > 0.0 && d.is_finite())
        .collect();
    deltas.sort_by(f32::total_cmp);
    // Line pitch inside paragraphs is the common case; one delta alone says nothing.
    let typical = (deltas.len() >= 2).then(|| deltas[(deltas.len() - 1) / 2]);
    let left = lines.iter().map(|l| l.x0).fold(f32::INFINITY, f32::min);
    let mut sizes: Vec<f32> = lines.iter().map(|l| l.size).filter(|s| *s > 0.0).collect();
    sizes.sort_by(f32::total_cmp);
    let body_size = sizes.get(sizes.len() / 2).copied().unwrap_or(0.0);

    // Code: consecutive lines in one monospaced font keep their indentation, measured in
    // characters from the block's leftmost line, and their line breaks.
    let same_mono = |a: &Line, b: &Line| match (a.mono, b.mono) {
        (Some(x), Some(y)) => (x - y).abs() <= 0.03 * x.max(y),
        _ => false,
    };
    let mut code = vec![false; lines.len()];
    let mut indents = vec![0usize; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        while i + 1 < lines.len() && same_mono(&lines[i], &lines[i + 1]) {
            i += 1;
        }
        if i == start || !lines[start..=i].iter().any(|l| l.mono_proven) {
            i += 1;
            continue;
        }
        code[start..=i].fill(true);
        let base = lines[start..=i]
            .iter()
            .map(|l| l.x0)
            .fold(f32::INFINITY, f32::min);
        for k in start..=i {
            let cw = lines[k].mono.unwrap_or(1.0);
            indents[k] = ((lines[k].x0 - base) / cw).round().clamp(0.0, 200.0) as usize;
        }
        i += 1;
    }

    // Paragraph breaks first, so hyphenation never joins across them.
    let mut breaks = vec![false; lines.len()];
    for i in 1..lines.len() {
        let (p, l) = (&lines[i - 1], &lines[i]);
        let delta = p.y - l.y;
        let size = p.size.max(l.size);
        // Lines set larger than the body (a two-line title) are spaced wider in proportion.
        let same_size = (p.size - l.size).abs() < 0.1 * size;
        let scale = if same_size && body_size > 0.0 {
            (size / body_size).max(1.0)
        } else {
            1.0
        };
        let gap_break = match typical.map(|t| t * scale) {
            Some(t) => delta > 1.45 * t && delta > t + 0.3 * size,
            None => delta > 1.8 * size,
        } || delta < -0.5 * size;
        // A first-line indent, not a hanging indent: the line after it is back at the margin.
        let indent = l.x0 - left;
        let back_at_margin = lines.get(i + 1).is_none_or(|n| n.x0 - left < 0.3 * n.size);
        let indent_break = indent > 0.8 * l.size
            && indent < 5.0 * l.size
            && (p.x0 - left) < 0.3 * l.size
            && back_at_margin;
        breaks[i] = gap_break || (indent_break && !(code[i] && code[i - 1]));
    }

    for i in 0..lines.len().saturating_sub(1) {
        if breaks[i + 1] {
            continue;
        }
        if !code[i]
            && !code[i + 1]
            && ends_with_hyphenated_word(&lines[i].text)
            && starts_lowercase(&lines[i + 1].text)
        {
            let next = std::mem::take(&mut lines[i + 1].text);
            let (word, rest) = match next.split_once(' ') {
                Some((w, r)) => (w.to_string(), r.to_string()),
                None => (next.clone(), String::new()),
            };
            // The first word moves up (the hyphen goes), and its cells with it.
            let moved = next.len() - rest.len();
            let next_cells = std::mem::take(&mut lines[i + 1].cells);
            let cur = &mut lines[i];
            cur.text.pop();
            let base = cur.text.len();
            cur.cells.retain(|c| (c.at as usize) < base);
            cur.text.push_str(&word);
            let (up, stay): (Vec<TextBox>, Vec<TextBox>) = next_cells
                .into_iter()
                .partition(|c| (c.at as usize) < word.len());
            shift_into(&mut cur.cells, up, base);
            lines[i + 1].cells = stay
                .into_iter()
                .filter(|c| c.at as usize >= moved)
                .map(|c| TextBox {
                    at: c.at - moved as u32,
                    ..c
                })
                .collect();
            lines[i + 1].text = rest;
        }
    }

    let mut out = String::new();
    let mut cells = Vec::new();
    let mut pending_break = false;
    for (i, l) in lines.into_iter().enumerate() {
        if breaks[i] {
            pending_break = true;
        }
        if l.text.is_empty() {
            continue;
        }
        if !out.is_empty() {
            if pending_break {
                out.push_str("\n\n");
            } else if code[i] || !(ends_in_cjk_word(&out) && starts_cjk_word(&l.text)) {
                out.push('\n');
            }
        }
        pending_break = false;
        out.extend(std::iter::repeat_n(' ', indents[i]));
        shift_into(&mut cells, l.cells, out.len());
        out.push_str(&l.text);
    }
    (out, cells)
}

/// Han characters, kana and the CJK punctuation and full-width forms set among them: Chinese and
/// Japanese break lines anywhere, so a line break between two of them is no word break at all.
/// (Korean puts spaces between words, and breaks lines at them.)
fn is_cjk_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF | 0xFF01..=0xFF60 | 0xFF61..=0xFF9F | 0x20000..=0x2FA1F)
        && c != '\u{3000}'
}

fn ends_in_cjk_word(s: &str) -> bool {
    s.chars().next_back().is_some_and(is_cjk_unspaced)
}

fn starts_cjk_word(s: &str) -> bool {
    s.chars().next().is_some_and(is_cjk_unspaced)
}

fn ends_with_hyphenated_word(s: &str) -> bool {
    let mut it = s.chars().rev();
    matches!(it.next(), Some('-' | '\u{2010}')) && it.next().is_some_and(char::is_alphabetic)
}

fn starts_lowercase(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_lowercase)
}

/// Spacing accents TeX draws as separate glyphs over (or before) their letter.
fn spacing_accent(c: char) -> Option<char> {
    Some(match c {
        '´' | '\u{301}' | '\u{2CA}' => '´',
        '`' | '\u{300}' | '\u{2CB}' => '`',
        '¨' | '\u{308}' => '¨',
        'ˆ' | '^' | '\u{302}' => 'ˆ',
        '˜' | '~' | '\u{303}' => '˜',
        '¯' | '\u{304}' | '\u{2C9}' => '¯',
        '˘' | '\u{306}' => '˘',
        '˙' | '\u{307}' => '˙',
        '˚' | '\u{30A}' => '˚',
        '˝' | '\u{30B}' => '˝',
        'ˇ' | '\u{30C}' => 'ˇ',
        '¸' | '\u{327}' => '¸',
        '˛' | '\u{328}' => '˛',
        _ => return None,
    })
}

/// The combining mark of a spacing accent.
fn combining(accent: char) -> Option<char> {
    Some(match accent {
        '´' => '\u{301}',
        '`' => '\u{300}',
        '¨' => '\u{308}',
        'ˆ' => '\u{302}',
        '˜' => '\u{303}',
        '¯' => '\u{304}',
        '˘' => '\u{306}',
        '˙' => '\u{307}',
        '˚' => '\u{30A}',
        '˝' => '\u{30B}',
        'ˇ' => '\u{30C}',
        '¸' => '\u{327}',
        '˛' => '\u{328}',
        _ => return None,
    })
}

/// A letter with an accent, composed (NFC): one precomposed character where Unicode has one
/// ("ñ"), the letter and a combining mark where it has none ("P̄"). TeX's dotless i and j take
/// the accent as i and j.
fn compose(accent: char, base: char) -> Option<String> {
    let base = match base {
        'ı' => 'i',
        'ȷ' => 'j',
        c if c.is_alphabetic() => c,
        _ => return None,
    };
    let pair = [base, combining(accent)?];
    Some(pair.iter().copied().nfc().collect())
}

/// Whether glyph `g` (text `t`) overlaps the previous glyph so that one is an accent on the
/// other and `text`'s last character can be combined with `t`.
fn accent_overlap(p: &G, g: &G, t: &str, text: &str) -> bool {
    let Some(last) = text.chars().last() else {
        return false;
    };
    let mut tc = t.chars();
    let (Some(cur), None) = (tc.next(), tc.next()) else {
        return false;
    };
    // Combining marks always attach to what precedes them.
    if ('\u{300}'..='\u{36F}').contains(&cur) {
        return spacing_accent(cur).and_then(|a| compose(a, last)).is_some();
    }
    let overlap = p.x1.min(g.x1) - p.x.max(g.x);
    let narrow = (p.x1 - p.x).min(g.x1 - g.x).max(0.1);
    if overlap < 0.4 * narrow {
        return false;
    }
    match (spacing_accent(last), spacing_accent(cur)) {
        (Some(a), None) => compose(a, cur).is_some(),
        (None, Some(a)) => compose(a, last).is_some(),
        _ => false,
    }
}

fn compose_into(text: &mut String, t: &str) {
    let Some(last) = text.pop() else { return };
    let Some(cur) = t.chars().next() else {
        text.push(last);
        return;
    };
    let composed = match (spacing_accent(last), spacing_accent(cur)) {
        (Some(a), None) => compose(a, cur),
        (_, Some(a)) => compose(a, last),
        _ => None,
    };
    match composed {
        Some(c) => text.push_str(&c),
        None => {
            text.push(last);
            text.push_str(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyphen_rules() {
        assert!(ends_with_hyphenated_word("a hyphen-"));
        assert!(!ends_with_hyphenated_word("a - "));
        assert!(!ends_with_hyphenated_word("1-"));
        assert!(starts_lowercase("ated text"));
        assert!(!starts_lowercase("Ated"));
    }

    #[test]
    fn accents_compose() {
        assert_eq!(compose('´', 'e').as_deref(), Some("é"));
        assert_eq!(compose('¨', 'o').as_deref(), Some("ö"));
        assert_eq!(compose('ˇ', 'c').as_deref(), Some("č"));
        assert_eq!(compose('´', 'ı').as_deref(), Some("í"));
        assert_eq!(compose('¯', 'P').as_deref(), Some("P\u{304}"));
        assert_eq!(compose('´', '1'), None);
        let mut s = String::from("Schr¨");
        compose_into(&mut s, "o");
        assert_eq!(s, "Schrö");
    }
}
