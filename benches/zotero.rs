//! A Zotero library of 1,000 items against the same PDFs as a folder vault: open + full index
//! (time, peak RSS, as the real `agentero index` process), the re-index of the unchanged
//! library, the time to open the library (read the database, which sits in the `-wal` as under
//! a running Zotero 10), to list a collection, and search latency on both.
//!
//! Run: `cargo bench --bench zotero` (release). Needs Zotero's schema files (see
//! `tests/zotero/library.rs`).

mod common;
#[path = "../tests/it/zotero/library.rs"]
mod library;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::{SearchOptions, Vault};
use common::{PAPERS, build_vault, report, run_measured};

fn pdfs_of(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pdf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The folder vault's PDFs as a Zotero library: one journal article per PDF, in 20 collections
/// of 50 (each under one of 4 parents), the items committed but only in the `-wal`.
fn zotero_library(folder: &Path, dir: &Path, schema: &Path) -> library::Zotero {
    std::fs::create_dir_all(dir.join("storage")).unwrap();
    let z = library::create(dir, schema);
    z.conn.execute_batch("BEGIN").unwrap();
    let parents: Vec<i64> = (0..4)
        .map(|p| z.collection(&format!("Area {p}"), None, &format!("AREA{p:04}")))
        .collect();
    let colls: Vec<i64> = (0..20)
        .map(|c| {
            z.collection(
                &format!("Topic {c:02}"),
                Some(parents[c % 4]),
                &format!("TOPC{c:04}"),
            )
        })
        .collect();
    for (n, pdf) in pdfs_of(folder).iter().enumerate() {
        let item = z.item("journalArticle", &format!("I{n:07}"));
        z.set(
            item,
            "title",
            &format!("Zotero item {n} on reading machines"),
        );
        z.set(
            item,
            "date",
            &format!("{}-00-00 {}", 1990 + n % 30, 1990 + n % 30),
        );
        z.creator(item, "Ada", &format!("Author{n}"), 0);
        let key = format!("A{n:07}");
        z.attachment(Some(item), &key, 1, "storage:paper.pdf");
        let target = dir.join("storage").join(&key).join("paper.pdf");
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(pdf, &target).unwrap();
        z.file_in(colls[n % 20], item);
    }
    z.conn.execute_batch("COMMIT").unwrap();
    z
}

fn search_samples(vault: &Vault, queries: &[&str], rounds: usize) -> Vec<Duration> {
    let index = vault.open_index().unwrap();
    let opts = SearchOptions::default();
    let mut out = Vec::new();
    for _ in 0..rounds {
        for q in queries {
            let t = Instant::now();
            let hits = index.search_papers(q, &opts).unwrap();
            out.push(t.elapsed());
            std::hint::black_box(hits);
        }
    }
    out
}

fn main() {
    let Some(schema) = library::schema_dir() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("folder");
    build_vault(&folder);
    let zdir = tmp.path().join("Zotero");
    let t = Instant::now();
    let _zotero = zotero_library(&folder, &zdir, &schema);
    println!(
        "# agentero: a Zotero library of {PAPERS} items vs the same PDFs as a folder vault\n\nbuilt the library in {:.1} s\n",
        t.elapsed().as_secs_f64()
    );
    let state = tmp.path().join("state");
    let exe = env!("CARGO_BIN_EXE_agentero");
    let index = |dir: &Path| {
        run_measured(
            Command::new(exe)
                .arg("index")
                .arg(dir)
                .env("XDG_STATE_HOME", &state)
                .env("HOME", tmp.path()),
        )
    };
    let (ft, frss, fok) = index(&folder);
    let (zt, zrss, zok) = index(&zdir);
    assert!(fok && zok, "both indexes succeed");
    let (fre, _, _) = index(&folder);
    let (zre, _, _) = index(&zdir);
    println!("| | folder vault | Zotero library | Zotero / folder |");
    println!("|---|---:|---:|---:|");
    println!(
        "| open + full index (s) | {:.2} | {:.2} | {:.2} |",
        ft.as_secs_f64(),
        zt.as_secs_f64(),
        zt.as_secs_f64() / ft.as_secs_f64()
    );
    println!(
        "| peak RSS (MB) | {:.0} | {:.0} | {:.2} |",
        frss as f64 / 1024.0,
        zrss as f64 / 1024.0,
        zrss as f64 / frss as f64
    );
    println!(
        "| re-index, unchanged (s) | {:.2} | {:.2} | {:.2} |",
        fre.as_secs_f64(),
        zre.as_secs_f64(),
        zre.as_secs_f64() / fre.as_secs_f64()
    );

    let base = state.join("agentero");
    let time = |f: &mut dyn FnMut()| {
        let mut v = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            f();
            v.push(t.elapsed());
        }
        v
    };
    let fo = time(&mut || {
        std::hint::black_box(Vault::open(&folder).unwrap().scan().unwrap());
    });
    let zo = time(&mut || {
        std::hint::black_box(
            Vault::open_with_state_base(&zdir, &base)
                .unwrap()
                .scan()
                .unwrap(),
        );
    });
    println!();
    report("folder: open + scan", fo, None);
    report("zotero: open (wal copy) + scan", zo, None);
    let zv = Vault::open_with_state_base(&zdir, &base).unwrap();
    let lc = time(&mut || {
        let p = zv.collection_papers("collections/Area 1").unwrap();
        assert_eq!(p.len(), 250);
        std::hint::black_box(p);
    });
    report("zotero: list a collection", lc, None);
    let lf = time(&mut || {
        std::hint::black_box(zv.scan().unwrap());
    });
    report("zotero: rescan, unchanged", lf, None);
    let queries = [
        "reading order",
        "table structure",
        "layout analysis",
        "citation graph",
    ];
    let fv = Vault::open(&folder).unwrap();
    report(
        "folder: search_papers",
        search_samples(&fv, &queries, 25),
        None,
    );
    report(
        "zotero: search_papers",
        search_samples(&zv, &queries, 25),
        None,
    );
}
