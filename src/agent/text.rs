//! The text leaves the answer is built from, as pure functions: the stems the search index
//! makes, the sentences of a page, the cut of a long quote and whether a number is followed by
//! its unit. Reading the question (`rank`), shaping a page (`shape`) and choosing the quotes
//! (`choose`) all use them; they use none of those.

use tantivy::tokenizer::TokenStream;

/// Lower-cased, stemmed tokens of `text`, as the search index makes them.
pub fn stems(text: &str) -> Vec<String> {
    let mut analyzer = crate::vault::tokenizer::analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// Abbreviations after which a full stop does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "cf", "fig", "figs", "eq", "eqs", "ref", "refs", "sec", "no", "vol", "pp", "vs",
    "al", "etc", "approx", "ca", "resp", "dr", "prof", "mr", "ms", "st", "ch", "tab",
];

/// Sentences of `text` with whitespace collapsed (so a quote is a substring of the text with
/// its whitespace collapsed). A sentence ends at `.`, `?` or `!` followed by a space and a
/// capital, digit or bracket (not after an abbreviation or an initial), at a bullet, and at a
/// paragraph break: a title, an author block or a heading is never glued to the next sentence.
pub fn sentences(text: &str) -> Vec<String> {
    text.split("\n\n")
        .flat_map(split_headings)
        .flat_map(|b| block_sentences(&b))
        .collect()
}

/// Cuts a block after each heading-like line ("Abstract", "2.1 Scoring"): a short line without
/// closing punctuation followed by a line that starts a new sentence.
fn split_headings(block: &str) -> Vec<String> {
    let lines: Vec<&str> = block.lines().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, line) in lines.iter().enumerate() {
        cur.push_str(line);
        cur.push('\n');
        let t = line.trim();
        let next_starts = lines
            .get(i + 1)
            .and_then(|n| n.trim().chars().next())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || c == '•');
        let heading = !t.is_empty()
            && t.split_whitespace().count() <= 6
            && !t.ends_with(['.', ',', ';', ':', '-', '?', '!'])
            && next_starts;
        if heading {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn ends_sentence(flat: &str, i: usize) -> bool {
    let bytes = flat.as_bytes();
    if !matches!(bytes[i], b'.' | b'?' | b'!') {
        return false;
    }
    if i + 1 == bytes.len() {
        return true;
    }
    if bytes[i + 1] != b' ' {
        return false;
    }
    let next = flat[i + 2..].chars().next();
    // (A sentence may start with a TeX command: "… always global. \currentgrouplevel returns …".)
    let command = flat[i + 2..]
        .strip_prefix('\\')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()));
    let starts = command
        || next.is_some_and(|c| {
            c.is_uppercase() || c.is_ascii_digit() || matches!(c, '(' | '[' | '"' | '“' | '‘' | '•')
        });
    if !starts {
        return false;
    }
    if bytes[i] != b'.' {
        return true;
    }
    // The word before the stop: an abbreviation or an initial does not end a sentence.
    let before = &flat[..i];
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let lw = word.to_lowercase();
    let lw = lw.trim_start_matches(['(', '[', '"', '“']);
    if ABBREVIATIONS.contains(&lw) {
        return false;
    }
    let letters: Vec<char> = lw.chars().filter(|c| c.is_alphabetic()).collect();
    !(letters.len() == 1 && word.chars().count() <= 2)
}

fn block_sentences(block: &str) -> Vec<String> {
    let flat = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut start = 0;
    let push = |s: &str, out: &mut Vec<String>| {
        let s = s.trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
    };
    let mut i = 0;
    while i < flat.len() {
        if !flat.is_char_boundary(i) {
            i += 1;
            continue;
        }
        if flat[i..].starts_with(" • ") && i > start {
            push(&flat[start..i], &mut out);
            start = i + 1;
        } else if let Some(c) = flat[i..].chars().next()
            && matches!(c, '。' | '！' | '？')
        {
            // A full-width stop ends a Chinese or Japanese sentence, space or not.
            let end = i + c.len_utf8();
            push(&flat[start..end], &mut out);
            start = end;
            i = end;
            continue;
        } else if ends_sentence(&flat, i) {
            push(&flat[start..=i], &mut out);
            start = i + 1;
        }
        i += 1;
    }
    push(&flat[start..], &mut out);
    out
}

/// Longest quote an answer carries; longer sentences are cut at a word boundary (the cut is
/// still a verbatim substring of the source).
pub const MAX_QUOTE: usize = 320;

pub fn cut(sentence: &str) -> String {
    if sentence.chars().count() <= MAX_QUOTE {
        return sentence.to_string();
    }
    let mut out = String::new();
    for w in sentence.split(' ') {
        if out.chars().count() + w.chars().count() + 1 > MAX_QUOTE {
            if out.chars().count() < MAX_QUOTE / 2 {
                // A long run without spaces (Chinese, Japanese): cut it by characters.
                if !out.is_empty() {
                    out.push(' ');
                }
                let room = MAX_QUOTE.saturating_sub(out.chars().count());
                out.extend(w.chars().take(room));
            }
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

const UNITS: &[&str] = &[
    "pt",
    "mm",
    "cm",
    "in",
    "%",
    "word",
    "character",
    "page",
    "line",
    "dpi",
    "px",
    "kb",
    "mb",
    "times",
    "point",
    "author",
    "referee",
    "figure",
    "keyword",
    "column",
    "level",
    "byte",
    "second",
    "ms",
    "hz",
    "khz",
    "ghz",
    "kg",
    "em",
    "ex",
    "bp",
    "year",
    "day",
    "volume",
    "vote",
    "people",
    "user",
    // Counters and units written after a number in Chinese, Japanese and Korean text.
    "页",
    "頁",
    "个",
    "個",
    "年",
    "月",
    "种",
    "種",
    "卷",
    "层",
    "名",
    "元",
    "字",
    "行",
    "次",
    "倍",
    "位",
    "件",
    "人",
    "部分",
    "ページ",
    "文字",
    "장",
    "개",
    "번",
    "쪽",
];

/// Whether `rest` (what follows a number) starts with a unit ("pt", "words", "页").
pub fn starts_with_unit(rest: &str) -> bool {
    let lower = rest.to_lowercase();
    UNITS.iter().any(|u| {
        let Some(after) = lower.strip_prefix(u) else {
            return false;
        };
        let word_ends = |t: &str| t.chars().next().is_none_or(|c| !c.is_alphabetic());
        // "4 in", "14 pt", "3 points", "10pt"; not "2 institutions".
        !u.is_ascii() || word_ends(after) || after.strip_prefix('s').is_some_and(word_ends)
    })
}
