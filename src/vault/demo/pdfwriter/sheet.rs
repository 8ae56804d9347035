//! Free-form pages for the app's test pages (`demo::fixtures`): text runs placed at given points
//! in standard-14 fonts, plus the odd ruled box. One page shows one thing, so nothing is laid out
//! for it.

use std::io;

use pdf_writer::{Content, Name, Pdf, Rect, Ref, Str};

use super::content::round;
use super::encoding::{encode, glyph_name};
use super::write::{Ids, write_stream};
use crate::vault::pdf::metrics::std14_width;

/// A document being written page by page (US Letter). Fonts are shared by every page.
pub struct Sheet {
    pdf: Pdf,
    ids: Ids,
    catalog_id: Ref,
    pages_id: Ref,
    fonts: Vec<(String, Ref)>,
    kids: Vec<Ref>,
    content: Content,
    /// Whether anything was drawn since the last page ended.
    drawn: bool,
}

impl Default for Sheet {
    fn default() -> Self {
        Self::new()
    }
}

impl Sheet {
    pub fn new() -> Sheet {
        let mut pdf = Pdf::new();
        pdf.set_version(1, 5);
        let mut ids = Ids::new();
        Sheet {
            pdf,
            catalog_id: ids.next(),
            pages_id: ids.next(),
            ids,
            fonts: Vec::new(),
            kids: Vec::new(),
            content: Content::new(),
            drawn: false,
        }
    }

    /// A fresh object id.
    fn alloc(&mut self) -> Ref {
        self.ids.next()
    }

    /// A compressed stream of `bytes` (a page's content).
    fn add_stream(&mut self, bytes: &[u8]) -> io::Result<Ref> {
        let id = self.alloc();
        write_stream(&mut self.pdf, id, bytes)?;
        Ok(id)
    }

    /// Makes a font available to every page as `/name` and returns the id to write it under.
    fn font(&mut self, name: &str) -> Ref {
        let id = self.alloc();
        self.fonts.push((name.to_string(), id));
        id
    }

    /// A standard-14 font with WinAnsi encoding and its `/Widths`, as `/name`.
    pub fn add_std14(&mut self, name: &str, base_font: &str) {
        let id = self.font(name);
        let widths = (32..=255u8).map(|code| {
            let w = glyph_name(code, false).and_then(|g| std14_width(base_font, g));
            f32::from(w.unwrap_or(0))
        });
        self.pdf
            .type1_font(id)
            .base_font(Name(base_font.as_bytes()))
            .first_char(32)
            .last_char(255)
            .widths(widths)
            .encoding_predefined(Name(b"WinAnsiEncoding"));
    }

    /// Shows `codes` in font `/font` at `size` with the text origin at (x, y).
    fn show(&mut self, font: &str, size: f32, x: f32, y: f32, codes: Vec<u8>) {
        self.content
            .begin_text()
            .set_font(Name(font.as_bytes()), round(size))
            .set_text_matrix([1.0, 0.0, 0.0, 1.0, round(x), round(y)])
            .show(Str(&codes))
            .end_text();
        self.drawn = true;
    }

    /// Shows WinAnsi text in a standard-14 font added with [`Sheet::add_std14`].
    pub fn text(&mut self, font: &str, size: f32, x: f32, y: f32, text: &str) {
        self.show(font, size, x, y, encode(text, false));
    }

    /// Strokes the outline of a rectangle.
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32) {
        self.content
            .rect(round(x), round(y), round(w), round(h))
            .stroke();
        self.drawn = true;
    }

    /// Ends the current page.
    pub fn end_page(&mut self) -> io::Result<()> {
        let content = std::mem::replace(&mut self.content, Content::new()).finish();
        let content_id = self.add_stream(&content)?;
        let page = self.alloc();
        self.pdf
            .page(page)
            .parent(self.pages_id)
            .contents(content_id);
        self.kids.push(page);
        self.drawn = false;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<Vec<u8>> {
        if self.drawn || self.kids.is_empty() {
            self.end_page()?;
        }
        let mut pages = self.pdf.pages(self.pages_id);
        pages
            .kids(self.kids.iter().copied())
            .count(self.kids.len() as i32)
            .media_box(Rect::new(0.0, 0.0, 612.0, 792.0));
        let mut resources = pages.resources();
        let mut fonts = resources.fonts();
        for (name, id) in &self.fonts {
            fonts.pair(Name(name.as_bytes()), *id);
        }
        drop(fonts);
        drop(resources);
        drop(pages);
        self.pdf.catalog(self.catalog_id).pages(self.pages_id);
        Ok(self.pdf.finish())
    }
}

/// Width of WinAnsi `text` in a standard-14 font at `size`.
pub fn std14_text_width(base_font: &str, size: f32, text: &str) -> f32 {
    encode(text, false)
        .iter()
        .map(|&c| {
            let w = glyph_name(c, false).and_then(|g| std14_width(base_font, g));
            f32::from(w.unwrap_or(0)) * size / 1000.0
        })
        .sum()
}
