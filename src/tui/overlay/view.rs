//! The overlays drawn. Lists and text come from the panes they are about (the app hands them
//! over); this module only draws them over the screen.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::tui::action::Action;
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::theme::Theme;
use crate::tui::thread::PermissionRequest;
use crate::tui::thread::find::ThreadFilter;
use crate::tui::widgets::{centered, list_popup, modal, truncate};

/// The help text: every action bound in the live keymap, by mode (from the registry).
pub fn help_lines(keymap: &Keymap) -> Vec<(String, String, Action)> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        for a in Action::ALL {
            let keys = keymap.keys_for(mode, *a);
            if !keys.is_empty() {
                out.push((mode.name().to_string(), keys.join(", "), *a));
            }
        }
    }
    out
}

pub fn help(keymap: &Keymap, errors: &[String], theme: &Theme, f: &mut Frame, scroll: usize) {
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(6).min(100),
        f.area().height.saturating_sub(2),
    );
    crate::tui::widgets::clear(f, area, theme);
    let block = Block::bordered()
        .title(Span::styled(
            " Help · j/k scroll · esc closes ",
            theme.style("ui.title"),
        ))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let mut lines: Vec<Line> = Vec::new();
    for e in errors {
        lines.push(Line::styled(
            truncate(e, inner.width as usize),
            theme.style("chat.error"),
        ));
    }
    let rows = help_lines(keymap);
    let kw = 16usize;
    let mut last_mode = String::new();
    for (mode, keys, a) in rows.iter().skip(scroll) {
        if *mode != last_mode {
            lines.push(Line::styled(
                format!("[{mode}]"),
                theme.style("ui.help.mode"),
            ));
            last_mode = mode.clone();
        }
        let desc = truncate(
            a.description(),
            (inner.width as usize).saturating_sub(kw + 2),
        );
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {:<kw$}", truncate(keys, kw - 1)),
                theme.style("ui.help.key"),
            ),
            Span::raw(desc),
        ]));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The paper's outline: one line per section.
pub fn outline(theme: &Theme, f: &mut Frame, items: Vec<String>, selected: usize) {
    list_popup(theme, f, "Outline · enter jumps", items, selected);
}

/// The vault search's results, one card a line: `title · p. 3, 7 · excerpt`, the matched
/// words in the excerpt marked; or that it is searching, found nothing or failed.
pub fn results(
    theme: &Theme,
    f: &mut Frame,
    query: &str,
    hits: Option<&Result<Vec<crate::vault::PaperHit>, String>>,
    selected: usize,
) {
    // The popup's inside (list_popup's width, less its borders).
    let width = (f.area().width.saturating_sub(8).min(90) as usize).saturating_sub(2);
    let items: Vec<String> = match hits {
        None => vec!["searching…".into()],
        Some(Err(e)) => vec![format!("cannot search: {e}")],
        Some(Ok(h)) if h.is_empty() => vec![format!("nothing in the vault matches {query:?}")],
        Some(Ok(h)) => h.iter().map(|hit| result_line(hit, width)).collect(),
    };
    let n = match hits {
        Some(Ok(h)) => format!(" ({})", h.len()),
        _ => String::new(),
    };
    list_popup(
        theme,
        f,
        &format!("Search: {query}{n} · enter opens at the page"),
        items,
        selected,
    );
}

/// One result in `width` columns: the title (cut to two fifths of the line), where it
/// matched (`p. 3, 7`, `lines 1–17`), and the excerpt from a little before its first match,
/// the matched words between ‹ and ›.
fn result_line(hit: &crate::vault::PaperHit, width: usize) -> String {
    use crate::tui::text::str_width;
    let title = if hit.card.title.trim().is_empty() {
        hit.card.path.clone()
    } else {
        hit.card.title.clone()
    };
    let excerpt = hit
        .card
        .excerpt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // `**word**` marks a match: ‹word›.
    let mut marked = String::new();
    for (i, part) in excerpt.split("**").enumerate() {
        if i > 0 {
            marked.push(if i % 2 == 1 { '‹' } else { '›' });
        }
        marked.push_str(part);
    }
    // Start a few words before the first match, so it shows.
    let excerpt = match marked.find('‹') {
        Some(at) => {
            let before: Vec<&str> = marked[..at].split(' ').collect();
            let keep = before.len().saturating_sub(4);
            let lead = if keep > 0 { "…" } else { "" };
            format!("{lead}{}{}", before[keep..].join(" "), &marked[at..])
        }
        None => marked,
    };
    let places = hit.places();
    let places = if places.is_empty() {
        String::new()
    } else {
        format!(" · {places}")
    };
    let title_room = (width * 2 / 5).max(12);
    let title = if str_width(&title) > title_room {
        truncate(&title, title_room)
    } else {
        title
    };
    let line = format!("{title}{places} · {}", excerpt.trim());
    crate::vault::visible::visible(&line).into_owned()
}

/// The recently opened documents: one line each (title or path · page), or why it is empty.
pub fn recent(theme: &Theme, f: &mut Frame, items: Vec<String>, selected: usize) {
    let items = if items.is_empty() {
        vec!["nothing opened yet".to_string()]
    } else {
        items
    };
    list_popup(theme, f, "Recently opened · enter opens", items, selected);
}

/// The open paper's highlights and annotations, one a line.
pub fn annotations(theme: &Theme, f: &mut Frame, items: Vec<String>, selected: usize) {
    let items = if items.is_empty() {
        vec!["no highlights yet: select text (v or V), then H".to_string()]
    } else {
        items
    };
    list_popup(
        theme,
        f,
        "Highlights · enter jumps · d deletes · e exports markdown",
        items,
        selected,
    );
}

/// The chat's threads: one line each; with a filter, one line per matching turn.
pub fn threads(
    theme: &Theme,
    f: &mut Frame,
    items: Vec<String>,
    filter: Option<&ThreadFilter>,
    selected: usize,
) {
    match filter {
        None => list_popup(
            theme,
            f,
            "Threads · enter · / find by @cited page or words · b BibTeX · c CSL",
            items,
            selected,
        ),
        Some(filter) => {
            let title = format!(
                "{} turn{} found · enter opens there · {}",
                filter.found.len(),
                if filter.found.len() == 1 { "" } else { "s" },
                filter.text.trim(),
            );
            let rows = match (&filter.error, filter.found.is_empty()) {
                (Some(e), _) => vec![e.clone()],
                (None, true) => vec!["no thread matches".to_string()],
                (None, false) => filter.found.iter().map(|t| t.row.clone()).collect(),
            };
            list_popup(theme, f, &title, rows, selected);
        }
    }
}

/// The paper's metadata (nothing without a paper).
pub fn metadata(theme: &Theme, f: &mut Frame, lines: Vec<Line<'static>>) {
    if lines.is_empty() {
        return;
    }
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(8).min(90),
        f.area().height.saturating_sub(4).min(20),
    );
    modal(f, theme, area, " Metadata · esc closes ", "ui.title", lines);
}

pub fn permission(theme: &Theme, f: &mut Frame, req: &PermissionRequest) {
    use crate::tui::thread::PermissionKind as K;
    let mut lines = vec![
        Line::styled(
            "The agent asks for permission:",
            theme.style("permission.title"),
        ),
        Line::raw(req.title.clone()),
    ];
    for d in &req.details {
        lines.push(Line::styled(d.clone(), theme.style("ui.dim")));
    }
    lines.push(Line::default());
    for o in &req.options {
        let key = match o.kind {
            K::AllowOnce => "a",
            K::AllowAlways => "A",
            K::RejectOnce => "r",
            K::RejectAlways => "R",
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {key}  "), theme.style("ui.help.key")),
            Span::raw(o.name.clone()),
        ]));
    }
    lines.push(Line::default());
    lines.push(Line::styled("esc rejects once", theme.style("ui.dim")));
    // Room for the wrapped lines (the modal wraps long arguments).
    let width = 60u16.min(f.area().width);
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let area = centered(f.area(), width, rows as u16 + 2);
    modal(f, theme, area, " Permission ", "permission.title", lines);
}
