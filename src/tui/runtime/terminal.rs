//! The terminal: taken and given back on every exit path, the interactive loop (one channel,
//! drain, update, draw at most every 16 ms) and ctrl-z.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ratatui_image::picker::cap_parser::QueryStdioOptions;
use ratatui_image::picker::{Picker, ProtocolType};
use tokio::sync::mpsc::UnboundedReceiver;

use super::Runner;
use crate::tui::app::{AppState, Effect, Msg};
use crate::tui::theme::Theme;

/// Restores the terminal when the loop ends by any path (ratatui's panic hook covers panics,
/// [`init_terminal`]'s hook the mouse).
struct RestoreGuard;

impl Drop for RestoreGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// `ratatui::init` with mouse capture (scrolling and clicking are a bonus on the keyboard).
fn init_terminal() -> ratatui::DefaultTerminal {
    let t = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    t
}

/// `ratatui::restore` after giving the mouse back.
fn restore_terminal() {
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
}

/// On a panic the mouse is given back too (ratatui's hook restores the rest).
fn mouse_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        prev(info);
    }));
}

/// Wake-ups of the app loop (a message arrived or the frame timer fired), for the idle
/// benchmark: with nothing happening it must not move.
pub static LOOP_WAKEUPS: AtomicU64 = AtomicU64::new(0);
/// Frames drawn by the app loop.
pub static LOOP_DRAWS: AtomicU64 = AtomicU64::new(0);

/// The interactive loop on the real terminal.
pub async fn run_terminal(
    mut app: AppState,
    theme: Theme,
    runner: Runner,
    rx: UnboundedReceiver<Msg>,
) -> anyhow::Result<()> {
    let mut terminal = init_terminal();
    mouse_panic_hook();
    let _guard = RestoreGuard;
    let size = terminal.size()?;
    let _ = app.update(Msg::Resize(size.width, size.height));
    // Asked before the input thread reads the terminal: its answers would be taken for keys.
    runner.set_picker(image_picker());
    runner.copy_to_terminal();
    let tx = runner.sender();
    // Terminal input on its own thread, blocked in read(): no polling timer, no wake-ups
    // while nothing happens. Only built here, on the interactive path (it needs a tty).
    std::thread::Builder::new()
        .name("agentero-input".into())
        .spawn(move || {
            while let Ok(ev) = ratatui::crossterm::event::read() {
                if tx.send(Msg::Term(ev)).is_err() {
                    break;
                }
            }
        })?;
    run_loop(app, &theme, &runner, rx, &mut terminal, &mut |t| {
        suspend()?;
        *t = init_terminal();
        t.clear()?;
        Ok(())
    })
    .await
}

/// How this terminal shows images: `AGENTERO_IMAGES=halfblocks` (or `kitty`, `sixel`,
/// `iterm2`) decides; otherwise the terminal is asked (a short query, answered by every
/// terminal that knows a graphics protocol), half-blocks when it says nothing useful.
fn image_picker() -> Picker {
    let forced = std::env::var("AGENTERO_IMAGES").unwrap_or_default();
    let forced = match forced.to_ascii_lowercase().as_str() {
        "halfblocks" | "half-blocks" | "blocks" => return Picker::halfblocks(),
        "kitty" => Some(ProtocolType::Kitty),
        "sixel" => Some(ProtocolType::Sixel),
        "iterm2" => Some(ProtocolType::Iterm2),
        _ => None,
    };
    let options = QueryStdioOptions {
        timeout: Duration::from_millis(IMAGE_QUERY_MS),
        ..Default::default()
    };
    let mut picker = Picker::from_query_stdio_with_options(options).unwrap_or_else(|e| {
        tracing::info!("terminal graphics query: {e}; half-blocks");
        Picker::halfblocks()
    });
    if let Some(p) = forced {
        picker.set_protocol_type(p);
    }
    tracing::info!(protocol = ?picker.protocol_type(), "page images");
    picker
}

/// How long the terminal may take to answer the graphics query.
const IMAGE_QUERY_MS: u64 = 400;

/// The app loop on any backend (the terminal, or a `TestBackend` for the idle benchmark):
/// one channel, drain, update, draw at most every 16 ms. It sleeps in `recv` with nothing to
/// do; the only timer is the one for a frame still owed after a burst of messages.
pub async fn run_loop<B: ratatui::backend::Backend>(
    mut app: AppState,
    theme: &Theme,
    runner: &Runner,
    mut rx: UnboundedReceiver<Msg>,
    terminal: &mut ratatui::Terminal<B>,
    on_suspend: &mut dyn FnMut(&mut ratatui::Terminal<B>) -> anyhow::Result<()>,
) -> anyhow::Result<()>
where
    B::Error: Send + Sync + 'static,
{
    for e in app.start() {
        runner.run(e);
    }
    let frame = Duration::from_millis(16);
    let mut last_draw = Instant::now() - frame;
    terminal.draw(|f| crate::tui::app::view::view(&app, theme, f))?;
    LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
    let mut dirty = false;
    'outer: loop {
        let msg = if dirty {
            let wait = frame.saturating_sub(last_draw.elapsed());
            let m = tokio::time::timeout(wait, rx.recv()).await;
            LOOP_WAKEUPS.fetch_add(1, Ordering::Relaxed);
            match m {
                Ok(m) => m,
                Err(_) => {
                    terminal.draw(|f| crate::tui::app::view::view(&app, theme, f))?;
                    LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
                    last_draw = Instant::now();
                    dirty = false;
                    continue;
                }
            }
        } else {
            let m = rx.recv().await;
            LOOP_WAKEUPS.fetch_add(1, Ordering::Relaxed);
            m
        };
        let Some(msg) = msg else { break };
        let mut batch = vec![msg];
        while let Ok(m) = rx.try_recv() {
            batch.push(m);
        }
        for m in batch {
            for e in app.update(m) {
                match e {
                    Effect::Quit => break 'outer,
                    Effect::Suspend => on_suspend(terminal)?,
                    other => runner.run(other),
                }
            }
        }
        if app.quitting() {
            break;
        }
        dirty = true;
        if last_draw.elapsed() >= frame {
            terminal.draw(|f| crate::tui::app::view::view(&app, theme, f))?;
            LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
            last_draw = Instant::now();
            dirty = false;
        }
    }
    Ok(())
}

/// ctrl-z: give the terminal back, stop until `fg`, then take it again.
fn suspend() -> anyhow::Result<()> {
    restore_terminal();
    // SIGTSTP to ourselves via kill(1): std has no raise(), and the job-control shell then
    // sees us stopped exactly as with a ctrl-z in cooked mode.
    let pid = std::process::id().to_string();
    std::process::Command::new("kill")
        .args(["-TSTP", &pid])
        .status()?;
    Ok(())
}
