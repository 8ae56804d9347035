//! The context server under changes made after the grant was written (replaced files, links,
//! re-pointed symlinks, changed folders), its argument caps and a grant-shaped `tools/list` —
//! the real binary spoken to by rmcp's client.

use crate::common;

use std::path::Path;
use std::time::Duration;

use agentero::context::Locality;
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::{Value, json};

const SECRET: &str = "TOPSECRET-UNGRANTED-4e1d";
const DENSE: &str = "papers/dense-vs-sparse/paper.pdf";
const LAYOUT: &str = "papers/layoutflow/paper.pdf";

use common::{call_tool as call, tool_text as text};
use rmcp::model::CallToolRequestParams;

fn swap(path: &Path, with: impl FnOnce(&Path)) {
    std::fs::remove_file(path).unwrap();
    with(path);
}

#[tokio::test]
async fn sources_replaced_after_the_grant_are_refused_as_changed() {
    let dir = common::demo_vault();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::write(
        root.join("private/secret.md"),
        format!("# Secret\nThe passage retrieval {SECRET}\n"),
    )
    .unwrap();
    std::fs::write(root.join("notes/a.md"), "# A\npassage retrieval, granted\n").unwrap();
    std::fs::write(root.join("notes/b.md"), "# B\npassage retrieval, granted\n").unwrap();
    std::fs::write(root.join("notes/c.md"), "# C\npassage retrieval, granted\n").unwrap();
    std::fs::write(root.join("notes/target.md"), "# T\npassage retrieval\n").unwrap();
    std::os::unix::fs::symlink(root.join("notes/target.md"), root.join("notes/link.md")).unwrap();
    std::fs::create_dir_all(root.join("folder")).unwrap();
    std::fs::write(root.join("folder/one.md"), "# One\n").unwrap();
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let grant_path = common::grant_for(
        &vault,
        &[
            "notes/a.md",
            "notes/b.md",
            "notes/c.md",
            "notes/link.md",
            "folder",
            DENSE,
            LAYOUT,
        ],
        Locality::Local,
    );

    tokio::time::timeout(Duration::from_secs(120), async {
        let client = common::mcp_client(&grant_path).await;
        // Before any change everything reads (and the server caches its checks).
        for p in ["notes/a.md", "notes/link.md", "folder", DENSE, LAYOUT] {
            let r = call(&client, "context_read", json!({"path": p, "mode": "full"})).await;
            assert_ne!(r.is_error, Some(true), "{p}: {}", text(&r));
        }

        // a.md → a symlink to the ungranted secret; b.md → a hard link to it; c.md rewritten
        // in place with the same length; link.md re-pointed; the paper replaced by a symlink
        // to the other paper's bytes; a file added to the folder.
        let secret = root.join("private/secret.md");
        swap(&root.join("notes/a.md"), |p| {
            std::os::unix::fs::symlink(&secret, p).unwrap()
        });
        swap(&root.join("notes/b.md"), |p| {
            std::fs::hard_link(&secret, p).unwrap()
        });
        std::fs::write(root.join("notes/c.md"), "# C\npassage retrieval, GRANTED\n").unwrap();
        swap(&root.join("notes/link.md"), |p| {
            std::os::unix::fs::symlink(&secret, p).unwrap()
        });
        let other = root.join("papers/other.pdf");
        std::fs::copy(root.join(DENSE), &other).unwrap();
        swap(&root.join(LAYOUT), |p| {
            std::os::unix::fs::symlink(&other, p).unwrap()
        });
        std::fs::write(root.join("folder/two.md"), "# Two\n").unwrap();

        let mut attempts = 0;
        for p in [
            "notes/a.md",
            "notes/b.md",
            "notes/c.md",
            "notes/link.md",
            LAYOUT,
        ] {
            for args in [
                json!({"path": p}),
                json!({"path": p, "mode": "full"}),
                json!({"path": p, "mode": "excerpt", "quote": "passage retrieval"}),
                json!({"path": format!("{p}#line=1,2")}),
            ] {
                attempts += 1;
                let r = call(&client, "context_read", args.clone()).await;
                let t = text(&r);
                assert_eq!(r.is_error, Some(true), "{args} was served: {t}");
                assert!(t.contains("changed_since_grant"), "{args}: {t}");
                assert!(!t.contains(SECRET), "{args} leaked: {t}");
            }
        }
        let r = call(&client, "context_read", json!({"path": "folder"})).await;
        assert!(text(&r).contains("changed_since_grant"), "{}", text(&r));
        let r = call(&client, "paper_relations", json!({"path": LAYOUT})).await;
        assert!(text(&r).contains("changed_since_grant"), "{}", text(&r));
        let r = call(
            &client,
            "context_search",
            json!({"query": "passage retrieval", "paths": ["notes/b.md"]}),
        )
        .await;
        assert!(text(&r).contains("changed_since_grant"), "{}", text(&r));

        // A search over the whole grant leaves the changed sources out and says which.
        let r = call(
            &client,
            "context_search",
            json!({"query": "passage retrieval SECRET"}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let t = text(&r);
        assert!(!t.contains(SECRET), "search leaked: {t}");
        let s = r.structured_content.unwrap();
        let mut changed: Vec<&str> = s["changedSinceGrant"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        changed.sort();
        assert_eq!(
            changed,
            [
                "folder",
                "notes/a.md",
                "notes/b.md",
                "notes/c.md",
                "notes/link.md",
                LAYOUT
            ]
        );
        // The untouched paper still reads.
        let r = call(
            &client,
            "context_read",
            json!({"path": DENSE, "mode": "page", "page": 1}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        assert!(attempts >= 20);
        client.cancel().await.unwrap();
    })
    .await
    .expect("in time");

    // The next turn's grant, written after the changes, serves the new content.
    let grant_path = common::grant_for(&vault, &["notes/c.md"], Locality::Local);
    tokio::time::timeout(Duration::from_secs(60), async {
        let client = common::mcp_client(&grant_path).await;
        let r = call(
            &client,
            "context_read",
            json!({"path": "notes/c.md", "mode": "full"}),
        )
        .await;
        assert!(text(&r).contains("GRANTED"), "{}", text(&r));
        client.cancel().await.unwrap();
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn tools_follow_the_grant_and_arguments_are_capped() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let remote = common::grant_for(&vault, &["notes/"], Locality::Remote);
    let local = common::grant_for(&vault, &["notes/", DENSE], Locality::Local);
    tokio::time::timeout(Duration::from_secs(120), async {
        // A prompt-only grant lists no tool at all.
        let client = common::mcp_client(&remote).await;
        assert!(client.list_all_tools().await.unwrap().is_empty());
        client.cancel().await.unwrap();

        let client = common::mcp_client(&local).await;
        assert_eq!(client.list_all_tools().await.unwrap().len(), 3);
        let cases = [
            (
                "context_read",
                json!({"path": DENSE, "mode": "excerpt", "quote": "retrieval ".repeat(10_000)}),
                "at most 2000",
            ),
            (
                "context_search",
                json!({"query": "retrieval ".repeat(1000)}),
                "too long",
            ),
            (
                "context_read",
                json!({"path": "notes/TODO", "mode": "region", "start": 1_000_000_000_000_000_000u64}),
                "line 1000000000000000000 does not exist",
            ),
        ];
        for (tool, args, want) in cases {
            let started = std::time::Instant::now();
            let r = call(&client, tool, args).await;
            let t = text(&r);
            assert_eq!(r.is_error, Some(true), "{t}");
            assert!(t.contains(want), "{want}: {t}");
            assert!(started.elapsed() < Duration::from_secs(10), "{want} took too long");
        }
        // A 2 MB request is over the line cap: a protocol error with its id, answered at once.
        let started = std::time::Instant::now();
        let big = client
            .call_tool(
                CallToolRequestParams::new("context_read").with_arguments(
                    json!({"path": DENSE, "mode": "excerpt", "quote": "retrieval ".repeat(210_000)})
                        .as_object()
                        .cloned()
                        .unwrap(),
                ),
            )
            .await;
        match big {
            Err(rmcp::ServiceError::McpError(e)) => {
                assert_eq!(e.code.0, -32600);
                assert!(e.message.contains("at most 1048576"), "{}", e.message);
            }
            other => panic!("expected -32600, got {other:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10));
        // 1,000 nested parentheses (the query that used to overflow the stack) and field
        // queries on bookkeeping fields are answered, and the server is still there.
        for q in [
            format!("{}retrieval{}", "(".repeat(1000), ")".repeat(1000)),
            "sha256:*".to_string(),
            "path:notes".to_string(),
        ] {
            let r = call(&client, "context_search", json!({ "query": q })).await;
            assert_ne!(r.is_error, Some(true), "{q}: {}", text(&r));
        }
        let r = call(&client, "context_search", json!({"query": "((((retrieval))))"})).await;
        assert!(!r.structured_content.unwrap()["cards"].as_array().unwrap().is_empty());
        client.cancel().await.unwrap();
    })
    .await
    .expect("in time");
}

/// Writes `lines` to a stdio MCP server (the real binary with `args`) one by one and returns
/// the JSON answer to each line that expects one; the server must answer within 20 s.
fn raw_stdio_session(args: &[&str], cwd: &Path, lines: &[(&str, bool)]) -> Vec<Value> {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    let mut child = common::command(cwd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut answers = Vec::new();
    for (line, answered) in lines {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if *answered {
            let got = rx
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| panic!("{args:?}: no answer to {line:?}"));
            answers.push(serde_json::from_str::<Value>(&got).expect("the answer is JSON"));
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answers
}

#[test]
fn stdio_servers_answer_unparseable_lines_and_keep_serving() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let grant = common::grant_for(&vault, &["notes/"], Locality::Local);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let lines: &[(&str, bool)] = &[
        ("this is not JSON", true),
        (r#"{"jsonrpc":"2.0","id":7,"method":5}"#, true),
        (r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#, true),
        ("[]", true),
        (init, true),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            false,
        ),
        (r#"{"jsonrpc":"2.0","id":2,"#, true),
        (r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, true),
    ];
    let vault_dir = dir.path().to_str().unwrap();
    for args in [
        vec!["serve", "--stdio", vault_dir],
        vec!["--agentero-context-mcp", grant.to_str().unwrap()],
    ] {
        let answers = raw_stdio_session(&args, dir.path(), lines);
        let error = |i: usize| {
            let a: &Value = &answers[i];
            assert_eq!(a["jsonrpc"], "2.0", "{args:?}: {a}");
            (a["error"]["code"].as_i64().unwrap_or(0), a["id"].clone())
        };
        assert_eq!(error(0), (-32700, Value::Null), "{args:?}");
        assert_eq!(error(1), (-32600, json!(7)), "{args:?}");
        assert_eq!(error(2), (-32600, json!("x")), "{args:?}");
        assert_eq!(error(3).0, -32600, "{args:?}: a batch");
        assert!(
            answers[4]["result"]["serverInfo"].is_object(),
            "{args:?}: {}",
            answers[4]
        );
        // A line cut in the middle still names its id.
        assert_eq!(error(5), (-32700, json!(2)), "{args:?}");
        assert!(
            answers[6]["result"]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty()),
            "{args:?}: the server still serves: {}",
            answers[6]
        );
    }
}
