//! Chat threads on disk: restored at start, taken by a turn, and the Quick Chat's scratch
//! transcript promoted to a thread or dropped.

use super::Runner;
use crate::acp::transcript::{self, Thread as Transcript};
use crate::tui::thread as chat;

impl Runner {
    /// Every thread in `.agentero/chats/`, oldest first (the most recent ends up current).
    pub(super) fn load_threads(&self) -> Vec<chat::Thread> {
        let chats = transcript::chats_dir(&self.vault);
        let names = match crate::vault::statefs::check_dir(&chats).and_then(|d| d.list()) {
            Ok(names) => names,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(error = %e, "cannot load the threads");
                }
                return Vec::new();
            }
        };
        let mut found: Vec<(String, Transcript)> = Vec::new();
        for name in names {
            let id = name.to_string_lossy().into_owned();
            match Transcript::open(&self.vault, &id) {
                Ok(t) => found.push((t.state.updated.clone(), t)),
                Err(err) => tracing::warn!(thread = id, error = %err, "cannot load the thread"),
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let out = found
            .iter()
            .map(|(_, t)| chat::from_transcript(t))
            .collect();
        if let Ok(mut m) = self.threads.lock() {
            for (_, t) in found {
                m.entry(t.id.clone()).or_insert(t);
            }
        }
        out
    }

    /// The thread behind the chat pane's id: in memory, else on disk, else a new one (whose
    /// folder appears with its first line).
    pub(super) fn take_thread(&self, id: &str) -> Transcript {
        if let Some(t) = self.threads.lock().ok().and_then(|mut m| m.remove(id)) {
            return t;
        }
        if crate::context::grant::valid_id(id)
            && transcript::chats_dir(&self.vault).join(id).is_dir()
            && let Ok(t) = Transcript::open(&self.vault, id)
        {
            return t;
        }
        Transcript::create(&self.vault)
    }

    /// The Quick Chat of `turn` as a new thread on disk: its lines appended through the
    /// transcript API, its session kept (the next question there resumes it), the scratch
    /// copy removed. Returns the thread as the chat pane shows it.
    pub(super) fn promote(&self, turn: u64) -> Result<chat::Thread, String> {
        let quick = self
            .quick
            .lock()
            .map_err(|_| "the Quick Chat is unavailable".to_string())?
            .take_if(|(t, _)| *t == turn)
            .map(|(_, q)| q)
            .ok_or("this Quick Chat is gone (it was closed or replaced)")?;
        let mut thread = Transcript::create(&self.vault);
        thread.state.session = quick.state.session.clone();
        thread.state.title = quick.state.title.clone();
        thread.state.summary = quick.state.summary.clone();
        for line in &quick.lines {
            thread
                .append(line.clone())
                .map_err(|e| format!("cannot write the thread: {e}"))?;
        }
        thread
            .save_state()
            .map_err(|e| format!("cannot write the thread: {e}"))?;
        let _ = crate::vault::statefs::remove_dir_all(&quick.dir);
        let shown = chat::from_transcript(&thread);
        if let Ok(mut m) = self.threads.lock() {
            m.insert(thread.id.clone(), thread);
        }
        Ok(shown)
    }

    pub(super) fn drop_quick(&self, turn: u64) {
        let dropped = self
            .quick
            .lock()
            .ok()
            .and_then(|mut q| q.take_if(|(t, _)| *t == turn));
        if let Some((_, q)) = dropped {
            let _ = crate::vault::statefs::remove_dir_all(&q.dir);
        }
    }
}
