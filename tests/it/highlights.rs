//! agentero's own highlights from the command line and through the vault MCP: `agentero
//! highlights` lists, exports (markdown with citation URIs) and deletes them; `agentero search`
//! and `vault_search` find the words of their comments, and say the hit matched an annotation.

use crate::common;

use std::path::Path;
use std::time::Duration;

use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

const LAYOUTFLOW: &str = "papers/layoutflow/paper.pdf";
/// A word in no paper or note of the demo vault: only the comment has it.
const ONLY_IN_COMMENT: &str = "zanzibarish";

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = common::command(root);
    cmd.args(args);
    common::output_within(cmd, Duration::from_secs(60))
}

fn indexed_with_a_highlight() -> (tempfile::TempDir, Vault, String) {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let h = common::highlight_gutter(
        &vault,
        Some(format!("a {ONLY_IN_COMMENT} idea\nsecond line")),
    );
    (dir, vault, h.id)
}

#[test]
fn highlights_are_listed_exported_as_markdown_and_deleted() {
    let (dir, vault, id) = indexed_with_a_highlight();
    let root = dir.path();
    let out = run(root, &["highlights", LAYOUTFLOW]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains(&id), "{listed}");
    assert!(
        listed.contains("papers/layoutflow/paper.pdf#page=2  highlight  gutter"),
        "{listed}"
    );

    let out = run(root, &["highlights", "--json", &format!("@{LAYOUTFLOW}")]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["kind"], "highlight");
    assert_eq!(v[0]["source"], "agentero");
    assert_eq!(v[0]["id"], id);

    let md_path = root.join("notes-out.md");
    let out = run(
        root,
        &[
            "highlights",
            LAYOUTFLOW,
            "--export",
            "md",
            "-o",
            md_path.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(md.starts_with("# Highlights: LayoutFlow"), "{md}");
    assert!(md.contains("\n## Page 2\n\n> gutter\n"), "{md}");
    assert!(
        md.contains(&format!("a {ONLY_IN_COMMENT} idea\nsecond line\n")),
        "{md}"
    );
    assert!(
        md.contains("— papers/layoutflow/paper.pdf#page=2\n"),
        "{md}"
    );

    let out = run(root, &["highlights", LAYOUTFLOW, "--delete", &id]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(vault.annotations(LAYOUTFLOW).is_empty());
    let out = run(root, &["highlights", LAYOUTFLOW, "--delete", &id]);
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("no highlight"),
        "{}",
        common::stderr(&out)
    );
    // Not a paper, outside the vault: refused.
    assert!(
        !run(root, &["highlights", "../elsewhere.pdf"])
            .status
            .success()
    );
}

#[test]
fn search_finds_the_words_of_a_comment() {
    let (dir, _vault, _) = indexed_with_a_highlight();
    let out = run(dir.path(), &["search", "--json", ONLY_IN_COMMENT]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cards = v["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 1, "{v:#}");
    assert_eq!(cards[0]["path"], LAYOUTFLOW);
    assert_eq!(
        cards[0]["citationUri"],
        "papers/layoutflow/paper.pdf#page=2"
    );
    let excerpt = cards[0]["excerpt"].as_str().unwrap();
    assert!(
        excerpt.starts_with("matched an annotation (highlight, p. 2)"),
        "{excerpt}"
    );
    // A word of the paper and of the comment: the paper's own hit says it too.
    let out = run(dir.path(), &["search", "--json", "gutter"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hit = v["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == LAYOUTFLOW)
        .cloned()
        .unwrap();
    assert!(
        hit["excerpt"]
            .as_str()
            .unwrap()
            .contains("matched an annotation"),
        "{hit}"
    );
    // Plain text output names it as well.
    let out = run(dir.path(), &["search", ONLY_IN_COMMENT]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("matched an annotation"), "{text}");
}

#[tokio::test]
async fn vault_search_finds_the_words_of_a_comment() {
    let (dir, _vault, _) = indexed_with_a_highlight();
    let home = dir.path().join(".agentero-test-home");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.args(["serve", "--stdio"]).arg(dir.path());
    let client = crate::common::stdio_client(cmd, &home).await;
    let call = |args: Value| {
        CallToolRequestParams::new("vault_search")
            .with_arguments(args.as_object().cloned().unwrap())
    };
    let r = client
        .call_tool(call(json!({"query": ONLY_IN_COMMENT})))
        .await
        .unwrap();
    let v = r.structured_content.clone().expect("structured");
    let cards = v["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 1, "{v:#}");
    assert_eq!(
        cards[0]["citationUri"],
        "papers/layoutflow/paper.pdf#page=2"
    );
    assert!(
        cards[0]["excerpt"]
            .as_str()
            .unwrap()
            .contains("matched an annotation")
    );
    // Narrowed to another folder or to files: the annotation is not there.
    for args in [
        json!({"query": ONLY_IN_COMMENT, "folder": "notes/"}),
        json!({"query": ONLY_IN_COMMENT, "kind": "file"}),
    ] {
        let r = client.call_tool(call(args.clone())).await.unwrap();
        let v = r.structured_content.clone().expect("structured");
        assert_eq!(v["cards"].as_array().unwrap().len(), 0, "{args}: {v:#}");
    }
    // paper_read mirrors context_read's annotations mode.
    let r = client
        .call_tool(
            CallToolRequestParams::new("paper_read").with_arguments(
                json!({"path": LAYOUTFLOW, "mode": "annotations"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            ),
        )
        .await
        .unwrap();
    let v = r.structured_content.clone().expect("structured");
    assert_eq!(v["annotations"][0]["text"], "gutter", "{v:#}");
    client.cancel().await.unwrap();
}
