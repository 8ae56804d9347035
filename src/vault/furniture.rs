//! Page furniture: running headers and footers and page numbers. They are told from the text by
//! their place — the first or last lines of a page — and by repetition across the document: a
//! line whose shape (letters kept, every number and roman numeral the same `#`) stands at the
//! same edge of two or more pages, or a line that is only a page number (`17`, `- 17 -`,
//! `Page 3 of 9`, `xii`). The verifier steps over them at a page break and never takes them as
//! evidence.

use std::collections::{HashMap, HashSet};

/// How many non-blank lines at each edge of a page may be furniture.
const EDGE: usize = 2;

/// The shortest shape (characters) a repeated line needs to count: shorter ones are too common
/// to tell a heading from a word.
const MIN_SHAPE: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Zone {
    Top,
    Bottom,
}

/// The furniture lines of each page: indexes into that page's `lines()`, ascending.
pub fn detect(pages: &[&str]) -> Vec<Vec<usize>> {
    let edges: Vec<Vec<(Zone, usize, String)>> = pages.iter().map(|p| edge_lines(p)).collect();
    let mut seen: HashMap<(Zone, &str), HashSet<usize>> = HashMap::new();
    for (page, lines) in edges.iter().enumerate() {
        for (zone, _, shape) in lines {
            seen.entry((*zone, shape.as_str()))
                .or_default()
                .insert(page);
        }
    }
    // A repeated line counts with a few letters, or with a number in it (`?????-#`, a footer
    // that numbers the page).
    let furniture = |zone: Zone, shape: &str| {
        is_page_number(shape)
            || ((shape.chars().filter(|c| c.is_alphabetic()).count() >= MIN_SHAPE
                || (shape.contains('#') && shape.chars().filter(|c| *c != ' ').count() >= 3))
                && seen.get(&(zone, shape)).is_some_and(|p| p.len() >= 2))
    };
    let numbers = page_numbers(pages);
    edges
        .iter()
        .zip(numbers)
        .map(|(lines, number)| {
            // From each edge inwards, only while every line so far is furniture: a line of text
            // that happens to repeat further in is text.
            let mut out = Vec::new();
            for zone in [Zone::Top, Zone::Bottom] {
                for (z, i, shape) in lines.iter().filter(|(z, _, _)| *z == zone) {
                    if !furniture(*z, shape) {
                        break;
                    }
                    out.push(*i);
                }
            }
            out.extend(number.map(|n| n.line));
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// A page's own number where the extraction did not leave it at an edge (a figure's labels,
/// drawn after the footer, follow it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageNumber {
    /// Its index in the page's `lines()`.
    pub line: usize,
    /// Whether it stands in the lower half of the page's lines with text after it: the body's
    /// last line is the one before it, and what follows is drawn elsewhere on the page.
    pub text_after: bool,
}

/// How far from an edge (non-blank lines) a page's number is looked for.
const NUMBER_REACH: usize = 40;

/// Each page's number line, when the document numbers its pages in sequence: a line that is only
/// a number (`8`, `- 8 -`), equal to the page's position plus an offset that most pages share
/// (at least three, and a third of them). Sequence, not place, tells it from a number in the
/// text: a table cell `8` on page 8 of a paper numbered from 1 is taken only when no other line
/// of the page is the number and it is within the reach of an edge.
pub fn page_numbers(pages: &[&str]) -> Vec<Option<PageNumber>> {
    let found = number_lines(pages);
    let Some(offset) = offset_of(&found, pages.len()) else {
        return vec![None; pages.len()];
    };
    found
        .iter()
        .enumerate()
        .map(|(p, here)| {
            let want = p as i64 + offset;
            let hits: Vec<usize> = here
                .iter()
                .filter(|(_, v)| *v == want)
                .map(|(i, _)| *i)
                .collect();
            let [line] = hits[..] else {
                return None;
            };
            let lines: Vec<usize> = pages[p]
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, _)| i)
                .collect();
            let k = lines.iter().position(|&i| i == line)?;
            Some(PageNumber {
                line,
                text_after: k * 2 >= lines.len() && k + 1 < lines.len(),
            })
        })
        .collect()
}

/// The printed number of each page when the document numbers its pages in sequence (as
/// [`page_numbers`] finds it): page `i` (0-based) is printed as `i + offset`. `None` when no
/// numbering is found.
pub fn numbering_offset(pages: &[&str]) -> Option<i64> {
    offset_of(&number_lines(pages), pages.len())
}

/// (line, value) of every bare number line near an edge, page by page.
fn number_lines(pages: &[&str]) -> Vec<Vec<(usize, i64)>> {
    let mut found: Vec<Vec<(usize, i64)>> = Vec::with_capacity(pages.len());
    for page in pages {
        let lines: Vec<(usize, &str)> = page
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .collect();
        let n = lines.len();
        let mut here = Vec::new();
        for (k, &(i, l)) in lines.iter().enumerate() {
            if k >= NUMBER_REACH && k + NUMBER_REACH < n {
                continue;
            }
            if let Some(v) = number_value(l) {
                here.push((i, v));
            }
        }
        found.push(here);
    }
    found
}

/// The offset most numbered pages share (at least three, and a third of them).
fn offset_of(found: &[Vec<(usize, i64)>], pages: usize) -> Option<i64> {
    let mut offsets: HashMap<i64, HashSet<usize>> = HashMap::new();
    for (p, here) in found.iter().enumerate() {
        for &(_, v) in here {
            offsets.entry(v - p as i64).or_default().insert(p);
        }
    }
    let need = (pages / 3).max(3);
    offsets
        .iter()
        .filter(|(_, p)| p.len() >= need)
        // Most pages, then the smallest offset, then the positive one: the same choice on
        // every run.
        .max_by_key(|(d, p)| (p.len(), -(d.abs()), **d))
        .map(|(d, _)| *d)
}

/// The value of a line that is only a page number in digits (`8`, `- 8 -`, `[8]`).
fn number_value(line: &str) -> Option<i64> {
    let core = line
        .trim()
        .trim_matches(|c| matches!(c, '-' | '–' | '—' | '[' | ']' | ' '));
    if core.is_empty() || core.len() > 5 || !core.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    core.parse().ok()
}

/// The pages as a reader goes through their body: without their furniture, and with what the
/// extraction put after a page's footer number (a figure's labels, drawn last) moved to the top
/// of the page, so the body's last line meets the next page's first across the break.
pub fn body(pages: &[&str]) -> Vec<String> {
    let marks = detect(pages);
    let numbers = page_numbers(pages);
    pages
        .iter()
        .zip(marks.iter().zip(&numbers))
        .map(|(page, (gone, number))| {
            let kept = |range: &mut dyn Iterator<Item = (usize, &str)>| -> Vec<String> {
                range
                    .filter(|(i, _)| gone.binary_search(i).is_err())
                    .map(|(_, l)| l.to_string())
                    .collect()
            };
            let lines: Vec<(usize, &str)> = page.lines().enumerate().collect();
            match number.filter(|n| n.text_after) {
                None => kept(&mut lines.iter().copied()).join("\n"),
                Some(n) => {
                    let mut out = kept(&mut lines[n.line + 1..].iter().copied());
                    out.push(String::new());
                    out.extend(kept(&mut lines[..n.line].iter().copied()));
                    out.join("\n")
                }
            }
        })
        .collect()
}

/// The pages without their furniture lines (the other lines as they were).
pub fn strip(pages: &[&str]) -> Vec<String> {
    let marks = detect(pages);
    pages
        .iter()
        .zip(&marks)
        .map(|(page, gone)| {
            if gone.is_empty() {
                return page.to_string();
            }
            page.lines()
                .enumerate()
                .filter(|(i, _)| gone.binary_search(i).is_err())
                .map(|(_, l)| l)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

/// The furniture lines' texts of each page (trimmed), to recognise them elsewhere (the page's
/// blocks in drawing order).
pub fn lines_of(pages: &[&str]) -> Vec<HashSet<String>> {
    pages
        .iter()
        .zip(detect(pages))
        .map(|(page, marks)| {
            let lines: Vec<&str> = page.lines().collect();
            marks
                .iter()
                .filter_map(|&i| lines.get(i))
                .map(|l| l.trim().to_string())
                .collect()
        })
        .collect()
}

/// The first and last [`EDGE`] non-blank lines of a page: zone, index, shape.
fn edge_lines(page: &str) -> Vec<(Zone, usize, String)> {
    let lines: Vec<(usize, &str)> = page
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let mut out: Vec<(Zone, usize, String)> = Vec::new();
    for &(i, l) in lines.iter().take(EDGE) {
        out.push((Zone::Top, i, shape(l)));
    }
    for &(i, l) in lines.iter().rev().take(EDGE) {
        if !out.iter().any(|(_, j, _)| *j == i) {
            out.push((Zone::Bottom, i, shape(l)));
        }
    }
    out
}

/// A line's shape: lower case, whitespace collapsed, each number and each roman numeral `#`.
fn shape(line: &str) -> String {
    let mut out = String::new();
    for word in line.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        let bare = word.trim_matches(|c: char| !c.is_alphanumeric());
        if is_roman(bare) {
            out.push_str(&word.replace(bare, "#"));
            continue;
        }
        let mut in_number = false;
        for c in word.chars() {
            if c.is_ascii_digit() {
                if !in_number {
                    out.push('#');
                }
                in_number = true;
            } else {
                in_number = false;
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

fn is_roman(word: &str) -> bool {
    (1..=7).contains(&word.len())
        && (word.chars().all(|c| "ivxlcdm".contains(c))
            || word.chars().all(|c| "IVXLCDM".contains(c)))
}

/// Whether a shape is only a page number: `#`, `- # -`, `[#]`, `page #`, `page # of #`, `# / #`,
/// `p. #`.
fn is_page_number(shape: &str) -> bool {
    let core: String = shape
        .chars()
        .filter(|c| !matches!(c, '-' | '–' | '—' | '[' | ']' | '(' | ')' | '|' | '.' | ' '))
        .collect();
    matches!(
        core.as_str(),
        "#" | "page#" | "page#of#" | "#/#" | "p#" | "seite#" | "página#" | "第#页"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_heads_and_page_numbers_at_the_edges_are_furniture() {
        let pages = [
            "Annals of Mathematics 160 (2008), 17–46\nSample Paper\nIt was changed to test.\n\n17",
            "18 AMS AND BORIS VEYTSMAN\n\nThis paper demonstrates the use of\naomart class.",
            "SAMPLE PAPER FOR THE AOMART CLASS 19\nLet A be the adjacency matrix\nof graph G.\n- 19 -",
            "20 AMS AND BORIS VEYTSMAN\nIt is well known that the number\nof spanning trees.",
        ];
        let marks = detect(&pages);
        // The first page's own header is not repeated: text. Its page number is furniture.
        assert_eq!(marks[0], vec![4]);
        assert_eq!(marks[1], vec![0]);
        // The odd page's head is once only, but its page number is one.
        assert_eq!(marks[2], vec![3]);
        assert_eq!(marks[3], vec![0]);
        let stripped = strip(&pages);
        assert_eq!(
            stripped[1],
            "\nThis paper demonstrates the use of\naomart class."
        );
        assert!(lines_of(&pages)[3].contains("20 AMS AND BORIS VEYTSMAN"));
    }

    #[test]
    fn a_page_number_before_a_figure_s_labels_is_found_and_the_labels_move_up() {
        let pages = [
            "Title of the paper\nThe body starts here and runs on\n1",
            "Body line one\nBody line two\nThe body goes on and on until\n2\nMean Squared Error\n0.0 0.5 1.0",
            "the sentence ends on this page.\nA table has a cell\n3\nof its own.\n3",
            "More text.\n4",
            "?????-5\nA footer that numbers the page.\n?????-5",
            "?????-6\nAnd another one.\n?????-6",
        ];
        let numbers = page_numbers(&pages);
        assert_eq!(
            numbers[1],
            Some(PageNumber {
                line: 3,
                text_after: true
            })
        );
        // Two lines that are the page's number: none is taken from the middle.
        assert_eq!(numbers[2], None);
        assert_eq!(detect(&pages)[1], vec![3]);
        let body = body(&pages);
        assert!(
            body[1].ends_with("The body goes on and on until"),
            "{:?}",
            body[1]
        );
        assert!(body[1].starts_with("Mean Squared Error"), "{:?}", body[1]);
        // A numbered footer without letters, repeated, is furniture.
        assert_eq!(detect(&pages)[4], vec![0, 2]);
    }

    #[test]
    fn text_that_repeats_inside_a_page_or_once_at_an_edge_stays() {
        let pages = [
            "Introduction\nThe method works.\nThe method works.\nResults follow.",
            "Results\nThe method works.\nTable 1 shows it.\nSee section 2.",
        ];
        assert_eq!(detect(&pages), vec![Vec::<usize>::new(), Vec::new()]);
        // Roman numerals are numbers: front matter is numbered so.
        assert!(is_page_number(&shape("xii")));
        assert!(is_page_number(&shape("Page 3 of 12")));
        assert!(!is_page_number(&shape("3 results")));
    }
}
