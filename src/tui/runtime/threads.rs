//! Chat threads on disk: restored at start, opened for a turn, and the Quick Chat's scratch
//! transcript promoted to a thread. The threads in memory belong to the turns service
//! ([`super::turns`]); these are the file system's side of it.

use crate::acp::transcript::{self, Thread as Transcript};
use crate::tui::thread as chat;
use crate::vault::Vault;

/// Where Quick Chat transcripts live until promoted or dropped (under `.agentero/`).
pub(super) const QUICK_DIR: &str = "quick";

/// Every thread in `.agentero/chats/`, oldest first (the most recent ends up current).
pub(super) fn load(vault: &Vault) -> Vec<Transcript> {
    let chats = transcript::chats_dir(vault);
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
        match Transcript::open(vault, &id) {
            Ok(t) => found.push((t.state.updated.clone(), t)),
            Err(err) => tracing::warn!(thread = id, error = %err, "cannot load the thread"),
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.into_iter().map(|(_, t)| t).collect()
}

/// The threads in `.agentero/chats/` whose ids are not in `known`, oldest first: written by
/// another process since the app loaded its threads.
pub(super) fn new_on_disk(
    vault: &Vault,
    known: &std::collections::HashSet<String>,
) -> Vec<Transcript> {
    let chats = transcript::chats_dir(vault);
    let Ok(names) = crate::vault::statefs::check_dir(&chats).and_then(|d| d.list()) else {
        return Vec::new();
    };
    let mut found: Vec<(String, Transcript)> = names
        .into_iter()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|id| !known.contains(id))
        .filter_map(|id| Transcript::open(vault, &id).ok())
        // A thread another process is still writing its first line to is read next time.
        .filter(|t| !t.lines.is_empty())
        .map(|t| (t.state.updated.clone(), t))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.into_iter().map(|(_, t)| t).collect()
}

/// The thread behind the chat pane's id when it is not in memory: on disk, else a new one
/// (whose folder appears with its first line).
pub(super) fn open_or_create(vault: &Vault, id: &str) -> Transcript {
    if crate::context::grant::valid_id(id)
        && transcript::chats_dir(vault).join(id).is_dir()
        && let Ok(t) = Transcript::open(vault, id)
    {
        return t;
    }
    Transcript::create(vault)
}

/// A scratch transcript for a Quick Chat question, outside `chats/`.
pub(super) fn scratch(vault: &Vault) -> Transcript {
    let mut t = Transcript::create(vault);
    t.dir = vault.state_dir().join(QUICK_DIR).join(&t.id);
    t
}

/// A Quick Chat as a new thread on disk: its lines appended through the transcript API, its
/// session kept (the next question there resumes it), the scratch copy removed.
pub(super) fn promote(vault: &Vault, quick: Transcript) -> Result<Transcript, String> {
    let mut thread = Transcript::create(vault);
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
    Ok(thread)
}

/// The chat pane's view of the threads.
pub(super) fn shown(threads: &[Transcript]) -> Vec<chat::Thread> {
    threads.iter().map(chat::from_transcript).collect()
}
