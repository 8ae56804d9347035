//! From positioned glyphs to reading-order text: glyphs → fragments (runs in stream order) →
//! columns and full-width bands → lines → paragraphs, with words split at visible gaps and
//! line-end hyphenation undone.

use unicode_normalization::{UnicodeNormalization, is_nfc};

use super::content::{Dir, Glyph, PageGlyphs};

mod accents;
mod aside;
mod bidi;
mod columns;
mod linenumbers;
mod lines;
mod overstrike;
mod paragraphs;
mod params;
mod skew;
mod vertical;

use aside::regions;
use linenumbers::drop_line_numbers;
use lines::build_lines;
use overstrike::{drop_redrawn_fragment, redrawn_glyph};
use paragraphs::{ends_with_hyphenated_word, paragraphs, starts_lowercase};
use params::short_of;
pub use params::{
    AccentParams, AsideParams, ColumnParams, DropCapParams, HighlightParams, LayoutParams,
    LineNumberParams, LineParams, OverstrikeParams, ParagraphParams, SlantParams, StreamParams,
    TitleParams, VerticalParams, WordParams,
};

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

impl TextBox {
    /// The box in PDF user space: `[x0, y0, x1, y1]`, y growing upwards, with the default
    /// [`HighlightParams`].
    pub fn rect(&self) -> [f32; 4] {
        self.rect_with(&HighlightParams::DEFAULT)
    }

    /// [`rect`](Self::rect) with the box's height from `p`.
    pub fn rect_with(&self, p: &HighlightParams) -> [f32; 4] {
        let (y0, y1) = (
            self.y - p.descent * self.size,
            self.y + p.ascent * self.size,
        );
        // The inverse of `content::orient`; a slanted box's corners give its upright bounds.
        let corners = [(self.x0, y0), (self.x1, y1), (self.x0, y1), (self.x1, y0)]
            .map(|(x, y)| self.dir.page(x, y));
        let (mut r0, mut r1) = (corners[0], corners[0]);
        for (x, y) in corners {
            r0 = (r0.0.min(x), r0.1.min(y));
            r1 = (r1.0.max(x), r1.1.max(y));
        }
        [r0.0, r0.1, r1.0, r1.1]
    }
}

/// Rectangles covering `boxes` (in page-text order), one per run of characters on the same
/// line: consecutive boxes merge while they share a direction and a baseline and no wide gap
/// separates them.
pub fn merge_boxes(boxes: &[TextBox]) -> Vec<[f32; 4]> {
    merge_boxes_with(boxes, &HighlightParams::DEFAULT)
}

/// [`merge_boxes`] with the thresholds of `p`.
pub fn merge_boxes_with(boxes: &[TextBox], p: &HighlightParams) -> Vec<[f32; 4]> {
    let mut runs: Vec<TextBox> = Vec::new();
    for b in boxes {
        if let Some(r) = runs.last_mut() {
            let s = r.size.max(b.size);
            let same_line = r.dir == b.dir && (r.y - b.y).abs() < p.same_line * s;
            if same_line && b.x0 >= r.x0 - p.back * s && b.x0 <= r.x1 + p.gap * s {
                r.x1 = r.x1.max(b.x1);
                r.x0 = r.x0.min(b.x0);
                r.size = s;
                continue;
            }
        }
        runs.push(*b);
    }
    runs.iter().map(|r| r.rect_with(p)).collect()
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
pub fn page_text(page: &PageGlyphs, p: &LayoutParams) -> String {
    layout(page, false, p).0
}

/// The page's text (exactly [`page_text`]) and the box of each of its characters, in text
/// order.
pub fn page_layout(page: &PageGlyphs, p: &LayoutParams) -> (String, Vec<TextBox>) {
    layout(page, true, p)
}

fn layout(page: &PageGlyphs, geo: bool, p: &LayoutParams) -> (String, Vec<TextBox>) {
    // Columns stacked glyph by glyph in a horizontal font read as vertical writing.
    let restacked = vertical::restack(page, &p.vertical);
    let all: &[Glyph] = restacked.as_deref().unwrap_or(&page.glyphs);
    let mut dirs: Vec<Dir> = all.iter().map(|g| g.dir).collect();
    dirs.sort();
    dirs.dedup();
    let mut out = String::new();
    let mut cells = Vec::new();
    let slanted_marks = if dirs.iter().any(|d| matches!(d, Dir::Skew(_))) {
        skew::slanted(all, p)
    } else {
        Vec::new()
    };
    let is_slanted = |i: usize| slanted_marks.get(i).copied().unwrap_or(false);
    let slanted: Vec<&Glyph> = (0..all.len())
        .filter(|&i| is_slanted(i))
        .map(|i| &all[i])
        .collect();
    dirs.retain(|d| !matches!(d, Dir::Skew(_)));
    let pieces = dirs
        .into_iter()
        .map(|dir| {
            let glyphs: Vec<&Glyph> = (0..all.len())
                .filter(|&i| all[i].dir == dir && !is_slanted(i))
                .map(|i| &all[i])
                .collect();
            direction_text(page, &glyphs, geo, p)
        })
        .chain((!slanted.is_empty()).then(|| skew::slanted_text(page, &slanted, geo, p)));
    for (text, dir_cells) in pieces {
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
pub fn title_hint(page: &PageGlyphs, p: &LayoutParams) -> Option<String> {
    let t = &p.title;
    let glyphs: Vec<&Glyph> = page.glyphs.iter().filter(|g| g.dir == Dir::Up0).collect();
    let (gs, frags) = fragments(page, &glyphs, p);
    let lines = build_lines(page, &gs, &frags, (0..frags.len()).collect(), false, p);
    // Body size: the size carrying the most characters.
    let mut weights: Vec<(f32, usize)> = Vec::new();
    for l in &lines {
        let n = l.text.chars().filter(|c| c.is_alphanumeric()).count();
        match weights
            .iter_mut()
            .find(|(s, _)| (s - l.size).abs() < t.same_size)
        {
            Some(w) => w.1 += n,
            None => weights.push((l.size, n)),
        }
    }
    let body = weights.iter().max_by_key(|w| w.1)?.0;
    let is_wordy = |l: &Line| l.text.chars().filter(|c| c.is_alphabetic()).count() >= t.min_letters;
    let max = lines
        .iter()
        .filter(|l| is_wordy(l))
        .map(|l| l.size)
        .fold(0.0, f32::max);
    if max < t.min_ratio * body {
        return None;
    }
    let same = |l: &Line| (l.size - max).abs() <= t.run_same_size * max && is_wordy(l);
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

fn direction_text(
    page: &PageGlyphs,
    glyphs: &[&Glyph],
    geo: bool,
    p: &LayoutParams,
) -> (String, Vec<TextBox>) {
    let (gs, mut frags) = fragments(page, glyphs, p);
    drop_line_numbers(page, &gs, &mut frags, &p.line_numbers);
    if frags.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut blocks: Vec<Vec<Line>> = Vec::new();
    for region in regions(page, &gs, &frags, p) {
        let lines = build_lines(page, &gs, &frags, region, geo, p);
        if !lines.is_empty() {
            blocks.push(lines);
        }
    }
    let mut out = String::new();
    let mut cells = Vec::new();
    for lines in blocks {
        let (text, block_cells) = paragraphs(lines, &p.paragraphs, p.lines.max_code_spaces);
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
pub fn stream_blocks(page: &PageGlyphs, p: &LayoutParams) -> Vec<String> {
    let sp = &p.stream;
    let glyphs: Vec<&Glyph> = page.glyphs.iter().collect();
    let (gs, mut frags) = fragments(page, &glyphs, p);
    drop_line_numbers(page, &gs, &mut frags, &p.line_numbers);
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
            (f.y - p.y).abs() < sp.same_line * s
                && f.x0 <= p.x1 + sp.overlap * s
                && f.x1 >= p.x0 - sp.overlap * s
        });
        let next_line = prev.is_some_and(|p| {
            let dy = p.y - f.y;
            dy.abs() >= sp.same_line * s
                && dy < sp.max_drop * s
                && dy > -sp.max_rise * s
                && f.x0 < p.x1 + s
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
fn fragments(page: &PageGlyphs, glyphs: &[&Glyph], p: &LayoutParams) -> (Vec<G>, Vec<Frag>) {
    let wp = &p.words;
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
        let size = wp.size_of(g.size);
        let w = g.w.max(0.0);
        let text = page
            .text
            .get(g.start as usize..(g.start + g.len) as usize)
            .unwrap_or("");
        let continues = frags.last().is_some_and(|f| {
            let s = f.size.max(size);
            let gap = if digits_only && !text.bytes().all(|b| b.is_ascii_digit()) {
                wp.number_gap
            } else {
                wp.fragment_gap
            };
            (g.y - f.y).abs() < wp.same_baseline * s
                && g.x < f.x1 + gap * s
                && g.x > f.x1 - wp.step_back * s - w
        });
        let is_digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
        digits_only = is_digits && (digits_only || !continues);
        let candidate = G {
            x: g.x,
            x1: g.x + w,
            y: g.y,
            size,
            dir: g.dir,
            start: g.start,
            len: g.len,
            space_before: pending_space && continues,
        };
        // Within a fragment the last glyph pushed is the fragment's own.
        if continues
            && gs
                .last()
                .is_some_and(|prev| redrawn_glyph(page, prev, &candidate, &p.overstrike))
        {
            continue;
        }
        if !continues {
            drop_redrawn_fragment(page, &mut gs, &mut frags, &p.overstrike);
            frags.push(Frag {
                first: gs.len(),
                end: gs.len(),
                x0: g.x,
                x1: g.x + w,
                y: g.y,
                size,
            });
        }
        gs.push(candidate);
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
    drop_redrawn_fragment(page, &mut gs, &mut frags, &p.overstrike);
    (gs, frags)
}

/// The left and right edges of the fragments `frags` (infinite when there are none).
fn x_span<'a>(frags: impl IntoIterator<Item = &'a Frag>) -> (f32, f32) {
    frags
        .into_iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(x0, x1), f| {
            (x0.min(f.x0), x1.max(f.x1))
        })
}

fn frag_text<'p>(page: &'p PageGlyphs, gs: &[G], f: &Frag) -> Option<&'p str> {
    let first = gs.get(f.first)?;
    let last = gs.get(f.end.checked_sub(1)?)?;
    page.text
        .get(first.start as usize..(last.start + last.len) as usize)
}

#[cfg(test)]
mod tests {
    use super::accents::{compose, compose_into};
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
