//! The built-in encodings of TeX's math fonts, for fonts that arrive with neither a ToUnicode
//! map, nor an `/Encoding`, nor glyph names in an embedded program: Computer Modern's math
//! italic (`cmmi*`, the OML layout), symbols (`cmsy*`, OMS) and extension (`cmex*`, OMX), and
//! the fonts that share their layouts (`cmbsy`, `cmmib`, Latin Modern's `lmmi`/`lmsy`/`lmex`,
//! `eurm`…). Read as a text font, their codes are nonsense: `cmsy`'s minus (code 0) would be
//! OT1's `Γ`, `cmmi`'s `α` (code 11) would be `ff`.

/// Which math layout a font's (subset-stripped) base name says it uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// Math italic: Greek, italic letters, old-style digits.
    Oml,
    /// Math symbols: operators, relations, arrows, calligraphic capitals.
    Oms,
    /// Math extension: big delimiters and operators.
    Omx,
}

/// The layout of a font named `base` (e.g. `CMSY10`, `LMMathSymbols10-Regular`).
pub fn layout(base: &str) -> Option<Layout> {
    let lower = base.to_ascii_lowercase();
    let family = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '.');
    let starts = |prefixes: &[&str]| prefixes.iter().any(|p| family.starts_with(p));
    if starts(&[
        "cmsy",
        "cmbsy",
        "lmsy",
        "lmbsy",
        "lmmathsymbols",
        "eusm",
        "eusb",
    ]) {
        Some(Layout::Oms)
    } else if starts(&["cmmi", "cmmib", "lmmi", "lmmib", "lmmathitalic"]) {
        Some(Layout::Oml)
    } else if starts(&["cmex", "lmex", "lmmathextension"]) {
        Some(Layout::Omx)
    } else {
        None
    }
}

/// Whether a font named `base` draws pictures, not text: LaTeX's picture-mode fonts (`line10`,
/// `linew10`, `lcircle10`, `lcirclew10`), whose codes are slopes of line segments and quarter
/// circles. Read through a text layout they would be Greek capitals (`Γ`, `Δ`, …).
pub fn is_picture_font(base: &str) -> bool {
    let lower = base.to_ascii_lowercase();
    let family = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '.');
    matches!(family, "line" | "linew" | "lcircle" | "lcirclew")
}

/// The text of code `code` in `layout`; `None` for codes the layout leaves empty.
pub fn char_of(layout: Layout, code: u8) -> Option<&'static str> {
    let table: &[&str] = match layout {
        Layout::Oml => &OML,
        Layout::Oms => &OMS,
        Layout::Omx => &OMX,
    };
    table
        .get(usize::from(code))
        .copied()
        .filter(|s| !s.is_empty())
}

const LETTERS: [&str; 26] = [
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q", "R", "S",
    "T", "U", "V", "W", "X", "Y", "Z",
];
const SMALL: [&str; 26] = [
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s",
    "t", "u", "v", "w", "x", "y", "z",
];

const fn with_letters<const N: usize>(
    mut table: [&'static str; N],
    at: usize,
    letters: [&'static str; 26],
) -> [&'static str; N] {
    let mut i = 0;
    while i < 26 {
        table[at + i] = letters[i];
        i += 1;
    }
    table
}

/// OML (cmmi): Greek, harpoons, old-style digits, italic letters.
const OML: [&str; 128] = with_letters(
    with_letters(
        [
            "Γ", "Δ", "Θ", "Λ", "Ξ", "Π", "Σ", "Υ", "Φ", "Ψ", "Ω", "α", "β", "γ", "δ",
            "ϵ", // 0x00
            "ζ", "η", "θ", "ι", "κ", "λ", "μ", "ν", "ξ", "π", "ρ", "σ", "τ", "υ", "ϕ",
            "χ", // 0x10
            "ψ", "ω", "ε", "ϑ", "ϖ", "ϱ", "ς", "φ", "↼", "↽", "⇀", "⇁", "", "", "▷",
            "◁", // 0x20
            "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", ".", ",", "<", "/", ">",
            "⋆", // 0x30
            "∂", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", // 0x40
            "", "", "", "", "", "", "", "", "", "", "", "♭", "♮", "♯", "⌣", "⌢", // 0x50
            "ℓ", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", // 0x60
            "", "", "", "", "", "", "", "", "", "", "", "ı", "ȷ", "℘", "\u{20D7}",
            "⁀", // 0x70
        ],
        0x41,
        LETTERS,
    ),
    0x61,
    SMALL,
);

/// OMS (cmsy): operators, relations, arrows, calligraphic capitals (as plain capitals).
const OMS: [&str; 128] = with_letters(
    [
        "−", "·", "×", "∗", "÷", "⋄", "±", "∓", "⊕", "⊖", "⊗", "⊘", "⊙", "◯", "∘",
        "•", // 0x00
        "≍", "≡", "⊆", "⊇", "≤", "≥", "⪯", "⪰", "∼", "≈", "⊂", "⊃", "≪", "≫", "≺",
        "≻", // 0x10
        "←", "→", "↑", "↓", "↔", "↗", "↘", "≃", "⇐", "⇒", "⇑", "⇓", "⇔", "↖", "↙",
        "∝", // 0x20
        "′", "∞", "∈", "∋", "△", "▽", "\u{338}", "↦", "∀", "∃", "¬", "∅", "ℜ", "ℑ", "⊤",
        "⊥", // 0x30
        "ℵ", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", // 0x40
        "", "", "", "", "", "", "", "", "", "", "", "∪", "∩", "⊎", "∧", "∨", // 0x50
        "⊢", "⊣", "⌊", "⌋", "⌈", "⌉", "{", "}", "⟨", "⟩", "|", "‖", "↕", "⇕", "\\",
        "≀", // 0x60
        "√", "⨿", "∇", "∫", "⊔", "⊓", "⊑", "⊒", "§", "†", "‡", "¶", "♣", "♢", "♡",
        "♠", // 0x70
    ],
    0x41,
    LETTERS,
);

/// OMX (cmex): big delimiters and operators, as the characters they are sizes of.
const OMX: [&str; 128] = [
    "(", ")", "[", "]", "⌊", "⌋", "⌈", "⌉", "{", "}", "⟨", "⟩", "|", "‖", "/", "\\", // 0x00
    "(", ")", "(", ")", "[", "]", "⌊", "⌋", "⌈", "⌉", "{", "}", "⟨", "⟩", "/", "\\", // 0x10
    "(", ")", "[", "]", "⌊", "⌋", "⌈", "⌉", "{", "}", "⟨", "⟩", "/", "\\", "/", "\\", // 0x20
    "⎛", "⎞", "⎡", "⎤", "⎣", "⎦", "⎢", "⎥", "⎧", "⎫", "⎩", "⎭", "⎨", "⎬", "⎪", "⏐", // 0x30
    "⎝", "⎠", "⎜", "⎟", "⟨", "⟩", "⊔", "⊔", "∮", "∮", "⨀", "⨀", "⨁", "⨁", "⨂", "⨂", // 0x40
    "∑", "∏", "∫", "⋃", "⋂", "⨄", "⋀", "⋁", "∑", "∏", "∫", "⋃", "⋂", "⨄", "⋀", "⋁", // 0x50
    "∐", "∐", "", "", "", "", "", "", "[", "]", "⌊", "⌋", "⌈", "⌉", "{", "}", // 0x60
    "√", "√", "√", "√", "⎷", "", "", "‖", "↑", "↓", "", "", "", "", "⇑", "⇓", // 0x70
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_by_name() {
        assert_eq!(layout("CMSY10"), Some(Layout::Oms));
        assert_eq!(layout("CMSY7"), Some(Layout::Oms));
        assert_eq!(layout("CMMI12"), Some(Layout::Oml));
        assert_eq!(layout("CMMIB10"), Some(Layout::Oml));
        assert_eq!(layout("CMEX10"), Some(Layout::Omx));
        assert_eq!(layout("CMR10"), None);
        assert_eq!(layout("CMSS10"), None);
        assert_eq!(layout("Helvetica"), None);
    }

    #[test]
    fn minus_is_not_gamma() {
        assert_eq!(char_of(Layout::Oms, 0), Some("−"));
        assert_eq!(char_of(Layout::Oms, 0x14), Some("≤"));
        assert_eq!(char_of(Layout::Oms, 0x41), Some("A"));
        assert_eq!(char_of(Layout::Oml, 0), Some("Γ"));
        assert_eq!(char_of(Layout::Oml, 0x0b), Some("α"));
        assert_eq!(char_of(Layout::Oml, 0x78), Some("x"));
        assert_eq!(char_of(Layout::Oml, 0x3b), Some(","));
        assert_eq!(char_of(Layout::Omx, 0x50), Some("∑"));
        assert_eq!(char_of(Layout::Oms, 0x41 - 1), Some("ℵ"));
        assert_eq!(char_of(Layout::Oml, 0x2c), None);
    }

    #[test]
    fn picture_fonts_by_name() {
        assert!(is_picture_font("LINE10"));
        assert!(is_picture_font("LCIRCLEW10"));
        assert!(!is_picture_font("LINEAR10"));
        assert!(!is_picture_font("CMR10"));
    }
}
