//! Fonts: from a font dictionary to "code → (text, advance)".
//!
//! Simple fonts get a 256-entry table computed once (ToUnicode first, then Differences glyph
//! names, the embedded Type 1 program's own encoding, the base encoding, and TeX's OT1/T1 slots
//! for control codes). Composite (Type0) fonts keep their CMaps and look codes up per glyph.

use foldhash::HashMap;

use unicode_normalization::UnicodeNormalization;

use lopdf::{Dictionary, Document, Object};

use std::sync::Arc;

use super::cid::{self, Predefined};
use super::cmap::CMap;
use super::fontfile;
use super::util::{
    as_dict, deref, get, get_array, get_dict, get_name, get_num, get_stream, num, num_deref,
    stream_bytes,
};

mod simple;
mod texcodes;

use simple::load_simple;

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
    /// A public collection's table, fetched (and decoded, once per process) only when a glyph
    /// the ToUnicode map does not name asks for it.
    Collection(cid::Collection),
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
                            (CidSource::Collection(c), Some(cid)) => {
                                cid::cid_text(*c).get(cid, &mut buf)
                            }
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
            // Arabic presentation forms (the shapes a letter takes at the start, middle or end
            // of a word, and lam-alef) as the letters they are: what is typed and searched.
            c @ ('\u{FB50}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}') => {
                out.extend(std::iter::once(c).nfkc());
            }
            // Vertical punctuation (︒, ﹁) as the characters it stands for (。, 「).
            c => out.push(super::forms::horizontal_form(c).unwrap_or(c)),
        }
    }
    out.len() > before
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
    let mut widths = HashMap::default();
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
            Some(c) => CidSource::Collection(c),
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
