//! `agentero check` (issue 38): a 10,000-word manuscript citing the real corpus
//! (`AGENTERO_CORPUS`) and the held-out R vignettes (`AGENTERO_HELD_OUT`, when `.ci/run` has
//! downloaded them) 200 times — right quotes, quotes with a changed word, quotes cited at the
//! wrong page and claims without a quote — checked in process (per-citation p50/p99, the whole
//! check) and by the real binary, the user's command (`agentero check --json`), beside
//! `agentero search` on the same vault (what opening the vault and its index costs); and
//! `agentero reverify` of a 50-turn thread whose answers cite those papers (4 quotes a turn,
//! with receipts), in process and as the user's command.
//!
//! Run: `cargo bench --bench check` (release build). `AGENTERO_CHECK_KEEP=DIR` keeps the vault
//! and the manuscript in DIR, for `farm-bench`.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::context::check::{self, Outcome, library::Library};
use agentero::context::citations::{Doc, Docs, VaultDocs};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};

mod common;

use common::{copy_tree, corpus, pct, report};

const CITATIONS: usize = 200;
const WORDS: usize = 10_000;

fn main() {
    let keep = std::env::var_os("AGENTERO_CHECK_KEEP").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let root = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let papers = root.join("papers");
    copy_tree(&corpus().join("papers"), &papers);
    if let Some(h) = std::env::var_os("AGENTERO_HELD_OUT").map(PathBuf::from) {
        for e in std::fs::read_dir(h).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().replace(".pdf", "");
            let to = papers.join(format!("held-out-{name}"));
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(e.path(), to.join("paper.pdf")).unwrap();
        }
    } else {
        println!("AGENTERO_HELD_OUT is not set: the corpus alone");
    }
    let vault = Vault::open(&root).unwrap();
    let t = Instant::now();
    let s = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    println!(
        "vault: {} papers, {} pages, indexed in {:.1} s",
        s.papers,
        s.pages,
        t.elapsed().as_secs_f64()
    );
    let library = Library::load(&vault);

    // Sentences of every paper, by page, from the vault's own page text.
    let mut docs = VaultDocs::new(&vault);
    let mut pool: Vec<(String, u32, Vec<String>)> = Vec::new();
    for p in &library.papers {
        let Some(Doc::Pages(pages)) = docs.doc(&p.path) else {
            continue;
        };
        for (i, page) in pages.iter().enumerate() {
            let words: Vec<&str> = page.split_whitespace().collect();
            let sentences: Vec<String> = words
                .chunks(18)
                .filter(|c| c.len() == 18 && c.iter().all(|w| w.chars().all(char::is_alphanumeric)))
                .map(|c| c.join(" "))
                .collect();
            if !sentences.is_empty() {
                pool.push((p.key.clone(), i as u32 + 1, sentences));
            }
        }
    }
    assert!(!pool.is_empty(), "no page with prose");
    let mut draft = String::from("# A manuscript\n\n");
    let mut words = 0;
    for k in 0..CITATIONS {
        let (key, page, sentences) = &pool[(k * 7919) % pool.len()];
        let s = &sentences[k % sentences.len()];
        let filler = &pool[(k * 104_729 + 3) % pool.len()].2;
        let prose = filler.join(" ");
        let line = match k % 10 {
            0..=5 => format!("As shown, “{s}” [@{key}, p. {page}]."),
            6 => format!(
                "As shown, “{}” [@{key}, p. {page}].",
                s.replacen(' ', " not ", 1)
            ),
            7 => format!("As shown, “{s}” [@{key}, p. {}].", page + 1),
            _ => format!("{s} [@{key}, p. {page}]."),
        };
        words += line.split_whitespace().count();
        draft.push_str(&line);
        draft.push(' ');
        let need = (WORDS.saturating_sub(words)) / (CITATIONS - k).max(1);
        let fill: Vec<&str> = prose.split_whitespace().take(need).collect();
        words += fill.len();
        draft.push_str(&fill.join(" ").replace(['@', '[', ']', '“', '”', '"'], ""));
        draft.push_str(".\n\n");
    }
    let draft_path = root.join("draft.md");
    std::fs::write(&draft_path, &draft).unwrap();
    println!("manuscript: {words} words, {CITATIONS} citations");

    // In process: each citation's time from the progress calls.
    let index = vault.open_index().unwrap();
    let mut runs = Vec::new();
    let mut per: Vec<Duration> = Vec::new();
    let mut outcome = None;
    for _ in 0..3 {
        let t = Instant::now();
        let mut last = Instant::now();
        let mut samples = Vec::new();
        let r = check::check(
            &vault,
            Some(&index),
            &library,
            "draft.md",
            &draft,
            &mut |_, _| {
                samples.push(last.elapsed());
                last = Instant::now();
            },
        );
        runs.push(t.elapsed());
        per = samples;
        outcome = Some(r);
    }
    let r = outcome.unwrap();
    let count = |o: Outcome| r.citations.iter().filter(|c| c.outcome == o).count();
    println!(
        "outcomes: {} verified, {} differs, {} other page, {} not found, {} claims",
        count(Outcome::Verified),
        count(Outcome::Differs),
        count(Outcome::OtherPage),
        count(Outcome::NotFound),
        count(Outcome::Claim)
    );
    runs.sort();
    println!(
        "check in process: median {:.0} ms for {} citations",
        runs[runs.len() / 2].as_secs_f64() * 1e3,
        r.citations.len()
    );
    report("per citation (warm run)", per, None);

    // The user's command, beside `agentero search` on the same vault.
    let exe = env!("CARGO_BIN_EXE_agentero");
    let time = |args: &[&str]| {
        let mut v: Vec<Duration> = (0..5)
            .map(|_| {
                let t = Instant::now();
                let out = Command::new(exe)
                    .args(args)
                    .current_dir(&root)
                    .env("HOME", root.join(".home"))
                    .output()
                    .unwrap();
                assert!(
                    out.status.code().is_some_and(|c| c <= 1),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                t.elapsed()
            })
            .collect();
        v.sort();
        pct(&v, 0.5)
    };
    let check_wall = time(&["check", "--json", "draft.md"]);
    let search_wall = time(&["search", "passage retrieval"]);
    println!(
        "agentero check (200 citations): {:.0} ms wall; agentero search: {:.0} ms; ratio {:.1}",
        check_wall.as_secs_f64() * 1e3,
        search_wall.as_secs_f64() * 1e3,
        check_wall.as_secs_f64() / search_wall.as_secs_f64()
    );

    // A 50-turn thread: each turn's answer cites four quotes of the pool, with its receipt.
    let mut th = agentero::acp::transcript::Thread::create(&vault);
    let path_of: std::collections::HashMap<&str, &str> = library
        .papers
        .iter()
        .map(|p| (p.key.as_str(), p.path.as_str()))
        .collect();
    for t in 0..50 {
        use agentero::acp::transcript::Line;
        use agentero::context::citations::{CitationCheck, Verdict};
        let turn = format!("turn-{t:02}");
        let ts = agentero::context::grant::now_rfc3339();
        th.append(Line::User {
            ts: ts.clone(),
            turn: turn.clone(),
            text: format!("Question {t}"),
            mentions: Vec::new(),
        })
        .unwrap();
        let mut checks = Vec::new();
        let mut hashes = std::collections::BTreeMap::new();
        for k in 0..4 {
            let (key, page, sentences) = &pool[(t * 4 + k) * 31 % pool.len()];
            let path = path_of[key.as_str()];
            hashes.insert(
                path.to_string(),
                agentero::vault::fsutil::sha256_file(&root.join(path)).unwrap(),
            );
            checks.push(CitationCheck {
                uri: agentero::vault::uri::page_uri(path, *page),
                quote: Some(sentences[0].clone()),
                verdict: Verdict::Verified,
                found_at: None,
                detail: None,
            });
        }
        th.append(Line::Citations {
            ts: ts.clone(),
            turn: turn.clone(),
            checks,
            receipt: Some(agentero::context::receipt::Receipt {
                grant: "0".repeat(64),
                mode: "mcp".into(),
                granted: Vec::new(),
                hashes,
            }),
        })
        .unwrap();
    }
    let id = th.id.clone();
    let mut runs = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let r = agentero::acp::reverify::reverify(&vault, &id).unwrap();
        runs.push(t.elapsed());
        assert_eq!(r.all().count(), 200);
    }
    runs.sort();
    let cli = time(&["reverify", "--json", &id]);
    println!(
        "reverify of a 50-turn thread (200 quotes): {:.0} ms in process (median of 3), {:.0} ms as `agentero reverify`",
        runs[1].as_secs_f64() * 1e3,
        cli.as_secs_f64() * 1e3
    );
    if keep.is_none() {
        drop(tmp);
    }
}
