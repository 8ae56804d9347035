//! The vault core end to end on the generated demo vault: index, search, incremental updates,
//! broken inputs and a corrupt index — through the library and through the real binary.

use crate::common;

use std::path::Path;

use agentero::vault::index::IndexError;
use agentero::vault::indexer::{IndexOptions, IndexSummary, index_vault};
use agentero::vault::uri::{self, Target};
use agentero::vault::{EntryKind, Scope, SearchOptions, Status, Vault, VaultError};

fn index(vault: &Vault) -> IndexSummary {
    index_vault(vault, &IndexOptions::default(), &mut |_| {}).expect("indexing works")
}

fn search(vault: &Vault, q: &str) -> Vec<agentero::vault::Card> {
    vault
        .open_index()
        .unwrap()
        .search(q, &SearchOptions::default())
        .unwrap()
}

#[test]
fn demo_vault_indexes_and_searches_deterministically() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    let s = index(&vault);
    assert!(s.failed.is_empty(), "failures: {:?}", s.failed);
    assert!(s.papers >= 6, "papers: {}", s.papers);
    assert!(s.files >= 3, "files: {}", s.files);
    assert!(s.pages >= s.papers * 2);
    assert_eq!(s.updated, s.papers + s.files);

    let cards = search(&vault, "citation");
    assert!(!cards.is_empty());
    for c in &cards {
        assert!(
            c.excerpt.contains("**"),
            "excerpt marks the match: {}",
            c.excerpt
        );
        match uri::parse(&c.citation_uri) {
            Some(Target::Vault { path, page, lines }) => {
                assert_eq!(path, c.path);
                assert!(vault.root().join(&path).is_file());
                match c.kind {
                    EntryKind::Paper => assert_eq!(page, c.page),
                    _ => assert_eq!(lines.map(|(a, b)| [a, b]), c.lines),
                }
            }
            other => panic!("bad citation URI {}: {other:?}", c.citation_uri),
        }
        assert!(!c.title.is_empty());
    }
    for w in cards.windows(2) {
        let ordered = w[0].score > w[1].score
            || (w[0].score == w[1].score && (&w[0].path, w[0].page) < (&w[1].path, w[1].page));
        assert!(ordered, "cards out of order: {w:?}");
    }
    // The same query gives the same cards, and so does a fresh index of the same bytes.
    assert_eq!(search(&vault, "citation"), cards);
    let copy = tempfile::tempdir().unwrap();
    common::copy_tree(dir.path(), copy.path());
    let vault2 = Vault::open(copy.path()).unwrap();
    index(&vault2);
    let again: Vec<_> = search(&vault2, "citation")
        .into_iter()
        .map(|c| (c.path, c.page, c.score))
        .collect();
    let first: Vec<_> = cards
        .into_iter()
        .map(|c| (c.path, c.page, c.score))
        .collect();
    assert_eq!(again, first);
}

#[test]
fn reindex_is_incremental() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    let first = index(&vault);
    let second = index(&vault);
    assert!(second.up_to_date(), "{second:?}");
    assert_eq!(second.unchanged, first.papers + first.files);

    // Same bytes, new mtime: hashed, found unchanged, not re-extracted.
    let note = root.join("notes/zebra-note.md");
    std::fs::write(&note, "# Zebra\nThe okapi is a relative of the giraffe.\n").unwrap();
    let added = index(&vault);
    assert_eq!(added.updated, 1);
    assert_eq!(search(&vault, "okapi")[0].path, "notes/zebra-note.md");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&note, "# Zebra\nThe okapi is a relative of the giraffe.\n").unwrap();
    let touched = index(&vault);
    assert_eq!(touched.updated, 0);
    assert!(touched.up_to_date());

    std::fs::write(&note, "# Zebra\nThe narwhal has a long tusk.\n").unwrap();
    let changed = index(&vault);
    assert_eq!(changed.updated, 1);
    assert!(search(&vault, "okapi").is_empty());
    assert_eq!(search(&vault, "narwhal")[0].path, "notes/zebra-note.md");

    std::fs::remove_file(&note).unwrap();
    let removed = index(&vault);
    assert_eq!(removed.removed, 1);
    assert!(search(&vault, "narwhal").is_empty());
}

#[test]
fn broken_files_are_reported_and_everything_else_is_indexed() {
    let dir = common::demo_vault();
    let root = dir.path();
    let some_pdf = std::fs::read_dir(root.join("papers"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("paper.pdf"))
        .find(|p| p.is_file())
        .unwrap();
    let bytes = std::fs::read(&some_pdf).unwrap();
    std::fs::create_dir_all(root.join("broken")).unwrap();
    std::fs::write(root.join("broken/truncated.pdf"), &bytes[..bytes.len() / 3]).unwrap();
    std::fs::write(root.join("broken/garbage.pdf"), b"this is not a PDF at all").unwrap();
    std::fs::write(root.join("broken/empty.pdf"), b"").unwrap();
    let vault = Vault::open(root).unwrap();
    let s = index(&vault);
    let failed: Vec<&str> = s.failed.iter().map(|(p, _)| p.as_str()).collect();
    assert!(failed.contains(&"broken/garbage.pdf"), "{:?}", s.failed);
    assert!(failed.contains(&"broken/empty.pdf"), "{:?}", s.failed);
    for (_, why) in &s.failed {
        assert!(!why.trim().is_empty());
    }
    // Every demo paper is still indexed.
    let catalog = vault.catalog();
    let demo_ok = catalog
        .entries
        .iter()
        .filter(|(p, e)| !p.starts_with("broken/") && e.kind == EntryKind::Paper)
        .all(|(_, e)| e.status == Status::Indexed);
    assert!(demo_ok);
    // Failed files are not retried until they change.
    assert!(index(&vault).up_to_date());
}

#[test]
fn corrupt_index_or_catalog_is_rebuilt() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index(&vault);
    std::fs::write(vault.index_dir().join("meta.json"), b"{ not json").unwrap();
    assert!(vault.open_index().is_err());
    let s = index(&vault);
    assert!(s.rebuilt.is_some(), "{s:?}");
    assert!(!search(&vault, "citation").is_empty());

    std::fs::write(vault.catalog_path(), b"\x00garbage").unwrap();
    let s = index(&vault);
    assert!(s.rebuilt.as_deref().unwrap().contains("corrupt"), "{s:?}");
    assert!(index(&vault).up_to_date());

    std::fs::remove_dir_all(vault.index_dir()).unwrap();
    assert!(matches!(
        vault.open_index(),
        Err(VaultError::Index(IndexError::Missing))
    ));
    let s = index(&vault);
    assert!(s.rebuilt.is_some());
}

#[test]
fn search_scope_limits_paths() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index(&vault);
    let idx = vault.open_index().unwrap();
    let opts = |scope| SearchOptions {
        limit: 50,
        scope: Some(scope),
        ..SearchOptions::default()
    };
    let in_notes = idx
        .search(
            "paper",
            &opts(Scope {
                files: vec![],
                dirs: vec!["notes".into()],
            }),
        )
        .unwrap();
    assert!(!in_notes.is_empty());
    assert!(in_notes.iter().all(|c| c.path.starts_with("notes/")));
    let nothing = idx.search("paper", &opts(Scope::default())).unwrap();
    assert!(nothing.is_empty());
    assert!(matches!(
        idx.search("", &SearchOptions::default()),
        Err(IndexError::BadQuery(_))
    ));
}

fn run(args: &[&str], cwd: &Path) -> std::process::Output {
    common::agentero(args, cwd)
}

#[test]
fn cli_index_and_search() {
    let dir = common::demo_vault();
    let root = dir.path();
    let v = root.to_str().unwrap();
    let out = run(&["index", v], root);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(
        common::stdout(&out).contains("papers"),
        "{}",
        common::stdout(&out)
    );
    let again = run(&["index", v], root);
    assert!(
        common::stdout(&again).starts_with("Up to date"),
        "{}",
        common::stdout(&again)
    );

    let json = run(
        &["search", "--vault", v, "--json", "--limit", "3", "citation"],
        root,
    );
    assert!(json.status.success(), "{}", common::stderr(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let cards = doc["cards"].as_array().unwrap();
    assert!(!cards.is_empty() && cards.len() <= 3);
    for c in cards {
        for key in [
            "path",
            "kind",
            "title",
            "excerpt",
            "citationUri",
            "score",
            "pages",
        ] {
            assert!(c.get(key).is_some(), "card lacks {key}: {c}");
        }
        // One card per paper, its best pages listed, the card's own first.
        let pages = c["pages"].as_array().unwrap();
        assert!(!pages.is_empty() && pages.len() <= 5, "{c}");
        assert_eq!(pages[0]["citationUri"], c["citationUri"]);
    }
    let paths: std::collections::BTreeSet<&str> =
        cards.iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), cards.len(), "one card per paper");
    let text = run(&["search", "--vault", v, "citation"], root);
    let shown = common::stdout(&text);
    assert!(shown.contains("#page="));
    // "Title · p. 3, 7, 12": the headline lists the paper's best pages in page order.
    let headline = shown.lines().next().unwrap();
    assert!(
        headline.starts_with(" 1. ") && headline.contains(" · p. "),
        "{shown}"
    );

    let bad = run(&["search", "--vault", v, "nosuchfield:x"], root);
    assert!(!bad.status.success());
    assert!(
        common::stderr(&bad).contains("query"),
        "{}",
        common::stderr(&bad)
    );
    let missing = run(&["search", "--vault", "/no/such/vault", "x"], root);
    assert!(!missing.status.success());
    assert!(
        common::stderr(&missing).contains("no vault"),
        "{}",
        common::stderr(&missing)
    );
    // Nothing was written outside the vault's state folder.
    let stray: Vec<_> = walk(root)
        .into_iter()
        .filter(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            !rel.starts_with(".agentero")
                && std::fs::metadata(p).unwrap().modified().unwrap()
                    > std::fs::metadata(root.join(".agentero-demo-version"))
                        .unwrap()
                        .modified()
                        .unwrap()
        })
        .collect();
    assert!(stray.is_empty(), "written outside .agentero/: {stray:?}");
}

#[test]
fn search_indexes_a_vault_without_an_index_first() {
    let dir = common::demo_vault();
    let root = dir.path();
    let out = run(
        &["search", "--vault", root.to_str().unwrap(), "citation"],
        root,
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(common::stderr(&out).contains("indexing"));
    assert!(common::stdout(&out).contains("#page="));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A PDF whose page draws a form that draws a form … ten times at each of eight levels: 10^8
/// text operations from a few hundred bytes. The indexer must survive it within its time limit.
fn xobject_bomb() -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.5");
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let leaf = Content {
        operations: vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 12.into()]),
            Operation::new("Tj", vec![Object::string_literal("boom")]),
            Operation::new("ET", vec![]),
        ],
    };
    let mut child = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
        },
        leaf.encode().unwrap(),
    ));
    for _ in 0..8 {
        let ops: Vec<Operation> = (0..10)
            .map(|_| Operation::new("Do", vec![Object::Name(b"X".to_vec())]))
            .collect();
        child = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form", "BBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
                "Resources" => dictionary! { "XObject" => dictionary! { "X" => child } },
            },
            Content { operations: ops }.encode().unwrap(),
        ));
    }
    let pages_id = doc.new_object_id();
    let content = doc.add_object(Stream::new(
        dictionary! {},
        Content {
            operations: (0..10)
                .map(|_| Operation::new("Do", vec![Object::Name(b"X".to_vec())]))
                .collect::<Vec<_>>(),
        }
        .encode()
        .unwrap(),
    ));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
        "Resources" => dictionary! { "XObject" => dictionary! { "X" => child } },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[test]
fn a_pdf_that_stalls_the_parser_is_cut_off_and_reported() {
    let dir = common::demo_vault();
    std::fs::write(dir.path().join("bomb.pdf"), xobject_bomb()).unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    let opts = IndexOptions {
        time_limit: std::time::Duration::from_secs(2),
        ..IndexOptions::default()
    };
    let started = std::time::Instant::now();
    let s = index_vault(&vault, &opts, &mut |_| {}).unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(s.papers >= 6, "the other papers are indexed: {s:?}");
    let bomb = vault.catalog().entries["bomb.pdf"].clone();
    match bomb.status {
        Status::Failed => {
            let why = bomb.error.unwrap();
            assert!(why.contains("time") || why.contains("limit"), "{why}");
        }
        // An extractor that bounds the work per page may finish it: also fine.
        _ => assert_eq!(bomb.units, 1),
    }
}

#[test]
fn without_a_vault_argument_the_demo_vault_is_used() {
    let cwd = tempfile::tempdir().unwrap();
    let out = run(&["search", "--json", "citation"], cwd.path());
    assert!(out.status.success(), "{}", common::stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["vault"].as_str().unwrap().ends_with("demo-vault"));
    assert!(!doc["cards"].as_array().unwrap().is_empty());
}
