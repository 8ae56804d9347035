//! Simple fonts (Type 1, TrueType, Type 3): the 256-entry table of each code's text and advance,
//! from ToUnicode, `/Differences` glyph names, the embedded program's own encoding, the base
//! encoding and TeX's control-code layouts, with widths from `/Widths` or the standard-14
//! metrics.

use lopdf::{Dictionary, Document, Object};

use super::texcodes::{TexFlavor, tex_control, tex_upper};
use super::{Font, Kind, Simple, load_to_unicode, push_clean};
use crate::cmap::CMap;
use crate::encodings::{BaseEncoding, glyph_to_unicode, unicode_to_glyph};
use crate::fontfile;
use crate::metrics;
use crate::texmath;
use crate::util::{
    MAX_STREAM, deref, get, get_array, get_dict, get_name, get_num, get_stream, num_deref,
    stream_bytes, stream_prefix,
};

fn strip_subset(name: &str) -> &str {
    match name.split_once('+') {
        Some((tag, rest)) if tag.len() == 6 && tag.bytes().all(|b| b.is_ascii_uppercase()) => rest,
        _ => name,
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
fn clean(s: &str) -> Box<str> {
    let mut out = String::new();
    push_clean(&mut out, s);
    out.into_boxed_str()
}

pub(super) fn load_simple(doc: &Document, dict: &Dictionary, type3: bool) -> Font {
    let base_font = get_name(doc, dict, b"BaseFont")
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default();
    let base_name = strip_subset(&base_font).to_string();
    let descriptor = get_dict(doc, dict, b"FontDescriptor");

    let (base, mut differences, has_differences) = read_encoding(doc, dict);

    let lower = base_name.to_ascii_lowercase();
    let symbolic_std = if lower.starts_with("symbol") {
        Some(BaseEncoding::Symbol)
    } else if lower.contains("dingbats") {
        Some(BaseEncoding::ZapfDingbats)
    } else {
        None
    };
    let to_unicode = load_to_unicode(doc, dict);
    let mut builtin = if base.is_none() && !type3 {
        let complete = to_unicode
            .as_ref()
            .is_some_and(|tu| covers_used_codes(doc, dict, tu));
        descriptor.and_then(|d| type1_builtin_encoding(doc, d, complete))
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

    // Codes the font uses, to guess its TeX layout for unnamed and numbered glyphs.
    let flavor = TexFlavor::guess(&differences);

    let math = if type3 {
        None
    } else {
        texmath::layout(&base_name)
    };
    let mut text: Vec<Box<str>> = Vec::with_capacity(256);
    let std14 = metrics::std14_canonical_name(&base_name).is_some();
    let mut names: Vec<Option<String>> = vec![None; 256];
    let picture = texmath::is_picture_font(&base_name);
    for code in 0..256usize {
        if picture {
            text.push(Box::from(""));
            continue;
        }
        let mut t: Option<String> = None;
        if let Some(tu) = &to_unicode
            && let Some(s) = tu.lookup_unicode(1, code as u32)
            && s.chars().any(|c| !c.is_control())
        {
            t = Some(s.to_string());
        }
        let name = differences[code].take().or_else(|| {
            builtin
                .as_mut()
                .and_then(|b| b.get_mut(code))
                .and_then(Option::take)
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
                    tex_upper(code as u8, flavor).to_string()
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
        // Glyph names serve only to look up a standard font's widths.
        if std14 {
            names[code] = name.or_else(|| {
                let mut chars = t.as_deref()?.chars();
                let c = chars.next()?;
                chars
                    .next()
                    .is_none()
                    .then(|| unicode_to_glyph(c).map(str::to_string))
                    .flatten()
            });
        }
        text.push(clean(t.as_deref().unwrap_or("")));
    }

    let (widths, font_matrix) = read_widths(doc, dict, descriptor, type3, &base_name, &names);

    let size_scale = if type3 {
        type3_size_scale(doc, dict, &font_matrix)
    } else {
        1.0
    };
    Font {
        kind: Kind::Simple(Box::new(Simple { text, widths })),
        vertical: false,
        size_scale,
    }
}

/// The font's `/Encoding`: its base encoding, the glyph names `/Differences` gives codes, and
/// whether it gives any.
fn read_encoding(
    doc: &Document,
    dict: &Dictionary,
) -> (Option<BaseEncoding>, Vec<Option<String>>, bool) {
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
    (base, differences, has_differences)
}

/// Each code's advance (in text space per unit of font size) from `/Widths`, else the
/// standard-14 metrics of its glyph, else `/MissingWidth` or a default; and the font matrix
/// (a Type 3 font's own, else the usual 1/1000).
fn read_widths(
    doc: &Document,
    dict: &Dictionary,
    descriptor: Option<&Dictionary>,
    type3: bool,
    base_name: &str,
    names: &[Option<String>],
) -> ([f32; 256], [f32; 6]) {
    let font_matrix = if type3 {
        get(doc, dict, b"FontMatrix")
            .and_then(|m| crate::util::matrix(doc, m))
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
            if let (Some(slot), Some(w)) =
                (widths.get_mut(first.saturating_add(i)), num_deref(doc, w))
            {
                *slot = w * scale;
            }
        }
    }
    let std14 = metrics::std14_canonical_name(base_name).is_some();
    for code in 0..256usize {
        if widths[code].is_nan() {
            let from_metrics = if std14 {
                names[code]
                    .as_deref()
                    .and_then(|n| metrics::std14_width(base_name, n))
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
    (widths, font_matrix)
}

/// A Type 3 font's em is usually one text-space unit (pdfTeX's PK fonts), but some producers
/// set Tf to 1 and fold the size into /FontMatrix; the bounding box tells the two apart.
fn type3_size_scale(doc: &Document, dict: &Dictionary, font_matrix: &[f32; 6]) -> f32 {
    let bbox_height = get_array(doc, dict, b"FontBBox")
        .filter(|b| b.len() == 4)
        .and_then(|b| Some((num_deref(doc, &b[3])? - num_deref(doc, &b[1])?).abs()))
        .map(|h| h * font_matrix[3].abs())
        .filter(|h| h.is_finite() && *h > 0.0);
    match bbox_height {
        Some(h) if !(0.2..=5.0).contains(&h) => h.clamp(1e-3, 1e4),
        _ => 1.0,
    }
}

/// Whether the ToUnicode map names every code the font has a width for (`/FirstChar` to
/// `/LastChar`, zero widths aside). Producers write partial maps: dvipdfmx gives a MathDesign
/// symbol font a map of its prime and triangle alone, and the minus sign is then known only by
/// the glyph name in the font program.
fn covers_used_codes(doc: &Document, dict: &Dictionary, to_unicode: &CMap) -> bool {
    let first = get_num(doc, dict, b"FirstChar").unwrap_or(0.0).max(0.0) as usize;
    let Some(widths) = get_array(doc, dict, b"Widths") else {
        return true;
    };
    widths.iter().take(256).enumerate().all(|(i, w)| {
        let code = first.saturating_add(i);
        code > 255
            || num_deref(doc, w).is_none_or(|w| w == 0.0)
            || to_unicode.lookup_unicode(1, code as u32).is_some()
    })
}

/// The built-in encoding of an embedded Type 1 or CFF program: for Type 1 the `/Encoding` array in
/// the clear-text part (pdfTeX embeds Computer Modern this way with no /Encoding in the PDF at all).
fn type1_builtin_encoding(
    doc: &Document,
    descriptor: &Dictionary,
    to_unicode_complete: bool,
) -> Option<Vec<Option<String>>> {
    let Some(stream) = get_stream(doc, descriptor, b"FontFile") else {
        // A bare CFF program (/FontFile3 /Subtype /Type1C) carries its encoding in binary;
        // decompressing and parsing it is only worth it when no ToUnicode map names the text.
        if to_unicode_complete {
            return None;
        }
        let cff = get_stream(doc, descriptor, b"FontFile3")?;
        if get_name(doc, &cff.dict, b"Subtype") != Some(b"Type1C") {
            return None;
        }
        return fontfile::cff_builtin_names(&stream_bytes(cff)?);
    };
    // Only the clear part (`/Length1` bytes) is read: the encrypted rest is not inflated.
    let clear_len = get_num(doc, &stream.dict, b"Length1").map_or(MAX_STREAM, |l| l as usize);
    let data = stream_prefix(stream, clear_len)?;
    let clear = &data[..];
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
