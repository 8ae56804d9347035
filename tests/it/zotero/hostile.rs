//! Hostile Zotero libraries, built from Zotero's own schema and then edited as an attacker
//! would with `sqlite3`: keys that climb (`/../../.claude/CLAUDE`), random keys, titles and
//! collection names of emoji, RLO and newlines, attachment paths that leave the library
//! (`..` keys, `attachments:../x.pdf`, symlinks under `storage/` to outside files and folders),
//! recursive views, a sparse 6 GB `-wal`. Each library is opened by the real binary — `index`,
//! `search`, `serve --stdio` (`paper_list`, `vault_search`) — with a throwaway `HOME`, and:
//! no file outside the state folder is created or changed (the whole `HOME`, library included,
//! hashed before and after), no word of an outside file appears in any output, and every run
//! ends within its watchdog.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::library::{Zotero, create, put, zkey};
use crate::common;
use crate::common::hostile_pdf::{one_page, stream};

/// A word only the outside PDFs hold (the one searched for).
pub const CANARY: &str = "quixoticcanary";
/// Another word only the outside PDFs hold, never searched for: it reaches an output only
/// through an outside file's text.
pub const SECRET: &str = "marrowsentinel";
/// A word only the library's own paper holds (its PDFs are readable, so a missing canary
/// means something).
pub const INSIDE: &str = "palimpsestword";

/// A one-page PDF whose text is `words` (Helvetica, so every reader reads it).
pub fn text_pdf(words: &str) -> Vec<u8> {
    let content = format!("BT /F1 14 Tf 72 700 Td ({words}) Tj ET");
    one_page(
        "/Font << /F1 5 0 R >>",
        stream("", content.as_bytes()),
        vec![b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec()],
    )
}

/// A throwaway home with a Zotero library in it and outside files beside it.
pub struct Home {
    _tmp: tempfile::TempDir,
    pub home: PathBuf,
    /// `~/Zotero`.
    pub dir: PathBuf,
    /// Where external state folders go (`$XDG_STATE_HOME/agentero`): the only place written.
    pub state: PathBuf,
    pub zotero: Option<Zotero>,
}

impl Home {
    /// A new home: `~/Zotero` with an empty library from Zotero's schema, the profile naming
    /// `~/Linked` as the base folder, outside PDFs holding the canary, and the user's own
    /// agent instruction file.
    pub fn new(schema: &Path) -> Home {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap().join("home");
        let dir = home.join("Zotero");
        std::fs::create_dir_all(dir.join("storage")).unwrap();
        std::fs::create_dir_all(home.join("Linked")).unwrap();
        // The state base's parents exist, as in a home that has run anything (their creation
        // would count as a change outside the state folder).
        std::fs::create_dir_all(home.join(".local/state")).unwrap();
        let secret = text_pdf(&format!("{CANARY} {SECRET} {CANARY}"));
        put(&home.join("outside/secret.pdf"), &secret);
        put(&home.join("outside/folder/secret.pdf"), &secret);
        put(
            &home.join(".claude/CLAUDE.md"),
            b"the user's own instructions\n",
        );
        put(
            &home.join(".zotero/zotero/abcd1234.default/prefs.js"),
            format!(
                "user_pref(\"extensions.zotero.baseAttachmentPath\", \"{}\");\nuser_pref(\"extensions.zotero.dataDir\", \"{}\");\n",
                home.join("Linked").display(),
                dir.display()
            )
            .as_bytes(),
        );
        put(
            &home.join(".zotero/zotero/profiles.ini"),
            b"[Profile0]\nName=default\nIsRelative=1\nPath=abcd1234.default\nDefault=1\n",
        );
        let zotero = Some(create(&dir, schema));
        Home {
            state: home.join(".local/state/agentero"),
            home,
            dir,
            zotero,
            _tmp: tmp,
        }
    }

    pub fn z(&self) -> &Zotero {
        self.zotero.as_ref().unwrap()
    }

    /// Every entry under `HOME` but the state folder: its kind and a hash of its bytes (or
    /// of a link's target).
    pub fn snapshot(&self) -> BTreeMap<PathBuf, (char, u64)> {
        use std::hash::{Hash, Hasher};
        let mut out = BTreeMap::new();
        let mut stack = vec![self.home.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p == self.state {
                    continue;
                }
                let t = e.file_type().unwrap();
                let mut h = std::collections::hash_map::DefaultHasher::new();
                let kind = if t.is_symlink() {
                    std::fs::read_link(&p).unwrap().hash(&mut h);
                    'l'
                } else if t.is_dir() {
                    stack.push(p.clone());
                    'd'
                } else {
                    std::fs::read(&p).unwrap().hash(&mut h);
                    'f'
                };
                out.insert(p, (kind, h.finish()));
            }
        }
        out
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
        cmd.args(args)
            .current_dir(&self.home)
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", self.state.parent().unwrap())
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env_remove("AGENTERO_ZOTERO_PROFILE")
            .env_remove("AGENTERO_BUILTIN_FAULT");
        cmd
    }

    /// Runs the binary with a watchdog; returns (success, stdout + stderr).
    pub fn run(&self, args: &[&str], limit: Duration) -> (bool, String) {
        let out = common::output_within(self.command(args), limit);
        let text = format!("{}\n{}", common::stdout(&out), common::stderr(&out));
        (out.status.success(), text)
    }

    /// `serve --stdio` answering `paper_list` and `vault_search` for `query`, killed by a
    /// watchdog after `limit`; the raw answer lines.
    pub fn serve(&self, query: &str, limit: Duration) -> String {
        let dir = self.dir.to_str().unwrap();
        let mut child = self
            .command(&["serve", "--stdio", dir])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watch = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < limit {
                if watch.load(std::sync::atomic::Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // SAFETY: signalling our own child, which may have exited (then ESRCH).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        });
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let call = |id: u32, name: &str, args: serde_json::Value| {
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": args}})
        };
        let mut answers = String::new();
        for msg in [
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hostile-test", "version": "1"}}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            call(2, "paper_list", serde_json::json!({})),
            call(3, "vault_search", serde_json::json!({"query": query})),
        ] {
            if writeln!(stdin, "{msg}")
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break;
            }
            if msg.get("id").is_some() {
                let mut line = String::new();
                if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                answers.push_str(&line);
            }
        }
        drop(stdin);
        let mut err = String::new();
        let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err);
        let status = child.wait().unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(
            status.code().is_some(),
            "serve was killed by the watchdog: {err}"
        );
        answers.push_str(&err);
        answers
    }
}

/// Text of hostile shapes: climbing keys, separators, look-alikes, RLO, emoji, newlines.
pub fn random_text(rng: &mut fastrand::Rng, max_len: usize) -> String {
    const PIECES: &[&str] = &[
        "/",
        "..",
        ".",
        "\\",
        "A",
        "Z",
        "7",
        "😀",
        "\u{202E}",
        "\n",
        " ",
        "é",
        "\u{FF0E}",
        "\u{2215}",
        "\u{1b}[31m",
        ".agentero",
        "~",
        ":",
        "%2e",
        "\u{200B}",
        "storage",
    ];
    let n = rng.usize(0..=max_len);
    (0..n).map(|_| PIECES[rng.usize(..PIECES.len())]).collect()
}

/// Fills the library with hostile rows (seeded): notes and attachments under climbing and
/// random keys, hostile titles and collection names, files that resolve outside, and one
/// honest paper.
pub fn fill(h: &Home, seed: u64) {
    let z = h.z();
    let mut rng = fastrand::Rng::with_seed(seed);
    // The honest paper, found by its word.
    let good = z.item("journalArticle", &zkey(1));
    z.set(good, "title", "An honest paper");
    z.attachment(Some(good), &zkey(2), 1, "storage:honest.pdf");
    put(
        &h.dir.join(format!("storage/{}/honest.pdf", zkey(2))),
        &text_pdf(INSIDE),
    );

    // Notes whose keys climb to ~/.claude/CLAUDE from any depth, and hostile titles.
    for depth in 1..14 {
        let key = format!("/{}.claude/CLAUDE", "../".repeat(depth));
        z.note(None, &key, &format!("<p>PWNED {depth}</p>"), "x");
    }
    let titles = [
        "😀".repeat(70),
        "\u{202E}fdp.exe".to_string(),
        "line one\nline two\r\n".to_string(),
        "../../../.claude/CLAUDE".to_string(),
        "x".repeat(5000),
    ];
    for (n, title) in titles.iter().enumerate() {
        z.note(
            None,
            &zkey(100 + n as u64),
            &format!("<p>{title}</p>"),
            title,
        );
        let item = z.item("journalArticle", &zkey(200 + n as u64));
        z.set(item, "title", title);
        let coll = z.collection(title, None, &zkey(300 + n as u64));
        let sub = z.collection(title, Some(coll), &zkey(350 + n as u64));
        z.file_in(sub, good);
    }
    for (n, name) in ["..", ".", "/", "", "../../outside", ".agentero"]
        .iter()
        .enumerate()
    {
        let c = z.collection(name, None, &zkey(400 + n as u64));
        z.file_in(c, good);
    }
    // Attachments that lead outside: `..` keys, a symlinked file, a symlinked folder, a
    // relative linked path that climbs out of the base folder.
    for key in [
        "../../outside",
        "..",
        ".",
        "",
        "../outside/folder",
        "/../../outside",
    ] {
        let item = z.item("journalArticle", &format!("P{key}"));
        z.attachment(Some(item), key, 1, "storage:secret.pdf");
    }
    // Standalone PDFs (so a collection can hold them): a name that climbs, linked paths that
    // climb out of the base folder, a symlinked file and a symlinked folder under storage/.
    let name_climbs = z.attachment(None, &zkey(501), 1, "storage:../../outside/secret.pdf");
    let linked = z.attachment(None, &zkey(502), 2, "attachments:../outside/secret.pdf");
    let linked_deep = z.attachment(
        None,
        &zkey(503),
        2,
        "attachments:a/../../outside/secret.pdf",
    );
    let file_link = z.attachment(None, &zkey(504), 1, "storage:secret.pdf");
    let dir_link = z.attachment(None, &zkey(505), 1, "storage:secret.pdf");
    std::fs::create_dir_all(h.dir.join("storage").join(zkey(504))).unwrap();
    std::os::unix::fs::symlink(
        h.home.join("outside/secret.pdf"),
        h.dir.join("storage").join(zkey(504)).join("secret.pdf"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        h.home.join("outside/folder"),
        h.dir.join("storage").join(zkey(505)),
    )
    .unwrap();
    let coll = z.collection("Grant me", None, &zkey(506));
    for a in [name_climbs, linked, linked_deep, file_link, dir_link, good] {
        z.file_in(coll, a);
    }
    // Random keys, titles and notes.
    for n in 0..60 {
        let key = format!("{}{n}", random_text(&mut rng, 24));
        let title = random_text(&mut rng, 90);
        if n % 2 == 0 {
            z.note(None, &key, &format!("<h1>{title}</h1>"), &title);
        } else {
            let item = z.item("journalArticle", &key);
            z.set(item, "title", &title);
            let att_key = format!("{}{n}a", random_text(&mut rng, 12));
            z.attachment(
                Some(item),
                &att_key,
                1,
                &format!("storage:{}", random_text(&mut rng, 8)),
            );
        }
        z.collection(&title, None, &zkey(600 + n));
    }
}

/// Runs every entry point on the library and checks the invariants; returns the outputs.
pub fn every_entry_point(h: &Home, expect_ok: bool) -> String {
    let before = h.snapshot();
    let dir = h.dir.to_str().unwrap().to_string();
    let limit = Duration::from_secs(120);
    let start = Instant::now();
    let mut all = String::new();
    let (ok, out) = h.run(&["index", &dir], limit);
    assert_eq!(ok, expect_ok, "index: {out}");
    all.push_str(&out);
    for q in [CANARY, INSIDE, "PWNED"] {
        let (ok, out) = h.run(&["search", "--vault", &dir, "--json", q], limit);
        assert_eq!(ok, expect_ok, "search {q}: {out}");
        all.push_str(&out);
    }
    all.push_str(&h.serve(CANARY, limit));
    assert!(
        start.elapsed() < Duration::from_secs(300),
        "every entry point within the watchdog"
    );
    assert!(!leaks(&all), "an outside file reached an output: {all}");
    let after = h.snapshot();
    let changed: Vec<_> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v))
        .map(|(p, _)| p.clone())
        .chain(before.keys().filter(|p| !after.contains_key(*p)).cloned())
        .collect();
    assert!(
        changed.is_empty(),
        "created or changed outside the state folder: {changed:?}"
    );
    all
}

/// Whether an outside file reached an output: its never-searched word, or a path that
/// climbs or names the outside folder.
pub fn leaks(all: &str) -> bool {
    all.contains(SECRET) || all.contains("outside/") || all.contains("/..") || all.contains("../")
}
