//! The which-key strip drawn.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::Input;
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::theme::Theme;

/// The which-key strip above the status bar while a chord is pending: what each next key does.
pub fn which_key(
    input: &Input,
    keymap: &Keymap,
    chain: &[Mode],
    theme: &Theme,
    f: &mut Frame,
    status: Rect,
) {
    if input.pending.is_empty() {
        return;
    }
    let conts = keymap.continuations(chain, &input.pending);
    if conts.is_empty() {
        return;
    }
    let mut spans = Vec::new();
    for (k, a) in &conts {
        spans.push(Span::styled(
            format!(" {k} "),
            theme.style("ui.whichkey.key"),
        ));
        spans.push(Span::styled(
            format!("{}  ", a.name()),
            theme.style("ui.whichkey"),
        ));
    }
    let width = status.width.max(1) as usize;
    let total: usize = spans.iter().map(|s| s.width()).sum();
    let h = total.div_ceil(width).clamp(1, 4) as u16;
    let area = Rect {
        x: status.x,
        y: status.y.saturating_sub(h),
        width: status.width,
        height: h,
    };
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(Line::from(spans))
            .style(theme.style("ui.whichkey"))
            .wrap(Wrap { trim: false }),
        area,
    );
}
