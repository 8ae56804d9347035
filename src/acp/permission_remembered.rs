//! "Always" answers to permission questions, kept in `{vault}/.agentero/permissions.json`
//! and bound to the agent's name, its command and where they were given — and, so that no
//! file planted in a vault (or copied from another vault or user) pre-approves anything, each
//! signed with an HMAC-SHA256 under a per-user secret kept outside every vault
//! ([`AnswerKey`]: `$XDG_STATE_HOME/agentero/answer-key`, `0600`, made on first use). The
//! signature covers the vault's state folder too: an answer applies only where it was given.

use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// The per-user secret of remembered answers: 32 random bytes in a file only its user can
/// read, outside every vault.
#[derive(Clone)]
pub struct AnswerKey([u8; KEY_LEN]);

const KEY_LEN: usize = 32;

impl AnswerKey {
    /// The user's key file ([`crate::vault::state::answer_key_file`]).
    pub fn user_file() -> PathBuf {
        crate::vault::state::answer_key_file()
    }

    /// The key in `file`, if there is a sound one: a regular file (not a link) of this user
    /// that no one else can read, of the right size.
    pub fn read(file: &Path) -> std::io::Result<AnswerKey> {
        let m = std::fs::symlink_metadata(file)?;
        let bad =
            |why: &str| std::io::Error::other(format!("the answer key {} {why}", file.display()));
        if !m.is_file() {
            return Err(bad("is not a regular file"));
        }
        if m.uid() != rustix::process::getuid().as_raw() {
            return Err(bad("belongs to another user"));
        }
        if m.mode() & 0o077 != 0 {
            return Err(bad("can be read by others"));
        }
        let bytes = std::fs::read(file)?;
        let key: [u8; KEY_LEN] = bytes.try_into().map_err(|_| bad("is not a key"))?;
        Ok(AnswerKey(key))
    }

    /// The key in `file`, made (32 random bytes, `0600`, its folder `0700`) when there is
    /// none; a concurrent maker's key wins, never a half-written one.
    pub fn read_or_create(file: &Path) -> std::io::Result<AnswerKey> {
        match AnswerKey::read(file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            other => return other,
        }
        let dir = file
            .parent()
            .ok_or_else(|| std::io::Error::other("the answer key has no folder"))?;
        crate::acp::workdir::private_dir(dir)?;
        let mut key = [0u8; KEY_LEN];
        getrandom::fill(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
        let temp = dir.join(format!(
            ".answer-key.{}",
            crate::context::grant::new_id("tmp")
        ));
        {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&temp)?;
            f.write_all(&key)?;
            f.sync_all()?;
        }
        // A link never replaces: whoever made the key first, it is the one kept.
        let linked = std::fs::hard_link(&temp, file);
        let _ = std::fs::remove_file(&temp);
        match linked {
            Ok(()) => Ok(AnswerKey(key)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => AnswerKey::read(file),
            Err(e) => Err(e),
        }
    }

    /// The signature of `answer` given in the vault whose state folder is `state_dir`.
    fn sign(&self, state_dir: &Path, a: &RememberedAnswer) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0)
            .expect("HMAC takes a key of any length");
        for part in [
            format!("agentero-permissions-v{PERMISSIONS_VERSION}"),
            canonical(state_dir).display().to_string(),
            a.agent.clone(),
            a.command.clone(),
            a.tool.clone(),
            format!("{:?}", a.answer),
            format!("{:?}", a.from),
            a.at.clone(),
        ] {
            // Length-prefixed, so no two different answers share a message.
            mac.update(&(part.len() as u64).to_le_bytes());
            mac.update(part.as_bytes());
        }
        let bytes = mac.finalize().into_bytes();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn verifies(&self, state_dir: &Path, a: &RememberedAnswer) -> bool {
        let want = self.sign(state_dir, a);
        // Compared in full, in time that does not depend on where they differ.
        want.len() == a.mac.len()
            && want
                .bytes()
                .zip(a.mac.bytes())
                .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                == 0
    }
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// "Always" answers, kept in `{vault}/.agentero/permissions.json`. Each is bound to the agent's
/// name, to its command ([`command_id`]) and to where it was given, and signed with the user's
/// [`AnswerKey`]; only signed answers given in the TUI are ever applied, so a file written by
/// hand, planted, copied from another vault or user, or written by an older agentero
/// pre-approves nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    version: u32,
    #[serde(default)]
    answers: Vec<RememberedAnswer>,
    /// The key file answers are signed with (the user's, or a test's).
    #[serde(skip)]
    key_file: PathBuf,
}

impl Default for Remembered {
    fn default() -> Remembered {
        Remembered {
            version: PERMISSIONS_VERSION,
            answers: Vec::new(),
            key_file: AnswerKey::user_file(),
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
    /// The HMAC-SHA256 (hex) of all the above and the vault's state folder under the user's
    /// [`AnswerKey`].
    #[serde(default)]
    pub mac: String,
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
const PERMISSIONS_VERSION: u32 = 3;

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
    /// Reads the file, keeping only the answers signed with the user's key (missing,
    /// unreadable, corrupt, of an older version or not agentero's own — a planted link,
    /// another user's or a hard-linked file: nothing remembered; each answer whose signature
    /// does not hold is dropped; a warning in the log).
    pub fn load(state_dir: &Path) -> Remembered {
        Remembered::load_keyed(state_dir, &AnswerKey::user_file())
    }

    /// [`Remembered::load`] with the key in `key_file`.
    pub fn load_keyed(state_dir: &Path, key_file: &Path) -> Remembered {
        let empty = Remembered {
            key_file: key_file.to_path_buf(),
            ..Remembered::default()
        };
        let path = state_dir.join(PERMISSIONS_FILE);
        let bytes = match crate::vault::statefs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(error = %e, "ignoring the permissions file");
                }
                return empty;
            }
        };
        let mut r = match serde_json::from_slice::<Remembered>(&bytes) {
            Ok(r) if r.version == PERMISSIONS_VERSION => r,
            Ok(r) => {
                tracing::warn!(version = r.version, path = %path.display(), "ignoring a permissions file of another version (its answers are not signed with your key)");
                return empty;
            }
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "ignoring a permissions file agentero cannot read (its answers are not bound to an agent's command)");
                return empty;
            }
        };
        r.key_file = key_file.to_path_buf();
        let key = match AnswerKey::read(key_file) {
            Ok(k) => Some(k),
            Err(e) => {
                if !r.answers.is_empty() {
                    tracing::warn!(error = %e, "ignoring every remembered permission answer: no answer key to check them with");
                }
                None
            }
        };
        let before = r.answers.len();
        r.answers
            .retain(|a| key.as_ref().is_some_and(|k| k.verifies(state_dir, a)));
        if r.answers.len() < before {
            tracing::warn!(
                dropped = before - r.answers.len(),
                path = %path.display(),
                "ignoring remembered permission answers not signed with your key (planted, copied or forged)"
            );
        }
        r
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
    /// command and tool), signed with the user's key (made on first use), and saves the file.
    pub fn set(
        &mut self,
        state_dir: &Path,
        agent: &str,
        command: &str,
        key: &str,
        r: Remember,
    ) -> std::io::Result<()> {
        let signer = AnswerKey::read_or_create(&self.key_file)?;
        self.answers
            .retain(|a| !(a.agent == agent && a.command == command && a.tool == key));
        let mut answer = RememberedAnswer {
            agent: agent.into(),
            command: command.into(),
            tool: key.into(),
            answer: r,
            from: AnswerSource::Tui,
            at: crate::context::grant::now_rfc3339(),
            mac: String::new(),
        };
        answer.mac = signer.sign(state_dir, &answer);
        self.answers.push(answer);
        self.save(state_dir)
    }
}
