//! One line of text for a terminal: a title in `search`, a thread's title in `threads`, a
//! highlight in `highlights`, a title the TUI draws. Controls are shown escaped as
//! [`visible`](super::visible) shows them, line breaks become spaces, and the line is cut to a
//! width in terminal cells with `…`, reading no more of the text than it shows (a title of a
//! megabyte costs what the cut line costs).

use unicode_width::UnicodeWidthChar;

use super::super::visible::{escape_into, needs_escape};

/// The widest title a one-line output prints, in terminal cells.
pub const TITLE_WIDTH: usize = 160;

/// `s` on one line of at most `width` cells (at least 1): whitespace runs as one space, leading
/// and trailing whitespace dropped, controls escaped, `…` where it was cut.
pub fn line(s: &str, width: usize) -> String {
    let width = width.max(1);
    let mut out = String::new();
    let mut used = 0usize;
    // Where the text is cut when it turns out not to fit: the last place that leaves a cell
    // for the `…`.
    let mut cut: Option<usize> = None;
    let mut pending_space = false;
    let mut piece = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        piece.clear();
        if std::mem::take(&mut pending_space) {
            piece.push(' ');
        }
        if needs_escape(c) {
            escape_into(&mut piece, c, chars.peek().copied());
        } else {
            piece.push(c);
        }
        for p in piece.chars() {
            let w = p.width().unwrap_or(0);
            if cut.is_none() && used + w >= width {
                cut = Some(out.len());
            }
            if used + w > width {
                let keep = out[..cut.unwrap_or(0)].trim_end().len();
                out.truncate(keep);
                out.push('…');
                return out;
            }
            out.push(p);
            used += w;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn a_line_is_one_line_escaped_and_cut_with_an_ellipsis() {
        assert_eq!(
            line("  Attention  is\nall\tyou need ", 80),
            "Attention is all you need"
        );
        assert_eq!(line("abcdef", 6), "abcdef");
        assert_eq!(line("abcdefg", 6), "abcde…");
        assert_eq!(line("abc def", 5), "abc…");
        assert_eq!(line("t\u{1b}]52;c;eA==\u{7}x", 80), "t\\033]52;c;eA==\\ax");
        assert_eq!(line("abc\u{202e}fdp.exe", 80), "abc\\u{202e}fdp.exe");
        assert_eq!(line("名前のある論文", 7), "名前の…");
        assert_eq!(line("", 10), "");
        let huge = "Title ".repeat(200_000);
        let cut = line(&huge, TITLE_WIDTH);
        assert!(cut.ends_with('…'), "{cut}");
        assert!(cut.width() <= TITLE_WIDTH, "{}", cut.width());
        assert!(!cut.chars().any(|c| c.is_control()));
        for c in (0u32..0x110000).filter_map(char::from_u32) {
            let s = line(&format!("a{c}b"), 40);
            assert!(!s.chars().any(needs_escape), "{c:?} -> {s:?}");
        }
    }
}
