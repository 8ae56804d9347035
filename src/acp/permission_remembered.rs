//! "Always" answers to permission questions, kept in `{vault}/.agentero/permissions.json`
//! and bound to the agent's name, its command and where they were given.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// "Always" answers, kept in `{vault}/.agentero/permissions.json`. Each is bound to the agent's
/// name, to its command ([`command_id`]) and to where it was given; only answers given in the
/// TUI are ever applied, so a file written by hand (or by an older agentero, whose answers
/// name no command) pre-approves nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    version: u32,
    #[serde(default)]
    answers: Vec<RememberedAnswer>,
}

impl Default for Remembered {
    fn default() -> Remembered {
        Remembered {
            version: PERMISSIONS_VERSION,
            answers: Vec::new(),
        }
    }
}

/// One remembered answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RememberedAnswer {
    pub agent: String,
    /// [`command_id`] of the command the agent ran when the answer was given.
    pub command: String,
    /// [`PermissionAsk::remember_key`].
    pub tool: String,
    pub answer: Remember,
    pub from: AnswerSource,
    /// When (RFC 3339).
    #[serde(default)]
    pub at: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    Allow,
    Reject,
}

/// Where an answer was given: only the TUI's modal asks the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerSource {
    Tui,
    /// Anything else a file may say: never applied.
    #[serde(other)]
    Unknown,
}

pub const PERMISSIONS_FILE: &str = "permissions.json";
const PERMISSIONS_VERSION: u32 = 2;

/// What an agent runs, as the key its answers are bound to: a hash of the resolved program and
/// its arguments (after the npx fallback and the adapter's switches).
pub fn command_id(program: &Path, args: &[String]) -> String {
    let mut line = program.to_string_lossy().into_owned();
    for a in args {
        line.push('\0');
        line.push_str(a);
    }
    crate::vault::fsutil::sha256_hex(line.as_bytes())
}

impl Remembered {
    /// Reads the file (missing, unreadable, corrupt, of an older version or not agentero's own
    /// — a planted link, another user's or a hard-linked file: nothing remembered, with a
    /// warning in the log).
    pub fn load(state_dir: &Path) -> Remembered {
        let path = state_dir.join(PERMISSIONS_FILE);
        let bytes = match crate::vault::statefs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(error = %e, "ignoring the permissions file");
                }
                return Remembered::default();
            }
        };
        match serde_json::from_slice::<Remembered>(&bytes) {
            Ok(r) if r.version == PERMISSIONS_VERSION => r,
            Ok(r) => {
                tracing::warn!(version = r.version, path = %path.display(), "ignoring a permissions file of another version");
                Remembered::default()
            }
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "ignoring a permissions file agentero cannot read (its answers are not bound to an agent's command)");
                Remembered::default()
            }
        }
    }

    /// Writes the file atomically.
    pub fn save(&self, state_dir: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        Ok(crate::vault::statefs::atomic_write(
            &state_dir.join(PERMISSIONS_FILE),
            &bytes,
        )?)
    }

    /// The answer given in the TUI for this agent, command and tool.
    pub fn get(&self, agent: &str, command: &str, key: &str) -> Option<Remember> {
        self.answers
            .iter()
            .rev()
            .find(|a| {
                a.from == AnswerSource::Tui
                    && a.agent == agent
                    && a.command == command
                    && a.tool == key
            })
            .map(|a| a.answer)
    }

    /// Records an answer given in the TUI (replacing an earlier one for the same agent,
    /// command and tool) and saves the file.
    pub fn set(
        &mut self,
        state_dir: &Path,
        agent: &str,
        command: &str,
        key: &str,
        r: Remember,
    ) -> std::io::Result<()> {
        self.answers
            .retain(|a| !(a.agent == agent && a.command == command && a.tool == key));
        self.answers.push(RememberedAnswer {
            agent: agent.into(),
            command: command.into(),
            tool: key.into(),
            answer: r,
            from: AnswerSource::Tui,
            at: crate::context::grant::now_rfc3339(),
        });
        self.save(state_dir)
    }
}
