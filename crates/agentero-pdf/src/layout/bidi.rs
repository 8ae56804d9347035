//! Right-to-left scripts (Hebrew, Arabic, Persian, Syriac, Thaana): a line is built from its
//! glyphs left to right, which for these scripts is the reverse of the order they are read in.
//! Each line holding such text is put back in reading (logical) order with the reordering rule
//! of the Unicode bidirectional algorithm: levels are given to the characters as they stand on
//! the page (right-to-left letters odd, left-to-right words and numbers even, spaces and
//! punctuation those of their neighbours), and every run at or above each level is reversed,
//! highest first. The rule is its own inverse for one set of levels, so it takes the page's
//! order back to the order the text was written in. Brackets in right-to-left runs were drawn
//! mirrored and are mirrored back.

use super::TextBox;
use crate::util::is_rtl;

#[derive(Clone, Copy, PartialEq)]
enum Class {
    /// Right-to-left letter.
    R,
    /// Left-to-right letter.
    L,
    /// Digit (European or Arabic-Indic): written left to right inside any text.
    D,
    /// Space or punctuation: takes the direction of what surrounds it.
    N,
}

fn class(c: char) -> Class {
    if is_rtl(c) {
        Class::R
    } else if c.is_numeric() {
        Class::D
    } else if c.is_alphabetic() {
        Class::L
    } else {
        Class::N
    }
}

fn mirror(c: char) -> char {
    match c {
        '(' => ')',
        ')' => '(',
        '[' => ']',
        ']' => '[',
        '{' => '}',
        '}' => '{',
        '<' => '>',
        '>' => '<',
        '«' => '»',
        '»' => '«',
        '‹' => '›',
        '›' => '‹',
        c => c,
    }
}

/// The line in reading order, when it holds right-to-left text (`None` when it holds none);
/// `cells` (sorted by offset) move with their characters and stay sorted.
pub(super) fn to_logical(text: &str, cells: &mut [TextBox]) -> Option<String> {
    if text.is_ascii() || !text.chars().any(is_rtl) {
        return None;
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let classes: Vec<Class> = chars.iter().map(|&(_, c)| class(c)).collect();
    let rtl = classes.iter().filter(|&&k| k == Class::R).count();
    let ltr = classes.iter().filter(|&&k| k == Class::L).count();
    let base: u8 = u8::from(rtl >= ltr);
    let levels = levels(&classes, base);

    // L2: from the highest level down to the lowest odd one, reverse every run at or above it.
    let mut order: Vec<usize> = (0..chars.len()).collect();
    let top = levels.iter().copied().max().unwrap_or(0);
    let low = levels
        .iter()
        .copied()
        .filter(|l| l % 2 == 1)
        .min()
        .unwrap_or(top + 1);
    for level in (low..=top).rev() {
        let mut i = 0;
        while i < order.len() {
            if levels[order[i]] < level {
                i += 1;
                continue;
            }
            let start = i;
            while i < order.len() && levels[order[i]] >= level {
                i += 1;
            }
            order[start..i].reverse();
        }
    }

    let mut out = String::with_capacity(text.len());
    // Old byte offset of each character → its new one.
    let mut moved: Vec<(u32, u32)> = Vec::with_capacity(chars.len());
    for &k in &order {
        let (off, c) = chars[k];
        moved.push((off as u32, out.len() as u32));
        out.push(if levels[k] % 2 == 1 { mirror(c) } else { c });
    }
    moved.sort_unstable();
    for cell in cells.iter_mut() {
        if let Ok(i) = moved.binary_search_by_key(&cell.at, |m| m.0) {
            cell.at = moved[i].1;
        }
    }
    cells.sort_by_key(|c| c.at);
    Some(out)
}

/// Each character's embedding level, the line's base level being `base` (1: right to left).
fn levels(classes: &[Class], base: u8) -> Vec<u8> {
    // Letters and numbers first: in a right-to-left line, left-to-right words and numbers are
    // one level up (2); in a left-to-right line, right-to-left words are 1, and numbers 2 when a
    // right-to-left letter is the nearest letter on both sides, else 0.
    let letter = |k: &Class| matches!(k, Class::R | Class::L);
    let levels: Vec<Option<u8>> = classes
        .iter()
        .enumerate()
        .map(|(i, &k)| match (k, base) {
            (Class::R, _) => Some(1),
            (Class::L, 1) | (Class::D, 1) => Some(2),
            (Class::L, _) => Some(0),
            (Class::D, _) => {
                let before = classes[..i].iter().rev().find(|k| letter(k));
                let after = classes[i + 1..].iter().find(|k| letter(k));
                Some(if before == Some(&Class::R) && after == Some(&Class::R) {
                    2
                } else {
                    0
                })
            }
            (Class::N, _) => None,
        })
        .collect();
    // Neutrals: between two characters of one direction they take it; else the base's.
    (0..classes.len())
        .map(|i| {
            levels[i].unwrap_or_else(|| {
                let before = levels[..i].iter().rev().flatten().next();
                let after = levels[i + 1..].iter().flatten().next();
                match (before, after) {
                    (Some(a), Some(b)) if a % 2 == b % 2 => *a.min(b),
                    _ => base,
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logical(visual: &str) -> String {
        to_logical(visual, &mut []).unwrap_or_else(|| visual.to_string())
    }

    #[test]
    fn hebrew_words_read_right_to_left() {
        // "תקציר בעברית" drawn left to right on the page.
        let visual: String = "תקציר בעברית".chars().rev().collect();
        assert_eq!(logical(&visual), "תקציר בעברית");
    }

    #[test]
    fn numbers_and_latin_words_keep_their_order_inside() {
        // Logical "פרק 12 על LaTeX" is shown as "LaTeX לע 12 קרפ".
        assert_eq!(logical("LaTeX לע 12 קרפ"), "פרק 12 על LaTeX");
    }

    #[test]
    fn brackets_are_mirrored_back() {
        // Logical "(מבוא)" is shown with its brackets mirrored: "(אובמ)".
        assert_eq!(logical("(אובמ)"), "(מבוא)");
    }

    #[test]
    fn a_hebrew_word_in_an_english_line() {
        assert_eq!(
            logical("the word םולש means peace"),
            "the word שלום means peace"
        );
    }

    #[test]
    fn lines_without_right_to_left_text_are_left_alone() {
        assert_eq!(to_logical("plain text, 12 (ok)", &mut []), None);
        assert_eq!(to_logical("中文 text", &mut []), None);
    }
}
