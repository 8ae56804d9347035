//! The thresholds of the page's regions: columns and their gutter, sidebars and margin notes,
//! margin line numbers (see [`LayoutParams`](super::LayoutParams)).

/// Columns, their gutter, and the full-width bands above and between them. "Median ems" are the
/// median size of the fragments in play; widths are shares of the text's width.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct ColumnParams {
    /// Text narrower than this (points) is never split into columns: a label, not a page.
    pub min_width: f32,
    /// Text wider than this (points) is not searched for a gutter: coordinates gone wild, and
    /// a bound on the coverage bins.
    pub max_width: f32,
    /// The coverage of the text width is counted in at most this many bins (one per point up
    /// to it).
    pub max_bins: usize,
    /// The smallest median size (points) the gutter tests measure in.
    pub min_em: f32,
    /// A fragment wider than this share of the text crosses any gutter (a title, an abstract)
    /// and is not counted in the coverage.
    pub wide_line: f32,
    /// The gutter is looked for between this share of the text width...
    pub middle_from: f32,
    /// ... and this one: a gutter is near the middle, not a margin.
    pub middle_to: f32,
    /// The text beside a gutter covers at least this many median ems (about as many lines of
    /// text) on each side: a few labels make no column.
    pub min_lines: f32,
    /// The gutter's lowest coverage is under this share of the highest beside it: a strip
    /// emptier than the text, which centred title lines may still cross.
    pub max_gutter_cover: f32,
    /// The gutter is the widest run of bins covered at most this share (of the lower side's
    /// highest coverage) above the lowest.
    pub gutter_slack: f32,
    /// A gutter is at least this many median ems wide...
    pub min_gutter: f32,
    /// ... and at least this many points.
    pub min_gutter_points: f32,
    /// A column's widest line is at least this share of the text width: a real column, not a
    /// few labels.
    pub min_column_width: f32,
    /// At most this many lines may cross the gutter where both columns have text...
    pub max_crossing: usize,
    /// ... or at most this ratio `(n, d)` of the lines at the sides: more, and the gap is an
    /// accident of a single-column page (a table, a list of short items).
    pub max_crossing_ratio: (usize, usize),
    /// An edge within this (points) of the gutter is on its side of it: the rounding of
    /// positions.
    pub slack: f32,
    /// A line that pokes into the gutter's middle by less than this share of its width still
    /// belongs to its column.
    pub poke: f32,
    /// A fragment is measured at least this wide (points) for `poke`, so that one of no width
    /// (a lone accent, a zero-advance glyph) still has a side.
    pub min_fragment_width: f32,
    /// The header cut (a full-width block over two columns) leaves at least this many
    /// fragments below it: both columns need several lines.
    pub min_fragments_below: usize,
    /// Baselines this far apart or more are two lines (ems of the larger): never a cut
    /// between a line and its sub- or superscripts.
    pub line_step: f32,
    /// The text below a header cut spans at least this share of the text's width.
    pub full_width: f32,
    /// Below the cut each column holds at least this ratio `(n, d)` of the glyphs: not a
    /// single column beside a margin of notes or labels.
    pub min_column_share: (usize, usize),
    /// Below the cut at most this ratio `(n, d)` of the glyphs straddles the gutter.
    pub max_straddle: (usize, usize),
    /// A column's full line is at least this share of the column's width: the columns' first
    /// full line is where the block above them ends.
    pub full_line: f32,
    /// A paragraph's tail (the last line of a full-width abstract) sits at least this far
    /// below the line above it (ems of its size)...
    pub tail_min_drop: f32,
    /// ... and less than this far (ems of the larger): the next line, not the next paragraph.
    pub tail_max_drop: f32,
    /// A tail is set in the size of the line above it, give or take this share.
    pub tail_same_size: f32,
    /// Nothing on the other side of the gutter is within this of a tail's baseline (ems of the
    /// larger): a tail has the width to itself.
    pub tail_alone: f32,
    /// The rest of a tail's line (after a logo's lowered letter, a font change) is within
    /// this of its baseline (ems of the larger).
    pub tail_level: f32,
    /// Tails chain down at most this many lines.
    pub max_tail_lines: usize,
    /// Spanning fragments whose baselines are within this (ems) make one band cut...
    pub band_same_line: f32,
    /// ... or within this many points, at a small size.
    pub band_min_same_line: f32,
    /// A column fragment runs on from a spanning line when its baseline is within this of the
    /// line's (the lowered E of a LaTeX logo)...
    pub run_on_rise: f32,
    /// ... it starts no further left than this of where the line ends ...
    pub run_on_back: f32,
    /// ... and no further right than this.
    pub run_on_reach: f32,
    /// Column text goes to the band whose cut is above its baseline by more than this (ems of
    /// its size): a line level with a cut is of the band above.
    pub band_rise: f32,
    /// Consecutive full-width lines are one paragraph when their sizes differ by less than
    /// this share (centred title, author and affiliation lines stay blocks of their own).
    pub span_same_size: f32,
}

impl ColumnParams {
    pub const DEFAULT: Self = Self {
        min_width: 50.0,
        max_width: 20_000.0,
        max_bins: 4000,
        min_em: 1.0,
        wide_line: 0.55,
        middle_from: 0.3,
        middle_to: 0.7,
        min_lines: 4.0,
        max_gutter_cover: 0.8,
        gutter_slack: 0.05,
        min_gutter: 0.6,
        min_gutter_points: 4.0,
        min_column_width: 0.2,
        max_crossing: 2,
        max_crossing_ratio: (1, 10),
        slack: 1.0,
        poke: 0.15,
        min_fragment_width: 1e-3,
        min_fragments_below: 8,
        line_step: 0.6,
        full_width: 0.8,
        min_column_share: (1, 4),
        max_straddle: (15, 100),
        full_line: 0.85,
        tail_min_drop: 0.5,
        tail_max_drop: 1.6,
        tail_same_size: 0.15,
        tail_alone: 0.5,
        tail_level: 0.6,
        max_tail_lines: 64,
        band_same_line: 0.5,
        band_min_same_line: 1.0,
        run_on_rise: 0.3,
        run_on_back: 0.2,
        run_on_reach: 1.5,
        band_rise: 0.3,
        span_same_size: 0.1,
    };
}

/// Sidebars and margin notes beside the text (an Elsevier "Article history / Keywords" column).
/// "Ems" are the median size of the page's fragments; widths are shares of the text's width.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct AsideParams {
    /// A page needs this many fragments to have a sidebar and text beside it.
    pub min_fragments: usize,
    /// Text narrower than this (points) has no sidebar: too narrow for two things side by side.
    pub min_width: f32,
    /// Text wider than this (points) is not searched: coordinates gone wild.
    pub max_width: f32,
    /// The smallest median size (points) the tests measure in.
    pub min_em: f32,
    /// A margin note's inner edge is within this share of the width from its side of the page.
    pub reach: f32,
    /// A banded sidebar's inner edge is within this share of the width from its side.
    pub banded_reach: f32,
    /// At most this many candidate cuts are tried per side: a bound on the work on a page of
    /// thousands of fragments.
    pub max_cuts: usize,
    /// An edge within this (points) of a cut is on the aside's side of it (cuts are rounded
    /// to whole points).
    pub cut_slack: f32,
    /// The height a margin note covers reaches this far below its lowest baseline (ems): its
    /// descenders and the next line's rounding.
    pub below: f32,
    /// A margin note is at least this many fragments.
    pub min_aside_fragments: usize,
    /// At least this ratio `(n, d)` of an aside's glyphs are letters: words, not a column of
    /// numbers (a contents list's page numbers, equation numbers).
    pub min_letters: (usize, usize),
    /// A sidebar on baselines of its own keeps step with the text beside in fewer than this
    /// ratio `(n, d)` of its lines (the cells of a table keep step with their row).
    pub max_in_step: (usize, usize),
    /// At least this ratio `(n, d)` of a banded sidebar's lines lie level with the text beside.
    pub min_level: (usize, usize),
    /// The text beside an aside is in lines more than this many times as wide as the aside's.
    pub width_ratio: f32,
    /// ... and at least this share of the text's width: prose, not another narrow column.
    pub min_beside_width: f32,
    /// Fragments whose baselines are within this (ems) are one line of a set.
    pub same_line: f32,
    /// The region beside an aside runs on below it from this far (in its lowest line's size)
    /// under that line: its sub- and superscripts stay with it.
    pub split_below: f32,
    /// A banded sidebar and the text beside it have at least this many lines each.
    pub min_lines: usize,
    /// The text beside a banded sidebar starts within this share of the width from the page's
    /// side: left of the middle (not the right column of a two-column page).
    pub max_beside_start: f32,
    /// A sidebar in a size of its own differs from the text beside by at least this share.
    pub own_size: f32,
    /// A sidebar line within this (ems) of a line beside is level with it (keeps step, as a
    /// table's cells do).
    pub level: f32,
    /// A sidebar in the body's own font is told by a clear strip at least this wide (ems)
    /// between it and the prose beside.
    pub min_strip: f32,
    /// Most sidebar lines lie within this (ems) above the top or below the bottom of the text
    /// beside.
    pub level_reach: f32,
    /// A gap of more than this (ems of the larger) down the aside's side splits it into runs:
    /// the body's "1. Introduction" far under the sidebar is no part of it.
    pub run_gap: f32,
    /// A line at a run's top or bottom set apart by more than this many median line pitches is
    /// a heading above or below the sidebar, not part of it.
    pub set_apart: f32,
}

impl AsideParams {
    pub const DEFAULT: Self = Self {
        min_fragments: 6,
        min_width: 100.0,
        max_width: 20_000.0,
        min_em: 1.0,
        reach: 0.4,
        banded_reach: 0.35,
        max_cuts: 400,
        cut_slack: 0.5,
        below: 0.5,
        min_aside_fragments: 2,
        min_letters: (1, 2),
        max_in_step: (1, 2),
        min_level: (1, 2),
        width_ratio: 2.0,
        min_beside_width: 0.35,
        same_line: 0.3,
        split_below: 0.6,
        min_lines: 3,
        max_beside_start: 0.45,
        own_size: 0.08,
        level: 0.15,
        min_strip: 4.0,
        level_reach: 2.0,
        run_gap: 3.0,
        set_apart: 1.6,
    };
}

/// Margin line numbers (the `lineno` package, review copies).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct LineNumberParams {
    /// A column of line numbers has at least this many numbers: fewer could be anything.
    pub min_numbers: usize,
    /// A line number has at most this many digits.
    pub max_digits: usize,
    /// Numbers whose aligned edges are within this (points) of the next are one column.
    pub edge_slack: f32,
    /// At least this ratio `(n, d)` of the steps down the column is the column's step (1, 2,
    /// 5 or 10): a contents list's page numbers repeat and jump.
    pub regular_steps: (usize, usize),
    /// The steps a column of line numbers may count by: every line, or every second, fifth or
    /// tenth.
    pub steps: [i64; 4],
    /// Distances per count within this share of the median are the same line pitch...
    pub same_pitch: f32,
    /// ... for at least this ratio `(n, d)` of them: numbers count lines, while section numbers
    /// of a contents list are spaced by their subsections.
    pub min_regular_pitches: (usize, usize),
    /// Other text overlaps the numbers' strip by less than this (points) at each edge...
    pub strip_slack: f32,
    /// ... and at most this ratio `(n, d)` of fragments (per number) overlaps it at all.
    pub max_overlapping: (usize, usize),
    /// Text within this (ems of the larger) of a number's baseline is level with it.
    pub level: f32,
    /// Numbers on the right: at least this many lines end before them, to tell justified text
    /// from a contents list...
    pub min_edges: usize,
    /// ... at most this ratio `(n, d)` of those lines end in dot leaders (a contents list)...
    pub max_leaders: (usize, usize),
    /// ... and the lines before them end within this (points) of their median end (justified
    /// text), not ragged as a contents list.
    pub aligned: f32,
    /// ... for at least this ratio `(n, d)` of them.
    pub min_aligned: (usize, usize),
}

impl LineNumberParams {
    pub const DEFAULT: Self = Self {
        min_numbers: 5,
        max_digits: 4,
        edge_slack: 1.5,
        regular_steps: (4, 5),
        steps: [1, 2, 5, 10],
        same_pitch: 0.2,
        min_regular_pitches: (1, 2),
        strip_slack: 0.5,
        max_overlapping: (1, 10),
        level: 0.3,
        min_edges: 3,
        max_leaders: (1, 2),
        aligned: 2.0,
        min_aligned: (7, 10),
    };
}
