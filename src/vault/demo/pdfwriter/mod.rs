//! A small PDF writer for the demo vault.
//!
//! It lays out blocks of words (title, paragraphs, headings, reference entries) into one or two
//! columns per page with the real glyph widths of the standard-14 fonts, and writes them the way
//! common producers do: Type1 fonts with an explicit encoding and `/Widths`, text placed with
//! `BT`, `Tf`, `TL`, `Td`/`Tm`, `T*`, and `Tj` or `TJ`. The point is to give the vault's text
//! extractor realistic input (ligature glyphs, hyphenated line ends, positioned word gaps, two
//! columns), so the writer keeps those features explicit: `pdf-writer` writes the file's syntax,
//! every operator and dictionary entry is chosen here. Everything it writes is a function of its
//! input: no dates, no ids.
//!
//! `encoding` owns codes, widths and kerning; `layout` breaks and places lines; `content`
//! turns placed lines into a content stream; `write` writes the file; `sheet` is the
//! free-form writer of the app's test pages (`demo::fixtures`).

mod content;
mod encoding;
mod layout;
mod sheet;
mod write;

#[cfg(test)]
pub use encoding::{FI_CODE, FL_CODE, glyph_name, win_ansi_code};
pub use sheet::{Sheet, std14_text_width};
pub use write::render;

/// Soft hyphen: marks where the line breaker may hyphenate a word; never printed otherwise.
pub const SOFT_HYPHEN: char = '\u{ad}';

/// The four faces a demo paper uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    Roman,
    Bold,
    Italic,
    SansBold,
}

impl Face {
    pub const ALL: [Face; 4] = [Face::Roman, Face::Bold, Face::Italic, Face::SansBold];

    pub fn base_font(self) -> &'static str {
        match self {
            Face::Roman => "Times-Roman",
            Face::Bold => "Times-Bold",
            Face::Italic => "Times-Italic",
            Face::SansBold => "Helvetica-Bold",
        }
    }

    fn resource(self) -> &'static str {
        match self {
            Face::Roman => "F1",
            Face::Bold => "F2",
            Face::Italic => "F3",
            Face::SansBold => "F4",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How the text of a line goes into the content stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextStyle {
    /// Whole lines as strings with real space characters, justified with word spacing (`Tw`),
    /// as office suites and many converters write them.
    Spaced,
    /// TeX-like `TJ` arrays: kerning numbers between letters and word gaps made by positioning,
    /// with no space characters at all, as pdfTeX writes them.
    Positioned,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Align {
    Justify,
    Left,
    Center,
}

/// A word and the face it is set in. `text` may contain soft hyphens.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    pub text: String,
    pub face: Face,
}

/// A paragraph-like unit that is broken into lines as a whole.
#[derive(Clone, Debug)]
pub struct Block {
    pub words: Vec<Word>,
    pub size: f32,
    pub leading: f32,
    pub align: Align,
    /// Extra space above the block, dropped at the top of a column.
    pub space_before: f32,
    /// Insets from the column edges; `first_indent` is added to `left` on the first line only
    /// (negative for a hanging label such as "[3]").
    pub left: f32,
    pub right: f32,
    pub first_indent: f32,
    /// Headings must not end a column: they move on with the first lines that follow them.
    pub keep_with_next: bool,
    /// Outline level when this block is a section heading (0 = top level).
    pub outline_level: Option<u8>,
}

impl Block {
    /// A block from text in which `*` toggles italics at word boundaries ("the *SciPassage*
    /// set") and whitespace separates words.
    pub fn new(text: &str, face: Face, size: f32, leading: f32, align: Align) -> Block {
        Block {
            words: words(text, face),
            size,
            leading,
            align,
            space_before: 0.0,
            left: 0.0,
            right: 0.0,
            first_indent: 0.0,
            keep_with_next: false,
            outline_level: None,
        }
    }

    /// The block's text as printed, without layout (soft hyphens dropped).
    pub fn plain_text(&self) -> String {
        let words: Vec<String> = self
            .words
            .iter()
            .map(|w| w.text.replace(SOFT_HYPHEN, ""))
            .collect();
        words.join(" ")
    }
}

/// Splits `text` into words, toggling between `face` and its italic at each `*`.
pub fn words(text: &str, face: Face) -> Vec<Word> {
    let italic_of = |face: Face| match face {
        Face::Roman => Face::Italic,
        Face::Italic => Face::Roman,
        other => other,
    };
    let mut italic = false;
    let mut out = Vec::new();
    for raw in text.split_whitespace() {
        // A leading star opens italics for this word; a star anywhere else closes it after it.
        let opens = raw.starts_with('*');
        if opens {
            italic = !italic;
        }
        let word_face = if italic { italic_of(face) } else { face };
        let closes = raw[usize::from(opens)..].matches('*').count() % 2 == 1;
        if closes {
            italic = !italic;
        }
        let clean = raw.replace('*', "");
        if !clean.is_empty() {
            out.push(Word {
                text: clean,
                face: word_face,
            });
        }
    }
    out
}

/// Page geometry and the producer habits of one document.
#[derive(Clone, Debug)]
pub struct DocStyle {
    pub page_width: f32,
    pub page_height: f32,
    pub margin_x: f32,
    pub margin_top: f32,
    pub margin_bottom: f32,
    pub columns: u8,
    pub gutter: f32,
    pub ligatures: bool,
    pub text: TextStyle,
}

/// One document to write.
#[derive(Clone, Debug)]
pub struct PdfSpec {
    pub style: DocStyle,
    /// Full-width blocks at the top of page 1 (title, authors, abstract).
    pub front: Vec<Block>,
    /// The body, flowed through the columns.
    pub body: Vec<Block>,
    /// A small line at the foot of page 1 (journal reference, DOI).
    pub first_page_note: Option<String>,
    /// Entries of the Info dictionary; empty means the file has no Info dictionary at all.
    pub info: Vec<(&'static str, String)>,
    /// An XMP packet for the catalog's `/Metadata`.
    pub xmp: Option<String>,
    /// Write an `/Outlines` tree from the headings' `outline_level`s.
    pub outline: bool,
    /// When set, `/PageLabels` number the pages in decimal from this value, and so do the
    /// printed page numbers.
    pub first_page_number: Option<u32>,
}

/// A line as laid out, kept so tests can say which text landed where.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedLine {
    /// 0-based page index.
    pub page: usize,
    /// 0-based column; front matter is column 0.
    pub column: usize,
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub leading: f32,
    /// Extra space per word gap (justification).
    pub extra_gap: f32,
    pub words: Vec<Word>,
}

impl PlacedLine {
    #[cfg(test)]
    pub fn text(&self) -> String {
        let words: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
        words.join(" ")
    }
}

/// A heading as placed, for the outline.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedHeading {
    pub title: String,
    pub level: u8,
    pub page: usize,
    pub y: f32,
}

/// A written document and its layout; the layout is what the tests inspect.
#[derive(Clone, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Rendered {
    pub bytes: Vec<u8>,
    pub lines: Vec<PlacedLine>,
    pub headings: Vec<PlacedHeading>,
    pub page_count: usize,
}
