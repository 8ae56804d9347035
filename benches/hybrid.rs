//! Hybrid retrieval's costs (issue 37) on the 1,000-paper vault of the other benches (copies of
//! the demo vault's PDFs), all measured in one run: embedding cost per 1,000 pages; `agentero
//! index` with and without embeddings (wall, CPU, peak RSS); page-level search p50/p99 hybrid
//! against BM25 alone (the search `context_search` runs, in process, over the same queries);
//! the vectors' size on disk beside the index's; peak RSS of `agentero search` both ways.
//!
//! The model: the folder `AGENTERO_BENCH_MODEL` names (a transformer such as all-MiniLM-L6-v2,
//! say), else wordllama's static embeddings (`AGENTERO_WORDLLAMA`, as `.ci/run` fetches them;
//! 32,000 × 256), else the tests' tiny model (said on the first line).
//!
//! Run: `AGENTERO_WORDLLAMA=… cargo bench --bench hybrid` (release build).

mod common;
#[path = "../tests/it/common/embedding_model.rs"]
mod embedding_model;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::embed::{Embedder, ModelChoice};
use agentero::vault::{SearchOptions, Vault};
use common::{build_vault, copy_tree, dir_size, pct, report, run_measured_cpu};

#[derive(serde::Deserialize)]
struct Set {
    questions: Vec<Question>,
}

#[derive(serde::Deserialize)]
struct Question {
    question: String,
}

fn index(exe: &str, vault: &Path, model: &str) -> (Duration, Duration, i64) {
    let (wall, cpu, rss, ok) = run_measured_cpu(
        Command::new(exe)
            .env("AGENTERO_EMBEDDINGS", model)
            // Without OCR: the same scanned pages read in both runs would only dilute the ratio.
            .args(["index", "--no-ocr"])
            .arg(vault),
    );
    assert!(ok, "agentero index {} failed", vault.display());
    (wall, cpu, rss)
}

fn main() {
    let exe = env!("CARGO_BIN_EXE_agentero");
    let work = tempfile::tempdir().unwrap();
    let named = std::env::var_os("AGENTERO_BENCH_MODEL").map(std::path::PathBuf::from);
    let model_dir = match (named, embedding_model::wordllama_unpacked()) {
        (Some(dir), _) => {
            println!("model: {}", dir.display());
            dir
        }
        (None, Some(w)) => {
            println!("model: wordllama l2_supercat_256 (32,000 × 256, F16)");
            embedding_model::wordllama_model(&w, &work.path().join("wordllama"))
        }
        (None, None) => {
            println!("model: the tests' tiny model (AGENTERO_WORDLLAMA is not set)");
            embedding_model::tiny_model(&work.path().join("tiny"), 1)
        }
    };
    let model = model_dir.to_str().unwrap();
    let bm25_dir = work.path().join("vault-bm25");
    build_vault(&bm25_dir);
    let hybrid_dir = work.path().join("vault-hybrid");
    copy_tree(&bm25_dir, &hybrid_dir);

    let (w0, c0, r0) = index(exe, &bm25_dir, "off");
    let (w1, c1, r1) = index(exe, &hybrid_dir, model);
    let bm25 = Vault::open(&bm25_dir)
        .unwrap()
        .with_embeddings(ModelChoice::Off);
    let hybrid = Vault::open(&hybrid_dir)
        .unwrap()
        .with_embeddings(ModelChoice::Folder(model_dir.clone()));
    let pages: u32 = bm25.catalog().entries.values().map(|e| e.units).sum();
    println!(
        "agentero index, {} entries, {pages} pages/chunks: BM25 alone {:.2} s wall, {:.2} s CPU, peak RSS {:.0} MB · with embeddings {:.2} s wall, {:.2} s CPU, peak RSS {:.0} MB · ratio wall {:.2}, CPU {:.2}, RSS {:.2}",
        bm25.catalog().entries.len(),
        w0.as_secs_f64(),
        c0.as_secs_f64(),
        r0 as f64 / 1024.0,
        w1.as_secs_f64(),
        c1.as_secs_f64(),
        r1 as f64 / 1024.0,
        w1.as_secs_f64() / w0.as_secs_f64(),
        c1.as_secs_f64() / c0.as_secs_f64(),
        r1 as f64 / r0 as f64,
    );

    // Embedding alone, in process: every stored page and chunk, as the indexer embeds them.
    let embedder = Embedder::load(&model_dir).unwrap();
    let index = hybrid.open_index().unwrap();
    assert!(
        index.embedding_model().is_some(),
        "the vectors are not attached"
    );
    let mut texts = Vec::new();
    for path in hybrid.catalog().entries.keys() {
        for d in index.docs_of(path).unwrap() {
            texts.push(format!("{}\n{}", d.title, d.text));
        }
    }
    let t = Instant::now();
    let vectors = embedder.embed(&texts).unwrap();
    let took = t.elapsed();
    assert_eq!(vectors.len(), texts.len() * embedder.dims);
    println!(
        "embedding {} pages/chunks ({} dims): {:.3} s, {:.3} s per 1,000 pages; the index run's extra CPU per 1,000 pages {:.3} s",
        texts.len(),
        embedder.dims,
        took.as_secs_f64(),
        took.as_secs_f64() * 1000.0 / texts.len() as f64,
        (c1.as_secs_f64() - c0.as_secs_f64()) * 1000.0 / texts.len() as f64,
    );
    let vec_bytes = std::fs::metadata(hybrid.vectors_path()).unwrap().len();
    println!(
        "on disk: vectors.bin {:.2} MB ({:.0} bytes per page), the tantivy index {:.2} MB (ratio {:.3})",
        vec_bytes as f64 / 1e6,
        vec_bytes as f64 / texts.len() as f64,
        dir_size(&hybrid.index_dir()) as f64 / 1e6,
        vec_bytes as f64 / dir_size(&hybrid.index_dir()) as f64,
    );

    // Search latency: the judged tuning questions (plain reader questions), page-level cards
    // as context_search asks for them.
    let set: Set = serde_json::from_str(include_str!("../tests/judged/questions.json")).unwrap();
    let queries: Vec<&str> = set.questions.iter().map(|q| q.question.as_str()).collect();
    let plain = bm25.open_index().unwrap();
    let opts = SearchOptions {
        limit: 8,
        excerpt_chars: 400,
        lenient: true,
        scope: None,
        per_document: Some(3),
    };
    let time = |i: &agentero::vault::SearchIndex| {
        let mut samples = Vec::new();
        for _ in 0..3 {
            for q in &queries {
                let t = Instant::now();
                let _ = i.search(q, &opts);
                samples.push(t.elapsed());
            }
        }
        samples.sort();
        samples
    };
    let _ = time(&plain); // warm both
    let _ = time(&index);
    let a = time(&plain);
    let b = time(&index);
    report("search, BM25 alone", a.clone(), None);
    report("search, hybrid", b.clone(), None);
    println!(
        "hybrid / BM25: p50 {:.2}, p99 {:.2}",
        pct(&b, 0.5).as_secs_f64() / pct(&a, 0.5).as_secs_f64(),
        pct(&b, 0.99).as_secs_f64() / pct(&a, 0.99).as_secs_f64(),
    );

    // A whole `agentero search` process both ways (model loading included).
    let search = |vault: &Path, model: &str| {
        run_measured_cpu(
            Command::new(exe)
                .env("AGENTERO_EMBEDDINGS", model)
                .args(["search", "--vault"])
                .arg(vault)
                .arg("how are references resolved to DOIs"),
        )
    };
    let (sw0, _, sr0, ok0) = search(&bm25_dir, "off");
    let (sw1, _, sr1, ok1) = search(&hybrid_dir, model);
    assert!(ok0 && ok1);
    println!(
        "agentero search (one process): BM25 alone {:.0} ms, peak RSS {:.0} MB · hybrid {:.0} ms, peak RSS {:.0} MB · ratio wall {:.2}, RSS {:.2}",
        sw0.as_secs_f64() * 1e3,
        sr0 as f64 / 1024.0,
        sw1.as_secs_f64() * 1e3,
        sr1 as f64 / 1024.0,
        sw1.as_secs_f64() / sw0.as_secs_f64(),
        sr1 as f64 / sr0 as f64,
    );
}
