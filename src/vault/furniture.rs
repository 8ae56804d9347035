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
    let furniture = |zone: Zone, shape: &str| {
        is_page_number(shape)
            || (shape.chars().filter(|c| c.is_alphabetic()).count() >= MIN_SHAPE
                && seen.get(&(zone, shape)).is_some_and(|p| p.len() >= 2))
    };
    edges
        .iter()
        .map(|lines| {
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
            out.sort_unstable();
            out.dedup();
            out
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
