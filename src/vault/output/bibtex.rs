//! Text in a BibTeX file. The biblatex crate writes the entries and escapes TeX's specials;
//! this layer makes sure nothing of a library's text can end an entry or start another, for
//! the crate's parser and for BibTeX's own, which counts braces without regard to backslashes:
//!
//! - a citation key is written only when it is of BibTeX's key alphabet ([`key_ok`]): a `,`,
//!   a brace, a space or a line break would end the key and let the rest be read as fields;
//! - a field value is one line with no control characters, and its braces balance
//!   ([`value`]): an unmatched `}` is dropped, an unclosed `{` too. A value on one line with
//!   balanced braces cannot close its entry, so an `@` in it starts nothing;
//! - a value does not end with a backslash: escaped as `\\`, it would stand before the
//!   field's closing brace, and pandoc's BibTeX reader takes `\\}` for a backslash and an
//!   escaped brace, reading on into the next entry.

/// The longest citation key written, in characters.
pub const MAX_KEY_CHARS: usize = 100;

/// Whether `key` may stand as a citation key: 1 to [`MAX_KEY_CHARS`] characters, each a
/// letter or a digit (of any script) or one of `-_:./+`. That excludes what BibTeX and LaTeX's
/// `\cite` read as syntax (`, { } ( ) " # % ' = \ ~ @`, spaces) and every control or bidi
/// character.
pub fn key_ok(key: &str) -> bool {
    let n = key.chars().count();
    (1..=MAX_KEY_CHARS).contains(&n)
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '/' | '+'))
}

/// `s` as a field value: one line without control characters ([`super::plain_line`]) whose
/// braces balance, with no backslash at its end.
pub fn value(s: &str) -> String {
    let one = balance(&super::plain_line(s));
    let end = one.trim_end_matches(|c: char| c == '\\' || c.is_whitespace());
    if end.len() == one.len() {
        one
    } else {
        end.to_string()
    }
}

/// `one` with the braces that do not pair dropped.
fn balance(one: &str) -> String {
    if !one.contains(['{', '}']) {
        return one.to_string();
    }
    // The `{` that a later `}` closes are kept; the others, and every unmatched `}`, go.
    let mut open: Vec<usize> = Vec::new();
    let mut drop = vec![false; one.len()];
    for (i, c) in one.char_indices() {
        match c {
            '{' => open.push(i),
            '}' if open.pop().is_none() => drop[i] = true,
            _ => {}
        }
    }
    for i in open {
        drop[i] = true;
    }
    one.char_indices()
        .filter(|(i, _)| !drop[*i])
        .map(|(_, c)| c)
        .collect()
}

/// Whether the braces of `s` balance as BibTeX counts them (every `{` and `}`, escaped or not).
pub fn balanced(s: &str) -> bool {
    let mut depth = 0i64;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_the_alphabet_pass_and_syntax_does_not() {
        for k in ["gal2009", "müller2021lesen", "a-b_c:d.e/f+g", "X"] {
            assert!(key_ok(k), "{k}");
        }
        for k in [
            "",
            "gal2009,\n  title = {PWNED}}\n@misc{pwn",
            "a b",
            "a,b",
            "a{b",
            "a}b",
            "a%b",
            "a\u{202e}b",
            "a\u{1b}b",
            "a@b",
            &"k".repeat(MAX_KEY_CHARS + 1),
        ] {
            assert!(!key_ok(k), "{k:?}");
        }
    }

    #[test]
    fn values_are_one_line_and_their_braces_balance() {
        assert_eq!(value("The {Robust} Parser"), "The {Robust} Parser");
        assert_eq!(
            value("a}}\n@misc{pwn, title={PWNED}}"),
            "a @misc{pwn, title={PWNED}}"
        );
        assert_eq!(value("{open {and} close"), "open {and} close");
        assert_eq!(value("x\u{1b}]52;c;eA==\u{7}y\u{202e}"), "x ]52;c;eA== y");
        for s in ["}{", "{{{", "}}}", "a}b{c}d{", "{a}}{b{"] {
            assert!(balanced(&value(s)), "{s:?} -> {:?}", value(s));
        }
        assert!(!balanced("a}b{"));
        // A trailing backslash would stand before the closing brace (pandoc reads `\\}`).
        assert_eq!(value("a\\"), "a");
        assert_eq!(value("a \\\\ }"), "a");
        assert_eq!(value("a\\b"), "a\\b");
    }
}
