//! What a piece of a page is, from its shape and its place on the page: body text, a caption, a
//! footnote, a reference-list entry, a running header or footer, or a table row. The ranking
//! quotes body text before the others unless the question asks for them by name ("which
//! figure…", "what does reference [3]…", "the footnote…"), and quotes table rows on their own
//! (a row is where a table's number is). Pure functions over the page text the context server
//! gives (lines in reading order, blocks parted by blank lines); no font sizes are in it.

use super::apparatus::{self, is_reference_heading};
use super::text::{sentences, starts_with_unit};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Body,
    /// "Figure 2. …", "TABLE I. …", "图 3: …".
    Caption,
    /// A marked note in the last blocks of a page ("1 When re-installing…", "† …").
    Footnote,
    /// An entry of a reference list ("[3] A. Author, …", anything after a "References" heading).
    Reference,
    /// A page's running header or footer (a short line with the page number).
    Running,
    /// A line of a table: a name or label followed by two or more numbers.
    TableRow,
    /// A table of contents, a title page's author list or affiliation.
    FrontMatter,
    /// A line of a program typed at a console prompt ("> fit <- lm(y ~ x)", "+ data = d").
    Code,
    /// A line a program printed after it ("[1] 0.8279847", a printed table): text that holds
    /// the value the code before it computes.
    Output,
}

/// A quotable piece of a page, in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    pub text: String,
    pub shape: Shape,
}

/// What the question asks for by name: the shapes that are then not ranked down.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Asks {
    pub caption: bool,
    pub footnote: bool,
    pub reference: bool,
}

fn has_word(lower: &str, words: &[&str]) -> bool {
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| words.contains(&w))
}

pub fn asks(question: &str) -> Asks {
    let lower = question.to_lowercase();
    Asks {
        caption: has_word(
            &lower,
            &[
                "figure",
                "figures",
                "fig",
                "caption",
                "captions",
                "table",
                "tables",
                "listing",
                "algorithm",
                "plot",
                "chart",
                "diagram",
            ],
        ) || ["图", "図", "表", "그림", "표 "]
            .iter()
            .any(|c| lower.contains(c)),
        footnote: has_word(&lower, &["footnote", "footnotes", "note", "notes"])
            || ["脚注", "注释", "각주"].iter().any(|c| lower.contains(c)),
        reference: has_word(
            &lower,
            &[
                "reference",
                "references",
                "bibliography",
                "cite",
                "cites",
                "cited",
                "citation",
                "citations",
            ],
        ) || lower.contains('[')
            || ["参考文献", "文献", "참고"]
                .iter()
                .any(|c| lower.contains(c)),
    }
}

/// The words a caption starts with (then a number).
const CAPTION_CUES: &[&str] = &[
    "figure",
    "fig.",
    "fig",
    "table",
    "tab.",
    "listing",
    "algorithm",
    "chart",
    "plate",
    "scheme",
    "video",
    "续表",
    "图",
    "表",
    "図",
    "그림",
    "표",
];

/// "Figure 2.", "FIG. 1.", "TABLE IV:", "图 3:", "表 2 国内…": a caption cue, a number (Arabic or
/// Roman), then (after a Latin cue) a stop or a colon — "Fig. 2 has …" and "Table 1 shows …" are
/// text that names a figure.
pub fn is_caption(s: &str) -> bool {
    let lower = s.trim_start().to_lowercase();
    CAPTION_CUES.iter().any(|cue| {
        let Some(rest) = lower.strip_prefix(cue) else {
            return false;
        };
        let latin = cue.is_ascii();
        if latin && rest.chars().next().is_some_and(char::is_alphabetic) {
            return false; // "Tables of …"
        }
        let rest = rest.trim_start();
        let arabic: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let arabic = arabic.trim_end_matches('.');
        let num = if arabic.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            arabic.to_string()
        } else {
            let roman: String = rest
                .chars()
                .take_while(|c| matches!(c, 'i' | 'v' | 'x' | 'l'))
                .collect();
            if roman.is_empty() || roman.len() > 5 {
                return false;
            }
            roman
        };
        let after = rest[num.len()..].chars().next();
        if latin {
            after.is_none_or(|c| matches!(c, '.' | ':' | '—' | '–' | '|'))
        } else {
            after.is_none_or(|c| !c.is_ascii_alphanumeric())
        }
    })
}

/// A footnote mark at the start of a line: a small number or a note symbol, then the note.
fn starts_with_note_mark(line: &str) -> bool {
    let t = line.trim_start();
    let mut chars = t.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if matches!(
        first,
        '*' | '†' | '‡' | '§' | '¶' | '∗' | '¬' | '\u{ad}' | '®' | '¯' | '°' | '⋆' | '♯' | '♭'
    ) {
        return t.chars().count() > 3;
    }
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 2 {
        return false;
    }
    let rest = &t[digits.len()..];
    // "1 When re-installing", "3 reinstallation of …", "4 2016 年以前…", "2 https://…"; not
    // "4 pt", "70 页" (a number with its unit is text).
    let rest_t = rest.trim_start();
    rest.starts_with(' ') && rest_t.chars().count() >= 8 && !starts_with_unit(rest_t)
}

/// A block that may be a reference-list entry: it starts with a label ("[3]", "12.") or names a
/// year, as entries do.
fn looks_like_entry(block: &str) -> bool {
    let t = block.trim_start();
    let year = t.as_bytes().windows(4).any(|w| {
        (w.starts_with(b"19") || w.starts_with(b"20")) && w.iter().all(u8::is_ascii_digit)
    });
    t.starts_with('[') || t.chars().next().is_some_and(|c| c.is_ascii_digit()) || year
}

/// "[12] A. Author, …", "[Knu84] …".
fn is_reference_entry(s: &str) -> bool {
    let t = s.trim_start();
    let Some(rest) = t.strip_prefix('[') else {
        return false;
    };
    let Some(end) = rest.find(']') else {
        return false;
    };
    let label = &rest[..end];
    !label.is_empty()
        && label.chars().count() <= 12
        && label
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '+' | '-' | ',' | ' '))
        && rest[end + 1..].trim_start().chars().count() >= 10
}

/// A number token: digits with decimal points, signs, units glued on ("0.800", "10.95pt", "45%").
fn is_numeric(token: &str) -> bool {
    let t = token.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | ';'));
    let mut chars = t.chars();
    let first = chars.next();
    let starts = first.is_some_and(|c| c.is_ascii_digit())
        || matches!(first, Some('-' | '−' | '+' | '.'))
            && chars.next().is_some_and(|c| c.is_ascii_digit());
    starts
        && t.chars()
            .filter(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '−' | '+' | '%'))
            .count()
            * 2
            >= t.chars().count()
}

/// A table row: a line with two or more numbers that make up much of it, and no sentence in it.
pub fn is_table_row(line: &str) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.len() < 3 || tokens.len() > 40 {
        return false;
    }
    let numbers = tokens.iter().filter(|t| is_numeric(t)).count();
    let t = line.trim_end();
    numbers >= 2 && numbers * 3 >= tokens.len() && !t.ends_with(['.', ':', ';', '。']) || {
        // A row of sizes ("\small 9pt 10pt 10.95pt"): a label, then cells that are all numbers.
        numbers >= 2 && numbers + 1 == tokens.len()
    }
}

/// The prompts a console shows before a line typed into it (R, R in the JSS style, Python).
const PROMPTS: &[&str] = &["> ", "R> ", ">>> "];

/// A line of prose: a capital, then four words or more that are mostly letters. Prose ends the
/// output of a program ("First, the lower triangular of the matrix is needed. The").
fn is_prose_line(t: &str) -> bool {
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let total = t.chars().filter(|c| !c.is_whitespace()).count().max(1);
    t.starts_with(|c: char| c.is_uppercase())
        && t.split_whitespace().count() >= 4
        && letters * 4 >= total * 3
}

/// What a line of a console session is, if it is one: typed at a prompt (or continuing a typed
/// line, "+ …"), or printed by the program — an R index ("[1] 0.8279847") anywhere after a
/// prompt or before numbers only, or any line after a prompt that is not prose.
/// `in_session` is whether a prompt line came before in the block (and no prose since).
fn console_line(t: &str, in_session: bool) -> Option<Shape> {
    if PROMPTS.iter().any(|p| t.starts_with(p)) || in_session && t.starts_with("+ ") {
        return Some(Shape::Code);
    }
    let index = t
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        .map(|(_, rest)| rest);
    let printed_numbers =
        index.is_some_and(|r| !r.trim().is_empty() && r.split_whitespace().all(is_numeric));
    if printed_numbers || in_session && !is_prose_line(t) {
        return Some(Shape::Output);
    }
    None
}

/// Whether a console session goes on after line `t` (what [`console_line`] found it to be): a
/// typed line starts or continues one, prose ends it.
fn still_in_session(line: Option<Shape>, in_session: bool, t: &str) -> bool {
    match line {
        Some(Shape::Code) => true,
        Some(_) => in_session,
        None => in_session && !is_prose_line(t),
    }
}

/// The first word of a line, for telling list lines apart ("i collection-basic: …" → "i").
fn first_word(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

/// The lines of a block that are entries of a list or a table without numbers: three or more
/// lines in a row that each hold a web address, or that each start with the same word
/// ("i collection-…", "tlmgr …"), none of them long. Each is quoted on its own, not glued into
/// one sentence with the others.
fn list_lines(lines: &[&str]) -> Vec<bool> {
    let mut out = vec![false; lines.len()];
    let fits = |l: &str| {
        let t = l.trim();
        !t.is_empty() && t.chars().count() <= 120
    };
    let mut i = 0;
    while i < lines.len() {
        let url = |l: &str| l.contains("://");
        let head = first_word(lines[i]);
        let mut j = i;
        if url(lines[i]) {
            while j < lines.len() && fits(lines[j]) && url(lines[j]) {
                j += 1;
            }
        } else if head.chars().any(char::is_alphanumeric)
            && head.chars().count() <= 12
            && !head.ends_with('.')
        {
            // (A bullet is not such a word: a bullet item wraps onto lines of its own.)
            while j < lines.len()
                && fits(lines[j])
                && first_word(lines[j]) == head
                && lines[j].split_whitespace().count() >= 2
            {
                j += 1;
            }
        }
        if j - i >= 3 {
            out[i..j].iter_mut().for_each(|x| *x = true);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// A running header or footer line: short, with the page number (or a section number) at one
/// end ("2 我们需要 TEX 2", "§3.9 浮动体 35", "4.4 update 4 操作", "12").
fn is_running_line(line: &str) -> bool {
    let t = line.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 9 || t.chars().count() > 70 || t.ends_with('.') {
        return false;
    }
    let num = |w: &str| {
        let w = w.trim_start_matches('§');
        !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.')
    };
    words.len() == 1 && num(words[0])
        || words.len() >= 2 && (num(words[0]) || num(words[words.len() - 1]))
}

/// The sentences of reference-list lines, as references.
fn push_entries(entries: &mut String, out: &mut Vec<Unit>) {
    for s in sentences(entries) {
        out.push(Unit {
            text: s,
            shape: Shape::Reference,
        });
    }
    entries.clear();
}

/// The units of a page: sentences of its text (as [`sentences`] cuts them), table rows as
/// units of their own, each with its shape.
pub fn units(text: &str) -> Vec<Unit> {
    let blocks: Vec<&str> = text
        .split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .collect();
    let n = blocks.len();
    // Footnotes are the last blocks of a page, each starting with a mark (a page number line
    // may close the page after them).
    let mut note_from = n;
    for i in (0..n).rev() {
        let first = blocks[i]
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        if i + 1 == n && is_running_line(first) && blocks[i].lines().count() == 1 {
            note_from = i;
            continue;
        }
        if starts_with_note_mark(first) && i * 2 >= n.saturating_sub(1) && i > 0 {
            note_from = i;
        } else {
            break;
        }
    }
    // The page's lines (a blank one between blocks) that are a reference list or a contents
    // list, found over the whole page: a list runs on over blocks.
    let flat: Vec<&str> = blocks
        .iter()
        .enumerate()
        .flat_map(|(bi, b)| (bi > 0).then_some("").into_iter().chain(b.lines()))
        .collect();
    let listed_refs = apparatus::reference_lines(&flat);
    let contents = apparatus::contents_lines(&flat);
    let mut at = 0;
    let mut out: Vec<Unit> = Vec::new();
    let mut in_references = false;
    for (bi, block) in blocks.iter().enumerate() {
        let lines: Vec<&str> = block.lines().collect();
        if bi > 0 {
            at += 1; // the blank line between blocks
        }
        let first_line = at;
        at += lines.len();
        let mut rest = String::new();
        // Under a "References" heading, the list runs while blocks look like entries; prose
        // (a style guide's section about references) ends it.
        if in_references && !looks_like_entry(block) {
            in_references = false;
        }
        let block_shape = if bi >= note_from {
            Some(Shape::Footnote)
        } else if in_references {
            Some(Shape::Reference)
        } else {
            None
        };
        // Only a caption's first sentence is taken for the caption: what follows it in the same
        // block may be body text the extraction joined to it.
        let flush = |rest: &mut String, out: &mut Vec<Unit>| {
            for s in sentences(rest) {
                let shape = block_shape.unwrap_or_else(|| {
                    if is_caption(&s) {
                        Shape::Caption
                    } else if is_reference_entry(&s) {
                        Shape::Reference
                    } else {
                        Shape::Body
                    }
                });
                out.push(Unit { text: s, shape });
            }
            rest.clear();
        };
        let listed = list_lines(&lines);
        let mut entries = String::new();
        let mut in_session = false;
        for (li, line) in lines.iter().enumerate() {
            let t = line.trim();
            if is_reference_heading(t) {
                flush(&mut rest, &mut out);
                in_references = true;
                continue;
            }
            // A line of a reference list or of a contents list: the list's, never the body's.
            let (is_entry, is_contents) = (listed_refs[first_line + li], contents[first_line + li]);
            if is_entry || is_contents {
                flush(&mut rest, &mut out);
                if is_contents {
                    out.push(Unit {
                        text: t.split_whitespace().collect::<Vec<_>>().join(" "),
                        shape: Shape::FrontMatter,
                    });
                } else {
                    entries.push_str(line);
                    entries.push('\n');
                }
                continue;
            }
            if !entries.is_empty() {
                push_entries(&mut entries, &mut out);
            }
            let first_on_page = bi == 0 && li == 0;
            if first_on_page && is_running_line(t) && lines.len() > 1 {
                out.push(Unit {
                    text: t.split_whitespace().collect::<Vec<_>>().join(" "),
                    shape: Shape::Running,
                });
                continue;
            }
            // A console session's lines are units of their own: what was typed, and what the
            // program printed (the value a question asks for is often only there).
            let console = block_shape
                .is_none()
                .then(|| console_line(t, in_session))
                .flatten();
            in_session = still_in_session(console, in_session, t);
            if let Some(shape) = console {
                flush(&mut rest, &mut out);
                out.push(Unit {
                    text: t.split_whitespace().collect::<Vec<_>>().join(" "),
                    shape,
                });
                continue;
            }
            if block_shape.is_none() && (listed[li] || is_table_row(t)) {
                flush(&mut rest, &mut out);
                out.push(Unit {
                    text: t.split_whitespace().collect::<Vec<_>>().join(" "),
                    shape: Shape::TableRow,
                });
                continue;
            }
            rest.push_str(line);
            rest.push('\n');
        }
        flush(&mut rest, &mut out);
        push_entries(&mut entries, &mut out);
    }
    // A lone block that is the whole page's last line with a number is its footer.
    if let Some(last) = out.last_mut()
        && last.shape == Shape::Footnote
        && is_running_line(&last.text)
    {
        last.shape = Shape::Running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(text: &str) -> Vec<(String, Shape)> {
        units(text).into_iter().map(|u| (u.text, u.shape)).collect()
    }

    #[test]
    fn captions_are_told_from_text_that_names_a_figure() {
        assert!(is_caption("FIG. 1. A figure caption."));
        assert!(is_caption("TABLE IV. A table with numerous columns."));
        assert!(is_caption("Figure 12: Results"));
        assert!(is_caption("图 1: TEX 和 MS Word 在设计意图上的比较"));
        assert!(is_caption("表 3: 大陆地区目前可用的源"));
        assert!(!is_caption(
            "Figures and tables are usually allowed to float."
        ));
        assert!(!is_caption("Table captions are numbered automatically."));
        assert!(!is_caption(
            "Fig. 2 has content that is too wide for a column."
        ));
        assert!(!is_caption("Table 1 shows the sizes."));
        assert!(!is_caption("The table below lists 4 values."));
    }

    #[test]
    fn table_rows_are_lines_of_numbers() {
        assert!(is_table_row("Ag 0.990 15.90 2.710 Pbb 0.450 1.930 3.760"));
        assert!(is_table_row("\\small 9pt 10pt 10.95pt"));
        assert!(is_table_row("1 2 3.001 4"));
        assert!(!is_table_row(
            "We slide a window of 150 words over each page."
        ));
        assert!(!is_table_row("In 2016 and 2017 the format changed."));
    }

    #[test]
    fn list_lines_are_units_of_their_own() {
        let page = "The mirrors are listed below.\n\n阿里云 https://mirrors.aliyun.com/CTAN/\n北京交通大学 https://mirror.bjtu.edu.cn/ctan/\n清华大学 https://mirrors.tuna.tsinghua.edu.cn/CTAN/\n\ni collection-basic: Essential programs and files\ni collection-langcjk: Chinese/Japanese/Korean (base)\ni collection-latex: LaTeX fundamental packages";
        let s = shapes(page);
        assert_eq!(s.len(), 7, "{s:?}");
        assert_eq!(
            s[3].0,
            "清华大学 https://mirrors.tuna.tsinghua.edu.cn/CTAN/"
        );
        assert!(s[1..].iter().all(|(_, sh)| *sh == Shape::TableRow), "{s:?}");
        // Bullet items that wrap are not a list of lines.
        let bullets = "• Check that the margins are within\n±1 mm of the given size.\n• Use the fonts given\nin the template.\n• Embed the fonts.";
        assert!(shapes(bullets).iter().all(|(_, s)| *s == Shape::Body));
        // Lines of a paragraph are not a list.
        let para = "Text of a paragraph that wraps\nonto a second line of the page\nand a third line that ends here.";
        assert_eq!(shapes(para).len(), 1);
    }

    #[test]
    fn a_console_session_is_typed_lines_and_printed_lines() {
        let page = "We are interested in the probability P(X1 < 1).\nThis is computed as follows:\n> library(mvtnorm)\n> pmvnorm(mean=rep(0, m), sigma,\n+ upper=c(1,4,2))\n[1] 0.8279847\nattr(,\"error\")\n[1] 4.712588e-07\nFirst, the lower triangular of the matrix sigma is\nneeded. The mean is passed by the argument mean.";
        let s = shapes(page);
        let of = |shape: Shape| -> Vec<&str> {
            s.iter()
                .filter(|(_, sh)| *sh == shape)
                .map(|(t, _)| t.as_str())
                .collect()
        };
        assert_eq!(
            of(Shape::Code),
            [
                "> library(mvtnorm)",
                "> pmvnorm(mean=rep(0, m), sigma,",
                "+ upper=c(1,4,2))"
            ],
            "{s:?}"
        );
        assert_eq!(
            of(Shape::Output),
            ["[1] 0.8279847", "attr(,\"error\")", "[1] 4.712588e-07"],
            "{s:?}"
        );
        assert_eq!(
            of(Shape::Body),
            [
                "We are interested in the probability P(X1 < 1).",
                "This is computed as follows:",
                "First, the lower triangular of the matrix sigma is needed.",
                "The mean is passed by the argument mean."
            ],
            "{s:?}"
        );
        // Without a prompt, an index before numbers is still printed output; a reference
        // entry is not.
        assert_eq!(
            shapes("The quartiles of the sample are printed:\n[1] 0.25 0.5")[1].1,
            Shape::Output
        );
        assert_ne!(
            shapes("[1] D. E. Knuth, The TeXbook, 1984.")[0].1,
            Shape::Output
        );
    }

    #[test]
    fn a_sentence_may_start_with_a_tex_command() {
        // A page that starts inside a sentence of the page before: its first words are a
        // unit of their own, apart from the sentence after them.
        let page = "of these values to \\interactionmode changes the mode; such assignments are always global.\n\\currentgrouplevel returns the current save group level, e.g. \\emph{one}.";
        let s = shapes(page);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(s[1].0.starts_with("\\currentgrouplevel returns"), "{s:?}");
    }

    #[test]
    fn footnotes_are_the_marked_blocks_at_the_end_of_a_page() {
        let page = "4.4 update 4 操作\nBody text of the page starts here and goes on.\n\nMore body text: 4 pt type is used for 2 things.\n\n1 When re-installing, only dependencies on normal packages are followed.\n\n2 It has to be this way, without major rearchitecture work.\n\n10";
        let s = shapes(page);
        assert_eq!(s[0].1, Shape::Running, "{s:?}");
        assert_eq!(s[1].1, Shape::Body, "{s:?}");
        assert_eq!(s[2].1, Shape::Body, "{s:?}");
        assert!(
            s[3].0.starts_with("1 When") && s[3].1 == Shape::Footnote,
            "{s:?}"
        );
        assert_eq!(s[4].1, Shape::Footnote, "{s:?}");
    }

    #[test]
    fn a_numbered_paragraph_in_the_body_is_not_a_footnote() {
        let page = "Intro text of the page that is long enough.\n\n2 Related work follows in this section of the paper.\n\nThe last paragraph is body text again.";
        assert!(shapes(page).iter().all(|(_, s)| *s == Shape::Body));
    }

    #[test]
    fn reference_lists_are_references() {
        let page = "The end of the conclusion is here.\n\nReferences\n\n[1] D. E. Knuth, The TeXbook, Addison-Wesley, 1984.\n\n[2] L. Lamport, LaTeX: A Document Preparation System, 1994.";
        let s = shapes(page);
        assert_eq!(s[0].1, Shape::Body);
        assert!(
            s[1..].iter().all(|(_, sh)| *sh == Shape::Reference),
            "{s:?}"
        );
        assert!(is_reference_entry(
            "[12] A. Author, A title of a paper, 2001."
        ));
    }

    #[test]
    fn a_section_about_references_is_body_text() {
        let page = "References\n\nAll references should be numbered and listed at the end of the paper.\n\nFootnotes\n\nAll footnotes are of 8pt font size.";
        assert!(
            shapes(page).iter().all(|(_, s)| *s == Shape::Body),
            "{:?}",
            shapes(page)
        );
    }

    #[test]
    fn the_question_names_what_it_asks_for() {
        assert!(asks("Which figure shows the layout?").caption);
        assert!(asks("What does reference [3] describe?").reference);
        assert!(asks("What does the footnote on page 2 say?").footnote);
        assert_eq!(asks("How wide are the columns?"), Asks::default());
    }
}
