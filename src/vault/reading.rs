//! Reading state that survives a restart, under `{vault}/.agentero/state/`: where each document
//! was left (page and row, when it was last opened — which gives the recently opened list), and
//! the session: the document that was open, the marks and the jump list.
//!
//! Two files, each written atomically, so a crash leaves the previous one whole. A file that
//! cannot be read is reported, moved aside as `NAME.corrupt` (nothing is lost) and ignored:
//! the app starts with an empty state instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::EntryKind;
use super::statefs;

const VERSION: u32 = 1;
const PLACES: &str = "places.json";
const SESSION: &str = "session.json";
/// Documents remembered; past this the longest unopened are forgotten.
pub const MAX_PLACES: usize = 5000;
/// Jumps kept (oldest dropped first).
pub const MAX_JUMPS: usize = 100;

/// Where a document was left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// 1-based page (1 for a text file).
    pub page: u32,
    /// The cursor's row on that page.
    #[serde(default)]
    pub row: usize,
    /// When it was last opened, in milliseconds since the epoch.
    #[serde(default)]
    pub opened_ms: u64,
}

/// A place in a document: a mark, an entry of the jump list, the open document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spot {
    pub path: String,
    pub kind: EntryKind,
    pub page: u32,
    #[serde(default)]
    pub row: usize,
}

/// The session part: what was open, marks, jumps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The document open when the app last stopped.
    #[serde(default)]
    pub open: Option<Spot>,
    #[serde(default)]
    pub marks: BTreeMap<char, Spot>,
    #[serde(default)]
    pub jumps: Vec<Spot>,
    /// Position in `jumps` (`jumps.len()`: at the newest place).
    #[serde(default)]
    pub jump_pos: usize,
    /// Page images drawn dark (`ctrl-r`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dark_pages: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadingState {
    pub places: BTreeMap<String, Place>,
    pub session: Session,
}

#[derive(Serialize, Deserialize)]
struct PlacesFile {
    version: u32,
    places: BTreeMap<String, Place>,
}

#[derive(Serialize, Deserialize)]
struct SessionFile {
    version: u32,
    #[serde(flatten)]
    session: Session,
}

impl ReadingState {
    /// Where `path` was left.
    pub fn place(&self, path: &str) -> Option<&Place> {
        self.places.get(path)
    }

    /// Records where `path` is now; `opened` is set when the document was (re)opened.
    pub fn set_place(&mut self, path: &str, page: u32, row: usize, opened_ms: Option<u64>) {
        let e = self.places.entry(path.to_string()).or_insert(Place {
            page: 1,
            row: 0,
            opened_ms: 0,
        });
        e.page = page.max(1);
        e.row = row;
        if let Some(t) = opened_ms {
            e.opened_ms = t;
        }
    }

    /// Documents by when they were last opened, the most recent first.
    pub fn recent(&self, limit: usize) -> Vec<(&str, &Place)> {
        let mut v: Vec<(&str, &Place)> = self
            .places
            .iter()
            .filter(|(_, p)| p.opened_ms > 0)
            .map(|(k, p)| (k.as_str(), p))
            .collect();
        v.sort_by(|a, b| b.1.opened_ms.cmp(&a.1.opened_ms).then(a.0.cmp(b.0)));
        v.truncate(limit);
        v
    }

    /// Keeps the state within its bounds and drops what cannot be right (pages below 1,
    /// marks that are not letters or digits, a jump position past the end).
    fn tidy(&mut self) {
        if self.places.len() > MAX_PLACES {
            let mut by_age: Vec<(u64, String)> = self
                .places
                .iter()
                .map(|(k, p)| (p.opened_ms, k.clone()))
                .collect();
            by_age.sort();
            let excess = self.places.len() - MAX_PLACES;
            for (_, k) in by_age.into_iter().take(excess) {
                self.places.remove(&k);
            }
        }
        for p in self.places.values_mut() {
            p.page = p.page.max(1);
        }
        let s = &mut self.session;
        s.marks.retain(|c, _| c.is_ascii_alphanumeric());
        if s.jumps.len() > MAX_JUMPS {
            let cut = s.jumps.len() - MAX_JUMPS;
            s.jumps.drain(..cut);
            s.jump_pos = s.jump_pos.saturating_sub(cut);
        }
        s.jump_pos = s.jump_pos.min(s.jumps.len());
        for spot in s
            .marks
            .values_mut()
            .chain(s.jumps.iter_mut())
            .chain(s.open.iter_mut())
        {
            spot.page = spot.page.max(1);
        }
    }
}

/// The state folder's files for one vault.
#[derive(Debug, Clone)]
pub struct ReadingStore {
    dir: PathBuf,
}

impl ReadingStore {
    pub fn new(vault: &super::Vault) -> ReadingStore {
        ReadingStore {
            dir: vault.state_dir().join("state"),
        }
    }

    /// The stored state and, for each file that could not be used, a sentence saying so.
    /// Never fails: a missing file is an empty state, a bad one is set aside.
    pub fn load(&self) -> (ReadingState, Vec<String>) {
        let mut problems = Vec::new();
        let places: Option<PlacesFile> = self.read(PLACES, &mut problems);
        let session: Option<SessionFile> = self.read(SESSION, &mut problems);
        let mut state = ReadingState {
            places: places.map(|p| p.places).unwrap_or_default(),
            session: session.map(|s| s.session).unwrap_or_default(),
        };
        state.tidy();
        (state, problems)
    }

    fn read<T: serde::de::DeserializeOwned + Versioned>(
        &self,
        name: &str,
        problems: &mut Vec<String>,
    ) -> Option<T> {
        let path = self.dir.join(name);
        let bytes = match statefs::read(&path) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return None,
            Err(e) => {
                problems.push(format!(
                    "reading state {name} cannot be read ({e}); ignored"
                ));
                return None;
            }
        };
        let why = match serde_json::from_slice::<T>(&bytes) {
            Ok(v) if v.version() == VERSION => return Some(v),
            Ok(v) => format!("it is of another version ({})", v.version()),
            Err(e) => format!("it is corrupt: {e}"),
        };
        let aside = set_aside(&path);
        problems.push(match aside {
            Some(to) => format!(
                "reading state {name} was not used ({why}); kept as {}, starting fresh",
                to.file_name().and_then(|n| n.to_str()).unwrap_or(name)
            ),
            None => format!("reading state {name} was not used ({why}); starting fresh"),
        });
        None
    }

    /// Writes both files (each atomically). Unchanged files are not rewritten.
    pub fn save(&self, state: &ReadingState) -> std::io::Result<()> {
        let mut state = state.clone();
        state.tidy();
        let places = serde_json::to_vec_pretty(&PlacesFile {
            version: VERSION,
            places: state.places,
        })
        .map_err(std::io::Error::other)?;
        let session = serde_json::to_vec_pretty(&SessionFile {
            version: VERSION,
            session: state.session,
        })
        .map_err(std::io::Error::other)?;
        write_if_changed(&self.dir.join(PLACES), &places)?;
        write_if_changed(&self.dir.join(SESSION), &session)
    }
}

trait Versioned {
    fn version(&self) -> u32;
}

impl Versioned for PlacesFile {
    fn version(&self) -> u32 {
        self.version
    }
}

impl Versioned for SessionFile {
    fn version(&self) -> u32 {
        self.version
    }
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if statefs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    Ok(statefs::atomic_write(path, bytes)?)
}

/// Moves an unusable file to `NAME.corrupt` (replacing an older one), so the next save does
/// not destroy what may still be recovered by hand.
fn set_aside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let to = path.with_file_name(format!("{name}.corrupt"));
    statefs::rename(path, &to).ok().map(|_| to)
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spot(path: &str, page: u32) -> Spot {
        Spot {
            path: path.into(),
            kind: EntryKind::Paper,
            page,
            row: 2,
        }
    }

    fn store() -> (tempfile::TempDir, ReadingStore) {
        let dir = tempfile::tempdir().unwrap();
        let vault = super::super::Vault::open(dir.path()).unwrap();
        let store = ReadingStore::new(&vault);
        (dir, store)
    }

    #[test]
    fn round_trip_and_recent_order() {
        let (_d, store) = store();
        let (empty, problems) = store.load();
        assert_eq!(empty, ReadingState::default());
        assert!(problems.is_empty());

        let mut s = ReadingState::default();
        s.set_place("papers/a/paper.pdf", 5, 3, Some(1000));
        s.set_place("papers/b/paper.pdf", 2, 0, Some(3000));
        s.set_place("notes/n.md", 1, 7, Some(2000));
        // Moving inside a document keeps its opening time.
        s.set_place("papers/a/paper.pdf", 6, 1, None);
        s.session.open = Some(spot("papers/a/paper.pdf", 6));
        s.session.marks.insert('b', spot("papers/b/paper.pdf", 2));
        s.session.jumps = vec![spot("papers/a/paper.pdf", 1), spot("papers/b/paper.pdf", 2)];
        s.session.jump_pos = 2;
        store.save(&s).unwrap();

        let (back, problems) = store.load();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(back, s);
        assert_eq!(back.place("papers/a/paper.pdf").unwrap().page, 6);
        let recent: Vec<&str> = back.recent(10).into_iter().map(|r| r.0).collect();
        assert_eq!(
            recent,
            ["papers/b/paper.pdf", "notes/n.md", "papers/a/paper.pdf"]
        );
        assert_eq!(back.recent(1).len(), 1);
    }

    #[test]
    fn a_corrupt_file_is_reported_set_aside_and_the_other_kept() {
        let (_d, store) = store();
        let mut s = ReadingState::default();
        s.set_place("papers/a/paper.pdf", 4, 0, Some(1));
        s.session.marks.insert('m', spot("papers/a/paper.pdf", 4));
        store.save(&s).unwrap();
        std::fs::write(store.dir.join(SESSION), b"{\"version\":1,\"marks\":{\"m\":").unwrap();

        let (back, problems) = store.load();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("session.json")
                && problems[0].contains("kept as session.json.corrupt"),
            "{}",
            problems[0]
        );
        assert!(back.session.marks.is_empty());
        assert_eq!(back.place("papers/a/paper.pdf").unwrap().page, 4);
        let kept = std::fs::read(store.dir.join("session.json.corrupt")).unwrap();
        assert!(kept.starts_with(b"{\"version\":1"));
        // The next save writes a good file again; the set-aside copy stays.
        store.save(&back).unwrap();
        assert!(store.load().1.is_empty());
        assert!(store.dir.join("session.json.corrupt").exists());
    }

    #[test]
    fn another_version_and_garbage_are_not_fatal() {
        let (_d, store) = store();
        std::fs::create_dir_all(&store.dir).unwrap();
        std::fs::write(store.dir.join(PLACES), b"{\"version\":99,\"places\":{}}").unwrap();
        std::fs::write(store.dir.join(SESSION), [0xff, 0xfe, 0x00]).unwrap();
        let (back, problems) = store.load();
        assert_eq!(back, ReadingState::default());
        assert_eq!(problems.len(), 2);
        assert!(
            problems[0].contains("another version (99)"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn bounds_are_kept() {
        let mut s = ReadingState::default();
        for i in 0..(MAX_PLACES + 10) {
            s.set_place(&format!("p{i}.pdf"), 0, 0, Some(i as u64 + 1));
        }
        s.session.jumps = (0..MAX_JUMPS + 5)
            .map(|i| spot("a.pdf", i as u32))
            .collect();
        s.session.jump_pos = MAX_JUMPS + 5;
        s.session.marks.insert('!', spot("a.pdf", 1));
        s.tidy();
        assert_eq!(s.places.len(), MAX_PLACES);
        assert!(!s.places.contains_key("p0.pdf") && s.places.contains_key("p5009.pdf"));
        assert!(s.places.values().all(|p| p.page >= 1));
        assert_eq!(s.session.jumps.len(), MAX_JUMPS);
        assert_eq!(s.session.jump_pos, MAX_JUMPS);
        assert_eq!(s.session.jumps[0].page, 5);
        assert!(s.session.marks.is_empty());
    }
}
