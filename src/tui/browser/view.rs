//! The vault browser drawn: one line per visible entry, the selection highlighted.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::Browser;
use crate::tui::text::str_width;
use crate::tui::theme::Theme;
use crate::tui::widgets::{pane_block, truncate};
use crate::vault::EntryKind;

pub fn view(
    b: &Browser,
    vault_name: &str,
    focused: bool,
    theme: &Theme,
    f: &mut Frame,
    area: Rect,
) {
    let mut title = format!(" Vault · {vault_name} ");
    if !b.filter.is_empty() {
        title = format!(" Vault · filter: {} ({}) ", b.filter, b.visible.len());
    }
    let block = pane_block(title, focused, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    if b.visible.is_empty() {
        let msg = if !b.scanned {
            "scanning…"
        } else if b.entries.is_empty() {
            "This vault is empty. Put PDFs under papers/ and notes anywhere."
        } else {
            "Nothing matches the filter."
        };
        f.render_widget(
            Paragraph::new(msg)
                .style(theme.style("ui.dim"))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let h = inner.height as usize;
    let start = b.first_shown(h);
    let w = inner.width as usize;
    let lines: Vec<Line> = b.visible[start..]
        .iter()
        .take(h)
        .enumerate()
        .map(|(i, &ix)| {
            let e = &b.entries[ix];
            let indent = "  ".repeat(e.depth.min(4));
            let (icon, style) = match e.kind {
                EntryKind::Paper => ("▤ ", theme.style("browser.paper")),
                EntryKind::File => ("≡ ", theme.style("browser.file")),
                EntryKind::Directory => ("▸ ", theme.style("browser.directory")),
            };
            let name = if b.show_paths || e.kind != EntryKind::Paper {
                e.path.rsplit('/').next().unwrap_or(&e.path).to_string()
            } else {
                e.title.clone()
            };
            let name = if b.show_paths { e.path.clone() } else { name };
            let meta = match (e.authors.is_empty(), e.year) {
                (false, Some(y)) => format!(" {} {y}", e.authors),
                (false, None) => format!(" {}", e.authors),
                (true, Some(y)) => format!(" {y}"),
                _ => String::new(),
            };
            let head = format!("{indent}{icon}");
            let room = w.saturating_sub(str_width(&head));
            let name = truncate(&name, room);
            let meta = truncate(&meta, room.saturating_sub(str_width(&name)));
            let mut line = Line::from(vec![
                Span::raw(head),
                Span::styled(name, style),
                Span::styled(meta, theme.style("browser.meta")),
            ]);
            if start + i == b.selected {
                line = line.style(theme.style("ui.selection"));
            }
            line
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
