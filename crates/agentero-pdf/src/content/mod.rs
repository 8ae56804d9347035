//! Content-stream interpreter: runs the text and graphics-state operators of a page (and the
//! form XObjects it draws) and records every shown glyph with its device-space position.

use foldhash::HashMap;
use std::rc::Rc;
use std::time::Instant;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::PdfError;
use super::fonts::{Font, push_clean};
use super::util::{as_dict, get, get_dict, get_name, is_rtl, matrix, stream_bytes};
use lex::{Arg, Lexer, Op};

mod lex;

/// Nesting bound for form XObjects (and the q/Q stack), against hostile or cyclic files.
const MAX_FORM_DEPTH: usize = 12;
const MAX_GSTATE_DEPTH: usize = 512;
/// Glyphs kept per page; past this a page is not prose anyway.
const MAX_GLYPHS: usize = 1_000_000;
/// Operators between two deadline checks.
const CHECK_EVERY: u32 = 2048;

pub type Matrix = [f32; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

fn mul(m1: &Matrix, m2: &Matrix) -> Matrix {
    [
        m1[0] * m2[0] + m1[1] * m2[2],
        m1[0] * m2[1] + m1[1] * m2[3],
        m1[2] * m2[0] + m1[3] * m2[2],
        m1[2] * m2[1] + m1[3] * m2[3],
        m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
        m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
    ]
}

/// Writing direction of a glyph on the page, in quarter turns counter-clockwise, or, for text
/// set at a slant (a diagonal "DRAFT" or "Preprint" stamp across the page), in whole degrees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    Up0,
    Up90,
    Up180,
    Up270,
    /// Degrees counter-clockwise, 0–359, more than the layout's `SlantParams::skew_min` away
    /// from every quarter turn.
    Skew(u16),
}

impl Dir {
    /// A point of the page in this direction's frame, where the text runs left to right.
    fn frame(self, x: f32, y: f32) -> (f32, f32) {
        match self {
            Dir::Up0 => (x, y),
            Dir::Up180 => (-x, -y),
            Dir::Up90 => (y, -x),
            Dir::Up270 => (-y, x),
            Dir::Skew(deg) => {
                let (sin, cos) = f32::from(deg).to_radians().sin_cos();
                (x * cos + y * sin, -x * sin + y * cos)
            }
        }
    }

    /// The inverse of [`Dir::frame`]: a point of this direction's frame on the page.
    pub fn page(self, x: f32, y: f32) -> (f32, f32) {
        match self {
            Dir::Up0 => (x, y),
            Dir::Up180 => (-x, -y),
            Dir::Up90 => (-y, x),
            Dir::Up270 => (y, -x),
            Dir::Skew(deg) => {
                let (sin, cos) = f32::from(deg).to_radians().sin_cos();
                (x * cos - y * sin, x * sin + y * cos)
            }
        }
    }
}

/// One shown glyph. Coordinates are in a frame rotated so that its text runs left to right
/// with y growing upwards: layout can then treat every direction alike.
#[derive(Debug, Clone, Copy)]
pub struct Glyph {
    pub x: f32,
    pub y: f32,
    /// Advance of the glyph itself along the baseline (no Tc/Tw).
    pub w: f32,
    /// Font size in device units.
    pub size: f32,
    /// Byte range of the glyph's text in [`PageGlyphs::text`].
    pub start: u32,
    pub len: u32,
    pub space: bool,
    pub dir: Dir,
}

#[derive(Debug, Default)]
pub struct PageGlyphs {
    pub glyphs: Vec<Glyph>,
    pub text: String,
    /// Glyphs shown that no table of their font could turn into text.
    pub unmapped: u32,
}

/// Fonts a page's interpreter remembers by resource dictionary and name, at most (a page past
/// this many still reads, through the document's font cache).
const MAX_SELECTED: usize = 64;

/// Fonts decoded once per document, keyed by object id.
#[derive(Default)]
pub struct FontCache {
    fonts: HashMap<ObjectId, Rc<Font>>,
}

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    h_scale: f32,
    leading: f32,
    rise: f32,
}

pub struct Interpreter<'a> {
    doc: &'a Document,
    fonts: &'a mut FontCache,
    deadline: Instant,
    ops: u32,
    out: PageGlyphs,
    gs: GState,
    stack: Vec<GState>,
    tm: Matrix,
    tlm: Matrix,
    forms: Vec<ObjectId>,
    /// Fonts `Tf` selected on this page: (address of the resource dictionary, name, font).
    selected: Vec<(usize, Vec<u8>, Rc<Font>)>,
    /// The tangent of the angle off every quarter turn past which a baseline is slanted
    /// (`Dir::Skew`): worked out once here, not for every glyph.
    skew_tan: f32,
}

impl<'a> Interpreter<'a> {
    /// An interpreter of one page's content; a baseline more than `skew_min` degrees off every
    /// quarter turn is slanted.
    pub fn new(
        doc: &'a Document,
        fonts: &'a mut FontCache,
        deadline: Instant,
        skew_min: f32,
    ) -> Self {
        Interpreter {
            doc,
            fonts,
            deadline,
            ops: 0,
            out: PageGlyphs::default(),
            gs: GState {
                ctm: IDENTITY,
                font: None,
                size: 0.0,
                char_spacing: 0.0,
                word_spacing: 0.0,
                h_scale: 1.0,
                leading: 0.0,
                rise: 0.0,
            },
            stack: Vec::new(),
            tm: IDENTITY,
            tlm: IDENTITY,
            forms: Vec::new(),
            selected: Vec::new(),
            skew_tan: skew_min.to_radians().tan(),
        }
    }

    /// Runs one page's content streams.
    pub fn run_page(mut self, page_id: ObjectId) -> Result<PageGlyphs, PdfError> {
        let doc = self.doc;
        let Ok(page) = doc.get_dictionary(page_id) else {
            return Ok(self.out);
        };
        let resources = page_resources(doc, page);
        let content = doc
            .get_page_content_with_limit(page_id, super::util::MAX_STREAM)
            .unwrap_or_default();
        self.run(&content, resources)?;
        Ok(self.out)
    }

    fn run(&mut self, content: &[u8], resources: Option<&'a Dictionary>) -> Result<(), PdfError> {
        let mut lexer = Lexer::new(content);
        while let Some(op) = lexer.next() {
            self.ops += 1;
            if self.ops.is_multiple_of(CHECK_EVERY) && Instant::now() > self.deadline {
                return Err(PdfError::Timeout);
            }
            self.op(&op, resources)?;
        }
        Ok(())
    }

    fn op(&mut self, op: &Op<'_>, resources: Option<&'a Dictionary>) -> Result<(), PdfError> {
        let n = |i: usize| op.num(i);
        let six = op.args.len() == 6 && op.args.iter().all(|a| matches!(a, Arg::Num(_)));
        match op.operator {
            b"q" if self.stack.len() < MAX_GSTATE_DEPTH => self.stack.push(self.gs.clone()),
            b"Q" => {
                if let Some(g) = self.stack.pop() {
                    self.gs = g;
                }
            }
            b"cm" if six => {
                let m = [n(0), n(1), n(2), n(3), n(4), n(5)];
                self.gs.ctm = mul(&m, &self.gs.ctm);
            }
            b"BT" => {
                self.tm = IDENTITY;
                self.tlm = IDENTITY;
            }
            b"Tf" => {
                self.gs.size = n(1);
                self.gs.font = op.name(0).map(|name| self.font(resources, name));
            }
            b"Tc" => self.gs.char_spacing = n(0),
            b"Tw" => self.gs.word_spacing = n(0),
            b"Tz" => self.gs.h_scale = n(0) / 100.0,
            b"TL" => self.gs.leading = n(0),
            b"Ts" => self.gs.rise = n(0),
            b"Td" => self.next_line(n(0), n(1)),
            b"TD" => {
                self.gs.leading = -n(1);
                self.next_line(n(0), n(1));
            }
            b"Tm" if six => {
                self.tm = [n(0), n(1), n(2), n(3), n(4), n(5)];
                self.tlm = self.tm;
            }
            b"T*" => self.next_line(0.0, -self.gs.leading),
            b"Tj" => {
                if let Some(s) = op.string(0) {
                    self.show(s);
                }
            }
            b"'" => {
                self.next_line(0.0, -self.gs.leading);
                if let Some(s) = op.string(0) {
                    self.show(s);
                }
            }
            b"\"" => {
                self.gs.word_spacing = n(0);
                self.gs.char_spacing = n(1);
                self.next_line(0.0, -self.gs.leading);
                if let Some(s) = op.string(2) {
                    self.show(s);
                }
            }
            b"TJ" => {
                for item in op.array(0).unwrap_or_default() {
                    match item {
                        Arg::Num(v) => self.shift(-v / 1000.0 * self.gs.size),
                        Arg::Str(..) => {
                            if let Some(s) = op.text(item) {
                                self.show(s);
                            }
                        }
                        _ => {}
                    }
                }
            }
            b"Do" => {
                if let Some(name) = op.name(0) {
                    self.form(resources, name)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn next_line(&mut self, tx: f32, ty: f32) {
        self.tlm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.tlm);
        self.tm = self.tlm;
    }

    /// Moves the text matrix along the writing direction by `amount` text-space units.
    fn shift(&mut self, amount: f32) {
        let vertical = self.gs.font.as_ref().is_some_and(|f| f.vertical);
        let (tx, ty) = if vertical {
            (0.0, -amount)
        } else {
            (amount * self.gs.h_scale, 0.0)
        };
        self.tm[4] += tx * self.tm[0] + ty * self.tm[2];
        self.tm[5] += tx * self.tm[1] + ty * self.tm[3];
    }

    /// The font `name` selects in `resources`: the same pair gives the same font for the whole
    /// page, so a `Tf` seen before is answered without reading the resources again.
    fn font(&mut self, resources: Option<&'a Dictionary>, name: &[u8]) -> Rc<Font> {
        let at = resources.map_or(0, |r| std::ptr::from_ref(r) as usize);
        if let Some((_, _, font)) = self
            .selected
            .iter()
            .find(|(a, n, _)| *a == at && n.as_slice() == name)
        {
            return font.clone();
        }
        let font = self.font_in(resources, name);
        if self.selected.len() < MAX_SELECTED {
            self.selected.push((at, name.to_vec(), font.clone()));
        }
        font
    }

    fn font_in(&mut self, resources: Option<&'a Dictionary>, name: &[u8]) -> Rc<Font> {
        let doc = self.doc;
        let entry = resources
            .and_then(|r| get_dict(doc, r, b"Font"))
            .and_then(|fonts| fonts.get(name).ok());
        match entry {
            Some(Object::Reference(id)) => {
                if let Some(f) = self.fonts.fonts.get(id) {
                    return f.clone();
                }
                let font = match doc.get_object(*id).ok().and_then(|o| as_dict(doc, o)) {
                    Some(d) => Font::load(doc, d),
                    None => Font::fallback(),
                };
                let font = Rc::new(font);
                self.fonts.fonts.insert(*id, font.clone());
                font
            }
            Some(Object::Dictionary(d)) => Rc::new(Font::load(doc, d)),
            _ => Rc::new(Font::fallback()),
        }
    }

    fn show(&mut self, bytes: &[u8]) {
        let Some(font) = self.gs.font.clone() else {
            return;
        };
        let gs = &self.gs;
        let skew_tan = self.skew_tan;
        let size = gs.size;
        let th = gs.h_scale;
        let out = &mut self.out;
        let tm = &mut self.tm;
        font.each_glyph(bytes, |g| {
            if !g.mapped {
                out.unmapped = out.unmapped.saturating_add(1);
            }
            let m = mul(tm, &gs.ctm);
            let trm = mul(&[size * th, 0.0, 0.0, size, 0.0, gs.rise], &m);
            let (ox, oy) = (trm[4], trm[5]);
            let glyph_adv = if font.vertical {
                size
            } else {
                g.width * size * th
            };
            if !g.text.is_empty() && out.glyphs.len() < MAX_GLYPHS {
                // Vertical writing runs down the text space: read it in a frame turned a quarter
                // so that a column runs like a line and the next column (to its left) comes next.
                let (dir, x, y, along, across) = if font.vertical {
                    let turned = [-m[2], -m[3], m[0], m[1], m[4], m[5]];
                    orient(&turned, ox, oy, skew_tan)
                } else {
                    orient(&m, ox, oy, skew_tan)
                };
                let start = out.text.len();
                if push_clean(&mut out.text, g.text) {
                    in_drawing_order(&mut out.text, start);
                    let len = out.text.len() - start;
                    let space = out.text[start..].chars().all(char::is_whitespace);
                    out.glyphs.push(Glyph {
                        x,
                        y,
                        w: glyph_adv * along,
                        size: (size * across * font.size_scale).abs(),
                        start: start as u32,
                        len: len as u32,
                        space,
                        dir,
                    });
                }
            }
            let mut adv = g.width * size + gs.char_spacing;
            if g.word_space {
                adv += gs.word_spacing;
            }
            if font.vertical {
                let ty =
                    -(size + gs.char_spacing + if g.word_space { gs.word_spacing } else { 0.0 });
                tm[4] += ty * tm[2];
                tm[5] += ty * tm[3];
            } else {
                let tx = adv * th;
                tm[4] += tx * tm[0];
                tm[5] += tx * tm[1];
            }
        });
    }

    fn form(&mut self, resources: Option<&'a Dictionary>, name: &[u8]) -> Result<(), PdfError> {
        let doc = self.doc;
        let Some(Object::Reference(id)) = resources
            .and_then(|r| get_dict(doc, r, b"XObject"))
            .and_then(|x| x.get(name).ok())
        else {
            return Ok(());
        };
        if self.forms.len() >= MAX_FORM_DEPTH || self.forms.contains(id) {
            return Ok(());
        }
        let Ok(Object::Stream(stream)) = doc.get_object(*id) else {
            return Ok(());
        };
        if get_name(doc, &stream.dict, b"Subtype") != Some(b"Form") {
            return Ok(());
        }
        let Some(content) = stream_bytes(stream) else {
            return Ok(());
        };
        let form_matrix = get(doc, &stream.dict, b"Matrix")
            .and_then(|m| matrix(doc, m))
            .unwrap_or(IDENTITY);
        let form_resources = get_dict(doc, &stream.dict, b"Resources").or(resources);

        let saved_gs = self.gs.clone();
        let saved_stack = self.stack.len();
        let (saved_tm, saved_tlm) = (self.tm, self.tlm);
        self.gs.ctm = mul(&form_matrix, &self.gs.ctm);
        self.forms.push(*id);
        let result = self.run(&content, form_resources);
        self.forms.pop();
        self.stack.truncate(saved_stack);
        self.gs = saved_gs;
        self.tm = saved_tm;
        self.tlm = saved_tlm;
        result
    }
}

/// One glyph's text from `start` on, in the order its parts are drawn: a right-to-left
/// ligature (lam-alef, "الله") maps to its letters in reading order, but its glyph stands in
/// a right-to-left line whose characters layout reverses as a whole, so its letters go in
/// reversed here to come out in reading order there.
fn in_drawing_order(text: &mut String, start: usize) {
    let Some(piece) = text.get(start..) else {
        return;
    };
    if piece.is_ascii() || piece.chars().nth(1).is_none() || !piece.chars().any(is_rtl) {
        return;
    }
    let reversed: String = piece.chars().rev().collect();
    text.truncate(start);
    text.push_str(&reversed);
}

/// Direction of the baseline and the glyph origin in that direction's frame, plus the scale
/// along and across the baseline. A baseline whose angle off every quarter turn has a tangent
/// over `skew_tan` is slanted.
fn orient(m: &Matrix, x: f32, y: f32, skew_tan: f32) -> (Dir, f32, f32, f32, f32) {
    let along = (m[0] * m[0] + m[1] * m[1]).sqrt();
    let across = (m[2] * m[2] + m[3] * m[3]).sqrt();
    let (a, b) = (m[0], m[1]);
    let quarter = if a.abs() >= b.abs() {
        if a >= 0.0 { Dir::Up0 } else { Dir::Up180 }
    } else if b > 0.0 {
        Dir::Up90
    } else {
        Dir::Up270
    };
    // Off a quarter turn by more than the slant's angle: a slanted line of its own direction.
    // The test is on the ratio, so upright text (b = 0) never takes the trigonometry.
    let dir = if b.abs().min(a.abs()) > skew_tan * b.abs().max(a.abs()) {
        let deg = b.atan2(a).to_degrees().rem_euclid(360.0).round() as u16 % 360;
        Dir::Skew(deg)
    } else {
        quarter
    };
    let (fx, fy) = dir.frame(x, y);
    (dir, fx, fy, along, across)
}

/// The page's resources, inherited through the page tree when the page has none.
fn page_resources<'a>(doc: &'a Document, page: &'a Dictionary) -> Option<&'a Dictionary> {
    let mut node = page;
    for _ in 0..64 {
        if let Some(r) = get_dict(doc, node, b"Resources") {
            return Some(r);
        }
        node = get_dict(doc, node, b"Parent")?;
    }
    None
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use lopdf::{Document, Object, Stream, dictionary};

    use crate::{Limits, extract};

    /// A page whose `/F1` is Helvetica, drawing a form whose own `/F1` reads code `A` as `Z`,
    /// then its `/F1` again, twice: a font is remembered by its resources and its name, never by
    /// its name alone.
    #[test]
    fn the_same_font_name_in_other_resources_is_another_font() {
        let mut doc = Document::with_version("1.5");
        let tree = doc.new_object_id();
        let plain = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let swapped = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => dictionary! {
                "Type" => "Encoding", "BaseEncoding" => "WinAnsiEncoding",
                "Differences" => vec![65.into(), Object::Name(b"Z".to_vec())],
            },
        });
        let form = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => swapped } },
            },
            b"BT /F1 12 Tf 72 650 Td (AAA) Tj ET".to_vec(),
        ));
        let content = b"BT /F1 12 Tf 72 700 Td (AAA) Tj ET /Fm0 Do \
            BT /F1 12 Tf 72 600 Td (AAA) Tj ET /Fm0 Do BT /F1 12 Tf 72 550 Td (AA) Tj ET";
        let c = doc.add_object(Stream::new(dictionary! {}, content.to_vec()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => tree, "Contents" => c,
            "Resources" => dictionary! {
                "Font" => dictionary! { "F1" => plain },
                "XObject" => dictionary! { "Fm0" => form },
            },
        });
        doc.objects.insert(
            tree,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let root = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
        doc.trailer.set("Root", root);
        let mut pdf = Vec::new();
        doc.save_to(&mut pdf).unwrap();
        let limits = Limits {
            deadline: Instant::now() + Duration::from_secs(30),
        };
        let read = extract(&pdf, limits).expect("the page reads");
        let words: Vec<&str> = read.pages[0].text.split_whitespace().collect();
        assert_eq!(words, ["AAA", "ZZZ", "AAA", "AA"]);
    }
}
