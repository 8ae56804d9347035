//! Numbered citations on a page (`[12]`, `[3, 7]`, `[3–5]`, `[12, p. 4]`) and the entries of
//! the paper's reference list they name: where each entry starts (its page and byte range in
//! that page's text) and what it says. Pure functions over the pages' text; a page of numbers
//! or brackets everywhere gives markers only where the reference list has their numbers.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::refs;

/// Entries of one reference list, at most.
const MAX_ENTRIES: usize = 2_000;
/// Markers read from one page, at most.
const MAX_MARKERS: usize = 500;
/// A range `[a–b]` is expanded only this far.
const MAX_SPAN: u32 = 50;
/// The text kept of one entry, in bytes.
const MAX_ENTRY: usize = 1_500;
/// Pages an entry may continue on past the one where it starts.
const MAX_PAGES_ON: usize = 1;

/// One entry of a numbered reference list.
#[derive(Debug, Clone, PartialEq)]
pub struct RefEntry {
    pub number: u32,
    /// 1-based page where the entry starts.
    pub page: u32,
    /// Its bytes on that page, from its number to its end there.
    pub range: Range<usize>,
    /// The entry on one line, its number left out (continued on the next page when it is).
    pub text: String,
    /// How many bytes of `text` stand on the entry's own page (all of them, unless it goes on
    /// to the next).
    pub on_page: usize,
}

/// A paper's numbered reference list, in number order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReferenceList {
    pub entries: Vec<RefEntry>,
}

impl ReferenceList {
    /// The entry numbered `n`.
    pub fn get(&self, n: u32) -> Option<&RefEntry> {
        self.entries
            .binary_search_by_key(&n, |e| e.number)
            .ok()
            .map(|i| &self.entries[i])
    }

    /// True when the bytes at `at` of page `page` start an entry (its own `[n]`, not a
    /// citation).
    fn starts_entry(&self, page: u32, at: usize) -> bool {
        self.entries
            .iter()
            .any(|e| e.page == page && e.range.start == at)
    }
}

/// A numbered citation on a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Its bytes in the page text, brackets included.
    pub range: Range<usize>,
    /// The numbers it cites, in its order (a range expanded).
    pub numbers: Vec<u32>,
}

static BRACKET_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\[(\d{1,4})\]\s*\S").expect("valid regex"));
static DOT_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d{1,4})\.\s+\S").expect("valid regex"));
/// `[12]`, `[3, 7]`, `[3–5]`, `[3-5, 9]`, `[12, p. 4]`, `[12, pp. 4–6]`.
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–—]\s*\d{1,4})?)*(?:\s*,\s*pp?\.\s*\d{1,5}(?:\s*[-–—]\s*\d{1,5})?)?\s*\]")
        .expect("valid regex")
});

/// The numbered reference list of a paper from its page texts (pages in order, page 1 first):
/// the entries after the last References heading that start `[n]` (or `n.` when no line starts
/// with a bracket), each number following the one before (a gap of two missed entries at most),
/// so numbered lines of other kinds are not taken for entries. Empty when there is none.
pub fn reference_list(pages: &[&str]) -> ReferenceList {
    let Some((first, offset)) = refs::list_start(pages) else {
        return ReferenceList::default();
    };
    let lines = list_lines(pages, first, offset);
    let bracketed = lines
        .iter()
        .filter(|l| BRACKET_ENTRY.is_match(l.text))
        .count();
    let style: &Regex = if bracketed >= 2 {
        &BRACKET_ENTRY
    } else {
        &DOT_ENTRY
    };
    let mut entries: Vec<RefEntry> = Vec::new();
    let mut open: Option<(usize, usize)> = None; // the entry being read, and its page index
    for line in &lines {
        let number = style
            .captures(line.text)
            .and_then(|c| c[1].parse::<u32>().ok())
            .filter(|&n| follows(entries.last().map(|e| e.number), n));
        if let Some(n) = number {
            if entries.len() >= MAX_ENTRIES {
                break;
            }
            entries.push(RefEntry {
                number: n,
                page: line.page as u32 + 1,
                range: line.at..line.at + line.text.len(),
                text: strip_number(line.text).to_string(),
                on_page: usize::MAX,
            });
            open = Some((entries.len() - 1, line.page));
            continue;
        }
        let Some((i, page)) = open else { continue };
        let e = &mut entries[i];
        if line.page > page + MAX_PAGES_ON || e.text.len() >= MAX_ENTRY {
            continue;
        }
        if line.page == page && !line.text.trim().is_empty() {
            e.range.end = line.at + line.text.len();
        }
        let before = e.text.len();
        let unhyphenated = join_line(&mut e.text, line.text.trim());
        if line.page != page && e.on_page == usize::MAX {
            e.on_page = before - usize::from(unhyphenated);
        }
    }
    for e in &mut entries {
        e.text = cut(&e.text, MAX_ENTRY).to_string();
        e.on_page = e.on_page.min(e.text.len());
    }
    ReferenceList { entries }
}

/// Whether `n` may be the entry after `last`.
fn follows(last: Option<u32>, n: u32) -> bool {
    match last {
        None => (1..=3).contains(&n),
        Some(l) => n > l && n <= l + 3,
    }
}

/// A line of the reference list: its page (0-based), its byte offset there, its text.
struct Line<'a> {
    page: usize,
    at: usize,
    text: &'a str,
}

/// The lines from `offset` of page `first` to the end of the list (an appendix heading, or
/// the end of the document).
fn list_lines<'a>(pages: &[&'a str], first: usize, offset: usize) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    for (p, text) in pages.iter().enumerate().skip(first) {
        let start = if p == first { offset } else { 0 };
        let mut at = start;
        for piece in text.get(start..).unwrap_or("").split_inclusive('\n') {
            let line = piece.trim_end_matches(['\n', '\r']);
            if refs::ends_list(line) {
                return out;
            }
            out.push(Line {
                page: p,
                at,
                text: line,
            });
            at += piece.len();
        }
    }
    out
}

/// An entry's text after its `[n]` or `n.`.
fn strip_number(line: &str) -> &str {
    let t = line.trim_start();
    let rest = if let Some(r) = t.strip_prefix('[') {
        r.split_once(']').map_or(r, |(_, r)| r)
    } else {
        t.trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start_matches('.')
    };
    rest.trim()
}

/// Appends a continuation line, a word hyphenated at the line's end joined again (then true).
fn join_line(text: &mut String, line: &str) -> bool {
    if line.is_empty() {
        return false;
    }
    let unhyphenated = text.ends_with('-') && line.chars().next().is_some_and(char::is_lowercase);
    if unhyphenated {
        text.pop();
    } else if !text.is_empty() {
        text.push(' ');
    }
    text.push_str(line);
    unhyphenated
}

/// `s` cut to at most `max` bytes, on a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The numbered citations of page `page` (1-based) whose numbers the reference list has
/// (numbers it lacks are dropped from a marker; a marker left with none is not one), in page
/// order. The list's own entry numbers are not citations.
pub fn citation_markers(text: &str, page: u32, list: &ReferenceList) -> Vec<Marker> {
    if list.entries.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for m in MARKER.find_iter(text) {
        if out.len() >= MAX_MARKERS {
            break;
        }
        // `[12]` at the start of an entry's line is the entry itself.
        let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
        if text[line_start..m.start()].trim().is_empty() && list.starts_entry(page, line_start) {
            continue;
        }
        let numbers: Vec<u32> = numbers(m.as_str())
            .into_iter()
            .filter(|n| list.get(*n).is_some())
            .collect();
        if !numbers.is_empty() {
            out.push(Marker {
                range: m.range(),
                numbers,
            });
        }
    }
    out
}

/// The numbers a marker's text cites: `[3, 7]` → 3, 7; `[3–5]` → 3, 4, 5; `[12, p. 4]` → 12.
fn numbers(marker: &str) -> Vec<u32> {
    let inner = marker.trim_start_matches('[').trim_end_matches(']');
    let mut out: Vec<u32> = Vec::new();
    for part in inner.split([',', ';']) {
        let part = part.trim();
        if part.starts_with('p') {
            break; // the page of the last citation
        }
        let mut ends = part.split(['-', '–', '—']).map(|s| s.trim().parse::<u32>());
        match (ends.next(), ends.next()) {
            (Some(Ok(a)), None) => out.push(a),
            (Some(Ok(a)), Some(Ok(b))) if b >= a && b - a <= MAX_SPAN => out.extend(a..=b),
            (Some(Ok(a)), Some(Ok(b))) => out.extend([a, b]),
            _ => {}
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|n| seen.insert(*n));
    out
}

#[cfg(test)]
mod tests;
