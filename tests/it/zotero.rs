//! A Zotero data directory as a vault, end to end. The library is built here the way Zotero
//! builds a new database (`Zotero.Schema._initializeSchema`: system.sql, userdata.sql,
//! triggers.sql, then the global schema's item types, fields and creator types, ids handed out
//! in order) from Zotero's own schema files, with PDFs from the demo vault's writer, and held
//! open while the tests run as a running Zotero 10 holds it: WAL mode, `locking_mode=EXCLUSIVE`
//! after a write, and the items committed but only in `zotero.sqlite-wal`.
//!
//! The schema files are Zotero's (AGPL-3.0) and Better BibTeX's (MIT), so they are not copied
//! into this repository: they are read at test time from `$AGENTERO_ZOTERO_SCHEMA`, by default
//! `../shared/zotero-schema/` beside the clone. A fresh clone gets them from upstream (the
//! files and commits are listed in docs/vault.md, "A Zotero library"); without them these
//! tests say why and pass, except under `CI`, where they fail.

use crate::common;
mod hostile;
pub(crate) mod library;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentero::vault::annotations::{AnnotationKind, AnnotationOrigin};
use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::{EntryKind, Vault, VaultKind};
use library::{Zotero, put, schema_dir};
use rusqlite::Connection;
use serde_json::Value;

/// The library on disk with its running Zotero, and the places outside it.
struct Library {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    state_base: PathBuf,
    home: PathBuf,
    zotero: Zotero,
    /// Two demo PDFs not yet in the library, for items added later.
    spare: Vec<Vec<u8>>,
}

const HIGHLIGHT_POS: &str =
    r#"{"pageIndex":0,"rects":[[72.5,700.25,300,712.5],[72.5,686,250,698]]}"#;

fn build(schema: &Path) -> Library {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Zotero");
    let linked = tmp.path().join("Linked Papers");
    let profile = tmp.path().join("home/.zotero/zotero/abcd1234.default");
    std::fs::create_dir_all(dir.join("storage")).unwrap();
    let pdfs = common::demo_pdfs();
    assert!(pdfs.len() >= 6, "the demo vault has enough PDFs");

    // Zotero's profile names the base folder of relative linked files.
    put(
        &profile.join("prefs.js"),
        format!(
            "user_pref(\"extensions.zotero.baseAttachmentPath\", \"{}\");\nuser_pref(\"extensions.zotero.dataDir\", \"{}\");\n",
            linked.display(),
            dir.display()
        )
        .as_bytes(),
    );
    put(
        &tmp.path().join("home/.zotero/zotero/profiles.ini"),
        b"[Profile0]\nName=default\nIsRelative=1\nPath=abcd1234.default\nDefault=1\n",
    );

    // As Zotero 10 on Linux: the schema reaches the main file; the items that follow stay in
    // the -wal, under an exclusive lock.
    let z = library::create(&dir, schema);

    // 1: an article with accents, its key in Zotero's own field, in two collections (one nested).
    let a = z.item("journalArticle", "ARTAKEYA");
    z.set(a, "title", "Reading order of Ångström-scale résumés");
    z.set(a, "date", "2021-03-00 March 2021");
    z.set(a, "DOI", "10.1234/zot.2021.1");
    z.set(a, "abstractNote", "How readers order the blocks of a page.");
    z.set(a, "publicationTitle", "Journal of Reading Machines");
    z.set(a, "citationKey", "nunez2021reading");
    z.creator(a, "Zoë", "Núñez", 0);
    z.creator(a, "Jörg", "Müller", 1);
    let a_pdf = z.attachment(
        Some(a),
        "ATTAKEYA",
        1,
        "storage:Núñez - 2021 - Reading order.pdf",
    );
    put(
        &dir.join("storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf"),
        &pdfs[0],
    );
    // A second PDF file of the Zotero folder: the item's snapshot is not a paper.
    put(
        &dir.join("storage/ATTAKEYA/.zotero-ft-cache"),
        b"cache text",
    );

    // 2: a conference paper whose key only Better BibTeX knows.
    let b = z.item("conferencePaper", "CNFR2KEY");
    z.set(b, "title", "Tables without ruling lines");
    z.set(b, "date", "2019-00-00 2019");
    z.set(b, "proceedingsTitle", "Proceedings of Document Engineering");
    z.creator(b, "Ilse", "de Vries", 0);
    z.attachment(Some(b), "ATT2KEY2", 0, "storage:tables.pdf");
    put(&dir.join("storage/ATT2KEY2/tables.pdf"), &pdfs[1]);

    // 3: in the trash, with its PDF still on disk.
    let c = z.item("journalArticle", "TRASH3KY");
    z.set(c, "title", "A trashed paper");
    z.attachment(Some(c), "ATT3KEY3", 0, "storage:trashed.pdf");
    put(&dir.join("storage/ATT3KEY3/trashed.pdf"), &pdfs[2]);
    z.conn
        .execute("INSERT INTO deletedItems (itemID) VALUES (?1)", [c])
        .unwrap();

    // 4: a linked file, relative to the base folder; 5: a linked file by absolute path.
    let d = z.item("report", "LINK4KEY");
    z.set(d, "title", "A linked report");
    z.attachment(
        Some(d),
        "ATT4KEY4",
        2,
        "attachments:reports/linked report.pdf",
    );
    put(&linked.join("reports/linked report.pdf"), &pdfs[3]);
    let e = z.item("book", "LINK5KEY");
    z.set(e, "title", "An absolutely linked book");
    z.set(e, "extra", "Citation Key: extra2020book");
    let abs = tmp.path().join("elsewhere/book.pdf");
    z.attachment(Some(e), "ATT5KEY5", 2, &abs.to_string_lossy());
    put(&abs, &pdfs[4]);

    // Collections: Reading ⊃ Layout; Methods. Item 1 in Layout and Methods, item 2 in Methods.
    let reading = z.collection("Reading", None, "COLLREAD");
    let layout = z.collection("Layout/Structure", Some(reading), "COLLLAYO");
    let methods = z.collection("Methods", None, "COLLMETH");
    z.file_in(layout, a);
    z.file_in(methods, a);
    z.file_in(methods, b);
    z.file_in(reading, d);

    z.annotation(
        a_pdf,
        "ANNHIGHA",
        1,
        Some("the reading order"),
        Some("compare with XY-cut"),
        "1",
        HIGHLIGHT_POS,
    );
    z.annotation(
        a_pdf,
        "ANNUNDRB",
        5,
        Some("columns"),
        None,
        "1",
        r#"{"pageIndex":0,"rects":[[80,600,200,612]]}"#,
    );
    z.annotation(
        a_pdf,
        "ANNNTEXC",
        2,
        None,
        Some("a sticky note on page two"),
        "ii",
        r#"{"pageIndex":1,"rects":[[500,700,522,722]]}"#,
    );
    z.annotation(
        a_pdf,
        "ANNINKXD",
        4,
        None,
        None,
        "1",
        r#"{"pageIndex":0,"width":2,"paths":[[10,20,30,40,50,5]]}"#,
    );
    z.note(
        None,
        "NTE2KEYA",
        "<div><h1>Reading list</h1><p>Start with Núñez &amp; Müller.</p></div>",
        "Reading list",
    );
    z.note(
        Some(a),
        "NTE3KEYB",
        "<p>Child note: the XY-cut baseline</p>",
        "",
    );

    // Better BibTeX 7 keeps its keys in a database of its own.
    let bbt = Connection::open_in_memory().unwrap();
    bbt.execute(
        "ATTACH DATABASE ?1 AS betterbibtex",
        [dir.join("better-bibtex.sqlite").to_string_lossy()],
    )
    .unwrap();
    bbt.execute_batch(
        &std::fs::read_to_string(schema.join("better-bibtex-citation-key.sql")).unwrap(),
    )
    .unwrap();
    bbt.execute(
        "INSERT INTO betterbibtex.citationkey (itemID, itemKey, libraryID, citationKey, pinned) VALUES (?1, 'CNFR2KEY', 1, 'devries2019tables', 0)",
        [b],
    )
    .unwrap();
    drop(bbt);

    Library {
        state_base: tmp.path().join("state/agentero"),
        home: tmp.path().join("home"),

        dir,
        zotero: z,
        spare: pdfs[5..].to_vec(),
        _tmp: tmp,
    }
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn assert_untouched(before: &BTreeMap<PathBuf, Vec<u8>>, dir: &Path) {
    let after = files(dir);
    let names = |m: &BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&after),
        names(before),
        "no file appeared in or left the Zotero folder"
    );
    for (p, bytes) in before {
        assert!(after[p] == *bytes, "{} is byte-identical", p.display());
    }
}

fn open(lib: &Library) -> Vault {
    Vault::open_with_state_base(&lib.dir, &lib.state_base).unwrap()
}

fn paths(vault: &Vault, kind: EntryKind) -> Vec<String> {
    vault
        .scan()
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.path)
        .collect()
}

#[test]
fn the_library_maps_onto_a_vault_while_zotero_holds_it() {
    let Some(schema) = schema_dir() else { return };
    let lib = build(&schema);
    let before = files(&lib.dir);
    assert!(
        before.keys().any(|p| p.ends_with("zotero.sqlite-wal")),
        "the items are in the -wal"
    );
    // What an immutable open of the main file alone sees: the schema, none of the items.
    let naive = Connection::open_with_flags(
        format!(
            "file:{}?immutable=1",
            lib.dir.join("zotero.sqlite").display()
        ),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
    )
    .unwrap();
    let n: i64 = naive
        .query_row("SELECT count(*) FROM items", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0, "the committed items are only in the -wal");
    drop(naive);

    let vault = open(&lib);
    assert_eq!(vault.kind(), VaultKind::Zotero);
    assert!(vault.is_read_only());
    assert!(vault.state_dir().starts_with(&lib.state_base));
    assert!(
        vault
            .state_dir()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("zotero-")
    );
    assert!(vault.read_only_notice().unwrap().contains("state kept in"));

    let papers = paths(&vault, EntryKind::Paper);
    assert_eq!(
        papers,
        [
            "linked/ATT5KEY5/book.pdf",
            "storage/ATT2KEY2/tables.pdf",
            "storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf",
        ],
        "regular, non-trashed items with a PDF (the relative linked file needs the profile)"
    );
    if std::env::var_os("AGENTERO_ZOTERO_PROFILE").is_none() {
        let warnings = vault.zotero().unwrap().warnings();
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("1 linked files relative to Zotero's base folder left out")),
            "without a prefs.js the relative linked file is not dropped silently: {warnings:?}"
        );
    }
    let dirs = paths(&vault, EntryKind::Directory);
    for d in [
        "collections",
        "collections/Reading",
        "collections/Reading/Layout-Structure",
        "collections/Methods",
        "storage/ATTAKEYA",
        "notes",
    ] {
        assert!(dirs.iter().any(|x| x == d), "{d} in {dirs:?}");
    }
    let notes = paths(&vault, EntryKind::File);
    assert_eq!(notes.len(), 2, "{notes:?}");
    let list = notes.iter().find(|n| n.contains("NTE2KEYA")).unwrap();
    let text = std::fs::read_to_string(vault.abs_path(list)).unwrap();
    assert!(text.contains("Start with Núñez & Müller."), "{text}");
    let child = notes.iter().find(|n| n.contains("NTE3KEYB")).unwrap();
    let text = std::fs::read_to_string(vault.abs_path(child)).unwrap();
    assert!(
        text.contains("storage/ATTAKEYA/"),
        "a child note names its paper: {text}"
    );

    let z = vault.zotero().unwrap();
    let a = z
        .item("storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf")
        .unwrap();
    assert_eq!(a.author_names(), ["Zoë Núñez", "Jörg Müller"]);
    assert_eq!(a.year, Some(2021));
    assert_eq!(a.citation_key.as_deref(), Some("nunez2021reading"));
    assert_eq!(
        a.publication.container.as_deref(),
        Some("Journal of Reading Machines")
    );
    assert_eq!(a.doi.as_deref(), Some("10.1234/zot.2021.1"));
    let b = z.item("storage/ATT2KEY2/tables.pdf").unwrap();
    assert_eq!(
        b.citation_key.as_deref(),
        Some("devries2019tables"),
        "from better-bibtex.sqlite"
    );
    assert_eq!(
        b.publication.container.as_deref(),
        Some("Proceedings of Document Engineering")
    );
    let e = z.item("linked/ATT5KEY5/book.pdf").unwrap();
    assert_eq!(e.citation_key.as_deref(), Some("extra2020book"));

    // Collections grant their sub-collections' papers; an item in two is in both.
    let reading = vault.collection_papers("collections/Reading/").unwrap();
    assert_eq!(
        reading,
        ["storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf"]
    );
    let methods = vault.collection_papers("collections/Methods").unwrap();
    assert_eq!(
        methods,
        [
            "storage/ATT2KEY2/tables.pdf",
            "storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf"
        ]
    );
    assert_eq!(vault.collection_papers("storage"), None);

    let ann = vault.zotero_annotations("storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf");
    let kinds: Vec<AnnotationKind> = ann.iter().map(|a| a.kind).collect();
    assert_eq!(
        kinds,
        [
            AnnotationKind::Highlight,
            AnnotationKind::Underline,
            AnnotationKind::Ink,
            AnnotationKind::Note
        ]
    );
    let h = &ann[0];
    assert_eq!(h.page, 1);
    assert_eq!(h.text.as_deref(), Some("the reading order"));
    assert_eq!(h.comment.as_deref(), Some("compare with XY-cut"));
    assert_eq!(h.color.as_deref(), Some("#ffd400"));
    assert_eq!(
        h.rects,
        [[72.5, 700.25, 300.0, 712.5], [72.5, 686.0, 250.0, 698.0]]
    );
    assert_eq!(
        h.origin,
        AnnotationOrigin::Zotero {
            key: "ANNHIGHA".into()
        }
    );
    assert_eq!(h.page_label, None, "the label equals the page number");
    assert_eq!(
        ann[2].rects,
        [[10.0, 5.0, 50.0, 40.0]],
        "an ink path's bounding box"
    );
    assert_eq!((ann[3].page, ann[3].page_label.as_deref()), (2, Some("ii")));
    assert!(
        vault
            .zotero_annotations("storage/ATT2KEY2/tables.pdf")
            .is_empty()
    );

    // Nothing of the Zotero folder itself is a vault path but its storage.
    for refused in [
        "zotero.sqlite",
        "better-bibtex.sqlite",
        "zotero.sqlite-wal",
        "storage/ATTAKEYA/.zotero-ft-cache",
    ] {
        assert!(vault.resolve(refused).is_err(), "{refused}");
    }
    assert_untouched(&before, &lib.dir);
}

#[test]
fn index_search_and_reindex_pick_up_zotero_changes() {
    let Some(schema) = schema_dir() else { return };
    let lib = build(&schema);
    let before = files(&lib.dir);
    let vault = open(&lib);
    let s = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(s.updated, 5, "three papers and two notes: {s:?}");
    let rec = vault
        .record_for("storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf")
        .unwrap();
    assert_eq!(
        rec.meta.title, "Reading order of Ångström-scale résumés",
        "Zotero's title"
    );
    assert_eq!(rec.meta.authors, ["Zoë Núñez", "Jörg Müller"]);
    let index = vault.open_index().unwrap();
    let hits = index
        .search_papers(
            "Ångström résumés",
            &agentero::vault::SearchOptions::default(),
        )
        .unwrap();
    assert_eq!(
        hits.first().map(|h| h.card.path.as_str()),
        Some("storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf")
    );
    let hits = index
        .search_papers(
            "XY-cut baseline",
            &agentero::vault::SearchOptions::default(),
        )
        .unwrap();
    assert!(
        hits.iter().any(|h| h.card.path.contains("NTE3KEYB")),
        "notes are searched"
    );
    drop(index);

    // Zotero (still running, still holding its lock) adds an item and retitles another.
    let z = &lib.zotero;
    let f = z.item("journalArticle", "NEW6KEY6");
    z.set(f, "title", "A freshly added paper");
    z.attachment(Some(f), "ATT6KEY6", 0, "storage:fresh.pdf");
    put(&lib.dir.join("storage/ATT6KEY6/fresh.pdf"), &lib.spare[0]);
    z.set(
        z.conn
            .query_row("SELECT itemID FROM items WHERE key = 'CNFR2KEY'", [], |r| {
                r.get(0)
            })
            .unwrap(),
        "title",
        "Tables without ruling lines, revised",
    );
    let before = {
        let mut b = before;
        b.retain(|p, _| !p.ends_with("zotero.sqlite-wal"));
        b.extend(files(&lib.dir).into_iter().filter(|(p, _)| {
            p.ends_with("zotero.sqlite-wal") || p.starts_with(lib.dir.join("storage/ATT6KEY6"))
        }));
        b
    };
    let s = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(s.updated, 2, "the new paper and the retitled one: {s:?}");
    assert_eq!(
        vault
            .record_for("storage/ATT2KEY2/tables.pdf")
            .unwrap()
            .meta
            .title,
        "Tables without ruling lines, revised"
    );
    assert!(vault.record_for("storage/ATT6KEY6/fresh.pdf").is_some());
    let again = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(again.updated, 0, "nothing changed since: {again:?}");
    assert_untouched(&before, &lib.dir);
}

fn cli(lib: &Library, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.args(args)
        .env("HOME", &lib.home)
        .env("XDG_STATE_HOME", lib.state_base.parent().unwrap())
        .env("XDG_DATA_HOME", lib.home.join("data"))
        .env("XDG_CONFIG_HOME", lib.home.join("config"))
        .env_remove("AGENTERO_ZOTERO_PROFILE")
        .env_remove("AGENTERO_BUILTIN_FAULT");
    common::output_within(cmd, Duration::from_secs(120))
}

#[test]
fn the_cli_indexes_plans_and_asks_on_a_zotero_folder() {
    let Some(schema) = schema_dir() else { return };
    let lib = build(&schema);
    let before = files(&lib.dir);
    let dir = lib.dir.to_str().unwrap();
    let out = cli(&lib, &["index", dir]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let err = common::stderr(&out);
    assert!(err.contains("read-only: state kept in"), "said once: {err}");
    assert_eq!(err.matches("read-only").count(), 1, "{err}");

    // The profile's base folder resolves the relative linked file.
    let out = cli(&lib, &["search", "--vault", dir, "--json", "linked report"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["cards"][0]["path"],
        "linked/ATT4KEY4/linked report.pdf",
        "{}",
        common::stdout(&out)
    );

    let out = cli(&lib, &["plan", "--vault", dir, "@collections/Reading/"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sources: Vec<&str> = plan["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        sources,
        [
            "collections/Reading",
            "linked/ATT4KEY4/linked report.pdf",
            "storage/ATTAKEYA/Núñez - 2021 - Reading order.pdf",
        ],
        "the collection, its sub-collection's paper and its own"
    );
    let covers = &plan["manifest"][0]["covers"];
    assert_eq!(covers["papers"], 2, "{covers}");

    // The built-in agent answers from the collection's papers; its thread lives in the state
    // folder outside the library.
    let out = cli(
        &lib,
        &[
            "ask",
            "--vault",
            dir,
            "--json",
            "What is the reading order? @collections/Methods/",
        ],
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        common::stderr(&out),
        common::stdout(&out)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The context server the agent started found the grant in the external state folder.
    assert_eq!(answer["mode"], "mcp", "{answer}");
    assert_eq!(answer["attached"], true, "{answer}");
    let thread = answer["threadId"].as_str().unwrap();
    let state = std::fs::read_dir(&lib.state_base)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("zotero-")
        })
        .expect("the external state folder");
    assert!(state.join("chats").join(thread).is_dir());
    assert!(state.join("index").is_dir());
    let cited = answer["sources"].to_string();
    assert!(
        cited.contains("storage/ATT"),
        "the answer used the collection's papers: {cited}"
    );
    assert_untouched(&before, &lib.dir);
}

/// A folder vault agentero cannot write keeps its state outside and still indexes and asks.
#[test]
fn a_read_only_folder_vault_keeps_its_state_outside() {
    if rustix::process::geteuid().is_root() {
        // Root writes through any mode bits; only a read-only mount stops it, which a test
        // cannot make without privileges it should not use. The decision itself is tested in
        // vault::state; the Zotero tests above run the external state end to end.
        common::skip::not_here("running as root (a chmod'ed vault is still writable)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let vault_dir = tmp.path().join("papers-ro");
    agentero::vault::demo::write_demo_vault(&vault_dir).unwrap();
    let before = files(&vault_dir);
    use std::os::unix::fs::PermissionsExt;
    let mut dirs = vec![vault_dir.clone()];
    let mut all = Vec::new();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            }
        }
        all.push(d);
    }
    for d in &all {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let home = tmp.path().join("home");
    let run = |args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
        cmd.args(args)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", tmp.path().join("state"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"));
        common::output_within(cmd, Duration::from_secs(120))
    };
    let v = vault_dir.to_str().unwrap();
    let out = run(&[
        "ask",
        "--vault",
        v,
        "--json",
        "What is the reading order of a page?",
    ]);
    for d in &all {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("vault is read-only: state kept in"));
    assert!(tmp.path().join("state/agentero").is_dir());
    assert_untouched(&before, &vault_dir);
}

/// Hostile libraries through every entry point of the real binary: nothing outside the state
/// folder is written, no outside file is read, every run ends in time.
#[test]
fn hostile_libraries_stay_inside_their_place() {
    let Some(schema) = schema_dir() else { return };
    for seed in [35, 3535] {
        let h = hostile::Home::new(&schema);
        hostile::fill(&h, seed);
        let all = hostile::every_entry_point(&h, true);
        assert!(
            all.contains("Zotero rows skipped:") && all.contains("with a key that is not Zotero's"),
            "the skipped rows are said: {all}"
        );
        assert!(
            all.contains("whose file resolves outside the library"),
            "{all}"
        );
        let dir = h.dir.to_str().unwrap();
        let (ok, out) = h.run(
            &["search", "--vault", dir, "--json", hostile::INSIDE],
            Duration::from_secs(120),
        );
        assert!(ok, "{out}");
        assert!(
            out.contains("honest.pdf"),
            "the honest paper is found: {out}"
        );
        let notes = h.state.read_dir().unwrap().flatten().next().unwrap().path();
        let names: Vec<String> = std::fs::read_dir(notes.join("zotero/view/notes"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| n.len() <= 255), "{names:?}");
        assert!(
            names.iter().any(|n| n.starts_with('😀')),
            "the note titled with 70 emoji is written, its name cut: {names:?}"
        );
    }
}

/// A recursive view where Zotero has a table is refused at once with a clear message; one in
/// Better BibTeX's database costs only its citation keys.
#[test]
fn recursive_views_are_refused_quickly() {
    let Some(schema) = schema_dir() else { return };
    let h = hostile::Home::new(&schema);
    hostile::fill(&h, 7);
    h.z().conn
        .execute_batch(
            "DROP TABLE deletedItems;
             CREATE VIEW deletedItems AS WITH RECURSIVE r(itemID, dateDeleted) AS
               (SELECT 1, 0 UNION ALL SELECT itemID + 1, 0 FROM r) SELECT itemID, dateDeleted FROM r;",
        )
        .unwrap();
    let t = std::time::Instant::now();
    let all = hostile::every_entry_point(&h, false);
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    assert!(
        all.contains("this database is not Zotero's: deletedItems is a view, not a table"),
        "{all}"
    );

    let h = hostile::Home::new(&schema);
    hostile::fill(&h, 8);
    let bbt = Connection::open(h.dir.join("better-bibtex.sqlite")).unwrap();
    bbt.execute_batch(
        "CREATE VIEW citationkey AS WITH RECURSIVE r(itemID, itemKey, libraryID, citationKey) AS
           (SELECT 1, 'AAAAAAAA', 1, 'k' UNION ALL SELECT itemID + 1, itemKey, 1, 'k' FROM r)
         SELECT * FROM r;",
    )
    .unwrap();
    drop(bbt);
    let all = hostile::every_entry_point(&h, true);
    assert!(
        all.contains("is not Better BibTeX's: citationkey is a view, not a table"),
        "{all}"
    );
}

/// A 6 GB sparse `-wal` is refused by its length, not read into memory.
#[test]
fn a_huge_wal_is_refused_by_its_length() {
    let Some(schema) = schema_dir() else { return };
    let mut h = hostile::Home::new(&schema);
    hostile::fill(&h, 9);
    drop(h.zotero.take());
    let wal = std::fs::File::create(h.dir.join("zotero.sqlite-wal")).unwrap();
    wal.set_len(6 << 30).unwrap();
    drop(wal);
    let dir = h.dir.to_str().unwrap().to_string();
    let (ok, out) = h.run(&["index", &dir], Duration::from_secs(60));
    assert!(!ok, "{out}");
    assert!(
        out.contains("zotero.sqlite-wal is 6144 MB, more than the 1024 MB"),
        "{out}"
    );
    let copies: u64 = walk_sizes(&h.state);
    assert!(copies < 64 << 20, "nothing of it was copied: {copies}");
}

fn walk_sizes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => walk_sizes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// Random strings through the path types: what they accept never climbs, is never absolute,
/// holds no empty, `.`, `..` or NUL component, and fits the file system's name length.
#[test]
fn random_strings_through_the_path_types() {
    use agentero::vault::paths::{NAME_MAX_BYTES, Segment, StateRel, VaultRel};
    let mut rng = fastrand::Rng::with_seed(0x35);
    let root = Path::new("/state/root");
    for _ in 0..20_000 {
        let raw = hostile::random_text(&mut rng, 40);
        if let Ok(seg) = Segment::new(&raw) {
            let s = seg.as_str();
            assert!(!s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0']));
            assert!(s.len() <= NAME_MAX_BYTES);
        }
        let fitted = Segment::fit(&raw, 1 + rng.usize(..300), "fallback");
        assert!(
            Segment::new(fitted.as_str()).is_ok(),
            "{raw:?} → {fitted:?}"
        );
        assert!(!fitted.as_str().starts_with('.'), "{fitted:?}");
        for parsed in [
            StateRel::parse(&raw).map(|r| r.on(root)),
            VaultRel::parse(&raw).map(|r| r.on(root)),
        ]
        .into_iter()
        .flatten()
        {
            assert!(parsed.starts_with(root), "{raw:?} → {}", parsed.display());
            let below = parsed.strip_prefix(root).unwrap();
            assert!(
                below
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{raw:?} → {}",
                parsed.display()
            );
        }
        if let Ok(v) = VaultRel::parse(&raw) {
            assert!(v.segments().iter().all(|s| !s.as_str().starts_with('.')));
        }
    }
}
