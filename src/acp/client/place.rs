//! Where an agent runs and what keeps the vault away from it besides the grant: its working
//! folder outside the vault ([`crate::acp::workdir`]), its memory and instruction files
//! switched off (its adapter's row), and the read restriction around its process tree
//! ([`crate::acp::sandbox`]), with the relay its context server then needs.

use std::path::{Path, PathBuf};

use crate::acp::adapters::{self, Launch};
use crate::acp::sandbox::{self, Broker, Support};
use crate::acp::workdir::{self, WorkBase};
use crate::config::AgentDef;
use crate::vault::Vault;

/// The vault an agent serves and the executable that serves its context server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub vault_root: PathBuf,
    pub state_dir: PathBuf,
    /// agentero's own executable (the context server, the relay and the launcher).
    pub host_exe: PathBuf,
}

impl Place {
    pub fn of(vault: &Vault, host_exe: &Path) -> Place {
        Place {
            vault_root: vault.root().to_path_buf(),
            state_dir: vault.state_dir(),
            host_exe: host_exe.to_path_buf(),
        }
    }

    /// The vault's session folders (grants, `usage.jsonl`).
    pub fn sessions_dir(&self) -> PathBuf {
        self.state_dir.join(crate::context::grant::SESSIONS_DIR)
    }
}

/// The read restriction around an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reads {
    /// The agent's process tree cannot read the vault or the user's files.
    Restricted,
    /// Its adapter would be restricted, but the kernel cannot: why.
    Unavailable(String),
    /// Not applied to this adapter.
    NotApplied,
}

/// What keeps the vault away from an agent besides the grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protections {
    /// The agent's working folders, outside the vault (`None`: the built-in agent, which works
    /// in the vault's state folder and discovers nothing on its own).
    pub work: Option<WorkBase>,
    /// How its memory and instruction files are switched off, when agentero knows.
    pub memory_off: Option<&'static str>,
    pub reads: Reads,
}

impl Protections {
    /// One line per protection, for `agentero agents` and the log.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.push(match &self.work {
            Some(w) => match &w.fallback_reason {
                None => format!("working folder outside the vault: {}", w.dir.display()),
                Some(why) => format!(
                    "working folder outside the vault: {} ({why})",
                    w.dir.display()
                ),
            },
            None => "working folder: the vault's state folder (agentero's own agent)".into(),
        });
        out.push(match self.memory_off {
            Some(how) => format!("memory and instruction files off: {how}"),
            None => "memory and instruction files: not known for this agent".into(),
        });
        out.push(match &self.reads {
            Reads::Restricted => {
                "read restriction: active (Landlock; the vault and your files cannot be read)"
                    .into()
            }
            Reads::Unavailable(why) => format!("read restriction: UNAVAILABLE — {why}"),
            Reads::NotApplied => "read restriction: not applied to this agent".into(),
        });
        out
    }

    /// What to say before a turn when a protection is missing.
    pub fn warning(&self, agent: &str) -> Option<String> {
        match &self.reads {
            Reads::Unavailable(why) => Some(format!(
                "{agent} runs without its read restriction ({why}): its own built-in tools can \
                 read files outside the grant"
            )),
            _ => None,
        }
    }
}

/// Variables that name a file or folder an agent's runtime reads (certificates, settings).
const FILE_VARS: [&str; 7] = [
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CODEX_CA_CERTIFICATE",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
];

/// How the agent is started and protected: its launch (wrapped by the launcher when
/// restricted), the broker of its relayed context server, and the protections.
pub(super) struct Prepared {
    pub launch: Launch,
    /// The agent process's own working folder.
    pub cwd: Option<PathBuf>,
    pub broker: Option<Broker>,
    pub protections: Protections,
}

/// Places `launch` (of `def`, whose program is `exe`) outside the vault and, for an adapter
/// whose built-in tools read on their own, inside the read restriction.
pub(super) fn prepare(
    def: &AgentDef,
    place: &Place,
    exe: &Path,
    npx: bool,
    mut launch: Launch,
) -> std::io::Result<Prepared> {
    let spec = adapters::spec(def.adapter);
    let work = if spec.works_outside {
        Some(workdir::base(&place.vault_root)?)
    } else {
        None
    };
    let reads = match (&work, spec.restricted_reads) {
        (Some(_), true) => match sandbox::support() {
            Support::Available => Reads::Restricted,
            Support::Unavailable(why) => Reads::Unavailable(why),
        },
        _ => Reads::NotApplied,
    };
    let mut broker = None;
    if let (Reads::Restricted, Some(w)) = (&reads, &work) {
        let tmp = w.dir.join("tmp");
        workdir::private_dir(&tmp)?;
        launch
            .env
            .insert("TMPDIR".into(), tmp.display().to_string());
        let mut extra: Vec<PathBuf> = vec![w.dir.clone(), place.host_exe.clone()];
        extra.extend(sandbox::installation_of(exe));
        // A script the program runs (`python3 /path/agent.py`, `node /path/agent.js`).
        extra.extend(
            launch
                .args
                .iter()
                .map(Path::new)
                .filter(|a| a.is_absolute() && a.is_file())
                .filter_map(|a| a.parent().map(Path::to_path_buf)),
        );
        if let Some(node) = super::find_command(Path::new("node")) {
            extra.extend(sandbox::installation_of(&node));
        }
        // Certificates and settings files the user names in the environment.
        extra.extend(
            FILE_VARS
                .iter()
                .filter_map(|v| {
                    launch
                        .env
                        .get(*v)
                        .cloned()
                        .or_else(|| std::env::var(v).ok())
                })
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
        );
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if let Some(h) = &home {
            if npx {
                extra.push(h.join(".npm"));
            }
            for dir in (spec.config_homes)(h, &launch.env) {
                // A config folder the runtime would make at its first start is made now, so
                // that the restriction can name it (a `.json` entry is a file).
                let is_file = dir.extension().is_some_and(|e| e == "json");
                if !is_file && !dir.exists() {
                    workdir::private_dir(&dir)?;
                }
                extra.push(dir);
            }
        }
        let policy = sandbox::policy(&extra, &[place.vault_root.clone(), place.state_dir.clone()]);
        tracing::info!(agent = %def.name, read = ?policy.read, "the agent's reads are restricted");
        launch.args = sandbox::wrap(&policy, exe, &launch.args);
        launch.command = place.host_exe.clone();
        let socket = workdir::socket_path(w, &crate::context::grant::new_id("ctx"))?;
        broker = Some(Broker::start(
            socket,
            place.host_exe.clone(),
            place.sessions_dir(),
        )?);
    }
    Ok(Prepared {
        launch,
        cwd: work.as_ref().map(|w| w.dir.clone()),
        broker,
        protections: Protections {
            work,
            memory_off: spec.memory_off,
            reads,
        },
    })
}
