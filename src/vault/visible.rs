//! Text from the vault or from an agent (note and PDF text, file names, titles, answers) on its
//! way to a terminal by any path other than the TUI. Control characters are how such text would
//! take over the terminal — OSC 52 writes the user's clipboard, `ESC[2J` clears the screen,
//! OSC 0 sets the window title, a bare `\r` overwrites what was printed — so they are shown
//! escaped instead, as `ls -b` and `git` show them: `\033]52;…`. Newlines and tabs stay.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal as it is.
fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0, DEL and the C1 controls (U+009B is a one-character CSI on some terminals).
        c if c.is_control() => true,
        // Bidirectional overrides and isolates reorder the rest of the line as displayed.
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `s` with every control character except `\n` and `\t` shown as an escape: `\r`, `\a`,
/// `\b`, `\f`, `\v` by name, other C0 characters and DEL in octal (`\033`), C1 controls and
/// bidi overrides as `\u{…}`. A `\r` right before a `\n` is kept (a Windows line ending).
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if !needs_escape(c) {
            out.push(c);
            continue;
        }
        match c {
            '\r' if chars.peek() == Some(&'\n') => out.push('\r'),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_become_visible_and_text_stays() {
        assert!(matches!(
            visible("plain\ttext\nnext line é"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            visible("\u{1b}]52;c;aGVsbG8=\u{7}"),
            "\\033]52;c;aGVsbG8=\\a"
        );
        assert_eq!(visible("\u{1b}[2Jgone"), "\\033[2Jgone");
        assert_eq!(visible("\u{1b}]0;title\u{1b}\\"), "\\033]0;title\\033\\");
        assert_eq!(visible("fake\rSources:"), "fake\\rSources:");
        assert_eq!(visible("dos\r\nline"), "dos\r\nline");
        assert_eq!(visible("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(visible("\u{7f}\u{0}"), "\\177\\000");
        assert_eq!(visible("abc\u{202E}fdp.exe"), "abc\\u{202e}fdp.exe");
        for c in (0u32..0x110000).filter_map(char::from_u32) {
            let shown = visible(&c.to_string()).into_owned();
            assert!(
                !shown
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{c:?} -> {shown:?}"
            );
        }
    }
}
