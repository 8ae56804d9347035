//! The two witnesses of a cited paper's pages: the reading order without the pages' furniture
//! ([`Prepared`]), and the text blocks in content-stream order ([`Stream`]), which no layout
//! decision can splice.

use super::*;

/// A cited source's text, normalised once for all its quotes. A paper's pages are read without
/// their furniture (running headers and footers, page numbers: [`furniture`]), so a quote runs
/// across a page break over them and is never verified by them.
pub(super) struct Prepared {
    pub(super) doc: Doc,
    pub(super) read: Witness,
    /// The furniture of each page, to leave out of the second witness too.
    pub(super) furniture: Vec<Furniture>,
    /// The pages (1-based) whose text is OCR: no second witness, the OCR tolerance.
    pub(super) ocr: Vec<u32>,
}

/// A page's furniture as the second witness needs it.
#[derive(Debug, Default)]
pub(super) struct Furniture {
    /// Its lines (trimmed).
    lines: HashSet<String>,
    /// Its footer number when the extraction put more text after it (a figure's labels): the
    /// blocks drawn after that number go to the top of the page, as in [`furniture::body`].
    number_before_text: Option<String>,
}

impl Prepared {
    pub(super) fn new(doc: Doc) -> Prepared {
        let (read, furniture) = match &doc {
            Doc::Pages(pages) => {
                let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
                let body = furniture::body(&pages);
                let numbers = furniture::page_numbers(&pages);
                let marks = furniture::lines_of(&pages)
                    .into_iter()
                    .zip(numbers)
                    .zip(&pages)
                    .map(|((lines, number), page)| Furniture {
                        lines,
                        number_before_text: number
                            .filter(|n| n.text_after)
                            .and_then(|n| page.lines().nth(n.line))
                            .map(|l| l.trim().to_string()),
                    })
                    .collect();
                (Witness::pages(body.iter().map(String::as_str)), marks)
            }
            Doc::Text(text) => (Witness::pages([text.as_str()]), Vec::new()),
        };
        Prepared {
            doc,
            read,
            furniture,
            ocr: Vec::new(),
        }
    }

    /// Whether page `i` (0-based) is OCR text.
    pub(super) fn is_ocr(&self, i: usize) -> bool {
        self.ocr.contains(&(i as u32 + 1))
    }

    /// Whether `q` is in the furniture of page `i` (0-based) or its neighbours: a running head
    /// or page number, which is no evidence.
    pub(super) fn in_furniture(&self, q: &verify::Quote, i: usize) -> bool {
        let Doc::Pages(pages) = &self.doc else {
            return false;
        };
        let lo = i.saturating_sub(1);
        let hi = (i + 1).min(pages.len().saturating_sub(1));
        let whole = Witness::pages(pages[lo..=hi].iter().map(String::as_str));
        verify::find(&whole, q, 0..whole.text.len(), &|_| true).is_some()
    }
}

/// `s` without its whitespace.
pub(super) fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `q` is on page `i` of `w`: within it, or running across its break with a
/// neighbour.
pub(super) fn on_page(w: &Witness, q: &verify::Quote, i: usize) -> bool {
    let page = w.span(i, i);
    verify::find(w, q, w.span(i.saturating_sub(1), i), &|r| {
        r.start < page.end && r.end > page.start
    })
    .is_some()
}

/// The second witness of some pages: their text blocks in content-stream order, one after
/// another (each a page of the witness), and the page (0-based) of each.
pub(super) struct Stream {
    w: Witness,
    page_of: Vec<usize>,
}

impl Stream {
    /// Pages `lo..=hi` of the paper at `path` (`None`: there is no second witness), without the
    /// lines that are the pages' furniture.
    pub(super) fn of(
        docs: &mut dyn Docs,
        path: &str,
        lo: usize,
        hi: usize,
        furniture: &[Furniture],
    ) -> Option<Stream> {
        let mut blocks = Vec::new();
        let mut page_of = Vec::new();
        for p in lo..=hi {
            // The page's furniture lines without whitespace: the stream draws a running head
            // in pieces (its page number one block, its title another), spaced differently.
            let gone: Vec<String> = furniture
                .get(p)
                .map(|g| g.lines.iter().map(|l| compact(l)).collect())
                .unwrap_or_default();
            let mut drawn = docs.blocks(path, p as u32 + 1)?;
            let number = furniture
                .get(p)
                .and_then(|f| f.number_before_text.as_deref())
                .map(compact);
            if let Some(cut) = number.and_then(|num| drawn.iter().rposition(|b| compact(b) == num))
            {
                // What was drawn after the footer's number goes first; the number goes.
                let after = drawn.split_off(cut + 1);
                drawn.pop();
                drawn.splice(0..0, after);
            }
            let n = drawn.len();
            for (k, b) in drawn.into_iter().enumerate() {
                let piece = |t: &str, edge: bool| {
                    let t = compact(t);
                    !t.is_empty()
                        && (t.chars().count() >= 4 || edge)
                        && gone.iter().any(|g| g.contains(&t))
                };
                // A whole block that is (a piece of) a furniture line; a lone number only among
                // the first or last blocks drawn, where page numbers are.
                if piece(&b, k < 3 || k + 3 >= n) {
                    continue;
                }
                let b = if gone.is_empty() {
                    b
                } else {
                    b.lines()
                        .filter(|l| !piece(l, false))
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                if b.trim().is_empty() {
                    continue;
                }
                blocks.push(b);
                page_of.push(p);
            }
        }
        Some(Stream {
            w: Witness::pages(blocks.iter().map(String::as_str)),
            page_of,
        })
    }

    /// The bytes of page `i`'s blocks (`None`: it has none).
    pub(super) fn page(&self, i: usize) -> Option<Range<usize>> {
        let first = self.page_of.iter().position(|&p| p == i)?;
        let last = self.page_of.iter().rposition(|&p| p == i)?;
        Some(self.w.span(first, last))
    }

    /// Whether `q` is on page `i` (or runs across its break with a neighbour) as the stream
    /// draws it; or, when the reading order has it there (`read`), made of pieces of one block
    /// (a formula drawn out of order).
    pub(super) fn has(&self, q: &verify::Quote, i: usize, read: bool) -> bool {
        let Some(page) = self.page(i) else {
            return false;
        };
        let from = i
            .checked_sub(1)
            .and_then(|b| self.page(b))
            .map_or(page.start, |r| r.start);
        let contiguous = verify::find(&self.w, q, from..page.end, &|r| {
            r.start < page.end && r.end > page.start
        });
        contiguous.is_some() || (read && verify::covered_by_blocks(&self.w, q))
    }
}
