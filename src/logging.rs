//! Logs go to `{vault}/.agentero/logs/agentero.log` through `tracing`, never to the terminal:
//! stdout belongs to the TUI or to a JSON-RPC peer.

use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Starts file logging. `AGENTERO_LOG` sets the filter (default `info`). Failing to open the
/// log is not fatal: the app works without it. A log file or folder that is not agentero's
/// own (a planted link, another user's file) is refused, and stderr (never stdout) says so.
pub fn init(state_dir: &Path) {
    let file =
        match crate::vault::statefs::open_append(&state_dir.join("logs").join("agentero.log")) {
            Ok(f) => f,
            Err(e) => {
                if e.problem().is_some() {
                    eprintln!("agentero: not logging: {e}");
                }
                return;
            }
        };
    let filter = EnvFilter::try_from_env("AGENTERO_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init();
}

/// Panics in the isolated extraction threads are expected on hostile PDFs: they are reported
/// as per-file errors, so they go to the log instead of the terminal.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let isolated = std::thread::current()
            .name()
            .is_some_and(|n| n == crate::vault::extract::ISOLATED_THREAD);
        if isolated {
            tracing::warn!(panic = %info, "a document crashed the parser");
        } else if crate::vault::index::panic_is_contained() {
            tracing::warn!(panic = %info, "a damaged index made tantivy panic");
        } else {
            tracing::error!(panic = %info, "panic");
            default(info);
        }
    }));
}
