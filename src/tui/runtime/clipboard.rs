//! The clipboard: a copy (`y`) goes to the terminal as an OSC 52 sequence in the interactive
//! app, and the text copied last is kept (what the headless driver reads back).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc::UnboundedSender;

use crate::tui::app::{Msg, Status};

/// Terminals cap an OSC 52 payload (xterm at about 100 kB of base64).
const OSC52_MAX_BYTES: usize = 74_000;

/// Owned by the runner alone (copies are made on the loop's thread, between two frames).
#[derive(Default)]
pub(super) struct Clipboard {
    osc52: AtomicBool,
    last: Mutex<Option<String>>,
}

impl Clipboard {
    /// Copies go to the terminal's clipboard as OSC 52 sequences (the interactive app).
    pub(super) fn to_terminal(&self) {
        self.osc52.store(true, Ordering::SeqCst);
    }

    /// The text copied last.
    pub(super) fn last(&self) -> Option<String> {
        self.last.lock().ok()?.clone()
    }

    pub(super) fn copy(&self, text: String, ui: &UnboundedSender<Msg>) {
        if text.len() > OSC52_MAX_BYTES {
            let _ = ui.send(Msg::Status(Status::error(format!(
                "not copied: {} kB is more than terminals take through OSC 52",
                text.len() / 1000
            ))));
            return;
        }
        if self.osc52.load(Ordering::SeqCst) {
            use base64::Engine;
            use std::io::Write;
            let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            // Written between two frames (effects run on the loop's thread).
            let mut out = std::io::stdout().lock();
            let written = write!(out, "\x1b]52;c;{b64}\x07").and_then(|_| out.flush());
            if let Err(e) = written {
                let _ = ui.send(Msg::Status(Status::error(format!(
                    "cannot copy through the terminal: {e}"
                ))));
            }
        }
        if let Ok(mut g) = self.last.lock() {
            *g = Some(text);
        }
    }
}
