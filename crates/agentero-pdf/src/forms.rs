//! Unicode's vertical presentation forms of punctuation (`︒`, `︑`, `﹁`, …) and the characters
//! they stand for. A leaf: the font decoder maps them as text is decoded, vertical writing is
//! where they come from.

/// The character a vertical presentation form stands for (`︒` → `。`, `﹁` → `「`): Unicode's
/// compatibility decomposition, with the full-width forms CJK text uses for brackets.
pub fn horizontal_form(c: char) -> Option<char> {
    Some(match c {
        '\u{FE10}' => '，',
        '\u{FE11}' => '、',
        '\u{FE12}' => '。',
        '\u{FE13}' => '：',
        '\u{FE14}' => '；',
        '\u{FE15}' => '！',
        '\u{FE16}' => '？',
        '\u{FE17}' => '〖',
        '\u{FE18}' => '〗',
        '\u{FE19}' => '…',
        '\u{FE30}' => '‥',
        '\u{FE31}' => '—',
        '\u{FE32}' => '–',
        '\u{FE33}' | '\u{FE34}' => '_',
        '\u{FE35}' => '（',
        '\u{FE36}' => '）',
        '\u{FE37}' => '｛',
        '\u{FE38}' => '｝',
        '\u{FE39}' => '〔',
        '\u{FE3A}' => '〕',
        '\u{FE3B}' => '【',
        '\u{FE3C}' => '】',
        '\u{FE3D}' => '《',
        '\u{FE3E}' => '》',
        '\u{FE3F}' => '〈',
        '\u{FE40}' => '〉',
        '\u{FE41}' => '「',
        '\u{FE42}' => '」',
        '\u{FE43}' => '『',
        '\u{FE44}' => '』',
        '\u{FE47}' => '［',
        '\u{FE48}' => '］',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presentation_forms_map_to_their_characters() {
        assert_eq!(horizontal_form('︒'), Some('。'));
        assert_eq!(horizontal_form('︑'), Some('、'));
        assert_eq!(horizontal_form('﹁'), Some('「'));
        assert_eq!(horizontal_form('﹂'), Some('」'));
        assert_eq!(horizontal_form('︵'), Some('（'));
        assert_eq!(horizontal_form('。'), None);
        assert_eq!(horizontal_form('a'), None);
    }
}
