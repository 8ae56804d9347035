//! Where a vault's state lives. A vault agentero may write keeps it in `{vault}/.agentero/`; a
//! read-only one (a folder it cannot write, a Zotero data directory, always) keeps it outside,
//! in `$XDG_STATE_HOME/agentero/<name>-<hash>/` (`~/.local/state/…` when unset), the hash being
//! of the vault's canonical path so two vaults of one name never share a folder. Nothing is
//! ever written inside such a vault.

use std::path::{Path, PathBuf};

use super::fsutil::sha256_hex;
use super::paths::STATE_DIR;

/// Where the state of one vault lives and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateLocation {
    pub dir: PathBuf,
    /// The vault itself is not written (its state is kept outside it).
    pub external: bool,
}

/// The base of external state folders: `$XDG_STATE_HOME/agentero` when it is an absolute path,
/// else `~/.local/state/agentero`, else the temp folder's `agentero-state`.
pub fn external_base() -> PathBuf {
    canonical_prefix(&external_base_named())
}

/// The base of real agents' working folders: `agent-work/` in [`external_base`] (outside every
/// vault folder agentero writes; the ACP client checks where it lies before using it).
pub fn agent_work_base() -> PathBuf {
    external_base().join(AGENT_WORK)
}

/// The per-user secret that binds remembered permission answers (`0600`, created on first use
/// by the ACP client): in [`external_base`], outside every vault.
pub fn answer_key_file() -> PathBuf {
    external_base().join(ANSWER_KEY)
}

/// The name of [`agent_work_base`] in the external base (never a vault's `<name>-<hash>`).
pub const AGENT_WORK: &str = "agent-work";
/// The name of [`answer_key_file`] in the external base.
pub const ANSWER_KEY: &str = "answer-key";

fn external_base_named() -> PathBuf {
    if let Some(p) = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return p.join("agentero");
    }
    match std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        Some(h) => h.join(".local").join("state").join("agentero"),
        None => std::env::temp_dir().join("agentero-state").join("agentero"),
    }
}

/// The external state folder's name for the vault at canonical `root`: `<name>-<16 hex>`,
/// `name` being `prefix` or else the folder's name reduced to letters, digits, `-` and `_`.
pub fn external_name(root: &Path, prefix: Option<&str>) -> String {
    let name: String = match prefix {
        Some(p) => p.to_string(),
        None => root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
    .chars()
    .map(|c| {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            c
        } else {
            '_'
        }
    })
    .take(40)
    .collect();
    let name = if name.trim_matches('_').is_empty() {
        "vault".to_string()
    } else {
        name
    };
    let hash = sha256_hex(root.as_os_str().as_encoded_bytes());
    format!("{name}-{}", &hash[..16])
}

/// The decision: in the vault when `writable` (or when the vault already holds a state folder
/// agentero can write), else outside under `base`. `prefix` names external folders
/// (`zotero` for a Zotero data directory, which is never written).
pub fn decide(root: &Path, writable: bool, prefix: Option<&str>, base: &Path) -> StateLocation {
    if writable && prefix.is_none() {
        return StateLocation {
            dir: root.join(STATE_DIR),
            external: false,
        };
    }
    StateLocation {
        dir: base.join(external_name(root, prefix)),
        external: true,
    }
}

/// Whether `dir` is a state folder of the vault at canonical `root`: its `.agentero/`, or an
/// external folder of its name and hash.
pub fn belongs_to(dir: &Path, root: &Path, prefix: Option<&str>) -> bool {
    if prefix.is_none() && dir == root.join(STATE_DIR) {
        return true;
    }
    dir.file_name()
        .is_some_and(|n| n.to_string_lossy() == external_name(root, prefix))
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|p| p == "agentero")
}

/// `path` with its longest existing prefix made canonical (symlinks in `$HOME` resolved), so
/// the state folder's name is the same whichever way it is reached.
pub fn canonical_prefix(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut here = path.to_path_buf();
    loop {
        if let Ok(c) = here.canonicalize() {
            return rest
                .into_iter()
                .rev()
                .fold(c, |acc, n: std::ffi::OsString| acc.join(n));
        }
        match (here.file_name().map(|n| n.to_os_string()), here.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n);
                here = p.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether agentero may keep its state inside the folder vault at canonical `root`: its
/// `.agentero/` exists and can be written, or it does not and the root can be written.
pub fn writable(root: &Path) -> bool {
    let state = root.join(STATE_DIR);
    let probe = match std::fs::symlink_metadata(&state) {
        Ok(m) if m.is_dir() => state,
        // Something else there: the state folder's own checks say what is wrong with it.
        Ok(_) => return true,
        Err(_) => root.to_path_buf(),
    };
    rustix::fs::access(
        &probe,
        rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
    )
    .is_ok()
        && !read_only_mount(&probe)
}

/// Whether the file system holding `path` is mounted read-only (where even root cannot write).
fn read_only_mount(path: &Path) -> bool {
    rustix::fs::statvfs(path)
        .map(|s| s.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writable_vaults_keep_state_inside_others_outside() {
        let base = Path::new("/state/agentero");
        let root = Path::new("/home/u/My Papers");
        let inside = decide(root, true, None, base);
        assert_eq!(inside.dir, root.join(".agentero"));
        assert!(!inside.external);
        let outside = decide(root, false, None, base);
        assert!(outside.external);
        let name = outside.dir.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("My_Papers-"), "{name}");
        assert_eq!(outside.dir.parent(), Some(base));
        assert!(super::super::statefs::is_external_root(
            "agentero".as_ref(),
            name.as_ref()
        ));
        // A Zotero folder is never written, even when it could be.
        let z = decide(Path::new("/home/u/Zotero"), true, Some("zotero"), base);
        assert!(z.external);
        assert!(
            z.dir
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("zotero-")
        );
        // Two vaults of one name get two folders.
        let other = decide(Path::new("/mnt/My Papers"), false, None, base);
        assert_ne!(other.dir, outside.dir);
    }

    #[test]
    fn an_external_state_folder_is_held_to_the_same_rules() {
        use super::super::statefs;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        std::fs::create_dir(&root).unwrap();
        let loc = decide(&root, false, None, &dir.path().join("state/agentero"));
        statefs::ensure_dir(&loc.dir.join("chats")).unwrap();
        let mode = std::fs::metadata(&loc.dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert_eq!(
            statefs::state_root_of(&loc.dir.join("chats/t1")),
            Some(loc.dir.clone())
        );
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, loc.dir.join("logs")).unwrap();
        let e = statefs::atomic_write(&loc.dir.join("logs/x.log"), b"x").unwrap_err();
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        assert!(belongs_to(&loc.dir, &root, None));
        assert!(!belongs_to(&loc.dir, &dir.path().join("other"), None));
        assert!(belongs_to(&root.join(".agentero"), &root, None));
        assert!(
            std::fs::read_dir(&root).unwrap().next().is_none(),
            "nothing in the vault"
        );
    }

    #[test]
    fn a_folder_one_cannot_write_is_read_only() {
        let dir = tempfile::tempdir().unwrap();
        assert!(writable(dir.path()));
        let is_root = rustix::process::geteuid().is_root();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
        if is_root {
            eprintln!("running as root: chmod does not stop root, only a read-only mount does");
        } else {
            assert!(!writable(dir.path()));
        }
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
