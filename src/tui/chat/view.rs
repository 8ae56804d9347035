//! The chat pane drawn.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{Chat, Compose};
use crate::context::mention::syntax;
use crate::tui::action::Action;
use crate::tui::chips::AgentState;
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::theme::Theme;
use crate::tui::thread::cells::{empty_hint, link_sources, thread_lines};
use crate::tui::widgets::{
    CHIP_ROWS, chip_lines, chip_rows, fit_parts, fit_placeholder, pane_block, truncate,
};

/// What follows a removable chip's label.
const CHIP_MARK: &str = "✕ ";

/// The chat pane's inside: status line, messages, chips (as many rows as they need, up to
/// [`CHIP_ROWS`]) and the input.
pub fn areas(c: &Chat, inner: Rect) -> [Rect; 4] {
    let input_h = (input_rows(c, inner.width.saturating_sub(2) as usize) as u16 + 2).clamp(3, 6);
    let chips_h = chip_rows(&c.chips, CHIP_MARK, inner.width as usize, CHIP_ROWS) as u16;
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(chips_h),
        Constraint::Length(input_h),
    ])
    .areas(inner)
}

/// The message's rows at `width`: the input grows with them (a mention written out makes a
/// line long).
fn input_rows(c: &Chat, width: usize) -> usize {
    c.input
        .lines()
        .iter()
        .map(|l| crate::tui::text::wrap(l, width).len())
        .sum()
}

/// The chat's status line at `width` columns, by priority: the agent and a running answer,
/// then the session (new or resumed) and a warning that the tools are not attached, then the
/// mode, the grant and the tools, then the omitted count, the fingerprint last.
pub fn status_line(c: &Chat, width: usize) -> String {
    let session = c.thread().and_then(|t| t.session.as_ref());
    let parts: Vec<(u8, String)> = match &c.agent {
        AgentState::Unavailable(why) => vec![(0, format!("agent unavailable: {why}"))],
        AgentState::Starting { name } => vec![(0, format!("{name} · starting…"))],
        AgentState::Ready { name, .. } => {
            let mut parts = vec![(0, name.clone())];
            if let Some(p) = &c.preview {
                parts.push((2, p.mode.clone()));
                parts.push((
                    3,
                    format!(
                        "grant {} source{}",
                        p.sources,
                        if p.sources == 1 { "" } else { "s" }
                    ),
                ));
                if p.omitted > 0 {
                    parts.push((4, format!("{} omitted", p.omitted)));
                }
                // A mention of what another chip grants already: harmless, and said so.
                if p.duplicates > 0 {
                    parts.push((
                        4,
                        format!(
                            "{} duplicate mention{}",
                            p.duplicates,
                            if p.duplicates == 1 { "" } else { "s" }
                        ),
                    ));
                }
                parts.push((
                    5,
                    format!("fp {}", &p.fingerprint[..p.fingerprint.len().min(8)]),
                ));
            }
            if let Some(info) = session {
                parts.push(if info.tools_attached {
                    (3, "tools attached".to_string())
                } else {
                    (1, "tools not attached".to_string())
                });
                parts.push((1, format!("session {}", info.session)));
            }
            if c.running.is_some() {
                parts.push((0, "answering…".into()));
            }
            parts
        }
    };
    fit_parts(&parts, " · ", width)
}

/// The pane: title, status line (agent · mode · grant · fingerprint · tools · session), the
/// thread, the chips and the input with its mention popup.
pub fn view(c: &Chat, keymap: &Keymap, focused: bool, theme: &Theme, f: &mut Frame, area: Rect) {
    let thread = c.thread();
    let title = format!(
        " Chat · {} ({}/{}) ",
        thread.map_or("", |t| t.title.as_str()),
        c.current + 1,
        c.threads.len()
    );
    let block = pane_block(
        truncate(&title, area.width.saturating_sub(2) as usize),
        focused,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [status_a, msgs_a, chips_a, input_a] = areas(c, inner);
    // Status line: agent · mode · grant · fingerprint · tools · session, the least useful
    // left out first when the pane is narrow (the session and the mode stay longest).
    let status = status_line(c, status_a.width as usize);
    f.render_widget(
        Paragraph::new(status).style(theme.style("ui.dim")),
        status_a,
    );
    // Messages: render from the end upwards until the pane is full (500-message threads
    // cost only what is visible).
    let w = msgs_a.width as usize;
    let h = msgs_a.height as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(t) = thread {
        if t.items.is_empty() {
            lines = empty_hint(
                "No messages yet. i to write, @ to mention papers, notes or folders.",
                w,
                theme,
            );
        } else {
            let titles = |path: &str| {
                c.listing
                    .iter()
                    .find(|e| e.path == path)
                    .map(|e| e.title.clone())
            };
            lines = thread_lines(t, c.selected, &c.scroll, (w, h), theme, &titles);
        }
    }
    f.render_widget(Paragraph::new(lines), msgs_a);
    if let Some(t) = thread {
        link_sources(f.buffer_mut(), msgs_a, t);
    }
    if chips_a.height > 0 {
        let lines = chip_lines(
            &c.chips,
            theme,
            CHIP_MARK,
            chips_a.width as usize,
            chips_a.height as usize,
        );
        f.render_widget(Paragraph::new(lines), chips_a);
    }
    let mut input = c.input.clone();
    fit_placeholder(&mut input, input_a.width);
    let hint = keymap.hint(&[Mode::Input], Action::RemoveChip);
    input.set_block(
        Block::bordered()
            .border_style(theme.style(if c.compose != Compose::Off && focused {
                "ui.border.focus"
            } else {
                "ui.border"
            }))
            .title(Span::styled(
                if c.chips.is_empty() {
                    " message ".to_string()
                } else {
                    format!(" message · {hint} removes a chip ")
                },
                theme.style("ui.dim"),
            )),
    );
    if !(c.compose != Compose::Off && focused) {
        input.set_cursor_style(Style::default());
    }
    f.render_widget(&input, input_a);
    if let Compose::Mention(m) = &c.compose {
        let hgt = (m.items.len().clamp(1, 8) + 2) as u16;
        let popup = Rect {
            x: input_a.x,
            y: input_a.y.saturating_sub(hgt),
            width: input_a.width,
            height: hgt.min(input_a.y),
        };
        crate::tui::widgets::clear(f, popup, theme);
        let lines: Vec<Line> = if m.items.is_empty() {
            vec![Line::styled("no match", theme.style("ui.dim"))]
        } else {
            let start = m.selected.saturating_sub(7);
            m.items
                .iter()
                .enumerate()
                .skip(start)
                .take(8)
                .map(|(i, (_, d))| {
                    let l = Line::raw(truncate(d, popup.width.saturating_sub(2) as usize));
                    if i == m.selected {
                        l.style(theme.style("ui.selection"))
                    } else {
                        l
                    }
                })
                .collect()
        };
        f.render_widget(
            Paragraph::new(lines).block(
                Block::bordered()
                    .border_style(theme.style("ui.border.focus"))
                    .title(format!(" {} ", syntax::format(&m.query))),
            ),
            popup,
        );
    }
}
