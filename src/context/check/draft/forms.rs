//! The citation syntaxes of a manuscript: pandoc's, LaTeX's (natbib, biblatex) and
//! author–year, found in the text with what is not prose (comments, code, URLs) masked.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use super::{Format, Group, Item, Key, locator};

/// The text with what is not prose blanked (same length, same line breaks): LaTeX comments;
/// Markdown code spans, fenced and indented code blocks and HTML comments.
pub(super) fn mask(text: &str, format: Format) -> String {
    let mut out: Vec<u8> = text.as_bytes().to_vec();
    // Every byte but line breaks becomes a space: the masked text stays valid UTF-8 and line
    // numbers stay.
    fn blank_in(out: &mut [u8], r: Range<usize>) {
        for b in &mut out[r] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    macro_rules! blank {
        ($r:expr) => {
            blank_in(&mut out, $r)
        };
    }
    match format {
        Format::Latex => {
            let mut start = 0;
            for line in text.split_inclusive('\n') {
                let bytes = line.as_bytes();
                let mut i = 0;
                while i < bytes.len() {
                    if bytes[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if bytes[i] == b'%' {
                        let end = start + line.trim_end_matches('\n').len();
                        blank!(start + i..end);
                        break;
                    }
                    i += 1;
                }
                start += line.len();
            }
            for env in ["verbatim", "lstlisting", "minted", "comment"] {
                let open = format!("\\begin{{{env}}}");
                let close = format!("\\end{{{env}}}");
                let mut from = 0;
                while let Some(a) = text[from..].find(&open).map(|i| from + i) {
                    let b = text[a..]
                        .find(&close)
                        .map_or(text.len(), |i| a + i + close.len());
                    blank!(a..b);
                    from = b;
                }
            }
        }
        Format::Markdown | Format::Plain => {
            let mut offset = 0;
            let mut fence: Option<&str> = None;
            for line in text.split_inclusive('\n') {
                let t = line.trim_start();
                let end = offset + line.trim_end_matches('\n').len();
                if let Some(f) = fence {
                    blank!(offset..end);
                    if t.starts_with(f) {
                        fence = None;
                    }
                } else if t.starts_with("```") || t.starts_with("~~~") {
                    fence = Some(&t[..3]);
                    blank!(offset..end);
                }
                offset += line.len();
            }
            let mut from = 0;
            while let Some(a) = text[from..].find("<!--").map(|i| from + i) {
                let b = text[a..].find("-->").map_or(text.len(), |i| a + i + 3);
                blank!(a..b);
                from = b;
            }
            // Code spans: a run of backticks to the same run, within a paragraph.
            let bytes = text.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'`' && out[i] == b'`' {
                    let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                    let ticks = &text[i..i + run];
                    let rest = &text[i + run..];
                    let para = rest.find("\n\n").unwrap_or(rest.len());
                    if let Some(j) = rest[..para].find(ticks) {
                        let end = i + run + j + run;
                        blank!(i..end);
                        i = end;
                        continue;
                    }
                    i += run;
                    continue;
                }
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| " ".repeat(text.len()))
}

fn pandoc_key_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // pandoc's citation key: starts with a letter, digit or `_`; inner punctuation
        // `:.#$%&-+?<>~/` allowed when a key character follows it. Or any text in braces.
        Regex::new(
            r"(-?)@(?:\{([^{}\n]{1,200})\}|([\p{L}\p{N}_](?:[\p{L}\p{N}_]|[:.#$%&\-+?<>~/][\p{L}\p{N}_])*))",
        )
        .unwrap()
    })
}

/// Pandoc's citations: bracketed groups, then in-text `@key` with an optional `[locator]`.
pub(super) fn pandoc_groups(masked: &str) -> Vec<Group> {
    let mut groups = Vec::new();
    let mut taken: Vec<Range<usize>> = Vec::new();
    // Bracketed: `[` … `]` with no bracket inside and at least one `@key` item.
    static BR: OnceLock<Regex> = OnceLock::new();
    let br = BR.get_or_init(|| Regex::new(r"\[([^\[\]\n]*(?:\n[^\[\]\n]+)?)\]").unwrap());
    for m in br.captures_iter(masked) {
        let whole = m.get(0).unwrap();
        let inner = m.get(1).unwrap();
        // A link's text (`[text](url)`) is not a citation.
        if masked[whole.end()..].starts_with('(') && !inner.as_str().contains('@') {
            continue;
        }
        let mut items = Vec::new();
        let mut ok = true;
        let mut pos = inner.start();
        for part in inner.as_str().split(';') {
            let part_start = pos;
            pos += part.len() + 1;
            let Some(k) = pandoc_key_re().captures(part) else {
                ok = false;
                break;
            };
            let km = k.get(0).unwrap();
            // `name@example.org` is an address, not a citation.
            let before = part[..km.start()].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric()) {
                ok = false;
                break;
            }
            let key = k.get(2).or(k.get(3)).unwrap().as_str().to_string();
            let after = part[km.end()..].trim();
            let after = after.strip_prefix(',').unwrap_or(after).trim();
            items.push(Item {
                key: Key::Key(key),
                at: part_start + km.start() + k.get(1).map_or(0, |s| s.len()),
                locator: locator(after, true),
            });
        }
        if ok && !items.is_empty() {
            taken.push(whole.range());
            groups.push(Group {
                range: whole.range(),
                items,
            });
        }
    }
    // In-text: `@key`, `@key [p. 4]`; never inside a link's destination or a URL
    // (`https://x.org/@a`), which stay in the text: a quote may hold a URL.
    static URL: OnceLock<Regex> = OnceLock::new();
    let url =
        URL.get_or_init(|| Regex::new(r"\]\([^)\s]*\)|(?:https?|ftp|mailto):[^\s<>)\]]+").unwrap());
    let urls: Vec<Range<usize>> = url.find_iter(masked).map(|m| m.range()).collect();
    for k in pandoc_key_re().captures_iter(masked) {
        let km = k.get(0).unwrap();
        if taken.iter().any(|t| t.contains(&km.start()))
            || urls.iter().any(|u| u.contains(&km.start()))
            || !k.get(1).unwrap().is_empty()
        {
            continue;
        }
        let before = masked[..km.start()].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '@' || c == '\\') {
            continue;
        }
        let key = k.get(2).or(k.get(3)).unwrap().as_str().to_string();
        let mut end = km.end();
        let mut loc = None;
        let rest = &masked[end..];
        let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if rest[gap..].starts_with('[')
            && let Some(close) = rest[gap..].find(']')
        {
            let inside = &rest[gap + 1..gap + close];
            if !inside.contains('@') && !inside.contains('\n') {
                loc = locator(inside, true);
                end += gap + close + 1;
            }
        }
        groups.push(Group {
            range: km.start()..end,
            items: vec![Item {
                key: Key::Key(key),
                at: km.start(),
                locator: loc,
            }],
        });
    }
    groups.sort_by_key(|g| g.range.start);
    groups
}

pub(super) fn latex_cite_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"\\((?:[Cc]ite[tp]?|[Cc]itealp|[Cc]itealt|[Pp]arencite|[Tt]extcite|[Aa]utocite|[Ff]ootcite(?:text)?|[Ss]martcite|[Ss]upercite|fullcite)(s?))\*?",
        )
        .unwrap()
    })
}

/// LaTeX's citation commands, natbib's and biblatex's. One optional argument is the
/// postnote (the locator), two are the prenote and the postnote; `\cites` and its kin take
/// several `[pre][post]{keys}` in a row.
pub(super) fn latex_groups(masked: &str) -> Vec<Group> {
    let mut groups = Vec::new();
    for m in latex_cite_re().captures_iter(masked) {
        let whole = m.get(0).unwrap();
        // `\citeauthor`, `\citeyear`: a longer command name is another command.
        if masked[whole.end()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        {
            continue;
        }
        let multi = !m.get(2).unwrap().as_str().is_empty();
        let mut pos = whole.end();
        let mut items = Vec::new();
        if multi {
            // The group's own (pre)(post) notes.
            for _ in 0..2 {
                match balanced(masked, skip_space(masked, pos), '(', ')') {
                    Some((_, end)) => pos = end,
                    None => break,
                }
            }
        }
        loop {
            let mut opts: Vec<Range<usize>> = Vec::new();
            let mut p = skip_space(masked, pos);
            while opts.len() < 2 {
                match balanced(masked, p, '[', ']') {
                    Some((inner, end)) => {
                        opts.push(inner);
                        p = skip_space(masked, end);
                    }
                    None => break,
                }
            }
            let Some((keys, end)) = balanced(masked, p, '{', '}') else {
                break;
            };
            let post = opts.last().filter(|_| !opts.is_empty());
            let loc = post.and_then(|r| locator(&tex_plain(&masked[r.clone()]), true));
            let mut at = keys.start;
            for k in masked[keys.clone()].split(',') {
                let lead = k.len() - k.trim_start().len();
                let key = k.trim();
                if !key.is_empty() {
                    items.push(Item {
                        key: Key::Key(key.to_string()),
                        at: at + lead,
                        locator: loc.clone(),
                    });
                }
                at += k.len() + 1;
            }
            pos = end;
            if !multi {
                break;
            }
        }
        if !items.is_empty() {
            groups.push(Group {
                range: whole.start()..pos,
                items,
            });
        }
    }
    groups
}

fn skip_space(s: &str, mut i: usize) -> usize {
    while i < s.len() && matches!(s.as_bytes()[i], b' ' | b'\t' | b'\n') {
        i += 1;
    }
    i
}

/// The inner range and the end of a balanced `open` … `close` starting at `i`.
pub(super) fn balanced(
    s: &str,
    i: usize,
    open: char,
    close: char,
) -> Option<(Range<usize>, usize)> {
    if !s[i..].starts_with(open) {
        return None;
    }
    let mut depth = 0usize;
    for (j, c) in s[i..].char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some((i + 1..i + j, i + j + 1));
            }
        } else if c == '\n' && s[i..i + j].ends_with('\n') {
            return None;
        }
    }
    None
}

/// A LaTeX note as text: `p.~4` is `p. 4`, `--` a dash, commands and braces dropped.
pub(super) fn tex_plain(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '~' => out.push(' '),
            '{' | '}' => {}
            '\\' => {
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphabetic() {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if name.is_empty() {
                    if let Some(n) = chars.next() {
                        out.push(if n == ' ' || n == ',' { ' ' } else { n });
                    }
                } else if name == "ndash" || name == "textendash" {
                    out.push('–');
                }
            }
            _ => out.push(c),
        }
    }
    out.replace("--", "–")
}

fn author_year_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        // `Smith`, `van der Berg`, `Smith and Jones`, `Smith & Jones`, `Smith et al.`,
        // `Smith, Jones and Lee`; then the year, its letter, and a locator.
        Regex::new(
            r"(?x)
            (?P<family>(?:(?:van|von|der|den|de|del|della|di|da|du|la|le|ter|ten)\s+)*\p{Lu}[\p{L}'’\-]+)
            (?:\s+et\s+al\.?|(?:,\s*(?:(?:van|von|de|der|di|da|du|la|le)\s+)*\p{Lu}[\p{L}'’\-]+)*,?\s+(?:and|&)\s+(?:(?:van|von|der|den|de|del|di|da|du|la|le)\s+)*\p{Lu}[\p{L}'’\-]+)?
            ",
        )
        .unwrap()
    })
}

fn year_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^(1[5-9]\d\d|20\d\d)([a-z])?(?:\s*[,:]\s*(?P<loc>[^;()]*))?$").unwrap()
    })
}

/// Author–year citations: parenthetical `(Smith, 2020, p. 4; Lee 2019)` and narrative
/// `Smith et al. (2020, p. 4)`.
pub(super) fn author_year_groups(masked: &str) -> Vec<Group> {
    static PAREN: OnceLock<Regex> = OnceLock::new();
    let paren = PAREN.get_or_init(|| Regex::new(r"\(([^()\n]{4,400})\)").unwrap());
    let mut groups = Vec::new();
    for m in paren.captures_iter(masked) {
        let whole = m.get(0).unwrap();
        let inner = m.get(1).unwrap();
        // Narrative: a name just before `(2020, p. 4)`.
        if let Some(y) = year_re().captures(inner.as_str().trim()) {
            let before = &masked[..whole.start()];
            let head = before.trim_end();
            // The name ends where the parenthesis starts: find the last name run before it.
            let from = head
                .char_indices()
                .rev()
                .take(120)
                .last()
                .map_or(0, |(i, _)| i);
            let window = &masked[from..head.len()];
            if let Some(n) = author_year_re()
                .find_iter(window)
                .filter(|n| from + n.end() == head.len())
                .last()
                && let Some(item) = author_year_item(&window[n.range()], from + n.start(), &y)
            {
                groups.push(Group {
                    range: from + n.start()..whole.end(),
                    items: vec![item],
                });
            }
            continue;
        }
        let mut items = Vec::new();
        let mut pos = inner.start();
        for part in inner.as_str().split(';') {
            let start = pos;
            pos += part.len() + 1;
            let lead = part.len() - part.trim_start().len();
            let mut p = part.trim();
            for pre in [
                "see also ",
                "see ",
                "e.g., ",
                "e.g. ",
                "cf. ",
                "cf ",
                "i.e., ",
            ] {
                if let Some(rest) = p.strip_prefix(pre) {
                    p = rest;
                }
            }
            let skipped = part.trim().len() - p.len();
            let Some(n) = author_year_re().find(p).filter(|n| n.start() == 0) else {
                continue;
            };
            let rest = p[n.end()..].trim_start_matches([',', ' ']);
            let Some(y) = year_re().captures(rest.trim_end()) else {
                continue;
            };
            if let Some(item) = author_year_item(n.as_str(), start + lead + skipped, &y) {
                items.push(item);
            }
        }
        if !items.is_empty() {
            groups.push(Group {
                range: whole.range(),
                items,
            });
        }
    }
    groups
}

fn author_year_item(names: &str, at: usize, y: &regex::Captures) -> Option<Item> {
    let family = author_year_re()
        .captures(names)?
        .name("family")?
        .as_str()
        .to_string();
    let year: i32 = y.get(1)?.as_str().parse().ok()?;
    let letter = y.get(2).and_then(|l| l.as_str().chars().next());
    let loc = y.name("loc").and_then(|l| locator(l.as_str(), true));
    Some(Item {
        key: Key::AuthorYear {
            family,
            year,
            letter,
        },
        at,
        locator: loc,
    })
}
