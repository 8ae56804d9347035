//! Single-byte encodings and glyph names.
//!
//! Tables map a byte code to Unicode ('\0' = undefined). They are built once from patch lists
//! over ASCII/Latin-1 because most of each table coincides with those.

use foldhash::HashMap;
use std::sync::OnceLock;

/// The base encodings a simple font can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseEncoding {
    Standard,
    WinAnsi,
    MacRoman,
    MacExpert,
    PdfDoc,
    Symbol,
    ZapfDingbats,
}

impl BaseEncoding {
    pub fn from_name(name: &[u8]) -> Option<Self> {
        Some(match name {
            b"StandardEncoding" => Self::Standard,
            b"WinAnsiEncoding" => Self::WinAnsi,
            b"MacRomanEncoding" => Self::MacRoman,
            b"MacExpertEncoding" => Self::MacExpert,
            b"PDFDocEncoding" => Self::PdfDoc,
            _ => return None,
        })
    }

    pub fn table(self) -> &'static [char; 256] {
        match self {
            Self::Standard => standard(),
            Self::WinAnsi => win_ansi(),
            Self::MacRoman => mac_roman(),
            // MacExpert holds small caps and old-style figures; their ASCII look-alikes read right.
            Self::MacExpert => standard(),
            Self::PdfDoc => pdf_doc(),
            Self::Symbol => symbol(),
            Self::ZapfDingbats => zapf(),
        }
    }
}

fn build(base_latin1: bool, patches: &[(u8, char)]) -> [char; 256] {
    let mut t = ['\0'; 256];
    for c in 0x20u8..0x7f {
        t[c as usize] = c as char;
    }
    if base_latin1 {
        for c in 0xa1u8..=0xff {
            t[c as usize] = c as char;
        }
    }
    for &(code, ch) in patches {
        t[code as usize] = ch;
    }
    t
}

pub fn standard() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        build(
            false,
            &[
                (0x27, '\u{2019}'),
                (0x60, '\u{2018}'),
                (0xa1, '¡'),
                (0xa2, '¢'),
                (0xa3, '£'),
                (0xa4, '\u{2044}'),
                (0xa5, '¥'),
                (0xa6, 'ƒ'),
                (0xa7, '§'),
                (0xa8, '¤'),
                (0xa9, '\''),
                (0xaa, '“'),
                (0xab, '«'),
                (0xac, '‹'),
                (0xad, '›'),
                (0xae, '\u{FB01}'),
                (0xaf, '\u{FB02}'),
                (0xb1, '–'),
                (0xb2, '†'),
                (0xb3, '‡'),
                (0xb4, '·'),
                (0xb6, '¶'),
                (0xb7, '•'),
                (0xb8, '‚'),
                (0xb9, '„'),
                (0xba, '”'),
                (0xbb, '»'),
                (0xbc, '…'),
                (0xbd, '‰'),
                (0xbf, '¿'),
                (0xc1, '`'),
                (0xc2, '´'),
                (0xc3, 'ˆ'),
                (0xc4, '˜'),
                (0xc5, '¯'),
                (0xc6, '˘'),
                (0xc7, '˙'),
                (0xc8, '¨'),
                (0xca, '˚'),
                (0xcb, '¸'),
                (0xcd, '˝'),
                (0xce, '˛'),
                (0xcf, 'ˇ'),
                (0xd0, '—'),
                (0xe1, 'Æ'),
                (0xe3, 'ª'),
                (0xe8, 'Ł'),
                (0xe9, 'Ø'),
                (0xea, 'Œ'),
                (0xeb, 'º'),
                (0xf1, 'æ'),
                (0xf5, 'ı'),
                (0xf8, 'ł'),
                (0xf9, 'ø'),
                (0xfa, 'œ'),
                (0xfb, 'ß'),
            ],
        )
    })
}

pub fn win_ansi() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        build(
            true,
            &[
                (0x80, '€'),
                (0x82, '‚'),
                (0x83, 'ƒ'),
                (0x84, '„'),
                (0x85, '…'),
                (0x86, '†'),
                (0x87, '‡'),
                (0x88, 'ˆ'),
                (0x89, '‰'),
                (0x8a, 'Š'),
                (0x8b, '‹'),
                (0x8c, 'Œ'),
                (0x8e, 'Ž'),
                (0x91, '‘'),
                (0x92, '’'),
                (0x93, '“'),
                (0x94, '”'),
                (0x95, '•'),
                (0x96, '–'),
                (0x97, '—'),
                (0x98, '˜'),
                (0x99, '™'),
                (0x9a, 'š'),
                (0x9b, '›'),
                (0x9c, 'œ'),
                (0x9e, 'ž'),
                (0x9f, 'Ÿ'),
                (0xa0, ' '),
                // The WinAnsi "hyphen" at 0xAD is a visible glyph, not a soft hyphen.
                (0xad, '-'),
            ],
        )
    })
}

pub fn mac_roman() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let high = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø¿¡¬√ƒ≈∆«»… ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{F8FF}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ";
        let mut t = build(false, &[]);
        for (i, ch) in high.chars().enumerate().take(128) {
            t[0x80 + i] = ch;
        }
        t[0xf0] = '\0';
        t
    })
}

pub fn pdf_doc() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = build(
            true,
            &[
                (0x18, '˘'),
                (0x19, 'ˇ'),
                (0x1a, 'ˆ'),
                (0x1b, '˙'),
                (0x1c, '˝'),
                (0x1d, '˛'),
                (0x1e, '˚'),
                (0x1f, '˜'),
                (0x80, '•'),
                (0x81, '†'),
                (0x82, '‡'),
                (0x83, '…'),
                (0x84, '—'),
                (0x85, '–'),
                (0x86, 'ƒ'),
                (0x87, '⁄'),
                (0x88, '‹'),
                (0x89, '›'),
                (0x8a, '−'),
                (0x8b, '‰'),
                (0x8c, '„'),
                (0x8d, '“'),
                (0x8e, '”'),
                (0x8f, '‘'),
                (0x90, '’'),
                (0x91, '‚'),
                (0x92, '™'),
                (0x93, '\u{FB01}'),
                (0x94, '\u{FB02}'),
                (0x95, 'Ł'),
                (0x96, 'Œ'),
                (0x97, 'Š'),
                (0x98, 'Ÿ'),
                (0x99, 'Ž'),
                (0x9a, 'ı'),
                (0x9b, 'ł'),
                (0x9c, 'œ'),
                (0x9d, 'š'),
                (0x9e, 'ž'),
                (0xa0, '€'),
                (0xad, '\0'),
            ],
        );
        // Info strings use these as whitespace.
        t[0x09] = '\t';
        t[0x0a] = '\n';
        t[0x0d] = '\r';
        t
    })
}

pub fn symbol() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = build(false, &[]);
        let upper = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ";
        let lower = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ";
        for (i, ch) in upper.chars().enumerate() {
            t[0x41 + i] = ch;
        }
        for (i, ch) in lower.chars().enumerate() {
            t[0x61 + i] = ch;
        }
        let patches: &[(u8, char)] = &[
            (0x22, '∀'),
            (0x24, '∃'),
            (0x27, '∋'),
            (0x2a, '∗'),
            (0x2d, '−'),
            (0x40, '≅'),
            (0x5c, '∴'),
            (0x5e, '⊥'),
            (0x60, '\0'),
            (0x7e, '∼'),
            (0xa0, '€'),
            (0xa1, 'ϒ'),
            (0xa2, '′'),
            (0xa3, '≤'),
            (0xa4, '⁄'),
            (0xa5, '∞'),
            (0xa6, 'ƒ'),
            (0xa7, '♣'),
            (0xa8, '♦'),
            (0xa9, '♥'),
            (0xaa, '♠'),
            (0xab, '↔'),
            (0xac, '←'),
            (0xad, '↑'),
            (0xae, '→'),
            (0xaf, '↓'),
            (0xb0, '°'),
            (0xb1, '±'),
            (0xb2, '″'),
            (0xb3, '≥'),
            (0xb4, '×'),
            (0xb5, '∝'),
            (0xb6, '∂'),
            (0xb7, '•'),
            (0xb8, '÷'),
            (0xb9, '≠'),
            (0xba, '≡'),
            (0xbb, '≈'),
            (0xbc, '…'),
            (0xbf, '↵'),
            (0xc0, 'ℵ'),
            (0xc1, 'ℑ'),
            (0xc2, 'ℜ'),
            (0xc3, '℘'),
            (0xc4, '⊗'),
            (0xc5, '⊕'),
            (0xc6, '∅'),
            (0xc7, '∩'),
            (0xc8, '∪'),
            (0xc9, '⊃'),
            (0xca, '⊇'),
            (0xcb, '⊄'),
            (0xcc, '⊂'),
            (0xcd, '⊆'),
            (0xce, '∈'),
            (0xcf, '∉'),
            (0xd0, '∠'),
            (0xd1, '∇'),
            (0xd2, '®'),
            (0xd3, '©'),
            (0xd4, '™'),
            (0xd5, '∏'),
            (0xd6, '√'),
            (0xd7, '⋅'),
            (0xd8, '¬'),
            (0xd9, '∧'),
            (0xda, '∨'),
            (0xdb, '⇔'),
            (0xdc, '⇐'),
            (0xdd, '⇑'),
            (0xde, '⇒'),
            (0xdf, '⇓'),
            (0xe0, '◊'),
            (0xe1, '〈'),
            (0xe2, '®'),
            (0xe3, '©'),
            (0xe4, '™'),
            (0xe5, '∑'),
            (0xf1, '〉'),
            (0xf2, '∫'),
        ];
        for &(code, ch) in patches {
            t[code as usize] = ch;
        }
        t
    })
}

/// Dingbats carry no words; only the arrows and bullets that readers expect are kept.
pub fn zapf() -> &'static [char; 256] {
    static T: OnceLock<[char; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = ['\0'; 256];
        t[0x20] = ' ';
        for c in 0x21u8..0x7f {
            // ITC Zapf Dingbats maps 0x21.. onto U+2701.. closely enough for bullets and marks.
            t[c as usize] = char::from_u32(0x2700 + u32::from(c) - 0x20).unwrap_or('\0');
        }
        t[0x6c] = '●';
        t[0x6e] = '■';
        t
    })
}

/// Decodes a PDF "text string" (Info entries, outline titles, labels): UTF-16BE or UTF-8 with a
/// byte-order mark, else PDFDocEncoding.
pub fn decode_text_string(bytes: &[u8]) -> String {
    if bytes.len() >= 2 && bytes[0] == 0xfe && bytes[1] == 0xff {
        return decode_utf16be(&bytes[2..]);
    }
    if bytes.len() >= 2 && bytes[0] == 0xff && bytes[1] == 0xfe {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        return clean_text(&String::from_utf16_lossy(&units));
    }
    if bytes.len() >= 3 && bytes[..3] == [0xef, 0xbb, 0xbf] {
        return clean_text(&String::from_utf8_lossy(&bytes[3..]));
    }
    let t = pdf_doc();
    let s: String = bytes
        .iter()
        .map(|&b| t[b as usize])
        .filter(|&c| c != '\0')
        .collect();
    clean_text(&s)
}

pub fn decode_utf16be(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    // Language escape sequences (U+001B ... U+001B) are metadata, not text.
    let mut out = String::with_capacity(units.len());
    let mut in_escape = false;
    for ch in char::decode_utf16(units.iter().copied()) {
        let ch = ch.unwrap_or('\u{FFFD}');
        if ch == '\u{1b}' {
            in_escape = !in_escape;
            continue;
        }
        if !in_escape {
            out.push(ch);
        }
    }
    clean_text(&out)
}

/// Trims and removes control characters other than line breaks and tabs.
fn clean_text(s: &str) -> String {
    s.chars()
        .filter(|&c| !c.is_control() || c == '\n' || c == '\t')
        .collect::<String>()
        .trim()
        .to_string()
}

/// Unicode for a glyph name: the Adobe Glyph List subset TeX and office output use, plus the
/// `uniXXXX` / `uXXXX` conventions, `name.suffix` variants and `a_b` ligature names.
pub fn glyph_to_unicode(name: &str) -> Option<String> {
    if let Some(s) = lookup_simple(name) {
        return Some(s);
    }
    // "one.oldstyle", "a.sc", "fi.alt": the part before the dot names the character.
    if let Some((base, _)) = name.split_once('.')
        && !base.is_empty()
    {
        return glyph_to_unicode(base);
    }
    if name.contains('_') {
        let mut out = String::new();
        for part in name.split('_') {
            out.push_str(&lookup_simple(part)?);
        }
        return Some(out);
    }
    None
}

fn lookup_simple(name: &str) -> Option<String> {
    let bytes = name.as_bytes();
    if bytes.len() == 1 && bytes[0].is_ascii_alphabetic() {
        return Some(name.to_string());
    }
    if let Some(&s) = glyph_table().get(name) {
        return Some(s.to_string());
    }
    if let Some(c) = name
        .strip_prefix("afii")
        .and_then(|n| n.parse::<u32>().ok())
        .and_then(afii_cyrillic)
    {
        return Some(c.to_string());
    }
    // TeX's extensible math font names its sizes of one symbol "parenleftbig", "summationtext"…
    for suffix in ["bigg", "Bigg", "big", "Big", "text", "display"] {
        if let Some(base) = name.strip_suffix(suffix)
            && base.len() > 1
            && let Some(&s) = glyph_table().get(base)
        {
            return Some(s.to_string());
        }
    }
    if let Some(hex) = name.strip_prefix("uni")
        && hex.len() >= 4
        && hex.len() % 4 == 0
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        let units: Vec<u16> = (0..hex.len() / 4)
            .filter_map(|i| u16::from_str_radix(&hex[i * 4..i * 4 + 4], 16).ok())
            .collect();
        let s: String = char::decode_utf16(units)
            .filter_map(Result::ok)
            .filter(|c| !c.is_control())
            .collect();
        return (!s.is_empty()).then_some(s);
    }
    if let Some(hex) = name.strip_prefix('u')
        && (4..=6).contains(&hex.len())
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
    {
        let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)?;
        return (!c.is_control()).then(|| c.to_string());
    }
    None
}

/// The Cyrillic block of the Adobe Glyph List's `afii100NN` names (T2A-encoded TeX fonts).
fn afii_cyrillic(n: u32) -> Option<char> {
    let code = match n {
        10017..=10022 => 0x410 + (n - 10017),
        10023 => 0x401,
        10024..=10049 => 0x416 + (n - 10024),
        10050 => 0x490,
        10051..=10061 => 0x402 + (n - 10051),
        10062 => 0x40E,
        10145 => 0x40F,
        10065..=10070 => 0x430 + (n - 10065),
        10071 => 0x451,
        10072..=10097 => 0x436 + (n - 10072),
        10098 => 0x491,
        10099..=10109 => 0x452 + (n - 10099),
        10110 => 0x45E,
        10193 => 0x45F,
        _ => return None,
    };
    char::from_u32(code)
}

/// Reverse lookup for width tables keyed by glyph name (standard-14 metrics).
pub fn unicode_to_glyph(ch: char) -> Option<&'static str> {
    static REV: OnceLock<HashMap<char, &'static str>> = OnceLock::new();
    let rev = REV.get_or_init(|| {
        let mut m = HashMap::default();
        for &(name, value) in GLYPHS {
            let mut chars = value.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                m.entry(c).or_insert(name);
            }
        }
        m
    });
    if ch.is_ascii_alphabetic() {
        // Single-letter names are the letters themselves; the table has no entry for them.
        return LETTERS
            .get(ch as usize - 0x41)
            .copied()
            .filter(|s| !s.is_empty());
    }
    rev.get(&ch).copied()
}

const LETTERS: [&str; 58] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S",
    "T", "U", "V", "W", "X", "Y", "Z", "", "", "", "", "", "", "a", "b", "c", "d", "e", "f", "g",
    "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
];

fn glyph_table() -> &'static HashMap<&'static str, &'static str> {
    static T: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    T.get_or_init(|| GLYPHS.iter().copied().collect())
}

const GLYPHS: &[(&str, &str)] = &[
    // ASCII punctuation and digits
    ("space", " "),
    ("nbspace", " "),
    ("exclam", "!"),
    ("quotedbl", "\""),
    ("numbersign", "#"),
    ("dollar", "$"),
    ("percent", "%"),
    ("ampersand", "&"),
    ("quotesingle", "'"),
    ("quoteright", "\u{2019}"),
    ("parenleft", "("),
    ("parenright", ")"),
    ("asterisk", "*"),
    ("plus", "+"),
    ("comma", ","),
    ("hyphen", "-"),
    ("sfthyphen", "-"),
    ("hyphenchar", "-"),
    ("period", "."),
    ("slash", "/"),
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("colon", ":"),
    ("semicolon", ";"),
    ("less", "<"),
    ("equal", "="),
    ("greater", ">"),
    ("question", "?"),
    ("at", "@"),
    ("bracketleft", "["),
    ("backslash", "\\"),
    ("bracketright", "]"),
    ("asciicircum", "^"),
    ("underscore", "_"),
    ("grave", "`"),
    ("quoteleft", "\u{2018}"),
    ("braceleft", "{"),
    ("bar", "|"),
    ("braceright", "}"),
    ("asciitilde", "~"),
    ("visiblespace", "\u{2423}"),
    // Latin-1
    ("exclamdown", "¡"),
    ("cent", "¢"),
    ("sterling", "£"),
    ("currency", "¤"),
    ("yen", "¥"),
    ("brokenbar", "¦"),
    ("section", "§"),
    ("dieresis", "¨"),
    ("copyright", "©"),
    ("ordfeminine", "ª"),
    ("guillemotleft", "«"),
    ("guillemetleft", "«"),
    ("logicalnot", "¬"),
    ("registered", "®"),
    ("macron", "¯"),
    ("degree", "°"),
    ("plusminus", "±"),
    ("twosuperior", "²"),
    ("threesuperior", "³"),
    ("acute", "´"),
    ("mu", "µ"),
    ("paragraph", "¶"),
    ("periodcentered", "·"),
    ("cedilla", "¸"),
    ("onesuperior", "¹"),
    ("ordmasculine", "º"),
    ("guillemotright", "»"),
    ("guillemetright", "»"),
    ("onequarter", "¼"),
    ("onehalf", "½"),
    ("threequarters", "¾"),
    ("questiondown", "¿"),
    ("Agrave", "À"),
    ("Aacute", "Á"),
    ("Acircumflex", "Â"),
    ("Atilde", "Ã"),
    ("Adieresis", "Ä"),
    ("Aring", "Å"),
    ("AE", "Æ"),
    ("Ccedilla", "Ç"),
    ("Egrave", "È"),
    ("Eacute", "É"),
    ("Ecircumflex", "Ê"),
    ("Edieresis", "Ë"),
    ("Igrave", "Ì"),
    ("Iacute", "Í"),
    ("Icircumflex", "Î"),
    ("Idieresis", "Ï"),
    ("Eth", "Ð"),
    ("Ntilde", "Ñ"),
    ("Ograve", "Ò"),
    ("Oacute", "Ó"),
    ("Ocircumflex", "Ô"),
    ("Otilde", "Õ"),
    ("Odieresis", "Ö"),
    ("multiply", "×"),
    ("Oslash", "Ø"),
    ("Ugrave", "Ù"),
    ("Uacute", "Ú"),
    ("Ucircumflex", "Û"),
    ("Udieresis", "Ü"),
    ("Yacute", "Ý"),
    ("Thorn", "Þ"),
    ("germandbls", "ß"),
    ("agrave", "à"),
    ("aacute", "á"),
    ("acircumflex", "â"),
    ("atilde", "ã"),
    ("adieresis", "ä"),
    ("aring", "å"),
    ("ae", "æ"),
    ("ccedilla", "ç"),
    ("egrave", "è"),
    ("eacute", "é"),
    ("ecircumflex", "ê"),
    ("edieresis", "ë"),
    ("igrave", "ì"),
    ("iacute", "í"),
    ("icircumflex", "î"),
    ("idieresis", "ï"),
    ("eth", "ð"),
    ("ntilde", "ñ"),
    ("ograve", "ò"),
    ("oacute", "ó"),
    ("ocircumflex", "ô"),
    ("otilde", "õ"),
    ("odieresis", "ö"),
    ("divide", "÷"),
    ("oslash", "ø"),
    ("ugrave", "ù"),
    ("uacute", "ú"),
    ("ucircumflex", "û"),
    ("udieresis", "ü"),
    ("yacute", "ý"),
    ("thorn", "þ"),
    ("ydieresis", "ÿ"),
    // Latin Extended-A (the ones European names use)
    ("Amacron", "Ā"),
    ("amacron", "ā"),
    ("Abreve", "Ă"),
    ("abreve", "ă"),
    ("Aogonek", "Ą"),
    ("aogonek", "ą"),
    ("Cacute", "Ć"),
    ("cacute", "ć"),
    ("Ccaron", "Č"),
    ("ccaron", "č"),
    ("Dcaron", "Ď"),
    ("dcaron", "ď"),
    ("Dcroat", "Đ"),
    ("dcroat", "đ"),
    ("Emacron", "Ē"),
    ("emacron", "ē"),
    ("Edotaccent", "Ė"),
    ("edotaccent", "ė"),
    ("Eogonek", "Ę"),
    ("eogonek", "ę"),
    ("Ecaron", "Ě"),
    ("ecaron", "ě"),
    ("Gbreve", "Ğ"),
    ("gbreve", "ğ"),
    ("Gcommaaccent", "Ģ"),
    ("gcommaaccent", "ģ"),
    ("Imacron", "Ī"),
    ("imacron", "ī"),
    ("Iogonek", "Į"),
    ("iogonek", "į"),
    ("Idotaccent", "İ"),
    ("dotlessi", "ı"),
    ("dotlessj", "ȷ"),
    ("IJ", "Ĳ"),
    ("ij", "ĳ"),
    ("Kcommaaccent", "Ķ"),
    ("kcommaaccent", "ķ"),
    ("Lacute", "Ĺ"),
    ("lacute", "ĺ"),
    ("Lcommaaccent", "Ļ"),
    ("lcommaaccent", "ļ"),
    ("Lcaron", "Ľ"),
    ("lcaron", "ľ"),
    ("Lslash", "Ł"),
    ("lslash", "ł"),
    ("Nacute", "Ń"),
    ("nacute", "ń"),
    ("Ncommaaccent", "Ņ"),
    ("ncommaaccent", "ņ"),
    ("Ncaron", "Ň"),
    ("ncaron", "ň"),
    ("Eng", "Ŋ"),
    ("eng", "ŋ"),
    ("Omacron", "Ō"),
    ("omacron", "ō"),
    ("Ohungarumlaut", "Ő"),
    ("ohungarumlaut", "ő"),
    ("OE", "Œ"),
    ("oe", "œ"),
    ("Racute", "Ŕ"),
    ("racute", "ŕ"),
    ("Rcaron", "Ř"),
    ("rcaron", "ř"),
    ("Sacute", "Ś"),
    ("sacute", "ś"),
    ("Scedilla", "Ş"),
    ("scedilla", "ş"),
    ("Scaron", "Š"),
    ("scaron", "š"),
    ("Tcommaaccent", "Ţ"),
    ("tcommaaccent", "ţ"),
    ("Tcaron", "Ť"),
    ("tcaron", "ť"),
    ("Umacron", "Ū"),
    ("umacron", "ū"),
    ("Uring", "Ů"),
    ("uring", "ů"),
    ("Uhungarumlaut", "Ű"),
    ("uhungarumlaut", "ű"),
    ("Uogonek", "Ų"),
    ("uogonek", "ų"),
    ("Ydieresis", "Ÿ"),
    ("Zacute", "Ź"),
    ("zacute", "ź"),
    ("Zdotaccent", "Ż"),
    ("zdotaccent", "ż"),
    ("Zcaron", "Ž"),
    ("zcaron", "ž"),
    ("florin", "ƒ"),
    // Spacing accents
    ("circumflex", "ˆ"),
    ("caron", "ˇ"),
    ("breve", "˘"),
    ("dotaccent", "˙"),
    ("ring", "˚"),
    ("ogonek", "˛"),
    ("tilde", "˜"),
    ("hungarumlaut", "˝"),
    // Ligatures come out as letters, so nothing downstream has to expand them.
    ("ff", "ff"),
    ("fi", "fi"),
    ("fl", "fl"),
    ("ffi", "ffi"),
    ("ffl", "ffl"),
    ("st", "st"),
    ("longs", "s"),
    // Punctuation
    ("endash", "–"),
    ("emdash", "—"),
    ("figuredash", "‒"),
    ("horizontalbar", "―"),
    ("quotesinglbase", "‚"),
    ("quotedblleft", "“"),
    ("quotedblright", "”"),
    ("quotedblbase", "„"),
    ("quotereversed", "‛"),
    ("dagger", "†"),
    ("daggerdbl", "‡"),
    ("bullet", "•"),
    ("ellipsis", "…"),
    ("perthousand", "‰"),
    ("guilsinglleft", "‹"),
    ("guilsinglright", "›"),
    ("fraction", "⁄"),
    ("Euro", "€"),
    ("trademark", "™"),
    ("minute", "′"),
    ("second", "″"),
    ("prime", "′"),
    ("primerev", "‵"),
    ("compwordmark", ""),
    ("cwm", ""),
    ("perthousandzero", ""),
    ("openbullet", "◦"),
    ("club", "♣"),
    ("diamond", "♢"),
    ("heart", "♡"),
    ("spade", "♠"),
    ("natural", "♮"),
    ("flat", "♭"),
    ("sharp", "♯"),
    ("star", "⋆"),
    ("dotlessjmath", "ȷ"),
    ("afii61352", "№"),
    ("numero", "№"),
    ("estimated", "℮"),
    ("Ohm", "Ω"),
    ("fraction1", "⁄"),
    ("servicemark", "℠"),
    ("ampersandsmall", "&"),
    ("dollaroldstyle", "$"),
    // Greek
    ("Alpha", "Α"),
    ("Beta", "Β"),
    ("Gamma", "Γ"),
    ("Delta", "Δ"),
    ("Epsilon", "Ε"),
    ("Zeta", "Ζ"),
    ("Eta", "Η"),
    ("Theta", "Θ"),
    ("Iota", "Ι"),
    ("Kappa", "Κ"),
    ("Lambda", "Λ"),
    ("Mu", "Μ"),
    ("Nu", "Ν"),
    ("Xi", "Ξ"),
    ("Omicron", "Ο"),
    ("Pi", "Π"),
    ("Rho", "Ρ"),
    ("Sigma", "Σ"),
    ("Tau", "Τ"),
    ("Upsilon", "Υ"),
    ("Upsilon1", "ϒ"),
    ("Phi", "Φ"),
    ("Chi", "Χ"),
    ("Psi", "Ψ"),
    ("Omega", "Ω"),
    ("alpha", "α"),
    ("beta", "β"),
    ("gamma", "γ"),
    ("delta", "δ"),
    ("epsilon", "ε"),
    ("epsilon1", "ϵ"),
    ("zeta", "ζ"),
    ("eta", "η"),
    ("theta", "θ"),
    ("theta1", "ϑ"),
    ("iota", "ι"),
    ("kappa", "κ"),
    ("lambda", "λ"),
    ("mu1", "μ"),
    ("nu", "ν"),
    ("xi", "ξ"),
    ("omicron", "ο"),
    ("pi", "π"),
    ("pi1", "ϖ"),
    ("rho", "ρ"),
    ("rho1", "ϱ"),
    ("sigma", "σ"),
    ("sigma1", "ς"),
    ("sigmafinal", "ς"),
    ("tau", "τ"),
    ("upsilon", "υ"),
    ("phi", "φ"),
    ("phi1", "ϕ"),
    ("chi", "χ"),
    ("psi", "ψ"),
    ("omega", "ω"),
    ("omega1", "ϖ"),
    // Mathematics (Symbol and TeX's cmsy/cmmi names)
    ("minus", "−"),
    ("minusplus", "∓"),
    ("asteriskmath", "∗"),
    ("dotmath", "⋅"),
    ("divisionslash", "∕"),
    ("infinity", "∞"),
    ("partialdiff", "∂"),
    ("summation", "∑"),
    ("product", "∏"),
    ("coproduct", "∐"),
    ("integral", "∫"),
    ("contintegral", "∮"),
    ("radical", "√"),
    ("approxequal", "≈"),
    ("similar", "∼"),
    ("similarequal", "≃"),
    ("congruent", "≅"),
    ("notequal", "≠"),
    ("equivalence", "≡"),
    ("equivasymptotic", "≍"),
    ("lessequal", "≤"),
    ("greaterequal", "≥"),
    ("lessmuch", "≪"),
    ("greatermuch", "≫"),
    ("precedes", "≺"),
    ("follows", "≻"),
    ("precedesequal", "⪯"),
    ("followsequal", "⪰"),
    ("element", "∈"),
    ("notelement", "∉"),
    ("owner", "∋"),
    ("suchthat", "∋"),
    ("proportional", "∝"),
    ("nabla", "∇"),
    ("gradient", "∇"),
    ("angle", "∠"),
    ("logicaland", "∧"),
    ("logicalor", "∨"),
    ("intersection", "∩"),
    ("union", "∪"),
    ("unionmulti", "⊎"),
    ("unionsq", "⊔"),
    ("intersectionsq", "⊓"),
    ("propersubset", "⊂"),
    ("propersuperset", "⊃"),
    ("reflexsubset", "⊆"),
    ("reflexsuperset", "⊇"),
    ("notsubset", "⊄"),
    ("subsetsqequal", "⊑"),
    ("supersetsqequal", "⊒"),
    ("universal", "∀"),
    ("existential", "∃"),
    ("emptyset", "∅"),
    ("therefore", "∴"),
    ("perpendicular", "⊥"),
    ("latticetop", "⊤"),
    ("turnstileleft", "⊢"),
    ("turnstileright", "⊣"),
    ("circleplus", "⊕"),
    ("circleminus", "⊖"),
    ("circlemultiply", "⊗"),
    ("circledivide", "⊘"),
    ("circledot", "⊙"),
    ("circlecopyrt", "○"),
    ("diamondmath", "⋄"),
    ("triangle", "△"),
    ("triangleinv", "▽"),
    ("triangleleft", "◁"),
    ("triangleright", "▷"),
    ("lozenge", "◊"),
    ("wreathproduct", "≀"),
    ("aleph", "ℵ"),
    ("Ifraktur", "ℑ"),
    ("Rfraktur", "ℜ"),
    ("Ifractur", "ℑ"),
    ("Rfractur", "ℜ"),
    ("weierstrass", "℘"),
    ("floorleft", "⌊"),
    ("floorright", "⌋"),
    ("ceilingleft", "⌈"),
    ("ceilingright", "⌉"),
    ("angbracketleft", "⟨"),
    ("angbracketright", "⟩"),
    ("angleleft", "〈"),
    ("angleright", "〉"),
    ("bardbl", "‖"),
    ("dotlessimath", "ı"),
    ("mapsto", "↦"),
    ("arrowleft", "←"),
    ("arrowright", "→"),
    ("arrowup", "↑"),
    ("arrowdown", "↓"),
    ("arrowboth", "↔"),
    ("arrowbothv", "↕"),
    ("arrownortheast", "↗"),
    ("arrowsoutheast", "↘"),
    ("arrownorthwest", "↖"),
    ("arrowsouthwest", "↙"),
    ("arrowdblleft", "⇐"),
    ("arrowdblright", "⇒"),
    ("arrowdblup", "⇑"),
    ("arrowdbldown", "⇓"),
    ("arrowdblboth", "⇔"),
    ("arrowdblbothv", "⇕"),
    ("arrowhookleft", "↩"),
    ("arrowhookright", "↪"),
    ("harpoonleftup", "↼"),
    ("harpoonrightup", "⇀"),
    ("carriagereturn", "↵"),
    ("negationslash", "̸"),
    ("checkmark", "✓"),
    ("dagger1", "†"),
    ("section1", "§"),
    ("house", "⌂"),
    ("filledbox", "■"),
    ("square", "□"),
    ("blacksquare", "■"),
    ("H18533", "●"),
    ("H18543", "▪"),
    ("H18551", "▫"),
    ("H22073", "□"),
    ("Delta1", "∆"),
    ("vextendsingle", "|"),
    ("vextenddouble", "‖"),
    ("slashbig", "/"),
    ("backslashbig", "\\"),
    ("radicalbig", "√"),
    ("hatwide", "ˆ"),
    ("tildewide", "˜"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve() {
        assert_eq!(glyph_to_unicode("fi").as_deref(), Some("fi"));
        assert_eq!(glyph_to_unicode("uni00E9").as_deref(), Some("é"));
        assert_eq!(glyph_to_unicode("u1F600").as_deref(), Some("😀"));
        assert_eq!(glyph_to_unicode("f_f_i").as_deref(), Some("ffi"));
        assert_eq!(glyph_to_unicode("a.sc").as_deref(), Some("a"));
        assert_eq!(glyph_to_unicode("g123"), None);
        assert_eq!(glyph_to_unicode("quotedblleft").as_deref(), Some("“"));
        assert_eq!(glyph_to_unicode("afii10017").as_deref(), Some("А"));
        assert_eq!(glyph_to_unicode("afii10097").as_deref(), Some("я"));
        assert_eq!(glyph_to_unicode("afii10103").as_deref(), Some("і"));
        assert_eq!(glyph_to_unicode("parenleftBig").as_deref(), Some("("));
        assert_eq!(glyph_to_unicode("summationdisplay").as_deref(), Some("∑"));
    }

    #[test]
    fn tables_agree_on_letters() {
        for t in [standard(), win_ansi(), mac_roman(), pdf_doc()] {
            assert_eq!(t[b'A' as usize], 'A');
            assert_eq!(t[b'z' as usize], 'z');
        }
        assert_eq!(mac_roman()[0x8e], 'é');
        assert_eq!(mac_roman()[0xff], 'ˇ');
        assert_eq!(win_ansi()[0x93], '“');
        assert_eq!(symbol()[b'a' as usize], 'α');
    }

    #[test]
    fn text_strings() {
        assert_eq!(decode_text_string(b"\xfe\xff\x00H\x00i"), "Hi");
        assert_eq!(decode_text_string(b"Caf\xe9"), "Café");
        assert_eq!(decode_text_string(b"\x93x"), "ﬁx");
    }
}
