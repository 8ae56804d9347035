//! The content stream of a page: its lines of text (`Tj` with word spacing or TeX-like `TJ`
//! arrays), the page number and the first-page note.

use pdf_writer::{Content, Name, Str};

use super::encoding::{Fonts, encode, kern};
use super::{DocStyle, Face, PdfSpec, PlacedLine, TextStyle, Word};

/// `v` to two decimals, as the numbers in the content stream are written.
pub(super) fn round(v: f32) -> f32 {
    (v * 100.0).round() / 100.0
}

/// What the text state of the current text object holds, so operators are written only when
/// something changes.
struct TextState {
    font: Option<(Face, f32)>,
    leading: f32,
    word_spacing: f32,
    /// Start of the current line in text space (Td is relative to it).
    line_start: (f32, f32),
}

impl TextState {
    fn set_font(&mut self, content: &mut Content, face: Face, size: f32) {
        if self.font != Some((face, size)) {
            content.set_font(Name(face.resource().as_bytes()), round(size));
            self.font = Some((face, size));
        }
    }
}

/// Writes one page's lines, one `BT … ET` per column so that a reader that trusts stream order
/// also gets column order.
pub(super) fn write_text(
    content: &mut Content,
    lines: &[&PlacedLine],
    style: &DocStyle,
    fonts: &Fonts,
) {
    let mut column = usize::MAX;
    let mut state = TextState {
        font: None,
        leading: f32::NAN,
        word_spacing: 0.0,
        line_start: (0.0, 0.0),
    };
    for line in lines {
        if line.column != column {
            if column != usize::MAX {
                content.end_text();
            }
            content.begin_text();
            column = line.column;
            // After BT the text matrix is the identity, so this first Td is absolute: one
            // line above the first baseline, which the T* below then steps down to.
            let start = (line.x, line.y + line.leading);
            content.next_line(round(start.0), round(start.1));
            state = TextState {
                font: None,
                leading: f32::NAN,
                word_spacing: 0.0,
                line_start: start,
            };
        }
        if line.leading != state.leading {
            content.set_leading(round(line.leading));
            state.leading = line.leading;
        }
        let (dx, dy) = (line.x - state.line_start.0, line.y - state.line_start.1);
        if dx.abs() < 0.005 && (dy + state.leading).abs() < 0.005 {
            content.next_line_using_leading();
        } else {
            content.next_line(round(dx), round(dy));
        }
        state.line_start = (line.x, line.y);
        match style.text {
            TextStyle::Spaced => write_spaced(content, line, &mut state, fonts),
            TextStyle::Positioned => write_positioned(content, line, &mut state, fonts),
        }
    }
    if column != usize::MAX {
        content.end_text();
    }
}

/// A line as strings with real spaces, justified with `Tw`.
fn write_spaced(content: &mut Content, line: &PlacedLine, state: &mut TextState, fonts: &Fonts) {
    let spacing = round(line.extra_gap);
    if spacing != state.word_spacing {
        content.set_word_spacing(spacing);
        state.word_spacing = spacing;
    }
    for (face, text) in face_runs(&line.words) {
        state.set_font(content, face, line.size);
        content.show(Str(&encode(&text, fonts.ligatures)));
    }
}

/// One element of a `TJ` array.
enum Item {
    Show(Vec<u8>),
    /// In 1/1000 em; positive moves the next glyph left.
    Adjust(f32),
}

/// A line as `TJ` arrays, one per run of a face: word gaps are positioning, never spaces.
fn write_positioned(
    content: &mut Content,
    line: &PlacedLine,
    state: &mut TextState,
    fonts: &Fonts,
) {
    let mut items: Vec<Item> = Vec::new();
    let mut items_face = None;
    for (i, word) in line.words.iter().enumerate() {
        if items_face != Some(word.face) {
            show_items(content, &mut items);
            state.set_font(content, word.face, line.size);
            items_face = Some(word.face);
        }
        if i > 0 {
            let prev = &line.words[i - 1];
            let gap = fonts.space_width(prev.face, line.size) + line.extra_gap;
            items.push(Item::Adjust(-(gap * 1000.0 / line.size).round()));
        }
        push_kerned(&mut items, word, fonts);
    }
    show_items(content, &mut items);
}

/// Writes `items` as one `TJ`, if there are any, and empties them.
fn show_items(content: &mut Content, items: &mut Vec<Item>) {
    if items.is_empty() {
        return;
    }
    let mut op = content.show_positioned();
    let mut array = op.items();
    for item in items.drain(..) {
        match item {
            Item::Show(bytes) => array.show(Str(&bytes)),
            Item::Adjust(amount) => array.adjust(amount),
        };
    }
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
fn push_kerned(items: &mut Vec<Item>, word: &Word, fonts: &Fonts) {
    let codes = encode(&word.text, fonts.ligatures);
    let mut piece = Vec::new();
    for (i, &code) in codes.iter().enumerate() {
        piece.push(code);
        if let Some(&next) = codes.get(i + 1) {
            let k = kern(word.face, code, next);
            if k != 0 {
                items.push(Item::Show(std::mem::take(&mut piece)));
                // A positive TJ number moves the next glyph left, so a negative kern flips sign.
                items.push(Item::Adjust(-f32::from(k)));
            }
        }
    }
    items.push(Item::Show(piece));
}

/// Page number centred at the foot of every page, and the first-page note above it; placed
/// with `Tm` in their own text object, as producers that draw page furniture separately do.
pub(super) fn write_footer(content: &mut Content, spec: &PdfSpec, page: usize, fonts: &Fonts) {
    let style = &spec.style;
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
    content
        .begin_text()
        .set_font(Name(Face::Roman.resource().as_bytes()), round(size));
    if page == 0
        && let Some(note) = &spec.first_page_note
    {
        let matrix = [1.0, 0.0, 0.0, 1.0, style.margin_x, y + 14.0];
        content
            .set_text_matrix(matrix.map(round))
            .show(Str(&encode(note, fonts.ligatures)));
    }
    let matrix = [1.0, 0.0, 0.0, 1.0, (style.page_width - width) / 2.0, y];
    content
        .set_text_matrix(matrix.map(round))
        .show(Str(label.as_bytes()))
        .end_text();
}
