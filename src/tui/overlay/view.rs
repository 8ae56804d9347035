//! The overlays drawn. Lists and text come from the panes they are about (the app hands them
//! over); this module only draws them over the screen.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use crate::tui::action::Action;
use crate::tui::effect::{List, TextLine};
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::theme::Theme;
use crate::tui::thread::PermissionRequest;
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

/// A list: its rows (or the line that says why there are none), the selected one marked.
pub fn list(theme: &Theme, f: &mut Frame, list: &List) {
    let items = if list.rows.is_empty() {
        vec![list.empty.clone()]
    } else {
        list.rows.iter().map(|r| r.text.clone()).collect()
    };
    list_popup(theme, f, &list.title, items, list.selected);
}

/// Lines of text in a modal (nothing without lines).
pub fn text(theme: &Theme, f: &mut Frame, title: &str, lines: &[TextLine]) {
    if lines.is_empty() {
        return;
    }
    let lines: Vec<Line<'static>> = lines
        .iter()
        .map(|(style, t)| match style {
            Some(s) => Line::styled(t.clone(), theme.style(s)),
            None if t.is_empty() => Line::default(),
            None => Line::raw(t.clone()),
        })
        .collect();
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(8).min(90),
        f.area().height.saturating_sub(4).min(20),
    );
    modal(
        f,
        theme,
        area,
        &format!(" {title} · esc closes "),
        "ui.title",
        lines,
    );
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
