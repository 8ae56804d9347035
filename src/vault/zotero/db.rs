//! Reading Zotero's database without touching it. Zotero 7–9 keep a rollback journal: the file
//! is opened `immutable=1` read-only, which takes no lock and creates nothing beside it, so it
//! works while Zotero holds its exclusive lock. Zotero 10 runs in WAL mode and what it has
//! committed may sit in `zotero.sqlite-wal` only, which an immutable open does not see: then
//! the database and its `-wal` are copied into the state folder and the copy is opened.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::vault::statefs;

/// Size and modification time of the database and its `-wal`: when they move, the library is
/// read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    db: (u64, i128),
    wal: Option<(u64, i128)>,
}

fn stamp_of(path: &Path) -> Option<(u64, i128)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), crate::vault::scan::mtime_ns(&m)))
}

fn wal_of(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

pub fn stamp(db: &Path) -> Stamp {
    Stamp {
        db: stamp_of(db).unwrap_or_default(),
        wal: stamp_of(&wal_of(db)).filter(|(len, _)| *len > 0),
    }
}

/// `file:` URI of `path` with `immutable=1` (percent-encoding what a URI cannot hold).
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(*b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    uri
}

fn open_immutable(path: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

/// Opens the database at `db` (in the Zotero folder) for reading, through a copy in `copy_dir`
/// when it has a non-empty `-wal`. Returns the connection and the stamp it was read at.
pub fn open(db: &Path, copy_dir: &Path) -> Result<(Connection, Stamp), String> {
    let wal = wal_of(db);
    for _ in 0..5 {
        let before = stamp(db);
        if before.wal.is_none() {
            let conn = open_immutable(db).map_err(|e| e.to_string())?;
            return Ok((conn, before));
        }
        let name = db.file_name().unwrap_or_default();
        let copy = copy_dir.join(name);
        let copy_wal = wal_of(&copy);
        let main = std::fs::read(db).map_err(|e| format!("cannot read {}: {e}", db.display()))?;
        let log = std::fs::read(&wal).map_err(|e| format!("cannot read {}: {e}", wal.display()))?;
        // Zotero wrote while we copied: the pair may not match, so copy again.
        if stamp(db) != before {
            continue;
        }
        statefs::ensure_dir(copy_dir).map_err(|e| e.to_string())?;
        let shm = copy_dir.join(format!("{}-shm", name.to_string_lossy()));
        let _ = statefs::remove_file(&shm);
        statefs::atomic_write(&copy, &main).map_err(|e| e.to_string())?;
        statefs::atomic_write(&copy_wal, &log).map_err(|e| e.to_string())?;
        let conn = Connection::open_with_flags(
            &copy,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| e.to_string())?;
        // The copy is ours: a plain, unshared connection that reads the log it was given.
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
            .map_err(|e| e.to_string())?;
        return Ok((conn, before));
    }
    Err(format!(
        "{} kept changing while it was copied; try again",
        db.display()
    ))
}

/// Better BibTeX's citation keys (`better-bibtex.sqlite`, table `citationkey`), by
/// (libraryID, itemKey). Absent or unreadable: none.
pub fn bbt_keys(dir: &Path, copy_dir: &Path) -> std::collections::HashMap<(i64, String), String> {
    let mut out = std::collections::HashMap::new();
    let path = dir.join("better-bibtex.sqlite");
    if !path.is_file() {
        return out;
    }
    let Ok((conn, _)) = open(&path, copy_dir) else {
        return out;
    };
    let Ok(mut st) = conn.prepare("SELECT libraryID, itemKey, citationKey FROM citationkey") else {
        return out;
    };
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
        ))
    });
    if let Ok(rows) = rows {
        for (lib, key, ck) in rows.flatten() {
            out.insert((lib, key), ck);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_they_must() {
        assert_eq!(
            immutable_uri(Path::new("/home/a b/Zo#tero/zotero.sqlite")),
            "file:/home/a%20b/Zo%23tero/zotero.sqlite?mode=ro&immutable=1"
        );
    }
}
