//! Margin line numbers (the `lineno` package, review copies), taken out of the text.

use super::{Frag, G, LineNumberParams, frag_text, short_of, x_span};
use crate::content::PageGlyphs;

/// Removes margin line numbers (the `lineno` package, review copies): a column of plain numbers
/// of up to four digits, aligned on one edge, counting up down the page by one step (every line,
/// or every fifth), in a strip of the page no other text reaches. Page numbers of a table of
/// contents repeat and jump, and stay.
pub(super) fn drop_line_numbers(
    page: &PageGlyphs,
    gs: &[G],
    frags: &mut Vec<Frag>,
    p: &LineNumberParams,
) {
    let number = |f: &Frag| -> Option<u32> {
        let t = frag_text(page, gs, f)?;
        (!t.is_empty() && t.len() <= p.max_digits && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let candidates: Vec<(usize, u32)> = frags
        .iter()
        .enumerate()
        .filter_map(|(i, f)| number(f).map(|n| (i, n)))
        .collect();
    if candidates.len() < p.min_numbers {
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
                && edge(&frags[order[end].0]) - edge(&frags[order[end - 1].0]) < p.edge_slack
            {
                end += 1;
            }
            let mut column: Vec<(usize, u32)> = order[start..end].to_vec();
            start = end;
            if column.len() < p.min_numbers {
                continue;
            }
            column.sort_by(|a, b| frags[b.0].y.total_cmp(&frags[a.0].y));
            let steps: Vec<i64> = column
                .windows(2)
                .map(|w| i64::from(w[1].1) - i64::from(w[0].1))
                .collect();
            let Some(step) = p
                .steps
                .into_iter()
                .max_by_key(|s| steps.iter().filter(|d| **d == *s).count())
            else {
                continue;
            };
            if short_of(
                steps.iter().filter(|d| **d == step).count(),
                steps.len(),
                p.regular_steps,
            ) {
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
                .filter(|q| (**q - pitch).abs() <= p.same_pitch * pitch)
                .count();
            if pitch <= 0.0 || short_of(regular, pitches.len(), p.min_regular_pitches) {
                continue;
            }
            // A strip of its own: (almost) no other text on the page overlaps the column.
            let members: Vec<usize> = column.iter().map(|c| c.0).collect();
            let (cx0, cx1) = x_span(members.iter().map(|&i| &frags[i]));
            let overlapping = frags
                .iter()
                .enumerate()
                .filter(|(i, f)| {
                    !members.contains(i) && f.x0 < cx1 - p.strip_slack && f.x1 > cx0 + p.strip_slack
                })
                .count();
            let (on, od) = p.max_overlapping;
            if overlapping * od > members.len() * on {
                continue;
            }
            if !beside_justified(page, gs, frags, &members, (cx0, cx1), p) {
                continue;
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

/// Whether the column of numbers `members` (spanning `cx0..cx1`) stands beside text as line
/// numbers do. Numbers on the right: the justified lines before them end at one margin; a table
/// of contents has ragged entries or dot leaders before its page numbers.
fn beside_justified(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    members: &[usize],
    (cx0, cx1): (f32, f32),
    p: &LineNumberParams,
) -> bool {
    let left_side =
        frags.iter().filter(|f| f.x0 > cx1).count() > frags.iter().filter(|f| f.x1 < cx0).count();
    if left_side {
        return true;
    }
    let mut edges: Vec<f32> = Vec::new();
    let mut leaders = 0;
    for &n in members {
        let num = &frags[n];
        let near = frags
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                !members.contains(i) && (f.y - num.y).abs() < p.level * f.size.max(num.size)
            })
            .filter(|(_, f)| f.x1 <= num.x0)
            .max_by(|a, b| a.1.x1.total_cmp(&b.1.x1));
        if let Some((_, f)) = near {
            edges.push(f.x1);
            if frag_text(page, gs, f)
                .is_some_and(|t| t.trim_end().ends_with("..") || t.ends_with(". ."))
            {
                leaders += 1;
            }
        }
    }
    let (ln, ld) = p.max_leaders;
    if edges.len() < p.min_edges || leaders * ld > edges.len() * ln {
        return false;
    }
    edges.sort_by(f32::total_cmp);
    let median = edges[edges.len() / 2];
    let aligned = edges
        .iter()
        .filter(|e| (**e - median).abs() <= p.aligned)
        .count();
    !short_of(aligned, edges.len(), p.min_aligned)
}
