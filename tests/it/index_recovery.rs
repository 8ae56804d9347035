//! A damaged index is never fatal: every way of breaking it on disk — a truncated
//! segment, an overwritten or scrambled `.store`, bytes flipped in each kind of segment file, a
//! deleted segment file, garbage `meta.json`, a corrupt catalog — is detected; the real
//! `agentero search` rebuilds it with progress and says so once, the context server (which only
//! reads the index) falls back to the granted sources and never writes the index, and
//! `kill -9` of `agentero index` at any moment leaves a vault the next run completes.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentero::context::grant;
use agentero::context::{ContextRequest, plan};
use agentero::vault::Vault;
use agentero::vault::catalog::{Catalog, LoadOutcome};
use serde_json::json;

fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}

/// Deterministic noise over `range` of the file (the footer and checksum stay in place).
fn scramble(path: &Path, from: f64, to: f64) {
    let mut b = std::fs::read(path).unwrap();
    let n = b.len();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for byte in &mut b[(n as f64 * from) as usize..(n as f64 * to) as usize] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *byte = x as u8;
    }
    std::fs::write(path, b).unwrap();
}

type Damage = (&'static str, fn(&Vault));

fn damages() -> Vec<Damage> {
    fn segment(v: &Vault, ext: &str) -> PathBuf {
        files_with_ext(&v.index_dir(), ext)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no .{ext} file"))
    }
    vec![
        ("truncated .idx", |v| {
            let f = segment(v, "idx");
            std::fs::OpenOptions::new()
                .write(true)
                .open(&f)
                .unwrap()
                .set_len(100)
                .unwrap();
        }),
        ("overwritten .store", |v| {
            let f = segment(v, "store");
            let n = std::fs::metadata(&f).unwrap().len() as usize;
            std::fs::write(&f, vec![0x5a; n]).unwrap();
        }),
        ("scrambled .store", |v| {
            scramble(&segment(v, "store"), 0.0, 0.5)
        }),
        ("scrambled .idx", |v| scramble(&segment(v, "idx"), 0.0, 0.5)),
        ("scrambled .term", |v| {
            scramble(&segment(v, "term"), 0.0, 0.5)
        }),
        ("scrambled .pos", |v| scramble(&segment(v, "pos"), 0.0, 0.5)),
        ("scrambled .fast", |v| {
            scramble(&segment(v, "fast"), 0.0, 0.5)
        }),
        ("scrambled .fieldnorm", |v| {
            scramble(&segment(v, "fieldnorm"), 0.0, 0.5)
        }),
        ("deleted .pos", |v| {
            std::fs::remove_file(segment(v, "pos")).unwrap()
        }),
        ("garbage meta.json", |v| {
            std::fs::write(v.index_dir().join("meta.json"), b"garbage{").unwrap()
        }),
        ("meta.json naming no segment", |v| {
            let meta = v.index_dir().join("meta.json");
            let mut m: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
            m["segments"][0]["segment_id"] = json!("00000000000000000000000000000000");
            std::fs::write(&meta, m.to_string()).unwrap();
        }),
        ("corrupt catalog", |v| {
            std::fs::write(v.catalog_path(), b"{\"version\":4,\"entries\":{").unwrap()
        }),
        ("catalog and index both gone bad", |v| {
            std::fs::write(v.catalog_path(), b"\x00").unwrap();
            std::fs::write(v.index_dir().join("meta.json"), b"[]").unwrap();
        }),
    ]
}

/// Every file of the index folder with its bytes' length and a cheap hash.
fn snapshot(dir: &Path) -> BTreeMap<String, (usize, u64)> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let b = std::fs::read(e.path()).unwrap_or_default();
        let h = b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &c| {
            (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
        });
        out.insert(e.file_name().to_string_lossy().into_owned(), (b.len(), h));
    }
    out
}

#[test]
fn search_rebuilds_a_damaged_index_and_says_so_once() {
    let clean = common::demo_vault();
    let root = clean.path();
    let v = root.to_str().unwrap();
    let first = common::agentero(&["index", v], root);
    assert!(first.status.success(), "{}", common::stderr(&first));
    let want = common::stdout(&common::agentero(
        &["search", "--vault", v, "citation"],
        root,
    ));
    assert!(want.contains(" 1. "), "{want}");
    let mut recovered = 0;
    for (what, damage) in damages() {
        let dir = tempfile::tempdir().unwrap();
        common::copy_tree(root, dir.path());
        let copy = dir.path().to_str().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        damage(&vault);
        let out = common::agentero(&["search", "--vault", copy, "citation"], dir.path());
        let err = common::stderr(&out);
        assert!(out.status.success(), "{what}: search failed: {err}");
        assert!(!err.contains("panicked"), "{what}: {err}");
        let got = common::stdout(&out);
        assert_eq!(
            got, want,
            "{what}: different results after the rebuild ({err})"
        );
        let damaged = err.matches("damaged").count() + err.matches("rebuilding").count();
        if what.contains("catalog") && !what.contains("index") {
            // The index itself is fine; the catalog is repaired by the next `index`.
            assert_eq!(damaged, 0, "{what}: {err}");
        } else {
            assert!(err.contains("damaged"), "{what}: not reported: {err}");
            assert_eq!(err.matches("rebuilding it").count(), 1, "{what}: {err}");
            recovered += 1;
        }
        // Once rebuilt, quiet again.
        let again = common::agentero(&["search", "--vault", copy, "citation"], dir.path());
        assert!(
            common::stderr(&again).is_empty(),
            "{what}: {}",
            common::stderr(&again)
        );
        let reindex = common::agentero(&["index", copy], dir.path());
        assert!(
            reindex.status.success(),
            "{what}: {}",
            common::stderr(&reindex)
        );
        assert!(matches!(
            Catalog::load(&vault.catalog_path()),
            LoadOutcome::Loaded(_)
        ));
    }
    assert!(recovered >= 11, "{recovered}");
}

/// Opens skip the checksum of files that passed unchanged before (`index-checked.json`); a
/// damage after that record is written is still found, whatever it is.
#[test]
fn a_damage_after_the_checksum_record_is_still_found() {
    let clean = common::demo_vault();
    let root = clean.path();
    let v = root.to_str().unwrap();
    assert!(common::agentero(&["index", v], root).status.success());
    let want = common::stdout(&common::agentero(
        &["search", "--vault", v, "citation"],
        root,
    ));
    let mut found = 0;
    for (what, damage) in damages() {
        if what.contains("catalog") {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        common::copy_tree(root, dir.path());
        let copy = dir.path().to_str().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        // Files written a minute ago: settled, so the next open records them.
        let old = std::time::SystemTime::now() - Duration::from_secs(60);
        for e in std::fs::read_dir(vault.index_dir()).unwrap().flatten() {
            let f = std::fs::File::options().write(true).open(e.path()).unwrap();
            f.set_modified(old).unwrap();
        }
        let first = common::agentero(&["search", "--vault", copy, "citation"], dir.path());
        assert_eq!(common::stdout(&first), want, "{what}");
        let record = vault.index_dir().with_file_name("index-checked.json");
        let listed: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
        assert!(
            listed["files"].as_object().is_some_and(|f| f.len() >= 6),
            "{what}: {listed}"
        );
        damage(&vault);
        let out = common::agentero(&["search", "--vault", copy, "citation"], dir.path());
        let err = common::stderr(&out);
        assert!(
            out.status.success() && !err.contains("panicked"),
            "{what}: {err}"
        );
        assert_eq!(common::stdout(&out), want, "{what}: {err}");
        assert!(err.contains("damaged"), "{what}: not reported: {err}");
        found += 1;
    }
    assert!(found >= 11, "{found}");
}

#[tokio::test]
async fn the_context_server_reads_past_a_damaged_index_without_writing_it() {
    for (what, damage) in damages() {
        let dir = common::demo_vault();
        let vault = Vault::open(dir.path()).unwrap();
        agentero::vault::indexer::index_vault(&vault, &Default::default(), &mut |_| {}).unwrap();
        let req = ContextRequest {
            mentions: vec!["notes/".into(), "papers/citeweave/paper.pdf".into()],
            ..ContextRequest::default()
        };
        let p = plan(&vault, &req);
        let (files, _) = grant::write(&vault, &grant::new_id("rt"), &p).unwrap();
        damage(&vault);
        let before = snapshot(&vault.index_dir());
        let outcome = tokio::time::timeout(Duration::from_secs(60), async {
            let client = common::mcp_client(&files.grant()).await;
            let call = |args: serde_json::Value, tool: &'static str| {
                client.call_tool(
                    rmcp::model::CallToolRequestParams::new(tool)
                        .with_arguments(args.as_object().cloned().unwrap()),
                )
            };
            let s = call(json!({"query": "citation"}), "context_search")
                .await
                .unwrap();
            assert_ne!(s.is_error, Some(true), "{what}: {s:?}");
            let cards = s.structured_content.unwrap()["cards"]
                .as_array()
                .unwrap()
                .len();
            assert!(cards > 0, "{what}: no cards");
            let r = call(
                json!({"path": "papers/citeweave/paper.pdf", "mode": "page", "page": 1}),
                "context_read",
            )
            .await
            .unwrap();
            assert_ne!(r.is_error, Some(true), "{what}: {r:?}");
            let r = call(
                json!({"path": "notes/TODO", "mode": "full"}),
                "context_read",
            )
            .await
            .unwrap();
            assert_ne!(r.is_error, Some(true), "{what}: {r:?}");
            client.cancel().await.unwrap();
        })
        .await;
        assert!(outcome.is_ok(), "{what}: timed out");
        assert_eq!(
            snapshot(&vault.index_dir()),
            before,
            "{what}: the server wrote the index"
        );
    }
}

/// A vault that takes the indexer a few seconds: the real corpus when there is one, else the
/// demo vault with its papers copied many times and a thousand notes.
fn slow_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    match common::corpus() {
        Some(corpus) => common::copy_tree(&corpus, dir.path()),
        None => {
            agentero::vault::demo::write_demo_vault(dir.path()).unwrap();
            let papers: Vec<PathBuf> = std::fs::read_dir(dir.path().join("papers"))
                .unwrap()
                .flatten()
                .map(|e| e.path().join("paper.pdf"))
                .filter(|p| p.exists())
                .collect();
            for n in 0..12 {
                for (i, p) in papers.iter().enumerate() {
                    let to = dir.path().join(format!("copies/{n}/{i}.pdf"));
                    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                    // A distinct byte at the end makes each copy a new document.
                    let mut b = std::fs::read(p).unwrap();
                    b.extend_from_slice(format!("\n%{n}-{i}\n").as_bytes());
                    std::fs::write(to, b).unwrap();
                }
            }
            for n in 0..1000 {
                let to = dir.path().join(format!("notes/bulk/{}/{n}.md", n % 20));
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, format!("# Note {n}\nmarker{n} citation retrieval\n")).unwrap();
            }
        }
    }
    dir
}

fn catalog_of(vault: &Vault) -> BTreeMap<String, String> {
    match Catalog::load(&vault.catalog_path()) {
        LoadOutcome::Loaded(c) => c.entries.into_iter().map(|(k, e)| (k, e.sha256)).collect(),
        other => panic!("no usable catalog: {other:?}"),
    }
}

#[test]
fn kill_9_of_index_at_any_moment_is_recovered() {
    let dir = slow_vault();
    let root = dir.path();
    let v = root.to_str().unwrap();
    let home = root.join(".agentero-test-home");
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_agentero"))
            .args(["index", v])
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // The reference: the same vault indexed once, undisturbed.
    let reference = tempfile::tempdir().unwrap();
    common::copy_tree(root, reference.path());
    let started = Instant::now();
    let out = common::agentero(
        &["index", reference.path().to_str().unwrap()],
        reference.path(),
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let full = started.elapsed();
    let ref_vault = Vault::open(reference.path()).unwrap();
    let want = catalog_of(&ref_vault);

    let vault = Vault::open(root).unwrap();
    let kills = 8;
    let mut killed_mid_way = 0;
    for k in 0..kills {
        // Each run resumes where the last was killed, so the kills add up: eight pieces of
        // 6–13% of a full run (shuffled) walk through about five sixths of the work, landing
        // at every stage of it, from the first document into an index mostly there. Spreading
        // each kill over a whole run instead let the index finish by the fourth.
        let piece = 0.5 + 0.75 * ((k * 5) % kills) as f64 / kills as f64;
        let at = full.mul_f64(piece / kills as f64);
        let mut child = spawn();
        std::thread::sleep(at);
        if child.try_wait().unwrap().is_none() {
            killed_mid_way += 1;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(
        killed_mid_way >= kills / 2,
        "only {killed_mid_way} kills landed mid-way"
    );
    let out = common::agentero(&["index", v], root);
    assert!(
        out.status.success(),
        "recovery run failed: {}",
        common::stderr(&out)
    );
    assert_eq!(catalog_of(&vault), want, "the recovered catalog differs");
    let again = common::agentero(&["index", v], root);
    assert!(
        common::stdout(&again).starts_with("Up to date"),
        "{}",
        common::stdout(&again)
    );
    for q in ["citation", "retrieval", "abstract"] {
        let got = common::agentero(
            &["search", "--vault", v, "--json", "--limit", "20", q],
            root,
        );
        let exp = common::agentero(
            &[
                "search",
                "--vault",
                reference.path().to_str().unwrap(),
                "--json",
                "--limit",
                "20",
                q,
            ],
            reference.path(),
        );
        let cards = |o: &std::process::Output| {
            serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()["cards"].clone()
        };
        assert!(common::stderr(&got).is_empty(), "{}", common::stderr(&got));
        assert_eq!(
            cards(&got),
            cards(&exp),
            "results for {q} differ after recovery"
        );
    }
    eprintln!(
        "kill -9 of `agentero index`: {kills} kills ({killed_mid_way} mid-way), 1 recovery run, catalog and results identical"
    );
}

/// Freezes a child process (SIGSTOP): it stays alive and does nothing until killed.
fn stop(child: &std::process::Child) {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("a child has a pid");
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).expect("SIGSTOP");
}

/// The build record's state and progress (`None` while there is none).
fn build_record(vault: &Vault) -> Option<serde_json::Value> {
    let bytes = std::fs::read(vault.state_dir().join("index-build.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[test]
fn search_after_kill_9_of_the_first_index_says_so_and_completes_it() {
    let dir = slow_vault();
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("notes/sentinel.md"),
        "# Sentinel\nzqxsentinel words\n",
    )
    .unwrap();
    let v = root.to_str().unwrap();
    let vault = Vault::open(root).unwrap();
    let mut child = common::command(root)
        .args(["index", v])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Frozen (SIGSTOP) as soon as the build record says it is running, so what it had done is
    // what the record says when the kill lands, however fast this machine indexes; then killed.
    let started = Instant::now();
    let frozen = loop {
        let r = build_record(&vault);
        if r.as_ref().is_some_and(|r| r["state"] == "running") {
            stop(&child);
            break build_record(&vault).unwrap();
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the index finished before it was seen running: {r:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no progress: {r:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    // Whatever its count — none of the files, some, or all of them but not the commit — the
    // first index was interrupted.
    let r = build_record(&vault).unwrap();
    assert_eq!(r, frozen, "the record changed after the freeze");
    assert_eq!(r["state"], "running", "{r}");
    eprintln!("killed at {} of {} files", r["done"], r["total"]);
    // The first search says the index was interrupted, completes it and answers.
    let out = common::agentero(&["search", "--vault", v, "--json", "zqxsentinel"], root);
    let err = common::stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("the index was interrupted"), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["cards"][0]["path"], "notes/sentinel.md", "{doc}");
    assert!(doc.get("indexIncomplete").is_none(), "{doc}");
    assert_eq!(build_record(&vault).unwrap()["state"], "complete");
    // The second one has nothing to say but the results.
    let again = common::agentero(&["search", "--vault", v, "zqxsentinel"], root);
    assert!(again.status.success());
    assert_eq!(common::stderr(&again), "");
    assert!(common::stdout(&again).contains("notes/sentinel.md"));
}

#[test]
fn search_while_another_process_builds_the_index_says_so() {
    use agentero::context::tools::vault::{Limits, VaultTools};
    use agentero::vault::build::Build;
    let dir = common::demo_vault();
    let root = dir.path();
    let v = root.to_str().unwrap();
    let vault = Vault::open(root).unwrap();

    // Nothing indexed yet and a build holding the lock: a clear error, no "No matches".
    let mut build = Build::start(&vault).unwrap();
    build.progress(0, 9);
    let out = common::agentero(&["search", "--vault", v, "retrieval"], root);
    assert!(!out.status.success(), "{}", common::stdout(&out));
    assert!(common::stdout(&out).is_empty(), "{}", common::stdout(&out));
    let err = common::stderr(&out);
    assert!(
        err.contains("being built by another agentero process (0 of 9 files)"),
        "{err}"
    );
    drop(build);

    // A complete index, then another build under way: results come with the notice; no match
    // is an error; the vault server's results carry `indexIncomplete`.
    let out = common::agentero(&["index", v], root);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let mut build = Build::start(&vault).unwrap();
    build.progress(0, 9);
    let out = common::agentero(&["search", "--vault", v, "--json", "retrieval"], root);
    let err = common::stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("results may be incomplete"), "{err}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!doc["cards"].as_array().unwrap().is_empty(), "{doc}");
    assert!(
        doc["indexIncomplete"]
            .as_str()
            .unwrap()
            .contains("0 of 9 files"),
        "{doc}"
    );
    let none = common::agentero(&["search", "--vault", v, "zzqqnothingmatches"], root);
    assert!(!none.status.success(), "{}", common::stdout(&none));
    assert!(!common::stdout(&none).contains("No matches"));
    assert!(
        common::stderr(&none).contains("in the part of the vault indexed so far"),
        "{}",
        common::stderr(&none)
    );
    let tools = VaultTools::new(vault.clone(), Limits::default());
    let r = tools
        .call("vault_search", json!({"query": "retrieval"}))
        .unwrap()
        .structured;
    assert!(
        r["indexIncomplete"]
            .as_str()
            .unwrap()
            .contains("being built"),
        "{r}"
    );
    let r = tools
        .call("vault_search", json!({"query": "zzqqnothingmatches"}))
        .unwrap()
        .structured;
    assert!(
        r["note"].as_str().unwrap().contains("indexed so far"),
        "{r}"
    );

    // Once the build is over, the same search is silent about the index again.
    build.complete().unwrap();
    let r = tools
        .call("vault_search", json!({"query": "retrieval"}))
        .unwrap()
        .structured;
    assert!(r.get("indexIncomplete").is_none(), "{r}");
    let out = common::agentero(&["search", "--vault", v, "retrieval"], root);
    assert!(out.status.success());
    assert_eq!(common::stderr(&out), "");
}
