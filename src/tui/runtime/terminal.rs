//! The terminal: taken and given back on every exit path, the interactive loop (one channel,
//! drain, update, draw at most every 16 ms) and ctrl-z.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ratatui_image::picker::{Picker, ProtocolType};
use tokio::sync::mpsc::UnboundedReceiver;

use super::{Runner, termquery};
use crate::tui::app::{AppState, Effect, Msg, Signal};
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

/// On a panic the mouse is given back too (ratatui's hook restores the rest), and every
/// agent process group is ended: nothing of agentero outlives it.
fn panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        crate::acp::transport::stop_all_groups(Duration::from_millis(300));
        prev(info);
    }));
}

/// What the loop asks of the terminal's owner besides drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// Give the terminal back and stop until continued (ctrl-z, SIGTSTP).
    Suspend,
    /// Take it again and draw it whole (SIGCONT).
    Resume,
}

/// Turns SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGTSTP and SIGCONT into messages on the app's
/// channel, so each ends, stops or resumes the app through its loop (reading state saved,
/// agents stopped, terminal restored) instead of by the default action, which left agents
/// running and the terminal raw. The task ends with the runtime.
fn forward_signals(tx: tokio::sync::mpsc::UnboundedSender<Msg>) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        (SignalKind::hangup(), Signal::Hangup),
        (SignalKind::terminate(), Signal::Terminate),
        (SignalKind::interrupt(), Signal::Terminate),
        (SignalKind::quit(), Signal::Terminate),
        (
            SignalKind::from_raw(rustix::process::Signal::TSTP.as_raw()),
            Signal::Stop,
        ),
        (
            SignalKind::from_raw(rustix::process::Signal::CONT.as_raw()),
            Signal::Continue,
        ),
    ];
    for (kind, what) in kinds {
        let mut stream = signal(kind)?;
        let tx = tx.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                tracing::info!(signal = ?what, "signal");
                if tx.send(Msg::Signal(what)).is_err() {
                    break;
                }
                if matches!(what, Signal::Hangup | Signal::Terminate) {
                    // Should the loop not get to it (blocked, or the terminal gone for good),
                    // end the agents and leave anyway.
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    crate::acp::transport::stop_all_groups(Duration::from_millis(500));
                    restore_terminal();
                    std::process::exit(128 + signal_number(what));
                }
            }
        });
    }
    Ok(())
}

fn signal_number(s: Signal) -> i32 {
    match s {
        Signal::Hangup => rustix::process::Signal::HUP.as_raw(),
        _ => rustix::process::Signal::TERM.as_raw(),
    }
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
    panic_hook();
    let _guard = RestoreGuard;
    let size = terminal.size()?;
    let _ = app.update(Msg::Resize(size.width, size.height));
    let tx = runner.sender();
    forward_signals(tx.clone())?;
    // Asked before the input thread reads the terminal, and read to the end here: keys typed
    // meanwhile come back as keys, and nothing is left reading afterwards.
    let (picker, early_keys) = image_picker();
    runner.set_picker(picker);
    for key in early_keys {
        let _ = tx.send(Msg::Term(ratatui::crossterm::event::Event::Key(key)));
    }
    runner.copy_to_terminal();
    // Terminal input on its own thread, blocked in read(): no polling timer, no wake-ups
    // while nothing happens. Only built here, on the interactive path (it needs a tty).
    std::thread::Builder::new()
        .name("agentero-input".into())
        .spawn(move || {
            loop {
                match ratatui::crossterm::event::read() {
                    Ok(ev) => {
                        if tx.send(Msg::Term(ev)).is_err() {
                            break;
                        }
                    }
                    // A signal (a child exiting, a stop and continue) interrupts the read;
                    // only a terminal that is gone ends it.
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::info!("terminal input ended: {e}");
                        break;
                    }
                }
            }
        })?;
    let result = run_loop(
        app,
        &theme,
        &runner,
        rx,
        &mut terminal,
        &mut |t, h| match h {
            Handover::Suspend => {
                suspend();
                take_again(t)
            }
            Handover::Resume => take_again(t),
        },
    )
    .await;
    // Every agent's process group, politely first (SIGTERM, a grace, then SIGKILL), before
    // the terminal is given back and the runtime drops the turns still running.
    let ended = tokio::task::spawn_blocking(|| {
        crate::acp::transport::stop_all_groups(Duration::from_millis(AGENT_STOP_GRACE_MS))
    })
    .await
    .unwrap_or(0);
    tracing::info!(ended, "agent process groups stopped");
    result
}

/// How long agents get to exit after SIGTERM when the app ends.
const AGENT_STOP_GRACE_MS: u64 = 1500;

/// Raw mode, the alternate screen and the mouse again, and a fresh terminal whose next draw
/// writes every cell. Nothing is asked of the terminal (`Terminal::clear` asks for the cursor
/// position, which nothing may answer after `fg`: the app died there).
fn take_again(t: &mut ratatui::DefaultTerminal) -> anyhow::Result<()> {
    use ratatui::crossterm::{event, execute, terminal};
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        event::EnableMouseCapture,
        terminal::Clear(terminal::ClearType::All)
    )?;
    *t = ratatui::Terminal::new(ratatui::backend::CrosstermBackend::new(std::io::stdout()))?;
    Ok(())
}

/// How this terminal shows images, and the keys typed while it was asked:
/// `AGENTERO_IMAGES=halfblocks` (or `kitty`, `sixel`, `iterm2`) decides; otherwise the terminal
/// is asked (a short query; inside tmux only when tmux passes it on), half-blocks when it says
/// nothing useful.
fn image_picker() -> (Picker, Vec<ratatui::crossterm::event::KeyEvent>) {
    let forced = std::env::var("AGENTERO_IMAGES").unwrap_or_default();
    let forced = match forced.to_ascii_lowercase().as_str() {
        "halfblocks" | "half-blocks" | "blocks" => {
            return (termquery::halfblocks(), Vec::new());
        }
        "kitty" => Some(ProtocolType::Kitty),
        "sixel" => Some(ProtocolType::Sixel),
        "iterm2" => Some(ProtocolType::Iterm2),
        _ => None,
    };
    let host = termquery::host();
    let outcome = termquery::ask(host, Duration::from_millis(IMAGE_QUERY_MS));
    let a = &outcome.answers;
    let cell = a
        .cell_px
        .filter(|(w, h)| *w > 0 && *h > 0)
        .or_else(cell_from_winsize)
        .unwrap_or((10, 20));
    // The constructor from a known cell size (the query is ours); inside tmux it wraps the
    // graphics in passthrough.
    #[allow(deprecated)]
    let mut picker = termquery::without_tmux_changes(|| {
        Picker::from_fontsize(ratatui_image::FontSize {
            width: cell.0,
            height: cell.1,
        })
    });
    if a.kitty {
        picker.set_protocol_type(ProtocolType::Kitty);
    } else if a.sixel {
        picker.set_protocol_type(ProtocolType::Sixel);
    } else if host == termquery::Host::TmuxClosed {
        // Nothing passes tmux (a guess from the environment would draw escape codes).
        picker.set_protocol_type(ProtocolType::Halfblocks);
    }
    if host == termquery::Host::TmuxPassthrough
        && !picker.tmux_detected()
        && picker.protocol_type() != ProtocolType::Halfblocks
    {
        // The image library wraps graphics for tmux only when TERM or TERM_PROGRAM says
        // tmux; unwrapped, tmux would not pass them on.
        tracing::warn!("inside tmux but TERM/TERM_PROGRAM do not say so: half-blocks");
        picker.set_protocol_type(ProtocolType::Halfblocks);
    }
    if let Some(p) = forced {
        picker.set_protocol_type(p);
    }
    tracing::info!(?host, answered = a.complete, protocol = ?picker.protocol_type(), "page images");
    (picker, outcome.keys)
}

/// The cell size from the terminal's window size in pixels, where it reports one.
fn cell_from_winsize() -> Option<(u16, u16)> {
    let ws = rustix::termios::tcgetwinsize(rustix::stdio::stdout()).ok()?;
    if ws.ws_col == 0 || ws.ws_row == 0 || ws.ws_xpixel == 0 || ws.ws_ypixel == 0 {
        return None;
    }
    Some((ws.ws_xpixel / ws.ws_col, ws.ws_ypixel / ws.ws_row))
}

/// How long the terminal may take to answer the graphics query (the device attributes end
/// it at once in a terminal that answers; this is what a silent one costs at start).
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
    on_terminal: &mut dyn FnMut(&mut ratatui::Terminal<B>, Handover) -> anyhow::Result<()>,
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
                    Effect::Suspend => {
                        on_terminal(terminal, Handover::Suspend)?;
                        last_draw = Instant::now() - frame;
                    }
                    Effect::Resume => {
                        on_terminal(terminal, Handover::Resume)?;
                        last_draw = Instant::now() - frame;
                    }
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

/// ctrl-z or SIGTSTP: give the terminal back and stop until `fg`. SIGSTOP, not SIGTSTP: the
/// latter is ours now (it would only come back as a message); the shell sees the job stopped
/// either way, and SIGCONT continues it here.
fn suspend() {
    restore_terminal();
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::STOP);
}
