//! The output gate: text of the vault, of a reference manager or of an agent on its way out of
//! agentero, one escaping layer per format. Every exporter and every one-line display goes
//! through the function of its format here; nothing writes such text out any other way.
//!
//! | format | layer | a control character (ESC, BEL, C1, bidi override/isolate) |
//! | --- | --- | --- |
//! | terminal (CLI output, the TUI's titles) | [`visible`], [`terminal::line`] | shown escaped: `\033`, `\u{202e}` |
//! | JSON (`--json`, CSL-JSON) | [`to_json_pretty`], [`to_json_string`] | written as `\u009b`, `\u202e`: the value is unchanged, no raw byte is in the file |
//! | BibTeX | [`bibtex::key_ok`], [`bibtex::value`] | dropped (BibTeX has no escape for them) |
//! | Markdown | [`markdown::inline`], [`markdown::block`], [`markdown::label`] | dropped (Markdown has none either) |
//!
//! Files written where the user says (`-o FILE`) are written whole or not at all
//! ([`file::write_atomic`]); the temporary files a killed write leaves are swept
//! ([`file::sweep_exports`], [`file::sweep_state`]).

pub mod bibtex;
pub mod file;
pub mod markdown;
pub mod terminal;

use std::borrow::Cow;

use super::visible::is_bidi_control;
pub use super::visible::{json_safe, to_json_pretty, to_json_string, visible};

/// `s` for a file format without an escape for control characters (BibTeX, Markdown): C0 and
/// C1 controls (a newline and a tab included) become spaces, bidi controls are dropped. The
/// text keeps its words; what would reorder or take over a viewer of the file is gone.
pub fn plain(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || is_bidi_control(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .filter(|&c| !is_bidi_control(c))
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
    )
}

/// [`plain`] with its line breaks kept (`\n`; `\r\n` and a lone `\r` as `\n`).
pub fn plain_keep_lines(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    s.split('\n')
        .map(|l| plain(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`plain`] on one line: runs of whitespace (line breaks, U+2028 included) as one space.
pub fn plain_line(s: &str) -> String {
    plain(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_has_no_control_and_keeps_its_words() {
        assert!(matches!(plain("Ångström résumé 😀"), Cow::Borrowed(_)));
        assert_eq!(
            plain("a\u{1b}]52;c;eA==\u{7}b\u{202e}c\u{9b}d"),
            "a ]52;c;eA== bc d"
        );
        assert_eq!(plain_line(" one\n two\u{2028}three\r\n"), "one two three");
        for c in (0u32..0x110000).filter_map(char::from_u32) {
            let s = plain(&c.to_string()).into_owned();
            assert!(
                !s.chars().any(|c| c.is_control() || is_bidi_control(c)),
                "{c:?}"
            );
        }
    }
}
