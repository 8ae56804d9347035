//! Quotes of OCR pages. A page whose text tesseract read (no usable text layer) has no second
//! witness (no content stream draws its text) and letters a scanner confuses; a quote of it is
//! verified as `✓ (OCR)`, never as a plain ✓, when it is on the cited page after both sides
//! are folded by the written tolerance:
//!
//! - the letters and digits OCR confuses count as one: `l`, `I`, `1` and `|`; `O` and `0`;
//!   `rn` and `m`;
//! - what verification tolerates anywhere: case, accents, white space, quotation marks, dashes,
//!   and a word hyphenated at a line break read whole.
//!
//! Anything else (another word, another number, a missing word) is not verified.

use super::verify::{self, Quote, Witness};
use super::{Doc, Judged, Prepared, Verdict};

/// `text` with each class of confusable characters made one (see the module's tolerance).
pub(super) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            'l' | 'I' | '1' | '|' => out.push('l'),
            'O' | '0' => out.push('o'),
            'r' if chars.peek() == Some(&'n') => {
                chars.next();
                out.push('m');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The verdict on `q` cited at page `i` (0-based), an OCR page: `✓ (OCR)` when it is there
/// within the tolerance (it may run on to a neighbouring page), else `None`.
pub(super) fn judge(i: usize, q: &Quote, src: &Prepared) -> Option<Judged> {
    let Doc::Pages(pages) = &src.doc else {
        return None;
    };
    let n = pages.len();
    if i >= n {
        return None;
    }
    let (lo, hi) = (i.saturating_sub(1), (i + 1).min(n - 1));
    let folded: Vec<String> = pages[lo..=hi].iter().map(|p| fold(p)).collect();
    let w = Witness::pages(folded.iter().map(String::as_str));
    let qf = Quote::new(&fold(&q.text))?;
    let on = w.span(i - lo, i - lo);
    verify::find(&w, &qf, on, &|_| true).map(|_| Judged::new(Verdict::VerifiedOcr))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prepared(pages: &[&str], ocr: &[u32]) -> Prepared {
        let mut p = Prepared::new(Doc::Pages(pages.iter().map(|s| s.to_string()).collect()));
        p.ocr = ocr.to_vec();
        p
    }

    #[test]
    fn confusable_letters_and_hyphenation_verify_a_changed_word_does_not() {
        let src = prepared(
            &[
                "Title page",
                "The LinnSequencer is a state-of-the-art compo-\nsition too1 for the professiona| musician in 1985.",
            ],
            &[2],
        );
        let q = |s: &str| Quote::new(s).unwrap();
        for ok in [
            "a state-of-the-art composition tool for the professional musician",
            "tool for the professional musician in 1985",
            "The LinnSequencer is a state-of-the-art",
        ] {
            let j = judge(1, &q(ok), &src).expect(ok);
            assert_eq!(j.verdict, Verdict::VerifiedOcr, "{ok}");
        }
        for bad in [
            "a state-of-the-art composition tool for the amateur musician",
            "tool for the professional musician in 1986",
            "a state-of-the-art tool for the professional musician",
        ] {
            assert!(judge(1, &q(bad), &src).is_none(), "{bad}");
        }
        assert_eq!(fold("modern 10 Il|"), "modem lo lll");
    }
}
