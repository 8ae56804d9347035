//! Text layout helpers: display-width word wrapping (wide characters take two cells) and
//! case-insensitive finding that keeps byte offsets. (Quotes are located by the context
//! layer's `quote` module, the one owner of that rule.)

use unicode_width::UnicodeWidthChar;

/// One display row of a text: byte range `[start, end)` into the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Index of the source line (split on '\n').
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

pub fn char_width(c: char) -> usize {
    if c == '\t' { 4 } else { c.width().unwrap_or(0) }
}

pub fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Wraps `text` to `width` cells, breaking after spaces where possible. Every source line
/// gives at least one row (so blank lines stay visible).
pub fn wrap(text: &str, width: usize) -> Vec<Row> {
    let width = width.max(4);
    let mut rows = Vec::new();
    let mut offset = 0;
    for (line_no, line) in text.split('\n').enumerate() {
        let mut row_start = 0;
        let mut used = 0;
        let mut last_space: Option<usize> = None;
        for (i, c) in line.char_indices() {
            let w = char_width(c);
            // A space may hang past the edge: it is never drawn at the start of a row.
            if used + w > width && i > row_start && c != ' ' {
                let cut = match last_space {
                    Some(s) if s > row_start => s,
                    _ => i,
                };
                rows.push(Row {
                    line: line_no,
                    start: offset + row_start,
                    end: offset + cut,
                });
                row_start = cut;
                used = str_width(&line[row_start..i]);
                last_space = None;
            }
            used += w;
            if c == ' ' {
                last_space = Some(i + 1);
            }
        }
        rows.push(Row {
            line: line_no,
            start: offset + row_start,
            end: offset + line.len(),
        });
        offset += line.len() + 1;
    }
    rows
}

/// Joins the lines of each paragraph of a PDF page so that it wraps to the pane instead of to
/// the printed column. A line break stays where a line ends early (the last line of a
/// paragraph, a heading, a title, a list item) or before a blank line. Every joining `\n`
/// becomes a space, so byte offsets into the page (search hits, quotes, selections) still hold.
pub fn reflow(text: String) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut widths: Vec<usize> = lines
        .iter()
        .map(|l| str_width(l.trim_end()))
        .filter(|w| *w > 0)
        .collect();
    if widths.len() < 3 {
        return text;
    }
    widths.sort_unstable();
    // The printed column width: most full lines are about this long.
    let column = widths[widths.len() * 3 / 4];
    let mut joins = Vec::new();
    let mut offset = 0;
    for (i, line) in lines.iter().enumerate() {
        offset += line.len();
        let Some(next) = lines.get(i + 1) else { break };
        let full = str_width(line.trim_end()) * 10 >= column * 8;
        let next_starts_item = next
            .trim_start()
            .starts_with(['•', '–', '-', '*', '[', '(']);
        // A line that starts with spaces is code or a listing the extractor kept indented:
        // its line breaks are part of it.
        let indented = next.starts_with(' ') || line.starts_with(' ');
        // "…as follows:" leads into a list, a display or a listing; a sentence that runs on
        // after its colon in lower case ("Neither model wins everywhere: / the dense model…")
        // is still prose.
        let runs_on = next.trim_start().starts_with(char::is_lowercase) && !is_code(next);
        let lead_in = line.trim_end().ends_with(':') && !runs_on;
        // A listing's, a verbatim block's or a table's lines stay its own.
        let code = is_code(line) || is_code(next);
        if full && !next.trim().is_empty() && !next_starts_item && !indented && !lead_in && !code {
            joins.push(offset);
        }
        offset += 1;
    }
    let mut bytes = text.into_bytes();
    for at in joins {
        bytes[at] = b' ';
    }
    // Only ASCII newlines were replaced, so this stays valid UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

/// Whether a line of a PDF page reads as code, a listing or a table row rather than prose:
/// indented by the extractor, opening with a comment, a prompt or a keyword, ending as a
/// statement or a block does, or dense in operators and brackets.
pub fn is_code(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    if line.starts_with("  ") || line.starts_with('\t') {
        return true;
    }
    // Openers that are code on their own.
    const OPENERS: &[&str] = &[
        "#include", "#define", "#!", "//", "/*", ">>>", "$ ", "}", "{", "\\begin", "\\end", "#[",
        "print(", "printf(",
    ];
    if OPENERS.iter().any(|o| t.starts_with(o)) || t.ends_with(['{', '}', ';']) {
        return true;
    }
    // Keywords that begin prose lines too ("from 6.4 to 1.9", "class of methods"): code only
    // when the line ends as a statement or a header does, or assigns.
    const KEYWORDS: &[&str] = &[
        "def ", "fn ", "let ", "const ", "import ", "from ", "return", "class ", "public ",
        "private ", "static ", "int ", "void ", "for ", "if ", "while ", "else ",
    ];
    if KEYWORDS.iter().any(|k| t.starts_with(k))
        && (t.ends_with([':', ')', ',']) || t.contains(" = "))
    {
        return true;
    }
    // Prompts of a session printed in the paper (R, a shell, Python, Julia).
    const PROMPTS: &[&str] = &["R> ", "> ", "+ ", "In [", "julia> ", "% "];
    if PROMPTS
        .iter()
        .any(|p| t.starts_with(p) && t[p.len()..].starts_with(|c: char| !c.is_whitespace()))
    {
        return true;
    }
    // A statement with a comment after it (`v1 := ld state[764] // load k`), or an operator
    // prose does not write between spaces.
    let comment = t.find(" //").is_some_and(|i| i > 0) || t.contains(" /* ");
    const OPERATORS: &[&str] = &[" := ", " <- ", " == ", " != ", " += ", " -= ", " => ", "::"];
    if comment || OPERATORS.iter().any(|o| t.contains(o)) {
        return true;
    }
    if is_instruction(t) {
        return true;
    }
    let n = t.chars().count();
    let symbols = t
        .chars()
        .filter(|c| "{}[]()<>=;+*/&|!#$%^~`\\_".contains(*c))
        .count();
    n >= 6 && symbols * 5 >= n
}

/// An assembly or bytecode instruction: a short lower-case mnemonic, then two or more operands
/// that are single tokens separated by commas (`mov eax, [ebx+4]`, `add r1, r2, #4`), with an
/// optional comment (`;`, `//`). Prose separates words, not tokens, by its commas.
fn is_instruction(t: &str) -> bool {
    let code = t
        .split(';')
        .next()
        .unwrap_or(t)
        .split(" //")
        .next()
        .unwrap_or(t)
        .trim();
    let Some((mnemonic, operands)) = code.split_once(' ') else {
        return false;
    };
    let mnemonic_ok = (2..=8).contains(&mnemonic.len())
        && mnemonic.starts_with(|c: char| c.is_ascii_lowercase())
        && mnemonic
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.');
    let ops: Vec<&str> = operands.split(',').map(str::trim).collect();
    mnemonic_ok
        && ops.len() >= 2
        && ops
            .iter()
            .all(|o| !o.is_empty() && !o.contains(' ') && o.len() <= 24)
}

/// Byte ranges of case-insensitive matches of `needle` in `hay`.
pub fn find_all(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    let needle: Vec<char> = needle.chars().flat_map(char::to_lowercase).collect();
    if needle.is_empty() {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = hay
        .char_indices()
        .map(|(i, c)| (i, c.to_lowercase().next().unwrap_or(c)))
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + needle.len() <= chars.len() {
        if chars[i..i + needle.len()]
            .iter()
            .zip(&needle)
            .all(|((_, a), b)| a == b)
        {
            let end = chars
                .get(i + needle.len())
                .map(|(b, _)| *b)
                .unwrap_or(hay.len());
            out.push((chars[i].0, end));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflow_joins_paragraph_lines_and_keeps_short_ones() {
        let page = "A Title\n\n1 Introduction\nThis is a long line of body text that fills it\n\
                    and its paragraph goes on to the next line of text\nwhere it ends.\n\n\
                    Next paragraph starts here and is long enough too.\n\
                    • an item line that is long enough to count as full\n\
                    • another one";
        let flowed = reflow(page.to_string());
        assert_eq!(flowed.len(), page.len());
        assert_eq!(
            flowed,
            "A Title\n\n1 Introduction\nThis is a long line of body text that fills it \
             and its paragraph goes on to the next line of text where it ends.\n\n\
             Next paragraph starts here and is long enough too.\n\
             • an item line that is long enough to count as full\n\
             • another one"
        );
    }

    /// Code the extractor kept indented keeps its line breaks, and so does a lead-in line.
    #[test]
    fn reflow_keeps_indented_code_lines() {
        let page = "The function below reads a whole file into a string buffer first:\n\
                    fn main() {\n\
                    \x20   let text = std::fs::read_to_string(\"a long file name.txt\");\n\
                    \x20   println!(\"{text:?} and some more words to make it long\");\n\
                    }";
        assert_eq!(reflow(page.to_string()), page);
    }

    /// A colon at a line's end leads into a list, unless the sentence runs on after it.
    #[test]
    fn reflow_joins_a_sentence_that_runs_on_after_a_colon() {
        let page = "We compare two retrievers on a benchmark of questions. Neither wins everywhere:\n\
                    the dense model is better on definitions, the lexical one on identifiers.\n\
                    The results fall into three groups of questions asked by readers:\n\
                    Definitions of terms that the paper introduces in its own words.";
        assert_eq!(
            reflow(page.to_string()),
            "We compare two retrievers on a benchmark of questions. Neither wins everywhere: \
             the dense model is better on definitions, the lexical one on identifiers. \
             The results fall into three groups of questions asked by readers:\n\
             Definitions of terms that the paper introduces in its own words."
        );
    }

    #[test]
    fn wraps_by_display_width() {
        let rows = wrap("漢字漢字漢字 abc", 6);
        let text = "漢字漢字漢字 abc";
        let parts: Vec<&str> = rows.iter().map(|r| &text[r.start..r.end]).collect();
        assert_eq!(parts, vec!["漢字漢", "字漢字 ", "abc"]);
        for p in &parts {
            assert!(str_width(p.trim_end()) <= 6);
        }
    }

    #[test]
    fn wraps_at_spaces_and_keeps_blank_lines() {
        let t = "the quick brown fox\n\njumps";
        let rows = wrap(t, 10);
        let parts: Vec<&str> = rows.iter().map(|r| &t[r.start..r.end]).collect();
        assert_eq!(parts, vec!["the quick ", "brown fox", "", "jumps"]);
    }

    #[test]
    fn finds_case_insensitively() {
        assert_eq!(find_all("Ab ab AB", "ab").len(), 3);
    }
}
