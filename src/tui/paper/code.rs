//! Code stays code in the text view: a PDF page's listings, verbatim blocks and tables keep
//! the lines the page text gives them (the reflow joins prose only), and a long one is cut at
//! the pane's edge with a marker instead of wrapping into prose; `z h`/`z l` scroll those
//! lines across.

pub use crate::tui::text::is_code;
use crate::tui::text::{self, Row, char_width};

/// Columns one `z h`/`z l` scrolls by.
pub const SHIFT_STEP: usize = 8;
/// The mark drawn in the last column of a code line that goes on past the pane.
pub const CUT_MARK: &str = "›";

/// The rows of a PDF page's text at `width` cells: prose wraps, a code line is one row that
/// starts `shift` columns in and is cut at the edge (its last cell left for [`CUT_MARK`]).
/// The second value says which rows are cut.
pub fn rows(text: &str, width: usize, shift: usize) -> (Vec<Row>, Vec<bool>) {
    let width = width.max(4);
    let mut rows = Vec::new();
    let mut cut = Vec::new();
    let mut offset = 0;
    for (line_no, line) in text.split('\n').enumerate() {
        if is_code(line) && text::str_width(line) > width {
            let (start, end, more) = window(line, shift, width);
            rows.push(Row {
                line: line_no,
                start: offset + start,
                end: offset + end,
            });
            cut.push(more);
        } else {
            for mut r in text::wrap(line, width) {
                r.line = line_no;
                r.start += offset;
                r.end += offset;
                rows.push(r);
                cut.push(false);
            }
        }
        offset += line.len() + 1;
    }
    (rows, cut)
}

/// The bytes of `line` from `shift` columns in, `width` cells wide (one fewer when more
/// follows, for the mark), and whether more follows.
fn window(line: &str, shift: usize, width: usize) -> (usize, usize, bool) {
    let total = text::str_width(line);
    // Never scrolled so far that the line's end leaves the pane's right part.
    let shift = shift.min(total.saturating_sub(width - 1));
    let (mut used, mut start) = (0, line.len());
    for (i, c) in line.char_indices() {
        if used >= shift {
            start = i;
            break;
        }
        used += char_width(c);
    }
    let rest = &line[start..];
    if text::str_width(rest) <= width {
        return (start, line.len(), false);
    }
    let mut w = 0;
    for (i, c) in rest.char_indices() {
        if w + char_width(c) > width - 1 {
            return (start, start + i, true);
        }
        w += char_width(c);
    }
    (start, line.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_tables_and_prose_are_told_apart() {
        for code in [
            "  for (i = 0; i < n; i++)",
            "def reflow(text):",
            "x = f(a[i], b[j]) + g(c);",
            "}",
            "// the comment before the listing",
            "\\begin{verbatim}",
            // Listing lines with a comment after the statement, as a wide pane used to join.
            "v1 := ld state[764] // load k",
            "v2 := i2f(v1) // convert to float",
            // Assembly and printed sessions.
            "mov eax, [ebx+4]",
            "add r1, r2, #4 ; bump",
            "R> z <- zoo(x, order.by = index)",
            "> plot(ocus, boundary = FALSE)",
        ] {
            assert!(is_code(code), "{code:?}");
        }
        for prose in [
            "The method of [12] (see Fig. 3) works well on two-column layouts and",
            "Results show that the reading order is recovered in most cases.",
            "Return values are discussed in Section 4.",
            "from 6.4 to 1.9 percent, at 38 milliseconds per page on a single",
            "class of methods that read the page twice",
            // Commas between words, not operands; a URL is no comment.
            "in 2004, we found that the method works, and",
            "see http://www.jstatsoft.org/v07/i02/ for the data set",
            "and, in turn, the index",
            "",
        ] {
            assert!(!is_code(prose), "{prose:?}");
        }
    }

    #[test]
    fn a_long_code_line_is_cut_and_scrolls_and_prose_wraps() {
        let text = "Prose that is long enough to wrap at twenty cells.\n    let answer = compute(the_question, with_care);\nend";
        let (rows, cut) = rows(text, 20, 0);
        let shown: Vec<&str> = rows.iter().map(|r| &text[r.start..r.end]).collect();
        let code = shown.iter().position(|s| s.contains("let")).unwrap();
        assert_eq!(shown[code], "    let answer = co");
        assert!(cut[code]);
        assert_eq!(rows.iter().filter(|r| r.line == 1).count(), 1);
        assert!(
            rows.iter().filter(|r| r.line == 0).count() > 1,
            "prose wraps"
        );
        // Scrolled across: the line's middle, then its end without a mark.
        let (rows, cut) = super::rows(text, 20, 8);
        assert_eq!(
            &text[rows[code].start..rows[code].end],
            "answer = compute(th"
        );
        assert!(cut[code]);
        let (rows, cut) = super::rows(text, 20, 500);
        assert!(text[rows[code].start..rows[code].end].ends_with("with_care);"));
        assert!(!cut[code]);
    }

    /// The reflow joins a PDF's prose lines, never a listing's: the comment before a listing
    /// and its first line stay two lines although the comment fills the column.
    #[test]
    fn the_reflow_keeps_a_listing_apart_from_the_comment_before_it() {
        let page = "Prose line one that fills the column up to its end\n\
                    prose line two that fills the column up to its end\n\
                    // The comment before the listing fills it too....\n\
                    let total = compute(the_question, with_care);\n\
                    Prose after the listing that fills the column up to\n\
                    its end.";
        let out = text::reflow(page.to_string());
        assert_eq!(out.len(), page.len(), "offsets hold");
        assert!(out.starts_with("Prose line one that fills the column up to its end prose"));
        assert!(out.contains("fills it too....\nlet total"), "{out}");
        assert!(out.contains("with_care);\nProse after"), "{out}");
    }
}
