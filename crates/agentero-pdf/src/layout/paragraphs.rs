//! Lines into paragraphs: blank lines between blocks, hyphenation undone, CJK lines joined
//! without spaces, code lines kept as they are.

use super::{Line, ParagraphParams, TextBox, shift_into};

/// Lines of one region joined into paragraphs (blank line between them), with hyphenated
/// line ends rejoined; the lines' cells follow, at offsets in the joined text.
/// Code keeps at most `max_indent` spaces of indentation.
pub(super) fn paragraphs(
    mut lines: Vec<Line>,
    p: &ParagraphParams,
    max_indent: usize,
) -> (String, Vec<TextBox>) {
    if lines.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut deltas: Vec<f32> = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|d| *d > 0.0 && d.is_finite())
        .collect();
    deltas.sort_by(f32::total_cmp);
    // Line pitch inside paragraphs is the common case; one delta alone says nothing.
    let typical = (deltas.len() >= p.min_pitches).then(|| deltas[(deltas.len() - 1) / 2]);
    let left = lines.iter().map(|l| l.x0).fold(f32::INFINITY, f32::min);
    let mut sizes: Vec<f32> = lines.iter().map(|l| l.size).filter(|s| *s > 0.0).collect();
    sizes.sort_by(f32::total_cmp);
    let body_size = sizes.get(sizes.len() / 2).copied().unwrap_or(0.0);

    // Code: consecutive lines in one monospaced font keep their indentation, measured in
    // characters from the block's leftmost line, and their line breaks.
    let same_mono = |a: &Line, b: &Line| match (a.mono, b.mono) {
        (Some(x), Some(y)) => (x - y).abs() <= p.same_mono * x.max(y),
        _ => false,
    };
    let mut code = vec![false; lines.len()];
    let mut indents = vec![0usize; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        let start = i;
        while i + 1 < lines.len() && same_mono(&lines[i], &lines[i + 1]) {
            i += 1;
        }
        if i == start || !lines[start..=i].iter().any(|l| l.mono_proven) {
            i += 1;
            continue;
        }
        code[start..=i].fill(true);
        let base = lines[start..=i]
            .iter()
            .map(|l| l.x0)
            .fold(f32::INFINITY, f32::min);
        // Every line of the run is monospaced (`same_mono` holds only between such lines).
        for k in start..=i {
            if let Some(cw) = lines[k].mono {
                let most = max_indent as f32;
                indents[k] = ((lines[k].x0 - base) / cw).round().clamp(0.0, most) as usize;
            }
        }
        i += 1;
    }

    // Paragraph breaks first, so hyphenation never joins across them.
    let mut breaks = vec![false; lines.len()];
    for i in 1..lines.len() {
        let (pl, l) = (&lines[i - 1], &lines[i]);
        let delta = pl.y - l.y;
        let size = pl.size.max(l.size);
        // Lines set larger than the body (a two-line title) are spaced wider in proportion
        // (never narrower: the scale is at least one).
        let same_size = (pl.size - l.size).abs() < p.same_size * size;
        let scale = if same_size && body_size > 0.0 {
            (size / body_size).max(1.0)
        } else {
            1.0
        };
        let gap_break = match typical.map(|t| t * scale) {
            Some(t) => delta > p.gap_pitches * t && delta > t + p.gap_extra * size,
            None => delta > p.gap_lone * size,
        } || delta < -p.max_rise * size;
        // A first-line indent, not a hanging indent: the line after it is back at the margin.
        let indent = l.x0 - left;
        let back_at_margin = lines
            .get(i + 1)
            .is_none_or(|n| n.x0 - left < p.margin * n.size);
        let indent_break = indent > p.min_indent * l.size
            && indent < p.max_indent * l.size
            && (pl.x0 - left) < p.margin * l.size
            && back_at_margin;
        breaks[i] = gap_break || (indent_break && !(code[i] && code[i - 1]));
    }

    for i in 0..lines.len().saturating_sub(1) {
        if breaks[i + 1] {
            continue;
        }
        if !code[i]
            && !code[i + 1]
            && ends_with_hyphenated_word(&lines[i].text)
            && starts_lowercase(&lines[i + 1].text)
        {
            let next = std::mem::take(&mut lines[i + 1].text);
            let (word, rest) = match next.split_once(' ') {
                Some((w, r)) => (w.to_string(), r.to_string()),
                None => (next.clone(), String::new()),
            };
            // The first word moves up (the hyphen goes), and its cells with it.
            let moved = next.len() - rest.len();
            let next_cells = std::mem::take(&mut lines[i + 1].cells);
            let cur = &mut lines[i];
            cur.text.pop();
            let base = cur.text.len();
            cur.cells.retain(|c| (c.at as usize) < base);
            cur.text.push_str(&word);
            let (up, stay): (Vec<TextBox>, Vec<TextBox>) = next_cells
                .into_iter()
                .partition(|c| (c.at as usize) < word.len());
            shift_into(&mut cur.cells, up, base);
            lines[i + 1].cells = stay
                .into_iter()
                .filter(|c| c.at as usize >= moved)
                .map(|c| TextBox {
                    at: c.at - moved as u32,
                    ..c
                })
                .collect();
            lines[i + 1].text = rest;
        }
    }

    let mut out = String::new();
    let mut cells = Vec::new();
    let mut pending_break = false;
    for (i, l) in lines.into_iter().enumerate() {
        if breaks[i] {
            pending_break = true;
        }
        if l.text.is_empty() {
            continue;
        }
        if !out.is_empty() {
            if pending_break {
                out.push_str("\n\n");
            } else if code[i] || !(ends_in_cjk_word(&out) && starts_cjk_word(&l.text)) {
                out.push('\n');
            }
        }
        pending_break = false;
        out.extend(std::iter::repeat_n(' ', indents[i]));
        shift_into(&mut cells, l.cells, out.len());
        out.push_str(&l.text);
    }
    (out, cells)
}

/// Han characters, kana and the CJK punctuation and full-width forms set among them: Chinese and
/// Japanese break lines anywhere, so a line break between two of them is no word break at all.
/// (Korean puts spaces between words, and breaks lines at them.)
pub(super) fn is_cjk_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF | 0xFF01..=0xFF60 | 0xFF61..=0xFF9F | 0x20000..=0x2FA1F)
        && c != '\u{3000}'
}

pub(super) fn ends_in_cjk_word(s: &str) -> bool {
    s.chars().next_back().is_some_and(is_cjk_unspaced)
}

pub(super) fn starts_cjk_word(s: &str) -> bool {
    s.chars().next().is_some_and(is_cjk_unspaced)
}

pub(super) fn ends_with_hyphenated_word(s: &str) -> bool {
    let mut it = s.chars().rev();
    matches!(it.next(), Some('-' | '\u{2010}')) && it.next().is_some_and(char::is_alphabetic)
}

pub(super) fn starts_lowercase(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_lowercase)
}
