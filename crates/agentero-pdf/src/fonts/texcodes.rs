//! TeX's font layouts, for glyphs a font leaves without a name or names only by their code:
//! the control codes of OT1 and T1 (Greek capitals, ligatures, dotless i), and the upper half
//! of T1 (accented Latin letters) and of T2A (Cyrillic).

/// Which TeX layout a font with unnamed control-code glyphs, or glyphs named only by their code
/// (dvips's bitmap fonts: `/a65`, `/a225`), most likely uses.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum TexFlavor {
    /// The 7-bit text layout of Computer Modern.
    Ot1,
    /// The Cork layout of 8-bit Latin fonts (EC, Latin Modern): accented letters above 0x7f.
    T1,
    /// T2A, Cyrillic: А–я at 0xC0–0xFF, ASCII below.
    T2a,
}

impl TexFlavor {
    /// The layout the codes a font uses point to (`names`: each code's glyph name, if any).
    /// Letters mostly above 0xBF, with few ASCII letters beside them, say a Cyrillic T2A font
    /// (Russian text is all there); ligatures at 0x1B–0x1F and none at OT1's 0x0B–0x0F say T1.
    pub(super) fn guess(names: &[Option<String>]) -> TexFlavor {
        let used = |r: std::ops::RangeInclusive<usize>| {
            r.filter(|&c| {
                names
                    .get(c)
                    .is_some_and(|n| n.as_deref().is_some_and(|n| n != ".notdef"))
            })
            .count()
        };
        let (ot1_lig, t1_lig) = (used(0x0b..=0x0f), used(0x1b..=0x1f));
        let ascii_letters = used(0x41..=0x5a) + used(0x61..=0x7a);
        let cyrillic_slots = used(0xc0..=0xff);
        if cyrillic_slots >= 12 && cyrillic_slots > 2 * ascii_letters {
            TexFlavor::T2a
        } else if t1_lig > 0 && ot1_lig == 0 {
            TexFlavor::T1
        } else {
            TexFlavor::Ot1
        }
    }
}

pub(super) fn tex_control(code: u8, flavor: TexFlavor) -> &'static str {
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
        TexFlavor::T1 | TexFlavor::T2a => match code {
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

/// The text of code `code` (0x80–0xFF; below that, none) in the 8-bit layout `flavor`; empty where the layout has
/// no letter there. OT1 has no upper half: a font using one is 8-bit, and T1 is the Latin one.
pub(super) fn tex_upper(code: u8, flavor: TexFlavor) -> &'static str {
    match flavor {
        _ if code < 0x80 => "",
        TexFlavor::Ot1 | TexFlavor::T1 => T1_UPPER[usize::from(code - 0x80)],
        TexFlavor::T2a => match code {
            0x9c => "Ё",
            0xbc => "ё",
            0xc0..=0xff => CYRILLIC[usize::from(code - 0xc0)],
            _ => "",
        },
    }
}

/// T1 (Cork) at 0x80–0xFF: Latin Extended letters first, then Latin-1's letters but for Œ at
/// 0xD7, "SS" at 0xDF, œ at 0xF7 and ß at 0xFF.
const T1_UPPER: [&str; 128] = [
    "Ă", "Ą", "Ć", "Č", "Ď", "Ě", "Ę", "Ğ", "Ĺ", "Ľ", "Ł", "Ń", "Ň", "Ŋ", "Ő", "Ŕ", //
    "Ř", "Ś", "Š", "Ş", "Ť", "Ţ", "Ű", "Ů", "Ÿ", "Ź", "Ž", "Ż", "Ĳ", "İ", "đ", "§", //
    "ă", "ą", "ć", "č", "ď", "ě", "ę", "ğ", "ĺ", "ľ", "ł", "ń", "ň", "ŋ", "ő", "ŕ", //
    "ř", "ś", "š", "ş", "ť", "ţ", "ű", "ů", "ÿ", "ź", "ž", "ż", "ĳ", "¡", "¿", "£", //
    "À", "Á", "Â", "Ã", "Ä", "Å", "Æ", "Ç", "È", "É", "Ê", "Ë", "Ì", "Í", "Î", "Ï", //
    "Ð", "Ñ", "Ò", "Ó", "Ô", "Õ", "Ö", "Œ", "Ø", "Ù", "Ú", "Û", "Ü", "Ý", "Þ", "SS", //
    "à", "á", "â", "ã", "ä", "å", "æ", "ç", "è", "é", "ê", "ë", "ì", "í", "î", "ï", //
    "ð", "ñ", "ò", "ó", "ô", "õ", "ö", "œ", "ø", "ù", "ú", "û", "ü", "ý", "þ", "ß", //
];

/// T2A at 0xC0–0xFF: the Russian alphabet, capitals then small letters (Ё and ё sit apart).
const CYRILLIC: [&str; 64] = [
    "А", "Б", "В", "Г", "Д", "Е", "Ж", "З", "И", "Й", "К", "Л", "М", "Н", "О", "П", //
    "Р", "С", "Т", "У", "Ф", "Х", "Ц", "Ч", "Ш", "Щ", "Ъ", "Ы", "Ь", "Э", "Ю", "Я", //
    "а", "б", "в", "г", "д", "е", "ж", "з", "и", "й", "к", "л", "м", "н", "о", "п", //
    "р", "с", "т", "у", "ф", "х", "ц", "ч", "ш", "щ", "ъ", "ы", "ь", "э", "ю", "я", //
];

#[cfg(test)]
mod tests {
    use super::*;

    fn names(codes: &[usize]) -> Vec<Option<String>> {
        let mut v = vec![None; 256];
        for &c in codes {
            v[c] = Some(format!("a{c}"));
        }
        v
    }

    #[test]
    fn the_codes_used_tell_the_layout() {
        // An English text: ASCII letters and OT1's fi ligature.
        let english: Vec<usize> = (0x61..=0x7a).chain([0x0c]).collect();
        assert_eq!(TexFlavor::guess(&names(&english)), TexFlavor::Ot1);
        // Hungarian in T1: ASCII letters, the fi ligature at 0x1C, á (0xE1), ő (0xAE), é (0xE9).
        let hungarian: Vec<usize> = (0x61..=0x7a).chain([0x1c, 0xe1, 0xae, 0xe9]).collect();
        assert_eq!(TexFlavor::guess(&names(&hungarian)), TexFlavor::T1);
        // Russian: Cyrillic letters, digits and punctuation, no Latin letters.
        let russian: Vec<usize> = (0xc0..=0xdf)
            .chain(0xe0..=0xef)
            .chain([0x2e, 0x31])
            .collect();
        assert_eq!(TexFlavor::guess(&names(&russian)), TexFlavor::T2a);
    }

    #[test]
    fn upper_halves() {
        assert_eq!(tex_upper(0xe1, TexFlavor::T1), "á");
        assert_eq!(tex_upper(0xae, TexFlavor::T1), "ő");
        assert_eq!(tex_upper(0xff, TexFlavor::T1), "ß");
        assert_eq!(tex_upper(0xd7, TexFlavor::T1), "Œ");
        assert_eq!(tex_upper(0xc0, TexFlavor::T2a), "А");
        assert_eq!(tex_upper(0xff, TexFlavor::T2a), "я");
        assert_eq!(tex_upper(0x9c, TexFlavor::T2a), "Ё");
        assert_eq!(tex_upper(0xe1, TexFlavor::Ot1), "á");
        assert_eq!(tex_upper(0x7f, TexFlavor::T1), "");
    }
}
