//! The paper pane drawn: the visible rows of the page with search hits, the cited quote or
//! lines, the visual selection and the cursor styled; and the outline and metadata overlays'
//! contents.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::image::ShotState;
use super::{Doc, Paper, Slot};
use crate::tui::text::{Row, str_width};
use crate::tui::theme::Theme;
use crate::tui::widgets::{pane_block, truncate};
use crate::vault::EntryKind;

/// The pane: the document's title, a header (page, label, section, visual mode) and the page;
/// `text_area` is where the page goes (the app's layout computes it, the mouse uses it too).
pub fn view(
    paper: &Paper,
    focused: bool,
    theme: &Theme,
    f: &mut Frame,
    area: Rect,
    text_area: Rect,
) {
    let Some(p) = paper.doc() else {
        let block = pane_block(" Paper ".into(), focused, theme);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(
            Paragraph::new("No paper open. Choose one in the vault browser (space f, then enter).")
                .style(theme.style("ui.dim"))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    };
    let title = if p.info.title.is_empty() {
        p.path.clone()
    } else {
        p.info.title.clone()
    };
    let block = pane_block(
        format!(
            " {} ",
            truncate(&title, area.width.saturating_sub(4) as usize)
        ),
        focused,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    // Header line: page, label, section, the image view's place, visual mode. The section
    // gives way when the line is short; the page and the image view's zoom never do.
    let head = p.page_header();
    // The page wrapped once per frame: the header's section and the rows drawn share it.
    let rows = p.rows(text_area.width as usize);
    let at = p.cursor_offset(&rows);
    let section = p
        .section_at(p.page, at)
        .filter(|_| p.kind == EntryKind::Paper)
        .map(|s| {
            let num = s
                .number
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default();
            format!(" · {num}{}", s.title)
        })
        .unwrap_or_default();
    let cells = (text_area.width, text_area.height);
    let shot = paper.shot(cells);
    let mut tail = String::new();
    if shot.is_some() {
        tail.push_str(" · image");
        if let Some(at) = paper.zoom_label(cells) {
            tail.push_str(&format!(" · {at}"));
        }
    }
    if shot.is_none()
        && let Some(says) = p.ocr_says(p.page)
    {
        tail.push_str(&format!(" · {says}"));
    }
    if let Some(v) = p.visual {
        tail.push_str(if v.lines {
            " · VISUAL LINE"
        } else {
            " · VISUAL"
        });
    }
    let width = inner.width as usize;
    let room = width.saturating_sub(str_width(&head) + str_width(&tail));
    let section = if str_width(&section) <= room {
        section
    } else if room >= 8 {
        truncate(&section, room)
    } else {
        String::new()
    };
    let header = format!("{head}{section}{tail}");
    let header_area = Rect { height: 1, ..inner };
    f.render_widget(
        Paragraph::new(truncate(&header, inner.width as usize)).style(theme.style("paper.header")),
        header_area,
    );
    match shot {
        Some(ShotState::Ready(proto)) => {
            // Centred across the text area (fitted to it, it keeps the page's proportions).
            let size = proto.proto.size();
            let at = Rect {
                x: text_area.x + text_area.width.saturating_sub(size.width) / 2,
                width: size.width.min(text_area.width),
                height: size.height.min(text_area.height),
                ..text_area
            };
            f.render_widget(ratatui_image::Image::new(&proto.proto), at);
            return;
        }
        Some(ShotState::Rendering) => {
            f.render_widget(
                Paragraph::new(format!("rendering page {}…", p.page)).style(theme.style("ui.dim")),
                text_area,
            );
            return;
        }
        // The text instead (the status bar said why).
        Some(ShotState::Failed(_)) | None => {}
    }
    let msg = match p.slot() {
        _ if !p.loaded => Some(("opening…".to_string(), "ui.dim")),
        Some(Slot::Loading) | Some(Slot::Missing) => {
            Some((format!("loading page {}…", p.page), "ui.dim"))
        }
        Some(Slot::Failed(e)) => Some((e.clone(), "chat.error")),
        Some(Slot::Text(t)) if t.trim().is_empty() => Some((
            format!(
                "Page {} has no text layer (a scanned image without OCR): nothing to show or search here. `agentero index --ocr` reads it with tesseract.",
                p.page
            ),
            "paper.notext",
        )),
        _ => None,
    };
    if let Some((m, style)) = msg {
        f.render_widget(
            Paragraph::new(m)
                .style(theme.style(style))
                .wrap(Wrap { trim: true }),
            text_area,
        );
        return;
    }
    let lines = page_lines(p, &rows, theme, text_area.height as usize, focused);
    f.render_widget(Paragraph::new(lines), text_area);
}

/// The visible rows of the page (`rows`: the page wrapped to the pane) with search hits, the
/// cited quote or lines, the visual selection and the cursor styled.
pub fn page_lines(
    p: &Doc,
    rows: &[Row],
    theme: &Theme,
    height: usize,
    focused: bool,
) -> Vec<Line<'static>> {
    let Some(text) = p.text(p.page) else {
        return Vec::new();
    };
    let mut marks: Vec<(usize, usize, Style)> = Vec::new();
    // Highlights and annotations first: what is drawn later (matches, the quote, the
    // selection) shows over them.
    for (s, e) in p.ocr_low_ranges(p.page) {
        marks.push((s, e, theme.style("paper.ocr_low")));
    }
    for (s, e) in p.annotation_ranges(p.page) {
        marks.push((s, e, theme.style("paper.annotation")));
    }
    for (i, h) in p.search.hits.iter().enumerate() {
        if h.page == p.page {
            let key = if p.search.current == Some(i) {
                "paper.match.current"
            } else {
                "paper.match"
            };
            marks.push((h.start, h.end, theme.style(key)));
        }
    }
    if let Some((page, s, e)) = p.quote
        && page == p.page
    {
        marks.push((s, e, theme.style("paper.quote")));
    }
    if let Some((s, e)) = p.selection(rows) {
        marks.push((s, e, theme.style("paper.visual")));
    }
    let cursor = focused.then(|| {
        let c = p.cursor_offset(rows);
        (c, c + text[c..].chars().next().map_or(0, char::len_utf8))
    });
    let gutter = (p.kind == EntryKind::File).then(|| p.gutter());
    let mut out = Vec::with_capacity(height);
    for (ri, r) in rows.iter().enumerate().skip(p.scroll).take(height) {
        let mut spans: Vec<Span<'static>> = Vec::new();
        let in_lines = p
            .lines
            .is_some_and(|(a, b)| (r.line + 1) as u32 >= a && (r.line + 1) as u32 <= b);
        if let Some(g) = gutter {
            let first = ri == 0 || rows[ri - 1].line != r.line;
            let num = if first {
                format!("{:>g$} ", r.line + 1)
            } else {
                " ".repeat(g + 1)
            };
            spans.push(Span::styled(num, theme.style("paper.lineno")));
        }
        let base = if in_lines {
            theme.style("paper.quote")
        } else {
            Style::default()
        };
        // Split the row at every mark boundary.
        let mut cuts = vec![r.start, r.end];
        for (s, e, _) in &marks {
            for x in [*s, *e] {
                if x > r.start && x < r.end {
                    cuts.push(x);
                }
            }
        }
        if let Some((s, e)) = cursor
            && ri == p.cursor_row
        {
            for x in [s, e] {
                if x > r.start && x < r.end {
                    cuts.push(x);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let mut style = base;
            for (s, e, st) in &marks {
                if a >= *s && b <= *e && a < b {
                    style = style.patch(*st);
                }
            }
            if let Some((s, e)) = cursor
                && ri == p.cursor_row
                && a >= s
                && b <= e
            {
                style = style.patch(theme.style("ui.cursor"));
            }
            spans.push(Span::styled(text[a..b].replace('\t', "    "), style));
        }
        if r.start == r.end && ri == p.cursor_row && cursor.is_some() {
            spans.push(Span::styled(" ", theme.style("ui.cursor")));
        }
        if p.row_is_cut(r) {
            spans.push(Span::styled(super::code::CUT_MARK, theme.style("ui.dim")));
        }
        out.push(Line::from(spans));
    }
    out
}
