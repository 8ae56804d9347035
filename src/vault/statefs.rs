//! Every read and write of a file inside `{vault}/.agentero/` goes through here. The folder is
//! agentero's own and trusted only while it is: a file or folder in it that is a symbolic link,
//! not a regular file (a fifo, a device), owned by another user, or hard-linked elsewhere (a hard
//! link counts as foreign) is refused with a message that names it and says how to repair it.
//!
//! The walk holds a directory file descriptor from the vault root down (`openat` with
//! `O_NOFOLLOW`, then `fstat` on what was opened), so nothing can be swapped between the check
//! and the use. Folders are created 0700 and files 0600; nothing agentero did not create is ever
//! chmod'ed. The state root of a path is its nearest ancestor named `.agentero` (or an external
//! state folder `$XDG_STATE_HOME/agentero/<name>-<hash>/` of a read-only vault); a path with
//! no such ancestor (a scratch folder in a test) has its own folder as the root, and only the
//! file itself is checked.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::paths::STATE_DIR;
use super::visible::visible;

/// What was wrong with a refused file or folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    Symlink,
    NotRegular,
    NotDirectory,
    Foreign {
        uid: u32,
    },
    HardLinked {
        links: u64,
    },
    /// An empty, `.` or `..` component, or one with a separator or NUL: never a state name.
    Climbs,
}

/// Whether `name` is one plain component: not empty, `.` or `..`, no `/` or NUL.
fn is_plain_name(name: &OsStr) -> bool {
    let b = name.as_bytes();
    !b.is_empty() && b != b"." && b != b".." && !b.contains(&b'/') && !b.contains(&0)
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{}", refusal_message(path, *problem))]
    Refused { path: PathBuf, problem: Problem },
    #[error("cannot {action} {}: {source}", visible(&path.to_string_lossy()))]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StateError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, StateError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }

    /// The refusal, if this is one (not a plain I/O failure).
    pub fn problem(&self) -> Option<Problem> {
        match self {
            StateError::Refused { problem, .. } => Some(*problem),
            StateError::Io { .. } => None,
        }
    }
}

impl From<StateError> for std::io::Error {
    fn from(e: StateError) -> std::io::Error {
        let kind = match &e {
            StateError::Io { source, .. } => source.kind(),
            StateError::Refused { .. } => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e)
    }
}

fn refusal_message(path: &Path, problem: Problem) -> String {
    let shown = visible(&path.to_string_lossy()).into_owned();
    let rm = |flags: &str| format!("remove it ({flags}{}) and run again", shell_quote(&shown));
    match problem {
        Problem::Symlink => format!(
            "{shown} is a symlink; agentero does not follow links inside {STATE_DIR}/ — {}",
            rm("rm ")
        ),
        Problem::NotRegular => format!(
            "{shown} is not a regular file; agentero keeps only its own files inside {STATE_DIR}/ — {}",
            rm("rm ")
        ),
        Problem::NotDirectory => format!(
            "{shown} is not a folder; agentero keeps only its own folders inside {STATE_DIR}/ — {}",
            rm("rm ")
        ),
        Problem::Foreign { uid } => format!(
            "{shown} belongs to uid {uid}, not to you (uid {}); agentero trusts only its own files inside {STATE_DIR}/ — {}",
            rustix::process::geteuid().as_raw(),
            rm("rm -r ")
        ),
        Problem::Climbs => format!(
            "{shown} has a component that is empty, '.' or '..'; agentero never walks out of {STATE_DIR}/ — nothing was read or written there"
        ),
        Problem::HardLinked { links } => format!(
            "{shown} has {links} hard links; agentero counts a hard-linked file as foreign inside {STATE_DIR}/ — {}",
            rm("rm ")
        ),
    }
}

/// `s` as one shell word (single quotes unless it is plainly safe).
fn shell_quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:,@%".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn io_err(action: &'static str, path: &Path, e: impl Into<std::io::Error>) -> StateError {
    StateError::Io {
        action,
        path: path.to_path_buf(),
        source: e.into(),
    }
}

fn refused(path: &Path, problem: Problem) -> StateError {
    StateError::Refused {
        path: path.to_path_buf(),
        problem,
    }
}

/// The checks every state file or folder must pass once opened.
fn check_stat(st: &rustix::fs::Stat, path: &Path, want_dir: bool) -> Result<(), StateError> {
    let kind = FileType::from_raw_mode(st.st_mode as _);
    match (want_dir, kind) {
        (_, FileType::Symlink) => return Err(refused(path, Problem::Symlink)),
        (true, FileType::Directory) | (false, FileType::RegularFile) => {}
        (true, _) => return Err(refused(path, Problem::NotDirectory)),
        (false, _) => return Err(refused(path, Problem::NotRegular)),
    }
    let me = rustix::process::geteuid().as_raw();
    if st.st_uid != me {
        return Err(refused(path, Problem::Foreign { uid: st.st_uid }));
    }
    #[allow(clippy::unnecessary_cast)]
    let links = st.st_nlink as u64;
    if !want_dir && links > 1 {
        return Err(refused(path, Problem::HardLinked { links }));
    }
    Ok(())
}

/// Why opening `name` in `dir` failed: a refusal when something is there that is not ours.
fn classify(dir: &OwnedFd, name: &OsStr, path: &Path, want_dir: bool, e: Errno) -> StateError {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => match check_stat(&st, path, want_dir) {
            Err(refusal) => refusal,
            Ok(()) => io_err("open", path, e),
        },
        Err(_) => io_err("open", path, e),
    }
}

/// A folder opened by the walk: its descriptor and its path (for messages).
pub struct StateDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// Splits `dir` into the folder the walk starts from (opened as it is: the vault root is the
/// user's) and the components below it that are state and get checked.
fn split_root(dir: &Path) -> (PathBuf, Vec<OsString>) {
    let comps: Vec<_> = dir.components().collect();
    let state = comps
        .iter()
        .rposition(|c| c.as_os_str() == STATE_DIR)
        .or_else(|| {
            (1..comps.len())
                .rev()
                .find(|&i| is_external_root(comps[i - 1].as_os_str(), comps[i].as_os_str()))
        });
    match state {
        Some(i) => {
            let base: PathBuf = comps[..i].iter().collect();
            let base = if base.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                base
            };
            let below = comps[i..]
                .iter()
                .map(|c| c.as_os_str().to_owned())
                .collect();
            (base, below)
        }
        None => (dir.to_path_buf(), Vec::new()),
    }
}

/// Whether `name` under a folder named `parent` is an external state folder
/// (`$XDG_STATE_HOME/agentero/<name>-<16 hex digits>/`, see [`super::state`]): the state root of a
/// vault agentero cannot write into, held to the same rules as `.agentero/`.
pub fn is_external_root(parent: &OsStr, name: &OsStr) -> bool {
    let name = name.as_bytes();
    parent == "agentero"
        && name.len() > 17
        && name[name.len() - 17] == b'-'
        && name[name.len() - 16..]
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// The state root `path` lies in: its nearest `.agentero` or external state folder.
pub fn state_root_of(path: &Path) -> Option<PathBuf> {
    let (base, below) = split_root(path);
    below.first().map(|first| base.join(first))
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl StateDir {
    /// Opens the state folder `dir`, checking every folder from the state root down; with
    /// `create`, missing folders are made 0700.
    pub fn open(dir: &Path, create: bool) -> Result<StateDir, StateError> {
        // `..` never names a state folder: a name with separators in it (a foreign key joined
        // raw) would otherwise climb out of the state folder, and the walk below would follow.
        if dir
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(refused(dir, Problem::Climbs));
        }
        let (base, below) = split_root(dir);
        let external = below.first().is_some_and(|b| b != STATE_DIR);
        if create && (below.is_empty() || external) {
            let mut builder = std::fs::DirBuilder::new();
            std::os::unix::fs::DirBuilderExt::mode(builder.recursive(true), 0o700);
            builder
                .create(&base)
                .map_err(|e| io_err("create", &base, e))?;
        }
        let fd = rustix::fs::open(
            &base,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_err("open", &base, e))?;
        let mut here = StateDir { fd, path: base };
        for name in &below {
            here = here.child(name, create)?;
        }
        Ok(here)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn child(&self, name: &OsStr, create: bool) -> Result<StateDir, StateError> {
        let path = self.path.join(name);
        if !is_plain_name(name) {
            return Err(refused(&path, Problem::Climbs));
        }
        let mut made = false;
        loop {
            match rustix::fs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
                Ok(fd) => {
                    let st = rustix::fs::fstat(&fd).map_err(|e| io_err("inspect", &path, e))?;
                    check_stat(&st, &path, true)?;
                    return Ok(StateDir { fd, path });
                }
                Err(Errno::NOENT) if create && !made => {
                    match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)) {
                        Ok(()) | Err(Errno::EXIST) => made = true,
                        Err(e) => return Err(io_err("create", &path, e)),
                    }
                }
                Err(e) => return Err(classify(&self.fd, name, &path, true, e)),
            }
        }
    }

    /// Opens the file `name` in this folder with `flags` (no-follow added), then checks it.
    fn open_file(
        &self,
        name: &OsStr,
        flags: OFlags,
        action: &'static str,
    ) -> Result<std::fs::File, StateError> {
        let path = self.path.join(name);
        if !is_plain_name(name) {
            return Err(refused(&path, Problem::Climbs));
        }
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK;
        let fd =
            rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)).map_err(|e| {
                match e {
                    Errno::NOENT => io_err(action, &path, e),
                    e => classify(&self.fd, name, &path, false, e),
                }
            })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| io_err("inspect", &path, e))?;
        check_stat(&st, &path, false)?;
        Ok(std::fs::File::from(fd))
    }

    /// The names in this folder (not `.` and `..`), unsorted.
    pub fn list(&self) -> Result<Vec<OsString>, StateError> {
        let mut dir =
            rustix::fs::Dir::read_from(&self.fd).map_err(|e| io_err("list", &self.path, e))?;
        let mut names = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(|e| io_err("list", &self.path, e))?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_owned());
            }
        }
        Ok(names)
    }

    /// Checks that `name` here, if it exists, is a file agentero may replace.
    fn check_replaceable(&self, name: &OsStr) -> Result<(), StateError> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => check_stat(&st, &self.path.join(name), false),
            Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(io_err("inspect", &self.path.join(name), e)),
        }
    }
}

fn parent_and_name(path: &Path) -> Result<(&Path, &OsStr), StateError> {
    let name = path.file_name().ok_or_else(|| {
        io_err(
            "open",
            path,
            std::io::Error::other("the path names no file"),
        )
    })?;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((parent, name))
}

/// Creates the state folder `dir` (and the state folders above it) 0700 where missing, checking
/// every one that exists.
pub fn ensure_dir(dir: &Path) -> Result<StateDir, StateError> {
    StateDir::open(dir, true)
}

/// Checks the state folder `dir` without creating anything (a missing one is `NotFound`).
pub fn check_dir(dir: &Path) -> Result<StateDir, StateError> {
    StateDir::open(dir, false)
}

/// Opens a state file for reading.
pub fn open_read(path: &Path) -> Result<std::fs::File, StateError> {
    let (parent, name) = parent_and_name(path)?;
    StateDir::open(parent, false)?.open_file(name, OFlags::RDONLY, "read")
}

/// The bytes of a state file.
pub fn read(path: &Path) -> Result<Vec<u8>, StateError> {
    let mut f = open_read(path)?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)
        .map_err(|e| io_err("read", path, e))?;
    Ok(bytes)
}

/// The bytes of a state file, `None` when it (or its folder) does not exist.
pub fn read_if_exists(path: &Path) -> Result<Option<Vec<u8>>, StateError> {
    match read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens a state file for reading and writing, creating it 0600 (and its folders 0700) when
/// missing, without truncating it (a lock file).
pub fn open_rw(path: &Path) -> Result<std::fs::File, StateError> {
    let (parent, name) = parent_and_name(path)?;
    StateDir::open(parent, true)?.open_file(name, OFlags::RDWR | OFlags::CREATE, "open")
}

/// Opens a state file for appending, creating it 0600 (and its folders 0700) when missing.
pub fn open_append(path: &Path) -> Result<std::fs::File, StateError> {
    let (parent, name) = parent_and_name(path)?;
    StateDir::open(parent, true)?.open_file(
        name,
        OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE,
        "append to",
    )
}

/// Appends `text` (one or more whole lines) with a single `write` on a file opened with
/// `O_APPEND`: the kernel places it whole at the end, so concurrent writers never interleave
/// and a kill leaves at worst a torn last line.
pub fn append_whole(path: &Path, text: &str) -> Result<(), StateError> {
    let mut f = open_append(path)?;
    let n = f
        .write(text.as_bytes())
        .map_err(|e| io_err("append to", path, e))?;
    if n != text.len() {
        return Err(io_err(
            "append to",
            path,
            std::io::Error::other("short write"),
        ));
    }
    Ok(())
}

static TMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Replaces the state file `path` with `bytes` atomically: a new 0600 file beside it, fsync,
/// then rename, so a reader never sees a half-written file and a crash leaves the old one. An
/// existing file that is not agentero's is refused, not replaced.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    replace_file(path, bytes, true)
}

/// [`atomic_write`] without the fsync, for many files made durable at once by [`sync_folder`]
/// (an fsync costs milliseconds; a thousand of them, seconds). Until then a crash may leave the
/// file empty or missing, never half-written under its name.
pub fn atomic_write_unsynced(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    replace_file(path, bytes, false)
}

/// Makes everything written to the file system of the state folder `dir` durable (one
/// `syncfs`, after [`atomic_write_unsynced`] writes).
pub fn sync_folder(dir: &Path) -> Result<(), StateError> {
    let folder = StateDir::open(dir, false)?;
    rustix::fs::syncfs(&folder.fd).map_err(|e| io_err("sync", dir, e))
}

/// [`atomic_write`] of what `reader` gives, streamed (never whole in memory), at most `limit`
/// bytes: more is refused and nothing replaced. Returns the bytes written.
pub fn atomic_write_from(
    path: &Path,
    reader: &mut dyn Read,
    limit: u64,
) -> Result<u64, StateError> {
    let mut copied = 0;
    replace_with(path, true, &mut |f: &mut std::fs::File| {
        copied = std::io::copy(&mut Read::take(&mut *reader, limit.saturating_add(1)), f)?;
        if copied > limit {
            return Err(std::io::Error::other(format!(
                "more than {limit} bytes; not copied"
            )));
        }
        Ok(())
    })?;
    Ok(copied)
}

fn replace_file(path: &Path, bytes: &[u8], sync: bool) -> Result<(), StateError> {
    replace_with(path, sync, &mut |f: &mut std::fs::File| f.write_all(bytes))
}

fn replace_with(
    path: &Path,
    sync: bool,
    fill: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), StateError> {
    let (parent, name) = parent_and_name(path)?;
    let dir = StateDir::open(parent, true)?;
    dir.check_replaceable(name)?;
    let seq = TMP_SEQ.fetch_add(1, Ordering::Relaxed);
    let mut tmp = OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".{}.{seq}.tmp", std::process::id()));
    let tmp_path = dir.path.join(&tmp);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(&dir.fd, &tmp, flags, Mode::from_raw_mode(0o600)) {
        Ok(fd) => fd,
        Err(Errno::EXIST) => {
            // A leftover of a crashed writer with the same pid (or a planted name): unlinking
            // removes only the name in our own folder, never a link's target.
            let _ = rustix::fs::unlinkat(&dir.fd, &tmp, AtFlags::empty());
            rustix::fs::openat(&dir.fd, &tmp, flags, Mode::from_raw_mode(0o600))
                .map_err(|e| io_err("write", &tmp_path, e))?
        }
        Err(e) => return Err(io_err("write", &tmp_path, e)),
    };
    let mut f = std::fs::File::from(fd);
    let written = fill(&mut f).and_then(|()| if sync { f.sync_all() } else { Ok(()) });
    let done = written
        .map_err(|e| io_err("write", path, e))
        .and_then(|()| dir.check_replaceable(name))
        .and_then(|()| {
            rustix::fs::renameat(&dir.fd, &tmp, &dir.fd, name)
                .map_err(|e| io_err("replace", path, e))
        });
    if done.is_err() {
        let _ = rustix::fs::unlinkat(&dir.fd, &tmp, AtFlags::empty());
    }
    done
}

/// Removes the state file `path` (only the name: a planted link's target is never touched).
pub fn remove_file(path: &Path) -> Result<(), StateError> {
    let (parent, name) = parent_and_name(path)?;
    let dir = StateDir::open(parent, false)?;
    rustix::fs::unlinkat(&dir.fd, name, AtFlags::empty()).map_err(|e| io_err("remove", path, e))
}

/// Renames the state file `from` to `to` (both in the same folder).
pub fn rename(from: &Path, to: &Path) -> Result<(), StateError> {
    let (parent, name) = parent_and_name(from)?;
    let (to_parent, to_name) = parent_and_name(to)?;
    if parent != to_parent {
        return Err(io_err(
            "rename",
            from,
            std::io::Error::other("a state file is renamed only within its folder"),
        ));
    }
    let dir = StateDir::open(parent, false)?;
    dir.check_replaceable(name)?;
    rustix::fs::renameat(&dir.fd, name, &dir.fd, to_name).map_err(|e| io_err("rename", from, e))
}

/// Removes the state folder `dir` and everything in it, after checking the folders down to it
/// (the removal itself never follows a link inside).
pub fn remove_dir_all(dir: &Path) -> Result<(), StateError> {
    let (parent, name) = parent_and_name(dir)?;
    let above = StateDir::open(parent, false)?;
    match rustix::fs::statat(&above.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => check_stat(&st, dir, true)?,
        Err(e) => return Err(io_err("remove", dir, e)),
    }
    std::fs::remove_dir_all(dir).map_err(|e| io_err("remove", dir, e))
}

#[cfg(test)]
mod tests;
