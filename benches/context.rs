//! Context-layer benchmarks on a 1,000-paper vault built from the demo vault's PDFs (each copy
//! made unique by appending `\n% copy N\n`):
//! - plan computation for a request with 20 mentions (goal: under 10 ms);
//! - round-trip latency, p50 and p99, of each tool over the stdio MCP protocol against the
//!   real `agentero --agentero-context-mcp` child (goals: context_search p99 under 15 ms,
//!   context_read page p99 under 5 ms).
//!
//! Run: `cargo bench --bench context` (release build).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use agentero::context::budget::Budget;
use agentero::context::grant;
use agentero::context::{ContextRequest, plan};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const PAPERS: usize = 1000;

fn pdfs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
            pdfs_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "pdf") {
            out.push(p);
        }
    }
}

fn build_vault(root: &Path) -> Vec<String> {
    agentero::vault::demo::write_demo_vault(root).unwrap();
    let mut demo = Vec::new();
    pdfs_under(root, &mut demo);
    demo.sort();
    let sources: Vec<Vec<u8>> = demo.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut paths = Vec::new();
    let extra = PAPERS - demo.len();
    for n in 0..extra {
        let mut bytes = sources[n % sources.len()].clone();
        bytes.extend_from_slice(format!("\n% copy {n}\n").as_bytes());
        let rel = format!("library/copy-{n:04}/paper.pdf");
        std::fs::create_dir_all(root.join(rel.rsplit_once('/').unwrap().0)).unwrap();
        std::fs::write(root.join(&rel), bytes).unwrap();
        paths.push(rel);
    }
    paths
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, mut samples: Vec<Duration>, goal: Option<Duration>) {
    samples.sort();
    let (p50, p99) = (pct(&samples, 0.5), pct(&samples, 0.99));
    let verdict = match goal {
        Some(g) if p99 < g => format!("goal p99 < {g:?}: met"),
        Some(g) => format!("goal p99 < {g:?}: MISSED"),
        None => String::new(),
    };
    println!(
        "{name:<28} n={:<4} p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  {verdict}",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let t = Instant::now();
    let copies = build_vault(&root);
    let vault = Vault::open(&root).unwrap();
    let summary = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    println!(
        "vault: {} papers ({} pages), built and indexed in {:.1} s",
        summary.papers,
        summary.pages,
        t.elapsed().as_secs_f64()
    );

    // 1. Plan with 20 mentions (19 papers and a folder), catalog loading included.
    let mut mentions: Vec<String> = copies
        .iter()
        .step_by(50)
        .take(19)
        .map(|p| format!("@{p}"))
        .collect();
    mentions.push("@notes/".into());
    let req = ContextRequest {
        mentions,
        selection: Some(agentero::context::Selection {
            path: "papers/layoutflow/paper.pdf".into(),
            page: Some(2),
            text: "A gutter is a vertical strip of whitespace".into(),
        }),
        budget: Budget {
            turn_chars: 1_000_000_000,
            ..Budget::default()
        },
        ..ContextRequest::default()
    };
    let first = plan(&vault, &req);
    assert_eq!(first.sources.len(), 21);
    let samples: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            let p = plan(&vault, &req);
            let e = t.elapsed();
            assert_eq!(p.fingerprint, first.fingerprint);
            e
        })
        .collect();
    report(
        "plan (20 mentions)",
        samples,
        Some(Duration::from_millis(10)),
    );

    // 2. Tool round trips over stdio.
    agentero::context::library::ensure_cache(&vault, &vault.catalog()).unwrap();
    let (files, _) = grant::write(&vault, "rt-bench", &first).unwrap();
    let granted: Vec<String> = first
        .sources
        .iter()
        .filter(|s| s.kind == agentero::vault::EntryKind::Paper)
        .map(|s| s.path.clone())
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentero"));
        cmd.arg("--agentero-context-mcp").arg(files.grant()).kill_on_drop(true);
        let (transport, _stderr) = TokioChildProcess::builder(cmd).stderr(Stdio::piped()).spawn().unwrap();
        let client = ().serve(transport).await.unwrap();
        let call = |tool: &'static str, args: Value| {
            let client = &client;
            async move {
                let t = Instant::now();
                let r = client
                    .call_tool(CallToolRequestParams::new(tool).with_arguments(args.as_object().cloned().unwrap()))
                    .await
                    .unwrap();
                let e = t.elapsed();
                assert_ne!(r.is_error, Some(true), "{tool}: {:?}", r.content);
                e
            }
        };
        let queries = ["gutter", "citation precision", "dense retrieval", "hyphenation", "reading order", "BM25 recall", "ligature", "passage windows"];
        // Warm-up: the first touch of each paper loads it from the index.
        for p in &granted {
            call("context_read", json!({"path": p, "mode": "page", "page": 1})).await;
        }
        for q in queries {
            call("context_search", json!({"query": q})).await;
        }
        let n = 300;
        let mut s = Vec::new();
        for i in 0..n {
            s.push(call("context_search", json!({"query": queries[i % queries.len()]})).await);
        }
        report("context_search", s, Some(Duration::from_millis(15)));
        let mut s = Vec::new();
        for i in 0..n {
            let p = &granted[i % granted.len()];
            s.push(call("context_read", json!({"path": p, "mode": "page", "page": 1 + (i % 2)})).await);
        }
        report("context_read page", s, Some(Duration::from_millis(5)));
        let mut s = Vec::new();
        for i in 0..n {
            s.push(call("context_read", json!({"path": &granted[i % granted.len()]})).await);
        }
        report("context_read metadata", s, None);
        let mut s = Vec::new();
        for _ in 0..n {
            s.push(call("context_read", json!({"path": "papers/layoutflow/paper.pdf", "mode": "excerpt", "quote": "A gutter is a vertical strip of whitespace at least 1.5 times the median space width"})).await);
        }
        report("context_read excerpt", s, None);
        let mut s = Vec::new();
        for i in 0..n {
            s.push(call("context_read", json!({"path": "notes/reading-list.md", "mode": "region", "start": 1 + (i % 10), "end": 12 + (i % 10)})).await);
        }
        report("context_read region (file)", s, None);
        let mut s = Vec::new();
        for i in 0..n {
            s.push(call("context_read", json!({"path": "notes"})).await);
            let _ = i;
        }
        report("context_read directory", s, None);
        let mut s = Vec::new();
        for i in 0..n {
            s.push(call("paper_relations", json!({"path": &granted[i % granted.len()]})).await);
        }
        report("paper_relations", s, None);
        client.cancel().await.unwrap();
    });
}
