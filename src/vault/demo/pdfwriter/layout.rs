//! Line breaking (greedy, with hyphenation at soft hyphens) and the flow of blocks through the
//! front matter and the body columns of each page.

use super::encoding::Fonts;
use super::{Align, Block, DocStyle, PdfSpec, PlacedHeading, PlacedLine, SOFT_HYPHEN, Word};

/// A line's words before placement, with its natural width (single spaces between words).
struct BrokenLine {
    words: Vec<Word>,
    natural: f32,
    last: bool,
}

/// Greedy line breaking; a word that does not fit is hyphenated at its last soft hyphen whose
/// first part (plus "-") still fits, so long words split the way TeX would show them.
fn break_lines(block: &Block, fonts: &Fonts, first_width: f32, width: f32) -> Vec<BrokenLine> {
    let size = block.size;
    let mut lines = Vec::new();
    let mut current: Vec<Word> = Vec::new();
    let mut current_width = 0.0f32;
    let avail = |lines: &Vec<BrokenLine>| if lines.is_empty() { first_width } else { width };
    let mut pending: Vec<Word> = block.words.iter().rev().cloned().collect();
    while let Some(word) = pending.pop() {
        let gap = current
            .last()
            .map_or(0.0, |w| fonts.space_width(w.face, size));
        let plain = Word {
            text: word.text.replace(SOFT_HYPHEN, ""),
            face: word.face,
        };
        let w = fonts.word_width(&plain, size);
        if current_width + gap + w <= avail(&lines) + 0.01
            || current.is_empty() && !word.text.contains(SOFT_HYPHEN)
        {
            current_width += gap + w;
            current.push(plain);
            continue;
        }
        // Try hyphenating, last break point first.
        let breaks: Vec<usize> = word
            .text
            .match_indices(SOFT_HYPHEN)
            .map(|(i, _)| i)
            .collect();
        let mut split = None;
        for &at in breaks.iter().rev() {
            let head = Word {
                text: format!("{}-", word.text[..at].replace(SOFT_HYPHEN, "")),
                face: word.face,
            };
            let hw = fonts.word_width(&head, size);
            if current_width + gap + hw <= avail(&lines) + 0.01 {
                split = Some((head, hw, at));
                break;
            }
        }
        match split {
            Some((head, hw, at)) => {
                current.push(head);
                current_width += gap + hw;
                pending.push(Word {
                    text: word.text[at + SOFT_HYPHEN.len_utf8()..].to_string(),
                    face: word.face,
                });
            }
            None if current.is_empty() => {
                // Nothing fits and no break point helps: the word stands alone and overflows.
                current_width = w;
                current.push(plain);
                continue;
            }
            None => pending.push(word),
        }
        lines.push(BrokenLine {
            words: std::mem::take(&mut current),
            natural: current_width,
            last: false,
        });
        current_width = 0.0;
    }
    if !current.is_empty() {
        lines.push(BrokenLine {
            words: current,
            natural: current_width,
            last: true,
        });
    }
    lines
}

/// Where text may go: a column on a page.
#[derive(Clone, Copy)]
struct Frame {
    page: usize,
    column: usize,
    x: f32,
    width: f32,
    top: f32,
    bottom: f32,
}

struct Layout<'a> {
    style: &'a DocStyle,
    fonts: &'a Fonts,
    frame: Frame,
    /// Baseline of the last line placed in the frame; `frame.top` when the frame is empty.
    y: f32,
    /// Top of the body columns on page 1 (below the front matter).
    first_page_top: f32,
    lines: Vec<PlacedLine>,
    headings: Vec<PlacedHeading>,
}

impl Layout<'_> {
    fn column_width(&self) -> f32 {
        let s = self.style;
        let columns = f32::from(s.columns);
        (s.page_width - 2.0 * s.margin_x - (columns - 1.0) * s.gutter) / columns
    }

    fn body_frame(&self, page: usize, column: usize) -> Frame {
        let s = self.style;
        let width = self.column_width();
        Frame {
            page,
            column,
            x: s.margin_x + column as f32 * (width + s.gutter),
            width,
            top: if page == 0 {
                self.first_page_top
            } else {
                s.page_height - s.margin_top
            },
            bottom: s.margin_bottom,
        }
    }

    fn next_frame(&mut self) {
        let f = self.frame;
        self.frame = if f.column + 1 < usize::from(self.style.columns) {
            self.body_frame(f.page, f.column + 1)
        } else {
            self.body_frame(f.page + 1, 0)
        };
        self.y = self.frame.top;
    }

    fn at_top(&self) -> bool {
        self.y >= self.frame.top
    }

    fn place(&mut self, block: &Block, next_leading: Option<f32>) {
        let fonts = self.fonts;
        let left = block.left + block.first_indent;
        let lines = break_lines(
            block,
            fonts,
            self.frame.width - left - block.right,
            self.frame.width - block.left - block.right,
        );
        if block.keep_with_next {
            let need = block.space_before
                + block.leading * lines.len() as f32
                + 2.0 * next_leading.unwrap_or(0.0);
            if !self.at_top() && self.y - need < self.frame.bottom {
                self.next_frame();
            }
        }
        for (i, line) in lines.into_iter().enumerate() {
            let mut y = self.y - block.leading;
            if i == 0 && !self.at_top() {
                y -= block.space_before;
            }
            if y < self.frame.bottom {
                self.next_frame();
                y = self.y - block.leading;
            }
            let inset = if i == 0 { left } else { block.left };
            let avail = self.frame.width - inset - block.right;
            let gaps = line.words.len().saturating_sub(1);
            let (x, extra_gap) = match block.align {
                Align::Justify if !line.last && gaps > 0 => {
                    (inset, (avail - line.natural) / gaps as f32)
                }
                Align::Center => (inset + (avail - line.natural) / 2.0, 0.0),
                _ => (inset, 0.0),
            };
            if i == 0
                && let Some(level) = block.outline_level
            {
                self.headings.push(PlacedHeading {
                    title: block.plain_text(),
                    level,
                    page: self.frame.page,
                    y: y + block.size,
                });
            }
            self.lines.push(PlacedLine {
                page: self.frame.page,
                column: self.frame.column,
                x: self.frame.x + x,
                y,
                size: block.size,
                leading: block.leading,
                extra_gap,
                words: line.words,
            });
            self.y = y;
        }
    }
}

/// A document's lines and headings as placed, and how many pages they fill.
pub(super) struct Laid {
    pub(super) lines: Vec<PlacedLine>,
    pub(super) headings: Vec<PlacedHeading>,
    pub(super) page_count: usize,
}

/// Places the front matter across the full width of page 1, then flows the body through the
/// columns below it and on through the following pages.
pub(super) fn lay_out(spec: &PdfSpec, fonts: &Fonts) -> Laid {
    let style = &spec.style;
    let full = Frame {
        page: 0,
        column: 0,
        x: style.margin_x,
        width: style.page_width - 2.0 * style.margin_x,
        top: style.page_height - style.margin_top,
        bottom: style.margin_bottom,
    };
    let mut layout = Layout {
        style,
        fonts,
        frame: full,
        y: full.top,
        first_page_top: full.top,
        lines: Vec::new(),
        headings: Vec::new(),
    };
    for block in &spec.front {
        layout.place(block, None);
    }
    // The body starts a little below the front matter, or at the top if there is none.
    layout.first_page_top = if spec.front.is_empty() {
        full.top
    } else {
        layout.y - 14.0
    };
    layout.frame = layout.body_frame(0, 0);
    layout.y = layout.frame.top;
    for (i, block) in spec.body.iter().enumerate() {
        layout.place(block, spec.body.get(i + 1).map(|b| b.leading));
    }
    Laid {
        page_count: layout.frame.page + 1,
        lines: layout.lines,
        headings: layout.headings,
    }
}
