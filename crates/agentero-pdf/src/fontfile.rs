//! What embedded font programs say about their glyphs when the PDF itself does not: the Unicode
//! `cmap` (and `post` names) of a TrueType/OpenType program, and the built-in encoding of a bare
//! CFF program (FontFile3 /Type1C). Parsed with `ttf-parser`, which never panics on bad data.

use std::collections::HashMap;

use ttf_parser::cff as cff1;
use ttf_parser::{Face, GlyphId};

use super::encodings::glyph_to_unicode;

/// Bound on glyphs read from one program.
const MAX_GLYPHS: u32 = 65_535;

/// Glyph id → character from a TrueType or OpenType program's Unicode `cmap` subtables, with the
/// `post` table's glyph names for glyphs no subtable reaches. Where several code points reach one
/// glyph, the smallest wins (U+0020 over U+00A0).
pub fn sfnt_glyph_chars(data: &[u8]) -> HashMap<u16, char> {
    let mut out: HashMap<u16, char> = HashMap::new();
    let Ok(face) = Face::parse(data, 0) else {
        return out;
    };
    if let Some(cmap) = face.tables().cmap {
        for sub in cmap.subtables {
            if !sub.is_unicode() {
                continue;
            }
            sub.codepoints(|cp| {
                if let (Some(gid), Some(c)) = (sub.glyph_index(cp), char::from_u32(cp))
                    && gid.0 != 0
                    && !c.is_control()
                {
                    out.entry(gid.0)
                        .and_modify(|old| *old = (*old).min(c))
                        .or_insert(c);
                }
            });
        }
    }
    let glyphs = u32::from(face.number_of_glyphs()).min(MAX_GLYPHS);
    for gid in 1..glyphs {
        let gid = gid as u16;
        if out.contains_key(&gid) {
            continue;
        }
        if let Some(c) = face
            .glyph_name(GlyphId(gid))
            .and_then(glyph_to_unicode)
            .and_then(|s| single_char(&s))
        {
            out.insert(gid, c);
        }
    }
    out
}

fn single_char(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

/// The glyph names a bare CFF program's built-in encoding gives codes 0–255, when the program is
/// a name-keyed (not CID-keyed) font.
pub fn cff_builtin_names(data: &[u8]) -> Option<Vec<Option<String>>> {
    let table = cff1::Table::parse(data)?;
    let mut out: Vec<Option<String>> = vec![None; 256];
    let mut any = false;
    for code in 0..=255u8 {
        let Some(gid) = table.glyph_index(code).filter(|g| g.0 != 0) else {
            continue;
        };
        if let Some(name) = table.glyph_name(gid).filter(|n| *n != ".notdef") {
            out[code as usize] = Some(name.to_string());
            any = true;
        }
    }
    any.then_some(out)
}
