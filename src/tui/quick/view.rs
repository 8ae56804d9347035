//! The Quick Chat popup drawn: its chips, the question and streamed answer with its sources,
//! and the input while the question is typed (else the keys that apply).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::Quick;
use crate::tui::action::Action;
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::theme::Theme;
use crate::tui::thread::cells::{Titles, empty_hint, link_sources, thread_lines};
use crate::tui::widgets::{CHIP_ROWS, centered, chip_lines, chip_rows, fit_placeholder, truncate};

/// The Quick Chat popup: its chips, the question and streamed answer with its sources, and
/// the input while the question is typed (else the keys that apply).
pub fn view(
    q: &Quick,
    keymap: &Keymap,
    chain: &[Mode],
    theme: &Theme,
    titles: Titles<'_>,
    f: &mut Frame,
) {
    let full = f.area();
    let area = centered(
        full,
        full.width.saturating_sub(4).min(100),
        full.height.saturating_sub(3).min(30),
    );
    crate::tui::widgets::clear(f, area, theme);
    let mut title = " Quick Chat ".to_string();
    if q.turn().is_some() {
        title = " Quick Chat · answering… ".into();
    } else if let Some(info) = &q.thread.session {
        title = format!(
            " Quick Chat · {} · {} · grant {} · fp {} ",
            info.agent,
            info.mode,
            info.grant_sources,
            &info.fingerprint[..info.fingerprint.len().min(8)]
        );
    }
    let block = Block::bordered()
        .title(Span::styled(
            truncate(&title, area.width.saturating_sub(2) as usize),
            theme.style("ui.title"),
        ))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let bottom_h = if q.composing() {
        (q.input.lines().len() as u16 + 2).clamp(3, 6)
    } else {
        1
    };
    let chips_h = chip_rows(&q.chips, "", inner.width as usize, CHIP_ROWS).max(1) as u16;
    let [chips_a, msgs_a, bottom_a] = Layout::vertical([
        Constraint::Length(chips_h),
        Constraint::Min(1),
        Constraint::Length(bottom_h),
    ])
    .areas(inner);
    let chips = if q.chips.is_empty() {
        vec![Line::styled(
            truncate(
                "no context: the question goes alone",
                chips_a.width as usize,
            ),
            theme.style("ui.dim"),
        )]
    } else {
        chip_lines(
            &q.chips,
            theme,
            "",
            chips_a.width as usize,
            chips_a.height as usize,
        )
    };
    f.render_widget(Paragraph::new(chips), chips_a);
    let (w, h) = (msgs_a.width as usize, msgs_a.height as usize);
    let lines = if q.thread.items.is_empty() {
        empty_hint(
            "Ask about this page or the selection; the answer and its sources show here.",
            w,
            theme,
        )
    } else {
        thread_lines(&q.thread, q.selected, &q.scroll, (w, h), theme, titles)
    };
    f.render_widget(Paragraph::new(lines), msgs_a);
    link_sources(f.buffer_mut(), msgs_a, &q.thread);
    let key = |a: Action| keymap.hint(chain, a);
    if q.composing() {
        let mut input = q.input.clone();
        fit_placeholder(&mut input, bottom_a.width);
        input.set_block(
            Block::bordered()
                .border_style(theme.style("ui.border.focus"))
                .title(Span::styled(
                    format!(
                        " question · {} sends · {} removes a chip · {} closes ",
                        key(Action::Send),
                        key(Action::RemoveChip),
                        key(Action::Cancel)
                    ),
                    theme.style("ui.dim"),
                )),
        );
        f.render_widget(&input, bottom_a);
    } else {
        let hint = if q.turn().is_some() {
            format!(
                "{} cancels · {} closes",
                key(Action::CancelTurn),
                key(Action::Cancel)
            )
        } else {
            format!(
                "j/k sources · {} opens · {} promotes to a chat thread · {} closes",
                key(Action::Open),
                key(Action::Promote),
                key(Action::Cancel)
            )
        };
        f.render_widget(
            Paragraph::new(truncate(&hint, bottom_a.width as usize)).style(theme.style("ui.dim")),
            bottom_a,
        );
    }
}
