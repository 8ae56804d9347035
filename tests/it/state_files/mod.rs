//! `.agentero/` is agentero's own: for every kind of state file, a planted symlink to a file
//! outside the vault, a hard link to it, and a file owned by another user are each refused
//! with a message that names the file and the repair — and the file outside is byte-identical
//! (and keeps its mode) afterwards. A symlinked folder on the way is refused the same way, and
//! what agentero creates there is 0600 (files) and 0700 (folders).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use agentero::acp::permission::{Remember, Remembered};
use agentero::acp::transcript::{self, Line, Thread};
use agentero::context::tools::vault::{UsageEntry, usage_log_path};
use agentero::context::{ContextRequest, grant, plan};
use agentero::mcp::http;
use agentero::vault::Vault;
use agentero::vault::reading::{ReadingState, ReadingStore};
use agentero::vault::render::{PageCache, PageImage};

const RUNTIME: &str = "rt-planted";
const THREAD: &str = "th-planted";
const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// One kind of state file: where it lives and how agentero uses it. `exercise` writes it and
/// reads it back the way agentero does, and returns what agentero said (errors, warnings,
/// stderr). `speaks` is false for the page cache: a refused cache entry is a miss, written to
/// the log, and the next render is the repair.
struct Kind {
    name: &'static str,
    rel: &'static str,
    speaks: bool,
    exercise: fn(&Vault) -> Vec<String>,
}

fn usage_line() -> grant::UsageLine {
    grant::UsageLine {
        ts: grant::now_rfc3339(),
        turn_id: "turn-1".into(),
        tool: "context_read".into(),
        args_digest: "d".into(),
        citation_uris: Vec::new(),
        chars: 10,
        micros: 1,
    }
}

fn user_line(text: &str) -> Line {
    Line::User {
        ts: grant::now_rfc3339(),
        turn: "turn-1".into(),
        text: text.into(),
        mentions: Vec::new(),
    }
}

fn err(r: Result<impl Sized, impl ToString>) -> Vec<String> {
    match r {
        Ok(_) => Vec::new(),
        Err(e) => vec![e.to_string()],
    }
}

fn thread(vault: &Vault) -> Thread {
    let mut t = Thread::create(vault);
    t.id = THREAD.into();
    t.dir = transcript::chats_dir(vault).join(THREAD);
    t
}

fn kinds() -> Vec<Kind> {
    vec![
        Kind {
            name: "context usage.jsonl",
            speaks: true,
            rel: "context-sessions/rt-planted/usage.jsonl",
            exercise: |v| {
                let files = grant::GrantFiles::new(v, RUNTIME).unwrap();
                let said = err(grant::append_usage(&files.usage(), &usage_line()));
                let read = grant::read_usage(&files.usage()).len();
                let used = grant::UsageMeter::default().used(&files.usage(), "turn-1");
                assert_eq!((read, used), if said.is_empty() { (1, 10) } else { (0, 0) });
                said
            },
        },
        Kind {
            name: "serve usage.jsonl",
            speaks: true,
            rel: "serve/usage.jsonl",
            exercise: |v| {
                let entry = UsageEntry {
                    ts: grant::now_rfc3339(),
                    transport: "stdio".into(),
                    client: Some("$(touch PWNED)".into()),
                    tool: "read".into(),
                    paths: vec!["papers/x".into()],
                    chars: 1,
                    citation_uris: Vec::new(),
                    error: None,
                };
                err(entry.append(&usage_log_path(v)))
            },
        },
        Kind {
            name: "transcript",
            speaks: true,
            rel: "chats/th-planted/transcript.jsonl",
            exercise: |v| {
                let mut said = err(thread(v).append(user_line("$(touch PWNED)")));
                match Thread::open(v, THREAD) {
                    Ok(t) => said.extend(t.warnings),
                    Err(e) => said.push(e.to_string()),
                }
                said
            },
        },
        Kind {
            name: "thread state",
            speaks: true,
            rel: "chats/th-planted/state.json",
            exercise: |v| {
                let mut said = err(thread(v).save_state());
                match Thread::open(v, THREAD) {
                    Ok(t) => said.extend(t.warnings),
                    Err(e) => said.push(e.to_string()),
                }
                said
            },
        },
        Kind {
            name: "grant",
            speaks: true,
            rel: "context-sessions/rt-planted/grant.json",
            exercise: |v| {
                let files = grant::GrantFiles::new(v, RUNTIME).unwrap();
                let p = plan(v, &ContextRequest::default());
                let mut said = err(grant::write(v, RUNTIME, &p));
                said.extend(err(grant::read(&files.grant())));
                said
            },
        },
        Kind {
            name: "reading state",
            speaks: true,
            rel: "state/places.json",
            exercise: |v| {
                let store = ReadingStore::new(v);
                let mut s = ReadingState::default();
                s.set_place("papers/a/paper.pdf", 3, 0, Some(1));
                let mut said = err(store.save(&s));
                let (state, problems) = store.load();
                assert_eq!(state.places.len(), usize::from(said.is_empty()));
                said.extend(problems);
                said
            },
        },
        Kind {
            name: "serve-token",
            speaks: true,
            rel: "serve-token",
            exercise: |v| {
                let mut said = err(http::ensure_token(v).map_err(|e| format!("{e:#}")));
                said.extend(err(http::rotate_token(v).map_err(|e| format!("{e:#}"))));
                said
            },
        },
        Kind {
            name: "permissions.json",
            speaks: true,
            rel: "permissions.json",
            exercise: |v| {
                let mut r = Remembered::load(&v.state_dir());
                assert!(
                    r.get("claude", "cmd", "tool:Bash").is_none(),
                    "a planted permissions file was used"
                );
                let said = err(r.set(
                    &v.state_dir(),
                    "claude",
                    "cmd",
                    "tool:Bash",
                    Remember::Allow,
                ));
                let again = Remembered::load(&v.state_dir());
                assert_eq!(
                    again.get("claude", "cmd", "tool:Bash").is_some(),
                    said.is_empty()
                );
                said
            },
        },
        Kind {
            name: "page cache",
            speaks: false,
            rel: "cache/pages/0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef/1-96.png",
            exercise: |v| {
                let cache = PageCache::new(v);
                cache.put(SHA, 1, &page_image());
                let got = cache.get(SHA, 1, 96);
                if let Some(img) = got {
                    assert_eq!(img.image, page_image().image);
                    return Vec::new();
                }
                vec!["the page was not cached".into()]
            },
        },
        Kind {
            name: "vectors.bin",
            speaks: true,
            rel: "vectors.bin",
            exercise: |v| {
                use agentero::vault::embed::{VectorStore, store};
                let id = store::ModelId {
                    name: "t/m".into(),
                    identity: "i".into(),
                };
                let mut w = store::StoreWriter::new(id, 2);
                w.doc("papers/x.pdf", SHA);
                w.push(1, &[0.6, 0.8]);
                let mut said = err(w.save(&v.vectors_path()));
                said.extend(err(VectorStore::open(&v.vectors_path()).map(|_| ())));
                said
            },
        },
        Kind {
            name: "log",
            speaks: true,
            rel: "logs/agentero.log",
            exercise: |v| {
                let out = super::common::agentero(
                    &["threads", "--vault", &v.root().display().to_string()],
                    v.root(),
                );
                vec![super::common::stderr(&out)]
            },
        },
    ]
}

fn page_image() -> PageImage {
    PageImage {
        image: image::RgbImage::from_pixel(4, 4, image::Rgb([200, 10, 10])),
        transform: [1.0, 0.0, 0.0, -1.0, 0.0, 4.0],
        dpi: 96,
    }
}

/// A vault with a paper folder, and beside it (outside the vault) the file an attacker wants
/// written: a shell rc file.
struct Fixture {
    _dir: tempfile::TempDir,
    vault: Vault,
    outside: PathBuf,
}

const RC: &[u8] = b"# ~/.bashrc\nexport PATH=/usr/local/bin:/usr/bin\n";

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    std::fs::create_dir_all(root.join("papers/a")).unwrap();
    std::fs::write(root.join("papers/a/notes.md"), "# A\n").unwrap();
    let outside = dir.path().join("bashrc");
    std::fs::write(&outside, RC).unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644)).unwrap();
    let vault = Vault::open(&root).unwrap();
    Fixture {
        _dir: dir,
        vault,
        outside,
    }
}

fn state_path(f: &Fixture, rel: &str) -> PathBuf {
    f.vault.state_dir().join(rel)
}

fn plant_parent(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
}

#[derive(Clone, Copy, Debug)]
enum Plant {
    Symlink,
    HardLink,
    Foreign,
}

impl Plant {
    fn said(self) -> &'static str {
        match self {
            Plant::Symlink => "is a symlink; agentero does not follow links inside .agentero/",
            Plant::HardLink => "hard links; agentero counts a hard-linked file as foreign",
            Plant::Foreign => "belongs to uid 65534, not to you",
        }
    }
}

/// `chown` needs root; elsewhere the foreign-owner checks say so and are skipped.
fn can_chown(p: &Path) -> bool {
    match std::os::unix::fs::lchown(p, Some(65534), Some(65534)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "skipped: cannot chown a planted file to uid 65534 ({e}); run as root to test it"
            );
            false
        }
    }
}

/// Plants `kind`'s file as `how`, lets agentero use it, and checks the refusal and that the
/// file it pointed at is untouched. Returns false when the plant needs root and we are not.
fn planted(kind: &Kind, how: Plant) -> bool {
    let f = fixture();
    let p = state_path(&f, kind.rel);
    plant_parent(&p);
    // What must stay as it is: the rc file outside (link, hard link) or the planted file.
    let watched = match how {
        Plant::Symlink => {
            std::os::unix::fs::symlink(&f.outside, &p).unwrap();
            f.outside.clone()
        }
        Plant::HardLink => {
            std::fs::hard_link(&f.outside, &p).unwrap();
            f.outside.clone()
        }
        Plant::Foreign => {
            std::fs::write(&p, RC).unwrap();
            if !can_chown(&p) {
                return false;
            }
            p.clone()
        }
    };
    let before = std::fs::symlink_metadata(&watched).unwrap();
    let said = (kind.exercise)(&f.vault).join("\n");
    let shown = p.display().to_string();
    if kind.speaks {
        assert!(
            said.contains(how.said()) && said.contains(&shown),
            "{} planted as {how:?}: agentero said {said:?}",
            kind.name
        );
    } else {
        assert!(
            !said.is_empty(),
            "{} planted as {how:?} was used",
            kind.name
        );
    }
    assert_eq!(
        std::fs::read(&watched).unwrap(),
        RC,
        "{} ({how:?}) wrote through",
        kind.name
    );
    let after = std::fs::symlink_metadata(&watched).unwrap();
    assert_eq!(
        after.mode(),
        before.mode(),
        "{} ({how:?}) chmod'ed it",
        kind.name
    );
    assert_eq!(
        (after.uid(), after.ino()),
        (before.uid(), before.ino()),
        "{}",
        kind.name
    );
    if matches!(how, Plant::Symlink) {
        assert!(
            std::fs::symlink_metadata(&p)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    true
}

#[test]
fn a_planted_symlink_is_refused_for_every_state_file() {
    for kind in kinds() {
        planted(&kind, Plant::Symlink);
    }
}

#[test]
fn a_planted_hard_link_is_refused_for_every_state_file() {
    for kind in kinds() {
        planted(&kind, Plant::HardLink);
    }
}

#[test]
fn a_state_file_owned_by_another_user_is_refused_for_every_state_file() {
    for kind in kinds() {
        if !planted(&kind, Plant::Foreign) {
            return;
        }
    }
}

/// Every folder on the way to a state file, `.agentero` itself included, planted as a link to
/// an empty folder outside: agentero refuses it and creates nothing there.
#[test]
fn a_symlinked_folder_on_the_way_is_refused() {
    for kind in kinds() {
        let rel = Path::new(kind.rel);
        let mut folders: Vec<PathBuf> = rel.ancestors().skip(1).map(Path::to_path_buf).collect();
        folders.retain(|a| !a.as_os_str().is_empty());
        folders.push(PathBuf::new()); // `.agentero` itself
        for folder in folders {
            let f = fixture();
            let elsewhere = f.outside.with_file_name("elsewhere");
            std::fs::create_dir(&elsewhere).unwrap();
            let link = match folder.as_os_str().is_empty() {
                true => f.vault.state_dir(),
                false => f.vault.state_dir().join(&folder),
            };
            plant_parent(&link);
            std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
            let said = (kind.exercise)(&f.vault).join("\n");
            let refused = format!("{} is a symlink", link.display());
            assert!(
                if kind.speaks {
                    said.contains(&refused)
                } else {
                    !said.is_empty()
                },
                "{} with {} a link: agentero said {said:?}",
                kind.name,
                link.display()
            );
            let left: Vec<_> = walk(&elsewhere);
            assert!(
                left.is_empty(),
                "{} wrote {left:?} through {}",
                kind.name,
                link.display()
            );
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// Without anything planted, every kind works and what agentero created is private.
#[test]
fn state_files_are_created_0600_in_folders_0700() {
    let f = fixture();
    for kind in kinds() {
        let said = (kind.exercise)(&f.vault).join("\n");
        // The log's kind runs the binary: its stderr may carry other notes.
        let quiet = match kind.name {
            "log" => !said.contains("not logging"),
            _ => said.is_empty(),
        };
        assert!(quiet, "{}: {said:?}", kind.name);
    }
    let state = f.vault.state_dir();
    let mut seen = 0;
    for p in walk(&state).into_iter().chain([state.clone()]) {
        let m = std::fs::symlink_metadata(&p).unwrap();
        let want = if m.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(m.mode() & 0o777, want, "{}", p.display());
        seen += 1;
    }
    for kind in kinds() {
        assert!(
            state.join(kind.rel).is_file(),
            "{} was not written",
            kind.name
        );
    }
    assert!(seen > 15, "{seen}");
}

/// A planted token agentero did not generate (`hunter2`), or one others can read, is refused
/// with the way to rotate it; rotation then works and the new token is served.
#[test]
fn a_weak_or_readable_token_is_refused_and_rotation_repairs_it() {
    let f = fixture();
    let token = state_path(&f, http::TOKEN_FILE);
    plant_parent(&token);
    for (planted, mode) in [
        ("hunter2\n", 0o600),
        ("agt_0123\n", 0o600),
        (&format!("agt_{}\n", "G".repeat(64)) as &str, 0o600),
    ] {
        std::fs::write(&token, planted).unwrap();
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(mode)).unwrap();
        let e = format!("{:#}", http::ensure_token(&f.vault).unwrap_err());
        assert!(
            e.contains("does not hold a token agentero generated"),
            "{e}"
        );
        assert!(e.contains("agentero serve --rotate-token"), "{e}");
        assert_eq!(std::fs::read_to_string(&token).unwrap(), planted);
    }
    let good = http::rotate_token(&f.vault).unwrap();
    assert_eq!(http::ensure_token(&f.vault).unwrap(), good);
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = format!("{:#}", http::ensure_token(&f.vault).unwrap_err());
    assert!(e.contains("is readable by other users (mode 644)"), "{e}");
    assert!(e.contains("--rotate-token"), "{e}");
    assert_eq!(
        std::fs::metadata(&token).unwrap().mode() & 0o777,
        0o644,
        "never chmod'ed"
    );
    let fresh = http::rotate_token(&f.vault).unwrap();
    assert_ne!(fresh, good);
    assert_eq!(std::fs::metadata(&token).unwrap().mode() & 0o777, 0o600);

    // The CLI says the same and exits non-zero.
    std::fs::write(&token, "hunter2\n").unwrap();
    let out = super::common::agentero(
        &["serve", &f.vault.root().display().to_string(), "--token"],
        f.vault.root(),
    );
    assert!(!out.status.success());
    let err = super::common::stderr(&out);
    assert!(
        err.contains("--rotate-token") && !super::common::stdout(&out).contains("hunter2"),
        "{err}"
    );
}
