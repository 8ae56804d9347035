//! The reading state service: loads `reading.json` at start and writes it back a moment after
//! the last change (a burst of j presses is one write), or at once when the app quits. It
//! writes one save at a time, in order, so an older save never lands after a newer one.

use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::time::Instant;

use super::work::{Busy, Held};
use crate::tui::app::{Msg, Status};
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
                    let _ = ui.send(Msg::Status(Status::error(format!("cannot save the reading state: {e}"))));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::reading::Place;

    fn at(page: u32) -> Box<ReadingState> {
        let mut s = ReadingState::default();
        let place = Place {
            page,
            row: 0,
            opened_ms: 1,
        };
        s.places.insert("a.md".into(), place);
        Box::new(s)
    }

    /// A burst of saves ends on disk as its last; a save at quit is on disk when it returns,
    /// and the save it replaced is never written after it.
    #[test]
    fn the_last_save_wins_and_quitting_writes_at_once() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "one page").unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let _g = rt.enter();
        let (ui, mut rx) = unbounded_channel();
        let reading = Reading::start(vault.clone(), ui, Busy::default());
        let store = ReadingStore::new(&vault);
        let page = || store.load().0.places.get("a.md").map(|p| p.page);
        for p in 1..=5 {
            reading.save(at(p), false);
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while page() != Some(5) && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(page(), Some(5));
        reading.save(at(6), false);
        reading.save(at(7), true);
        assert_eq!(page(), Some(7));
        std::thread::sleep(SAVE_DELAY * 2);
        assert_eq!(
            page(),
            Some(7),
            "a replaced save was written after the quit's"
        );
        assert!(rx.try_recv().is_err(), "no save failed");
    }
}
