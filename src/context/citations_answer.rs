//! Finding the evidence in an answer: its quotes (straight, typographic and CJK brackets,
//! blockquotes), its citation URIs and `[n]` markers, and which quote goes with which citation.

use super::*;

/// A quote of the answer: its text and byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Quote {
    pub(super) text: String,
    pub(super) range: Range<usize>,
    /// Ends a blockquote: the line after it still belongs to it (a "— source" line).
    pub(super) block: bool,
    /// Where it ends cannot be told from its marks (`text` is the longest reading).
    pub(super) unclear: bool,
}

/// A citation in the answer: the URI it points to and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cite {
    pub(super) uri: String,
    pub(super) range: Range<usize>,
}

/// Quotes shorter than this (characters) or than [`MIN_WORDS`] are terms, not evidence; in a
/// script written without spaces, fewer than [`MIN_NO_SPACE`] of its characters.
pub(super) const MIN_QUOTE: usize = 15;
pub(super) const MIN_WORDS: usize = 3;
pub(super) const MIN_NO_SPACE: usize = 6;

pub(super) fn uri_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r#"[^\s<>()\[\]"'`“”‘’,;|*「」『』（）【】，。、；]+#(?:page=\d+|line=\d+(?:,\d+)?)"#,
        )
        .unwrap()
    })
}

pub(super) fn bare_pdf_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"[^\s<>()\[\]"'`“”‘’,;|*「」『』（）【】，。、；]+\.pdf\b(?:,?\s*\(?(?:p\.|pp\.|page)\s*(\d+))?"#)
            .unwrap()
    })
}

pub(super) fn marker_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]").unwrap())
}

pub(super) fn definition_re() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(?m)^[ \t>*-]*\[(\d{1,3})\]:?[ \t]+(.*)$").unwrap())
}

/// A quoted string of the answer: the whole (marks included) and the inner byte ranges, and
/// whether its extent is unclear (straight marks that do not pair up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Quoted {
    pub(super) whole: Range<usize>,
    pub(super) inner: Range<usize>,
    /// Where it ends cannot be told from the marks: the ranges are the longest reading.
    pub(super) unclear: bool,
}

/// What a straight `"` can be, from the characters beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    /// Opens a quote: a space, the start or an opening bracket before, a letter after.
    Open,
    /// Closes one: a letter or punctuation before, a space, the end or punctuation after.
    Close,
    /// Cannot tell (a space on both sides, or letters on both).
    Either,
}

fn straight_mark(text: &str, at: usize) -> Mark {
    let before = text[..at].chars().next_back();
    let after = text[at + 1..].chars().next();
    let opens_after = |c: char| c.is_whitespace() || "([{<—–-/:".contains(c);
    let closes_before = |c: char| c.is_whitespace() || ".,;:!?)]}>—–-…*_".contains(c);
    let can_open = before.is_none_or(opens_after) && after.is_some_and(|c| !c.is_whitespace());
    let can_close = before.is_some_and(|c| !c.is_whitespace()) && after.is_none_or(closes_before);
    match (can_open, can_close) {
        (true, false) => Mark::Open,
        (false, true) => Mark::Close,
        _ => Mark::Either,
    }
}

/// The end of the straight quote opened at `open` (the byte of its `"`): marks pair up as
/// brackets do, from the side of the text they face, so an inner `"X"` is text of the quote.
/// `None` when it never closes in its paragraph; `Some((end, unclear))` else, `unclear` when a
/// mark on the way cannot be read either way or a stray closing mark follows in the paragraph
/// (then `end` is that stray mark: the longest reading).
fn straight_end(text: &str, open: usize) -> Option<(usize, bool)> {
    let para_end = text[open..].find("\n\n").map_or(text.len(), |i| open + i);
    let mut depth = 1usize;
    let mut unclear = false;
    let mut end = None;
    for (j, _) in text[open + 1..para_end].match_indices('"') {
        let at = open + 1 + j;
        match straight_mark(text, at) {
            Mark::Open => depth += 1,
            mark => {
                // A mark that reads either way is taken as closing; the reading is then not
                // certain.
                unclear |= mark == Mark::Either;
                depth -= 1;
            }
        }
        if depth == 0 {
            end = Some(at);
            break;
        }
    }
    let end = end?;
    // A closing mark later in the paragraph, with none opening before it, may be the real end.
    let mut open_after = 0usize;
    let mut last = end;
    for (j, _) in text[end + 1..para_end].match_indices('"') {
        let at = end + 1 + j;
        match straight_mark(text, at) {
            Mark::Open => open_after += 1,
            Mark::Close | Mark::Either if open_after == 0 => {
                unclear = true;
                last = at;
            }
            Mark::Close | Mark::Either => open_after -= 1,
        }
    }
    Some((last, unclear))
}

/// The quoted strings of `text`, in order. `“…”`, `「…」` and `『…』` end at the mark that
/// balances the opening one, so a quote that quotes (“the “novel” injector”) is one quote, not
/// its first half; straight `"…"` the same way by [`straight_end`].
pub(super) fn quoted_strings(text: &str) -> Vec<Quoted> {
    let mut out = Vec::new();
    let mut it = text.char_indices();
    while let Some((i, c)) = it.next() {
        let close = match c {
            '"' => '"',
            '“' => '”',
            '「' => '」',
            '『' => '』',
            _ => continue,
        };
        let inner = i + c.len_utf8();
        let found = if c == '"' {
            if straight_mark(text, i) == Mark::Close {
                continue;
            }
            straight_end(text, i)
        } else {
            let mut depth = 1;
            let mut end = None;
            for (j, d) in text[inner..].char_indices() {
                if d == close {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(inner + j);
                        break;
                    }
                } else if d == c {
                    depth += 1;
                }
            }
            end.map(|e| (e, false))
        };
        let Some((end, unclear)) = found.filter(|&(e, _)| e > inner) else {
            continue;
        };
        out.push(Quoted {
            whole: i..end + close.len_utf8(),
            inner: inner..end,
            unclear,
        });
        // Go on after the closing mark.
        while it.next().is_some_and(|(k, _)| k < end) {}
    }
    out
}

/// A place in the vault: path, page, line range.
type Place = (String, Option<u32>, Option<(u32, u32)>);

/// Whether `uri` names a place in the vault (not an external link).
pub(super) fn vault_uri(u: &str) -> Option<Place> {
    match uri::parse(u)? {
        Target::Vault { path, page, lines } if !path.is_empty() => Some((path, page, lines)),
        _ => None,
    }
}

pub(super) fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Citation URIs written in the answer (with `#page=`/`#line=`, or a bare `….pdf` with an
/// optional "p. N"), in order.
pub(super) fn uris_in(answer: &str) -> Vec<Cite> {
    let mut out: Vec<Cite> = Vec::new();
    for m in uri_re().find_iter(answer) {
        let u = m.as_str().trim_end_matches(['.', ':']);
        if vault_uri(u).is_some() {
            out.push(Cite {
                uri: u.to_string(),
                range: m.start()..m.start() + u.len(),
            });
        }
    }
    for c in bare_pdf_re().captures_iter(answer) {
        let whole = c.get(0).unwrap();
        if out.iter().any(|o| overlaps(&o.range, &whole.range())) {
            continue;
        }
        let path = whole.as_str();
        let path = &path[..path.find(".pdf").map_or(path.len(), |i| i + 4)];
        // A bare file name with no page is a word of the prose (the tail of a name with spaces,
        // `… Languages.pdf`), not a citation: a bare path cites with a folder or a page.
        if path.contains("://") || (!path.contains('/') && c.get(1).is_none()) {
            continue;
        }
        let u = match c.get(1) {
            Some(p) => format!("{path}#page={}", p.as_str()),
            None => path.to_string(),
        };
        if vault_uri(&u).is_some() {
            out.push(Cite {
                uri: u,
                range: whole.range(),
            });
        }
    }
    out.sort_by_key(|c| c.range.start);
    out
}

/// Trims quote marks, ellipses at the ends and a trailing citation from a quoted passage.
pub(super) fn clean_quote(s: &str) -> String {
    let t = s.trim().trim_matches(|c: char| {
        matches!(
            c,
            '"' | '“' | '”' | '‘' | '’' | '\'' | '*' | '_' | '「' | '」' | '『' | '』'
        ) || c.is_whitespace()
    });
    let t = t
        .trim_start_matches(['…', '.'])
        .trim_end_matches('…')
        .trim_end_matches("...")
        .trim();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn is_quote(text: &str) -> bool {
    (text.chars().count() >= MIN_QUOTE && text.split_whitespace().count() >= MIN_WORDS)
        || text.chars().filter(|&c| verify::no_space_script(c)).count() >= MIN_NO_SPACE
}

/// Quotes of the answer: blockquotes (consecutive `>` lines; a quoted string inside one is
/// the quote) and quoted strings of at least three words elsewhere.
pub(super) fn quotes_in(answer: &str, cites: &[Cite]) -> Vec<Quote> {
    let mut out: Vec<Quote> = Vec::new();
    let mut offset = 0;
    let mut block: Option<(usize, usize, String)> = None;
    let flush = |block: &mut Option<(usize, usize, String)>, out: &mut Vec<Quote>| {
        if let Some((start, end, text)) = block.take() {
            // A quoted string inside the blockquote is the quote ("> "…" — uri").
            let first = quoted_strings(&text).into_iter().next();
            let unclear = first.as_ref().is_some_and(|q| q.unclear);
            let inner = first.map(|q| text[q.inner].to_string());
            // Without one, the blockquote is the quote, minus a citation after a dash.
            let body = inner.unwrap_or_else(|| {
                let mut t = text.clone();
                for c in uris_in(&text).iter().rev() {
                    t.replace_range(c.range.clone(), "");
                }
                t.trim_end()
                    .trim_end_matches(['—', '–', '-', '(', ')', ' '])
                    .to_string()
            });
            let q = clean_quote(&body);
            if is_quote(&q) {
                out.push(Quote {
                    text: q,
                    range: start..end,
                    block: true,
                    unclear,
                });
            }
        }
    };
    for line in answer.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('>') {
            let end = offset + line.trim_end().len();
            match &mut block {
                Some((_, e, text)) => {
                    *e = end;
                    text.push(' ');
                    text.push_str(rest.trim());
                }
                None => block = Some((offset, end, rest.trim().to_string())),
            }
        } else {
            flush(&mut block, &mut out);
        }
        offset += line.len();
    }
    flush(&mut block, &mut out);
    for Quoted {
        whole,
        inner,
        unclear,
    } in quoted_strings(answer)
    {
        if out.iter().any(|q| overlaps(&q.range, &whole)) {
            continue;
        }
        let inner = &answer[inner];
        // A blank line inside is two paragraphs, not one quote; a URI inside is not prose.
        if inner.contains("\n\n") || cites.iter().any(|u| overlaps(&u.range, &whole)) {
            continue;
        }
        let q = clean_quote(inner);
        if is_quote(&q) {
            out.push(Quote {
                text: q,
                range: whole,
                block: false,
                unclear,
            });
        }
    }
    out.sort_by_key(|q| q.range.start);
    out
}

/// `[n]` markers outside quotes and reference lists, resolved to URIs: by the answer's own
/// reference list (`[1] papers/…#page=3`), else by the prompt's evidence numbering.
pub(super) fn markers_in(
    answer: &str,
    quotes: &[Quote],
    definitions: &HashMap<u32, String>,
    definition_lines: &[Range<usize>],
    evidence: &[String],
) -> Vec<Cite> {
    let mut out = Vec::new();
    for m in marker_re().captures_iter(answer) {
        let whole = m.get(0).unwrap();
        if quotes
            .iter()
            .any(|q| overlaps(&q.range, &whole.range()) && !q.block)
            || definition_lines
                .iter()
                .any(|l| l.start <= whole.start() && whole.start() < l.start + 6)
        {
            continue;
        }
        for n in m[1].split(',').filter_map(|n| n.trim().parse::<u32>().ok()) {
            let target = definitions.get(&n).cloned().or_else(|| {
                // `[0]` (a table cell, an index in code) points to no evidence.
                let i = usize::try_from(n).ok()?.checked_sub(1)?;
                evidence.get(i).cloned()
            });
            if let Some(u) = target.filter(|u| vault_uri(u).is_some()) {
                out.push(Cite {
                    uri: u,
                    range: whole.range(),
                });
            }
        }
    }
    out
}

/// Whether `a..b` of the answer crosses a paragraph break.
pub(super) fn breaks(answer: &str, a: usize, b: usize) -> bool {
    let (a, b) = (a.min(b), a.max(b));
    answer.get(a..b).is_some_and(|s| s.contains("\n\n"))
}

/// Only separators between two places: the citations of one quote run on ("[1][2]", ", ").
pub(super) fn adjacent(answer: &str, a: usize, b: usize) -> bool {
    answer.get(a..b).is_some_and(|s| {
        s.chars().all(|c| {
            c.is_whitespace()
                || matches!(c, ',' | ';' | '(' | ')' | '[' | ']' | '—' | '–' | '-' | '.')
        }) || s.trim() == "and"
    })
}

/// The quotes of `answer` paired with the citations beside them, and the citations with no
/// quote. `evidence` are the prompt's evidence URIs in their `[n]` order.
/// A citation of the answer and the quote beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Paired {
    pub(super) uri: String,
    pub(super) quote: Option<String>,
    /// Where the quote ends cannot be told from its marks (`quote` is the longest reading).
    pub(super) unclear: bool,
}

pub(super) fn pair(answer: &str, evidence: &[String]) -> Vec<Paired> {
    let mut cites = uris_in(answer);
    // The answer's own reference list: `[n] uri` lines define markers; their URIs are not
    // citations of their own.
    let mut definitions = HashMap::new();
    let mut definition_lines = Vec::new();
    for c in definition_re().captures_iter(answer) {
        let rest = c.get(2).unwrap();
        if let Some(u) = cites
            .iter()
            .find(|u| u.range.start >= rest.start() && u.range.end <= rest.end())
        {
            definitions.insert(c[1].parse::<u32>().unwrap_or(0), u.uri.clone());
            definition_lines.push(c.get(0).unwrap().range());
        }
    }
    cites.retain(|u| !definition_lines.iter().any(|l| overlaps(l, &u.range)));
    let quotes = quotes_in(answer, &cites);
    cites.extend(markers_in(
        answer,
        &quotes,
        &definitions,
        &definition_lines,
        evidence,
    ));
    cites.sort_by_key(|c| c.range.start);
    cites.dedup();

    let mut used = vec![false; cites.len()];
    let mut out: Vec<(usize, Paired)> = Vec::new();
    for (i, q) in quotes.iter().enumerate() {
        let next = quotes.get(i + 1).map_or(answer.len(), |n| n.range.start);
        let prev = if i == 0 { 0 } else { quotes[i - 1].range.end };
        // After the quote first: in its paragraph (a blockquote's next line counts), before the
        // next quote; with the citations that run on right after it.
        let reach = |c: &Cite| {
            let gap_ok = if q.block {
                // The line right after a blockquote ("— source") is still the quote's.
                let tail = &answer[q.range.end..c.range.start.max(q.range.end)];
                tail.matches('\n').count() <= 1 || !breaks(answer, q.range.end, c.range.start)
            } else {
                !breaks(answer, q.range.end, c.range.start)
            };
            c.range.start >= q.range.start && c.range.start < next && gap_ok
        };
        let mut mine: Vec<usize> = Vec::new();
        for (k, c) in cites.iter().enumerate() {
            if used[k] || !reach(c) {
                continue;
            }
            match mine.last() {
                None => mine.push(k),
                Some(&l) if adjacent(answer, cites[l].range.end, c.range.start) => mine.push(k),
                Some(_) => break,
            }
        }
        if mine.is_empty() {
            // Else the closest citation before it in the same paragraph ("On p. 3: "…"").
            if let Some(k) = (0..cites.len()).rev().find(|&k| {
                !used[k]
                    && cites[k].range.end <= q.range.start
                    && cites[k].range.start >= prev
                    && !breaks(answer, cites[k].range.end, q.range.start)
            }) {
                mine.push(k);
            }
        }
        for k in mine {
            used[k] = true;
            out.push((
                cites[k].range.start,
                Paired {
                    uri: cites[k].uri.clone(),
                    quote: Some(q.text.clone()),
                    unclear: q.unclear,
                },
            ));
        }
    }
    for (k, c) in cites.iter().enumerate() {
        if !used[k] {
            out.push((
                c.range.start,
                Paired {
                    uri: c.uri.clone(),
                    quote: None,
                    unclear: false,
                },
            ));
        }
    }
    out.sort_by_key(|(at, _)| *at);
    // A citation without a quote counts once.
    let mut seen_bare: Vec<String> = Vec::new();
    out.into_iter()
        .map(|(_, p)| p)
        .filter(|p| {
            p.quote.is_some()
                || (!seen_bare.contains(&p.uri) && {
                    seen_bare.push(p.uri.clone());
                    true
                })
        })
        .collect()
}
