//! Context-layer benchmarks on a 1,000-paper vault built from the demo vault's PDFs (each copy
//! made unique by appending `\n% copy N\n`):
//! - plan computation for a request with 20 mentions (goal: under 10 ms);
//! - round-trip latency, p50 and p99, of each tool over the stdio MCP protocol against the
//!   real `agentero --agentero-context-mcp` child (goals: context_search p99 under 15 ms,
//!   context_read page p99 under 5 ms).
//!
//! Citation verification per citation is timed by `cargo bench --bench verify`.
//!
//! Run: `cargo bench --bench context` (release build).

use std::process::Stdio;
use std::time::{Duration, Instant};

use agentero::context::budget::Budget;
use agentero::context::grant;
use agentero::context::{ContextRequest, plan};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

mod common;

use common::{indexed_vault, report};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (copies, vault) = indexed_vault(&root);

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
