//! Reading-order regions of a page, and the sidebars and margin notes that are regions of their
//! own: an Elsevier-style "Article history / Keywords" column beside the abstract stays one
//! block, after the text it sits beside.

use super::columns::body_regions;
use super::{AsideParams, Frag, G, LayoutParams, frag_text, short_of, x_span};
use crate::content::PageGlyphs;

/// Splits the fragments into reading-order regions: on a two-column page, full-width bands and
/// between them the left column followed by the right one; otherwise the whole page. Sidebars
/// and margin notes are regions of their own, after the region of the text they sit beside.
pub(super) fn regions(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    p: &LayoutParams,
) -> Vec<Vec<usize>> {
    let ap = &p.asides;
    let mut asides: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let mut main: Vec<usize> = (0..frags.len()).collect();
    // What both sides ask of the page's fragments, worked out once while no aside is taken.
    let whole = Facts::of(frags);
    for left in [true, false] {
        let sub = subset(frags, &main);
        let own;
        let facts = match &sub {
            std::borrow::Cow::Borrowed(_) => &whole,
            std::borrow::Cow::Owned(sub) => {
                own = Facts::of(sub);
                &own
            }
        };
        let found = find_aside(page, gs, facts, left, ap)
            .or_else(|| find_banded_aside(page, gs, facts, left, ap));
        if let Some((aside, beside)) = found {
            let aside: Vec<usize> = aside.into_iter().map(|k| main[k]).collect();
            let beside: Vec<usize> = beside.into_iter().map(|k| main[k]).collect();
            main.retain(|i| !aside.contains(i));
            asides.push((aside, beside));
        }
    }
    let sub = subset(frags, &main);
    let mut out: Vec<Vec<usize>> = body_regions(&sub, &p.columns)
        .into_iter()
        .map(|r| r.into_iter().map(|k| main[k]).collect())
        .collect();
    for (aside, beside) in asides {
        let Some(k) = out
            .iter()
            .rposition(|r| r.iter().any(|i| beside.contains(i)))
        else {
            out.push(aside);
            continue;
        };
        // The region beside it may run on below it (a single-column body under the abstract):
        // the aside goes right after the text it sits beside, before what follows lower down.
        let below = split_below(frags, &mut out[k], &beside, ap);
        out.insert(k + 1, aside);
        if !below.is_empty() {
            out.insert(k + 2, below);
        }
    }
    out
}

/// The fragments `set` of `frags`, in its order: `frags` itself (not a copy) while `set` is all of
/// them in order, as it is on a page without asides.
fn subset<'a>(frags: &'a [Frag], set: &[usize]) -> std::borrow::Cow<'a, [Frag]> {
    if set.len() == frags.len() && set.iter().enumerate().all(|(k, &i)| k == i) {
        std::borrow::Cow::Borrowed(frags)
    } else {
        std::borrow::Cow::Owned(set.iter().map(|&i| frags[i].clone()).collect())
    }
}

/// A set of fragments and the facts of it both searches ask for, each worked out when first
/// asked.
pub(super) struct Facts<'a> {
    frags: &'a [Frag],
    /// The median font size.
    median_size: std::cell::OnceCell<f32>,
    /// Indices, lowest baseline first (equal baselines in index order).
    upward: std::cell::OnceCell<Vec<usize>>,
    /// Indices, highest baseline first (equal baselines in index order).
    downward: std::cell::OnceCell<Vec<usize>>,
    /// Each fragment's letters.
    letters: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> Facts<'a> {
    fn of(frags: &'a [Frag]) -> Self {
        Facts {
            frags,
            median_size: Default::default(),
            upward: Default::default(),
            downward: Default::default(),
            letters: Default::default(),
        }
    }

    fn median_size(&self) -> f32 {
        let frags = self.frags;
        *self.median_size.get_or_init(|| {
            let mut sizes: Vec<f32> = frags.iter().map(|f| f.size).collect();
            let mid = sizes.len() / 2;
            *sizes.select_nth_unstable_by(mid, f32::total_cmp).1
        })
    }

    fn upward(&self) -> &[usize] {
        let frags = self.frags;
        self.upward.get_or_init(|| {
            let mut by_y: Vec<usize> = (0..frags.len()).collect();
            by_y.sort_by(|&a, &b| frags[a].y.total_cmp(&frags[b].y));
            by_y
        })
    }

    fn downward(&self) -> &[usize] {
        let frags = self.frags;
        self.downward.get_or_init(|| {
            let mut by_y: Vec<usize> = (0..frags.len()).collect();
            by_y.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
            by_y
        })
    }

    fn letters(&self, page: &PageGlyphs, gs: &[G]) -> &[usize] {
        let frags = self.frags;
        self.letters.get_or_init(|| {
            frags
                .iter()
                .map(|f| {
                    frag_text(page, gs, f)
                        .map_or(0, |t| t.chars().filter(|c| c.is_alphabetic()).count())
                })
                .collect()
        })
    }
}

/// Takes out of `region` (and returns) its fragments a line or more below the lowest of
/// `beside` that it holds; sub- and superscripts of that line stay.
fn split_below(
    frags: &[Frag],
    region: &mut Vec<usize>,
    beside: &[usize],
    p: &AsideParams,
) -> Vec<usize> {
    let Some(lowest) = region
        .iter()
        .filter(|i| beside.contains(i))
        .map(|&i| &frags[i])
        .min_by(|a, b| a.y.total_cmp(&b.y))
    else {
        return Vec::new();
    };
    let cut = lowest.y - p.split_below * lowest.size;
    let (above, below): (Vec<usize>, Vec<usize>) = region.iter().partition(|&&i| frags[i].y >= cut);
    *region = above;
    below
}

/// A sidebar or margin notes on one side of the page (`left` or right): text on that side of a
/// vertical cut with a clear strip between it and everything level with it, where the text beside
/// is prose in lines more than twice as wide and holds more of the page. Returns (aside, beside).
pub(super) fn find_aside(
    page: &PageGlyphs,
    gs: &[G],
    facts: &Facts<'_>,
    left: bool,
    p: &AsideParams,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let frags = facts.frags;
    if frags.len() < p.min_fragments {
        return None;
    }
    let (x0, x1) = x_span(frags);
    let width = x1 - x0;
    if !(width.is_finite() && width > p.min_width && width < p.max_width) {
        return None;
    }
    let em = facts.median_size().max(p.min_em);
    let mut cuts: Vec<f32> = frags
        .iter()
        .map(|f| if left { f.x1 } else { f.x0 })
        .filter(|&c| {
            if left {
                c - x0 <= p.reach * width
            } else {
                x1 - c <= p.reach * width
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
    let mean_width = |set: &[usize]| mean_line_width(frags, set, em, p);
    // The aside grows with the cut: fragments join it in order of their inner edge.
    let edge = |f: &Frag| if left { f.x1 } else { -f.x0 };
    let mut order: Vec<usize> = (0..frags.len()).collect();
    order.sort_by(|&a, &b| edge(&frags[a]).total_cmp(&edge(&frags[b])));
    let by_y = facts.upward();
    let letters = facts.letters(page, gs);
    let mut in_aside = vec![false; frags.len()];
    let mut taken = 0;
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    let (mut aside_glyphs, mut aside_letters) = (0usize, 0usize);
    let mut best = None;
    for g in cuts.into_iter().take(p.max_cuts) {
        let limit = if left {
            g + p.cut_slack
        } else {
            -(g - p.cut_slack)
        };
        while taken < order.len() && edge(&frags[order[taken]]) <= limit {
            let i = order[taken];
            in_aside[i] = true;
            lo = lo.min(frags[i].y - p.below * em);
            hi = hi.max(frags[i].y + frags[i].size);
            aside_glyphs += frags[i].end - frags[i].first;
            // Words, not a column of numbers (contents page numbers, equation numbers).
            aside_letters += letters[i];
            taken += 1;
        }
        if taken < p.min_aside_fragments || short_of(aside_letters, aside_glyphs, p.min_letters) {
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
        if beside_width < p.width_ratio * mean_width(&aside)
            || beside_width < p.min_beside_width * width
        {
            continue;
        }
        best = Some((aside, beside));
    }
    best
}

/// One line a set of fragments makes: its baseline, its edges and the fragments at them.
struct SetLine {
    y: f32,
    x0: f32,
    x1: f32,
    /// The leftmost and the rightmost fragment.
    first: usize,
    last: usize,
}

/// The lines a set of fragments makes (fragments on one baseline together), top first.
fn set_lines(frags: &[Frag], set: &[usize], em: f32, p: &AsideParams) -> Vec<SetLine> {
    let mut order = set.to_vec();
    order.sort_by(|&a, &b| frags[b].y.total_cmp(&frags[a].y));
    let mut lines: Vec<SetLine> = Vec::new();
    for i in order {
        let f = &frags[i];
        match lines.last_mut() {
            Some(l) if (l.y - f.y).abs() < p.same_line * em => {
                if f.x0 < l.x0 {
                    (l.x0, l.first) = (f.x0, i);
                }
                if f.x1 > l.x1 {
                    (l.x1, l.last) = (f.x1, i);
                }
            }
            _ => lines.push(SetLine {
                y: f.y,
                x0: f.x0,
                x1: f.x1,
                first: i,
                last: i,
            }),
        }
    }
    lines
}

/// The width of the empty strip between the aside's lines and the lines beside them.
fn clear_strip(aside: &[SetLine], beside: &[SetLine], left: bool) -> f32 {
    if left {
        let inner = aside.iter().map(|l| l.x1).fold(f32::NEG_INFINITY, f32::max);
        beside.iter().map(|l| l.x0).fold(f32::INFINITY, f32::min) - inner
    } else {
        let inner = aside.iter().map(|l| l.x0).fold(f32::INFINITY, f32::min);
        inner
            - beside
                .iter()
                .map(|l| l.x1)
                .fold(f32::NEG_INFINITY, f32::max)
    }
}

/// Whether, of a set's lines (top first), one ends inside a sentence — on a letter, a comma or a
/// hyphen — and the next begins in lower case, both lines at heights `paired` accepts.
fn runs_on_beside(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    set: &[usize],
    em: f32,
    p: &AsideParams,
    paired: impl Fn(f32) -> bool,
) -> bool {
    let lines = set_lines(frags, set, em, p);
    lines.windows(2).any(|w| {
        let ends_open = frag_text(page, gs, &frags[w[0].last])
            .and_then(|t| t.trim_end().chars().last())
            .is_some_and(|c| c.is_alphabetic() || c == ',' || c == '-');
        let starts_low = frag_text(page, gs, &frags[w[1].first])
            .and_then(|t| t.trim_start().chars().next())
            .is_some_and(char::is_lowercase);
        ends_open && starts_low && paired(w[0].y) && paired(w[1].y)
    })
}

/// Mean width of the lines a set of fragments makes.
fn mean_line_width(frags: &[Frag], set: &[usize], em: f32, p: &AsideParams) -> f32 {
    let lines = set_lines(frags, set, em, p);
    lines.iter().map(|l| l.x1 - l.x0).sum::<f32>() / lines.len().max(1) as f32
}

/// Where a fragment sits against a vertical cut: on the aside's side of it, clear of it on the
/// other side, or across it.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Aside,
    Beside,
    Across,
}

/// A sidebar that shares its side of the page with other text above and below it: the
/// "Article history / Received / Accepted / Keywords" column of an Elsevier first page, beside
/// the abstract, with the title above and a two-column body below. The page is cut at a
/// vertical line and, top to bottom, into bands that no fragment crosses that line in; the
/// aside is the text on its side of the line within one band, in at least three lines of words,
/// beside prose that starts left of the page's middle (not the right column of a two-column
/// page beside a list in the left one) in lines more than twice as wide. Of all cuts and bands,
/// the one with the most glyphs aside. The sidebar is set in a size of its own, on baselines of
/// its own (the columns of a table are not sidebars). Returns (aside, beside).
pub(super) fn find_banded_aside(
    page: &PageGlyphs,
    gs: &[G],
    facts: &Facts<'_>,
    left: bool,
    p: &AsideParams,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let frags = facts.frags;
    if frags.len() < p.min_fragments {
        return None;
    }
    let (x0, x1) = x_span(frags);
    let width = x1 - x0;
    if !(width.is_finite() && width > p.min_width && width < p.max_width) {
        return None;
    }
    let em = facts.median_size().max(p.min_em);
    let inner = |f: &Frag| if left { f.x1 } else { f.x0 };
    let mut cuts: Vec<f32> = frags
        .iter()
        .map(inner)
        .filter(|&c| {
            if left {
                c - x0 <= p.banded_reach * width
            } else {
                x1 - c <= p.banded_reach * width
            }
        })
        .map(|c| c.round())
        .collect();
    cuts.sort_by(f32::total_cmp);
    cuts.dedup();
    let by_y = facts.downward();
    // Each fragment's letters, counted once (every cut and band sums them again).
    let counts = facts.letters(page, gs);
    let letters = |set: &[usize]| -> (usize, usize) {
        set.iter().fold((0, 0), |(g, l), &i| {
            (g + frags[i].end - frags[i].first, l + counts[i])
        })
    };
    let mut best: Option<(usize, Vec<usize>, Vec<usize>)> = None;
    // Judges one band: the aside it holds, when it is one.
    let mut judge = |aside: &[usize], beside: &[usize]| {
        let (aside_glyphs, aside_letters) = letters(aside);
        let (beside_glyphs, _) = letters(beside);
        if beside.is_empty()
            || short_of(aside_letters, aside_glyphs, p.min_letters)
            || aside_glyphs >= beside_glyphs
            || best.as_ref().is_some_and(|b| b.0 >= aside_glyphs)
        {
            return;
        }
        let aside_lines = set_lines(frags, aside, em, p);
        let beside_lines = set_lines(frags, beside, em, p);
        if aside_lines.len() < p.min_lines || beside_lines.len() < p.min_lines {
            return;
        }
        let beside_width = mean_line_width(frags, beside, em, p);
        let start = |l: &SetLine| if left { l.x0 - x0 } else { x1 - l.x1 };
        let beside_start = beside_lines.iter().map(start).sum::<f32>() / beside_lines.len() as f32;
        if beside_width < p.width_ratio * mean_line_width(frags, aside, em, p)
            || beside_width < p.min_beside_width * width
            || beside_start > p.max_beside_start * width
        {
            return;
        }
        // Its own font: a size of its own, and baselines that do not keep step with the text
        // beside (the cells of a table do).
        let median = |set: &[usize]| {
            let mut sizes: Vec<f32> = set.iter().map(|&i| frags[i].size).collect();
            sizes.sort_by(f32::total_cmp);
            sizes[sizes.len() / 2]
        };
        let (aside_size, beside_size) = (median(aside), median(beside));
        let own_font = (aside_size - beside_size).abs() >= p.own_size * beside_size;
        let level_with =
            |y: f32, lines: &[SetLine]| lines.iter().any(|l| (l.y - y).abs() < p.level * em);
        let in_step = aside_lines
            .iter()
            .filter(|a| level_with(a.y, &beside_lines))
            .count();
        let own_baselines = short_of(in_step, aside_lines.len(), p.max_in_step);
        // A sidebar in the body's own font and on its baselines (Elsevier's cas-dc "Keywords"
        // column) is told from a table by the prose beside it: a sentence runs on from one
        // line to the next where both lines have a line of the aside level with them — the
        // cells of a table's row do not run on into the next row.
        let in_its_own_font = own_font && own_baselines;
        let beside_prose = clear_strip(&aside_lines, &beside_lines, left) >= p.min_strip * em
            && runs_on_beside(page, gs, frags, beside, em, p, |y| {
                level_with(y, &aside_lines)
            });
        if !(in_its_own_font || beside_prose) {
            return;
        }
        // Level with each other: most aside lines within the height of the text beside.
        let (top, bottom) = (
            beside_lines[0].y + em,
            beside_lines[beside_lines.len() - 1].y - em,
        );
        let level = aside_lines
            .iter()
            .filter(|l| l.y <= top + p.level_reach * em && l.y >= bottom - p.level_reach * em)
            .count();
        if short_of(level, aside_lines.len(), p.min_level) {
            return;
        }
        best = Some((aside_glyphs, aside.to_vec(), beside.to_vec()));
    };
    for g in cuts.into_iter().take(p.max_cuts) {
        let side = |f: &Frag| {
            let (near, far) = if left {
                (f.x1 <= g + p.cut_slack, f.x0 >= g + em)
            } else {
                (f.x0 >= g - p.cut_slack, f.x1 <= g - em)
            };
            if near {
                Side::Aside
            } else if far {
                Side::Beside
            } else {
                Side::Across
            }
        };
        let (mut aside, mut beside) = (Vec::new(), Vec::new());
        for &i in by_y {
            match side(&frags[i]) {
                Side::Aside => aside.push(i),
                Side::Beside => beside.push(i),
                Side::Across => {
                    judge_runs(frags, &aside, &beside, em, p, &mut judge);
                    aside.clear();
                    beside.clear();
                }
            }
        }
        judge_runs(frags, &aside, &beside, em, p, &mut judge);
    }
    best.map(|(_, aside, beside)| (aside, beside))
}

/// Splits the aside side of one band (top first) into runs of lines set close together, so that
/// a heading further down the same side (the body's "1. Introduction") is not part of the
/// sidebar above it, and judges each run with the text beside it at its height.
fn judge_runs(
    frags: &[Frag],
    aside: &[usize],
    beside: &[usize],
    em: f32,
    p: &AsideParams,
    judge: &mut impl FnMut(&[usize], &[usize]),
) {
    let mut start = 0;
    for k in 1..=aside.len() {
        let split = k == aside.len() || {
            let (a, f) = (&frags[aside[k - 1]], &frags[aside[k]]);
            a.y - f.y > p.run_gap * a.size.max(f.size)
        };
        if !split {
            continue;
        }
        let whole = &aside[start..k];
        start = k;
        judge_run(
            frags,
            trim_set_apart(frags, whole, em, p),
            beside,
            em,
            judge,
        );
    }
}

/// A run of aside lines (top first) without a single line set apart at its top or bottom by a
/// gap much wider than the run's line pitch: a heading above or below the sidebar
/// ("ARTICLE INFO" over a cas-dc keyword column, the body's "1. Introduction" under it) is not
/// part of it. A group of lines after a wider gap (the sidebar's "Keywords:" and its words)
/// stays.
fn trim_set_apart<'a>(frags: &[Frag], run: &'a [usize], em: f32, p: &AsideParams) -> &'a [usize] {
    // Where each line starts in `run`, and its baseline.
    let mut starts: Vec<(usize, f32)> = Vec::new();
    for (k, &i) in run.iter().enumerate() {
        let y = frags[i].y;
        if starts
            .last()
            .is_none_or(|&(_, ly)| (ly - y).abs() >= p.same_line * em)
        {
            starts.push((k, y));
        }
    }
    let gaps: Vec<f32> = starts.windows(2).map(|w| w[0].1 - w[1].1).collect();
    if gaps.len() < p.min_lines {
        return run;
    }
    let mut sorted = gaps.clone();
    sorted.sort_by(f32::total_cmp);
    let apart = p.set_apart * sorted[sorted.len() / 2];
    // Lines `lo..hi` stay; at least `min_lines` of them.
    let (mut lo, mut hi) = (0, starts.len());
    while hi - lo > p.min_lines && gaps[lo] > apart {
        lo += 1;
    }
    while hi - lo > p.min_lines && gaps[hi - 2] > apart {
        hi -= 1;
    }
    let end = starts.get(hi).map_or(run.len(), |s| s.0);
    &run[starts[lo].0..end]
}

/// Judges one run of aside lines with the text beside it at its height.
fn judge_run(
    frags: &[Frag],
    run: &[usize],
    beside: &[usize],
    em: f32,
    judge: &mut impl FnMut(&[usize], &[usize]),
) {
    let top = run
        .iter()
        .map(|&i| frags[i].y)
        .fold(f32::NEG_INFINITY, f32::max);
    let bottom = run
        .iter()
        .map(|&i| frags[i].y)
        .fold(f32::INFINITY, f32::min);
    let level: Vec<usize> = beside
        .iter()
        .copied()
        .filter(|&i| frags[i].y <= top + em && frags[i].y >= bottom - em)
        .collect();
    judge(run, &level);
}
