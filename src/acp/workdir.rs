//! Where a real agent works: a folder outside every vault, so that nothing the agent's runtime
//! discovers on its own from its working folder upwards — `CLAUDE.md`, `AGENTS.md`,
//! `GEMINI.md`, a repository's `gitStatus` — can come from a vault.
//!
//! The base is `$XDG_STATE_HOME/agentero/agent-work/` (see [`crate::vault::state::agent_work_base`]),
//! one folder per session runtime under `sessions/`, each created `0700`. When that base lies
//! inside a git repository or inside the vault itself, the private folder
//! `/tmp/agentero-<uid>/agent-work/` is used instead, and the reason is logged. The grant and
//! `usage.jsonl` stay in the vault's state folder (the context server is given their path);
//! only the agent's working folder moves.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::context::grant;

/// The folder under a work base that holds one folder per session runtime.
const SESSIONS: &str = "sessions";

/// The agents' work base for the vault at `vault_root`, with why the preferred one was not
/// used, if it was not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkBase {
    pub dir: PathBuf,
    pub fallback_reason: Option<String>,
}

/// The work base for a vault: the per-user one, unless it lies inside a repository or the vault
/// (then the private temp one). Created `0700`.
pub fn base(vault_root: &Path) -> io::Result<WorkBase> {
    base_from(
        &crate::vault::state::agent_work_base(),
        &temp_base(),
        vault_root,
    )
}

fn base_from(preferred: &Path, temp: &Path, vault_root: &Path) -> io::Result<WorkBase> {
    let fallback_reason = match unsuitable(preferred, vault_root) {
        None => match private_dirs(preferred) {
            Ok(()) => {
                return Ok(WorkBase {
                    dir: preferred.to_path_buf(),
                    fallback_reason: None,
                });
            }
            Err(e) => format!("{} cannot be used: {e}", preferred.display()),
        },
        Some(why) => why,
    };
    if let Some(also) = unsuitable(temp, vault_root) {
        return Err(io::Error::other(format!(
            "no working folder for the agent outside the vault: {fallback_reason}, and {also}"
        )));
    }
    tracing::warn!(preferred = %preferred.display(), reason = %fallback_reason, "the agents work in the private temp folder");
    private_dirs(temp)?;
    Ok(WorkBase {
        dir: temp.to_path_buf(),
        fallback_reason: Some(fallback_reason),
    })
}

/// `/tmp/agentero-<uid>/agent-work` (the system's temp folder).
fn temp_base() -> PathBuf {
    std::env::temp_dir()
        .join(format!("agentero-{}", rustix::process::getuid().as_raw()))
        .join("agent-work")
}

/// Why `dir` cannot be an agent's work base for the vault at `vault_root`: a git repository
/// above it, or the vault.
pub fn unsuitable(dir: &Path, vault_root: &Path) -> Option<String> {
    let vault = vault_root
        .canonicalize()
        .unwrap_or_else(|_| vault_root.to_path_buf());
    let dir = crate::vault::state::canonical_prefix(dir);
    if dir.starts_with(&vault) {
        return Some(format!("{} lies inside the vault", dir.display()));
    }
    repository_above(&dir).map(|repo| {
        format!(
            "{} lies inside the git repository {}",
            dir.display(),
            repo.display()
        )
    })
}

/// The nearest folder at or above `dir` holding `.git` (a folder or a worktree's file).
pub fn repository_above(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The working folder of session runtime `runtime_id` (created `0700`).
pub fn session_dir(base: &WorkBase, runtime_id: &str) -> io::Result<PathBuf> {
    if !grant::valid_id(runtime_id) {
        return Err(io::Error::other(format!(
            "not a runtime id: {runtime_id:?}"
        )));
    }
    let dir = base.dir.join(SESSIONS).join(runtime_id);
    private_dirs(&dir)?;
    Ok(dir)
}

/// The session folder of `runtime_id` under `base`, if it exists (it is removed with
/// [`remove_session_dir`]).
pub fn existing_session_dir(base: &WorkBase, runtime_id: &str) -> Option<PathBuf> {
    let dir = base.dir.join(SESSIONS).join(runtime_id);
    (grant::valid_id(runtime_id) && dir.is_dir()).then_some(dir)
}

/// Removes a session's working folder (a throwaway check's).
pub fn remove_session_dir(base: &WorkBase, runtime_id: &str) {
    if let Some(dir) = existing_session_dir(base, runtime_id) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Creates `dir` (and its missing parents) `0700`, a real folder of this user.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    private_dirs(dir)
}

/// The longest socket path the kernel takes (`sun_path` less its terminating NUL).
const SOCKET_PATH_MAX: usize = 107;

/// Where the broker socket `name` listens: `run/` in the work base, or in the private temp
/// base when that path would be too long for a socket. The folder is created `0700`.
pub fn socket_path(base: &WorkBase, name: &str) -> io::Result<PathBuf> {
    let file = format!("{name}.sock");
    let mut run = base.dir.join("run");
    if run.join(&file).as_os_str().len() > SOCKET_PATH_MAX {
        run = temp_base().join("run");
    }
    if run.join(&file).as_os_str().len() > SOCKET_PATH_MAX {
        return Err(io::Error::other(format!(
            "no socket path short enough under {}",
            run.display()
        )));
    }
    private_dirs(&run)?;
    Ok(run.join(file))
}

/// Creates `dir` and its missing parents `0700`. The folder above `dir` (the temp folder's
/// `agentero-<uid>`, or the state base) must be a real folder of this user before anything is
/// created in it; `dir` and each folder created must be real folders of this user that no one
/// else can enter (`dir`, when it was wider, is narrowed).
fn private_dirs(dir: &Path) -> io::Result<()> {
    let mut missing = Vec::new();
    let mut here = dir;
    while std::fs::symlink_metadata(here).is_err() {
        missing.push(here);
        match here.parent() {
            Some(p) => here = p,
            None => break,
        }
    }
    let above = dir.parent().filter(|p| !missing.contains(p));
    if let Some(p) = above {
        check_ours(p)?;
    }
    for d in missing.iter().rev() {
        match std::fs::DirBuilder::new().mode(0o700).create(d) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        check_ours(d)?;
    }
    check_ours(dir)?;
    let m = std::fs::symlink_metadata(dir)?;
    if m.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// `dir` is a folder (not a link) owned by this user.
fn check_ours(dir: &Path) -> io::Result<()> {
    let m = std::fs::symlink_metadata(dir)?;
    if !m.is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a folder (a link or a file is there)",
            dir.display()
        )));
    }
    if m.uid() != rustix::process::getuid().as_raw() {
        return Err(io::Error::other(format!(
            "{} belongs to another user",
            dir.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_base_leaves_repositories_and_the_vault() {
        let t = tempfile::tempdir().unwrap();
        let vault = t.path().join("vault");
        std::fs::create_dir_all(&vault).unwrap();
        let temp = t.path().join("tmp/agentero-1/agent-work");
        // A plain per-user base is used as it is, 0700.
        let plain = t.path().join("state/agentero/agent-work");
        let b = base_from(&plain, &temp, &vault).unwrap();
        assert_eq!(b.dir, plain);
        assert!(b.fallback_reason.is_none());
        let mode = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let s = session_dir(&b, "rt-0123456789abcdef").unwrap();
        assert!(s.starts_with(&plain) && s.is_dir());
        assert!(session_dir(&b, "../x").is_err());
        // Inside the vault (a HOME inside it): the temp base.
        let inside = vault.join("home/.local/state/agentero/agent-work");
        let b = base_from(&inside, &temp, &vault).unwrap();
        assert_eq!(b.dir, temp);
        assert!(b.fallback_reason.unwrap().contains("inside the vault"));
        assert!(!inside.exists(), "nothing was created in the vault");
        // Inside a repository: the temp base, and the reason names the repository.
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let b = base_from(&repo.join("state/agent-work"), &temp, &vault).unwrap();
        assert_eq!(b.dir, temp);
        assert!(b.fallback_reason.unwrap().contains("git repository"));
        assert_eq!(repository_above(&repo.join("a/b")), Some(repo.clone()));
        // Both unsuitable: an error, nothing created.
        let e = base_from(&repo.join("s"), &repo.join("t"), &vault).unwrap_err();
        assert!(e.to_string().contains("outside the vault"), "{e}");
    }

    #[test]
    fn a_planted_or_foreign_base_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, t.path().join("agentero-1")).unwrap();
        let e = private_dirs(&t.path().join("agentero-1/agent-work")).unwrap_err();
        assert!(e.to_string().contains("not a folder"), "{e}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        // A folder of ours left open to others is narrowed.
        let open = t.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        private_dirs(&open).unwrap();
        let mode = std::fs::metadata(&open).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        // Created levels are 0700 too.
        private_dirs(&open.join("a/b")).unwrap();
        let mode = std::fs::metadata(open.join("a"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o700);
    }
}
