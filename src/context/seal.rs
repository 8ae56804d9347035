//! What a granted source looked like: a file's stamp (size, times, inode) and a granted
//! folder's seal (everything it covers, at any depth). The grant records seals when it is
//! written; the tools check them on every read. A leaf of `context`: it names neither.

use crate::context::mention;
use crate::vault::scan;

/// The seal of the granted folder `rel` (at `abs`): sha256 of what it covers at any depth
/// ([`mention::coverage`]), each file with its size, modification and change times and
/// inode — so adding, removing, rewriting or swapping in a file under it changes the seal,
/// even when the mtime is put back.
pub fn folder_seal(rel: &str, abs: &std::path::Path) -> String {
    use std::fmt::Write;
    let covered = mention::coverage(rel, abs, crate::context::plan::COVERAGE_LIMIT);
    let mut text = String::new();
    for (path, kind) in &covered.entries {
        let inside = path
            .strip_prefix(rel.trim_end_matches('/'))
            .unwrap_or(path)
            .trim_start_matches('/');
        let stamp = std::fs::symlink_metadata(abs.join(inside))
            .ok()
            .map(|m| FileStamp::of(&m));
        let _ = writeln!(text, "{} {path} {stamp:?}", kind.as_str());
    }
    if covered.truncated {
        text.push_str("(truncated)\n");
    }
    crate::vault::fsutil::sha256_hex(text.as_bytes())
}

/// What a file looked like when its content was last checked against the grant. The change
/// time and inode move on any rewrite, rename or new link, even one that restores the mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub len: u64,
    pub mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        #[cfg(unix)]
        let (ctime_ns, ino) = {
            use std::os::unix::fs::MetadataExt;
            (
                meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                meta.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, ino) = (0, 0);
        FileStamp {
            len: meta.len(),
            mtime_ns: scan::mtime_ns(meta),
            ctime_ns,
            ino,
        }
    }
}
