//! tesseract's TSV output (`tesseract IMAGE stdout tsv`) read into words with their boxes,
//! confidences and lines, and the page text made of them. The output comes from another
//! program and is read as hostile: a header that is not tesseract's, a row with the wrong
//! number of columns or a box outside the image makes the whole page unreadable (it is OCR'd
//! again later, never half-trusted); control characters and U+FFFD are dropped from words.

use serde::{Deserialize, Serialize};

/// Words on one page, at most: a dense page of small type has a few thousand.
pub const MAX_WORDS: usize = 50_000;
/// Characters of one word, at most.
pub const MAX_WORD_CHARS: usize = 200;

const HEADER: &str =
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";

/// One recognized word: its text, tesseract's confidence (0–100), its box in pixels of the
/// rendered page (`[left, top, right, bottom]`, right and bottom exclusive), and the line and
/// paragraph it is in (numbered from 0 in reading order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Word {
    pub text: String,
    pub conf: f32,
    pub bbox: [u32; 4],
    pub line: u32,
    pub par: u32,
}

/// The words of a TSV page rendered at `width`x`height` pixels.
pub fn parse(tsv: &str, width: u32, height: u32) -> Result<Vec<Word>, String> {
    let mut rows = tsv.lines();
    if rows.next().map(str::trim_end) != Some(HEADER) {
        return Err("not tesseract's TSV output (no header)".into());
    }
    let mut words = Vec::new();
    // (block, par, line) of the last word, and the numbers given so far.
    let mut last: Option<(u64, u64, u64)> = None;
    let (mut line, mut par) = (0u32, 0u32);
    for (n, row) in rows.enumerate() {
        if row.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = row.splitn(12, '\t').collect();
        if cols.len() < 11 {
            return Err(format!("row {} has {} columns, not 12", n + 2, cols.len()));
        }
        let num = |i: usize| -> Result<u64, String> {
            cols[i]
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("row {}: column {} is not a number", n + 2, i + 1))
        };
        if num(0)? != 5 {
            continue;
        }
        let conf: f32 = cols[10]
            .trim()
            .parse()
            .map_err(|_| format!("row {}: the confidence is not a number", n + 2))?;
        if !conf.is_finite() || !(0.0..=100.0).contains(&conf) {
            // A word tesseract gave no confidence (-1) is not a word it read.
            continue;
        }
        let text = clean(cols.get(11).copied().unwrap_or(""));
        if text.is_empty() {
            continue;
        }
        let (left, top, w, h) = (num(6)?, num(7)?, num(8)?, num(9)?);
        let (right, bottom) = (left + w, top + h);
        if right > u64::from(width) || bottom > u64::from(height) {
            return Err(format!("row {}: a box outside the page", n + 2));
        }
        if words.len() >= MAX_WORDS {
            return Err(format!("more than {MAX_WORDS} words on one page"));
        }
        let place = (num(2)?, num(3)?, num(4)?);
        match last {
            None => {}
            Some((b, p, _)) if (b, p) != (place.0, place.1) => {
                par += 1;
                line += 1;
            }
            Some((_, _, l)) if l != place.2 => line += 1,
            _ => {}
        }
        last = Some(place);
        words.push(Word {
            text,
            conf,
            bbox: [left as u32, top as u32, right as u32, bottom as u32],
            line,
            par,
        });
    }
    Ok(words)
}

/// A word's text without control characters, replacement characters and outer white space,
/// cut to [`MAX_WORD_CHARS`].
fn clean(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() && *c != '\u{FFFD}')
        .take(MAX_WORD_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// Whether `c` is written without spaces between words (Han, kana, Hangul syllables are not,
/// but tesseract separates their characters as words all the same).
pub fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

/// The page text of `words`: lines ended by a newline, paragraphs by an empty line, words of a
/// line joined by a space (none between two characters of an unspaced script). With it, the
/// byte range of each word in the text.
pub fn text(words: &[Word]) -> (String, Vec<std::ops::Range<usize>>) {
    let mut out = String::new();
    let mut spans = Vec::with_capacity(words.len());
    let mut prev: Option<&Word> = None;
    for w in words {
        if let Some(p) = prev {
            if p.par != w.par {
                out.push_str("\n\n");
            } else if p.line != w.line {
                out.push('\n');
            } else {
                let joined = p.text.chars().last().is_some_and(unspaced)
                    && w.text.chars().next().is_some_and(unspaced);
                if !joined {
                    out.push(' ');
                }
            }
        }
        let start = out.len();
        out.push_str(&w.text);
        spans.push(start..out.len());
        prev = Some(w);
    }
    (out, spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        block: u32,
        par: u32,
        line: u32,
        word: u32,
        left: u32,
        conf: &str,
        text: &str,
    ) -> String {
        format!("5\t1\t{block}\t{par}\t{line}\t{word}\t{left}\t10\t20\t12\t{conf}\t{text}\n")
    }

    #[test]
    fn words_lines_and_paragraphs() {
        let mut tsv = format!("{HEADER}\n");
        tsv.push_str("1\t1\t0\t0\t0\t0\t0\t0\t500\t500\t-1\t\n");
        tsv.push_str("4\t1\t1\t1\t1\t0\t0\t0\t500\t20\t-1\t\n");
        tsv.push_str(&row(1, 1, 1, 1, 0, "96.5", "The"));
        tsv.push_str(&row(1, 1, 1, 2, 30, "91", "quick"));
        tsv.push_str(&row(1, 1, 2, 1, 0, "40.25", "fox\u{7}"));
        tsv.push_str(&row(2, 1, 1, 1, 0, "88", "Next"));
        tsv.push_str(&row(2, 1, 1, 2, 30, "-1", "ghost"));
        tsv.push_str(&row(2, 1, 1, 3, 60, "77", "\u{FFFD}"));
        let words = parse(&tsv, 500, 500).unwrap();
        let got: Vec<(&str, u32, u32)> = words
            .iter()
            .map(|w| (w.text.as_str(), w.line, w.par))
            .collect();
        assert_eq!(
            got,
            vec![
                ("The", 0, 0),
                ("quick", 0, 0),
                ("fox", 1, 0),
                ("Next", 2, 1)
            ]
        );
        assert_eq!(words[1].bbox, [30, 10, 50, 22]);
        assert_eq!(words[2].conf, 40.25);
        let (text, spans) = text(&words);
        assert_eq!(text, "The quick\nfox\n\nNext");
        assert_eq!(&text[spans[3].clone()], "Next");
    }

    #[test]
    fn cjk_characters_are_joined_without_spaces() {
        let mut tsv = format!("{HEADER}\n");
        for (i, w) in ["日本", "語", "の", "OCR", "です"].iter().enumerate() {
            tsv.push_str(&row(1, 1, 1, i as u32 + 1, i as u32 * 20, "90", w));
        }
        let (text, _) = text(&parse(&tsv, 500, 500).unwrap());
        assert_eq!(text, "日本語の OCR です");
    }

    #[test]
    fn hostile_output_is_refused() {
        assert!(parse("", 10, 10).is_err());
        assert!(parse("garbage\n5\t1", 10, 10).is_err());
        let short = format!("{HEADER}\n5\t1\t1\t1\n");
        assert!(parse(&short, 10, 10).unwrap_err().contains("columns"));
        let outside = format!("{HEADER}\n{}", row(1, 1, 1, 1, 495, "90", "edge"));
        assert!(parse(&outside, 500, 500).unwrap_err().contains("outside"));
        let nan = format!("{HEADER}\n{}", row(1, 1, 1, 1, 0, "NaN", "x"));
        assert!(parse(&nan, 500, 500).unwrap().is_empty());
        let letters = format!("{HEADER}\n5\t1\t1\t1\t1\t1\tleft\t0\t1\t1\t90\tx\n");
        assert!(parse(&letters, 500, 500).is_err());
        let long = format!("{HEADER}\n{}", row(1, 1, 1, 1, 0, "90", &"w".repeat(1000)));
        assert_eq!(
            parse(&long, 500, 500).unwrap()[0].text.len(),
            MAX_WORD_CHARS
        );
    }
}
