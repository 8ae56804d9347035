//! How a mention is written: `@` and a vault path, one word of a message or an `agentero ask`
//! question (`@papers/x/paper.pdf`, `@notes/`, `@papers/x/paper.pdf#page=3`). The sentence's
//! punctuation after it is not part of the path (`compare @notes/a.md, then …`); an `@` inside
//! a word (`x@y.z`) or on its own is no mention. The one place that spells this syntax: the
//! question's parsers, the thread's chips, the chat's `@` popup and the built-in agent all go
//! through it.

use std::ops::Range;

/// The character a mention starts with (typing it opens the chat's completion popup).
pub const SIGIL: char = '@';

/// What ends a sentence after a mention rather than its path: any of these at the end of the
/// word, then one `.`.
const TRAILING: [char; 8] = [',', ';', ':', '?', '!', ')', '"', '\''];

/// A mention in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span<'a> {
    /// Its bytes in the text: the `@` and the path, not the punctuation after it.
    pub range: Range<usize>,
    /// The path as written, without the `@` (a `#page=` fragment stays).
    pub path: &'a str,
}

/// The quote that writes a path with spaces as one mention: `@"collections/JIT compilers/"`.
const QUOTE: char = '"';

/// The mentions of a text, in order (repeats included): `@path` words, and `@"path with
/// spaces"` where the path is quoted.
pub fn mentions(text: &str) -> Vec<Span<'_>> {
    let quoted = quoted(text);
    let mut out: Vec<Span<'_>> = words(text)
        .filter(|(at, _)| !quoted.iter().any(|q| q.range.contains(at)))
        .filter_map(|(at, word)| {
            let path = strip(word)?;
            Some(Span {
                range: at..at + SIGIL.len_utf8() + path.len(),
                path,
            })
        })
        .collect();
    out.extend(quoted);
    out.sort_by_key(|s| s.range.start);
    out
}

/// The quoted mentions of a text: `@"` at the start of a word, up to the next `"` on its line.
fn quoted(text: &str) -> Vec<Span<'_>> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("@\"") {
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            continue;
        }
        let start = at + SIGIL.len_utf8() + QUOTE.len_utf8();
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let Some(len) = text[start..line_end].find(QUOTE) else {
            continue;
        };
        let path = text[start..start + len].trim();
        if path.is_empty() || out.iter().any(|s: &Span<'_>| s.range.contains(&at)) {
            continue;
        }
        out.push(Span {
            range: at..start + len + QUOTE.len_utf8(),
            path,
        });
    }
    out
}

/// The path one word names as a mention: the word starts with `@`, the sentence's punctuation
/// after the path is left off; `None` when nothing is left (a bare `@`).
pub fn strip(word: &str) -> Option<&str> {
    let path = word.strip_prefix(SIGIL)?;
    if let Some(q) = path.strip_prefix(QUOTE) {
        // `@"path"` in one word, the sentence's punctuation after the closing quote.
        let inner = q[..q.rfind(QUOTE)?].trim();
        return (!inner.is_empty()).then_some(inner);
    }
    let path = path.trim_end_matches(TRAILING);
    let path = path.strip_suffix('.').unwrap_or(path);
    (!path.is_empty()).then_some(path)
}

/// A path given where a path or its mention may stand (a request's mentions, a command's
/// argument): without the surrounding whitespace, one leading `@` and the quotes of the quoted
/// form.
pub fn clean(raw: &str) -> &str {
    let t = raw.trim();
    let t = t.strip_prefix(SIGIL).unwrap_or(t).trim();
    match t.strip_prefix(QUOTE).and_then(|t| t.strip_suffix(QUOTE)) {
        Some(inner) => inner.trim(),
        None => t,
    }
}

/// How `path` is written as a mention (the chat's chips and the popup's insertion): quoted
/// when it holds a space, so that `agentero ask` and the thread read it back whole.
pub fn format(path: &str) -> String {
    if path.contains(char::is_whitespace) && !path.contains(QUOTE) {
        format!("{SIGIL}{QUOTE}{path}{QUOTE}")
    } else {
        format!("{SIGIL}{path}")
    }
}

/// The text without its mentions, the other words joined by one space.
pub fn without_mentions(text: &str) -> String {
    // The quoted ones by their place (they hold spaces), the others as whole words.
    let mut rest = String::with_capacity(text.len());
    let mut pos = 0;
    for m in quoted(text) {
        rest.push_str(&text[pos..m.range.start]);
        rest.push(' ');
        pos = m.range.end;
    }
    rest.push_str(&text[pos..]);
    rest.split_whitespace()
        .filter(|w| strip(w).is_none())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the text writes the mention of `path` whole: not where it is only the start of a
/// longer path (`@papers/` in `@papers/x/paper.pdf`). A path with spaces is found quoted (as
/// [`format`] writes it) and bare (as older threads have it).
pub fn find(text: &str, path: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = mentions(text)
        .into_iter()
        .filter(|m| m.path == path)
        .map(|m| m.range)
        .collect();
    if path.contains(char::is_whitespace) {
        let token = format!("{SIGIL}{path}");
        for (at, _) in text.match_indices(&token) {
            let end = at + token.len();
            let whole = text[end..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || TRAILING.contains(&c) || c == '.');
            if whole && !out.iter().any(|r| r.contains(&at)) {
                out.push(at..end);
            }
        }
        out.sort_by_key(|r| r.start);
    }
    out
}

/// The text with each mention of `path` taken out, and one space after it.
pub fn remove(text: &str, path: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for r in find(text, path) {
        out.push_str(&text[pos..r.start]);
        pos = r.end + usize::from(text[r.end..].starts_with(' '));
    }
    out.push_str(&text[pos..]);
    out
}

/// The mention being typed at byte `cursor` of `text`: what follows the last `@` before the
/// cursor; `None` when there is no `@` or a space came after it (the mention ended) — unless it
/// is the quoted form (`@"collections/JIT com`), which runs to its closing quote.
pub fn at_cursor(text: &str, cursor: usize) -> Option<&str> {
    let before = text.get(..cursor)?;
    let query = &before[before.rfind(SIGIL)? + SIGIL.len_utf8()..];
    if let Some(open) = query.strip_prefix(QUOTE) {
        return (!open.contains([QUOTE, '\n'])).then_some(open);
    }
    (!query.contains(char::is_whitespace)).then_some(query)
}

/// The whitespace-separated words of a text with their byte offsets.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace()
        .map(move |w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<&str> {
        mentions(text).into_iter().map(|s| s.path).collect()
    }

    #[test]
    fn mentions_are_words_starting_with_the_sigil() {
        let text = "Compare @papers/a/paper.pdf, and @notes/ — also @papers/a/paper.pdf?";
        let found = mentions(text);
        assert_eq!(
            paths(text),
            ["papers/a/paper.pdf", "notes/", "papers/a/paper.pdf"]
        );
        for s in &found {
            assert_eq!(&text[s.range.clone()], format(s.path));
        }
        // The sentence's punctuation is not the path's; one final `.` ends the sentence.
        assert_eq!(
            paths("see @notes/a.md.) and @notes/b/."),
            ["notes/a.md", "notes/b/"]
        );
        assert_eq!(
            paths("\"@notes/a.md\" (@notes/b.md) @x'; @y: @z!\""),
            ["x", "y", "z"]
        );
        // Fragments stay, even with a comma inside.
        assert_eq!(
            paths("@papers/x/paper.pdf#page=3 @notes/a.md#line=2,4,"),
            ["papers/x/paper.pdf#page=3", "notes/a.md#line=2,4"]
        );
        // No mention: a bare `@`, only punctuation, an `@` inside a word or an e-mail address.
        assert!(paths("@ @, @?! mail x@y.z or me@home").is_empty());
        assert_eq!(paths("@@x"), ["@x"]);
        // Across lines, and multi-byte text before.
        let text = "über\n@a/b.md";
        assert_eq!(mentions(text)[0].range, 6..13);
    }

    #[test]
    fn strip_and_clean() {
        assert_eq!(strip("@notes/a.md,"), Some("notes/a.md"));
        assert_eq!(strip("@"), None);
        assert_eq!(strip("@."), None);
        assert_eq!(strip("notes/a.md"), None);
        assert_eq!(clean("  @notes/a.md "), "notes/a.md");
        assert_eq!(clean("notes/a.md"), "notes/a.md");
        assert_eq!(clean("@ papers/x.pdf 3"), "papers/x.pdf 3");
    }

    #[test]
    fn round_trip() {
        for p in [
            "papers/x/paper.pdf",
            "notes/",
            "collections/Name/",
            "papers/x/paper.pdf#page=3",
            "notes/a.md#line=1,5",
            "über/ü.md",
        ] {
            let written = format(p);
            assert_eq!(paths(&written), [p]);
            assert_eq!(paths(&format!("see {written}, then")), [p]);
            assert_eq!(strip(&written), Some(p));
            assert_eq!(clean(&written), p);
            assert_eq!(find(&format!("a {written}. b"), p).len(), 1);
        }
    }

    #[test]
    fn without_mentions_drops_the_words() {
        assert_eq!(
            without_mentions("Compare @a/x.pdf, and\n@b/ now — at x@y.z or @"),
            "Compare and now — at x@y.z or @"
        );
    }

    fn ends(found: Vec<Range<usize>>) -> Vec<(usize, usize)> {
        found.into_iter().map(|r| (r.start, r.end)).collect()
    }

    #[test]
    fn find_and_remove_take_whole_mentions() {
        let text = "@papers/ and @papers/x/paper.pdf, then @papers/?";
        assert_eq!(ends(find(text, "papers/")), [(0, 8), (39, 47)]);
        assert_eq!(ends(find(text, "papers/x/paper.pdf")), [(13, 32)]);
        assert!(find(text, "papers/x").is_empty());
        assert_eq!(remove(text, "papers/"), "and @papers/x/paper.pdf, then ?");
        assert_eq!(
            remove("compare @a/x.pdf and sparse", "a/x.pdf"),
            "compare and sparse"
        );
        assert_eq!(remove("compare @a/x.pdf", "a/x.pdf"), "compare ");
        // A completion with spaces, as older threads have it.
        let spaced = "read @notes/my notes.md and";
        assert_eq!(ends(find(spaced, "notes/my notes.md")), [(5, 23)]);
        assert_eq!(remove(spaced, "notes/my notes.md"), "read and");
        assert_eq!(remove("nothing here", "a"), "nothing here");
    }

    #[test]
    fn a_path_with_spaces_is_quoted() {
        let p = "collections/JIT compilers/";
        let written = format(p);
        assert_eq!(written, "@\"collections/JIT compilers/\"");
        let text = format!("Compare {written}, and @notes/a.md");
        assert_eq!(paths(&text), [p, "notes/a.md"]);
        assert_eq!(&text[mentions(&text)[0].range.clone()], written);
        assert_eq!(clean(&written), p);
        assert_eq!(find(&text, p).len(), 1);
        assert_eq!(remove(&text, p), "Compare , and @notes/a.md");
        assert_eq!(without_mentions(&text), "Compare , and");
        // Unclosed, or closed on another line: no mention.
        assert!(paths("see @\"collections/JIT compilers/ and").is_empty());
        assert!(paths("see @\"a\nb\"").is_empty());
        // Typed in the popup: the query runs to the closing quote.
        assert_eq!(at_cursor("see @\"JIT com", 13), Some("JIT com"));
        assert_eq!(at_cursor("see @\"JIT\" x", 12), None);
    }

    #[test]
    fn the_mention_at_the_cursor() {
        assert_eq!(at_cursor("compare @dens", 13), Some("dens"));
        assert_eq!(at_cursor("compare @dens", 10), Some("d"));
        assert_eq!(at_cursor("compare @", 9), Some(""));
        assert_eq!(at_cursor("compare @x y", 12), None);
        assert_eq!(at_cursor("compare", 7), None);
        assert_eq!(at_cursor("@a then @b", 5), None);
        assert_eq!(at_cursor("ü@ä", 5), Some("ä"));
        assert_eq!(at_cursor("ü@ä", 4), None);
        assert_eq!(at_cursor("ü", 1), None);
        assert_eq!(format(at_cursor("x @ab", 5).unwrap()), "@ab");
    }
}
