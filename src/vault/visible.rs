//! Text from the vault or from an agent (note and PDF text, file names, titles, answers) on its
//! way to a terminal (the CLI's output, and the titles and rows the TUI draws through
//! `tui::widgets`), and the JSON layer of the output gate ([`super::output`], which has the
//! other formats). Control characters are how such text would
//! take over the terminal — OSC 52 writes the user's clipboard, `ESC[2J` clears the screen,
//! OSC 0 sets the window title, a bare `\r` overwrites what was printed — so they are shown
//! escaped instead, as `ls -b` and `git` show them: `\033]52;…`. Newlines and tabs stay.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal as it is.
pub(crate) fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        // C0, DEL and the C1 controls (U+009B is a one-character CSI on some terminals).
        c if c.is_control() => true,
        c => is_bidi_control(c),
    }
}

/// Bidirectional overrides, embeddings and isolates reorder the rest of the line as displayed;
/// the marks (LRM, RLM, ALM) are invisible and do the same to what is around them.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}

/// Writes the escape of `c` (a character [`needs_escape`] accepts; `next` is the one after it).
pub(crate) fn escape_into(out: &mut String, c: char, next: Option<char>) {
    match c {
        '\r' if next == Some('\n') => out.push('\r'),
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

/// Whether `c` is written as a `\uXXXX` escape in machine-readable output. serde_json already
/// escapes the C0 controls; this adds DEL, the C1 controls and the bidi controls, which a
/// terminal or an editor showing the JSON would otherwise obey.
fn json_escaped(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}') || is_bidi_control(c)
}

/// `json` (text serde_json wrote) with every character of [`json_escaped`] as `\uXXXX`. Such
/// characters can only stand inside JSON strings, where the escape means the same character:
/// the document parses to the same value.
pub fn json_safe(json: String) -> String {
    if !json.chars().any(json_escaped) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if json_escaped(c) {
            // All of them are in the Basic Multilingual Plane: one escape each.
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Compact JSON for machine-readable output (`--json`, JSON lines), controls escaped.
pub fn to_json_string<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string(value).map(json_safe)
}

/// Pretty JSON for machine-readable output, controls escaped.
pub fn to_json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(value).map(json_safe)
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
        if needs_escape(c) {
            escape_into(&mut out, c, chars.peek().copied());
        } else {
            out.push(c);
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
        assert_eq!(visible("a\u{200f}b\u{61c}"), "a\\u{200f}b\\u{61c}");
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

    #[test]
    fn json_output_escapes_controls_and_parses_back() {
        let hostile = "t\u{9b}31m\u{202e}cod.exe\u{7f}\u{1b}[2J\u{200e}\u{2066}\u{85}é😀\n";
        let doc = serde_json::json!({ "title": hostile, hostile: [hostile] });
        for text in [to_json_string(&doc).unwrap(), to_json_pretty(&doc).unwrap()] {
            assert!(
                !text
                    .chars()
                    .any(|c| c.is_control() && c != '\n' && c != ' ' || is_bidi_control(c)),
                "{text:?}"
            );
            assert!(
                text.contains("\\u009b") && text.contains("\\u202e"),
                "{text}"
            );
            let back: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(back, doc);
        }
        assert_eq!(json_safe("{\"a\":\"plain\"}".into()), "{\"a\":\"plain\"}");
    }
}
