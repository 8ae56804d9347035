//! Fonts: from a font dictionary to "code → (text, advance)".
//!
//! Simple fonts get a 256-entry table computed once (ToUnicode first, then Differences glyph
//! names, the embedded Type 1 program's own encoding, the base encoding, and TeX's OT1/T1 slots
//! for control codes). Composite (Type0) fonts keep their CMaps and look codes up per glyph.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use std::sync::Arc;

use super::cid::{self, CidText, Predefined};
use super::cmap::CMap;
use super::encodings::{BaseEncoding, glyph_to_unicode, unicode_to_glyph};
use super::fontfile;
use super::metrics;
use super::texmath;
use super::util::{
    as_dict, deref, get, get_array, get_dict, get_name, get_num, get_stream, num, num_deref,
    stream_bytes,
};

/// Bound on /W entries kept per CID font.
const MAX_CID_WIDTHS: usize = 200_000;

#[derive(Debug)]
pub struct Font {
    kind: Kind,
    /// Horizontal text; vertical CID fonts advance downwards.
    pub vertical: bool,
    /// Glyph height relative to a standard 1000-unit font (Type 3 fonts scale by /FontMatrix).
    pub size_scale: f32,
}

#[derive(Debug)]
enum Kind {
    Simple(Box<Simple>),
    Cid(Box<Cid>),
}

#[derive(Debug)]
struct Simple {
    text: Vec<Box<str>>,
    widths: [f32; 256],
}

#[derive(Debug)]
struct Cid {
    encoding: CidEncoding,
    to_unicode: Option<CMap>,
    /// Text by CID where the ToUnicode map says nothing: the collection's table or the font
    /// program's own `cmap`.
    by_cid: CidSource,
    widths: HashMap<u32, f32>,
    default_width: f32,
    /// Codes are UTF-16 themselves (predefined Uni…-UCS2/UTF16 CMaps).
    codes_are_unicode: bool,
}

#[derive(Debug)]
enum CidEncoding {
    Identity,
    /// An embedded CMap stream, with the predefined CMap it builds on (`usecmap`), if any.
    Embedded(CMap, Option<Arc<Predefined>>),
    Predefined(Arc<Predefined>),
    /// A predefined CMap Adobe does not define: 2-byte codes, or 1 byte below 0x80 for the
    /// mixed ones, and no CIDs.
    Unknown {
        mixed: bool,
    },
}

enum CidSource {
    None,
    Collection(&'static CidText),
    Program(HashMap<u32, char>),
}

impl std::fmt::Debug for CidSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CidSource::None => f.write_str("None"),
            CidSource::Collection(_) => f.write_str("Collection"),
            CidSource::Program(m) => write!(f, "Program({} glyphs)", m.len()),
        }
    }
}

/// One decoded glyph handed to the interpreter.
pub struct GlyphCode<'a> {
    pub text: &'a str,
    /// Advance in text space per unit of font size (before Tc/Tw/Tz).
    pub width: f32,
    /// A single-byte code 32: word spacing (Tw) applies.
    pub word_space: bool,
    /// The font could say what this glyph is (or it is a space): false for a glyph shown with
    /// no way to turn it into text.
    pub mapped: bool,
}

impl Font {
    /// A font that shows nothing: used when a font dictionary is missing or unreadable, so the
    /// text positions after it still advance.
    pub fn fallback() -> Font {
        Font {
            kind: Kind::Simple(Box::new(Simple {
                text: (0..256).map(|_| Box::<str>::from("")).collect(),
                widths: [0.5; 256],
            })),
            vertical: false,
            size_scale: 1.0,
        }
    }

    pub fn load(doc: &Document, dict: &Dictionary) -> Font {
        let subtype = get_name(doc, dict, b"Subtype").unwrap_or(b"Type1");
        if subtype == b"Type0" {
            load_type0(doc, dict)
        } else {
            load_simple(doc, dict, subtype == b"Type3")
        }
    }

    /// Walks the codes in a string operand.
    pub fn each_glyph(&self, bytes: &[u8], mut f: impl FnMut(GlyphCode<'_>)) {
        match &self.kind {
            Kind::Simple(s) => {
                for &b in bytes {
                    let text = &s.text[b as usize];
                    f(GlyphCode {
                        text,
                        width: s.widths[b as usize],
                        word_space: b == 32,
                        mapped: !text.is_empty() || b == 32,
                    });
                }
            }
            Kind::Cid(c) => {
                let mut i = 0;
                let mut buf = [0u8; 4];
                while i < bytes.len() {
                    let rest = &bytes[i..];
                    let (code, len, cid) = c.encoding.next_code(rest);
                    i += len.max(1);
                    let width = cid
                        .and_then(|cid| c.widths.get(&cid).copied())
                        .unwrap_or(c.default_width);
                    let owned: Option<String>;
                    let found = match c
                        .to_unicode
                        .as_ref()
                        .and_then(|tu| tu.lookup_unicode(len, code))
                    {
                        Some(s) => Some(s),
                        None => {
                            owned = c
                                .to_unicode
                                .as_ref()
                                .and_then(|tu| tu.lookup_range_unicode(len, code));
                            owned.as_deref()
                        }
                    };
                    let text: Option<&str> = match found {
                        Some(s) => Some(s),
                        None if c.codes_are_unicode => cid::utf16_code_text(code, len, &mut buf),
                        None => match (&c.by_cid, cid) {
                            (CidSource::Collection(t), Some(cid)) => t.get(cid, &mut buf),
                            (CidSource::Program(m), Some(cid)) => {
                                m.get(&cid).map(|ch| &*ch.encode_utf8(&mut buf))
                            }
                            _ => None,
                        },
                    };
                    let word_space = len == 1 && code == 32;
                    f(GlyphCode {
                        text: text.unwrap_or(""),
                        width,
                        word_space,
                        mapped: text.is_some() || word_space,
                    });
                }
            }
        }
    }
}

impl CidEncoding {
    /// Splits the next code off `bytes`: (code, length in bytes, CID when the encoding knows it).
    fn next_code(&self, rest: &[u8]) -> (u32, usize, Option<u32>) {
        let be = |b: &[u8]| b.iter().fold(0u32, |a, &b| a << 8 | u32::from(b));
        match self {
            CidEncoding::Identity => {
                let len = 2.min(rest.len());
                let code = be(&rest[..len]);
                (code, len, Some(code))
            }
            CidEncoding::Embedded(cm, parent) => {
                let (code, len) = cm.next_code(rest);
                let cid = cm
                    .lookup_cid(len, code)
                    .or_else(|| parent.as_ref().and_then(|p| p.lookup(code, len)))
                    .unwrap_or(code);
                (code, len, Some(cid))
            }
            CidEncoding::Predefined(p) => p.next_code(rest),
            CidEncoding::Unknown { mixed } => {
                let len = if *mixed && rest[0] < 0x80 {
                    1
                } else {
                    2.min(rest.len())
                };
                (be(&rest[..len]), len, None)
            }
        }
    }
}

fn load_to_unicode(doc: &Document, dict: &Dictionary) -> Option<CMap> {
    let stream = get_stream(doc, dict, b"ToUnicode")?;
    let bytes = stream_bytes(stream)?;
    let cm = CMap::parse(&bytes);
    (!cm.is_empty()).then_some(cm)
}

fn strip_subset(name: &str) -> &str {
    match name.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_uppercase()) => rest,
        _ => name,
    }
}

/// Which TeX 7-bit layout a font with unnamed control-code glyphs most likely uses.
#[derive(Clone, Copy, PartialEq)]
enum TexFlavor {
    Ot1,
    T1,
}

fn tex_control(code: u8, flavor: TexFlavor) -> &'static str {
    match flavor {
        TexFlavor::Ot1 => match code {
            0x00 => "Γ",
            0x01 => "Δ",
            0x02 => "Θ",
            0x03 => "Λ",
            0x04 => "Ξ",
            0x05 => "Π",
            0x06 => "Σ",
            0x07 => "Υ",
            0x08 => "Φ",
            0x09 => "Ψ",
            0x0a => "Ω",
            0x0b => "ff",
            0x0c => "fi",
            0x0d => "fl",
            0x0e => "ffi",
            0x0f => "ffl",
            0x10 => "ı",
            0x11 => "ȷ",
            0x19 => "ß",
            0x1a => "æ",
            0x1b => "œ",
            0x1c => "ø",
            0x1d => "Æ",
            0x1e => "Œ",
            0x1f => "Ø",
            _ => "",
        },
        TexFlavor::T1 => match code {
            0x0d => "‚",
            0x0e => "‹",
            0x0f => "›",
            0x10 => "“",
            0x11 => "”",
            0x12 => "„",
            0x13 => "«",
            0x14 => "»",
            0x15 => "–",
            0x16 => "—",
            0x19 => "ı",
            0x1a => "ȷ",
            0x1b => "ff",
            0x1c => "fi",
            0x1d => "fl",
            0x1e => "ffi",
            0x1f => "ffl",
            _ => "",
        },
    }
}

/// Glyph names that only number glyphs ("a28" in dvips bitmap fonts, "g123", "cid123"): the
/// number, when the name carries no meaning of its own.
fn numbered_name(name: &str) -> Option<u32> {
    let digits = ["a", "g", "cid", "glyph", "index", "G", "char", "c"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    if digits.is_empty() || digits.len() > 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Appends `s` to `out` in the form readers want: ligatures as letters, no control or
/// zero-width characters, no-break spaces as spaces. Returns whether anything was appended.
pub fn push_clean(out: &mut String, s: &str) -> bool {
    let before = out.len();
    for ch in s.chars() {
        match ch {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            // A drawn soft hyphen is a visible hyphen (producers map the hyphen glyph to it).
            '\u{00AD}' => out.push('-'),
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{3000}' => out.push(' '),
            '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{FEFF}' | '\u{FFFD}' => {}
            c if c.is_control() => {}
            // Vertical punctuation (︒, ﹁) as the characters it stands for (。, 「).
            c => out.push(super::vertical::horizontal_form(c).unwrap_or(c)),
        }
    }
    out.len() > before
}

fn clean(s: &str) -> Box<str> {
    let mut out = String::new();
    push_clean(&mut out, s);
    out.into_boxed_str()
}

fn load_simple(doc: &Document, dict: &Dictionary, type3: bool) -> Font {
    let base_font = get_name(doc, dict, b"BaseFont")
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default();
    let base_name = strip_subset(&base_font).to_string();
    let descriptor = get_dict(doc, dict, b"FontDescriptor");

    // Encoding: base table plus Differences.
    let mut base: Option<BaseEncoding> = None;
    let mut differences: Vec<Option<String>> = vec![None; 256];
    let mut has_differences = false;
    match get(doc, dict, b"Encoding") {
        Some(Object::Name(n)) => base = BaseEncoding::from_name(n),
        Some(Object::Dictionary(enc)) => {
            base = get_name(doc, enc, b"BaseEncoding").and_then(BaseEncoding::from_name);
            if let Some(diffs) = get_array(doc, enc, b"Differences") {
                let mut code: i64 = 0;
                for item in diffs.iter().take(4096) {
                    match deref(doc, item) {
                        Some(Object::Integer(i)) => code = *i,
                        Some(Object::Real(r)) => code = *r as i64,
                        Some(Object::Name(n)) => {
                            if (0..256).contains(&code) {
                                differences[code as usize] =
                                    Some(String::from_utf8_lossy(n).into_owned());
                                has_differences = true;
                            }
                            code += 1;
                        }
                        _ => {}
                    }
                }
            }
        }
        _ => {}
    }

    let lower = base_name.to_ascii_lowercase();
    let symbolic_std = if lower.starts_with("symbol") {
        Some(BaseEncoding::Symbol)
    } else if lower.contains("dingbats") {
        Some(BaseEncoding::ZapfDingbats)
    } else {
        None
    };
    let to_unicode = load_to_unicode(doc, dict);
    let builtin = if base.is_none() && !type3 {
        descriptor.and_then(|d| type1_builtin_encoding(doc, d, to_unicode.is_some()))
    } else {
        None
    };
    let base_table = match (base, symbolic_std) {
        (_, Some(sym)) if base.is_none() || !has_differences => Some(sym.table()),
        (Some(b), _) => Some(b.table()),
        // Type 3 glyph names are all there is; a base table would invent letters.
        (None, _) if type3 => None,
        (None, _) => Some(BaseEncoding::Standard.table()),
    };

    // Codes the font uses, to guess its TeX layout for unnamed control codes.
    let used_ot1_lig = (0x0b..=0x0f).any(|c| differences[c].is_some());
    let used_t1_lig = (0x1b..=0x1f).any(|c| differences[c].is_some());
    let flavor = if used_t1_lig && !used_ot1_lig {
        TexFlavor::T1
    } else {
        TexFlavor::Ot1
    };

    let math = if type3 {
        None
    } else {
        texmath::layout(&base_name)
    };
    let mut text: Vec<Box<str>> = Vec::with_capacity(256);
    let mut names: Vec<Option<String>> = vec![None; 256];
    for code in 0..256usize {
        let mut t: Option<String> = None;
        if let Some(tu) = &to_unicode
            && let Some(s) = tu.lookup_unicode(1, code as u32)
            && s.chars().any(|c| !c.is_control())
        {
            t = Some(s.to_string());
        }
        let name = differences[code].clone().or_else(|| {
            builtin
                .as_ref()
                .and_then(|b| b.get(code).cloned().flatten())
        });
        if t.is_none()
            && let Some(n) = &name
        {
            t = glyph_to_unicode(n);
            if t.is_none()
                && let Some(num) = numbered_name(n)
                && num as usize == code
            {
                // dvips bitmap fonts name glyphs after their code: the code is the character.
                t = Some(if code < 0x20 {
                    tex_control(code as u8, flavor).to_string()
                } else if code < 0x7f {
                    char::from(code as u8).to_string()
                } else {
                    String::new()
                });
            }
        }
        // TeX's math fonts known only by name: their own layouts, not a text encoding's.
        if t.is_none()
            && name.is_none()
            && base.is_none()
            && let Some(layout) = math
        {
            t = Some(
                texmath::char_of(layout, code as u8)
                    .unwrap_or("")
                    .to_string(),
            );
        }
        if t.is_none()
            && name.is_none()
            && let Some(table) = base_table
        {
            let ch = table[code];
            if ch != '\0' {
                t = Some(ch.to_string());
            }
        }
        // A glyph name we cannot read is still a real mapping; only nameless control codes
        // (or numbered ones) fall back to TeX's layouts.
        let nameless = name
            .as_deref()
            .is_none_or(|n| numbered_name(n).is_some() || n == ".notdef");
        if t.as_deref().is_none_or(str::is_empty) && code < 0x20 && nameless {
            let s = tex_control(code as u8, flavor);
            if !s.is_empty() {
                t = Some(s.to_string());
            }
        }
        names[code] = name.or_else(|| {
            let mut chars = t.as_deref()?.chars();
            let c = chars.next()?;
            chars
                .next()
                .is_none()
                .then(|| unicode_to_glyph(c).map(str::to_string))
                .flatten()
        });
        text.push(clean(t.as_deref().unwrap_or("")));
    }

    // Widths.
    let font_matrix = if type3 {
        get(doc, dict, b"FontMatrix")
            .and_then(|m| super::util::matrix(doc, m))
            .filter(|m| m[0].abs() > 1e-7 && m[3].abs() > 1e-7)
            .unwrap_or([0.001, 0.0, 0.0, 0.001, 0.0, 0.0])
    } else {
        [0.001, 0.0, 0.0, 0.001, 0.0, 0.0]
    };
    let scale = font_matrix[0];
    let missing = descriptor
        .and_then(|d| get_num(doc, d, b"MissingWidth"))
        .unwrap_or(0.0);
    let mut widths = [f32::NAN; 256];
    let first = get_num(doc, dict, b"FirstChar").unwrap_or(0.0).max(0.0) as usize;
    if let Some(ws) = get_array(doc, dict, b"Widths") {
        for (i, w) in ws.iter().enumerate().take(256) {
            if let (Some(slot), Some(w)) = (widths.get_mut(first + i), num_deref(doc, w)) {
                *slot = w * scale;
            }
        }
    }
    let std14 = metrics::std14_canonical_name(&base_name).is_some();
    for code in 0..256usize {
        if widths[code].is_nan() {
            let from_metrics = if std14 {
                names[code]
                    .as_deref()
                    .and_then(|n| metrics::std14_width(&base_name, n))
                    .map(|w| f32::from(w) / 1000.0)
            } else {
                None
            };
            widths[code] = from_metrics.unwrap_or(if missing > 0.0 {
                missing * scale
            } else if type3 {
                0.0
            } else {
                // No metrics at all: half an em keeps words apart without inventing gaps.
                0.5
            });
        }
    }

    // A Type 3 font's em is usually one text-space unit (pdfTeX's PK fonts), but some producers
    // set Tf to 1 and fold the size into /FontMatrix; the bounding box tells the two apart.
    let size_scale = if type3 {
        let bbox_height = get_array(doc, dict, b"FontBBox")
            .filter(|b| b.len() == 4)
            .and_then(|b| Some((num_deref(doc, &b[3])? - num_deref(doc, &b[1])?).abs()))
            .map(|h| h * font_matrix[3].abs())
            .filter(|h| h.is_finite() && *h > 0.0);
        match bbox_height {
            Some(h) if !(0.2..=5.0).contains(&h) => h.clamp(1e-3, 1e4),
            _ => 1.0,
        }
    } else {
        1.0
    };
    Font {
        kind: Kind::Simple(Box::new(Simple { text, widths })),
        vertical: false,
        size_scale,
    }
}

/// The built-in encoding of an embedded Type 1 or CFF program: for Type 1 the `/Encoding` array in
/// the clear-text part (pdfTeX embeds Computer Modern this way with no /Encoding in the PDF at all).
fn type1_builtin_encoding(
    doc: &Document,
    descriptor: &Dictionary,
    has_to_unicode: bool,
) -> Option<Vec<Option<String>>> {
    let Some(stream) = get_stream(doc, descriptor, b"FontFile") else {
        // A bare CFF program (/FontFile3 /Subtype /Type1C) carries its encoding in binary;
        // decompressing and parsing it is only worth it when no ToUnicode map names the text.
        if has_to_unicode {
            return None;
        }
        let cff = get_stream(doc, descriptor, b"FontFile3")?;
        if get_name(doc, &cff.dict, b"Subtype") != Some(b"Type1C") {
            return None;
        }
        return fontfile::cff_builtin_names(&stream_bytes(cff)?);
    };
    let data = stream_bytes(stream)?;
    let clear_len = get_num(doc, &stream.dict, b"Length1")
        .map(|l| l as usize)
        .unwrap_or(data.len())
        .min(data.len());
    let clear = &data[..clear_len];
    let end = find(clear, b"eexec").unwrap_or(clear.len());
    let clear = &clear[..end];
    let start = find(clear, b"/Encoding")?;
    let rest = &clear[start + 9..];
    let head = &rest[..rest.len().min(40)];
    if find(head, b"StandardEncoding").is_some() {
        return None;
    }
    let mut out: Vec<Option<String>> = vec![None; 256];
    let mut toks = rest
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .take(256 * 5 + 64);
    let mut prev2: Option<&[u8]> = None;
    let mut prev1: Option<&[u8]> = None;
    for t in toks.by_ref() {
        if t == b"put"
            && let (Some(code), Some(name)) = (prev2, prev1)
            && let Some(name) = name.strip_prefix(b"/")
            && let Some(code) = std::str::from_utf8(code)
                .ok()
                .and_then(|c| c.parse::<usize>().ok())
            && code < 256
        {
            out[code] = Some(String::from_utf8_lossy(name).into_owned());
        }
        if t == b"readonly" || t == b"def" {
            break;
        }
        prev2 = prev1;
        prev1 = Some(t);
    }
    out.iter().any(Option::is_some).then_some(out)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn load_type0(doc: &Document, dict: &Dictionary) -> Font {
    let to_unicode = load_to_unicode(doc, dict);
    let mut vertical = false;
    let mut codes_are_unicode = false;
    let mut collection = None;
    let encoding = match get(doc, dict, b"Encoding") {
        Some(Object::Name(n)) => {
            vertical = n.ends_with(b"-V");
            if n.starts_with(b"Identity") {
                CidEncoding::Identity
            } else if let Some(p) = cid::predefined(n) {
                vertical = p.vertical;
                codes_are_unicode = p.codes_are_unicode;
                collection = p.collection;
                CidEncoding::Predefined(p)
            } else {
                let name = String::from_utf8_lossy(n);
                codes_are_unicode = name.contains("UCS2") || name.contains("UTF16");
                let mixed = !codes_are_unicode
                    && (name.contains("EUC")
                        || name.contains("RKSJ")
                        || name.contains("GBK")
                        || name.contains("B5"));
                CidEncoding::Unknown { mixed }
            }
        }
        Some(Object::Stream(s)) => {
            vertical = get_num(doc, &s.dict, b"WMode").unwrap_or(0.0) == 1.0;
            match stream_bytes(s).map(|b| CMap::parse(&b)) {
                Some(cm) if !cm.codespace.is_empty() => {
                    let parent = cm
                        .use_cmap
                        .as_deref()
                        .and_then(|n| cid::predefined(n.as_bytes()));
                    if let Some(p) = &parent {
                        collection = p.collection;
                    }
                    CidEncoding::Embedded(cm, parent)
                }
                _ => CidEncoding::Identity,
            }
        }
        _ => CidEncoding::Identity,
    };

    let descendant = get_array(doc, dict, b"DescendantFonts")
        .and_then(|a| a.first())
        .and_then(|d| as_dict(doc, d));
    let mut widths = HashMap::new();
    let mut default_width = 1.0;
    let mut by_cid = CidSource::None;
    if let Some(cf) = descendant {
        if let Some(dw) = get_num(doc, cf, b"DW") {
            default_width = dw / 1000.0;
        }
        if let Some(w) = get_array(doc, cf, b"W") {
            parse_cid_widths(doc, w, &mut widths);
        }
        // The CIDs of a predefined CMap belong to its collection; otherwise the descendant
        // font's /CIDSystemInfo names it.
        let collection = collection.or_else(|| {
            let info = get_dict(doc, cf, b"CIDSystemInfo")?;
            let text = |key: &[u8]| match get(doc, info, key)? {
                Object::String(s, _) => Some(s.as_slice()),
                _ => None,
            };
            cid::Collection::from_ros(text(b"Registry")?, text(b"Ordering")?)
        });
        by_cid = match collection {
            Some(c) => CidSource::Collection(cid::cid_text(c)),
            // The program's own cmap only when nothing else names the glyphs: decompressing a
            // CJK TrueType program costs more than the page it is used on.
            None if !codes_are_unicode && to_unicode.is_none() => program_cid_text(doc, cf),
            None => CidSource::None,
        };
    }
    Font {
        kind: Kind::Cid(Box::new(Cid {
            encoding,
            to_unicode,
            by_cid,
            widths,
            default_width,
            codes_are_unicode,
        })),
        vertical,
        size_scale: 1.0,
    }
}

/// CID → character from a CIDFontType2's embedded TrueType program: CID → glyph through
/// /CIDToGIDMap, glyph → character through the program's Unicode `cmap`.
fn program_cid_text(doc: &Document, cid_font: &Dictionary) -> CidSource {
    let Some(data) = get_dict(doc, cid_font, b"FontDescriptor")
        .and_then(|d| get_stream(doc, d, b"FontFile2").or_else(|| get_stream(doc, d, b"FontFile3")))
        .and_then(stream_bytes)
    else {
        return CidSource::None;
    };
    let by_gid = fontfile::sfnt_glyph_chars(&data);
    if by_gid.is_empty() {
        return CidSource::None;
    }
    let map = match get(doc, cid_font, b"CIDToGIDMap") {
        Some(Object::Stream(s)) => {
            let Some(table) = stream_bytes(s) else {
                return CidSource::None;
            };
            table
                .chunks_exact(2)
                .take(1 << 16)
                .enumerate()
                .filter_map(|(cid, g)| {
                    let gid = u16::from_be_bytes([g[0], g[1]]);
                    by_gid.get(&gid).map(|&c| (cid as u32, c))
                })
                .collect()
        }
        _ => by_gid.into_iter().map(|(g, c)| (u32::from(g), c)).collect(),
    };
    CidSource::Program(map)
}

/// `/W [c [w1 w2 …] cfirst clast w …]`.
fn parse_cid_widths(doc: &Document, w: &[Object], out: &mut HashMap<u32, f32>) {
    let mut i = 0;
    while i < w.len() && out.len() < MAX_CID_WIDTHS {
        let Some(first) = num_deref(doc, &w[i]).filter(|v| *v >= 0.0) else {
            i += 1;
            continue;
        };
        let first = first as u32;
        match w.get(i + 1).and_then(|o| deref(doc, o)) {
            Some(Object::Array(ws)) => {
                for (k, wv) in ws.iter().enumerate() {
                    if out.len() >= MAX_CID_WIDTHS {
                        break;
                    }
                    if let Some(v) = num_deref(doc, wv) {
                        out.insert(first.saturating_add(k as u32), v / 1000.0);
                    }
                }
                i += 2;
            }
            Some(last) => {
                let last = num(last).unwrap_or(-1.0);
                let v = w.get(i + 2).and_then(|o| num_deref(doc, o));
                if let Some(v) = v
                    && last >= first as f32
                {
                    let last = last as u32;
                    for cid in first..=last.min(first.saturating_add(MAX_CID_WIDTHS as u32)) {
                        if out.len() >= MAX_CID_WIDTHS {
                            break;
                        }
                        out.insert(cid, v / 1000.0);
                    }
                }
                i += 3;
            }
            None => break,
        }
    }
}
