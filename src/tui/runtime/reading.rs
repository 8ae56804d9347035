//! The reading state service: loads `reading.json` at start and writes it back a moment after
//! the last change (a burst of j presses is one write), or at once when the app quits. It
//! writes one save at a time, in order, so an older save never lands after a newer one.

use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use super::work::{Busy, Held};
use crate::tui::app::Msg;
use crate::vault::Vault;
use crate::vault::reading::{ReadingState, ReadingStore};

/// How long a reading state save waits for more changes.
const SAVE_DELAY: Duration = Duration::from_millis(300);

/// How long quitting waits for the last save.
const QUIT_WAIT: Duration = Duration::from_secs(10);

enum Cmd {
    Load {
        held: Held,
    },
    /// A save; `written` is told when it is on disk (and the save is made at once).
    Save {
        state: Box<ReadingState>,
        written: Option<std::sync::mpsc::Sender<()>>,
    },
}

/// The door to the reading state service.
pub(super) struct Reading {
    tx: UnboundedSender<Cmd>,
    busy: Busy,
}

impl Reading {
    pub(super) fn start(vault: Vault, ui: UnboundedSender<Msg>, busy: Busy) -> Reading {
        let (tx, rx) = unbounded_channel();
        tokio::spawn(serve(vault, ui, rx));
        Reading { tx, busy }
    }

    pub(super) fn load(&self) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Load { held });
    }

    /// Saves `state` a moment later (a newer save replaces it), or `now`: written before this
    /// returns (quitting: a task would not outlive the app).
    pub(super) fn save(&self, state: Box<ReadingState>, now: bool) {
        if !now {
            // Not counted as busy work: a test settling after a key would wait for it.
            let _ = self.tx.send(Cmd::Save {
                state,
                written: None,
            });
            return;
        }
        let (written, done) = std::sync::mpsc::channel();
        let sent = self.tx.send(Cmd::Save {
            state,
            written: Some(written),
        });
        if sent.is_ok() && done.recv_timeout(QUIT_WAIT).is_err() {
            tracing::warn!("the reading state was not saved in time");
        }
    }
}

async fn serve(vault: Vault, ui: UnboundedSender<Msg>, mut rx: UnboundedReceiver<Cmd>) {
    let mut waiting: Option<(Instant, Box<ReadingState>)> = None;
    loop {
        let due = waiting.as_ref().map(|(at, _)| *at);
        let cmd = tokio::select! {
            cmd = rx.recv() => cmd,
            () = until(due) => {
                if let Some((_, state)) = waiting.take()
                    && let Err(e) = write(&vault, state).await
                {
                    let _ = ui.send(Msg::Status(format!("cannot save the reading state: {e}")));
                }
                continue;
            }
        };
        let Some(cmd) = cmd else { break };
        match cmd {
            Cmd::Load { held } => {
                let (vault, ui) = (vault.clone(), ui.clone());
                tokio::task::spawn_blocking(move || {
                    let (state, problems) = ReadingStore::new(&vault).load();
                    let _ = ui.send(Msg::Reading {
                        state: Box::new(state),
                        problems,
                    });
                    drop(held);
                });
            }
            Cmd::Save {
                state,
                written: None,
            } => waiting = Some((Instant::now() + SAVE_DELAY, state)),
            Cmd::Save {
                state,
                written: Some(written),
            } => {
                waiting = None;
                if let Err(e) = write(&vault, state).await {
                    tracing::warn!("cannot save the reading state: {e}");
                }
                let _ = written.send(());
            }
        }
    }
    // The app is gone with a save still waiting: written now.
    if let Some((_, state)) = waiting
        && let Err(e) = write(&vault, state).await
    {
        tracing::warn!("cannot save the reading state: {e}");
    }
}

/// Sleeps until `due`, or for ever without one.
async fn until(due: Option<Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

async fn write(vault: &Vault, state: Box<ReadingState>) -> std::io::Result<()> {
    let store = ReadingStore::new(vault);
    tokio::task::spawn_blocking(move || store.save(&state))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
}
