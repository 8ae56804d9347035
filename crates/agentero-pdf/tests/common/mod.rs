//! Writing test PDFs with `pdf-writer`: one page at a time, fonts named in the page resources,
//! text placed line by line (or glyph by glyph) with its own text matrix.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use agentero_pdf::{Limits, PdfDocument, extract};
use hayro_cmap::{CMap, CMapName, load_embedded};
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Name, Pdf, Rect, Ref, Str};

pub fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(30),
    }
}

pub fn read(pdf: &[u8]) -> PdfDocument {
    extract(pdf, limits()).expect("the fixture opens")
}

/// A font of the page: its resource name and the object that defines it.
pub enum Font {
    /// One of the standard 14 (no metrics or program in the file).
    Std14(&'static str),
    /// A Type 1 font known by name only, with `/Differences` naming the glyph of each code.
    Named {
        base: &'static str,
        differences: Vec<(u8, &'static str)>,
    },
    /// A simple Type 1 font with no `/Encoding` and no program: only its name says what its codes
    /// are (TeX's math fonts as some producers write them).
    Bare(&'static str),
    /// A Type 0 font over a CIDFontType0 of collection Adobe-`ordering` (no program, no
    /// ToUnicode) through the predefined CMap `cmap` (`Identity-V`, `UniJIS-UTF16-V`, …).
    Cid {
        cmap: &'static str,
        ordering: &'static str,
    },
    /// A Type 3 font as dvips writes its bitmap fonts: no name, and each used code's glyph named
    /// only by its number (`/a65`, `/a225`), every glyph half an em wide.
    Type3Numbered(Vec<u8>),
    /// A Type 1 font with an embedded bare CFF program (`/FontFile3 /Type1C`) whose built-in
    /// encoding names each code's glyph, no `/Encoding`, and a ToUnicode map of only some codes
    /// (as dvipdfmx writes MathDesign's math fonts). Every glyph is half an em wide.
    CffPartialToUnicode {
        base: &'static str,
        glyphs: Vec<(u8, &'static str)>,
        to_unicode: Vec<(u8, char)>,
    },
}

/// One page being written: its fonts and its content stream.
pub struct PageBuilder {
    pub content: Content,
    fonts: Vec<(String, Font)>,
}

impl PageBuilder {
    pub fn new() -> Self {
        PageBuilder {
            content: Content::new(),
            fonts: Vec::new(),
        }
    }

    pub fn font(&mut self, name: &str, font: Font) {
        self.fonts.push((name.to_string(), font));
    }

    /// Shows `bytes` in font `font` at (`x`, `y`).
    pub fn show(&mut self, font: &str, size: f32, x: f32, y: f32, bytes: &[u8]) {
        self.content
            .begin_text()
            .set_font(Name(font.as_bytes()), size)
            .set_text_matrix([1.0, 0.0, 0.0, 1.0, x, y])
            .show(Str(bytes))
            .end_text();
    }

    /// Shows `bytes` in font `font` with the text matrix `matrix` (a slanted or turned line).
    pub fn show_with(&mut self, font: &str, size: f32, matrix: [f32; 6], bytes: &[u8]) {
        self.content
            .begin_text()
            .set_font(Name(font.as_bytes()), size)
            .set_text_matrix(matrix)
            .show(Str(bytes))
            .end_text();
    }

    /// A horizontal rule from `x0` to `x1` at `y`.
    pub fn rule(&mut self, x0: f32, x1: f32, y: f32) {
        self.content
            .set_line_width(0.5)
            .move_to(x0, y)
            .line_to(x1, y)
            .stroke();
    }

    /// The PDF: one A4 page (595 × 842 pt).
    pub fn finish(self) -> Vec<u8> {
        let mut pdf = Pdf::new();
        let mut next = 1;
        let mut alloc = || {
            next += 1;
            Ref::new(next)
        };
        let catalog = Ref::new(1);
        let tree = alloc();
        let page = alloc();
        let contents = alloc();
        let mut font_refs = Vec::new();
        for (name, font) in &self.fonts {
            let id = alloc();
            write_font(&mut pdf, id, font, &mut alloc);
            font_refs.push((name.clone(), id));
        }
        pdf.catalog(catalog).pages(tree);
        pdf.pages(tree).kids([page]).count(1);
        {
            let mut p = pdf.page(page);
            p.parent(tree)
                .media_box(Rect::new(0.0, 0.0, 595.0, 842.0))
                .contents(contents);
            let mut resources = p.resources();
            let mut fonts = resources.fonts();
            for (name, id) in &font_refs {
                fonts.pair(Name(name.as_bytes()), *id);
            }
        }
        let data = self.content.finish();
        pdf.stream(contents, &data);
        pdf.finish()
    }
}

impl Default for PageBuilder {
    fn default() -> Self {
        Self::new()
    }
}

fn write_font(pdf: &mut Pdf, id: Ref, font: &Font, alloc: &mut impl FnMut() -> Ref) {
    match font {
        Font::Std14(base) => {
            pdf.type1_font(id)
                .base_font(Name(base.as_bytes()))
                .encoding_predefined(Name(b"WinAnsiEncoding"));
        }
        Font::Named { base, differences } => {
            let mut f = pdf.type1_font(id);
            f.base_font(Name(base.as_bytes()));
            let mut enc = f.encoding_custom();
            let mut diffs = enc.differences();
            for (code, glyph) in differences {
                diffs.consecutive(*code, [Name(glyph.as_bytes())]);
            }
        }
        Font::Bare(base) => {
            pdf.type1_font(id)
                .base_font(Name(base.as_bytes()))
                .first_char(0)
                .widths(std::iter::repeat_n(600.0, 128));
        }
        Font::Type3Numbered(codes) => {
            let mut procs = Vec::new();
            for _ in codes {
                let r = alloc();
                pdf.stream(r, b"500 0 0 0 400 600 d1 0 0 400 600 re f");
                procs.push(r);
            }
            let (first, last) = (
                codes.iter().copied().min().unwrap_or(0),
                codes.iter().copied().max().unwrap_or(0),
            );
            let mut f = pdf.type3_font(id);
            f.bbox(Rect::new(0.0, 0.0, 500.0, 700.0))
                .matrix([0.001, 0.0, 0.0, 0.001, 0.0, 0.0])
                .first_char(first)
                .last_char(last)
                .widths((first..=last).map(|c| if codes.contains(&c) { 500.0 } else { 0.0 }));
            {
                let mut cp = f.char_procs();
                for (code, r) in codes.iter().zip(&procs) {
                    cp.pair(Name(format!("a{code}").as_bytes()), *r);
                }
            }
            let mut enc = f.encoding_custom();
            let mut diffs = enc.differences();
            for code in codes {
                diffs.consecutive(*code, [Name(format!("a{code}").as_bytes())]);
            }
        }
        Font::CffPartialToUnicode {
            base,
            glyphs,
            to_unicode,
        } => {
            let (descriptor, program, cmap) = (alloc(), alloc(), alloc());
            let last = glyphs.iter().map(|g| g.0).max().unwrap_or(0);
            pdf.type1_font(id)
                .base_font(Name(base.as_bytes()))
                .first_char(0)
                .last_char(last)
                .widths((0..=last).map(|c| {
                    if glyphs.iter().any(|g| g.0 == c) {
                        500.0
                    } else {
                        0.0
                    }
                }))
                .font_descriptor(descriptor)
                .to_unicode(cmap);
            symbolic_descriptor(pdf, descriptor, base, -250.0).font_file3(program);
            pdf.stream(program, &cff_program(glyphs))
                .pair(Name(b"Subtype"), Name(b"Type1C"));
            let mut map = UnicodeCmap::<u8>::new(
                Name(b"Fixture-UCS"),
                SystemInfo {
                    registry: Str(b"Adobe"),
                    ordering: Str(b"UCS"),
                    supplement: 0,
                },
            );
            for (code, c) in to_unicode {
                map.pair(*code, *c);
            }
            pdf.cmap(cmap, &map.finish());
        }
        Font::Cid { cmap, ordering } => {
            let descendant = alloc();
            let descriptor = alloc();
            let base = format!("Fixture-{ordering}");
            pdf.type0_font(id)
                .base_font(Name(format!("{base}-{cmap}").as_bytes()))
                .encoding_predefined(Name(cmap.as_bytes()))
                .descendant_font(descendant);
            pdf.cid_font(descendant)
                .subtype(CidFontType::Type0)
                .base_font(Name(base.as_bytes()))
                .system_info(SystemInfo {
                    registry: Str(b"Adobe"),
                    ordering: Str(ordering.as_bytes()),
                    supplement: 6,
                })
                .font_descriptor(descriptor)
                .default_width(1000.0);
            symbolic_descriptor(pdf, descriptor, &base, -120.0);
        }
    }
}

/// The descriptor of a symbolic font named `name` whose em box runs from `descent` to
/// `1000 + descent`.
fn symbolic_descriptor<'a>(
    pdf: &'a mut Pdf,
    id: Ref,
    name: &str,
    descent: f32,
) -> pdf_writer::writers::FontDescriptor<'a> {
    let mut d = pdf.font_descriptor(id);
    d.name(Name(name.as_bytes()))
        .flags(FontFlags::SYMBOLIC)
        .bbox(Rect::new(0.0, descent, 1000.0, 1000.0 + descent))
        .italic_angle(0.0)
        .ascent(1000.0 + descent)
        .descent(descent)
        .cap_height(700.0)
        .stem_v(80.0);
    d
}

/// The CID of each character of `text` in Adobe's predefined CMap `cmap` (a `Uni…-UTF16-…`
/// one), looked up the way a PDF reader does: what an `Identity-H`/`-V` font shows for it.
pub fn cids(cmap: &str, text: &str) -> Vec<u16> {
    let name = CMapName::from_bytes(cmap.as_bytes());
    let table = load_embedded(name)
        .and_then(|data| CMap::parse(data, load_embedded))
        .unwrap_or_else(|| panic!("no predefined CMap {cmap}"));
    text.chars()
        .map(|c| {
            let mut units = [0u16; 2];
            let units = c.encode_utf16(&mut units);
            let (value, len) = units
                .iter()
                .fold((0u32, 0u8), |(v, n), u| (v << 16 | u32::from(*u), n + 2));
            let cid = table
                .lookup_cid_code(value, len)
                .unwrap_or_else(|| panic!("{cmap} has no CID for {c:?}"));
            u16::try_from(cid).expect("a two-byte CID")
        })
        .collect()
}

/// Two-byte codes of CIDs, as `Identity-H`/`-V` fonts show them.
pub fn cid_bytes(cids: &[u16]) -> Vec<u8> {
    cids.iter().flat_map(|c| c.to_be_bytes()).collect()
}

/// Whitespace runs as single spaces: a sentence reads the same whichever lines it spans.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lines of `text` about `chars` characters long, broken at spaces.
pub fn wrap(text: &str, chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A bare CFF program (what `/FontFile3 /Subtype /Type1C` holds) of empty glyphs, whose built-in
/// encoding gives each code of `glyphs` the glyph of that name: a name-keyed font with a custom
/// charset and a format 0 encoding. Every number in the top dict is written in its 5-byte form,
/// so the offsets can be counted before they are known.
pub fn cff_program(glyphs: &[(u8, &str)]) -> Vec<u8> {
    fn index(items: &[&[u8]]) -> Vec<u8> {
        let mut out = (items.len() as u16).to_be_bytes().to_vec();
        if items.is_empty() {
            return out;
        }
        let total: usize = items.iter().map(|i| i.len()).sum();
        assert!(total < 250, "a small fixture index");
        out.push(1);
        let mut at = 1u8;
        out.push(at);
        for i in items {
            at += i.len() as u8;
            out.push(at);
        }
        for i in items {
            out.extend_from_slice(i);
        }
        out
    }
    let int5 = |v: usize| {
        let mut b = vec![29u8];
        b.extend_from_slice(&(v as i32).to_be_bytes());
        b
    };
    let names: Vec<&[u8]> = glyphs.iter().map(|g| g.1.as_bytes()).collect();
    let header = [1u8, 0, 4, 1];
    let name_index = index(&[b"Fixture"]);
    let strings = index(&names);
    let gsubrs = index(&[]);
    // charset, Encoding, CharStrings, Private (size, offset): 4 + 5 × 5 bytes of operands.
    let top_len = 5 * 5 + 4;
    let top_index_len = 2 + 1 + 2 + top_len;
    let charset_at = header.len() + name_index.len() + top_index_len + strings.len() + gsubrs.len();
    let mut charset = vec![0u8];
    for i in 0..glyphs.len() {
        charset.extend_from_slice(&(391 + i as u16).to_be_bytes());
    }
    let encoding_at = charset_at + charset.len();
    let mut encoding = vec![0u8, glyphs.len() as u8];
    encoding.extend(glyphs.iter().map(|g| g.0));
    let charstrings_at = encoding_at + encoding.len();
    let endchar: &[u8] = &[14];
    let charstrings = index(&vec![endchar; glyphs.len() + 1]);
    let private_at = charstrings_at + charstrings.len();
    let private = [139u8, 20]; // defaultWidthX 0
    let mut top = Vec::new();
    top.extend(int5(charset_at));
    top.push(15);
    top.extend(int5(encoding_at));
    top.push(16);
    top.extend(int5(charstrings_at));
    top.push(17);
    top.extend(int5(private.len()));
    top.extend(int5(private_at));
    top.push(18);
    assert_eq!(top.len(), top_len);
    let mut out = header.to_vec();
    out.extend(name_index);
    out.extend(index(&[&top]));
    out.extend(strings);
    out.extend(gsubrs);
    out.extend(charset);
    out.extend(encoding);
    out.extend(charstrings);
    out.extend(private);
    out
}
