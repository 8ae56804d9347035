//! User text in a Markdown file (a highlight's text, a comment, a title, a page label): it reads
//! as the words it is and never as markup. Every character that can open an inline construct
//! is backslash-escaped — `[` `]` (links, images, reference definitions), `<` `>` (HTML tags,
//! autolinks), `&` (entities such as `&#x202e;`), `` ` `` `*` `_` `~` `|` `\` `!` — and
//! what would open a block at the start of a line (`#` headings, `-` `+` `=` lists and setext
//! underlines, `1.` ordered lists, indentation for code) is neutralised the same way. So
//! `<script>`, `[x](javascript:alert(1))` and `# heading` arrive as text. Control characters
//! are dropped ([`super::plain`]). A link we write ourselves points into the vault through
//! [`super::super::uri::encode_path`], whose alphabet has no `:`, so it can never carry a scheme.

/// Characters escaped wherever they are.
const INLINE: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '&', '~', '|', '!'];

/// `s` as Markdown text on one line: whitespace runs as one space, controls dropped, markup
/// escaped (the first character too, as if it started a line).
pub fn inline(s: &str) -> String {
    escape_line(&super::plain_line(s))
}

/// A label (a page label, a short name): [`inline`], cut to `max` characters with `…`.
pub fn label(s: &str, max: usize) -> String {
    let one = super::plain_line(s);
    let cut = if one.chars().count() > max {
        let mut t: String = one.chars().take(max.saturating_sub(1)).collect();
        t = t.trim_end().to_string();
        t.push('…');
        t
    } else {
        one
    };
    escape_line(&cut)
}

/// A block of user text (a comment): its lines, each trimmed and escaped, blank lines kept as
/// one paragraph break, no blank line first or last. Ends without a newline.
pub fn block(s: &str) -> String {
    let text = super::plain_keep_lines(s);
    let mut lines: Vec<String> = Vec::new();
    for l in text.lines() {
        let l = l.split_whitespace().collect::<Vec<_>>().join(" ");
        if l.is_empty() {
            if lines.last().is_some_and(|p| !p.is_empty()) {
                lines.push(String::new());
            }
            continue;
        }
        lines.push(escape_line(&l));
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines.join("\n")
}

/// One line (no line break in it) with its markup escaped.
fn escape_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let start = line.trim_start();
    // A block opener at the line's start: `#` (headings), `-`, `+`, `=` (lists, setext
    // underlines), `1.` / `1)` (ordered lists). `>` is escaped everywhere.
    let digits = start.chars().take_while(char::is_ascii_digit).count();
    let after_digits = start[digits..].chars().next();
    let opener = match start.chars().next() {
        Some('-' | '+' | '=' | '#') => Some(0),
        Some(c) if c.is_ascii_digit() && matches!(after_digits, Some('.' | ')')) => Some(digits),
        _ => None,
    };
    for (i, c) in start.char_indices() {
        if INLINE.contains(&c) || opener == Some(i) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_user_text_is_text() {
        assert_eq!(inline("# heading"), "\\# heading");
        assert_eq!(
            inline("<script>alert(1)</script>"),
            "\\<script\\>alert(1)\\</script\\>"
        );
        assert_eq!(
            inline("[x](javascript:alert(1))"),
            "\\[x\\](javascript:alert(1))"
        );
        assert_eq!(inline("&#x202e;"), "\\&#x202e;");
        assert_eq!(inline("a\u{202e}b\u{1b}[2Jc"), "ab \\[2Jc");
        assert_eq!(
            inline("Fig. 3 (a) — state-of-the-art"),
            "Fig. 3 (a) — state-of-the-art"
        );
        assert_eq!(inline("- item"), "\\- item");
        assert_eq!(inline("12. item"), "12\\. item");
        assert_eq!(inline("2019 results"), "2019 results");
        assert_eq!(inline("    code"), "code");
        assert_eq!(label("iv\n# Injected", 40), "iv # Injected");
        assert_eq!(label("# x", 40), "\\# x");
        assert_eq!(label("abcdefghij", 5), "abcd…");
        assert_eq!(
            block("  # heading\n\n\n<b>bold</b>\n[x](javascript:alert(1))\n\n"),
            "\\# heading\n\n\\<b\\>bold\\</b\\>\n\\[x\\](javascript:alert(1))"
        );
        assert_eq!(block("one\n===\ntwo\n---"), "one\n\\===\ntwo\n\\---");
    }
}
