//! Drawing pieces every surface uses: pane frames, popups, modals, chips, cut-off text.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use ratatui_textarea::TextArea;

use super::chips::Chip;
use super::text::{char_width, str_width};
use super::theme::Theme;

/// The context chips of a question; `mark` follows each label (removable chips show `✕`).
pub fn chip_spans(chips: &[Chip], theme: &Theme, mark: &str) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for chip in chips {
        let key = if matches!(chip, Chip::Selection { .. }) {
            "ui.chip.selection"
        } else {
            "ui.chip"
        };
        spans.push(Span::styled(
            format!(" {} {mark}", chip.label()),
            theme.style(key),
        ));
        spans.push(Span::raw(" "));
    }
    spans
}

/// Chips never take more rows than this; what does not fit is counted as "+N".
pub const CHIP_ROWS: usize = 3;

/// The chips laid out in rows of `width` columns, each chip whole on one row (a chip wider
/// than a row is cut), at most `max_rows` rows: when they do not all fit, the last row ends
/// with "+N" for the N chips left out.
pub fn chip_lines(
    chips: &[Chip],
    theme: &Theme,
    mark: &str,
    width: usize,
    max_rows: usize,
) -> Vec<Line<'static>> {
    let spans = chip_spans(chips, theme, mark);
    // A chip wider than `room`: its label is cut, its mark (✕) kept.
    let chip_in = |i: usize, room: usize| -> Span<'static> {
        let s = &spans[2 * i];
        if str_width(&s.content) > room {
            let room = room.saturating_sub(2 + str_width(mark));
            let full = chips[i].label();
            // "reading papers/… p.3": the page stays, the path is what gets cut.
            let label = match full.rsplit_once(" p.") {
                Some((head, page))
                    if !page.is_empty() && page.chars().all(|c| c.is_ascii_digit()) =>
                {
                    let tail = format!(" p.{page}");
                    format!(
                        "{}{tail}",
                        truncate(head, room.saturating_sub(str_width(&tail)))
                    )
                }
                _ => truncate(&full, room),
            };
            Span::styled(format!(" {label} {mark}"), s.style)
        } else {
            s.clone()
        }
    };
    let widths: Vec<usize> = (0..chips.len())
        .map(|i| str_width(&chip_in(i, width).content))
        .collect();
    let (rows, more) = chip_layout(&widths, width, max_rows);
    let n = rows.len();
    rows.into_iter()
        .enumerate()
        .map(|(r, row)| {
            // The count is never cut: on the last row, the chips before it give way (the
            // last one's label is cut, its mark kept).
            let last = r + 1 == n && more > 0;
            let mut room = if last {
                width.saturating_sub(str_width(&format!("+{more}")) + 1)
            } else {
                width
            };
            let mut line: Vec<Span<'static>> = Vec::new();
            let mut left_out = more;
            for i in row {
                // Too little room for a letter of the label and the mark: counted instead.
                if last && room < 4 + str_width(mark) {
                    left_out += 1;
                    continue;
                }
                let chip = chip_in(i, room);
                room = room.saturating_sub(str_width(&chip.content) + 1);
                line.push(chip);
                line.push(Span::raw(" "));
            }
            if last {
                line.push(Span::styled(format!("+{left_out}"), theme.style("ui.dim")));
            }
            Line::from(fit_spans(line, width))
        })
        .collect()
}

/// How many rows [`chip_lines`] takes for these chips (`mark` as given to it).
pub fn chip_rows(chips: &[Chip], mark: &str, width: usize, max_rows: usize) -> usize {
    // " label mark", as chip_spans draws a chip.
    let widths: Vec<usize> = chips
        .iter()
        .map(|c| (str_width(&c.label()) + 2 + str_width(mark)).min(width))
        .collect();
    chip_layout(&widths, width, max_rows).0.len()
}

/// Chips of these widths in rows of `width` (one column between two chips), at most
/// `max_rows`: the chips of each row, and how many were left out.
fn chip_layout(widths: &[usize], width: usize, max_rows: usize) -> (Vec<Vec<usize>>, usize) {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, &w) in widths.iter().enumerate() {
        if rows.is_empty() || used + w > width {
            rows.push(Vec::new());
            used = 0;
        }
        rows.last_mut().expect("pushed").push(i);
        used += w + 1;
    }
    let max_rows = max_rows.max(1);
    let mut more = 0;
    if rows.len() > max_rows {
        more = rows[max_rows..].iter().map(Vec::len).sum::<usize>();
        rows.truncate(max_rows);
        // "+N" after the last row's chips: chips leave that row until it fits.
        let last = rows.last_mut().expect("max_rows >= 1");
        loop {
            let w: usize = last.iter().map(|&i| widths[i] + 1).sum();
            if w + str_width(&format!("+{more}")) <= width || last.len() <= 1 {
                break;
            }
            last.pop();
            more += 1;
        }
    }
    (rows, more)
}

/// Empties `area` for a popup, painted in the theme's text colours (a theme with a
/// background keeps it under popups too).
pub fn clear(f: &mut Frame, area: Rect, theme: &Theme) {
    f.render_widget(Clear, area);
    f.render_widget(Block::default().style(theme.style("ui.text")), area);
}

/// A pane's frame with its title, which goes through the terminal's gate: a control or bidi
/// character of a paper's title is shown escaped (ratatui drops ESC but writes a zero-width
/// character such as U+202E into the cell before it, where the terminal obeys it).
pub fn pane_block<'a>(title: String, focused: bool, theme: &Theme) -> Block<'a> {
    let title = crate::vault::visible::visible(&title).into_owned();
    Block::bordered()
        .title(Span::styled(title, theme.style("ui.title")))
        .border_style(theme.style(if focused {
            "ui.border.focus"
        } else {
            "ui.border"
        }))
}

/// `s` cut to `width` cells with `…`, its control and bidi characters shown escaped: the way a
/// title, a name or a label of the vault reaches a row of the TUI.
pub fn truncate(s: &str, width: usize) -> String {
    let s = crate::vault::visible::visible(s);
    let s = s.as_ref();
    if str_width(s) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// A status line from `parts` (priority, text) in their order: the least important (highest
/// number) parts are left out until the rest fits `width`, joined by `sep`; what still does
/// not fit is cut with an ellipsis.
pub fn fit_parts(parts: &[(u8, String)], sep: &str, width: usize) -> String {
    let mut keep: Vec<bool> = parts.iter().map(|p| !p.1.is_empty()).collect();
    let join = |keep: &[bool]| {
        parts
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(p, _)| p.1.as_str())
            .collect::<Vec<_>>()
            .join(sep)
    };
    let mut line = join(&keep);
    while str_width(&line) > width {
        let Some(drop) = (0..parts.len())
            .filter(|&i| keep[i] && parts[i].0 > 0)
            .max_by_key(|&i| (parts[i].0, i))
        else {
            break;
        };
        keep[drop] = false;
        line = join(&keep);
    }
    truncate(&line, width)
}

pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height.saturating_sub(1));
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height.saturating_sub(1) - h) / 2,
        width: w,
        height: h,
    }
}

pub fn list_popup(theme: &Theme, f: &mut Frame, title: &str, items: Vec<String>, selected: usize) {
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(8).min(90),
        (items.len() as u16 + 2).min(f.area().height.saturating_sub(2)),
    );
    clear(f, area, theme);
    let block = Block::bordered()
        .title(Span::styled(
            format!(" {} ", crate::vault::visible::visible(title)),
            theme.style("ui.title"),
        ))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = inner.height as usize;
    let start = selected.saturating_sub(h.saturating_sub(1));
    let lines: Vec<Line> = items
        .into_iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, s)| {
            let l = Line::raw(truncate(&s, inner.width as usize));
            if i == selected {
                l.style(theme.style("ui.selection"))
            } else {
                l
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// A bordered text box drawn over whatever is below it.
pub fn modal(
    f: &mut Frame,
    theme: &Theme,
    area: Rect,
    title: &str,
    title_style: &str,
    lines: Vec<Line<'static>>,
) {
    clear(f, area, theme);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::bordered()
                .title(Span::styled(
                    crate::vault::visible::visible(title).into_owned(),
                    theme.style(title_style),
                ))
                .border_style(theme.style("ui.border.focus")),
        ),
        area,
    );
}

/// Rows the mouse wheel moves per notch.
pub const WHEEL_ROWS: usize = 3;

/// An empty message input.
pub fn new_input() -> TextArea<'static> {
    let mut t = TextArea::default();
    t.set_placeholder_text("Ask about the paper… (@ to mention, enter to send)");
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_wrap_mode(ratatui_textarea::WrapMode::Word);
    t
}

/// Spans cut to `width` cells: the one that does not fit ends in `…`, the rest are dropped
/// (a chip line never stops in the middle of a word without saying so).
pub fn fit_spans(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for s in spans {
        let w = str_width(&s.content);
        if used + w <= width {
            used += w;
            out.push(s);
            continue;
        }
        let cut = truncate(s.content.trim_end(), width - used);
        if str_width(&cut) + used <= width && !cut.trim().is_empty() {
            out.push(Span::styled(cut, s.style));
        }
        break;
    }
    out
}

/// The input with its placeholder cut to the room it has (`width`: the area's, borders
/// included; the cursor takes the first cell).
pub fn fit_placeholder(input: &mut TextArea<'static>, width: u16) {
    let room = (width as usize).saturating_sub(3);
    if str_width(input.placeholder_text()) > room {
        let cut = truncate(input.placeholder_text(), room);
        input.set_placeholder_text(cut);
    }
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn chips_wrap_up_to_a_cap_and_count_the_rest() {
        let theme = Theme::try_load("default", &super::super::theme::shipped, false).unwrap();
        let chips: Vec<Chip> = (1..=9)
            .map(|i| Chip::Mention(format!("papers/paper-number-{i}/paper.pdf")))
            .collect();
        // Wide: every chip on one row.
        let wide = chip_lines(&chips[..2], &theme, "✕ ", 200, 3);
        assert_eq!(wide.len(), 1);
        assert_eq!(chip_rows(&chips[..2], "✕ ", 200, 3), 1);
        // Narrow: two chips a row, three rows, the last ends with the count of the rest.
        let lines = chip_lines(&chips, &theme, "✕ ", 80, 3);
        assert_eq!(lines.len(), 3);
        assert_eq!(chip_rows(&chips, "✕ ", 80, 3), 3);
        let shown: usize = lines.iter().map(|l| text(l).matches('@').count()).sum();
        let last = text(&lines[2]);
        let more: usize = last.rsplit('+').next().unwrap().trim().parse().unwrap();
        assert_eq!(shown + more, 9, "{last}");
        for l in &lines {
            assert!(str_width(&text(l)) <= 80, "{}", text(l));
        }
        // Each chip whole: a row never ends in half a label.
        assert!(
            text(&lines[0]).trim_end().ends_with('✕'),
            "{}",
            text(&lines[0])
        );
        // The page of a reading chip stays when its path is cut.
        let reading = [Chip::Reading {
            path: "papers/a-very-long-folder-name-for-a-paper/paper.pdf".into(),
            page: Some(12),
        }];
        let r = chip_lines(&reading, &theme, "✕ ", 30, 3);
        assert!(
            text(&r[0]).trim_end().ends_with("… p.12 ✕"),
            "{}",
            text(&r[0])
        );
        assert!(str_width(&text(&r[0])) <= 30);
        // A chip wider than the row: its label is cut, its mark kept.
        let one = chip_lines(&chips[..1], &theme, "✕ ", 20, 3);
        assert_eq!(one.len(), 1);
        assert!(
            text(&one[0]).trim_end().ends_with("… ✕"),
            "{}",
            text(&one[0])
        );
        assert!(str_width(&text(&one[0])) <= 20);
        // The count is never cut: on a last row too narrow for its chip and the count, the
        // chip gives way (its label cut, its mark kept), at any width.
        for width in [24, 30, 40, 52, 56, 80] {
            for rows in [1, 2, 3] {
                let lines = chip_lines(&chips, &theme, "✕ ", width, rows);
                let last = text(lines.last().unwrap());
                let more: usize = last
                    .rsplit('+')
                    .next()
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or_else(|| panic!("{width}x{rows}: no count in {last:?}"));
                let shown: usize = lines.iter().map(|l| text(l).matches('✕').count()).sum();
                assert_eq!(shown + more, 9, "{width}x{rows}: {last:?}");
                assert!(str_width(&last) <= width, "{width}: {last:?}");
                assert!(
                    lines
                        .iter()
                        .all(|l| !text(l).contains('@') || text(l).contains('✕')),
                    "{width}x{rows}: a chip without its mark"
                );
            }
        }
    }

    #[test]
    fn the_least_important_parts_go_first() {
        let parts = vec![
            (0, "builtin".to_string()),
            (1, "mcp".to_string()),
            (4, "fp 1a2b3c4d".to_string()),
            (1, "session resumed".to_string()),
        ];
        assert_eq!(
            fit_parts(&parts, " · ", 80),
            "builtin · mcp · fp 1a2b3c4d · session resumed"
        );
        assert_eq!(
            fit_parts(&parts, " · ", 32),
            "builtin · mcp · session resumed"
        );
        // Equal priorities: the later one goes first.
        assert_eq!(fit_parts(&parts, " · ", 20), "builtin · mcp");
        assert_eq!(fit_parts(&parts, " · ", 5), "buil…");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_cut_with_an_ellipsis() {
        let spans = vec![
            Span::raw(" reading a/b.pdf "),
            Span::raw(" selection \"x y\" "),
        ];
        let fit = fit_spans(spans.clone(), 24);
        let text: String = fit.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, " reading a/b.pdf  selec…");
        let whole: String = fit_spans(spans, 80)
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(whole, " reading a/b.pdf  selection \"x y\" ");
        let mut input = new_input();
        fit_placeholder(&mut input, 20);
        assert_eq!(str_width(input.placeholder_text()), 17);
        assert!(input.placeholder_text().ends_with('…'));
    }
}
