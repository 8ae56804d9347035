//! Columns and full-width bands: the gutter of a two-column page and the header block above it.

use super::{ColumnParams, Frag, x_span};

/// Reading-order regions of the body: columns and bands, or the whole page.
pub(super) fn body_regions(frags: &[Frag], p: &ColumnParams) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..frags.len()).collect();
    if let Some(gutter) = find_gutter(frags, p) {
        return column_regions(frags, all, gutter, p);
    }
    // A full-width block on top (title, centred authors, abstract) can hide the gutter of the
    // columns below it: read that block in place and the rest column by column.
    if let Some(split) = split_header(frags, p) {
        let mut out = vec![split.block];
        out.extend(column_regions(frags, split.columns, split.gutter, p));
        return out;
    }
    vec![all]
}

/// A page cut into a full-width block on top and two columns below it.
#[derive(Debug, PartialEq)]
struct HeaderSplit {
    /// Fragments above the cut, read in place.
    block: Vec<usize>,
    /// Fragments below the cut, read column by column.
    columns: Vec<usize>,
    gutter: (f32, f32),
}

/// The topmost horizontal cut below which the page has a gutter over (almost) the page's full
/// text width, lowered to the end of the block above the columns.
fn split_header(frags: &[Frag], p: &ColumnParams) -> Option<HeaderSplit> {
    split_header_counted(frags, p, true)
}

/// [`split_header`], the coverage below each cut counted from the previous one's when
/// `incremental` (as it is) or anew.
fn split_header_counted(
    frags: &[Frag],
    p: &ColumnParams,
    incremental: bool,
) -> Option<HeaderSplit> {
    let (x0, x1) = x_span(frags);
    let width = x1 - x0;
    if !(width.is_finite() && width > p.min_width) {
        return None;
    }
    let mut order: Vec<usize> = (0..frags.len()).collect();
    order.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
    // The extent of the fragments from each one in `order` to the bottom.
    let mut extents = vec![(f32::INFINITY, f32::NEG_INFINITY); order.len() + 1];
    for k in (0..order.len()).rev() {
        let f = &frags[order[k]];
        extents[k] = (extents[k + 1].0.min(f.x0), extents[k + 1].1.max(f.x1));
    }
    let mut scratch = Scratch::default();
    // The coverage of the fragments below each cut is that below the previous cut less the
    // fragments between the two (full-width lines count for none), while the text below spans
    // the same width. Sizes are f32, so
    // their sums in f64 are exact, and taking some away gives what adding the rest gives:
    // 24 bits of an f32 size, 11 of exponents between the smallest and the largest size (at
    // most 2^10 apart) and 16 of a count under 2^16 fit in an f64's 53. Other pages are
    // counted anew at each cut.
    let (small, large) = frags.iter().fold((f32::INFINITY, 0f32), |(s, l), f| {
        (s.min(f.size), l.max(f.size))
    });
    let exact =
        incremental && frags.len() < 1 << 16 && small > 0.0 && large <= small * (1u32 << 10) as f32;
    // The span and the first fragment of the set whose coverage `scratch.sums` holds.
    let mut held: Option<(f32, f32, usize)> = None;
    // Both columns need several lines, so the cut leaves fragments enough below it.
    for k in 1..order.len().saturating_sub(p.min_fragments_below) {
        let (above, below) = (&frags[order[k - 1]], &frags[order[k]]);
        // Only between lines: never between a line and its sub- or superscripts.
        if above.y - below.y < p.line_step * above.size.max(below.size) {
            continue;
        }
        let (l0, l1) = extents[k];
        if l1 - l0 < p.full_width * width {
            continue;
        }
        // `extents[k]` is the span of the fragments below the cut.
        if !spans_columns(l0, l1, p) {
            continue;
        }
        match held {
            Some((h0, h1, from)) if exact && h0 == l0 && h1 == l1 && from <= k => {
                let g = grid(l0, l1, p);
                for f in order[from..k].iter().map(|&i| &frags[i]) {
                    if let Some((a, b)) = bins_of(f, l0, l1, g, p) {
                        for sum in &mut scratch.sums[a..b] {
                            *sum -= f64::from(f.size);
                        }
                    }
                }
            }
            _ => fill_coverage(frags, &order[k..], l0, l1, &mut scratch, p),
        }
        held = Some((l0, l1, k));
        let Some((g0, g1)) = gutter_of_coverage(frags, &order[k..], (l0, l1), &mut scratch, p)
        else {
            continue;
        };
        let lower: Vec<&Frag> = order[k..].iter().map(|&i| &frags[i]).collect();
        // Below the cut most text sits in the two columns: not a single column beside a margin
        // of notes or labels.
        let mut amount = [0usize; 3];
        for &f in &lower {
            let n = f.end - f.first;
            if f.x1 <= g0 + p.slack {
                amount[0] += n;
            } else if f.x0 >= g1 - p.slack {
                amount[1] += n;
            } else if f.x0 < g0 - p.slack && f.x1 > g1 + p.slack {
                amount[2] += n;
            }
        }
        let total: usize = lower.iter().map(|f| f.end - f.first).sum();
        let ((cn, cd), (sn, sd)) = (p.min_column_share, p.max_straddle);
        if cd * amount[0] < cn * total || cd * amount[1] < cn * total || sd * amount[2] > sn * total
        {
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
                (f.x1 <= g0 + p.slack && w >= p.full_line * left_w)
                    || (f.x0 >= g1 - p.slack && w >= p.full_line * right_w)
            })
            .map(|f| f.y)
            .fold(f32::NEG_INFINITY, f32::max);
        let mut cut = k;
        for (j, &i) in order.iter().enumerate().skip(k) {
            let f = &frags[i];
            if f.y <= body_top {
                break;
            }
            if side(f, mid, p) == 0 || (f.x0 < g0 && f.x1 > g1) {
                cut = j + 1;
            }
        }
        // Never between a line and its sub- or superscripts.
        while cut > k
            && cut < order.len()
            && frags[order[cut - 1]].y - frags[order[cut]].y
                < p.line_step * frags[order[cut - 1]].size.max(frags[order[cut]].size)
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
fn side(f: &Frag, mid: f32, p: &ColumnParams) -> i8 {
    if f.x1 <= mid {
        return -1;
    }
    if f.x0 >= mid {
        return 1;
    }
    let left = mid - f.x0;
    let right = f.x1 - mid;
    let width = (f.x1 - f.x0).max(p.min_fragment_width);
    // A column line that pokes into the gutter still belongs to its column.
    if right < p.poke * width {
        -1
    } else if left < p.poke * width {
        1
    } else {
        0
    }
}

/// Last lines of full-width paragraphs too short to reach the gutter (the last line of an
/// abstract set across both columns, the keywords line under it): a one-sided fragment one line
/// below a spanning one (or below such a tail), at its left edge, in about its size, with
/// nothing level with it on the other side.
fn paragraph_tails(
    frags: &[Frag],
    all: &[usize],
    spanning: &[usize],
    mid: f32,
    p: &ColumnParams,
) -> Vec<usize> {
    let side = |f: &Frag, mid: f32| side(f, mid, p);
    let mut tails: Vec<usize> = Vec::new();
    let mut anchors: Vec<usize> = spanning.to_vec();
    for _ in 0..p.max_tail_lines {
        let found: Vec<usize> = all
            .iter()
            .copied()
            .filter(|i| !tails.contains(i))
            .filter(|&i| {
                let f = &frags[i];
                let sd = side(f, mid);
                if sd == 0 {
                    return false;
                }
                let below_anchor = anchors.iter().map(|&s| &frags[s]).any(|s| {
                    let drop = s.y - f.y;
                    drop > p.tail_min_drop * f.size
                        && drop < p.tail_max_drop * s.size.max(f.size)
                        && (s.x0 - f.x0).abs() < f.size
                        && (s.size - f.size).abs() < p.tail_same_size * s.size
                });
                below_anchor
                    && !all.iter().map(|&k| &frags[k]).any(|o| {
                        (o.y - f.y).abs() < p.tail_alone * f.size.max(o.size) && side(o, mid) == -sd
                    })
            })
            .collect();
        if found.is_empty() {
            break;
        }
        anchors = found.clone();
        tails.extend(found);
    }
    // The rest of a tail line (after a logo's lowered letter, a font change) goes with it.
    let level: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| !tails.contains(&i) && side(&frags[i], mid) != 0)
        .filter(|&i| {
            let f = &frags[i];
            tails.iter().map(|&t| &frags[t]).any(|t| {
                side(t, mid) == side(f, mid)
                    && (t.y - f.y).abs() < p.tail_level * t.size.max(f.size)
                    && f.x0 >= t.x0
            })
        })
        .collect();
    tails.extend(level);
    tails
}

/// Reading-order regions of the fragments `all` around the gutter `(g0, g1)`: full-width bands
/// and between them the left column followed by the right one.
fn column_regions(
    frags: &[Frag],
    all: Vec<usize>,
    (g0, g1): (f32, f32),
    p: &ColumnParams,
) -> Vec<Vec<usize>> {
    let mid = (g0 + g1) / 2.0;
    let side = |f: &Frag| side(f, mid, p);
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
    // Each spanning fragment's band.
    let mut band_of: Vec<(usize, usize)> = Vec::with_capacity(spanning.len());
    for &s in &spanning {
        let y = frags[s].y;
        let tol = p.band_same_line * frags[s].size;
        match cuts.last() {
            Some(&last) if (last - y).abs() <= tol.max(p.band_min_same_line) => {}
            _ => {
                cuts.push(y);
                bands.push((Vec::new(), Vec::new(), Vec::new()));
            }
        }
        if let Some(b) = bands.last_mut() {
            b.0.push(s);
        }
        band_of.push((s, bands.len() - 1));
    }
    // The band of the spanning line a column fragment runs on from: on its baseline or a
    // little off it (the lowered E of a LaTeX logo), and starting where the line ends.
    let runs_on = |f: &Frag| {
        band_of.iter().find_map(|&(s, k)| {
            let sf = &frags[s];
            let em = sf.size.max(f.size);
            let rise = f.y - sf.y;
            (rise.abs() < p.run_on_rise * em
                && f.x0 >= sf.x1 - p.run_on_back * em
                && f.x0 - sf.x1 < p.run_on_reach * em)
                .then_some(k)
        })
    };
    // Band k (k ≥ 1) starts with the k-th cut; column text goes to the band above which it sits.
    let tails = paragraph_tails(frags, &all, &spanning, mid, p);
    for i in all {
        let f = &frags[i];
        let sd = side(f);
        if sd == 0 {
            continue;
        }
        if let Some(k) = runs_on(f) {
            bands[k].0.push(i);
            continue;
        }
        let k = cuts
            .iter()
            .take_while(|&&c| c > f.y + p.band_rise * f.size)
            .count();
        if let Some(b) = bands.get_mut(k) {
            if tails.contains(&i) {
                b.0.push(i);
            } else if sd < 0 {
                b.1.push(i)
            } else {
                b.2.push(i)
            }
        }
    }
    // Consecutive full-width lines with no column text between them (an abstract set across
    // the gutter) are one region, so that they read as one paragraph.
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut open_span = false;
    for (span, left, right) in bands {
        let columns = !left.is_empty() || !right.is_empty();
        // Lines of one paragraph: the same size and left edge (centred lines of a title page,
        // author and affiliation, stay blocks of their own).
        let continues = |last: &Vec<usize>| {
            let (Some(&l), Some(&f)) = (last.last(), span.first()) else {
                return false;
            };
            let (l, f) = (&frags[l], &frags[f]);
            (l.size - f.size).abs() < p.span_same_size * l.size.max(f.size)
                && (l.x0 - f.x0).abs() < f.size
        };
        match out.last_mut() {
            Some(last) if open_span && !span.is_empty() && continues(last) => last.extend(span),
            _ if !span.is_empty() => out.push(span),
            _ => {}
        }
        open_span = !columns;
        for r in [left, right] {
            if !r.is_empty() {
                out.push(r);
                open_span = false;
            }
        }
    }
    out
}

/// A vertical strip near the middle of the text that (almost) no fragment crosses while both
/// sides carry several lines of text.
fn find_gutter(frags: &[Frag], p: &ColumnParams) -> Option<(f32, f32)> {
    let all: Vec<usize> = (0..frags.len()).collect();
    find_gutter_in(frags, &all, &mut Scratch::default(), p)
}

/// Buffers of the gutter search: per-bin differences of the coverage and the coverage itself
/// (kept between the header search's cuts, one per line of the page).
#[derive(Default)]
struct Scratch {
    diff: Vec<f64>,
    /// The coverage summed from `diff`, bin by bin.
    sums: Vec<f64>,
    cov: Vec<f32>,
}

/// [`find_gutter`] over the fragments `set` of `frags`, its coverage counted in `scratch`.
fn find_gutter_in(
    frags: &[Frag],
    set: &[usize],
    scratch: &mut Scratch,
    p: &ColumnParams,
) -> Option<(f32, f32)> {
    let (x0, x1) = x_span(set.iter().map(|&i| &frags[i]));
    if !spans_columns(x0, x1, p) {
        return None;
    }
    fill_coverage(frags, set, x0, x1, scratch, p);
    gutter_of_coverage(frags, set, (x0, x1), scratch, p)
}

/// Whether text from `x0` to `x1` is wide enough to hold two columns (and not absurdly wide).
fn spans_columns(x0: f32, x1: f32, p: &ColumnParams) -> bool {
    let width = x1 - x0;
    width.is_finite() && width > p.min_width && width < p.max_width
}

/// The coverage grid of text from `x0` to `x1`: its number of bins and bins per point.
fn grid(x0: f32, x1: f32, p: &ColumnParams) -> (usize, f32) {
    let width = x1 - x0;
    let bins = (width.ceil() as usize).clamp(1, p.max_bins);
    (bins, bins as f32 / width)
}

/// The bins fragment `f` covers on the grid of text from `x0` to `x1`: none for a line wider
/// than a column (a title, an abstract), which crosses any gutter and does not count.
fn bins_of(
    f: &Frag,
    x0: f32,
    x1: f32,
    (bins, scale): (usize, f32),
    p: &ColumnParams,
) -> Option<(usize, usize)> {
    let width = x1 - x0;
    if (f.x1 - f.x0).partial_cmp(&(p.wide_line * width)) != Some(std::cmp::Ordering::Less) {
        return None;
    }
    let a = (((f.x0 - x0) * scale).floor().max(0.0) as usize).min(bins);
    let b = (((f.x1 - x0) * scale).ceil().max(0.0) as usize).min(bins);
    (a < b).then_some((a, b))
}

/// The coverage of the fragments `set` (text from `x0` to `x1`), each weighted by its size, bin
/// by bin in `scratch.sums`: summed from per-bin differences, it costs no more for long lines.
fn fill_coverage(
    frags: &[Frag],
    set: &[usize],
    x0: f32,
    x1: f32,
    scratch: &mut Scratch,
    p: &ColumnParams,
) {
    let Scratch { diff, sums, .. } = scratch;
    let (bins, scale) = grid(x0, x1, p);
    diff.clear();
    diff.resize(bins + 2, 0.0);
    for f in set.iter().map(|&i| &frags[i]) {
        if let Some((a, b)) = bins_of(f, x0, x1, (bins, scale), p) {
            diff[a] += f64::from(f.size);
            diff[b] -= f64::from(f.size);
        }
    }
    let mut run = 0f64;
    sums.clear();
    sums.extend(diff[..=bins].iter().map(|d| {
        run += d;
        run
    }));
}

/// [`find_gutter_in`] once the coverage of `set` over `span` is in `scratch.sums`.
fn gutter_of_coverage(
    frags: &[Frag],
    set: &[usize],
    span: (f32, f32),
    scratch: &mut Scratch,
    p: &ColumnParams,
) -> Option<(f32, f32)> {
    let Scratch { sums, cov, .. } = scratch;
    let frags = || set.iter().map(|&i| &frags[i]);
    let (x0, x1) = span;
    let width = x1 - x0;
    let (bins, scale) = grid(x0, x1, p);
    cov.clear();
    cov.extend(sums[..=bins].iter().map(|&s| s as f32));
    let cov = &cov[..];
    let lo = (bins as f32 * p.middle_from) as usize;
    let hi = (bins as f32 * p.middle_to) as usize;
    if hi <= lo {
        return None;
    }
    let min_cov = cov[lo..hi].iter().copied().fold(f32::INFINITY, f32::min);
    let left_max = cov[..lo].iter().copied().fold(0.0, f32::max);
    let right_max = cov[hi..].iter().copied().fold(0.0, f32::max);

    // The strip must be emptier than the text beside it; centred title blocks may still cross
    // it, which the zone test below allows as long as they sit outside the columns.
    if min_cov >= p.max_gutter_cover * left_max.max(right_max) {
        return None;
    }
    let mut sizes: Vec<f32> = frags().map(|f| f.size).collect();
    let mid = sizes.len() / 2;
    let median_size = sizes
        .select_nth_unstable_by(mid, f32::total_cmp)
        .1
        .max(p.min_em);
    if left_max.max(right_max) < p.min_lines * median_size {
        return None;
    }
    // The widest run of low coverage in the middle part.
    let limit = min_cov + p.gutter_slack * left_max.min(right_max);
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
    if g1 - g0 < (p.min_gutter * median_size).max(p.min_gutter_points) {
        return None;
    }
    // Text on each side must extend over a real column, not a few labels.
    let left_w: f32 = frags()
        .filter(|f| f.x1 <= g0 + p.slack)
        .map(|f| f.x1 - f.x0)
        .fold(0.0, f32::max);
    let right_w: f32 = frags()
        .filter(|f| f.x0 >= g1 - p.slack)
        .map(|f| f.x1 - f.x0)
        .fold(0.0, f32::max);
    if left_w < p.min_column_width * width || right_w < p.min_column_width * width {
        return None;
    }
    // Where both columns have text, lines crossing the gutter must be rare: otherwise this is a
    // single-column page with an accidental vertical gap (a table, a list of short items).
    let y_span = |keep: &dyn Fn(&Frag) -> bool| {
        frags()
            .filter(|f| keep(f))
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), f| {
                (lo.min(f.y), hi.max(f.y))
            })
    };
    let is_left = |f: &Frag| f.x1 <= g0 + p.slack;
    let is_right = |f: &Frag| f.x0 >= g1 - p.slack;
    let (l_lo, l_hi) = y_span(&is_left);
    let (r_lo, r_hi) = y_span(&is_right);
    let (z_lo, z_hi) = (l_lo.max(r_lo), l_hi.min(r_hi));
    if z_hi <= z_lo {
        return None;
    }
    let lines_on =
        |keep: &dyn Fn(&Frag) -> bool| frags().filter(|f| keep(f)).map(|f| f.size).sum::<f32>();
    if lines_on(&is_left) < p.min_lines * median_size
        || lines_on(&is_right) < p.min_lines * median_size
    {
        return None;
    }
    let zone: Vec<&Frag> = frags().filter(|f| f.y >= z_lo && f.y <= z_hi).collect();
    let crossing = zone
        .iter()
        .filter(|f| f.x0 < g0 - p.slack && f.x1 > g1 + p.slack)
        .count();
    let sides = zone.iter().filter(|f| is_left(f) || is_right(f)).count();
    let (n, d) = p.max_crossing_ratio;
    if crossing > p.max_crossing && crossing * d > sides * n {
        return None;
    }
    Some((g0, g1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of `lines` lines: a full-width block of `head` lines on top, then two columns
    /// (or one when `columns` is false), words of varied widths and sizes, some lines short.
    fn page(seed: u64, lines: usize, head: usize, columns: bool) -> Vec<Frag> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as f32 / (1u64 << 31) as f32
        };
        let mut frags = Vec::new();
        let mut push = |x0: f32, x1: f32, y: f32, size: f32| {
            let first = frags.len() * 4;
            frags.push(Frag {
                first,
                end: first + 4,
                x0,
                x1,
                y,
                size,
            });
        };
        for l in 0..lines {
            let y = 780.0 - 14.0 * l as f32;
            let size = if next() < 0.1 { 7.0 + next() } else { 9.9626 };
            let spans: &[(f32, f32)] = if l < head || !columns {
                &[(72.0, 523.0)]
            } else {
                &[(72.0, 280.0), (315.0, 523.0)]
            };
            for &(a, b) in spans {
                let end = if next() < 0.15 {
                    a + (b - a) * next()
                } else {
                    b
                };
                let mut x = a;
                while x < end {
                    let w = 40.0 + 160.0 * next();
                    push(x, (x + w).min(end), y, size);
                    x += w + 3.0;
                }
            }
        }
        frags
    }

    #[test]
    fn the_header_search_counts_coverage_below_each_cut_as_anew() {
        let p = ColumnParams::DEFAULT;
        let mut found = 0;
        for seed in 0..60 {
            for (head, columns) in [(0, false), (4, true), (9, true), (3, false)] {
                let frags = page(seed, 40 + (seed as usize % 20), head, columns);
                let counted = split_header_counted(&frags, &p, true);
                assert_eq!(
                    counted,
                    split_header_counted(&frags, &p, false),
                    "seed {seed}"
                );
                found += usize::from(counted.is_some());
            }
        }
        assert!(found > 0, "some pages have a header block over two columns");
    }
}
