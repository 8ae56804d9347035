//! Reading Zotero's database without touching it. Zotero 7–9 keep a rollback journal: the file
//! is opened `immutable=1` read-only, which takes no lock and creates nothing beside it, so it
//! works while Zotero holds its exclusive lock. Zotero 10 runs in WAL mode and what it has
//! committed may sit in `zotero.sqlite-wal` only, which an immutable open does not see: then
//! the database and its `-wal` are copied into the state folder and the copy is opened.
//!
//! A database from elsewhere is foreign input: every query runs under a deadline (SQLite's
//! progress handler interrupts it), no value may be longer than [`MAX_VALUE_BYTES`], the
//! tables read must be tables (a recursive view named `deletedItems` would spin forever), and
//! a `-wal` longer than [`MAX_WAL_BYTES`] is not copied.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};

use crate::vault::statefs;

/// How long reading one library may take, every query together.
pub const READ_DEADLINE: Duration = Duration::from_secs(60);
/// The longest string or blob a query may produce (Zotero's longest values are notes).
pub const MAX_VALUE_BYTES: i32 = 64 << 20;
/// The longest `-wal` copied. Zotero checkpoints its log when idle; one this long is not a
/// library's (length counts, not the blocks a sparse file uses).
pub const MAX_WAL_BYTES: u64 = 1 << 30;

/// The most rows read from one query: ten times the largest libraries Zotero's forums report.
pub const MAX_ROWS: usize = 5_000_000;

/// Zotero's object keys: 8 characters of this alphabet (`Zotero.Utilities.generateObjectKey`).
const KEY_ALPHABET: &[u8] = b"23456789ABCDEFGHIJKLMNPQRSTUVWXYZ";

/// Whether `key` has the shape of a Zotero key (8 characters of [`KEY_ALPHABET`]): only such
/// keys are ever joined into a path.
pub fn is_key(key: &str) -> bool {
    key.len() == 8 && key.bytes().all(|b| KEY_ALPHABET.contains(&b))
}

/// Puts every later query on `conn` under `deadline` and the value-length cap.
pub fn bound(conn: &mut Connection, deadline: Instant) -> rusqlite::Result<()> {
    conn.progress_handler(1000, Some(move || Instant::now() >= deadline))?;
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
    Ok(())
}

/// Whether `e` is the interruption of the deadline.
pub fn is_interrupt(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted)
}

/// Checks that each of `required` is a plain table of `conn`'s database, and each of
/// `optional` too when it exists; `whose` names the owner for the message ("Zotero's").
pub fn check_tables(
    conn: &Connection,
    required: &[&str],
    optional: &[&str],
    whose: &str,
) -> Result<(), String> {
    let not = |why: String| format!("this database is not {whose}: {why}");
    let mut st = conn
        .prepare("SELECT type, sql FROM sqlite_master WHERE name = ?1")
        .map_err(|e| not(e.to_string()))?;
    for (name, needed) in required
        .iter()
        .map(|n| (n, true))
        .chain(optional.iter().map(|n| (n, false)))
    {
        let found: Option<(String, Option<String>)> = st
            .query_row([name], |r| Ok((r.get(0)?, r.get(1)?)))
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(not(e.to_string())),
            })?;
        match found {
            None if needed => return Err(not(format!("it has no table {name}"))),
            None => {}
            Some((kind, _)) if kind != "table" => {
                return Err(not(format!("{name} is a {kind}, not a table")));
            }
            Some((_, sql))
                if sql.as_deref().is_some_and(|s| {
                    s.trim_start()
                        .to_ascii_uppercase()
                        .starts_with("CREATE VIRTUAL")
                }) =>
            {
                return Err(not(format!("{name} is a virtual table")));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

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
        let wal_len = before.wal.map_or(0, |w| w.0);
        if wal_len > MAX_WAL_BYTES {
            return Err(format!(
                "{} is {} MB, more than the {} MB agentero copies; let Zotero fold it into the \
                 database (quit Zotero and start it again) and try again",
                wal.display(),
                wal_len >> 20,
                MAX_WAL_BYTES >> 20
            ));
        }
        let name = db.file_name().unwrap_or_default();
        let copy = copy_dir.join(name);
        let copy_wal = wal_of(&copy);
        statefs::ensure_dir(copy_dir).map_err(|e| e.to_string())?;
        let shm = copy_dir.join(format!("{}-shm", name.to_string_lossy()));
        let _ = statefs::remove_file(&shm);
        // Streamed, never whole in memory; each at most the length it had when stamped.
        let stream = |from: &Path, to: &Path, len: u64| -> Result<(), String> {
            let mut f = std::fs::File::open(from)
                .map_err(|e| format!("cannot read {}: {e}", from.display()))?;
            statefs::atomic_write_from(to, &mut f, len)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let copied = stream(db, &copy, before.db.0).and_then(|()| stream(&wal, &copy_wal, wal_len));
        // Zotero wrote while we copied: the pair may not match, so copy again.
        if stamp(db) != before {
            continue;
        }
        copied?;
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
/// (libraryID, itemKey), read under `deadline`. Absent: none; unreadable or not Better
/// BibTeX's: none, and the reason (for a warning).
pub type CitationKeys = std::collections::HashMap<(i64, String), String>;

pub fn bbt_keys(dir: &Path, copy_dir: &Path, deadline: Instant) -> (CitationKeys, Option<String>) {
    let mut out = CitationKeys::new();
    let path = dir.join("better-bibtex.sqlite");
    if !path.is_file() {
        return (out, None);
    }
    let warn = |e: String| {
        Some(format!(
            "{}: {e}; its citation keys are not used",
            path.display()
        ))
    };
    let mut conn = match open(&path, copy_dir) {
        Ok((conn, _)) => conn,
        Err(e) => return (out, warn(e)),
    };
    if let Err(e) = bound(&mut conn, deadline) {
        return (out, warn(e.to_string()));
    }
    if let Err(e) = check_tables(&conn, &["citationkey"], &[], "Better BibTeX's") {
        return (out, warn(e));
    }
    let mut read = || -> rusqlite::Result<()> {
        let mut st = conn.prepare("SELECT libraryID, itemKey, citationKey FROM citationkey")?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            // A row of another shape is skipped; an interruption ends the read.
            match row {
                Ok((lib, key, ck)) if is_key(&key) => {
                    if out.len() >= MAX_ROWS {
                        break;
                    }
                    out.insert((lib, key), ck);
                }
                Ok(_) => {}
                Err(e) if is_interrupt(&e) => return Err(e),
                Err(_) => {}
            }
        }
        Ok(())
    };
    match read() {
        Ok(()) => (out, None),
        Err(e) if is_interrupt(&e) => (
            CitationKeys::new(),
            warn(format!(
                "reading it took longer than {} s",
                READ_DEADLINE.as_secs()
            )),
        ),
        Err(e) => (CitationKeys::new(), warn(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_run_under_a_deadline_and_tables_are_checked() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE items (x); CREATE VIEW deletedItems AS WITH RECURSIVE r(n) AS
             (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r;",
        )
        .unwrap();
        let e = check_tables(&conn, &["items", "deletedItems"], &[], "Zotero's").unwrap_err();
        assert_eq!(
            e,
            "this database is not Zotero's: deletedItems is a view, not a table"
        );
        let e = check_tables(&conn, &["items", "collections"], &[], "Zotero's").unwrap_err();
        assert!(e.ends_with("it has no table collections"), "{e}");
        assert!(check_tables(&conn, &["items"], &["itemAnnotations"], "Zotero's").is_ok());
        bound(&mut conn, Instant::now() + Duration::from_millis(200)).unwrap();
        let e = conn
            .query_row("SELECT length(zeroblob(100000000))", [], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap_err();
        assert!(e.to_string().contains("too big"), "{e}");
        let t = Instant::now();
        let e = conn
            .query_row("SELECT count(*) FROM deletedItems", [], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap_err();
        assert!(is_interrupt(&e), "{e}");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }

    #[test]
    fn uris_escape_what_they_must() {
        assert_eq!(
            immutable_uri(Path::new("/home/a b/Zo#tero/zotero.sqlite")),
            "file:/home/a%20b/Zo%23tero/zotero.sqlite?mode=ro&immutable=1"
        );
    }
}
