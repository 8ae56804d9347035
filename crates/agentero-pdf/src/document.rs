//! The crate's structured view of a PDF: [`Document`] → [`Page`] → [`Block`] → [`TextLine`], each
//! block and line with its box on the page, plus page labels, the outline and the document info.
//! The text is exactly what [`extract`](crate::extract) gives; blocks and lines are its
//! paragraphs and lines, with the boxes of the glyphs that drew them.

use std::collections::HashMap;

use super::layout::{self, LayoutParams, TextBox};
use super::{DocInfo, Limits, MAX_PAGES, OutlineItem, PdfError, check_deadline, content, load};

/// A rectangle in PDF user space: `[x0, y0, x1, y1]`, y growing upwards, origin at the page's
/// lower left corner (before any `/Rotate`).
pub type Rect = [f32; 4];

/// A PDF read for its text: pages in order, with the document's metadata and outline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub pages: Vec<Page>,
    /// The Info dictionary and XMP metadata, as found (not trusted: callers judge).
    pub info: DocInfo,
    /// The outline (bookmarks), flattened in document order.
    pub outline: Vec<OutlineItem>,
    /// True when the file was encrypted and opened with the empty user password.
    pub was_encrypted: bool,
}

/// One physical page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Page {
    /// 1-based physical page number.
    pub number: u32,
    /// Page label from `/PageLabels` ("iv", "283"), when the document defines one.
    pub label: Option<String>,
    /// The page's text in reading order (blocks separated by a blank line, lines by `\n`).
    pub text: String,
    /// The blocks of `text`, in the same order.
    pub blocks: Vec<Block>,
    /// Shown glyphs no font table could turn into text.
    pub unmapped_glyphs: u32,
}

/// A block of text: a paragraph, a heading, a sidebar, a code listing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub lines: Vec<TextLine>,
    /// The union of the boxes of its lines.
    pub bbox: Rect,
}

/// One line of a block, as it reads in the page text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextLine {
    pub text: String,
    /// Where the line's glyphs sit (for vertical writing, the column's box).
    pub bbox: Rect,
    /// Byte range of the line in [`Page::text`].
    pub range: std::ops::Range<usize>,
}

impl Document {
    /// Reads every page of a PDF held in memory (encrypted files open when their user password
    /// is empty). Stops with [`PdfError::Timeout`] past `limits.deadline`.
    pub fn open(bytes: &[u8], limits: Limits) -> Result<Document, PdfError> {
        Self::open_with(bytes, limits, &LayoutParams::DEFAULT)
    }

    /// [`open`](Self::open) with the layout's thresholds from `params`.
    pub fn open_with(
        bytes: &[u8],
        limits: Limits,
        params: &LayoutParams,
    ) -> Result<Document, PdfError> {
        check_deadline(&limits)?;
        let doc = load(bytes)?;
        let ids: Vec<lopdf::ObjectId> = doc.page_iter().take(MAX_PAGES).collect();
        if ids.is_empty() {
            return Err(PdfError::Malformed(
                "the document has no readable pages".into(),
            ));
        }
        let numbers: HashMap<lopdf::ObjectId, u32> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| (*id, i as u32 + 1))
            .collect();
        let labels = super::labels::page_labels(&doc, ids.len());
        let mut fonts = content::FontCache::default();
        let mut pages = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            check_deadline(&limits)?;
            let glyphs =
                content::Interpreter::new(&doc, &mut fonts, limits.deadline).run_page(id)?;
            let (text, boxes) = layout::page_layout(&glyphs, params);
            pages.push(Page {
                number: i as u32 + 1,
                label: labels.as_ref().and_then(|l| l.get(i).cloned().flatten()),
                blocks: blocks(&text, &boxes, &params.highlight),
                text,
                unmapped_glyphs: glyphs.unmapped,
            });
        }
        Ok(Document {
            pages,
            info: super::info::doc_info(&doc),
            outline: super::outline::outline(&doc, &numbers),
            was_encrypted: doc.was_encrypted(),
        })
    }

    /// The page with 1-based physical number `number`.
    pub fn page(&self, number: u32) -> Option<&Page> {
        number
            .checked_sub(1)
            .and_then(|i| self.pages.get(i as usize))
    }
}

impl Page {
    /// The lines of all blocks, in reading order.
    pub fn lines(&self) -> impl Iterator<Item = &TextLine> {
        self.blocks.iter().flat_map(|b| b.lines.iter())
    }
}

/// The blocks and lines of a page text, with the boxes of the characters in each line.
fn blocks(text: &str, boxes: &[TextBox], p: &layout::HighlightParams) -> Vec<Block> {
    let mut out = Vec::new();
    let mut at = 0;
    for para in text.split("\n\n") {
        let mut lines = Vec::new();
        let mut line_at = at;
        for line in para.split('\n') {
            let range = line_at..line_at + line.len();
            line_at = range.end + 1;
            if line.trim().is_empty() {
                continue;
            }
            let from = boxes.partition_point(|b| (b.at as usize) < range.start);
            let to = boxes.partition_point(|b| (b.at as usize) < range.end);
            let bbox = union(boxes[from..to.max(from)].iter().map(|b| b.rect_with(p)));
            lines.push(TextLine {
                text: line.to_string(),
                bbox,
                range,
            });
        }
        at += para.len() + 2;
        if !lines.is_empty() {
            let bbox = union(lines.iter().map(|l| l.bbox));
            out.push(Block { lines, bbox });
        }
    }
    out
}

/// The smallest rectangle holding all of `rects` (all zeros when there are none).
fn union(rects: impl Iterator<Item = Rect>) -> Rect {
    let mut out: Option<Rect> = None;
    for r in rects {
        if r.iter().any(|v| !v.is_finite()) || r == [0.0; 4] {
            continue;
        }
        out = Some(match out {
            None => r,
            Some(o) => [
                o[0].min(r[0]),
                o[1].min(r[1]),
                o[2].max(r[2]),
                o[3].max(r[3]),
            ],
        });
    }
    out.unwrap_or([0.0; 4])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_skips_empty_boxes() {
        let rects = [[1.0, 2.0, 3.0, 4.0], [0.0; 4], [0.5, 3.0, 2.0, 6.0]];
        assert_eq!(union(rects.into_iter()), [0.5, 2.0, 3.0, 6.0]);
        assert_eq!(union(std::iter::empty()), [0.0; 4]);
    }

    #[test]
    fn blocks_follow_paragraphs_and_lines() {
        let text = "Title\n\nfirst line\nsecond line\n\nlast";
        let got = blocks(text, &[], &layout::HighlightParams::DEFAULT);
        let lines: Vec<Vec<&str>> = got
            .iter()
            .map(|b| b.lines.iter().map(|l| l.text.as_str()).collect())
            .collect();
        assert_eq!(
            lines,
            vec![
                vec!["Title"],
                vec!["first line", "second line"],
                vec!["last"]
            ]
        );
        for b in &got {
            for l in &b.lines {
                assert_eq!(&text[l.range.clone()], l.text);
            }
        }
    }
}
