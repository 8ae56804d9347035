//! The checklist drawn in the vault browser's place: the rows on top, the selected citation in
//! full below (the quote, what it came to, the passages a claim matches), the keys in the
//! bottom border.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::Checklist;
use crate::context::check::{Checked, Outcome};
use crate::tui::text::wrap;
use crate::tui::theme::Theme;
use crate::tui::widgets::{pane_block, truncate};
use crate::vault::visible::visible;

/// How many rows the list of `n` citations gets in a pane whose inside is `inner` rows high:
/// the rest is the selected citation in full, a third of the pane at least when there is room
/// for it (12 rows), more when the list is short.
pub fn list_rows(inner: u16, n: usize) -> usize {
    let inner = inner as usize;
    let detail = if inner >= 12 { (inner / 3).min(10) } else { 0 };
    inner.saturating_sub(detail).min(n.max(1))
}

pub fn view(c: &Checklist, focused: bool, theme: &Theme, f: &mut Frame, area: Rect) {
    let name = c.draft.name();
    let short = name.rsplit('/').next().unwrap_or(&name);
    let counts = match &c.result {
        Some(Ok(r)) => {
            let s = &r.report.summary;
            format!(" ✓{} ⚠{} ·{}", s.verified, s.problems, s.claims)
        }
        _ => String::new(),
    };
    let running = if c.running { " · checking…" } else { "" };
    let title = format!(" Citations · {short}{counts}{running} ");
    let keys = " enter open · ]/[ next ⚠ · r again · esc vault ";
    let mut block = pane_block(title, focused, theme);
    if area.width as usize >= keys.chars().count() + 4 {
        block = block.title_bottom(Span::styled(keys, theme.style("ui.dim")));
    }
    let inner = block.inner(area);
    f.render_widget(block, area);
    let rows = c.rows();
    if rows.is_empty() {
        let msg = match &c.result {
            None => "checking…".to_string(),
            Some(Err(e)) => format!("cannot check: {e}"),
            Some(Ok(_)) => format!(
                "no citations found in {name}: [@key, p. 4] (pandoc), \\cite[p.~4]{{key}} (LaTeX) or (Author, 2009, p. 4)"
            ),
        };
        let mut lines = vec![Line::styled(
            visible(&msg).into_owned(),
            theme.style("ui.dim"),
        )];
        lines.extend(notes(c, inner.width as usize, theme));
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
        return;
    }
    let list_h = list_rows(inner.height, rows.len());
    let w = inner.width as usize;
    let list: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(c.offset)
        .take(list_h)
        .map(|(i, r)| row(r, i == c.selected, w, theme))
        .collect();
    f.render_widget(
        Paragraph::new(list),
        Rect {
            height: list_h as u16,
            ..inner
        },
    );
    let detail_h = inner.height.saturating_sub(list_h as u16);
    if detail_h < 2 {
        return;
    }
    let area = Rect {
        y: inner.y + list_h as u16,
        height: detail_h,
        ..inner
    };
    f.render_widget(
        Block::default()
            .borders(ratatui::widgets::Borders::TOP)
            .border_style(theme.style("ui.border")),
        area,
    );
    let area = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    if let Some(r) = c.current() {
        let mut lines = detail(r, &name, w, theme);
        lines.extend(notes(c, w, theme));
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// `⚠ 12:34 @key, p. 4 — differs: "0.215" — the page has "0.251"`.
fn row(c: &Checked, selected: bool, w: usize, theme: &Theme) -> Line<'static> {
    let cited = match &c.locator {
        Some(l) => format!("{}, {l}", c.key),
        None => c.key.clone(),
    };
    // A narrow pane gives the line only; the column and the rest are in the detail below.
    let at = if w >= 60 {
        format!("{}:{}", c.line, c.column)
    } else {
        c.line.to_string()
    };
    let text = format!("{at} {cited} — {}", c.says);
    let mark = Span::styled(
        format!("{} ", c.outcome.glyph()),
        mark_style(c.outcome, theme),
    );
    let base = if selected {
        theme.style("ui.selection")
    } else {
        Style::default()
    };
    let mut line = Line::from(vec![
        mark,
        Span::styled(truncate(&text, w.saturating_sub(2)), base),
    ]);
    if selected {
        line = line.style(base);
    }
    line
}

fn mark_style(o: Outcome, theme: &Theme) -> Style {
    theme.style(match o {
        Outcome::Verified | Outcome::VerifiedOcr => "chat.citation.verified",
        Outcome::Claim => "chat.citation.none",
        _ => "chat.citation.warning",
    })
}

/// The selected citation in full, wrapped to `w` cells.
fn detail(c: &Checked, name: &str, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let dim = theme.style("ui.dim");
    let mut out = Vec::new();
    let mut push = |text: String, style: Style| {
        let text = visible(&text).into_owned();
        for r in wrap(&text, w.max(8)) {
            out.push(Line::styled(text[r.start..r.end].to_string(), style));
        }
    };
    push(
        format!("{name}:{}:{} {}", c.line, c.column, c.written.trim()),
        dim,
    );
    if let Some(q) = &c.quote {
        push(format!("“{}”", q.trim()), theme.style("paper.quote"));
    }
    push(
        format!("{} {}", c.outcome.glyph(), c.says),
        mark_style(c.outcome, theme),
    );
    if let Some(n) = &c.note {
        push(n.clone(), dim);
    }
    for s in &c.support {
        let page = s.page_label.clone().unwrap_or_else(|| s.page.to_string());
        let cited = if s.cited { " (the cited page)" } else { "" };
        push(format!("p. {page}{cited}: {}", s.excerpt.trim()), dim);
    }
    for p in &c.candidates {
        push(format!("could be {p}"), dim);
    }
    if let Some(t) = &c.title {
        push(format!("in «{t}»"), dim);
    }
    out
}

/// What the bibliographies gave to say, wrapped to `w` cells.
fn notes(c: &Checklist, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let Some(Ok(r)) = &c.result else {
        return Vec::new();
    };
    let style = theme.style("chat.citation.warning");
    r.notes
        .iter()
        .flat_map(|n| {
            let text = visible(n).into_owned();
            wrap(&text, w.max(8))
                .into_iter()
                .map(|piece| Line::styled(text[piece.start..piece.end].to_string(), style))
                .collect::<Vec<_>>()
        })
        .collect()
}
