//! The which-key strip drawn.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Input;
use crate::tui::keymap::{Keymap, Mode};
use crate::tui::text::str_width;
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
    // One entry per key, wrapped between entries (a key never ends a line without its action).
    let width = status.width.max(1) as usize;
    let mut lines: Vec<Vec<Span>> = vec![Vec::new()];
    let mut used = 0;
    for (k, a) in &conts {
        let key = format!(" {k} ");
        let name = format!("{}  ", a.label());
        let w = str_width(&key) + str_width(&name);
        if used > 0 && used + w > width {
            lines.push(Vec::new());
            used = 0;
        }
        used += w;
        let line = lines.last_mut().expect("one line at least");
        line.push(Span::styled(key, theme.style("ui.whichkey.key")));
        line.push(Span::styled(name, theme.style("ui.whichkey")));
    }
    // Every continuation shown while it fits in a third of the screen above the status line.
    lines.truncate((status.y as usize / 3).max(4));
    let h = lines.len() as u16;
    let area = Rect {
        x: status.x,
        y: status.y.saturating_sub(h),
        width: status.width,
        height: h,
    };
    crate::tui::widgets::clear(f, area, theme);
    let lines: Vec<Line> = lines.into_iter().map(Line::from).collect();
    f.render_widget(
        Paragraph::new(lines).style(theme.style("ui.whichkey")),
        area,
    );
}
