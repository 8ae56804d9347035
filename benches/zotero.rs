//! A Zotero library of 1,000 items against the same PDFs as a folder vault: open + full index
//! (time, peak RSS, as the real `agentero index` process), the re-index of the unchanged
//! library, the time to open the library (read the database, which sits in the `-wal` as under
//! a running Zotero 10), to list a collection, and search latency on both.
//!
//! First, a library of 100,000 items (each a journal article with its PDF in `storage/`, in the
//! `-wal`): the time to open it and the peak RSS of a process that only opens it, then the time
//! to refuse it once its `deletedItems` is a recursive view.
//!
//! Run: `cargo bench --bench zotero` (release); `AGENTERO_BENCH_LARGE_ONLY=1` stops after the
//! 100,000-item library. Needs Zotero's schema files (see `tests/it/zotero/library.rs`).

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
        let item = z.item("journalArticle", &library::zkey(2 * n as u64));
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
        let key = library::zkey(2 * n as u64 + 1);
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

/// Peak resident memory of this process so far (`VmHWM`), in kB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// `n` journal articles, each with a PDF in `storage/`, committed into the `-wal`.
fn large_library(dir: &Path, schema: &Path, n: u64) -> library::Zotero {
    std::fs::create_dir_all(dir.join("storage")).unwrap();
    let z = library::create(dir, schema);
    z.conn.execute_batch("BEGIN").unwrap();
    let colls: Vec<i64> = (0..100)
        .map(|c| z.collection(&format!("Topic {c}"), None, &library::zkey(c)))
        .collect();
    for i in 0..n {
        let item = z.item("journalArticle", &library::zkey(2 * i));
        z.set(item, "title", &format!("Item {i} on reading machines"));
        z.set(
            item,
            "date",
            &format!("{}-00-00 {}", 1990 + i % 30, 1990 + i % 30),
        );
        z.creator(item, "Ada", &format!("Author{i}"), 0);
        let key = library::zkey(2 * i + 1);
        z.attachment(Some(item), &key, 1, "storage:paper.pdf");
        library::put(
            &dir.join("storage").join(&key).join("paper.pdf"),
            b"%PDF-1.4\n",
        );
        z.file_in(colls[(i % 100) as usize], item);
    }
    z.conn.execute_batch("COMMIT").unwrap();
    z
}

/// In a child process: open the library at `dir`, list it, print seconds, entries, peak kB.
fn open_in_child(dir: &Path) {
    let base = dir.parent().unwrap().join("state-large");
    let t = Instant::now();
    let vault = Vault::open_with_state_base(dir, &base).unwrap();
    let entries = vault.scan().unwrap().len();
    println!("{} {entries} {}", t.elapsed().as_secs_f64(), peak_rss_kb());
}

fn opens_large(schema: &Path) {
    // `AGENTERO_BENCH_ITEMS` for a smaller library (a debug build takes half an hour for these).
    let items: u64 = std::env::var("AGENTERO_BENCH_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Zotero");
    let t = Instant::now();
    let z = large_library(&dir, schema, items);
    println!(
        "# a Zotero library of {items} items\n\nbuilt in {:.1} s (the items in the -wal)\n",
        t.elapsed().as_secs_f64()
    );
    println!("| run | open + scan (s) | entries | peak RSS of the process (MB) |");
    println!("|---|---:|---:|---:|");
    for run in ["first (copies the -wal)", "again"] {
        let out = Command::new(std::env::current_exe().unwrap())
            .env("AGENTERO_BENCH_OPEN_CHILD", &dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let f: Vec<&str> = text.split_whitespace().collect();
        let kb: f64 = f[2].parse().unwrap();
        println!("| {run} | {} | {} | {:.0} |", f[0], f[1], kb / 1024.0);
    }
    z.conn
        .execute_batch(
            "DROP TABLE deletedItems;
             CREATE VIEW deletedItems AS WITH RECURSIVE r(itemID, dateDeleted) AS
               (SELECT 1, 0 UNION ALL SELECT itemID + 1, 0 FROM r) SELECT itemID, dateDeleted FROM r;",
        )
        .unwrap();
    let t = Instant::now();
    let err = Vault::open_with_state_base(&dir, &tmp.path().join("state-view")).unwrap_err();
    println!(
        "\nrecursive view refused in {:.3} s: {err}\n",
        t.elapsed().as_secs_f64()
    );
}

fn main() {
    if let Some(dir) = std::env::var_os("AGENTERO_BENCH_OPEN_CHILD") {
        open_in_child(Path::new(&dir));
        return;
    }
    let Some(schema) = library::schema_dir() else {
        return;
    };
    opens_large(&schema);
    if std::env::var_os("AGENTERO_BENCH_LARGE_ONLY").is_some() {
        return;
    }
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
