//! The manuscript a shown checklist is about, watched for saves: its file is looked at twice a
//! second (a stat, cheap on a local disk and over a network one alike) and a change, once it
//! has settled, is reported as `Msg::DraftSaved`. One watch at a time; a new one, or `None`,
//! ends the last. Not counted as busy work: nothing waits for a save.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use crate::context::check::source::{DraftAt, Stamp};
use crate::tui::app::Msg;
use crate::vault::Vault;

/// How often the file is looked at.
const EVERY: Duration = Duration::from_millis(500);
/// How long a change must hold before it counts (an editor writes a file in steps).
const SETTLE: Duration = Duration::from_millis(250);

pub struct Watch {
    vault: Vault,
    ui: UnboundedSender<Msg>,
    /// The watch that runs (0: none); a loop whose id is no longer this one ends.
    current: Arc<AtomicU64>,
}

impl Watch {
    pub fn new(vault: Vault, ui: UnboundedSender<Msg>) -> Watch {
        Watch {
            vault,
            ui,
            current: Arc::new(AtomicU64::new(0)),
        }
    }

    pub fn watch(&self, id: u64, draft: Option<(DraftAt, Option<Stamp>)>) {
        let Some((draft, since)) = draft else {
            self.current.store(0, Ordering::SeqCst);
            return;
        };
        self.current.store(id, Ordering::SeqCst);
        let (current, ui) = (self.current.clone(), self.ui.clone());
        // A vault manuscript is looked at through the vault's rules each time (a file swapped
        // for a symlink out of the vault is not followed).
        let vault = self.vault.clone();
        let file = move || -> Option<PathBuf> { draft.file(&vault).ok() };
        tokio::spawn(async move {
            let mut last = since.or_else(|| file().and_then(|f| Stamp::of(&f)));
            loop {
                tokio::time::sleep(EVERY).await;
                if current.load(Ordering::SeqCst) != id {
                    return;
                }
                let now = file().and_then(|f| Stamp::of(&f));
                if now == last || now.is_none() {
                    // Gone for now (an editor that saves by rename): looked at again.
                    continue;
                }
                tokio::time::sleep(SETTLE).await;
                let settled = file().and_then(|f| Stamp::of(&f));
                if settled != now {
                    continue;
                }
                last = settled;
                if current.load(Ordering::SeqCst) != id || ui.send(Msg::DraftSaved { id }).is_err()
                {
                    return;
                }
            }
        });
    }
}
