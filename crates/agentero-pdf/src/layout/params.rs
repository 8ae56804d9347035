//! Every threshold of the layout, in one documented place (as pdfminer's `LAParams`).
//!
//! Lengths are in ems (shares of the font size in play) unless a field says points (PDF user
//! space units) or a share of a width. A ratio `(n, d)` of counts reads "n in d". The defaults
//! are the values the engine was measured with on real papers (the application's `pdf_text`
//! and `cjk_text` tests compare the result with poppler's `pdftotext`); change one and measure
//! again on pages that were not tuned on.

mod regions;

pub use regions::{AsideParams, ColumnParams, LineNumberParams};

/// The thresholds of the layout: from glyphs to words, lines, paragraphs, columns and sidebars.
/// `LayoutParams::default()` is what [`extract`](crate::extract) and
/// [`open`](crate::open) use; the `*_with` entry points take others.
///
/// ```
/// let mut params = agentero_pdf::LayoutParams::default();
/// // Read a page set with unusually tight word spaces.
/// params.words.word_gap = 0.1;
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LayoutParams {
    pub words: WordParams,
    pub overstrike: OverstrikeParams,
    pub lines: LineParams,
    pub drop_caps: DropCapParams,
    pub accents: AccentParams,
    pub paragraphs: ParagraphParams,
    pub columns: ColumnParams,
    pub asides: AsideParams,
    pub line_numbers: LineNumberParams,
    pub slant: SlantParams,
    pub vertical: VerticalParams,
    pub title: TitleParams,
    pub stream: StreamParams,
    pub highlight: HighlightParams,
}

impl LayoutParams {
    /// The engine's thresholds, as measured.
    pub const DEFAULT: Self = Self {
        words: WordParams::DEFAULT,
        overstrike: OverstrikeParams::DEFAULT,
        lines: LineParams::DEFAULT,
        drop_caps: DropCapParams::DEFAULT,
        accents: AccentParams::DEFAULT,
        paragraphs: ParagraphParams::DEFAULT,
        columns: ColumnParams::DEFAULT,
        asides: AsideParams::DEFAULT,
        line_numbers: LineNumberParams::DEFAULT,
        slant: SlantParams::DEFAULT,
        vertical: VerticalParams::DEFAULT,
        title: TitleParams::DEFAULT,
        stream: StreamParams::DEFAULT,
        highlight: HighlightParams::DEFAULT,
    };
}

impl Default for LayoutParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Whether `count` is less than the ratio `(n, d)` of `total` (in whole numbers, exactly).
pub(crate) fn short_of(count: usize, total: usize, (n, d): (usize, usize)) -> bool {
    count * d < total * n
}

macro_rules! default_impl {
    ($($t:ident),*) => {$(
        impl Default for $t {
            fn default() -> Self {
                Self::DEFAULT
            }
        }
    )*};
}

default_impl!(
    WordParams,
    OverstrikeParams,
    LineParams,
    DropCapParams,
    AccentParams,
    ParagraphParams,
    ColumnParams,
    AsideParams,
    LineNumberParams,
    SlantParams,
    VerticalParams,
    TitleParams,
    StreamParams,
    HighlightParams
);

/// Glyphs into fragments (runs drawn in sequence on one baseline) and words.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct WordParams {
    /// A gap wider than this between two glyphs is a word break: TeX's tightest inter-word
    /// space is about 0.22 em while kerns stay below about 0.1 em.
    pub word_gap: f32,
    /// A gap wider than this ends a fragment: wider than any justified word space, so a run
    /// never reaches over a gutter or into the next table cell.
    pub fragment_gap: f32,
    /// After a run of digits, a gap wider than this ends the fragment: a margin line number or
    /// a list number set half an em from its text stays a fragment of its own, which the
    /// line-number and column tests can then see.
    pub number_gap: f32,
    /// Baselines closer than this are one baseline for a fragment: above the rounding of a
    /// PDF's positions, below the shift of a sub- or superscript (about a third of an em).
    pub same_baseline: f32,
    /// How far back (beyond its own advance) a glyph may start and still go on the fragment:
    /// kerns, overstrikes and accents step back a little, the next line starts a column back.
    pub step_back: f32,
    /// A font size at or below this (points) is no size at all (a glyph scaled to nothing by
    /// its text matrix) and reads as [`fallback_font_size`](Self::fallback_font_size), so that
    /// no em-relative test divides or multiplies by zero.
    pub min_font_size: f32,
    /// The size (points) a glyph without a usable size is measured with.
    pub fallback_font_size: f32,
}

impl WordParams {
    pub const DEFAULT: Self = Self {
        word_gap: 0.15,
        fragment_gap: 1.0,
        number_gap: 0.5,
        same_baseline: 0.2,
        step_back: 1.5,
        min_font_size: 0.1,
        fallback_font_size: 1.0,
    };

    /// The size a glyph is measured in: its own, or the fallback when it has none.
    pub(crate) fn size_of(&self, size: f32) -> f32 {
        if size > self.min_font_size {
            size
        } else {
            self.fallback_font_size
        }
    }
}

/// Overstruck text: fake bold and shadows draw a glyph or a string again a hair away.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct OverstrikeParams {
    /// How far apart two draws of one glyph may start, as a share of the glyph's advance (or
    /// of the font size, for a fragment) and still be one glyph: the next letter of a word is a
    /// whole advance away, fake bold moves a few hundredths of an em.
    pub same_place: f32,
    /// The advance (ems) a glyph drawn with none is measured by for `same_place`: a fifth of an
    /// em, about the narrowest letter's, so a zero-width glyph is not "at the same place" as
    /// every glyph that starts where it does.
    pub min_advance: f32,
    /// Two draws are on one baseline when closer than this: redraws keep the baseline or move
    /// it by the same hair as across.
    pub same_baseline: f32,
    /// Two draws are in one size when their sizes differ by at most this share: a redraw
    /// keeps the font, a superscript of the same letter does not.
    pub same_size: f32,
    /// How many finished fragments back a redrawn string is looked for: producers redraw a
    /// string right after it, or after the one or two other draws of the same effect.
    pub look_back: usize,
}

impl OverstrikeParams {
    pub const DEFAULT: Self = Self {
        same_place: 0.3,
        min_advance: 0.2,
        same_baseline: 0.1,
        same_size: 0.05,
        look_back: 4,
    };
}

/// Fragments into lines (baseline groups), and the spacing of code.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LineParams {
    /// How far a line reaches below its baseline when lines are grouped: a text face's
    /// descenders.
    pub descent: f32,
    /// How far a line reaches above its baseline when lines are grouped: a text face's
    /// ascenders, so that extents of lines set solid just touch.
    pub ascent: f32,
    /// A fragment joins a line when their extents overlap by at least this share of the
    /// smaller one: sub- and superscripts overlap their line by more, the next line (or a
    /// drop cap's first line) by less.
    pub min_overlap: f32,
    /// A fragment larger than the line's main one by more than this (points) becomes the main
    /// one, whose baseline is the line's: the rounding of equal sizes never moves a line.
    pub larger_size: f32,
    /// Glyph advances within this share of the widest are one width (a monospaced line): the
    /// rounding of a PDF's positions, not the difference of `i` and `m` in a proportional face.
    pub mono_spread: f32,
    /// A line proves its font monospaced only with at least this many glyphs: fewer could be
    /// equally wide by chance.
    pub min_mono_glyphs: usize,
    /// At most this many spaces stand for one gap in code (or one indent): a glyph misplaced
    /// far along its line does not write a page of spaces.
    pub max_code_spaces: usize,
}

impl LineParams {
    pub const DEFAULT: Self = Self {
        descent: 0.25,
        ascent: 0.75,
        min_overlap: 0.5,
        larger_size: 0.5,
        mono_spread: 0.03,
        min_mono_glyphs: 4,
        max_code_spaces: 200,
    };
}

/// Drop caps: one large capital set over several lines, joined to the rest of its word. Sizes
/// named "body ems" are the region's median size.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct DropCapParams {
    /// A region needs this many fragments to have a median size worth comparing with.
    pub min_fragments: usize,
    /// A drop cap is at least this many times the body size: two lines tall or more, while a
    /// heading's initial in a larger font is not.
    pub min_size: f32,
    /// A capital's top above its baseline, in its own size: the cap height of text faces
    /// (about 0.7) with a little room.
    pub cap_top: f32,
    /// The text beside a cap is set smaller than this share of the cap's size.
    pub max_text_size: f32,
    /// How far left of the cap's right edge (body ems) the text beside it may start: the
    /// cap's side bearing.
    pub back: f32,
    /// How far right of the cap (body ems) the text beside it may start: the space a cap
    /// leaves before its lines.
    pub reach: f32,
    /// How far below the cap's baseline (body ems) a line beside it may sit: the cap's
    /// baseline is on its last line, give or take rounding.
    pub below: f32,
    /// The top of a line of text above its baseline, in its size (a capital's height).
    pub text_top: f32,
    /// How far above the cap's top (body ems) the first line beside it may reach: the cap's
    /// top is aligned with that line's capitals, a little over or under.
    pub above: f32,
    /// The line the cap's word goes on sits at least this far (body ems) above the cap's
    /// baseline: otherwise the capital is on the line it starts (a large initial, not a drop).
    pub min_rise: f32,
    /// Lines beside a cap start at the paragraph's margin: their left edge may fall this far
    /// (points) left of the cap's right edge.
    pub edge_slack: f32,
}

impl DropCapParams {
    pub const DEFAULT: Self = Self {
        min_fragments: 3,
        min_size: 1.8,
        cap_top: 0.72,
        max_text_size: 0.7,
        back: 0.3,
        reach: 1.5,
        below: 0.3,
        text_top: 0.7,
        above: 0.5,
        min_rise: 0.5,
        edge_slack: 1.0,
    };
}

/// TeX's accents drawn as glyphs of their own.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct AccentParams {
    /// An accent and a letter overlapping by at least this share of the narrower one are one
    /// accented letter: TeX centres the accent over its letter, while neighbours only touch.
    pub min_overlap: f32,
    /// The narrower glyph's width (points) is at least this, so that a zero-width accent can
    /// still overlap its letter.
    pub min_width: f32,
}

impl AccentParams {
    pub const DEFAULT: Self = Self {
        min_overlap: 0.4,
        min_width: 0.1,
    };
}

/// Lines into paragraphs: breaks, first-line indents, code.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ParagraphParams {
    /// Two monospaced lines whose character widths differ by at most this share are in one
    /// font (one code listing): the rounding of positions.
    pub same_mono: f32,
    /// The typical line pitch of a block is the median of at least this many pitches: one
    /// pitch alone says nothing.
    pub min_pitches: usize,
    /// Two lines whose sizes differ by less than this share are in one size: a title's two
    /// lines are spaced by their own size's pitch.
    pub same_size: f32,
    /// A gap more than this many typical line pitches is a paragraph break: a blank line or a
    /// half-line skip stands out, a line raised by a formula or a superscript does not.
    pub gap_pitches: f32,
    /// ... and more than the typical pitch plus this (ems): at a tight pitch a share alone is
    /// within the rounding.
    pub gap_extra: f32,
    /// Without a typical pitch (fewer than three lines), a gap of more than this is a break:
    /// body text is set at 1.2 to 1.5 ems.
    pub gap_lone: f32,
    /// A line more than this above the line before it starts a paragraph: the text went back
    /// up (a new column of a table, a float).
    pub max_rise: f32,
    /// A line within this of the block's left edge is at its margin.
    pub margin: f32,
    /// A first line indented by more than this is a paragraph's first line: TeX's `\parindent`
    /// is 1 to 1.5 ems, a ragged or justified line starts at the margin.
    pub min_indent: f32,
    /// ... and by less than this: a line indented further is centred or displayed, not a
    /// paragraph's start.
    pub max_indent: f32,
}

impl ParagraphParams {
    pub const DEFAULT: Self = Self {
        same_mono: 0.03,
        min_pitches: 2,
        same_size: 0.1,
        gap_pitches: 1.45,
        gap_extra: 0.3,
        gap_lone: 1.8,
        max_rise: 0.5,
        margin: 0.3,
        min_indent: 0.8,
        max_indent: 5.0,
    };
}

/// Text set at a slant (a diagonal stamp, a seal of letters round a circle).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SlantParams {
    /// A baseline turned more than this many degrees from every quarter turn is slanted (read
    /// run by run after the upright text): rotated scans and hand-placed labels lean a few
    /// degrees and stay on their lines.
    pub skew_min: f32,
    /// How far (ems) the next glyph may start from where the last one ended and still go on
    /// its run: a letter-spaced seal, but not the next line of a stamp.
    pub run_gap: f32,
}

impl SlantParams {
    pub const DEFAULT: Self = Self {
        skew_min: 10.0,
        run_gap: 0.8,
    };
}

/// Vertical writing set with a horizontal font, glyph under glyph.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct VerticalParams {
    /// Stacked glyphs in a row before a page counts as set vertically: a few stacked glyphs
    /// are a table's column or a formula.
    pub min_stacked: usize,
    /// At least this ratio `(n, d)` of the page's upright glyphs are stacked.
    pub min_stacked_share: (usize, usize),
    /// At least this ratio `(n, d)` of the stacked glyphs are ideographs or kana: a column of
    /// digits or letters is a table or a formula.
    pub min_wide_share: (usize, usize),
    /// A glyph under another is in its column when their centres are within this (ems).
    pub same_column: f32,
    /// ... and it is at least this far down (ems)...
    pub min_drop: f32,
    /// ... and less than this: one glyph height, give or take the spacing.
    pub max_drop: f32,
    /// The next column starts at least this far (ems) left of the last glyph, and not this far
    /// below it.
    pub next_column: f32,
    /// The top of an upright ideograph above its baseline, in its size: the ideographic em box
    /// of CJK fonts runs from -0.12 to 0.88.
    pub glyph_top: f32,
}

impl VerticalParams {
    pub const DEFAULT: Self = Self {
        min_stacked: 40,
        min_stacked_share: (1, 2),
        min_wide_share: (1, 2),
        same_column: 0.2,
        min_drop: 0.5,
        max_drop: 2.2,
        next_column: 0.5,
        glyph_top: 0.88,
    };
}

/// The title hint: the text of page 1 set in its largest font.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct TitleParams {
    /// Lines whose sizes differ by less than this (points) count toward one size when the body
    /// size is found.
    pub same_size: f32,
    /// The title's size is at least this many times the body's: clearly larger, not a
    /// heading set a point up.
    pub min_ratio: f32,
    /// The title's lines are within this share of the largest size.
    pub run_same_size: f32,
    /// A title line has at least this many letters (not a large page number or a symbol).
    pub min_letters: usize,
}

impl TitleParams {
    pub const DEFAULT: Self = Self {
        same_size: 0.3,
        min_ratio: 1.2,
        run_same_size: 0.05,
        min_letters: 2,
    };
}

/// Blocks in content-stream order (`stream_blocks`): runs joined as they are drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct StreamParams {
    /// A run on the same line as the one before: baselines within this (ems of the larger)...
    pub same_line: f32,
    /// ... and overlapping it, or within this of it (ems), along the line: drawn out of order
    /// within a formula.
    pub overlap: f32,
    /// A run is the next line when it is at most this far down (ems)...
    pub max_drop: f32,
    /// ... or at most this far up (a superscript drawn after its line).
    pub max_rise: f32,
}

impl StreamParams {
    pub const DEFAULT: Self = Self {
        same_line: 0.2,
        overlap: 0.2,
        max_drop: 2.5,
        max_rise: 1.5,
    };
}

/// The boxes of characters (`TextBox::rect`) and the rectangles of a highlight (`merge_boxes`).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct HighlightParams {
    /// Share of the font size above the baseline a character's box covers: the ascenders of a
    /// typical text face.
    pub ascent: f32,
    /// Share of the font size below the baseline a character's box covers: its descenders.
    pub descent: f32,
    /// Boxes whose baselines are within this (ems) are on one line of a highlight.
    pub same_line: f32,
    /// A box may start this far (ems) left of the run so far and still join it (a kern, an
    /// accent).
    pub back: f32,
    /// A box may start up to this far (ems) right of the run's end and still join it: word
    /// spaces, not a gutter.
    pub gap: f32,
}

impl HighlightParams {
    pub const DEFAULT: Self = Self {
        ascent: 0.8,
        descent: 0.25,
        same_line: 0.3,
        back: 0.5,
        gap: 2.0,
    };
}
