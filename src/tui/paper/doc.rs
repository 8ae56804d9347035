//! One open document (a paper or a note) page by page: a cursor, search hits, the cited quote or
//! line range to highlight, and a visual selection.

use crate::context::quote;
use crate::tui::text::{self, Row};
use crate::vault::{EntryKind, Section};

#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    Missing,
    Loading,
    Text(String),
    Failed(String),
}

/// What is known about the open document besides its page texts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocInfo {
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub abstract_text: Option<String>,
    /// The kind of work and where it appeared (for its BibTeX entry; boxed, as the messages
    /// that carry a `DocInfo` stay small).
    pub publication: Box<crate::vault::publication::Publication>,
    /// The reference manager's citation key, when it gave one.
    pub citation_key: Option<String>,
    pub labels: Vec<Option<String>>,
    pub sections: Vec<Section>,
    pub pages_without_text: Vec<u32>,
    /// Pages whose glyphs could not be mapped to text (fonts without a usable encoding).
    pub pages_undecodable: Vec<u32>,
    /// Pages whose text is OCR, with what read them.
    pub ocr: Vec<crate::vault::ocr::OcrPageNote>,
    /// Byte ranges of each OCR page's words read with little confidence, to mark them.
    pub ocr_low: Vec<(u32, Vec<(usize, usize)>)>,
    /// Why the text came from the PDF directly (not indexed yet), when it did.
    pub note: Option<String>,
    /// Highlights and annotations, in page order.
    pub annotations: Vec<crate::vault::annotations::Annotation>,
}

impl DocInfo {
    /// The paper's metadata as the vault's exports read it (for its BibTeX entry and key).
    pub fn meta(&self) -> crate::vault::meta::PaperMeta {
        crate::vault::meta::PaperMeta {
            title: self.title.clone(),
            authors: self.authors.clone(),
            year: self.year,
            doi: self.doi.clone(),
            arxiv: self.arxiv.clone(),
            abstract_text: self.abstract_text.clone(),
            publication: (*self.publication).clone(),
            citation_key: self.citation_key.clone(),
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub page: u32,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchState {
    pub query: String,
    pub hits: Vec<Hit>,
    pub current: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visual {
    pub lines: bool,
    /// Byte offset in the page text where the selection started.
    pub anchor: usize,
}

#[derive(Debug)]
pub struct Doc {
    pub(super) path: String,
    pub(super) kind: EntryKind,
    pub(super) req: u64,
    pub(super) loaded: bool,
    pub(super) info: DocInfo,
    pub(super) pages: Vec<Slot>,
    /// 1-based physical page.
    pub(super) page: u32,
    pub(super) cursor_row: usize,
    pub(super) cursor_col: usize,
    pub(super) scroll: usize,
    pub(super) search: SearchState,
    /// Highlighted quote: (page, byte range).
    pub(super) quote: Option<(u32, usize, usize)>,
    /// Quote text still to be located once its page arrives.
    pub(super) pending_quote: Option<(u32, String)>,
    /// Highlighted line range of a file (1-based, inclusive).
    pub(super) lines: Option<(u32, u32)>,
    pub(super) visual: Option<Visual>,
    /// Columns the long code lines of a PDF page are scrolled across (`z l`).
    pub(super) shift: usize,
}

impl Doc {
    pub fn new(path: String, kind: EntryKind, req: u64) -> Doc {
        Doc {
            path,
            kind,
            req,
            loaded: false,
            info: DocInfo::default(),
            pages: Vec::new(),
            page: 1,
            cursor_row: 0,
            cursor_col: 0,
            scroll: 0,
            search: SearchState::default(),
            quote: None,
            pending_quote: None,
            lines: None,
            visual: None,
            shift: 0,
        }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn kind(&self) -> EntryKind {
        self.kind
    }

    /// The page shown (1-based, physical).
    pub fn page(&self) -> u32 {
        self.page
    }

    /// Whether the page count and metadata are here.
    pub fn loaded(&self) -> bool {
        self.loaded
    }

    /// The first row of the page shown at the top of the pane.
    pub fn scroll(&self) -> usize {
        self.scroll
    }

    pub fn cursor_row(&self) -> usize {
        self.cursor_row
    }

    pub fn info(&self) -> &DocInfo {
        &self.info
    }

    /// The highlighted line range of a note (1-based, inclusive).
    pub fn lines(&self) -> Option<(u32, u32)> {
        self.lines
    }

    /// The highlighted quote: (page, byte range in the page text).
    pub fn quote(&self) -> Option<(u32, usize, usize)> {
        self.quote
    }

    pub fn search_hits(&self) -> &[Hit] {
        &self.search.hits
    }

    /// The search hit the cursor is on.
    pub fn current_hit(&self) -> Option<&Hit> {
        self.search.current.and_then(|i| self.search.hits.get(i))
    }

    pub fn in_visual(&self) -> bool {
        self.visual.is_some()
    }

    pub fn page_count(&self) -> u32 {
        self.pages.len() as u32
    }

    pub fn text(&self, page: u32) -> Option<&str> {
        match self.pages.get(page.checked_sub(1)? as usize) {
            Some(Slot::Text(t)) => Some(t),
            _ => None,
        }
    }

    pub fn slot(&self) -> Option<&Slot> {
        self.pages.get(self.page.saturating_sub(1) as usize)
    }

    pub fn label(&self, page: u32) -> Option<&str> {
        self.info
            .labels
            .get(page.checked_sub(1)? as usize)
            .and_then(|l| l.as_deref())
    }

    /// `p. 12 / 40 · "283"` (the label only when it differs from the number).
    pub fn page_header(&self) -> String {
        if self.kind == EntryKind::File {
            return match &self.lines {
                Some((a, b)) => format!("lines {a}–{b}"),
                None => String::new(),
            };
        }
        if self.pages.is_empty() {
            return String::new();
        }
        let mut s = format!("p. {} / {}", self.page, self.page_count());
        if let Some(l) = self.label(self.page)
            && l != self.page.to_string()
        {
            s.push_str(&format!(" · \"{l}\""));
        }
        s
    }

    /// Width of the text column: files get a line-number gutter.
    pub fn text_width(&self, pane_width: usize) -> usize {
        if self.kind == EntryKind::File {
            pane_width.saturating_sub(self.gutter() + 1)
        } else {
            pane_width
        }
    }

    pub fn gutter(&self) -> usize {
        let lines = self.text(1).map_or(1, |t| t.split('\n').count());
        lines.to_string().len().max(3)
    }

    pub fn rows(&self, pane_width: usize) -> Vec<Row> {
        match self.text(self.page) {
            // A PDF's code lines stay lines (cut at the edge, scrolled across).
            Some(t) if self.kind == EntryKind::Paper => {
                super::code::rows(t, self.text_width(pane_width), self.shift).0
            }
            Some(t) => text::wrap(t, self.text_width(pane_width)),
            None => Vec::new(),
        }
    }

    /// Whether row `r` is a code line cut at the pane's edge (it gets the cut mark).
    pub fn row_is_cut(&self, r: &Row) -> bool {
        let Some(t) = self
            .text(self.page)
            .filter(|_| self.kind == EntryKind::Paper)
        else {
            return false;
        };
        let line_start = t[..r.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = t[r.end..].find('\n').map_or(t.len(), |i| r.end + i);
        r.end < line_end && super::code::is_code(&t[line_start..line_end])
    }

    /// Byte offset of the cursor in the page text.
    pub fn cursor_offset(&self, rows: &[Row]) -> usize {
        let Some(t) = self.text(self.page) else {
            return 0;
        };
        let Some(r) = rows.get(self.cursor_row) else {
            return 0;
        };
        t[r.start..r.end]
            .char_indices()
            .nth(self.cursor_col)
            .map(|(i, _)| r.start + i)
            .unwrap_or(r.end)
    }

    /// Moves the cursor to the row holding a byte offset.
    pub fn cursor_to_offset(&mut self, rows: &[Row], offset: usize) {
        if let Some(i) = rows.iter().rposition(|r| r.start <= offset) {
            self.cursor_row = i;
            let t = self.text(self.page).unwrap_or("");
            let r = rows[i];
            self.cursor_col = t[r.start..offset.min(r.end).max(r.start)].chars().count();
        }
    }

    /// Keeps the cursor inside the viewport.
    pub fn follow(&mut self, height: usize) {
        let h = height.max(1);
        if self.cursor_row < self.scroll {
            self.scroll = self.cursor_row;
        } else if self.cursor_row >= self.scroll + h {
            self.scroll = self.cursor_row + 1 - h;
        }
    }

    /// Selected byte range on the current page, if visual mode is on.
    pub fn selection(&self, rows: &[Row]) -> Option<(usize, usize)> {
        let v = self.visual?;
        let t = self.text(self.page)?;
        let cur = self.cursor_offset(rows);
        let (a, b) = if v.anchor <= cur {
            (v.anchor, cur)
        } else {
            (cur, v.anchor)
        };
        if v.lines {
            let start = t[..a].rfind('\n').map_or(0, |i| i + 1);
            let end = t[b..].find('\n').map_or(t.len(), |i| b + i);
            Some((start, end))
        } else {
            let end = b + t[b..].chars().next().map_or(0, char::len_utf8);
            Some((a, end))
        }
    }

    pub fn selected_text(&self, rows: &[Row]) -> Option<String> {
        let (a, b) = self.selection(rows)?;
        Some(self.text(self.page)?[a..b].to_string())
    }

    /// Re-runs the search over every loaded page.
    pub fn research(&mut self) {
        let q = self.search.query.clone();
        let mut hits = Vec::new();
        for (i, slot) in self.pages.iter().enumerate() {
            if let Slot::Text(t) = slot {
                for (s, e) in text::find_all(t, &q) {
                    hits.push(Hit {
                        page: i as u32 + 1,
                        start: s,
                        end: e,
                    });
                }
            }
        }
        self.search.hits = hits;
        if self
            .search
            .current
            .is_some_and(|c| c >= self.search.hits.len())
        {
            self.search.current = None;
        }
    }

    /// The section in effect at byte `offset` of `page` (for the header): the last heading of
    /// this page found above the offset, else the last section begun on an earlier page.
    pub fn section_at(&self, page: u32, offset: usize) -> Option<&Section> {
        let mut current = self.info.sections.iter().rev().find(|s| s.page < page);
        let text = self.text(page).unwrap_or("");
        let mut from = 0;
        for s in self.info.sections.iter().filter(|s| s.page == page) {
            // Headings appear in order, so each is searched after the one before it.
            match text
                .get(from..)
                .and_then(|t| t.find(&s.title))
                .map(|i| i + from)
            {
                Some(at) if at <= offset => {
                    current = Some(s);
                    from = at + s.title.len();
                }
                Some(_) => break,
                None => {}
            }
        }
        current
    }

    /// Places a pending quote once its page text is here.
    pub fn settle_quote(&mut self) {
        if let Some((page, q)) = &self.pending_quote
            && let Some(t) = self.text(*page)
        {
            let page = *page;
            // The context layer's finder: tolerant of ligatures, hyphenation and typography,
            // so every quote the tools verified highlights here too.
            self.quote = quote::find(t, q)
                .map(|f| f.range)
                .or_else(|| {
                    // A word too short for the quote finder (a searched `BM25`): its first
                    // place, any case.
                    let q = q.trim();
                    (!q.is_empty() && q.chars().count() < quote::MIN_CHARS)
                        .then(|| crate::tui::text::find_all(t, q).into_iter().next())
                        .flatten()
                        .map(|(s, e)| s..e)
                })
                .map(|r| (page, r.start, r.end));
            self.pending_quote = None;
        }
    }
}
