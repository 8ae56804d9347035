//! Strict quote verification: a quote is on a page only when every word, number, sign and
//! operator of it is there, in order. The tolerances are exactly those of how text gets out
//! of a PDF, never of what it says: whitespace and line breaks (ignored, so scripts written
//! without spaces match character by character), line-end hyphenation (`exam-` + line break +
//! `ple`), Unicode compatibility forms and ligatures (NFKD: `ﬁ` is `fi`, full-width `５` is
//! `5`), Latin accents, letter case, typographic vs straight quotes (dropped) and dashes (all
//! one `-`), and an explicit elision (`…`, `...`, `[…]`, `[...]`) between parts that each
//! match in order, the next within [`WINDOW`] characters of the one before. Digits, decimal
//! separators, `%`, a minus, `<`/`>`/`≤`/`≥` and every letter must be the same: there is no
//! similarity threshold. When a quote is not there, [`difference`] finds the closest
//! alignment and names the first token that differs. (Locating a quote to highlight it is the
//! tolerant finder's job, in `quote`; this module only judges.)

use std::ops::Range;

/// How far (in normalised characters) the part after an elision may start after the end of
/// the part before it.
pub const WINDOW: usize = 600;

/// Elision marks, longest first: text left out of a quote.
const ELISIONS: [&str; 6] = ["[…]", "[...]", "(…)", "(...)", "…", "..."];

/// Text reduced to what verification compares, with each character's source byte range.
#[derive(Debug, Clone, Default)]
pub struct Norm {
    chars: Vec<char>,
    /// A hyphen that may be skipped: between letters, before a line break or space.
    optional: Vec<bool>,
    src: Vec<(usize, usize)>,
}

/// Quote marks of every script: dropped, as agents re-quote inner quotes freely.
fn is_quote_mark(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '`'
            | '“'
            | '”'
            | '‘'
            | '’'
            | '„'
            | '‟'
            | '‚'
            | '«'
            | '»'
            | '‹'
            | '›'
            | '「'
            | '」'
            | '『'
            | '』'
            | '＂'
            | '＇'
    )
}

fn is_dash(c: char) -> bool {
    matches!(
        c,
        '-' | '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}'
    )
}

/// Characters that carry nothing: soft hyphens, zero-width marks, control characters.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{AD}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'
    ) || (c.is_control() && !c.is_whitespace())
}

/// A script written without spaces between words (CJK, kana, Thai, Lao, Khmer, Myanmar):
/// matched character by character.
pub fn no_space_script(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF
        | 0x31F0..=0x31FF | 0xFF66..=0xFF9F | 0x0E00..=0x0EFF | 0x1000..=0x109F | 0x1780..=0x17FF)
}

impl Norm {
    pub fn new(text: &str) -> Norm {
        let mut n = Norm::default();
        // Whether whitespace came after the last kept character.
        let mut gap_after: Vec<bool> = Vec::new();
        for (i, c) in text.char_indices() {
            let span = (i, i + c.len_utf8());
            if c.is_whitespace() {
                if let Some(g) = gap_after.last_mut() {
                    *g = true;
                }
                continue;
            }
            if is_invisible(c) || is_quote_mark(c) {
                continue;
            }
            if is_dash(c) {
                // A run of dashes (`--`, `—`) is one dash.
                if n.chars.last() == Some(&'-') && gap_after.last() == Some(&false) {
                    continue;
                }
                n.push('-', span, &mut gap_after);
                continue;
            }
            let mut out = |d: char| {
                if matches!(d as u32, 0x300..=0x36F) || d.is_whitespace() {
                    return; // Latin accents, and the space of a spacing accent
                }
                if is_dash(d) {
                    n.push('-', span, &mut gap_after);
                } else {
                    for l in d.to_lowercase() {
                        n.push(l, span, &mut gap_after);
                    }
                }
            };
            unicode_normalization::char::decompose_compatible(c, &mut out);
        }
        let optional: Vec<bool> = (0..n.chars.len())
            .map(|k| {
                n.chars[k] == '-'
                    && gap_after[k]
                    && k > 0
                    && n.chars[k - 1].is_alphabetic()
                    && n.chars.get(k + 1).is_some_and(|c| c.is_alphabetic())
            })
            .collect();
        n.optional = optional;
        n
    }

    fn push(&mut self, c: char, span: (usize, usize), gap_after: &mut Vec<bool>) {
        self.chars.push(c);
        self.optional.push(false);
        self.src.push(span);
        gap_after.push(false);
    }

    pub fn len(&self) -> usize {
        self.chars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The normalised characters of source bytes `r` (those starting in it).
    fn index_range(&self, r: &Range<usize>) -> Range<usize> {
        let a = self.src.partition_point(|s| s.0 < r.start);
        let b = self.src.partition_point(|s| s.0 < r.end);
        a..b.max(a)
    }

    /// The source bytes of normalised characters `r` (non-empty).
    fn source(&self, r: Range<usize>) -> Range<usize> {
        self.src[r.start].0..self.src[r.end - 1].1
    }

    /// The same characters in reverse order (source spans kept).
    fn reversed(&self, r: Range<usize>) -> Norm {
        Norm {
            chars: self.chars[r.clone()].iter().rev().copied().collect(),
            optional: self.optional[r.clone()].iter().rev().copied().collect(),
            src: self.src[r].iter().rev().copied().collect(),
        }
    }
}

/// Matches `q` from `qi` against `h` from `hi`, character by character, an optional hyphen on
/// either side skipped where the other has none. Where it stopped: `qi == q.len()` is a match.
fn run(h: &Norm, mut hi: usize, q: &Norm, mut qi: usize) -> (usize, usize) {
    while qi < q.len() {
        if hi < h.len() && h.chars[hi] == q.chars[qi] {
            qi += 1;
            hi += 1;
        } else if q.optional[qi] {
            qi += 1;
        } else if hi < h.len() && h.optional[hi] {
            hi += 1;
        } else {
            break;
        }
    }
    (qi, hi)
}

/// A quote prepared for checking: its text and its parts between elisions.
#[derive(Debug, Clone)]
pub struct Quote {
    pub text: String,
    parts: Vec<(Norm, Range<usize>)>,
}

impl Quote {
    /// `None` when nothing of it is left to check (only elision marks and punctuation).
    pub fn new(text: &str) -> Option<Quote> {
        let mut cuts: Vec<Range<usize>> = std::iter::once(0..text.len()).collect();
        for mark in ELISIONS {
            cuts = cuts
                .into_iter()
                .flat_map(|r| {
                    let piece = &text[r.clone()];
                    let mut out = Vec::new();
                    let mut from = 0;
                    for (at, _) in piece.match_indices(mark) {
                        out.push(r.start + from..r.start + at);
                        from = at + mark.len();
                    }
                    out.push(r.start + from..r.end);
                    out
                })
                .collect();
        }
        let parts: Vec<(Norm, Range<usize>)> = cuts
            .into_iter()
            .map(|r| (Norm::new(&text[r.clone()]), r))
            .filter(|(n, _)| !n.is_empty())
            .collect();
        (!parts.is_empty()).then(|| Quote {
            text: text.to_string(),
            parts,
        })
    }

    /// How many parts (elisions + 1).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// The text of part `k`.
    pub fn part_text(&self, k: usize) -> &str {
        &self.text[self.parts[k].1.clone()]
    }
}

/// A text to check quotes against: pages (or a file) joined, normalised once.
pub struct Witness {
    pub text: String,
    /// Byte offset where each page starts in `text`.
    pub starts: Vec<usize>,
    norm: Norm,
}

impl Witness {
    /// Pages joined with line breaks (a quote may run across a page break).
    pub fn pages<'a>(pages: impl IntoIterator<Item = &'a str>) -> Witness {
        let mut text = String::new();
        let mut starts = Vec::new();
        for page in pages {
            starts.push(text.len());
            text.push_str(page);
            text.push('\n');
        }
        let norm = Norm::new(&text);
        Witness { text, starts, norm }
    }

    /// The index of the page holding byte `at`.
    pub fn page_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// The bytes of pages `first..=last`.
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

/// Where part `k` of `q` matches at or after normalised `from`, starting at most `reach`
/// characters later: its normalised range.
fn place(w: &Witness, q: &Quote, k: usize, from: usize, reach: usize) -> Option<Range<usize>> {
    let part = &q.parts[k].0;
    let h = &w.norm;
    let last = from.saturating_add(reach).min(h.len());
    (from..last)
        .filter(|&s| h.chars[s] == part.chars[0])
        .find_map(|s| {
            let (qi, hi) = run(h, s, part, 0);
            (qi == part.len()).then_some(s..hi)
        })
}

/// Where `q` is in `w`, its first part starting in source bytes `starts`, every later part
/// within [`WINDOW`] of the one before, and the whole accepted by `accept` (source bytes).
pub fn find(
    w: &Witness,
    q: &Quote,
    starts: Range<usize>,
    accept: &dyn Fn(&Range<usize>) -> bool,
) -> Option<Range<usize>> {
    let h = &w.norm;
    let first = &q.parts[0].0;
    let range = h.index_range(&starts);
    for s in range.filter(|&s| h.chars[s] == first.chars[0]) {
        let (qi, mut end) = run(h, s, first, 0);
        if qi < first.len() {
            continue;
        }
        let mut whole = true;
        for k in 1..q.parts.len() {
            // Within the window, and on the same page as the part before or the next.
            let page = w.page_at(h.src[end - 1].0);
            match place(w, q, k, end, WINDOW) {
                Some(r) if w.page_at(h.src[r.start].0) <= page + 1 => end = r.end,
                _ => {
                    whole = false;
                    break;
                }
            }
        }
        if whole && end > s {
            let bytes = h.source(s..end);
            if accept(&bytes) {
                return Some(bytes);
            }
        }
    }
    None
}

/// Whether every part of `q` is made of pieces that each run on in `w` (whose pages are text
/// blocks here), every piece after the first in the block where the one before it ended: the
/// quote takes its characters from one block (in whatever order the stream drew them, as in
/// a formula), or from blocks the stream itself runs on between, never from two blocks apart.
pub fn covered_by_blocks(w: &Witness, q: &Quote) -> bool {
    q.parts.iter().all(|(part, _)| cover(w, part))
}

fn cover(w: &Witness, part: &Norm) -> bool {
    let h = &w.norm;
    let mut qi = 0;
    let mut block = 0..h.len();
    while qi < part.len() {
        if part.optional[qi] {
            qi += 1;
            continue;
        }
        let mut best = (qi, 0);
        for s in block.clone().filter(|&s| h.chars[s] == part.chars[qi]) {
            let (q2, h2) = run(h, s, part, qi);
            if q2 > best.0 {
                best = (q2, h2);
            }
        }
        if best.0 == qi {
            return false;
        }
        qi = best.0;
        let b = w.page_at(h.src[best.1 - 1].0);
        block = h.index_range(&w.span(b, b));
    }
    true
}

/// Where each part of `q` first occurs anywhere in `w` (source bytes), `None` for a part
/// that occurs nowhere.
pub fn parts_anywhere(w: &Witness, q: &Quote) -> Vec<Option<Range<usize>>> {
    (0..q.parts.len())
        .map(|k| place(w, q, k, 0, usize::MAX).map(|r| w.norm.source(r)))
        .collect()
}

/// The token of `text` around byte `at`: the run of non-space characters (a few characters
/// either side in a script written without spaces), without the punctuation around it.
fn token_at(text: &str, at: usize) -> &str {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let cjk_reach = 4;
    let mut start = at;
    let mut n = 0;
    for (i, c) in text[..at].char_indices().rev() {
        if c.is_whitespace() || (no_space_script(c) && n >= cjk_reach) {
            break;
        }
        n += usize::from(no_space_script(c));
        start = i;
    }
    let mut end = at;
    let mut n = 0;
    for (i, c) in text[at..].char_indices() {
        if c.is_whitespace() || (no_space_script(c) && n >= cjk_reach) {
            break;
        }
        n += usize::from(no_space_script(c));
        end = at + i + c.len_utf8();
    }
    let t = &text[start..end];
    let soft = |c: char| {
        matches!(
            c,
            ',' | ';' | ':' | '.' | '!' | '?' | '(' | ')' | '[' | ']' | '，' | '。' | '、'
        ) || is_quote_mark(c)
    };
    let trimmed = t.trim_matches(soft);
    if trimmed.is_empty() { t } else { trimmed }
}

/// The closest alignment of a quote part with a stretch of text: how many of its characters
/// match, and where the match stopped in the part and in the text.
struct Alignment {
    matched: usize,
    stop_q: usize,
    stop_h: usize,
    reversed: bool,
}

fn best_alignment(h: &Norm, q: &Norm, reversed: bool) -> Option<Alignment> {
    let mut best: Option<Alignment> = None;
    for s in (0..h.len()).filter(|&s| h.chars[s] == q.chars[0]) {
        let (qi, hi) = run(h, s, q, 0);
        if best.as_ref().is_none_or(|b| qi > b.matched) {
            best = Some(Alignment {
                matched: qi,
                stop_q: qi,
                stop_h: hi,
                reversed,
            });
        }
    }
    best
}

/// Why `q` is not in bytes `region` of `w`, said by the first token that differs from the
/// closest alignment: `"45.6%" — the page has "4.56%"`. `None` when nothing aligns well
/// enough to say (an invented quote).
pub fn difference(w: &Witness, q: &Quote, region: Range<usize>) -> Option<String> {
    let idx = w.norm.index_range(&region);
    if idx.is_empty() {
        return None;
    }
    // The first part that is not where the parts before it put it.
    let mut from = idx.start;
    let mut reach = idx.len();
    let k = (0..q.parts.len()).find(|&i| match place(w, q, i, from, reach) {
        Some(r) => {
            (from, reach) = (r.end, WINDOW);
            false
        }
        None => true,
    })?; // `None`: it is all there
    let (part, prange) = &q.parts[k];
    let hay = Norm {
        chars: w.norm.chars[idx.clone()].to_vec(),
        optional: w.norm.optional[idx.clone()].to_vec(),
        src: w.norm.src[idx.clone()].to_vec(),
    };
    let fwd = best_alignment(&hay, part, false);
    let rev = best_alignment(
        &hay.reversed(0..hay.len()),
        &part.reversed(0..part.len()),
        true,
    );
    let best = match (fwd, rev) {
        (Some(f), Some(r)) if r.matched > f.matched => r,
        (Some(f), _) => f,
        (None, r) => r?,
    };
    if best.matched < 8 || best.matched * 3 < part.len() {
        return None;
    }
    let (hn, qn) = if best.reversed {
        (hay.reversed(0..hay.len()), part.reversed(0..part.len()))
    } else {
        (hay, part.clone())
    };
    let quote_text = &q.text[prange.clone()];
    let qtok = token_at(quote_text, qn.src[best.stop_q].0);
    if best.stop_h >= hn.len() {
        return Some(format!("\"{qtok}\" — the page's text ends before it"));
    }
    let ptok = token_at(&w.text, hn.src[best.stop_h].0);
    // An inserted word: skipping it, the rest of the quote goes on matching.
    let tok_start = qtok.as_ptr() as usize - quote_text.as_ptr() as usize;
    let tok_end = tok_start + qtok.len();
    let next_q = if best.reversed {
        qn.src.partition_point(|s| s.0 >= tok_start)
    } else {
        qn.src.partition_point(|s| s.0 < tok_end)
    };
    let rest = qn.len() - next_q;
    let (qi, _) = run(&hn, best.stop_h, &qn, next_q);
    if rest > 0 && qi - next_q >= rest.min(12) && ptok != qtok {
        return Some(format!("\"{qtok}\" — not on the page there"));
    }
    Some(format!("\"{qtok}\" — the page has \"{ptok}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "Results. The error rate fell to 4.56% with fusion, while the baseline \
        increases the cost. The ﬁrst re-\nsult shows that “quoting first” makes answers check-\nable. \
        A change of −0.5 was seen where p < 0.05 held. It is significant.";

    fn on(text: &str, quote: &str) -> bool {
        let w = Witness::pages([text]);
        let q = Quote::new(quote).unwrap();
        find(&w, &q, 0..w.text.len(), &|_| true).is_some()
    }

    fn why(text: &str, quote: &str) -> Option<String> {
        let w = Witness::pages([text]);
        let q = Quote::new(quote).unwrap();
        difference(&w, &q, 0..w.text.len())
    }

    #[test]
    fn layout_differences_are_tolerated() {
        assert!(on(
            PAGE,
            "The first result shows that \"quoting first\" makes answers checkable."
        ));
        assert!(on(
            PAGE,
            "the FIRST re- sult shows that 'quoting first' makes answers check- able"
        ));
        assert!(on(PAGE, "A change of -0.5 was seen where p < 0.05 held"));
        assert!(
            on(PAGE, "A change of – 0.5 was seen"),
            "dash forms and spacing"
        );
        assert!(
            on("Ｒｅｃａｌｌ ＝ ５", "Recall = 5"),
            "compatibility forms"
        );
        assert!(
            on("Schr¨odinger and café", "Schrödinger and cafe\u{301}"),
            "accents"
        );
    }

    #[test]
    fn numbers_signs_operators_and_words_must_be_the_same() {
        assert!(!on(PAGE, "The error rate fell to 45.6% with fusion"));
        assert!(!on(PAGE, "The error rate fell to 4.56 with fusion"), "%");
        assert!(!on(PAGE, "A change of 0.5 was seen"), "dropped minus");
        assert!(!on(PAGE, "was seen where p > 0.05 held"), "reversed <");
        assert!(!on(PAGE, "was seen where p ≤ 0.05 held"));
        assert!(
            !on(PAGE, "while the baseline decreases the cost"),
            "antonym"
        );
        assert!(!on(PAGE, "It is not significant"), "negation");
        assert!(
            !on(PAGE, "The error rate fell to 4.56% with fusiom"),
            "one letter"
        );
    }

    #[test]
    fn elisions_in_order_within_a_window() {
        assert!(on(PAGE, "The error rate fell … makes answers checkable"));
        assert!(on(PAGE, "The error rate fell [...] It is significant"));
        assert!(
            !on(PAGE, "It is significant … The error rate fell"),
            "order"
        );
        let far = format!(
            "Start of it here. {} End of it there.",
            "filler words ".repeat(80)
        );
        assert!(
            !on(&far, "Start of it here … End of it there"),
            "too far apart"
        );
        assert!(Quote::new(" … ... ").is_none());
    }

    #[test]
    fn no_space_scripts_match_by_characters() {
        let page = "本文提出一种新的\n方法，实验结果表明准确率提高了 5.2%。";
        assert!(on(page, "本文提出一种新的方法"));
        assert!(on(page, "本 文 提 出 一种新的方法，实验结果"));
        assert!(!on(page, "本文提出一种旧的方法"));
        assert!(!on(page, "准确率提高了 2.5%"));
        let d = why(page, "实验结果表明准确率降低了 5.2%").unwrap();
        assert!(d.contains("降低") && d.contains("提高"), "{d}");
    }

    #[test]
    fn the_difference_names_the_token() {
        assert_eq!(
            why(PAGE, "The error rate fell to 45.6% with fusion").as_deref(),
            Some("\"45.6%\" — the page has \"4.56%\"")
        );
        assert_eq!(
            why(PAGE, "with fusion, while the baseline decreases the cost").as_deref(),
            Some("\"decreases\" — the page has \"increases\"")
        );
        assert_eq!(
            why(PAGE, "held. It is not significant.").as_deref(),
            Some("\"not\" — not on the page there")
        );
        // The first word changed: aligned from the end.
        assert_eq!(
            why(
                PAGE,
                "Conclusions. The error rate fell to 4.56% with fusion"
            )
            .as_deref(),
            Some("\"Conclusions\" — the page has \"Results\"")
        );
        assert_eq!(
            why(PAGE, "Nothing like this is written anywhere at all"),
            None
        );
        assert_eq!(why(PAGE, "The error rate fell to 4.56% with fusion"), None);
    }
}
