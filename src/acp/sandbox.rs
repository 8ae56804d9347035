//! A read restriction around a real agent's whole process tree (Linux Landlock), for tools an
//! adapter runs inside itself without asking the client — Codex's `view_image` reads any image
//! the user can read, and `-c tools.view_image=false` does not remove it from codex-acp 0.16.
//!
//! The agent is started as `agentero --sandboxed-exec <policy> <program> <args>…`: that
//! launcher restricts itself (Landlock rules are inherited across `exec` and by every child)
//! and then becomes the agent. The policy allows reading only the system folders, the agent's
//! own installation and config home, and the agents' working folders; the vault, its state
//! folder and the user's other files cannot be opened, listed or executed. Writing and the
//! network are not restricted (Codex's own read-only mode and agentero's permission rules
//! govern writes).
//!
//! The context server an agent starts is inside the restriction too, so in a restricted agent
//! it is a relay ([`relay`]): `agentero --agentero-context-relay <socket> <grant>` passes the
//! MCP bytes to a broker in the host ([`Broker`]), which runs the real server outside.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use landlock::{
    ABI, AccessFs, RestrictionStatus, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus,
    path_beneath_rules,
};
use serde::{Deserialize, Serialize};

#[path = "sandbox_relay.rs"]
mod relay_impl;
pub use relay_impl::{Broker, RELAY_FLAG, relay_main};

/// The hidden flag of the launcher.
pub const EXEC_FLAG: &str = "--sandboxed-exec";

/// Folders of the system every program needs to start and run.
const SYSTEM: [&str; 12] = [
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/run",
    "/opt",
];

/// What a restricted agent may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// Folders (and files) readable with everything beneath them.
    pub read: Vec<PathBuf>,
}

/// Whether the kernel enforces Landlock here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    Available,
    /// Why not (no Landlock in this kernel, or switched off).
    Unavailable(String),
}

/// Whether Landlock restricts a process here: a throwaway thread restricts itself (a
/// restriction holds only for the thread that asked) and reports. Asked once per process.
pub fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT
        .get_or_init(|| {
            let probe = std::thread::spawn(|| {
                let access = AccessFs::from_read(ABI::V1);
                Ruleset::default()
                    .handle_access(access)
                    .and_then(|r| r.create())
                    .and_then(|r| r.restrict_self())
                    .map(|s| s.ruleset)
            });
            match probe.join() {
                Ok(Ok(RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced)) => {
                    Support::Available
                }
                Ok(Ok(_)) => Support::Unavailable(
                    "this kernel does not enforce Landlock (Linux 5.13 or later with the \
                     landlock LSM enabled is needed)"
                        .into(),
                ),
                Ok(Err(e)) => Support::Unavailable(format!("Landlock refused the probe: {e}")),
                Err(_) => Support::Unavailable("the Landlock probe failed".into()),
            }
        })
        .clone()
}

/// The read policy for an agent: the system folders, `extra` (the agent's installation, its
/// config home, the working folders, agentero itself), minus any folder that holds one of
/// `protected` (the vault and its state folder): a folder above the vault would open it whole.
pub fn policy(extra: &[PathBuf], protected: &[PathBuf]) -> Policy {
    let protected: Vec<PathBuf> = protected
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect();
    let mut read: Vec<PathBuf> = Vec::new();
    for p in SYSTEM
        .iter()
        .map(PathBuf::from)
        .chain(extra.iter().cloned())
    {
        let Ok(c) = p.canonicalize() else { continue };
        if protected.iter().any(|v| v.starts_with(&c)) {
            tracing::warn!(path = %c.display(), "not readable by the agent: it holds the vault");
            continue;
        }
        if !read.contains(&c) {
            read.push(c);
        }
    }
    Policy { read }
}

/// The folder holding an installed program: the folder above its outermost `node_modules`
/// (an npm install), else the folder above `bin/`, else its own folder.
pub fn installation_of(exe: &Path) -> Option<PathBuf> {
    let exe = exe.canonicalize().ok()?;
    if let Some(nm) = exe
        .ancestors()
        .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
        .last()
    {
        return nm.parent().map(Path::to_path_buf);
    }
    let dir = exe.parent()?;
    // `bin/`, or a version manager's `shims/` (pyenv, asdf): the whole installation.
    if dir.file_name().is_some_and(|n| n == "bin" || n == "shims") {
        return dir.parent().map(Path::to_path_buf);
    }
    Some(dir.to_path_buf())
}

/// The launcher's arguments (the command is agentero itself): `--sandboxed-exec <policy>
/// <program> <args>…`.
pub fn wrap(policy: &Policy, program: &Path, args: &[String]) -> Vec<String> {
    let mut out = vec![
        EXEC_FLAG.to_string(),
        serde_json::to_string(policy).unwrap_or_default(),
        program.display().to_string(),
    ];
    out.extend(args.iter().cloned());
    out
}

/// Restricts this process to `policy` (Landlock, inherited by every child and across exec).
pub fn restrict(policy: &Policy) -> Result<RestrictionStatus, landlock::RulesetError> {
    let abi = ABI::V1;
    let access = AccessFs::from_read(abi);
    Ruleset::default()
        .handle_access(access)?
        .create()?
        .add_rules(path_beneath_rules(&policy.read, access))?
        .restrict_self()
}

/// `agentero --sandboxed-exec <policy> <program> <args>…`: restricts itself, then becomes the
/// program. Fails closed: where the restriction does not hold, the program is not run.
pub fn exec_main(args: &[OsString]) -> anyhow::Result<()> {
    use std::os::unix::process::CommandExt;
    let [policy, program, rest @ ..] = args else {
        anyhow::bail!("usage: {EXEC_FLAG} <policy> <program> [args…]");
    };
    let policy: Policy = serde_json::from_str(&policy.to_string_lossy())
        .map_err(|e| anyhow::anyhow!("not a read policy: {e}"))?;
    let status = restrict(&policy).map_err(|e| anyhow::anyhow!("Landlock: {e}"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        anyhow::bail!(
            "this kernel does not enforce Landlock: the agent is not started without its read \
             restriction"
        );
    }
    let e = std::process::Command::new(program).args(rest).exec();
    anyhow::bail!("cannot start {}: {e}", program.to_string_lossy())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_never_opens_a_folder_above_the_vault() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let vault = root.join("home/papers");
        let config = root.join("home/.codex");
        std::fs::create_dir_all(&vault).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        let p = policy(
            &[root.join("home"), config.clone(), root.join("missing")],
            std::slice::from_ref(&vault),
        );
        assert!(p.read.contains(&config), "{p:?}");
        assert!(!p.read.contains(&root.join("home")), "{p:?}");
        assert!(!p.read.iter().any(|r| vault.starts_with(r)), "{p:?}");
        assert!(p.read.contains(&PathBuf::from("/usr")));
    }

    #[test]
    fn an_installation_is_its_npm_prefix_or_its_prefix() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        let exe = root.join("cache/node_modules/@x/y/node_modules/.bin/y");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, b"").unwrap();
        assert_eq!(installation_of(&exe), Some(root.join("cache")));
        let bin = root.join("opt/tool/bin/tool");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, b"").unwrap();
        assert_eq!(installation_of(&bin), Some(root.join("opt/tool")));
    }
}
