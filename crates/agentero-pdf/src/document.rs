//! The geometry of a page's text: its [`Block`]s and their [`TextLine`]s, each with its box on the
//! page. Blocks and lines are the paragraphs and lines of [`PageText::text`](crate::PageText),
//! with the boxes of the glyphs that drew them.

use super::layout::{self, TextBox};

/// A rectangle in PDF user space: `[x0, y0, x1, y1]`, y growing upwards, origin at the page's
/// lower left corner (before any `/Rotate`).
pub type Rect = [f32; 4];

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
    /// Byte range of the line in [`PageText::text`](crate::PageText::text).
    pub range: std::ops::Range<usize>,
}

/// The blocks and lines of a page text, with the boxes of the characters in each line.
pub(crate) fn blocks(text: &str, boxes: &[TextBox], p: &layout::HighlightParams) -> Vec<Block> {
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
