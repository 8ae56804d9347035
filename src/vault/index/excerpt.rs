//! Excerpts: the window of a page an excerpt is cut from, the highlighted words, and their
//! `**` markup.

use crate::vault::tokenizer;

/// The part of `text` around the first place the query's longest term appears: the excerpt is
/// cut from it, and tokenizing a window instead of a 40,000-character page keeps search fast. A
/// CJK word of the query found verbatim (`phrases`, longest first) is the place: the window is
/// then one excerpt wide around it (in bytes, as the snippet generator counts), so the excerpt
/// shows it.
pub(super) fn match_window<'t>(
    text: &'t str,
    terms: &[String],
    phrases: &[String],
    max: usize,
) -> &'t str {
    const SLACK: usize = 600;
    if let Some((at, len)) = phrases
        .iter()
        .find_map(|p| text.find(p.as_str()).map(|at| (at, p.len())))
    {
        let half = max.saturating_sub(len) / 2;
        let mut start = at.saturating_sub(half);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let mut end = (at + len + half).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        return &text[start..end];
    }
    if text.len() <= max * 2 + SLACK * 2 {
        return text;
    }
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII; then fall back to the whole text.
    if lower.len() != text.len() {
        return text;
    }
    // The longest term that occurs marks the place: a short one ("th" of `hep-th/0106109`)
    // occurs inside common words long before the match.
    let Some((_, at)) = terms
        .iter()
        .filter_map(|t| Some((std::cmp::Reverse(t.len()), lower.find(t.as_str())?)))
        .min()
    else {
        return text;
    };
    let mut start = at.saturating_sub(SLACK);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + max + SLACK).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text[start..end]
}

/// Highlights as a reader sees words: CJK characters are matched one by one, so adjacent ranges
/// merge into the word they spell, and when the query has CJK words a lone character matched
/// on its own (a particle, say) is not highlighted.
pub(super) fn word_highlights(
    fragment: &str,
    ranges: &[std::ops::Range<usize>],
    cjk_words: bool,
) -> Vec<std::ops::Range<usize>> {
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => merged.push(r.clone()),
        }
    }
    let single_cjk = |s: &str| {
        let mut it = s.chars();
        matches!((it.next(), it.next()), (Some(c), None) if tokenizer::is_cjk(c))
    };
    if cjk_words {
        merged.retain(|r| fragment.get(r.clone()).is_none_or(|s| !single_cjk(s)));
    }
    merged
}

/// Marks the highlighted ranges of `fragment` (`vault::marked`) and folds whitespace.
pub(super) fn mark(fragment: &str, ranges: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(fragment.len() + ranges.len() * 4);
    let mut pos = 0;
    for r in ranges {
        if r.start < pos || r.end > fragment.len() {
            continue;
        }
        out.push_str(&fragment[pos..r.start]);
        crate::vault::marked::Marked::push_match(&mut out, &fragment[r.start..r.end]);
        pos = r.end;
    }
    out.push_str(&fragment[pos..]);
    let folded = out.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("…{folded}…")
}

/// The first `max` characters of `text`, whitespace folded, cut at a word boundary.
pub fn shorten(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= max {
        return folded;
    }
    let cut: String = folded.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{cut}…")
}
