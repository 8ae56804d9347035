//! TeX accents set as glyphs of their own, composed with their letters.

use super::{AccentParams, Frag, G, frag_text};
use crate::content::PageGlyphs;
use unicode_normalization::UnicodeNormalization;

/// TeX sets an accent as a glyph of its own over its letter, raised over capitals, so it can be a
/// fragment of its own that sorts after the fragment holding its letter. Such accents are taken
/// out of `members` and returned with the text offset of the letter each one goes on.
pub(super) fn place_accents(
    page: &PageGlyphs,
    gs: &[G],
    frags: &[Frag],
    members: &mut Vec<usize>,
) -> Vec<(u32, char)> {
    let mut placed: Vec<(u32, char)> = Vec::new();
    if members.len() < 2 {
        return placed;
    }
    let all = members.clone();
    members.retain(|&m| {
        let f = &frags[m];
        if f.end - f.first != 1 {
            return true;
        }
        let mut chars = frag_text(page, gs, f).unwrap_or("").chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return true;
        };
        let Some(accent) = spacing_accent(c).filter(|_| !('\u{300}'..='\u{36F}').contains(&c))
        else {
            return true;
        };
        let a = &gs[f.first];
        let center = (a.x + a.x1) / 2.0;
        for &o in all.iter().filter(|&&o| o != m) {
            for g in gs.get(frags[o].first..frags[o].end).unwrap_or(&[]) {
                if center < g.x || center > g.x1 || placed.iter().any(|p| p.0 == g.start) {
                    continue;
                }
                let text = page
                    .text
                    .get(g.start as usize..(g.start + g.len) as usize)
                    .unwrap_or("");
                let mut it = text.chars();
                if let (Some(base), None) = (it.next(), it.next())
                    && compose(accent, base).is_some()
                {
                    placed.push((g.start, accent));
                    return false;
                }
            }
        }
        true
    });
    placed
}

/// Spacing accents TeX draws as separate glyphs over (or before) their letter.
pub(super) fn spacing_accent(c: char) -> Option<char> {
    Some(match c {
        '´' | '\u{301}' | '\u{2CA}' => '´',
        '`' | '\u{300}' | '\u{2CB}' => '`',
        '¨' | '\u{308}' => '¨',
        'ˆ' | '^' | '\u{302}' => 'ˆ',
        '˜' | '~' | '\u{303}' => '˜',
        '¯' | '\u{304}' | '\u{2C9}' => '¯',
        '˘' | '\u{306}' => '˘',
        '˙' | '\u{307}' => '˙',
        '˚' | '\u{30A}' => '˚',
        '˝' | '\u{30B}' => '˝',
        'ˇ' | '\u{30C}' => 'ˇ',
        '¸' | '\u{327}' => '¸',
        '˛' | '\u{328}' => '˛',
        _ => return None,
    })
}

/// The combining mark of a spacing accent.
pub(super) fn combining(accent: char) -> Option<char> {
    Some(match accent {
        '´' => '\u{301}',
        '`' => '\u{300}',
        '¨' => '\u{308}',
        'ˆ' => '\u{302}',
        '˜' => '\u{303}',
        '¯' => '\u{304}',
        '˘' => '\u{306}',
        '˙' => '\u{307}',
        '˚' => '\u{30A}',
        '˝' => '\u{30B}',
        'ˇ' => '\u{30C}',
        '¸' => '\u{327}',
        '˛' => '\u{328}',
        _ => return None,
    })
}

/// A letter with an accent, composed (NFC): one precomposed character where Unicode has one
/// ("ñ"), the letter and a combining mark where it has none ("P̄"). TeX's dotless i and j take
/// the accent as i and j.
pub(super) fn compose(accent: char, base: char) -> Option<String> {
    let base = match base {
        'ı' => 'i',
        'ȷ' => 'j',
        c if c.is_alphabetic() => c,
        _ => return None,
    };
    let pair = [base, combining(accent)?];
    Some(pair.iter().copied().nfc().collect())
}

/// Whether glyph `g` (text `t`) overlaps the previous glyph so that one is an accent on the
/// other and `text`'s last character can be combined with `t`.
pub(super) fn accent_overlap(p: &G, g: &G, t: &str, text: &str, params: &AccentParams) -> bool {
    let mut tc = t.chars();
    let (Some(cur), None) = (tc.next(), tc.next()) else {
        return false;
    };
    // Combining marks always attach to what precedes them.
    let combining = ('\u{300}'..='\u{36F}').contains(&cur);
    if !combining {
        // Most glyphs do not overlap the one before: nothing more to read.
        let overlap = p.x1.min(g.x1) - p.x.max(g.x);
        let narrow = (p.x1 - p.x).min(g.x1 - g.x).max(params.min_width);
        if overlap < params.min_overlap * narrow {
            return false;
        }
    }
    let Some(last) = text.chars().last() else {
        return false;
    };
    if combining {
        return spacing_accent(cur).and_then(|a| compose(a, last)).is_some();
    }
    match (spacing_accent(last), spacing_accent(cur)) {
        (Some(a), None) => compose(a, cur).is_some(),
        (None, Some(a)) => compose(a, last).is_some(),
        _ => false,
    }
}

/// Where the letter under a spacing accent starts, when glyph `g` (text `t`) is such an accent
/// and `next` the letter it is set over: TeX draws the accent first, centred over the letter, so
/// the accent's own left edge is no measure of the gap before the accented letter.
pub(super) fn accent_left(g: &G, t: &str, next: Option<&G>) -> Option<f32> {
    let mut chars = t.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return None;
    };
    spacing_accent(c)?;
    let next = next?;
    let centre = (g.x + g.x1) / 2.0;
    (centre >= next.x && centre <= next.x1).then_some(next.x.min(g.x))
}

pub(super) fn compose_into(text: &mut String, t: &str) {
    let Some(last) = text.pop() else { return };
    let Some(cur) = t.chars().next() else {
        text.push(last);
        return;
    };
    let composed = match (spacing_accent(last), spacing_accent(cur)) {
        (Some(a), None) => compose(a, cur),
        (_, Some(a)) => compose(a, last),
        _ => None,
    };
    match composed {
        Some(c) => text.push_str(&c),
        None => {
            text.push(last);
            text.push_str(t);
        }
    }
}
