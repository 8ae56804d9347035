//! The status bar's level: chosen by the message's writer, never read from its words.

use std::time::Duration;

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::{AppState, Effect, Level, Msg, Status};
use crate::tui::chips::AgentState;
use crate::tui::keymap::Keymap;
use crate::tui::theme::{self, Theme};
use crate::tui::thread::Thread;

fn app() -> AppState {
    let mut app = AppState::new(
        "vault".into(),
        Keymap::load("default", None),
        AgentState::Starting {
            name: "agent".into(),
        },
    );
    app.update(Msg::Resize(100, 30));
    app
}

/// How long the status message stays, as the app asks the runtime.
fn expiry(fx: &[Effect]) -> Option<Duration> {
    fx.iter().find_map(|e| match e {
        Effect::ExpireStatus { after, .. } => Some(*after),
        _ => None,
    })
}

/// The style of the status bar's message as drawn.
fn drawn_style(app: &AppState, theme: &Theme) -> ratatui::style::Style {
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    term.draw(|f| super::view::view(app, theme, f)).unwrap();
    let buf = term.backend().buffer();
    let row = buf.area.height - 1;
    // The mode (" VAULT ") comes first; the message starts after it.
    let x = (0..buf.area.width)
        .find(|x| buf[(*x, row)].symbol() == "Q")
        .expect("the message is drawn");
    buf[(x, row)].style()
}

#[test]
fn a_thread_titled_error_is_not_a_red_status() {
    let theme = Theme::try_load("default", &theme::shipped, false).unwrap();
    let mut app = app();
    let mut thread = Thread::new("t1".into());
    thread.title = "error bars: errors in the results".into();
    let fx = app.update(Msg::Promoted(Ok(thread)));
    assert!(app.status().contains("error bars"), "{}", app.status());
    assert_eq!(app.status_level(), Level::Info);
    assert_eq!(expiry(&fx), Some(Duration::from_secs(super::STATUS_SECS)));
    let info = drawn_style(&app, &theme);
    assert_eq!(info.bg, theme.style("ui.status").bg);
    assert_ne!(info.bg, theme.style("ui.status.error").bg);

    // A failure is red and stays longer, whatever its words.
    let fx = app.update(Msg::Status(Status::error("Quick Chat gone")));
    assert_eq!(app.status_level(), Level::Error);
    assert_eq!(
        expiry(&fx),
        Some(Duration::from_secs(super::STATUS_ERROR_SECS))
    );
    assert_eq!(
        drawn_style(&app, &theme).fg,
        theme.style("ui.status.error").fg
    );

    // "error" in a note about a chip: a note.
    let fx = app.update(Msg::Status(Status::info(
        "Quick Chat: removed @papers/error.pdf",
    )));
    assert_eq!(app.status_level(), Level::Info);
    assert_eq!(expiry(&fx), Some(Duration::from_secs(super::STATUS_SECS)));
    assert_eq!(drawn_style(&app, &theme).bg, theme.style("ui.status").bg);
}
