//! Threads on disk: `{vault}/.agentero/chats/<thread-id>/` holds an append-only
//! `transcript.jsonl`, a small `state.json` and, on request, `HANDOFF.md`.
//!
//! Every transcript line is written with one `write` on a file opened with `O_APPEND`, so a
//! kill at any moment loses at most the line being written; a torn or corrupt line is skipped
//! with a warning on load, never the whole thread. `state.json` is replaced atomically.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::seed::PriorMessage;
use super::session::SessionRecord;
use crate::context::citations::CitationCheck;
use crate::context::grant::{new_id, now_rfc3339, valid_id};
use crate::context::receipt::Receipt;
use crate::vault::Vault;
use crate::vault::statefs;

pub const CHATS_DIR: &str = "chats";
pub const TRANSCRIPT_FILE: &str = "transcript.jsonl";
pub const STATE_FILE: &str = "state.json";
pub const HANDOFF_FILE: &str = "HANDOFF.md";

/// One transcript line. `turn` groups the lines of one turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Line {
    User {
        ts: String,
        turn: String,
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mentions: Vec<String>,
    },
    /// A piece of the agent's answer (consecutive pieces of a turn form one message).
    Agent {
        ts: String,
        turn: String,
        text: String,
    },
    Thought {
        ts: String,
        turn: String,
        text: String,
    },
    /// A tool call as a one-line summary (the latest status wins on load).
    Tool {
        ts: String,
        turn: String,
        id: String,
        title: String,
        status: String,
    },
    Plan {
        ts: String,
        turn: String,
        entries: Vec<String>,
    },
    /// The turn's sources: everything the agent was given or read (`uris`), split into those
    /// its answer cites and those only consulted.
    Sources {
        ts: String,
        turn: String,
        uris: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        cited: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        consulted: Vec<String>,
    },
    /// The verdict on each citation of the turn's answer, with its receipt: the hash of each
    /// cited source as checked and the grant the agent had (absent in transcripts written
    /// before receipts were kept).
    Citations {
        ts: String,
        turn: String,
        checks: Vec<CitationCheck>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        receipt: Option<Receipt>,
    },
    Notice {
        ts: String,
        turn: String,
        text: String,
    },
    Error {
        ts: String,
        turn: String,
        message: String,
    },
    /// The turn finished (stop reason, mode, session id).
    End {
        ts: String,
        turn: String,
        stop_reason: String,
        mode: String,
        session_id: String,
    },
}

impl Line {
    pub fn turn(&self) -> &str {
        match self {
            Line::User { turn, .. }
            | Line::Agent { turn, .. }
            | Line::Thought { turn, .. }
            | Line::Tool { turn, .. }
            | Line::Plan { turn, .. }
            | Line::Sources { turn, .. }
            | Line::Citations { turn, .. }
            | Line::Notice { turn, .. }
            | Line::Error { turn, .. }
            | Line::End { turn, .. } => turn,
        }
    }
}

/// `state.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ThreadState {
    pub version: u32,
    #[serde(flatten)]
    pub session: SessionRecord,
    pub title: String,
    /// One line: the latest question.
    pub summary: String,
    pub created: String,
    pub updated: String,
}

#[derive(Debug)]
pub struct Thread {
    pub id: String,
    pub dir: PathBuf,
    pub state: ThreadState,
    pub lines: Vec<Line>,
    /// Lines skipped on load (torn or corrupt), as messages.
    pub warnings: Vec<String>,
    /// The file ends in a torn line: the next append starts with a newline so that only the
    /// torn line is lost, not the next good one.
    torn_tail: bool,
}

pub fn chats_dir(vault: &Vault) -> PathBuf {
    vault.state_dir().join(CHATS_DIR)
}

impl Thread {
    /// A new, empty thread (its folder is created on the first write).
    pub fn create(vault: &Vault) -> Thread {
        let id = new_id("th");
        let now = now_rfc3339();
        Thread {
            dir: chats_dir(vault).join(&id),
            id,
            state: ThreadState {
                version: 1,
                created: now.clone(),
                updated: now,
                ..ThreadState::default()
            },
            lines: Vec::new(),
            warnings: Vec::new(),
            torn_tail: false,
        }
    }

    /// Loads thread `id`; every complete, well-formed line is kept.
    pub fn open(vault: &Vault, id: &str) -> std::io::Result<Thread> {
        if !valid_id(id) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{id:?} is not a thread id (letters, digits, - and _)"),
            ));
        }
        let dir = chats_dir(vault).join(id);
        match statefs::check_dir(&dir) {
            Ok(_) => {}
            Err(e) if e.is_not_found() => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("no thread {id} in {}", chats_dir(vault).display()),
                ));
            }
            Err(e) => return Err(e.into()),
        }
        let mut warnings = Vec::new();
        let state = match statefs::read(&dir.join(STATE_FILE)) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                warnings.push(format!(
                    "state.json is unreadable ({e}); the session will start anew"
                ));
                ThreadState::default()
            }),
            Err(e) if e.is_not_found() => ThreadState::default(),
            Err(e) => {
                warnings.push(format!("{e}; the session will start anew"));
                ThreadState::default()
            }
        };
        let path = dir.join(TRANSCRIPT_FILE);
        let (lines, mut w) = read_transcript(&path);
        let torn_tail = statefs::read(&path).is_ok_and(|b| b.last().is_some_and(|c| *c != b'\n'));
        warnings.append(&mut w);
        for w in &warnings {
            tracing::warn!(thread = id, "{w}");
        }
        Ok(Thread {
            id: id.to_string(),
            dir,
            state,
            lines,
            warnings,
            torn_tail,
        })
    }

    /// The most recently updated thread, if any.
    pub fn latest(vault: &Vault) -> Option<String> {
        let mut best: Option<(std::time::SystemTime, String)> = None;
        let chats = chats_dir(vault);
        for name in statefs::check_dir(&chats).ok()?.list().ok()? {
            let name = name.to_string_lossy().into_owned();
            let t = std::fs::symlink_metadata(chats.join(&name).join(STATE_FILE))
                .and_then(|m| m.modified())
                .ok();
            if let Some(t) = t
                && valid_id(&name)
                && best.as_ref().is_none_or(|(b, _)| t > *b)
            {
                best = Some((t, name));
            }
        }
        best.map(|(_, n)| n)
    }

    fn ensure_dir(&self) -> std::io::Result<()> {
        statefs::ensure_dir(&self.dir)?;
        Ok(())
    }

    /// Appends one line to the transcript (one `write`, `O_APPEND`) and keeps it in memory.
    pub fn append(&mut self, line: Line) -> std::io::Result<()> {
        self.ensure_dir()?;
        append_line(&self.dir.join(TRANSCRIPT_FILE), &line, self.torn_tail)?;
        self.torn_tail = false;
        self.lines.push(line);
        Ok(())
    }

    pub fn save_state(&mut self) -> std::io::Result<()> {
        self.ensure_dir()?;
        self.state.updated = now_rfc3339();
        let bytes = serde_json::to_vec_pretty(&self.state).map_err(std::io::Error::other)?;
        Ok(statefs::atomic_write(&self.dir.join(STATE_FILE), &bytes)?)
    }

    /// Turns that were cut short: a question with no end and no error line after it (the
    /// process was killed mid-answer). What had streamed is kept; restore shows them as
    /// interrupted. `running` names a turn in progress that must not count.
    pub fn interrupted_turns(&self, running: Option<&str>) -> Vec<String> {
        let mut open: Vec<String> = Vec::new();
        for l in &self.lines {
            match l {
                Line::User { turn, .. }
                    if Some(turn.as_str()) != running && !open.contains(turn) =>
                {
                    open.push(turn.clone());
                }
                Line::End { turn, .. } | Line::Error { turn, .. } => open.retain(|t| t != turn),
                _ => {}
            }
        }
        open
    }

    /// The visible conversation: user questions and the agent's answers, one message per turn
    /// and role.
    pub fn conversation(&self) -> Vec<PriorMessage> {
        let mut out: Vec<(String, PriorMessage)> = Vec::new();
        for l in &self.lines {
            let (role, turn, text) = match l {
                Line::User { turn, text, .. } => ("user", turn, text),
                Line::Agent { turn, text, .. } => ("agent", turn, text),
                _ => continue,
            };
            match out.last_mut() {
                Some((t, m)) if t == turn && m.role == role => m.text.push_str(text),
                _ => out.push((
                    turn.clone(),
                    PriorMessage {
                        role: role.into(),
                        text: text.clone(),
                    },
                )),
            }
        }
        out.into_iter().map(|(_, m)| m).collect()
    }

    pub fn handoff_path(&self) -> PathBuf {
        self.dir.join(HANDOFF_FILE)
    }

    pub fn handoff(&self) -> Option<String> {
        statefs::read(&self.handoff_path())
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .filter(|s| !s.trim().is_empty())
    }

    /// Writes HANDOFF.md (atomically): the next session of this thread is seeded from it.
    pub fn write_handoff(&self, handoff: &Handoff) -> std::io::Result<()> {
        self.ensure_dir()?;
        Ok(statefs::atomic_write(
            &self.handoff_path(),
            handoff.to_markdown().as_bytes(),
        )?)
    }

    /// Writes HANDOFF.md and forgets the thread's agent session, so that the next turn opens
    /// a fresh session seeded from the handoff instead of resuming the old one.
    pub fn hand_off(&mut self, handoff: &Handoff) -> std::io::Result<()> {
        self.write_handoff(handoff)?;
        let s = &mut self.state.session;
        s.session_id = None;
        s.runtime_id = None;
        s.fingerprint = None;
        self.save_state()
    }

    pub fn consume_handoff(&self) -> std::io::Result<()> {
        match statefs::remove_file(&self.handoff_path()) {
            Err(e) if !e.is_not_found() => Err(e.into()),
            _ => Ok(()),
        }
    }
}

/// One line, one `write` on an `O_APPEND` file: a concurrent reader or a kill sees either the
/// whole line or (at worst) a torn last line, which the loader skips.
pub fn append_line(path: &Path, line: &Line, after_torn: bool) -> std::io::Result<()> {
    let mut text = if after_torn {
        "\n".to_string()
    } else {
        String::new()
    };
    text.push_str(&serde_json::to_string(line).map_err(std::io::Error::other)?);
    text.push('\n');
    Ok(statefs::append_whole(path, &text)?)
}

/// Every well-formed line; torn or corrupt lines become warnings, and so does a transcript
/// that is not agentero's own (a planted link, another user's or a hard-linked file).
pub fn read_transcript(path: &Path) -> (Vec<Line>, Vec<String>) {
    let bytes = match statefs::read(path) {
        Ok(b) => b,
        Err(e) if e.is_not_found() => return (Vec::new(), Vec::new()),
        Err(e) => return (Vec::new(), vec![e.to_string()]),
    };
    let mut lines = Vec::new();
    let mut warnings = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Line>(raw) {
            Ok(l) => lines.push(l),
            Err(e) => warnings.push(format!(
                "{}:{}: skipped a corrupt line ({e})",
                path.display(),
                i + 1
            )),
        }
    }
    (lines, warnings)
}

/// The contents of HANDOFF.md.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Handoff {
    pub goal: String,
    /// What was established: each with a quote verified on its cited page.
    pub findings: Vec<String>,
    /// What the conversation said but no quote verifies, each with the reason.
    pub unverified: Vec<String>,
    pub open_questions: Vec<String>,
    pub sources: Vec<String>,
}

impl Handoff {
    pub fn to_markdown(&self) -> String {
        let list = |items: &[String]| {
            if items.is_empty() {
                "- (none)\n".to_string()
            } else {
                items.iter().map(|i| format!("- {}\n", i.trim())).collect()
            }
        };
        let unverified = if self.unverified.is_empty() {
            String::new()
        } else {
            format!("## Unverified\n\n{}\n", list(&self.unverified))
        };
        format!(
            "# Handoff\n\n## Goal\n\n{}\n\n## Findings\n\n{}\n{unverified}## Open questions\n\n{}\n## Sources\n\n{}",
            self.goal.trim(),
            list(&self.findings),
            list(&self.open_questions),
            list(&self.sources)
        )
    }

    /// A handoff from the thread's own record: the first question as the goal, the answers'
    /// quoted lines as findings, questions of later turns as open questions, and every source.
    /// The agent-written summary (`ask --handoff`) replaces the findings when it is available.
    pub fn from_thread(thread: &Thread) -> Handoff {
        let conv = thread.conversation();
        let mut h = Handoff {
            goal: conv
                .iter()
                .find(|m| m.role == "user")
                .map(|m| m.text.clone())
                .unwrap_or_default(),
            ..Handoff::default()
        };
        let users: Vec<&PriorMessage> = conv.iter().filter(|m| m.role == "user").collect();
        h.open_questions = users
            .iter()
            .skip(1)
            .map(|m| m.text.trim().to_string())
            .collect();
        for m in conv.iter().filter(|m| m.role == "agent") {
            for l in m.text.lines().filter(|l| l.trim_start().starts_with('>')) {
                h.findings
                    .push(l.trim_start_matches(['>', ' ']).to_string());
            }
        }
        for l in &thread.lines {
            if let Line::Sources { uris, .. } = l {
                for u in uris {
                    if !h.sources.contains(u) {
                        h.sources.push(u.clone());
                    }
                }
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn vault() -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("papers")).unwrap();
        let v = Vault::open(dir.path()).unwrap();
        (dir, v)
    }

    fn user(turn: &str, text: &str) -> Line {
        Line::User {
            ts: now_rfc3339(),
            turn: turn.into(),
            text: text.into(),
            mentions: vec![],
        }
    }

    fn agent(turn: &str, text: &str) -> Line {
        Line::Agent {
            ts: now_rfc3339(),
            turn: turn.into(),
            text: text.into(),
        }
    }

    #[test]
    fn lines_and_state_round_trip() {
        let (_d, v) = vault();
        let mut t = Thread::create(&v);
        t.append(user("t1", "question?")).unwrap();
        t.append(agent("t1", "part one. ")).unwrap();
        t.append(agent("t1", "part two.")).unwrap();
        t.state.session.session_id = Some("s1".into());
        t.state.title = "question?".into();
        t.save_state().unwrap();
        let back = Thread::open(&v, &t.id).unwrap();
        assert_eq!(back.lines, t.lines);
        assert_eq!(back.state.session.session_id.as_deref(), Some("s1"));
        assert!(back.warnings.is_empty());
        let conv = back.conversation();
        assert_eq!(conv.len(), 2);
        assert_eq!(conv[1].text, "part one. part two.");
        assert_eq!(Thread::latest(&v).as_deref(), Some(t.id.as_str()));
    }

    #[test]
    fn torn_and_corrupt_lines_are_skipped_with_a_warning() {
        let (_d, v) = vault();
        let mut t = Thread::create(&v);
        t.append(user("t1", "one")).unwrap();
        t.append(agent("t1", "answer")).unwrap();
        let path = t.dir.join(TRANSCRIPT_FILE);
        // A kill in the middle of a write leaves a torn last line...
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"kind\":\"agent\",\"ts\":\"x\",\"tu")
            .unwrap();
        drop(f);
        let back = Thread::open(&v, &t.id).unwrap();
        assert_eq!(back.lines.len(), 2);
        assert_eq!(back.warnings.len(), 1);
        // ...and the next append starts on a fresh line, so only the torn one is lost.
        let mut back = back;
        back.append(user("t2", "two")).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"not json\n")
            .unwrap();
        let again = Thread::open(&v, &t.id).unwrap();
        assert_eq!(again.lines.len(), 3);
        assert_eq!(again.warnings.len(), 2, "{:?}", again.warnings);
    }

    #[test]
    fn handoff_is_written_read_and_consumed() {
        let (_d, v) = vault();
        let mut t = Thread::create(&v);
        t.append(user("t1", "What is X?")).unwrap();
        t.append(agent("t1", "> \"X is a thing.\" — a.md#line=1,2\n"))
            .unwrap();
        t.append(Line::Sources {
            ts: now_rfc3339(),
            turn: "t1".into(),
            uris: vec!["a.md#line=1,2".into()],
            cited: vec!["a.md#line=1,2".into()],
            consulted: Vec::new(),
        })
        .unwrap();
        t.append(user("t2", "And Y?")).unwrap();
        let h = Handoff::from_thread(&t);
        assert_eq!(h.goal, "What is X?");
        assert_eq!(h.open_questions, vec!["And Y?".to_string()]);
        assert_eq!(h.sources, vec!["a.md#line=1,2".to_string()]);
        assert!(h.findings[0].contains("X is a thing."));
        t.write_handoff(&h).unwrap();
        let md = t.handoff().unwrap();
        assert!(md.contains("## Open questions") && md.contains("- And Y?"));
        t.consume_handoff().unwrap();
        assert!(t.handoff().is_none());
        t.consume_handoff().unwrap();
    }

    #[test]
    fn bad_ids_are_refused() {
        let (_d, v) = vault();
        assert!(Thread::open(&v, "../etc").is_err());
        assert!(Thread::open(&v, "th-missing").is_err());
    }
}
