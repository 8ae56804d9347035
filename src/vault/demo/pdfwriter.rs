//! A small PDF writer for the demo vault.
//!
//! It lays out blocks of words (title, paragraphs, headings, reference entries) into one or two
//! columns per page with the real glyph widths of the standard-14 fonts, and writes them the way
//! common producers do: Type1 fonts with an explicit encoding and `/Widths`, text placed with
//! `BT`, `Tf`, `TL`, `Td`/`Tm`, `T*`, and `Tj` or `TJ`. The point is to give the vault's text
//! extractor realistic input (ligature glyphs, hyphenated line ends, positioned word gaps, two
//! columns), so the writer keeps those features explicit rather than hiding them behind a
//! general-purpose API. Everything it writes is a function of its input: no dates, no ids.

use std::io;

use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream, StringFormat, dictionary};

use crate::vault::pdf::metrics::{WIN_ANSI_GLYPHS, std14_width};

/// Codes the ligature encoding gives to `fi` and `fl`. TeX's OT1 layout uses the same slots,
/// which sit below the printable range, so a reader has to honour `/Differences` to get them.
pub const FI_CODE: u8 = 12;
pub const FL_CODE: u8 = 13;

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

/// Widths of one font as written to `/Widths`: 1/1000 em per code.
struct FontMetrics {
    widths: [u16; 256],
    first_char: u8,
}

impl FontMetrics {
    fn new(face: Face, ligatures: bool) -> FontMetrics {
        let mut widths = [0u16; 256];
        for (code, width) in widths.iter_mut().enumerate() {
            let glyph = glyph_name(code as u8, ligatures);
            *width = glyph
                .and_then(|g| std14_width(face.base_font(), g))
                .unwrap_or(0);
        }
        let first_char = if ligatures { FI_CODE } else { 32 };
        FontMetrics { widths, first_char }
    }

    fn code_width(&self, code: u8, size: f32) -> f32 {
        f32::from(self.widths[usize::from(code)]) * size / 1000.0
    }
}

/// Glyph drawn for `code` under the encoding this writer uses.
pub fn glyph_name(code: u8, ligatures: bool) -> Option<&'static str> {
    match code {
        FI_CODE if ligatures => Some("fi"),
        FL_CODE if ligatures => Some("fl"),
        _ => WIN_ANSI_GLYPHS[usize::from(code)],
    }
}

/// WinAnsiEncoding code of `c`, if it has one.
pub fn win_ansi_code(c: char) -> Option<u8> {
    let u = u32::from(c);
    let code = match c {
        ' '..='~' => u as u8,
        '\u{a0}'..='\u{ff}' => u as u8,
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8a,
        '‹' => 0x8b,
        'Œ' => 0x8c,
        'Ž' => 0x8e,
        '‘' => 0x91,
        '’' => 0x92,
        '“' => 0x93,
        '”' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9a,
        '›' => 0x9b,
        'œ' => 0x9c,
        'ž' => 0x9e,
        'Ÿ' => 0x9f,
        _ => return None,
    };
    Some(code)
}

/// The codes that draw `text`: WinAnsi, with `fi`/`fl` as single ligature glyphs when the
/// document uses them. Characters WinAnsi lacks become '?' (a unit test keeps the demo text
/// free of them).
pub fn encode(text: &str, ligatures: bool) -> Vec<u8> {
    let chars: Vec<char> = text.chars().filter(|&c| c != SOFT_HYPHEN).collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        if ligatures && chars[i] == 'f' {
            match chars.get(i + 1) {
                Some('i') => {
                    out.push(FI_CODE);
                    i += 2;
                    continue;
                }
                Some('l') => {
                    out.push(FL_CODE);
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(win_ansi_code(chars[i]).unwrap_or(b'?'));
        i += 1;
    }
    out
}

/// Kerning of Times-Roman for the pairs that matter in running text, in 1/1000 em (KPX entries
/// of NimbusRoman-Regular.afm from fonts-urw-base35). Only the positioned style kerns.
const TIMES_KERNS: &[(u8, u8, i16)] = &[
    (b'A', b'T', -54),
    (b'A', b'V', -128),
    (b'A', b'W', -111),
    (b'A', b'v', -81),
    (b'A', b'w', -72),
    (b'A', b'y', -84),
    (b'F', b'a', -33),
    (b'F', b'o', -21),
    (b'L', b'T', -73),
    (b'P', b'a', -20),
    (b'R', b'T', -35),
    (b'T', b'a', -77),
    (b'T', b'e', -85),
    (b'T', b'o', -87),
    (b'T', b'r', -50),
    (b'T', b'u', -93),
    (b'T', b'y', -103),
    (b'V', b'a', -90),
    (b'V', b'e', -84),
    (b'W', b'a', -78),
    (b'W', b'e', -68),
    (b'W', b'o', -74),
    (b'Y', b'o', -104),
];

fn kern(face: Face, left: u8, right: u8) -> i16 {
    if face != Face::Roman {
        return 0;
    }
    TIMES_KERNS
        .iter()
        .find(|(l, r, _)| *l == left && *r == right)
        .map_or(0, |(_, _, k)| *k)
}

struct Fonts {
    metrics: Vec<FontMetrics>,
    ligatures: bool,
    kerning: bool,
}

impl Fonts {
    fn word_width(&self, word: &Word, size: f32) -> f32 {
        let m = &self.metrics[word.face.index()];
        let codes = encode(&word.text, self.ligatures);
        let mut width: f32 = codes.iter().map(|&c| m.code_width(c, size)).sum();
        if self.kerning {
            for pair in codes.windows(2) {
                width += f32::from(kern(word.face, pair[0], pair[1])) * size / 1000.0;
            }
        }
        width
    }

    fn space_width(&self, face: Face, size: f32) -> f32 {
        self.metrics[face.index()].code_width(b' ', size)
    }
}

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

fn round(v: f32) -> Object {
    Object::Real((v * 100.0).round() / 100.0)
}

/// Writes the content operations of one page's lines, one `BT … ET` per column so that a
/// reader that trusts stream order also gets column order.
fn text_operations(lines: &[&PlacedLine], style: &DocStyle, fonts: &Fonts) -> Vec<Operation> {
    let mut ops = Vec::new();
    let mut column = usize::MAX;
    let mut font: Option<(Face, f32)> = None;
    let mut leading = f32::NAN;
    let mut word_spacing = 0.0f32;
    // Start of the current line in text space (Td is relative to it).
    let mut line_start = (0.0f32, 0.0f32);
    for line in lines {
        if line.column != column {
            if column != usize::MAX {
                ops.push(Operation::new("ET", vec![]));
            }
            ops.push(Operation::new("BT", vec![]));
            column = line.column;
            font = None;
            leading = f32::NAN;
            word_spacing = 0.0;
            // After BT the text matrix is the identity, so this first Td is absolute: one
            // line above the first baseline, which the T* below then steps down to.
            ops.push(Operation::new(
                "Td",
                vec![round(line.x), round(line.y + line.leading)],
            ));
            line_start = (line.x, line.y + line.leading);
        }
        if line.leading != leading {
            ops.push(Operation::new("TL", vec![round(line.leading)]));
            leading = line.leading;
        }
        let (dx, dy) = (line.x - line_start.0, line.y - line_start.1);
        if dx.abs() < 0.005 && (dy + leading).abs() < 0.005 {
            ops.push(Operation::new("T*", vec![]));
        } else {
            ops.push(Operation::new("Td", vec![round(dx), round(dy)]));
        }
        line_start = (line.x, line.y);
        let mut set_font = |ops: &mut Vec<Operation>, face: Face| {
            if font != Some((face, line.size)) {
                ops.push(Operation::new(
                    "Tf",
                    vec![
                        Object::Name(face.resource().as_bytes().to_vec()),
                        round(line.size),
                    ],
                ));
                font = Some((face, line.size));
            }
        };
        match style.text {
            TextStyle::Spaced => {
                let spacing = (line.extra_gap * 100.0).round() / 100.0;
                if spacing != word_spacing {
                    ops.push(Operation::new("Tw", vec![round(spacing)]));
                    word_spacing = spacing;
                }
                for (face, text) in face_runs(&line.words) {
                    set_font(&mut ops, face);
                    ops.push(Operation::new(
                        "Tj",
                        vec![pdf_string(encode(&text, fonts.ligatures))],
                    ));
                }
            }
            TextStyle::Positioned => {
                let mut array: Vec<Object> = Vec::new();
                let mut array_face = None;
                for (i, word) in line.words.iter().enumerate() {
                    if array_face != Some(word.face) {
                        if !array.is_empty() {
                            ops.push(Operation::new(
                                "TJ",
                                vec![Object::Array(std::mem::take(&mut array))],
                            ));
                        }
                        set_font(&mut ops, word.face);
                        array_face = Some(word.face);
                    }
                    if i > 0 {
                        let prev = &line.words[i - 1];
                        let gap = fonts.space_width(prev.face, line.size) + line.extra_gap;
                        array.push(Object::Integer(-(gap * 1000.0 / line.size).round() as i64));
                    }
                    push_kerned(&mut array, word, fonts);
                }
                if !array.is_empty() {
                    ops.push(Operation::new("TJ", vec![Object::Array(array)]));
                }
            }
        }
    }
    if column != usize::MAX {
        ops.push(Operation::new("ET", vec![]));
    }
    ops
}

/// Consecutive words of one face as a string with the spaces between them; a run that is
/// followed by another keeps its trailing space, as producers that switch fonts mid-line do.
fn face_runs(words: &[Word]) -> Vec<(Face, String)> {
    let mut runs: Vec<(Face, String)> = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let sep = if i + 1 < words.len() { " " } else { "" };
        match runs.last_mut() {
            Some((face, text)) if *face == word.face => {
                text.push_str(&word.text);
                text.push_str(sep);
            }
            _ => runs.push((word.face, format!("{}{sep}", word.text))),
        }
    }
    runs
}

/// Appends a word to a TJ array, splitting it where a kerning pair applies.
fn push_kerned(array: &mut Vec<Object>, word: &Word, fonts: &Fonts) {
    let codes = encode(&word.text, fonts.ligatures);
    let mut piece = Vec::new();
    for (i, &code) in codes.iter().enumerate() {
        piece.push(code);
        if let Some(&next) = codes.get(i + 1) {
            let k = kern(word.face, code, next);
            if k != 0 {
                array.push(pdf_string(std::mem::take(&mut piece)));
                // A positive TJ number moves the next glyph left, so a negative kern flips sign.
                array.push(Object::Integer(-i64::from(k)));
            }
        }
    }
    array.push(pdf_string(piece));
}

fn pdf_string(bytes: Vec<u8>) -> Object {
    // lopdf escapes backslashes, unbalanced parentheses and CR in literal strings.
    Object::String(bytes, StringFormat::Literal)
}

/// A PDF text string: plain ASCII as is, anything else as UTF-16BE with a byte order mark.
pub fn text_string(text: &str) -> Object {
    if text.is_ascii() {
        Object::String(text.as_bytes().to_vec(), StringFormat::Literal)
    } else {
        let mut bytes = vec![0xfe, 0xff];
        for unit in text.encode_utf16() {
            bytes.extend_from_slice(&unit.to_be_bytes());
        }
        Object::String(bytes, StringFormat::Hexadecimal)
    }
}

fn font_dictionary(face: Face, fonts: &Fonts) -> Dictionary {
    let m = &fonts.metrics[face.index()];
    let widths: Vec<Object> = (m.first_char..=255)
        .map(|code| Object::Integer(i64::from(m.widths[usize::from(code)])))
        .collect();
    let encoding = if fonts.ligatures {
        Object::Dictionary(dictionary! {
            "Type" => "Encoding",
            "BaseEncoding" => "WinAnsiEncoding",
            "Differences" => vec![
                Object::Integer(i64::from(FI_CODE)),
                Object::Name(b"fi".to_vec()),
                Object::Name(b"fl".to_vec()),
            ],
        })
    } else {
        Object::Name(b"WinAnsiEncoding".to_vec())
    };
    dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => Object::Name(face.base_font().as_bytes().to_vec()),
        "FirstChar" => i64::from(m.first_char),
        "LastChar" => 255,
        "Widths" => widths,
        "Encoding" => encoding,
    }
}

fn io_error(e: lopdf::Error) -> io::Error {
    io::Error::other(e.to_string())
}

/// Lays out and writes one document.
pub fn render(spec: &PdfSpec) -> io::Result<Rendered> {
    let style = &spec.style;
    let fonts = Fonts {
        metrics: Face::ALL
            .iter()
            .map(|&f| FontMetrics::new(f, style.ligatures))
            .collect(),
        ligatures: style.ligatures,
        kerning: style.text == TextStyle::Positioned,
    };
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
        fonts: &fonts,
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
    let page_count = layout.frame.page + 1;
    let Layout {
        lines, headings, ..
    } = layout;

    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut font_refs = Dictionary::new();
    for face in Face::ALL {
        let id = doc.add_object(font_dictionary(face, &fonts));
        font_refs.set(face.resource(), Object::Reference(id));
    }
    let resources_id = doc.add_object(dictionary! {
        "Font" => font_refs,
        "ProcSet" => vec![Object::Name(b"PDF".to_vec()), Object::Name(b"Text".to_vec())],
    });
    let mut page_ids: Vec<ObjectId> = Vec::new();
    for page in 0..page_count {
        let on_page: Vec<&PlacedLine> = lines.iter().filter(|l| l.page == page).collect();
        let mut ops = text_operations(&on_page, style, &fonts);
        ops.extend(footer_operations(spec, page, &fonts));
        let content = Content { operations: ops }.encode().map_err(io_error)?;
        let mut stream = Stream::new(Dictionary::new(), content);
        stream.compress().map_err(io_error)?;
        let content_id = doc.add_object(stream);
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), round(style.page_width), round(style.page_height)],
            "Contents" => content_id,
            "Resources" => resources_id,
        });
        page_ids.push(page_id);
    }
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => page_ids.iter().map(|&id| Object::Reference(id)).collect::<Vec<_>>(),
            "Count" => page_count as i64,
        }),
    );
    let mut catalog = dictionary! {
        "Type" => "Catalog",
        "Pages" => pages_id,
    };
    if spec.outline && !headings.is_empty() {
        let outlines_id = write_outline(&mut doc, &headings, &page_ids);
        catalog.set("Outlines", outlines_id);
        catalog.set("PageMode", "UseOutlines");
    }
    if let Some(start) = spec.first_page_number {
        catalog.set(
            "PageLabels",
            dictionary! {
                "Nums" => vec![0.into(), Object::Dictionary(dictionary! {
                    "S" => "D",
                    "St" => i64::from(start),
                })],
            },
        );
    }
    if let Some(xmp) = &spec.xmp {
        let stream = Stream::new(
            dictionary! { "Type" => "Metadata", "Subtype" => "XML" },
            xmp.as_bytes().to_vec(),
        );
        catalog.set("Metadata", doc.add_object(stream));
    }
    let catalog_id = doc.add_object(catalog);
    doc.trailer.set("Root", catalog_id);
    if !spec.info.is_empty() {
        let mut info = Dictionary::new();
        for (key, value) in &spec.info {
            info.set(*key, text_string(value));
        }
        let info_id = doc.add_object(info);
        doc.trailer.set("Info", info_id);
    }
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes)?;
    Ok(Rendered {
        bytes,
        lines,
        headings,
        page_count,
    })
}

/// Page number centred at the foot of every page, and the first-page note above it; placed
/// with `Tm` in their own text objects, as producers that draw page furniture separately do.
fn footer_operations(spec: &PdfSpec, page: usize, fonts: &Fonts) -> Vec<Operation> {
    let style = &spec.style;
    let mut ops = Vec::new();
    let number = spec.first_page_number.unwrap_or(1) as usize + page;
    let label = number.to_string();
    let size = 9.0;
    let width = fonts.word_width(
        &Word {
            text: label.clone(),
            face: Face::Roman,
        },
        size,
    );
    let y = style.margin_bottom / 2.0;
    ops.push(Operation::new("BT", vec![]));
    ops.push(Operation::new(
        "Tf",
        vec![
            Object::Name(Face::Roman.resource().as_bytes().to_vec()),
            round(size),
        ],
    ));
    if page == 0
        && let Some(note) = &spec.first_page_note
    {
        let matrix = [1.0, 0.0, 0.0, 1.0, style.margin_x, y + 14.0];
        ops.push(Operation::new(
            "Tm",
            matrix.iter().map(|&v| round(v)).collect(),
        ));
        ops.push(Operation::new(
            "Tj",
            vec![pdf_string(encode(note, fonts.ligatures))],
        ));
    }
    let matrix = [1.0, 0.0, 0.0, 1.0, (style.page_width - width) / 2.0, y];
    ops.push(Operation::new(
        "Tm",
        matrix.iter().map(|&v| round(v)).collect(),
    ));
    ops.push(Operation::new("Tj", vec![pdf_string(label.into_bytes())]));
    ops.push(Operation::new("ET", vec![]));
    ops
}

/// Writes `/Outlines` with top-level entries for level-0 headings and children for deeper
/// ones, each pointing at its page with an `/XYZ` destination at the heading's top.
fn write_outline(
    doc: &mut Document,
    headings: &[PlacedHeading],
    page_ids: &[ObjectId],
) -> ObjectId {
    let root_id = doc.new_object_id();
    let ids: Vec<ObjectId> = headings.iter().map(|_| doc.new_object_id()).collect();
    // Parent of each entry: the nearest earlier heading of a lower level, else the root.
    let parents: Vec<Option<usize>> = (0..headings.len())
        .map(|i| {
            (0..i)
                .rev()
                .find(|&j| headings[j].level < headings[i].level)
        })
        .collect();
    let children = |parent: Option<usize>| -> Vec<usize> {
        (0..headings.len())
            .filter(|&i| parents[i] == parent)
            .collect()
    };
    for (i, heading) in headings.iter().enumerate() {
        let siblings = children(parents[i]);
        let pos = siblings.iter().position(|&s| s == i).unwrap_or(0);
        let mut dict = dictionary! {
            "Title" => text_string(&heading.title),
            "Parent" => parents[i].map_or(root_id, |p| ids[p]),
            "Dest" => vec![
                Object::Reference(page_ids[heading.page]),
                Object::Name(b"XYZ".to_vec()),
                0.into(),
                round(heading.y),
                Object::Null,
            ],
        };
        if pos > 0 {
            dict.set("Prev", ids[siblings[pos - 1]]);
        }
        if let Some(&next) = siblings.get(pos + 1) {
            dict.set("Next", ids[next]);
        }
        let kids = children(Some(i));
        if let (Some(&first), Some(&last)) = (kids.first(), kids.last()) {
            dict.set("First", ids[first]);
            dict.set("Last", ids[last]);
            // Positive: the entry is shown open with its children.
            dict.set("Count", kids.len() as i64);
        }
        doc.objects.insert(ids[i], Object::Dictionary(dict));
    }
    let top = children(None);
    // Every entry is open, so all of them count as visible.
    let mut root = dictionary! { "Type" => "Outlines", "Count" => headings.len() as i64 };
    if let (Some(&first), Some(&last)) = (top.first(), top.last()) {
        root.set("First", ids[first]);
        root.set("Last", ids[last]);
    }
    doc.objects.insert(root_id, Object::Dictionary(root));
    root_id
}

/// Free-form pages for the extractor's fixtures: text runs placed at given points, in fonts of
/// the caller's choosing (standard-14 fonts, CID fonts with predefined CMaps, embedded programs),
/// plus the odd ruled box. One fixture exercises one feature, so nothing is laid out for it.
pub struct Sheet {
    doc: Document,
    pages_id: ObjectId,
    fonts: Dictionary,
    kids: Vec<Object>,
    ops: Vec<Operation>,
}

impl Default for Sheet {
    fn default() -> Self {
        Self::new()
    }
}

impl Sheet {
    pub fn new() -> Sheet {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        Sheet {
            doc,
            pages_id,
            fonts: Dictionary::new(),
            kids: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// Adds an object (a descendant font, a descriptor) and returns its id.
    pub fn add_object(&mut self, object: impl Into<Object>) -> ObjectId {
        self.doc.add_object(object)
    }

    /// Adds a compressed stream (a font program, a CMap, a CIDToGIDMap).
    pub fn add_stream(&mut self, dict: Dictionary, bytes: Vec<u8>) -> io::Result<ObjectId> {
        let mut stream = Stream::new(dict, bytes);
        stream.compress().map_err(io_error)?;
        Ok(self.doc.add_object(stream))
    }

    /// Makes `font` available to every page as `/name`.
    pub fn add_font(&mut self, name: &str, font: Dictionary) {
        let id = self.doc.add_object(font);
        self.fonts.set(name.as_bytes().to_vec(), id);
    }

    /// A standard-14 font with WinAnsi encoding and its `/Widths`, as `/name`.
    pub fn add_std14(&mut self, name: &str, base_font: &str) {
        let widths: Vec<Object> = (32..=255u8)
            .map(|code| {
                let w = glyph_name(code, false).and_then(|g| std14_width(base_font, g));
                Object::Integer(i64::from(w.unwrap_or(0)))
            })
            .collect();
        self.add_font(
            name,
            dictionary! {
                "Type" => "Font",
                "Subtype" => "Type1",
                "BaseFont" => Object::Name(base_font.as_bytes().to_vec()),
                "FirstChar" => 32,
                "LastChar" => 255,
                "Widths" => widths,
                "Encoding" => "WinAnsiEncoding",
            },
        );
    }

    /// Shows `codes` in font `/font` at `size` with the text origin at (x, y).
    pub fn show(&mut self, font: &str, size: f32, x: f32, y: f32, codes: Vec<u8>) {
        self.ops.extend([
            Operation::new("BT", vec![]),
            Operation::new(
                "Tf",
                vec![Object::Name(font.as_bytes().to_vec()), round(size)],
            ),
            Operation::new(
                "Tm",
                vec![1.into(), 0.into(), 0.into(), 1.into(), round(x), round(y)],
            ),
            Operation::new("Tj", vec![Object::String(codes, StringFormat::Hexadecimal)]),
            Operation::new("ET", vec![]),
        ]);
    }

    /// Shows WinAnsi text in a standard-14 font added with [`Sheet::add_std14`].
    pub fn text(&mut self, font: &str, size: f32, x: f32, y: f32, text: &str) {
        self.show(font, size, x, y, encode(text, false));
    }

    /// Strokes the outline of a rectangle.
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32) {
        self.ops.extend([
            Operation::new("re", vec![round(x), round(y), round(w), round(h)]),
            Operation::new("S", vec![]),
        ]);
    }

    /// Ends the current page (US Letter).
    pub fn end_page(&mut self) -> io::Result<()> {
        let content = Content {
            operations: std::mem::take(&mut self.ops),
        };
        let bytes = content.encode().map_err(io_error)?;
        let content_id = self.add_stream(Dictionary::new(), bytes)?;
        let page = self.doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => self.pages_id,
            "Contents" => content_id,
        });
        self.kids.push(page.into());
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<Vec<u8>> {
        if !self.ops.is_empty() || self.kids.is_empty() {
            self.end_page()?;
        }
        let resources = self.doc.add_object(dictionary! { "Font" => self.fonts });
        let count = self.kids.len() as i64;
        self.doc.objects.insert(
            self.pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => self.kids,
                "Count" => count,
                "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let catalog = self.doc.add_object(dictionary! {
            "Type" => "Catalog",
            "Pages" => self.pages_id,
        });
        self.doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        self.doc.save_to(&mut bytes)?;
        Ok(bytes)
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
