//! The encoding the demo PDFs use (WinAnsi, with `fi`/`fl` in two low slots when a document sets
//! ligatures), the standard-14 widths written to `/Widths`, and the kerning of the TeX-like style.

use super::{Face, SOFT_HYPHEN, Word};
use crate::vault::pdf::metrics::{WIN_ANSI_GLYPHS, std14_width};

/// Codes the ligature encoding gives to `fi` and `fl`. TeX's OT1 layout uses the same slots,
/// which sit below the printable range, so a reader has to honour `/Differences` to get them.
pub const FI_CODE: u8 = 12;
pub const FL_CODE: u8 = 13;

/// Widths of one font as written to `/Widths`: 1/1000 em per code.
pub(super) struct FontMetrics {
    pub(super) widths: [u16; 256],
    pub(super) first_char: u8,
}

impl FontMetrics {
    pub(super) fn new(face: Face, ligatures: bool) -> FontMetrics {
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

    pub(super) fn code_width(&self, code: u8, size: f32) -> f32 {
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
pub(super) fn encode(text: &str, ligatures: bool) -> Vec<u8> {
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

pub(super) fn kern(face: Face, left: u8, right: u8) -> i16 {
    if face != Face::Roman {
        return 0;
    }
    TIMES_KERNS
        .iter()
        .find(|(l, r, _)| *l == left && *r == right)
        .map_or(0, |(_, _, k)| *k)
}

pub(super) struct Fonts {
    pub(super) metrics: Vec<FontMetrics>,
    pub(super) ligatures: bool,
    pub(super) kerning: bool,
}

impl Fonts {
    pub(super) fn word_width(&self, word: &Word, size: f32) -> f32 {
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

    pub(super) fn space_width(&self, face: Face, size: f32) -> f32 {
        self.metrics[face.index()].code_width(b' ', size)
    }
}

impl Fonts {
    /// The four faces' metrics under the document's encoding; only the positioned style kerns.
    pub(super) fn new(ligatures: bool, kerning: bool) -> Fonts {
        Fonts {
            metrics: Face::ALL
                .iter()
                .map(|&f| FontMetrics::new(f, ligatures))
                .collect(),
            ligatures,
            kerning,
        }
    }
}
