//! Finding a quote in extracted text although the two were extracted differently: whitespace,
//! line-end hyphenation, ligatures (ﬁ/fi), typographic quotes and dashes all differ between
//! PDF text extractors. Both sides are reduced to lower-case letters and digits; the match is
//! mapped back to a byte range of the original text. When the reduced quote does not occur
//! verbatim (a glyph decoded differently, a dropped accent), fixed-length anchors of it that
//! still occur close together in the right order locate it. This finder locates a quote (to
//! highlight it, to serve an excerpt); whether a quote is really on a page is judged by the
//! strict matcher of `super::verify`.

use std::ops::Range;

use crate::vault::boxes::{BoxError, TextBox, text_boxes};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Byte range in the searched text.
    pub range: Range<usize>,
    /// Whether the reduced quote occurred verbatim (else anchors located it).
    pub exact: bool,
}

/// Quotes shorter than this (after reduction) are too ambiguous to locate.
pub const MIN_CHARS: usize = 6;

/// The reduced form of `text` and, for every byte of it, the source byte span it came from.
pub struct Reduced {
    pub text: String,
    spans: Vec<(usize, usize)>,
}

fn expand(c: char) -> Option<&'static str> {
    Some(match c {
        'ﬀ' => "ff",
        'ﬁ' => "fi",
        'ﬂ' => "fl",
        'ﬃ' => "ffi",
        'ﬄ' => "ffl",
        'ﬅ' | 'ﬆ' => "st",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ß' => "ss",
        _ => return None,
    })
}

pub fn reduce(text: &str) -> Reduced {
    let mut out = String::with_capacity(text.len());
    let mut spans = Vec::with_capacity(text.len());
    let mut push = |c: char, span: (usize, usize), out: &mut String| {
        for lc in c.to_lowercase() {
            if lc.is_alphanumeric() {
                out.push(lc);
                for _ in 0..lc.len_utf8() {
                    spans.push(span);
                }
            }
        }
    };
    for (i, c) in text.char_indices() {
        let span = (i, i + c.len_utf8());
        match expand(c) {
            Some(s) => s.chars().for_each(|e| push(e, span, &mut out)),
            None => push(c, span, &mut out),
        }
    }
    Reduced { text: out, spans }
}

impl Reduced {
    /// The source byte range of the reduced bytes `r`.
    pub fn source(&self, r: Range<usize>) -> Option<Range<usize>> {
        if r.is_empty() || r.end > self.spans.len() {
            return None;
        }
        Some(self.spans[r.start].0..self.spans[r.end - 1].1)
    }
}

/// Locates `quote` in `text`.
pub fn find(text: &str, quote: &str) -> Option<Found> {
    let hay = reduce(text);
    find_in(&hay, quote)
}

/// Locates `quote` in an already reduced text (reduce once, search many times).
pub fn find_in(hay: &Reduced, quote: &str) -> Option<Found> {
    let needle = reduce(quote).text;
    if needle.chars().count() < MIN_CHARS {
        return None;
    }
    if let Some(pos) = hay.text.find(&needle) {
        return Some(Found {
            range: hay.source(pos..pos + needle.len())?,
            exact: true,
        });
    }
    anchored(hay, &needle)
        .and_then(|r| hay.source(r))
        .map(|range| Found {
            range,
            exact: false,
        })
}

/// Which exact occurrence of `quote` in `text` the one at byte `start` is (0: the first), so
/// that the same occurrence is found again in another rendering of the page's text (the text
/// layer's, to draw it): a phrase a page has twice is highlighted where it was found.
pub fn occurrence(text: &str, quote: &str, start: usize) -> usize {
    let hay = reduce(text);
    let needle = reduce(quote).text;
    if needle.chars().count() < MIN_CHARS {
        return 0;
    }
    hay.text
        .match_indices(&needle)
        .filter_map(|(pos, _)| hay.source(pos..pos + needle.len()))
        .take_while(|r| r.start < start)
        .count()
}

/// [`find`], at the `nth` exact occurrence (0-based) when the text has that many, else where
/// [`find`] finds it.
pub fn find_nth(text: &str, quote: &str, nth: usize) -> Option<Found> {
    let hay = reduce(text);
    let needle = reduce(quote).text;
    if nth > 0
        && needle.chars().count() >= MIN_CHARS
        && let Some((pos, _)) = hay.text.match_indices(&needle).nth(nth)
        && let Some(range) = hay.source(pos..pos + needle.len())
    {
        return Some(Found { range, exact: true });
    }
    find_in(&hay, quote)
}

/// Pages joined into one text (each followed by a newline), so that a quote running across a
/// page break is found too, with the byte offset where each page starts.
pub struct Joined {
    pub text: String,
    pub starts: Vec<usize>,
}

impl Joined {
    pub fn new<'a>(pages: impl IntoIterator<Item = &'a str>) -> Joined {
        let mut text = String::new();
        let mut starts = Vec::new();
        for page in pages {
            starts.push(text.len());
            text.push_str(page);
            text.push('\n');
        }
        Joined { text, starts }
    }

    /// The index of the page holding byte `at` of the joined text.
    pub fn page_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The byte range of pages `first..=last` in the joined text.
    pub fn span(&self, first: usize, last: usize) -> Range<usize> {
        let lo = self.starts.get(first).copied().unwrap_or(self.text.len());
        let hi = self
            .starts
            .get(last + 1)
            .copied()
            .unwrap_or(self.text.len());
        lo..hi
    }
}

/// Where a quote occurs in joined pages: the pages it starts and ends on (indices) and its
/// byte range in the joined text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageMatch {
    pub first: usize,
    pub last: usize,
    pub found: Found,
}

/// Locates `quote` in joined pages.
pub fn find_in_pages(pages: &Joined, quote: &str) -> Option<PageMatch> {
    let found = find(&pages.text, quote)?;
    Some(PageMatch {
        first: pages.page_at(found.range.start),
        last: pages.page_at(found.range.end.saturating_sub(1).max(found.range.start)),
        found,
    })
}

const ANCHOR: usize = 12;

/// Where anchors of `needle` locate it in `hay` (a range of the reduced text).
fn anchored(hay: &Reduced, needle: &str) -> Option<Range<usize>> {
    let chars: Vec<(usize, char)> = needle.char_indices().collect();
    let n = chars.len() / ANCHOR;
    if n < 3 {
        return None;
    }
    // (implied start of the whole quote in the haystack, anchor number, anchor end)
    let mut hits: Vec<(usize, usize, usize)> = Vec::new();
    for i in 0..n {
        let from = chars[i * ANCHOR].0;
        let to = chars.get((i + 1) * ANCHOR).map_or(needle.len(), |c| c.0);
        let anchor = &needle[from..to];
        let found: Vec<usize> = hay
            .text
            .match_indices(anchor)
            .map(|(p, _)| p)
            .take(65)
            .collect();
        if found.len() > 64 {
            continue; // too common to say anything about where the quote is
        }
        for p in found {
            if p >= from {
                hits.push((p - from, i, p + anchor.len()));
            }
        }
    }
    hits.sort_unstable();
    let tolerance = (needle.len() / 8).max(16);
    let need = n.div_ceil(2).max(2);
    let mut best: Option<(usize, usize, usize)> = None; // (count, window start, window end idx)
    let mut lo = 0;
    for hi in 0..hits.len() {
        while hits[hi].0 - hits[lo].0 > tolerance {
            lo += 1;
        }
        let mut ids: Vec<usize> = hits[lo..=hi].iter().map(|h| h.1).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() >= need && best.is_none_or(|b| ids.len() > b.0) {
            best = Some((ids.len(), lo, hi));
        }
    }
    let (_, lo, hi) = best?;
    let window = &hits[lo..=hi];
    let start = window.iter().map(|h| h.0).min()?;
    // The quote's implied end covers a tail shorter than one anchor.
    let end = (window.iter().map(|h| h.2).max()?)
        .max(start + needle.len())
        .min(hay.text.len());
    // Snap to character boundaries of the reduced text.
    let start = (0..=start).rev().find(|&i| hay.text.is_char_boundary(i))?;
    let end = (end..=hay.text.len()).find(|&i| hay.text.is_char_boundary(i))?;
    Some(start..end)
}

/// The boxes of the `nth` occurrence of `quote` (see [`occurrence`]) on physical page `page`
/// of the PDF at `pdf`, for a highlight on the page image: the quote found as every quote is
/// ([`find_nth`]), its place on the page by `vault::boxes`.
pub fn page_boxes(
    pdf: &std::path::Path,
    page: u32,
    quote: &str,
    nth: usize,
) -> Result<Vec<TextBox>, BoxError> {
    let quote = quote.to_string();
    text_boxes(pdf, page, move |text| {
        find_nth(text, &quote, nth).map(|f| f.range)
    })
}

/// The boxes of the `nth` occurrence of `quote` on a page whose text is OCR: the boxes
/// tesseract gave the words it covers, one per line (`None`: not on the page).
pub fn ocr_boxes(
    ocr: &crate::vault::ocr::OcrPage,
    quote: &str,
    nth: usize,
) -> Option<Vec<TextBox>> {
    crate::vault::boxes::ocr_text_boxes(ocr, |text| find_nth(text, quote, nth).map(|f| f.range))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_occurrence_is_found_again() {
        let a = "Results. The model wins.\nLater on:\nthe model wins again, and the model wins.";
        let b = "Results. The  model\nwins. Later on: the model wins again, and the model wins.";
        let starts: Vec<usize> = a.match_indices("model wins").map(|(i, _)| i).collect();
        for (k, &s) in starts.iter().enumerate() {
            assert_eq!(occurrence(a, "model wins", s), k);
            let f = find_nth(b, "model wins", k).unwrap();
            let before = b[..f.range.start].matches("model").count();
            assert_eq!(before, k, "occurrence {k} found at {:?}", f.range);
        }
        // Past the last occurrence: where find finds it.
        assert_eq!(find_nth(b, "model wins", 9), find(b, "model wins"));
        assert_eq!(occurrence(a, "ab", 30), 0, "too short to count");
    }

    #[test]
    fn tolerant_of_layout_differences() {
        let text = "The ﬁrst re-\nsult shows that  “quoting first”\nmakes answers check-\nable at almost no cost.";
        let f = find(
            text,
            "result shows that \"quoting first\" makes answers checkable",
        )
        .unwrap();
        assert!(f.exact);
        assert!(text[f.range.clone()].starts_with("re-\nsult"));
        assert!(text[f.range].ends_with("check-\nable"));
        let f = find(text, "The first result").unwrap();
        assert_eq!(f.range.start, 0);
        assert!(find(text, "no").is_none(), "too short");
        assert!(find(text, "something that is not in the text at all").is_none());
    }

    #[test]
    fn quotes_across_a_page_break_start_on_the_right_page() {
        let pages = Joined::new([
            "First page ends with a long sen-",
            "tence that goes on here.",
            "Third.",
        ]);
        let m = find_in_pages(&pages, "a long sentence that goes on").unwrap();
        assert_eq!((m.first, m.last), (0, 1));
        let m = find_in_pages(&pages, "that goes on here").unwrap();
        assert_eq!((m.first, m.last), (1, 1));
        assert_eq!(pages.span(1, 1), 33..58);
        assert!(find_in_pages(&pages, "nowhere in these pages").is_none());
    }

    #[test]
    fn anchors_survive_a_misdecoded_glyph() {
        let text = "Intro. Reciprocal rank fusion of the two reaches a recall at 10 of 0.731, against 0.612 for BM25. End.";
        let quote = "Reciprocal rank fusion of the twQ reaches a recall at 10 of 0.731, against 0.612 for BM25";
        let f = find(text, quote).unwrap();
        assert!(!f.exact);
        let got = &text[f.range];
        assert!(
            got.contains("rank fusion") && got.contains("0.612"),
            "{got}"
        );
    }
}
