//! The whole screen: the panes side by side (three when wide), the status bar, the which-key
//! strip, the Quick Chat popup and the open overlay — each drawn by its component.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::layout::layout;
use super::{AppState, Level};
use crate::tui::effect::{Pane, PromptKind};
use crate::tui::key::chord_text;
use crate::tui::keymap::Mode;
use crate::tui::overlay::Overlay;
use crate::tui::text::str_width;
use crate::tui::theme::Theme;
use crate::tui::widgets::truncate;
use crate::tui::{browser, chat, checklist, input, overlay, paper, quick};

pub fn view(st: &AppState, theme: &Theme, f: &mut Frame) {
    let a = layout(
        f.area(),
        st.focus,
        st.paper.maximised(),
        st.checklist_shown(),
    );
    f.render_widget(Block::default().style(theme.style("ui.text")), f.area());
    if a.vault.width > 0
        && let Some(c) = st.checklist.as_ref().filter(|c| c.shown)
    {
        checklist::view::view(c, st.focus == Pane::Vault, theme, f, a.vault);
    } else if a.vault.width > 0 {
        browser::view::view(
            &st.browser,
            &st.vault_name,
            st.focus == Pane::Vault,
            theme,
            f,
            a.vault,
        );
    }
    if a.paper.width > 0 {
        let focused = st.focus == Pane::Paper;
        paper::view::view(&st.paper, focused, theme, f, a.paper, a.paper_text);
    }
    if a.chat.width > 0 {
        let focused = st.focus == Pane::Chat;
        chat::view::view(&st.chat, &st.keymap, focused, theme, f, a.chat);
    }
    status(st, theme, f, a.status);
    if !st.input.pending().is_empty() {
        input::view::which_key(&st.input, &st.keymap, &st.mode_chain(), theme, f, a.status);
    }
    // A Quick Chat's permission question is asked over its popup.
    if let Some(q) = &st.quick
        && matches!(st.overlay, None | Some(Overlay::Permission { .. }))
    {
        let titles = |path: &str| {
            st.browser()
                .entries()
                .iter()
                .find(|e| e.path == path)
                .map(|e| e.title.clone())
        };
        quick::view::view(q, &st.keymap, &st.mode_chain(), theme, &titles, f);
    }
    match &st.overlay {
        Some(Overlay::Help { scroll, .. }) => {
            overlay::view::help(&st.keymap, &st.errors, theme, f, *scroll)
        }
        Some(Overlay::List(list)) => overlay::view::list(theme, f, list),
        Some(Overlay::Text { title, lines, .. }) => overlay::view::text(theme, f, title, lines),
        Some(Overlay::Permission { request, .. }) => overlay::view::permission(theme, f, request),
        None => {}
    }
}

fn status(st: &AppState, theme: &Theme, f: &mut Frame, area: Rect) {
    let mode = match (&st.overlay, st.focus_mode()) {
        (Some(_), _) => "OVERLAY",
        (None, Mode::Vault) => "VAULT",
        (None, Mode::Checklist) => "CHECKLIST",
        (None, Mode::Paper) => "PAPER",
        (None, Mode::Visual) => "VISUAL",
        (None, Mode::Chat) => "CHAT",
        (None, Mode::Input) => "INSERT",
        (None, Mode::Mention) => "MENTION",
        _ => "",
    };
    let mut left = format!(" {mode} ");
    if let Some(c) = st.input.count() {
        left.push_str(&format!("{c} "));
    }
    if !st.input.pending().is_empty() {
        left.push_str(&format!("{} ", chord_text(st.input.pending())));
    }
    let (msg, style) = if let Some(p) = st.input.prompt() {
        let lead = match p.kind {
            PromptKind::Search => "/",
            PromptKind::VaultSearch => "search the vault (in:FOLDER/ to narrow): ",
            PromptKind::Filter => "filter: ",
            PromptKind::Threads => "find threads: ",
            PromptKind::Comment => "comment (optional): ",
        };
        (format!("{lead}{}█", p.text), theme.style("ui.status"))
    } else if let Some((done, total)) = st.index {
        (
            format!("indexing {done}/{total}…"),
            theme.style("ui.status.progress"),
        )
    } else if !st.status.is_empty() {
        let style = match st.status.level {
            Level::Error => "ui.status.error",
            Level::Info => "ui.status",
        };
        (st.status.text.clone(), theme.style(style))
    } else if let Some(e) = st.errors.first() {
        (
            format!("{e} (+{} more, see ?)", st.errors.len() - 1),
            theme.style("ui.status.error"),
        )
    } else {
        (
            "? help · space f vault · space c chat · q quit".to_string(),
            theme.style("ui.status"),
        )
    };
    // The message first; the MCP address and the vault's name get what it leaves, the name
    // going first (80 columns keep the message whole).
    let msg_w = str_width(&msg);
    let room_right = (area.width as usize).saturating_sub(str_width(&left) + msg_w + 1);
    let parts = [
        (
            1,
            st.vault_mcp()
                .map(|url| format!("mcp {}", url.trim_start_matches("http://")))
                .unwrap_or_default(),
        ),
        (2, st.vault_name.clone()),
    ];
    let fitted = crate::tui::widgets::fit_parts(&parts, " · ", room_right.saturating_sub(2));
    // A part cut to an ellipsis is no use: leave the right side empty instead.
    let right = if fitted.is_empty() || fitted.ends_with('…') {
        String::new()
    } else {
        format!(" {fitted} ")
    };
    let room = (area.width as usize).saturating_sub(str_width(&left) + str_width(&right));
    let line = Line::from(vec![
        Span::styled(
            left,
            theme
                .style("ui.status")
                .patch(Style::default().add_modifier(ratatui::style::Modifier::BOLD)),
        ),
        Span::styled(format!("{:<room$}", truncate(&msg, room)), style),
        Span::styled(right, theme.style("ui.status")),
    ]);
    f.render_widget(Paragraph::new(line).style(theme.style("ui.status")), area);
}
