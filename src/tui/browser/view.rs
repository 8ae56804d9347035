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
    if b.sort != super::Sort::Folder {
        title = format!("{}· by {} ", title, b.sort.name());
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
    let w = inner.width as usize;
    let details = details(b, w, inner.height, theme);
    let h = list_rows(b, inner.width, inner.height) as usize;
    if !details.is_empty() {
        let at = Rect {
            y: inner.y + h as u16,
            height: inner.height - h as u16,
            ..inner
        };
        f.render_widget(Paragraph::new(details), at);
    }
    let start = b.first_shown(h);
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
            // A paper whose title another paper has too: named by its folder, which stays
            // when the line is cut (the title gives way).
            let twin = match &e.twin {
                Some(folder) if !b.show_paths && e.kind == EntryKind::Paper => {
                    format!(" ({folder})")
                }
                _ => String::new(),
            };
            let mut name = if b.show_paths {
                e.path.clone()
            } else if e.kind == EntryKind::Paper {
                e.title.clone()
            } else {
                e.path.rsplit('/').next().unwrap_or(&e.path).to_string()
            };
            if e.kind == EntryKind::Directory {
                name.push('/');
            }
            let head = format!("{indent}{icon}");
            let room = w.saturating_sub(str_width(&head));
            // A paper's columns: first author, year, pages (each only where a title still
            // has room beside it); then its badges, kept whole (they say what is wrong).
            // A title that would be cut keeps the room instead (the details below the list
            // show the columns of the selected paper), unless the papers are sorted by year.
            let mut meta: Vec<String> = Vec::new();
            if e.kind == EntryKind::Paper {
                if !e.authors.is_empty() && room >= 56 {
                    meta.push(e.authors.clone());
                }
                if room >= 30
                    && let Some(y) = e.year
                {
                    meta.push(y.to_string());
                }
                if room >= 40 && e.pages > 0 {
                    meta.push(format!("{}p", e.pages));
                }
                let whole = str_width(&name) + 1 + str_width(&meta.join(" · "));
                let badges_w: usize = e.badges.iter().map(|b| str_width(b) + 3).sum();
                if whole + badges_w > room && b.sort != super::Sort::Year {
                    meta.clear();
                }
            }
            let meta = if meta.is_empty() {
                String::new()
            } else {
                format!(" {}", meta.join(" · "))
            };
            let badges: String = e.badges.iter().map(|b| format!(" [{b}]")).collect();
            let badges = truncate(&badges, room.saturating_sub(8));
            let room = room.saturating_sub(str_width(&badges));
            // The folder of a twin comes before the columns (which it drops when they do not
            // fit whole) and leaves the title 8 columns.
            let twin = truncate(&twin, room.saturating_sub(8));
            let room = room.saturating_sub(str_width(&twin));
            let meta = if !twin.is_empty() && str_width(&meta) + 8 > room {
                String::new()
            } else {
                truncate(&meta, room.saturating_sub(12))
            };
            let name = truncate(&name, room.saturating_sub(str_width(&meta)));
            let mut line = Line::from(vec![
                Span::raw(head),
                Span::styled(name, style),
                Span::styled(twin, style),
                Span::styled(meta, theme.style("browser.meta")),
                Span::styled(badges, theme.style("browser.badge")),
            ]);
            if start + i == b.selected {
                line = line.style(theme.style("ui.selection"));
            }
            line
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// The list's rows in a browser `height` rows high and `width` wide: all of it, less the
/// details of the selected paper when the pane is tall enough to show them.
pub fn list_rows(b: &Browser, width: u16, height: u16) -> u16 {
    let shown = detail_lines(b, width as usize, height).len() as u16;
    height - shown.min(height)
}

/// The details of the selected paper below the list: its whole title (up to three rows),
/// authors, year, pages and badges, and its path — what the row had to cut. Shown when the
/// pane is at least 14 rows high.
fn details(b: &Browser, width: usize, height: u16, theme: &Theme) -> Vec<Line<'static>> {
    let lines = detail_lines(b, width, height);
    let n = lines.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let style = match i {
                0 => theme.style("ui.dim"),
                _ if i + 2 == n => theme.style("browser.meta"),
                _ if i + 1 == n => theme.style("ui.dim"),
                _ => theme.style("browser.paper"),
            };
            Line::styled(text, style)
        })
        .collect()
}

fn detail_lines(b: &Browser, width: usize, height: u16) -> Vec<String> {
    let Some(e) = b.current().filter(|e| e.kind == EntryKind::Paper) else {
        return Vec::new();
    };
    if height < 14 || width < 12 {
        return Vec::new();
    }
    let mut out = vec!["─".repeat(width)];
    let rows = crate::tui::text::wrap(&e.title, width);
    for (i, r) in rows.iter().enumerate().take(3) {
        let row = e.title[r.start..r.end].trim_end();
        if i == 2 && rows.len() > 3 {
            out.push(truncate(&format!("{row} {}", &e.title[r.end..]), width));
        } else {
            out.push(row.to_string());
        }
    }
    let mut meta: Vec<String> = Vec::new();
    if !e.authors.is_empty() {
        meta.push(e.authors.clone());
    }
    if let Some(y) = e.year {
        meta.push(y.to_string());
    }
    if e.pages > 0 {
        meta.push(format!("{}p", e.pages));
    }
    let badges: String = e.badges.iter().map(|b| format!(" [{b}]")).collect();
    out.push(truncate(&format!("{}{badges}", meta.join(" · ")), width));
    out.push(truncate(&e.path, width));
    out
}
