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

/// A phrase a page has more than once is highlighted on its image where the text view found
/// it: the occurrence counted in the text the paper pane shows (the extraction, reflowed) is
/// the one boxed in the text layer. On every page of the demo vault's papers and, with
/// `AGENTERO_CORPUS`, of the real papers: each repeated three-word phrase, each occurrence.
#[test]
fn a_repeated_phrase_is_boxed_at_the_occurrence_shown() {
    use agentero::context::quote::{find_nth, occurrence, page_boxes};
    let demo = common::demo_vault();
    let mut pdfs: Vec<std::path::PathBuf> = Vec::new();
    let mut walk = |root: &Path| {
        let mut stack = vec![root.join("papers")];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "pdf") {
                    pdfs.push(p);
                }
            }
        }
    };
    walk(demo.path());
    if std::env::var_os("AGENTERO_CORPUS").is_some()
        && let Some(c) = common::corpus()
    {
        walk(&c);
    }
    pdfs.sort();
    let limits = || agentero::vault::pdf::Limits {
        deadline: std::time::Instant::now() + Duration::from_secs(60),
    };
    let (mut checked, mut pages_with) = (0, 0);
    for pdf in &pdfs {
        let bytes = std::fs::read(pdf).unwrap();
        let Ok(doc) = agentero::vault::pdf::extract(&bytes, limits()) else {
            continue;
        };
        for (i, page) in doc.pages.iter().enumerate().take(6) {
            let n = i as u32 + 1;
            let shown = agentero::tui::text::reflow(page.text.clone());
            // Repeated phrases of three words of letters, at most five per page.
            let words: Vec<&str> = shown.split_whitespace().collect();
            let mut seen = std::collections::HashMap::new();
            for w in words.windows(3) {
                if w.iter()
                    .all(|x| x.len() > 2 && x.chars().all(|c| c.is_ascii_alphabetic()))
                {
                    *seen.entry(w.join(" ").to_ascii_lowercase()).or_insert(0) += 1;
                }
            }
            let mut repeated: Vec<String> = seen
                .into_iter()
                .filter(|(_, c)| *c > 1)
                .map(|(p, _)| p)
                .collect();
            repeated.sort();
            repeated.truncate(5);
            if repeated.is_empty() {
                continue;
            }
            pages_with += 1;
            let Ok(layout) = agentero::vault::pdf::page_layout(&bytes, n, limits()) else {
                continue;
            };
            for phrase in &repeated {
                // Every place the matcher finds the phrase (it ignores case, line breaks and
                // hyphenation), in the pane's text and in the text layer's.
                let places = |text: &str| -> Vec<std::ops::Range<usize>> {
                    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
                    for k in 0..50 {
                        match find_nth(text, phrase, k) {
                            Some(f) if out.last().is_none_or(|l| f.range.start > l.start) => {
                                out.push(f.range)
                            }
                            _ => break,
                        }
                    }
                    out
                };
                let (in_pane, in_layer) = (places(&shown), places(&layout.text));
                assert_eq!(
                    in_pane.len(),
                    in_layer.len(),
                    "{phrase:?} on p. {n} of {}",
                    pdf.display()
                );
                for (k, at) in in_pane.iter().enumerate() {
                    assert_eq!(occurrence(&shown, phrase, at.start), k, "{phrase:?}");
                    let boxes = page_boxes(pdf, n, phrase, k).unwrap();
                    assert_eq!(boxes, layout.rects(in_layer[k].clone()));
                    if k > 0 {
                        let first = page_boxes(pdf, n, phrase, 0).unwrap();
                        assert_ne!(
                            boxes,
                            first,
                            "{phrase:?} #{k} boxed as #0 on p. {n} of {}",
                            pdf.display()
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(
        pages_with > 0 && checked >= 4,
        "{checked} occurrences on {pages_with} pages"
    );
    eprintln!("{checked} occurrences of repeated phrases on {pages_with} pages boxed where shown");
}
