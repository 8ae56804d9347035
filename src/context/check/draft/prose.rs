//! A manuscript as prose: citations as one character each, markup dropped, LaTeX quotes and
//! quote environments as typographic marks and `>` lines; the sentence a citation supports
//! and the quote it vouches for.

use std::ops::Range;

use super::forms::{balanced, tex_plain};
use super::{Format, Group, overlaps};
use crate::context::citations::{evidence_quote, quoted_spans};

/// The character that stands for a citation group in the clean text.
const CITE: char = '\u{E000}';

/// The draft as prose: markup dropped, each citation group one [`CITE`] character, LaTeX's
/// quote marks and quote environments as typographic marks and `>` lines; `src[i]` is the
/// source byte of clean byte `i`.
pub(super) struct Clean {
    text: String,
    /// Clean byte offset of each group's [`CITE`].
    cites: Vec<usize>,
}

impl Clean {
    pub(super) fn new(masked: &str, format: Format, groups: &[Group]) -> Clean {
        let mut text = String::with_capacity(masked.len());
        let mut cites = Vec::with_capacity(groups.len());
        let mut g = 0;
        let mut i = 0;
        let bytes = masked.as_bytes();
        let mut quote_env = 0usize;
        while i < masked.len() {
            if g < groups.len() && groups[g].range.start == i {
                cites.push(text.len());
                text.push(CITE);
                i = groups[g].range.end;
                g += 1;
                continue;
            }
            let rest = &masked[i..];
            let c = rest.chars().next().unwrap_or(' ');
            if format == Format::Latex {
                if let Some(env) = ["quote", "quotation", "displayquote"]
                    .iter()
                    .find(|e| rest.starts_with(&format!("\\begin{{{e}}}")))
                {
                    quote_env += 1;
                    text.push_str("\n\n> ");
                    i += format!("\\begin{{{env}}}").len();
                    continue;
                }
                if let Some(env) = ["quote", "quotation", "displayquote"]
                    .iter()
                    .find(|e| rest.starts_with(&format!("\\end{{{e}}}")))
                {
                    // The line after it may still belong to it (`\cite{…}` under a quote).
                    quote_env = quote_env.saturating_sub(1);
                    i += format!("\\end{{{env}}}").len();
                    continue;
                }
                if rest.starts_with("``") {
                    text.push('“');
                    i += 2;
                    continue;
                }
                if rest.starts_with("''") {
                    text.push('”');
                    i += 2;
                    continue;
                }
                if rest.starts_with("---") {
                    text.push('—');
                    i += 3;
                    continue;
                }
                if rest.starts_with("--") {
                    text.push('–');
                    i += 2;
                    continue;
                }
                if rest.starts_with("\\enquote{") {
                    // Its closing brace becomes the closing mark.
                    if let Some((inner, end)) = balanced(masked, i + "\\enquote".len(), '{', '}') {
                        text.push('“');
                        text.push_str(&tex_plain(&masked[inner]));
                        text.push('”');
                        i = end;
                        continue;
                    }
                }
                match c {
                    '\\' => {
                        let name_len = rest[1..]
                            .bytes()
                            .take_while(|b| b.is_ascii_alphabetic())
                            .count();
                        if name_len == 0 {
                            // `\%`, `\&`, `\\`: the character, or a break.
                            let n = rest[1..].chars().next().unwrap_or(' ');
                            text.push(if n == '\\' { '\n' } else { n });
                            i += 1 + n.len_utf8();
                        } else {
                            i += 1 + name_len;
                            // A sectioning or float command's argument is not prose.
                            let name = &rest[1..1 + name_len];
                            if matches!(
                                name,
                                "label"
                                    | "ref"
                                    | "eqref"
                                    | "cref"
                                    | "Cref"
                                    | "autoref"
                                    | "includegraphics"
                                    | "bibliography"
                                    | "bibliographystyle"
                                    | "usepackage"
                                    | "documentclass"
                                    | "begin"
                                    | "end"
                                    | "url"
                                    | "href"
                            ) && let Some((_, end)) = balanced(masked, i, '{', '}')
                            {
                                i = end;
                            }
                            if matches!(name, "section" | "subsection" | "paragraph" | "chapter") {
                                text.push_str("\n\n");
                            }
                        }
                        continue;
                    }
                    '{' | '}' => {
                        i += 1;
                        continue;
                    }
                    '~' => {
                        text.push(' ');
                        i += 1;
                        continue;
                    }
                    '\n' if quote_env > 0 => {
                        // A line inside a quote environment stays in its blockquote, unless
                        // it is a blank line (the paragraph goes on as the quote's).
                        text.push_str("\n> ");
                        i += 1;
                        continue;
                    }
                    _ => {}
                }
            } else if (c == '*' || c == '_')
                && (i == 0 || bytes[i - 1] != b'\\')
                && rest.len() > 1
                && (rest[1..].starts_with(c) || !rest[1..].starts_with(' '))
            {
                // Emphasis marks: `*word*`, `**word**`, `_word_` (not `snake_case`).
                let prev = masked[..i].chars().next_back();
                if c == '*' || !prev.is_some_and(|p| p.is_alphanumeric()) {
                    i += 1;
                    continue;
                }
            }
            text.push(c);
            i += c.len_utf8();
        }
        Clean { text, cites }
    }

    /// The quote group `gi` vouches for (its text, and whether its end is unclear) and the
    /// sentence it supports. A quote is taken once: the nearest before the citation in its
    /// sentence (after the previous citation), else the blockquote the citation closes or
    /// stands in, else the first after it in the sentence with no citation of its own.
    pub(super) fn context_of(
        &self,
        gi: usize,
        used: &mut Vec<Range<usize>>,
    ) -> (Option<(String, bool)>, String) {
        let at = self.cites[gi];
        let t = &self.text;
        let para = paragraph(t, at);
        let sentence = sentence(t, para.clone(), at);
        let claim = claim_text(&t[sentence.clone()]);
        // A blockquote the citation stands in, or the one just before its line.
        if let Some(block) = blockquote_of(t, at)
            && !used.iter().any(|u| overlaps(u, &block.0))
        {
            used.push(block.0.clone());
            return (Some((block.1, block.2)), claim);
        }
        let prev_cite = self.cites[..gi].last().copied().unwrap_or(0);
        let next_cite = self.cites.get(gi + 1).copied().unwrap_or(t.len());
        let spans: Vec<_> = quoted_spans(&t[sentence.clone()])
            .into_iter()
            .map(|q| {
                let s = sentence.start;
                (
                    q.whole.start + s..q.whole.end + s,
                    q.inner.start + s..q.inner.end + s,
                    q.unclear,
                )
            })
            .filter(|(w, _, _)| !used.iter().any(|u| overlaps(u, w)))
            .filter_map(|(w, inner, unclear)| {
                let text: String = t[inner].chars().filter(|&c| c != CITE).collect();
                evidence_quote(&text).map(|q| (w, q, unclear))
            })
            .collect();
        let before = spans
            .iter()
            .rfind(|(w, _, _)| w.end <= at && w.start >= prev_cite);
        let after = spans
            .iter()
            .find(|(w, _, _)| w.start > at && w.end <= next_cite && next_cite >= sentence.end);
        match before.or(after) {
            Some((w, q, unclear)) => {
                used.push(w.clone());
                (Some((q.clone(), *unclear)), claim)
            }
            None => (None, claim),
        }
    }
}

/// The paragraph around byte `at`: between blank lines.
fn paragraph(t: &str, at: usize) -> Range<usize> {
    let start = t[..at].rfind("\n\n").map_or(0, |i| i + 2);
    let end = t[at..].find("\n\n").map_or(t.len(), |i| at + i);
    start..end
}

/// Words after which a full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "p", "pp", "e.g", "i.e", "al", "cf", "fig", "figs", "eq", "eqs", "vs", "dr", "mr", "ms", "no",
    "sec", "ch", "chap", "vol", "ed", "eds", "approx", "ca", "resp", "st", "tab", "ref", "refs",
];

/// The sentence of paragraph `para` that holds byte `at`. A sentence ends at `.`, `?` or `!`
/// (and any closing marks after it) followed by a space and a capital, a digit or an opening
/// mark, outside quotes, and not after an abbreviation.
fn sentence(t: &str, para: Range<usize>, at: usize) -> Range<usize> {
    let p = &t[para.clone()];
    let quotes = quoted_spans(p);
    let mut start = 0;
    let mut ends = Vec::new();
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '?' | '!') || quotes.iter().any(|q| q.inner.contains(&i)) {
            continue;
        }
        // Closing marks after the stop belong to the sentence.
        let mut j = k + 1;
        while j < chars.len() && matches!(chars[j].1, '"' | '”' | '’' | '\'' | ')' | ']') {
            j += 1;
        }
        if j >= chars.len() || !chars[j].1.is_whitespace() {
            continue;
        }
        let next = chars[j..].iter().find(|(_, c)| !c.is_whitespace());
        let Some(&(_, n)) = next else { continue };
        // A citation can open a sentence (`Smith (2020) shows …`).
        if !(n.is_uppercase()
            || n.is_ascii_digit()
            || matches!(n, '“' | '"' | '‘' | '(' | '>' | CITE))
        {
            continue;
        }
        if c == '.' {
            let word: String = p[..i]
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '.')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let w = word.to_lowercase();
            if ABBREVIATIONS.contains(&w.as_str())
                || (w.len() == 1 && word.chars().all(char::is_uppercase))
            {
                continue;
            }
        }
        let end = chars.get(j).map_or(p.len(), |(i, _)| *i);
        ends.push((start, end));
        start = end;
    }
    ends.push((start, p.len()));
    let rel = at - para.start;
    let (a, b) = ends
        .into_iter()
        .find(|(a, b)| (*a..*b).contains(&rel))
        .unwrap_or((0, p.len()));
    para.start + a..para.start + b
}

/// A sentence as the claim it makes: no citations, no blockquote marks, single spaces.
fn claim_text(s: &str) -> String {
    let s: String = s.chars().map(|c| if c == CITE { ' ' } else { c }).collect();
    let s = s
        .lines()
        .map(|l| l.trim_start().trim_start_matches('>').trim())
        .collect::<Vec<_>>()
        .join(" ");
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    // A bracket or parenthesis a citation left empty.
    let s = s
        .replace("( )", "")
        .replace("()", "")
        .replace("[ ]", "")
        .replace("[]", "");
    s.trim_matches(|c: char| c.is_whitespace() || c == ',')
        .to_string()
}

/// The blockquote at or just before byte `at`: the citation stands on one of its `>` lines or
/// on the line after it (`— [@key, p. 4]`). Its range, text and whether its end is unclear.
fn blockquote_of(t: &str, at: usize) -> Option<(Range<usize>, String, bool)> {
    let line_start = t[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = t[at..].find('\n').map_or(t.len(), |i| at + i);
    let line = &t[line_start..line_end];
    let is_block = |l: &str| l.trim_start().starts_with('>');
    // The last line of the blockquote: this one, or the one before it (a source line after
    // a blockquote, with nothing but the citation and dashes).
    let last_end = if is_block(line) {
        line_end
    } else {
        let rest: String = line
            .chars()
            .filter(|c| !matches!(c, '—' | '–' | '-' | ' ' | '\t' | '(' | ')' | '.') && *c != CITE)
            .collect();
        if !rest.is_empty() || line_start == 0 {
            return None;
        }
        let prev_end = line_start - 1;
        let prev_start = t[..prev_end].rfind('\n').map_or(0, |i| i + 1);
        if !is_block(&t[prev_start..prev_end]) {
            return None;
        }
        prev_end
    };
    // Up to the first line of the blockquote.
    let mut first = t[..last_end].rfind('\n').map_or(0, |i| i + 1);
    while first > 0 {
        let ps = t[..first - 1].rfind('\n').map_or(0, |i| i + 1);
        if !is_block(&t[ps..first - 1]) {
            break;
        }
        first = ps;
    }
    let body: String = t[first..last_end]
        .lines()
        .map(|l| l.trim_start().trim_start_matches('>').trim())
        .collect::<Vec<_>>()
        .join(" ");
    let body: String = body.chars().filter(|&c| c != CITE).collect();
    let body = body
        .trim_end()
        .trim_end_matches(['—', '–', '-', '(', ')', ' '])
        .to_string();
    // A quoted string inside is the quote; else the blockquote is.
    let inner = quoted_spans(&body).into_iter().next();
    let (text, unclear) = match inner {
        Some(q) => (body[q.inner].to_string(), q.unclear),
        None => (body, false),
    };
    evidence_quote(&text).map(|q| (first..last_end, q, unclear))
}
