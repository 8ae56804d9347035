//! What a search returns: page-level cards, paper-level hits, and the options of a search.

use serde::{Deserialize, Serialize};

use crate::vault::scan::EntryKind;

/// A search result (the field names of its JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    pub path: String,
    pub kind: EntryKind,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    /// First and last line (1-based, inclusive) for text files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// A short passage around the best match; matched words are wrapped in `**`.
    pub excerpt: String,
    pub citation_uri: String,
    /// The paper's citation key, to cite it in a manuscript (`[@key, p. 3]`); none for files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation_key: Option<String>,
    #[serde(serialize_with = "three_decimals")]
    pub score: f32,
}

/// Scores are rounded to three decimals; written as the decimal they are (`0.456`), not as the
/// nearest `f32` widened (`0.4560000002384186`).
fn three_decimals<S: serde::Serializer>(score: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((f64::from(*score) * 1000.0).round() / 1000.0)
}

/// Pages listed with a paper-level result.
pub const PAGES_LISTED: usize = 5;

/// A paper-level result: the best page as a card (its excerpt, URI and score are the paper's),
/// and the paper's best pages, best first (the first is the card's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperHit {
    #[serde(flatten)]
    pub card: Card,
    pub pages: Vec<PageRef>,
}

impl PaperHit {
    /// The best pages in page order, as a reader scans them: `p. 3, 7, 12`, or a text file's
    /// chunks, `lines 1–40, 81–120`; empty when there are none.
    pub fn places(&self) -> String {
        let mut pages: Vec<u32> = self.pages.iter().filter_map(|p| p.page).collect();
        let mut lines: Vec<[u32; 2]> = self.pages.iter().filter_map(|p| p.lines).collect();
        pages.sort_unstable();
        lines.sort_unstable();
        if !pages.is_empty() {
            let list: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
            format!("p. {}", list.join(", "))
        } else if !lines.is_empty() {
            let list: Vec<String> = lines.iter().map(|[a, b]| format!("{a}–{b}")).collect();
            format!("lines {}", list.join(", "))
        } else {
            String::new()
        }
    }
}

/// A page (or chunk of a text file) of a paper-level result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRef {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    pub citation_uri: String,
    #[serde(serialize_with = "three_decimals")]
    pub score: f32,
}

/// Restricts a search to some paths: exact files or papers, and folders (with everything inside).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Cards (page-level) or papers (paper-level) at most.
    pub limit: usize,
    pub excerpt_chars: usize,
    /// Accept any text (operators that fail to parse become plain words) instead of failing.
    pub lenient: bool,
    pub scope: Option<Scope>,
    /// Page-level: at most this many cards of one document while other documents have matches
    /// (slots nobody else can fill still go to it).
    pub per_document: Option<usize>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            excerpt_chars: 240,
            lenient: false,
            scope: None,
            per_document: None,
        }
    }
}

/// Score descending, then path, page and first line ascending: equal scores never reorder.
pub fn sort_cards(cards: &mut [Card]) {
    cards.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.page.cmp(&b.page))
            .then_with(|| a.lines.cmp(&b.lines))
    });
}
