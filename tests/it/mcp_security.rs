//! Attempts to read past the grant through the real `agentero-context` server: traversal,
//! symlinks, absolute paths, encodings, look-alike characters, hidden files, the app's own
//! state (the grant itself included), papers known only from relation cards, folders that are
//! not granted. Every one must be an `isError` result that leaks neither content nor paths.
//! `state_files`: planted links, hard links and foreign files in `.agentero/` are refused.

use crate::common;

use std::path::Path;
use std::time::Duration;

use agentero::context::budget::Budget;
use agentero::context::grant;
use agentero::context::{ContextRequest, plan};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::{Value, json};

const SECRET_OUT: &str = "TOPSECRET-OUTSIDE-7f3a";
const SECRET_IN: &str = "TOPSECRET-INSIDE-91bc";
const SECRET_HIDDEN: &str = "TOPSECRET-HIDDEN-55d0";

use common::{McpClient as Client, call_tool as call, tool_text as text};

async fn connect(grant_path: &Path) -> Client {
    common::mcp_client(grant_path).await
}

#[tokio::test]
async fn thirty_and_more_ways_to_read_outside_the_grant_all_fail() {
    let outside = tempfile::tempdir().unwrap();
    let outside_root = outside.path().canonicalize().unwrap();
    std::fs::write(
        outside_root.join("secret.md"),
        format!("# Secret\n{SECRET_OUT}\n"),
    )
    .unwrap();
    std::fs::create_dir(outside_root.join("dir")).unwrap();
    std::fs::write(outside_root.join("dir/inner.md"), format!("{SECRET_OUT}\n")).unwrap();

    let dir = common::demo_vault();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::write(
        root.join("private/secret.md"),
        format!("# Private\n{SECRET_IN}\n"),
    )
    .unwrap();
    std::fs::write(root.join("notes/.secret.md"), format!("{SECRET_HIDDEN}\n")).unwrap();
    std::fs::create_dir_all(root.join(".hidden")).unwrap();
    std::fs::write(root.join(".hidden/secret.md"), format!("{SECRET_HIDDEN}\n")).unwrap();
    std::fs::write(root.join("notes-private.md"), format!("{SECRET_IN}\n")).unwrap();
    // Symlinks inside a granted folder: one leaving the vault, one to an ungranted file, one to
    // an ungranted folder, one to the app's state.
    std::os::unix::fs::symlink(
        outside_root.join("secret.md"),
        root.join("notes/link-out.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        root.join("private/secret.md"),
        root.join("notes/link-in.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("private"), root.join("notes/private-dir")).unwrap();
    std::os::unix::fs::symlink(outside_root.join("dir"), root.join("notes/outside-dir")).unwrap();

    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    std::fs::create_dir_all(root.join(".agentero")).unwrap();
    std::fs::write(
        root.join(".agentero/notes.md"),
        format!("{SECRET_HIDDEN}\n"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join(".agentero"), root.join("notes/state")).unwrap();

    let req = ContextRequest {
        mentions: vec!["notes/".into(), "papers/dense-vs-sparse/paper.pdf".into()],
        budget: Budget {
            turn_chars: 1_000_000,
            ..Budget::default()
        },
        ..ContextRequest::default()
    };
    let p = plan(&vault, &req);
    let (files, _) = grant::write(&vault, &grant::new_id("rt"), &p).unwrap();
    let grant_path = files.grant();
    let abs_grant = grant_path.display().to_string();
    let abs_out = outside_root.join("secret.md").display().to_string();

    tokio::time::timeout(Duration::from_secs(120), async {
        let client = connect(&grant_path).await;
        // Make the usage file exist so that reading it is a real attempt.
        let warm = call(&client, "context_read", json!({"path": "notes/TODO"})).await;
        assert_ne!(warm.is_error, Some(true), "{}", text(&warm));

        let read = |p: &str| ("context_read", json!({"path": p}));
        let attempts: Vec<(&str, Value)> = vec![
            read("../outside.md"),
            read("notes/../../etc/passwd"),
            read("notes/../private/secret.md"),
            read("/etc/passwd"),
            read(&abs_out),
            read(&abs_grant),
            read("~/.ssh/id_rsa"),
            read("C:/Windows/win.ini"),
            read("notes\\..\\private\\secret.md"),
            read("notes/%2e%2e/private/secret.md"),
            read("notes%2f..%2fprivate%2fsecret.md"),
            read("%2e%2e/%2e%2e/etc/passwd"),
            read("notes/%252e%252e/private/secret.md"),
            read("notes/\u{FF0E}\u{FF0E}/private/secret.md"),
            read("notes\u{2215}..\u{2215}private\u{2215}secret.md"),
            read("notes/\u{200B}../private/secret.md"),
            read("private/secret.md"),
            read("private"),
            read("notes-private.md"),
            read("notes/.secret.md"),
            read(".hidden/secret.md"),
            read(".agentero/catalog.json"),
            read(".agentero/notes.md"),
            read(&format!(
                ".agentero/context-sessions/{}/grant.json",
                files.dir.file_name().unwrap().to_string_lossy()
            )),
            read(&format!(
                ".agentero/context-sessions/{}/usage.jsonl",
                files.dir.file_name().unwrap().to_string_lossy()
            )),
            read("notes/state/notes.md"),
            read("notes/link-out.md"),
            read("notes/link-in.md"),
            read("notes/private-dir/secret.md"),
            read("notes/private-dir"),
            read("notes/outside-dir/inner.md"),
            read("papers/layoutflow/paper.pdf"),
            read("papers/citeweave/paper.pdf#page=1"),
            read("datasets/benchmarks.csv"),
            read("datasets"),
            read("private/secret.md#line=1,2"),
            read("file:///etc/passwd"),
            read("https://doi.org/10.5555/agentero.2021.0104"),
            read("notes/TODO\u{0000}"),
            read(""),
            read("."),
            (
                "context_read",
                json!({"path": "notes/../private/secret.md", "mode": "full"}),
            ),
            (
                "context_read",
                json!({"path": "private/secret.md", "mode": "excerpt", "quote": SECRET_IN}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": ["private"]}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": ["private/secret.md"]}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": ["notes", "../outside"]}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": ["/tmp"]}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": [".agentero"]}),
            ),
            (
                "context_search",
                json!({"query": "passage", "paths": ["papers/citeweave/paper.pdf"]}),
            ),
            (
                "context_search",
                json!({"query": "secret", "paths": ["notes/link-in.md"]}),
            ),
            (
                "paper_relations",
                json!({"path": "papers/citeweave/paper.pdf"}),
            ),
            (
                "paper_relations",
                json!({"path": "../papers/dense-vs-sparse/paper.pdf"}),
            ),
            ("paper_relations", json!({"path": "notes/TODO"})),
        ];
        assert!(attempts.len() >= 30);
        let root_text = root.display().to_string();
        let out_text = outside_root.display().to_string();
        for (tool, args) in &attempts {
            let r = call(&client, tool, args.clone()).await;
            let t = text(&r);
            assert_eq!(r.is_error, Some(true), "{tool} {args} was not refused: {t}");
            for secret in [SECRET_OUT, SECRET_IN, SECRET_HIDDEN] {
                assert!(!t.contains(secret), "{tool} {args} leaked {secret}: {t}");
            }
            assert!(
                !t.contains(&root_text) && !t.contains(&out_text),
                "{tool} {args} leaked a path: {t}"
            );
            assert!(
                !t.contains("/etc/passwd") && !t.contains("/tmp"),
                "{tool} {args} echoed a path: {t}"
            );
        }

        // A paper known only from a relation card: on the card, not readable.
        let rel = call(
            &client,
            "paper_relations",
            json!({"path": "papers/dense-vs-sparse/paper.pdf"}),
        )
        .await;
        let cards = rel.structured_content.unwrap()["cards"]
            .as_array()
            .unwrap()
            .clone();
        let known: Vec<String> = cards
            .iter()
            .filter(|c| c["inGrant"] == false)
            .filter_map(|c| {
                c.get("paperPath")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect();
        assert!(!known.is_empty());
        for p in &known {
            for mode in ["metadata", "page", "full"] {
                let r = call(
                    &client,
                    "context_read",
                    json!({"path": p, "mode": mode, "page": 1}),
                )
                .await;
                assert_eq!(r.is_error, Some(true), "{p} {mode}");
            }
        }
        // Searching for the secrets finds nothing (granted scope only), and nothing leaks.
        for q in [SECRET_IN, SECRET_OUT, SECRET_HIDDEN, "TOPSECRET"] {
            let r = call(&client, "context_search", json!({"query": q})).await;
            assert_ne!(r.is_error, Some(true));
            // The text echoes the query; the cards must be empty.
            let cards = r.structured_content.unwrap()["cards"]
                .as_array()
                .unwrap()
                .clone();
            assert!(
                cards.is_empty(),
                "search found ungranted text for {q}: {cards:?}"
            );
        }
        // Refusals left no usage lines; only the successful calls did.
        let usage = grant::read_usage(&files.usage());
        assert_eq!(usage.len(), 1 + 1 + 4);
        client.cancel().await.unwrap();
    })
    .await
    .expect("in time");
}
