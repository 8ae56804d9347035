//! The `agentero-context` MCP server as a real child process, driven by rmcp's client over its
//! stdio: tool listing, every mode of every tool on the demo vault, directory and relation
//! rules, budgets, `usage.jsonl`, unknown methods, grant re-reads and the real corpus.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentero::context::budget::Budget;
use agentero::context::grant::{self, Grant, GrantFiles};
use agentero::context::{ContextRequest, plan};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, CustomRequest};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(120);

struct Fixture {
    _dir: tempfile::TempDir,
    vault: Vault,
    grant_path: PathBuf,
    runtime: String,
}

impl Fixture {
    fn files(&self) -> GrantFiles {
        GrantFiles::of_grant(&self.grant_path)
    }
    fn grant(&self) -> Grant {
        grant::read(&self.grant_path).unwrap()
    }
    /// Rewrites the grant for a new turn (what the host does at the start of every turn).
    fn regrant(&self, mentions: &[&str], budget: Budget) -> Grant {
        write_grant(&self.vault, &self.runtime, mentions, budget).1
    }
}

fn write_grant(
    vault: &Vault,
    runtime: &str,
    mentions: &[&str],
    budget: Budget,
) -> (PathBuf, Grant) {
    let req = ContextRequest {
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
        budget,
        ..ContextRequest::default()
    };
    let p = plan(vault, &req);
    let (files, g) = grant::write(vault, runtime, &p).unwrap();
    (files.grant(), g)
}

fn fixture_in(dir: tempfile::TempDir, mentions: &[&str], budget: Budget) -> Fixture {
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let runtime = grant::new_id("rt");
    let (grant_path, _) = write_grant(&vault, &runtime, mentions, budget);
    Fixture {
        _dir: dir,
        vault,
        grant_path,
        runtime,
    }
}

fn fixture(mentions: &[&str], budget: Budget) -> Fixture {
    fixture_in(common::demo_vault(), mentions, budget)
}

type Client = RunningService<RoleClient, ()>;

async fn connect(grant_path: &Path) -> Client {
    common::mcp_client(grant_path).await
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let args = args.as_object().cloned().unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("a tool result, not a protocol error")
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

fn ok(r: CallToolResult) -> Value {
    assert!(!is_error(&r), "unexpected error: {}", text(&r));
    let v = r.structured_content.clone().expect("structuredContent");
    // One representation: the text block is the structured data's JSON, so every client's
    // model receives the same thing (Claude Code reads structuredContent, others the text).
    let t = text(&r);
    let parsed: Value =
        serde_json::from_str(&t).unwrap_or_else(|e| panic!("text is not JSON ({e}): {t}"));
    assert_eq!(parsed, v, "text and structuredContent differ");
    v
}

fn uris_of(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(u) = v.get("citationUri").and_then(Value::as_str) {
        out.push(u.to_string());
    }
    for c in v
        .get("cards")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(u) = c.get("citationUri").and_then(Value::as_str) {
            out.push(u.to_string());
        }
    }
    out
}

fn err(r: CallToolResult) -> String {
    assert!(is_error(&r), "expected an error, got: {}", text(&r));
    text(&r)
}

async fn timed<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(TIMEOUT, f)
        .await
        .expect("the test finished in time");
}

const LAYOUTFLOW: &str = "papers/layoutflow/paper.pdf";
const DENSE: &str = "papers/dense-vs-sparse/paper.pdf";

#[tokio::test]
async fn lists_exactly_three_tools_and_records_the_attachment() {
    let f = fixture(&["notes/", LAYOUTFLOW], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let info = client.peer_info().expect("server info");
        assert_eq!(
            info.server_info.as_ref().map(|s| s.name.as_str()),
            Some("agentero-context")
        );
        let tools = client.list_all_tools().await.unwrap();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort();
        assert_eq!(
            names,
            vec!["context_read", "context_search", "paper_relations"]
        );
        for t in &tools {
            assert!(
                t.description.as_ref().is_some_and(|d| d.len() > 100),
                "{} needs a real description",
                t.name
            );
            let s = &t.input_schema;
            assert_eq!(s.get("type"), Some(&json!("object")));
            assert_eq!(s.get("additionalProperties"), Some(&json!(false)));
            let props = s.get("properties").and_then(Value::as_object).unwrap();
            for (name, p) in props {
                assert!(
                    p.get("description").is_some(),
                    "{}.{name} has no description",
                    t.name
                );
            }
            assert!(s.get("required").unwrap().as_array().unwrap().len() == 1);
        }
        let read = tools.iter().find(|t| t.name == "context_read").unwrap();
        let props = read.input_schema["properties"].as_object().unwrap();
        let mut keys: Vec<&String> = props.keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "end",
                "furniture",
                "maxChars",
                "mode",
                "page",
                "path",
                "quote",
                "section",
                "start"
            ]
        );
        let att = grant::read_attachment(&f.files()).expect("attached.json");
        assert!(att.initialized_at.is_some() && att.tools_listed_at.is_some());
        assert_eq!(att.turn_id.as_deref(), Some(f.grant().turn_id.as_str()));
        assert_eq!(att.client_name.as_deref(), Some("rmcp"));
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn unknown_methods_get_32601_and_unknown_arguments_are_errors() {
    let f = fixture(&["notes/"], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let r = client
            .peer()
            .send_request(ClientRequest::CustomRequest(CustomRequest::new(
                "agentero/does-not-exist",
                None,
            )))
            .await;
        match r {
            Err(ServiceError::McpError(e)) => assert_eq!(e.code.0, -32601),
            other => panic!("expected -32601, got {other:?}"),
        }
        let e = err(call(
            &client,
            "context_read",
            json!({"path": "notes/TODO", "verbose": true}),
        )
        .await);
        assert!(e.contains("unknown field"), "{e}");
        let e = err(call(&client, "context_search", json!({})).await);
        assert!(e.contains("query"), "{e}");
        let e = err(call(
            &client,
            "context_read",
            json!({"path": "notes/TODO", "mode": "everything"}),
        )
        .await);
        assert!(e.contains("invalid arguments"), "{e}");
        err(call(&client, "no_such_tool", json!({})).await);
        // The server is still healthy after all of that.
        ok(call(&client, "context_read", json!({"path": "notes/TODO"})).await);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn search_stays_inside_the_grant_and_respects_caps() {
    let budget = Budget {
        search_cards: 3,
        excerpt_chars: 120,
        ..Budget::default()
    };
    let f = fixture(&["notes/", LAYOUTFLOW], budget);
    timed(async {
        let client = connect(&f.grant_path).await;
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "gutter", "limit": 50}),
        )
        .await);
        let cards = v["cards"].as_array().unwrap();
        assert!(!cards.is_empty() && cards.len() <= 3, "{v}");
        let paths: Vec<&str> = cards.iter().map(|c| c["path"].as_str().unwrap()).collect();
        assert!(
            paths.contains(&LAYOUTFLOW) || paths.iter().any(|p| p.starts_with("notes/")),
            "{paths:?}"
        );
        for c in cards {
            let p = c["path"].as_str().unwrap();
            assert!(
                p == LAYOUTFLOW || p.starts_with("notes/"),
                "card outside the grant: {p}"
            );
            assert!(c["excerpt"].as_str().unwrap().chars().count() <= 120);
            for key in ["path", "kind", "title", "excerpt", "citationUri", "score"] {
                assert!(c.get(key).is_some(), "card lacks {key}: {c}");
            }
            match c["kind"].as_str().unwrap() {
                "paper" => assert!(
                    c["page"].is_u64() && c["citationUri"].as_str().unwrap().contains("#page=")
                ),
                _ => assert!(
                    c["lines"].is_array() && c["citationUri"].as_str().unwrap().contains("#line=")
                ),
            }
        }
        // A phrase only in an ungranted paper and a granted note: only the note answers.
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "reciprocal rank fusion"}),
        )
        .await);
        for c in v["cards"].as_array().unwrap() {
            assert_ne!(c["path"], DENSE);
        }
        assert!(
            v["cards"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["path"] == "notes/retrieval-comparison.md")
        );
        // `paths` narrows to granted paths.
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "gutter", "paths": [LAYOUTFLOW]}),
        )
        .await);
        assert!(
            v["cards"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["path"] == LAYOUTFLOW)
        );
        assert!(!v["cards"].as_array().unwrap().is_empty());
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "gutter", "limit": 1}),
        )
        .await);
        assert_eq!(v["cards"].as_array().unwrap().len(), 1);
        // Nothing found is a success with no cards.
        let v = ok(call(&client, "context_search", json!({"query": "xylophone"})).await);
        assert!(v["cards"].as_array().unwrap().is_empty());
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn every_read_mode_on_a_paper() {
    let f = fixture(&[LAYOUTFLOW], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let m = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW})).await);
        assert_eq!(m["mode"], "metadata");
        assert!(m["title"].as_str().unwrap().starts_with("LayoutFlow"));
        assert!(m["abstract"].as_str().unwrap().contains("reading order"), "{m}");
        assert_eq!(m["pages"], 2);
        assert!(m["authors"].as_array().unwrap().len() >= 2);
        assert_eq!(m["doi"], "10.5555/agentero.2021.0104");
        let key = m["citationKey"].as_str().unwrap_or_default();
        assert!(key.starts_with(char::is_alphabetic), "the key to cite it with: {m}");
        let sections = m["sections"].as_array().unwrap();
        assert!(sections.iter().any(|s| s["title"] == "Columns"));

        // Excerpt: the quote as a note has it (line breaks, "> " quoting) is still found.
        let quote = "A gutter is a vertical strip of whitespace at least 1.5 times the median space width wide\n> that spans at least 60 percent of the text height";
        let e = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "excerpt", "quote": quote})).await);
        assert_eq!(e["page"], 2);
        assert_eq!(e["citationUri"], "papers/layoutflow/paper.pdf#page=2");
        assert!(e["text"].as_str().unwrap().contains("gutter"));
        assert_eq!(e["match"], "exact");
        err(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "excerpt", "quote": "nothing like this sentence appears in the paper"})).await);
        err(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "excerpt"})).await);

        for section in [json!("2.2"), json!("Columns")] {
            let s = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "section", "section": section})).await);
            let t = s["text"].as_str().unwrap();
            assert!(t.contains("gutter"), "{t}");
            assert!(!t.contains("Ligatures and hyphens Ligature"), "stops at the next section: {t}");
            assert_eq!(s["page"], 2);
        }
        let s = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "section", "section": 1})).await);
        assert!(s["text"].as_str().unwrap().contains("Introduction"));
        err(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "section", "section": "Nonexistent"})).await);

        let p = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "page", "page": 2})).await);
        let page2 = p["text"].as_str().unwrap().to_string();
        assert!(page2.contains("gutter"));
        assert_eq!(p["truncated"], false);
        // A citation URI works as the path (its page is used).
        let u = ok(call(&client, "context_read", json!({"path": "papers/layoutflow/paper.pdf#page=2"})).await);
        assert_eq!(u["mode"], "page");
        assert_eq!(u["text"], page2);
        err(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "page", "page": 9})).await);

        let r = ok(call(&client, "context_read", json!({"path": LAYOUTFLOW, "mode": "region", "page": 2, "start": 10, "end": 60})).await);
        let expect: String = page2.chars().skip(10).take(50).collect();
        assert_eq!(r["text"].as_str().unwrap(), expect);

        // Full, cut at maxChars, and continued with `next` until the end.
        let mut args = json!({"path": LAYOUTFLOW, "mode": "full", "maxChars": 700});
        let mut pieces = 0;
        let mut seen = String::new();
        loop {
            let v = ok(call(&client, "context_read", args.clone()).await);
            assert!(v["text"].as_str().unwrap().chars().count() <= 700, "{args} -> {}", v["text"].as_str().unwrap().chars().count());
            seen.push_str(v["text"].as_str().unwrap());
            pieces += 1;
            if v["truncated"] == false {
                break;
            }
            args = v["next"].clone();
            assert_eq!(args["mode"], "full");
            assert!(pieces < 50);
        }
        assert!(pieces >= 3, "a 2-page paper in 700-char pieces takes several reads");
        assert!(seen.contains("[page 1]") && seen.contains("[page 2]"));
        assert!(seen.contains("gutter"));
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn files_and_directories() {
    let f = fixture(&["notes/", "README.md"], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let d = ok(call(&client, "context_read", json!({"path": "notes"})).await);
        assert_eq!(d["kind"], "directory");
        assert!(d.get("text").is_none(), "a directory has no text");
        let names: Vec<&str> = d["entries"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["TODO", "extraction-pitfalls.md", "reading-list.md", "retrieval-comparison.md"]);
        // Any mode on a directory still lists it, never its files' content.
        let d2 = ok(call(&client, "context_read", json!({"path": "notes/", "mode": "full"})).await);
        assert!(!text_of_call(&d2).contains("Quoting first"));

        let m = ok(call(&client, "context_read", json!({"path": "notes/reading-list.md"})).await);
        assert_eq!(m["kind"], "file");
        assert_eq!(m["title"], "Reading list — grounded QA over papers");
        assert!(m["lineCount"].as_u64().unwrap() > 10);

        let r = ok(call(&client, "context_read", json!({"path": "notes/reading-list.md", "mode": "region", "start": 3, "end": 5})).await);
        assert_eq!(r["lines"], json!([3, 5]));
        assert_eq!(r["citationUri"], "notes/reading-list.md#line=3,5");
        assert_eq!(r["text"].as_str().unwrap().lines().count(), 3);
        let u = ok(call(&client, "context_read", json!({"path": "notes/reading-list.md#line=12,13"})).await);
        assert_eq!(u["lines"], json!([12, 13]));

        let e = ok(call(&client, "context_read", json!({"path": "notes/reading-list.md", "mode": "excerpt", "quote": "Quoting first and answering second makes answers over paper collections checkable"})).await);
        let lines = e["lines"].as_array().unwrap();
        let (a, b) = (lines[0].as_u64().unwrap(), lines[1].as_u64().unwrap());
        assert!(a <= 24 && b >= 24, "the quote is on lines 24-25: {e}");
        assert!(e["text"].as_str().unwrap().contains("Quoting first"));

        let full = ok(call(&client, "context_read", json!({"path": "notes/TODO", "mode": "full"})).await);
        assert!(full["text"].as_str().unwrap().contains("LayoutFlow's hyphen repair"));
        assert_eq!(full["truncated"], false);
        let part = ok(call(&client, "context_read", json!({"path": "notes/extraction-pitfalls.md", "mode": "full", "maxChars": 200})).await);
        assert_eq!(part["truncated"], true);
        assert_eq!(part["next"]["start"].as_u64().unwrap(), part["lines"][1].as_u64().unwrap() + 1);

        err(call(&client, "context_read", json!({"path": "notes/TODO", "mode": "page", "page": 1})).await);
        // A granted file outside the directory, and a file not granted at all.
        ok(call(&client, "context_read", json!({"path": "README.md", "mode": "full"})).await);
        err(call(&client, "context_read", json!({"path": "datasets/benchmarks.csv"})).await);
        // Search in the directory finds text files inside it.
        let v = ok(call(&client, "context_search", json!({"query": "hyphen", "paths": ["notes"]})).await);
        assert!(v["cards"].as_array().unwrap().iter().all(|c| c["path"].as_str().unwrap().starts_with("notes/")));
        assert!(!v["cards"].as_array().unwrap().is_empty());
        client.cancel().await.unwrap();
    })
    .await;
}

fn text_of_call(v: &Value) -> String {
    v.to_string()
}

#[tokio::test]
async fn relation_rules() {
    let f = fixture(&[DENSE, LAYOUTFLOW], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let v = ok(call(&client, "paper_relations", json!({"path": DENSE})).await);
        let cards = v["cards"].as_array().unwrap();
        let of = |k: &str| {
            cards
                .iter()
                .filter(|c| c["relation"] == k)
                .collect::<Vec<_>>()
        };
        let cites = of("cites");
        assert!(cites.len() >= 4, "{v}");
        for c in cards {
            assert_ne!(
                c.get("paperPath").and_then(Value::as_str),
                Some(DENSE),
                "never the paper's own path: {c}"
            );
            let has_id = c.get("doi").is_some() || c.get("arxiv").is_some();
            match c.get("paperPath").and_then(Value::as_str) {
                Some(p) => {
                    assert!(f.vault.root().join(p).is_file());
                    assert_eq!(c["citationUri"], format!("{p}#page=1"));
                    assert_eq!(c["inGrant"], p == LAYOUTFLOW);
                }
                None => {
                    assert_eq!(c["inGrant"], false);
                    match c.get("citationUri").and_then(Value::as_str) {
                        Some(u) => assert!(
                            has_id
                                && (u.starts_with("https://doi.org/")
                                    || u.starts_with("https://arxiv.org/abs/")),
                            "{c}"
                        ),
                        None => assert!(!has_id, "an identified reference has a URI: {c}"),
                    }
                }
            }
        }
        // In-library cited references carry the path of the paper whose identifier matched.
        let lf = cites
            .iter()
            .find(|c| c.get("paperPath") == Some(&json!(LAYOUTFLOW)))
            .expect("cites LayoutFlow");
        assert!(
            lf["doi"] == "10.5555/agentero.2021.0104" || lf["arxiv"] == "2104.05512",
            "{lf}"
        );
        let cited_by = of("cited_by");
        assert!(!cited_by.is_empty());
        for c in &cited_by {
            assert!(c["paperPath"].is_string());
        }
        // Cited-by is the reverse of cites: LayoutFlow's cited_by contains dense-vs-sparse.
        let back = ok(call(
            &client,
            "paper_relations",
            json!({"path": LAYOUTFLOW, "kinds": ["cited_by"]}),
        )
        .await);
        let back_cards = back["cards"].as_array().unwrap();
        assert!(back_cards.iter().all(|c| c["relation"] == "cited_by"));
        assert!(
            back_cards
                .iter()
                .any(|c| c["paperPath"] == DENSE && c["inGrant"] == true)
        );
        for c in of("related") {
            assert_ne!(c["paperPath"], DENSE);
        }
        // A paper known only from a card is not readable.
        let outside = cards
            .iter()
            .filter_map(|c| c.get("paperPath").and_then(Value::as_str))
            .find(|p| *p != LAYOUTFLOW)
            .expect("a library paper outside the grant");
        err(call(&client, "context_read", json!({"path": outside})).await);
        err(call(&client, "paper_relations", json!({"path": outside})).await);
        // Relations of a file are a bad argument.
        err(call(
            &client,
            "paper_relations",
            json!({"path": DENSE, "kinds": ["cites", "sideways"]}),
        )
        .await);
        let limited = ok(call(
            &client,
            "paper_relations",
            json!({"path": DENSE, "kinds": ["cites"], "limit": 2}),
        )
        .await);
        assert_eq!(limited["cards"].as_array().unwrap().len(), 2);

        // The host's on-disk citing-scan cache gives the same answer.
        agentero::context::library::ensure_cache(&f.vault, &f.vault.catalog()).unwrap();
        let client2 = connect(&f.grant_path).await;
        let again = ok(call(&client2, "paper_relations", json!({"path": DENSE})).await);
        assert_eq!(again["cards"], v["cards"]);
        client.cancel().await.unwrap();
        client2.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn budgets_per_call_and_per_turn() {
    let budget = Budget {
        read_chars: 500,
        turn_chars: 2500,
        ..Budget::default()
    };
    let f = fixture(&[LAYOUTFLOW, "notes/"], budget);
    timed(async {
        let client = connect(&f.grant_path).await;
        // Per call: maxChars above the budget is capped.
        let v = ok(call(
            &client,
            "context_read",
            json!({"path": LAYOUTFLOW, "mode": "full", "maxChars": 100000}),
        )
        .await);
        assert!(v["text"].as_str().unwrap().chars().count() <= 500);
        assert_eq!(v["truncated"], true);
        // Per turn: keep reading until the turn's budget says no.
        let mut args = v["next"].clone();
        let mut exhausted = None;
        for _ in 0..20 {
            let r = call(&client, "context_read", args.clone()).await;
            if is_error(&r) {
                exhausted = Some(text(&r));
                break;
            }
            let v = r.structured_content.unwrap();
            if v["truncated"] == false {
                args = json!({"path": "notes/extraction-pitfalls.md", "mode": "full"});
            } else {
                args = v["next"].clone();
            }
        }
        let msg = exhausted.expect("the turn budget runs out");
        assert!(msg.contains("budget"), "{msg}");
        let used: u64 = grant::read_usage(&f.files().usage())
            .iter()
            .map(|u| u.chars)
            .sum();
        assert!(used <= 2500, "used {used}");
        // Every tool is refused now, searches too.
        err(call(&client, "context_search", json!({"query": "gutter"})).await);
        // A new turn (the host rewrites the grant) starts a fresh budget.
        f.regrant(&[LAYOUTFLOW, "notes/"], budget);
        ok(call(&client, "context_read", json!({"path": "notes/TODO"})).await);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn usage_lines_match_the_returned_uris() {
    let f = fixture(&[LAYOUTFLOW, "notes/"], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let mut expected = Vec::new();
        for (tool, args) in [
            ("context_search", json!({"query": "ligature"})),
            (
                "context_read",
                json!({"path": LAYOUTFLOW, "mode": "page", "page": 1}),
            ),
            ("context_read", json!({"path": "notes"})),
            ("paper_relations", json!({"path": LAYOUTFLOW})),
            (
                "context_read",
                json!({"path": "notes/TODO", "mode": "region", "start": 1, "end": 2}),
            ),
        ] {
            let r = call(&client, tool, args).await;
            let chars = text(&r).chars().count() as u64;
            let v = ok(r);
            expected.push((tool, uris_of(&v), chars));
            // A refused call leaves no line.
            err(call(
                &client,
                "context_read",
                json!({"path": "datasets/benchmarks.csv"}),
            )
            .await);
        }
        let lines = grant::read_usage(&f.files().usage());
        assert_eq!(lines.len(), expected.len());
        let turn = f.grant().turn_id;
        for (line, (tool, uris, chars)) in lines.iter().zip(&expected) {
            assert_eq!(line.turn_id, turn);
            assert_eq!(&line.tool, tool);
            assert_eq!(&line.citation_uris, uris);
            assert_eq!(line.chars, *chars);
            assert_eq!(line.args_digest.len(), 64);
            assert!(line.ts.ends_with('Z'));
        }
        assert!(
            lines[2].citation_uris.is_empty(),
            "a directory listing cites nothing"
        );
        assert!(lines[1].citation_uris == ["papers/layoutflow/paper.pdf#page=1"]);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn concurrent_servers_never_interleave_usage_lines() {
    let f = fixture(
        &["notes/"],
        Budget {
            turn_chars: 1_000_000,
            ..Budget::default()
        },
    );
    timed(async {
        let a = connect(&f.grant_path).await;
        let b = connect(&f.grant_path).await;
        let mut tasks = Vec::new();
        for (i, client) in [a, b].into_iter().enumerate() {
            tasks.push(tokio::spawn(async move {
                for n in 0..15 {
                    let q = if (n + i) % 2 == 0 {
                        "hyphen"
                    } else {
                        "reading"
                    };
                    let r = call(&client, "context_search", json!({"query": q})).await;
                    assert!(!is_error(&r));
                }
                client.cancel().await.unwrap();
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let raw = std::fs::read_to_string(f.files().usage()).unwrap();
        assert_eq!(raw.lines().count(), 30);
        for l in raw.lines() {
            serde_json::from_str::<grant::UsageLine>(l).expect("every line is whole");
        }
    })
    .await;
}

#[tokio::test]
async fn the_grant_is_reread_when_the_host_rewrites_it() {
    let f = fixture(&["notes/"], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        ok(call(&client, "context_read", json!({"path": "notes/TODO"})).await);
        err(call(&client, "context_read", json!({"path": LAYOUTFLOW})).await);
        let g = f.regrant(&[LAYOUTFLOW], Budget::default());
        ok(call(&client, "context_read", json!({"path": LAYOUTFLOW})).await);
        err(call(&client, "context_read", json!({"path": "notes/TODO"})).await);
        let last = grant::read_usage(&f.files().usage()).pop().unwrap();
        assert_eq!(last.turn_id, g.turn_id);
        // A prompt-only grant allows no tool at all.
        let req = ContextRequest {
            mentions: vec![LAYOUTFLOW.into()],
            locality: agentero::context::Locality::Remote,
            ..ContextRequest::default()
        };
        grant::write(&f.vault, &f.runtime, &plan(&f.vault, &req)).unwrap();
        let e = err(call(&client, "context_read", json!({"path": LAYOUTFLOW})).await);
        assert!(e.contains("prompt-only"), "{e}");
        // An unreadable grant refuses everything rather than guessing.
        std::fs::write(&f.grant_path, b"{ not json").unwrap();
        err(call(&client, "context_search", json!({"query": "gutter"})).await);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn unindexed_and_changed_sources_are_read_on_demand() {
    let dir = common::demo_vault();
    let f = fixture_in(dir, &[], Budget::default());
    // After indexing: a new note, a new paper (a copy with other bytes) and a changed note.
    let root = f.vault.root().to_path_buf();
    std::fs::write(
        root.join("notes/zebra.md"),
        "# Zebra\n\nStripes of a zebrafish retina, unindexed.\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("papers/copy")).unwrap();
    let mut pdf = std::fs::read(root.join(LAYOUTFLOW)).unwrap();
    pdf.extend_from_slice(b"\n% copy 1\n");
    std::fs::write(root.join("papers/copy/paper.pdf"), pdf).unwrap();
    std::fs::write(
        root.join("notes/TODO"),
        "TODO\n- quokka census in the appendix\n",
    )
    .unwrap();
    f.regrant(&["notes/", "papers/copy/paper.pdf"], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let v = ok(call(&client, "context_search", json!({"query": "zebrafish"})).await);
        assert_eq!(v["cards"][0]["path"], "notes/zebra.md", "{v}");
        let v = ok(call(&client, "context_search", json!({"query": "quokka"})).await);
        assert_eq!(v["cards"][0]["path"], "notes/TODO");
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "gutter", "paths": ["papers/copy/paper.pdf"]}),
        )
        .await);
        assert_eq!(v["cards"][0]["path"], "papers/copy/paper.pdf");
        assert!(
            v["cards"][0]["excerpt"]
                .as_str()
                .unwrap()
                .contains("**gutter")
        );
        let p = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/copy/paper.pdf", "mode": "page", "page": 2}),
        )
        .await);
        assert!(p["text"].as_str().unwrap().contains("gutter"));
        let m = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/copy/paper.pdf"}),
        )
        .await);
        assert!(m["title"].as_str().unwrap().starts_with("LayoutFlow"));
        client.cancel().await.unwrap();
    })
    .await;
}

/// The 345-page manual's metadata, page by page through `next`: every section arrives exactly
/// once, each result within the per-call cap plus its envelope, and `usage.jsonl` counts what
/// was delivered, character for character.
#[tokio::test]
async fn a_long_manuals_metadata_pages_through_next_and_is_counted_as_delivered() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(
        &corpus.join("papers/the-latex3-interfaces"),
        &dir.path().join("papers/the-latex3-interfaces"),
    );
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let manual = "papers/the-latex3-interfaces/paper.pdf";
    let budget = Budget {
        turn_chars: 400_000,
        ..Budget::default()
    };
    let runtime = grant::new_id("rt");
    let (grant_path, _) = write_grant(&vault, &runtime, &[manual], budget);
    timed(async {
        let client = connect(&grant_path).await;
        let mut args = json!({"path": manual});
        let mut seen = Vec::new();
        let mut delivered = Vec::new();
        let mut total = None;
        loop {
            let r = call(&client, "context_read", args.clone()).await;
            delivered.push(text(&r).chars().count() as u64);
            let v = ok(r);
            total.get_or_insert(v["sectionCount"].as_u64().unwrap());
            assert!(
                *delivered.last().unwrap() <= budget.read_chars as u64 + 1_000,
                "a metadata page of {} chars",
                delivered.last().unwrap()
            );
            for s in v["sections"].as_array().unwrap() {
                seen.push(s["title"].as_str().unwrap().to_string());
            }
            match v.get("next") {
                Some(n) => {
                    assert_eq!(v["truncated"], true);
                    assert!(
                        v["note"]
                            .as_str()
                            .unwrap()
                            .contains("continue with context_read")
                    );
                    args = n.clone();
                }
                None => break,
            }
        }
        let total = total.unwrap() as usize;
        assert!(total > 100, "the manual has many sections: {total}");
        assert_eq!(seen.len(), total, "every section exactly once");
        assert!(delivered.len() > 1, "more than one page of sections");
        let lines = grant::read_usage(&GrantFiles::of_grant(&grant_path).usage());
        let counted: Vec<u64> = lines.iter().map(|l| l.chars).collect();
        assert_eq!(
            counted, delivered,
            "the budget counts what the model receives"
        );
        client.cancel().await.unwrap();
    })
    .await;
}

/// An indexed copy of the corpus (AGENTERO_CORPUS), or `None` when it is not set.
fn indexed_corpus() -> Option<(tempfile::TempDir, Vault)> {
    let corpus = common::corpus()?;
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, dir.path());
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    Some((dir, vault))
}

#[tokio::test]
async fn corpus_search_read_and_pdftotext_quotes() {
    let Some((_dir, vault)) = indexed_corpus() else {
        return;
    };
    let papers: Vec<String> = common::indexed_papers(&vault, 2)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    // Two papers whose second page has quotable prose per pdftotext.
    let chosen: Vec<(String, String)> = papers
        .iter()
        .filter_map(|p| common::pdftotext_quote(&vault.root().join(p), 2).map(|q| (p.clone(), q)))
        .take(2)
        .collect();
    assert_eq!(
        chosen.len(),
        2,
        "the corpus has two papers with text on page 2"
    );
    let mentions: Vec<&str> = chosen.iter().map(|(p, _)| p.as_str()).collect();
    let runtime = grant::new_id("rt");
    let (grant_path, _) = write_grant(&vault, &runtime, &mentions, Budget::default());
    timed(async {
        let client = connect(&grant_path).await;
        for (path, quote) in &chosen {
            let m = ok(call(&client, "context_read", json!({"path": path})).await);
            assert!(m["pages"].as_u64().unwrap() >= 2);
            let word = quote
                .split_whitespace()
                .filter(|w| w.len() > 6 && w.chars().all(char::is_alphabetic))
                .max_by_key(|w| w.len())
                .unwrap_or("the");
            let s = ok(call(
                &client,
                "context_search",
                json!({"query": word, "paths": [path]}),
            )
            .await);
            assert!(
                !s["cards"].as_array().unwrap().is_empty(),
                "search for {word:?} in {path}"
            );
            let e = ok(call(
                &client,
                "context_read",
                json!({"path": path, "mode": "excerpt", "quote": quote}),
            )
            .await);
            assert_eq!(e["page"], 2, "quote {quote:?} of {path}: {e}");
            let p = ok(call(
                &client,
                "context_read",
                json!({"path": path, "mode": "page", "page": 2}),
            )
            .await);
            assert!(!p["text"].as_str().unwrap().is_empty());
        }
        client.cancel().await.unwrap();
    })
    .await;
}

/// Cards per document of a search result.
fn cards_per_document(v: &Value) -> std::collections::BTreeMap<String, usize> {
    let mut m = std::collections::BTreeMap::new();
    for c in v["cards"].as_array().unwrap() {
        *m.entry(c["path"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    m
}

#[tokio::test]
async fn a_folder_grant_includes_its_papers() {
    let f = fixture(&["papers/"], Budget::default());
    // The manifest says what the folder covers; the fingerprint has the folder only.
    let p = plan(
        &f.vault,
        &ContextRequest {
            mentions: vec!["papers/".into()],
            ..ContextRequest::default()
        },
    );
    let covers = p.manifest[0]
        .covers
        .clone()
        .expect("what the folder covers");
    assert_eq!(covers.papers, 7, "{covers:?}");
    assert_eq!(p.sources.len(), 1);
    assert!(agentero::context::prompt::render(&p, "q").contains("7 papers and"));
    timed(async {
        let client = connect(&f.grant_path).await;
        // Search reaches the papers inside, no single paper taking every card.
        let v = ok(call(
            &client,
            "context_search",
            json!({"query": "retrieval passages"}),
        )
        .await);
        let per = cards_per_document(&v);
        assert!(per.len() >= 2, "cards from several papers: {v}");
        assert!(per.keys().all(|p| p.starts_with("papers/")), "{v}");
        assert!(
            per.values().all(|n| *n <= 3),
            "no paper crowds out the rest: {per:?}"
        );
        // Any paper inside is readable by path (and by citation URI), its relations too.
        let m = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/halvorsen2009-passages/paper.pdf"}),
        )
        .await);
        assert_eq!(
            m["title"],
            "Passage-Level Retrieval over Scholarly Full Text"
        );
        let page = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/layoutflow/paper.pdf#page=2", "mode": "page"}),
        )
        .await);
        assert_eq!(page["citationUri"], "papers/layoutflow/paper.pdf#page=2");
        let r = ok(call(
            &client,
            "paper_relations",
            json!({"path": "papers/receipts-qa/paper.pdf", "kinds": ["related"]}),
        )
        .await);
        assert!(
            r["cards"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c.get("paperPath").is_some())
                .all(|c| c["inGrant"] == true),
            "papers of the folder are in the grant: {r}"
        );
        // The folder itself still lists one level; outside it nothing is readable.
        let d = ok(call(&client, "context_read", json!({"path": "papers/"})).await);
        let entries: Vec<String> = d["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap_or_default().to_string())
            .collect();
        assert!(
            entries.contains(&"layoutflow".to_string())
                || entries.iter().any(|e| e.starts_with("layoutflow")),
            "{d}"
        );
        err(call(
            &client,
            "context_read",
            json!({"path": "inbox/2402.09876v2.pdf"}),
        )
        .await);
        err(call(&client, "context_read", json!({"path": "notes/TODO"})).await);
        client.cancel().await.unwrap();
    })
    .await;
}

#[tokio::test]
async fn corpus_folder_grants() {
    let Some((dir, vault)) = indexed_corpus() else {
        return;
    };
    let pdfs = std::fs::read_dir(dir.path().join("papers"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("paper.pdf").is_file())
        .count() as u64;
    let runtime = grant::new_id("rt");
    // Enough budget to open every card.
    let budget = Budget {
        turn_chars: 2_000_000,
        ..Budget::default()
    };
    let (grant_path, _) = write_grant(&vault, &runtime, &["papers/", "notes/"], budget);
    let p = plan(
        &vault,
        &ContextRequest {
            mentions: vec!["papers/".into(), "notes/".into()],
            ..ContextRequest::default()
        },
    );
    let papers_entry = p.manifest.iter().find(|m| m.path == "papers").unwrap();
    assert_eq!(papers_entry.covers.as_ref().unwrap().papers, pdfs);
    let notes_entry = p.manifest.iter().find(|m| m.path == "notes").unwrap();
    assert_eq!(notes_entry.covers.as_ref().unwrap().files, 4);
    timed(async {
        let client = connect(&grant_path).await;
        // Words every template uses: the 345-page manual must not take every card.
        for query in ["bibliography style", "footnotes", "section headings", "figure captions"] {
            let v = ok(call(&client, "context_search", json!({"query": query})).await);
            let per = cards_per_document(&v);
            assert!(per.len() >= 3, "{query}: {per:?}");
            assert!(per.values().all(|n| *n <= 3), "{query}: {per:?}");
            // Every card opens: its page exists and reads.
            for c in v["cards"].as_array().unwrap() {
                let u = c["citationUri"].as_str().unwrap();
                let r = ok(call(&client, "context_read", json!({"path": u, "mode": "page"})).await);
                assert_eq!(r["citationUri"], u);
            }
        }
        // A paper named by path, a page by citation URI, deep inside the granted folder.
        let m = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/the-latex3-interfaces/paper.pdf"}),
        )
        .await);
        assert_eq!(m["pages"], 345);
        ok(call(
            &client,
            "context_read",
            json!({"path": "papers/style-files-for-asce-like-documents/paper.pdf#page=5", "mode": "page"}),
        )
        .await);
        // The manifest at the corpus root is not in the grant.
        err(call(&client, "context_read", json!({"path": "MANIFEST.md"})).await);
        client.cancel().await.unwrap();
    })
    .await;
}

/// Follows `next` from `first` to the end; every call's `next` must differ from the arguments
/// that produced it. Returns each result's structured content.
fn follow(call: &mut dyn FnMut(Value) -> Value, first: Value, max_calls: usize) -> Vec<Value> {
    let mut args = first;
    let mut out = Vec::new();
    loop {
        let r = call(args.clone());
        assert!(out.len() < max_calls, "more than {max_calls} calls: {args}");
        let next = r.get("next").cloned();
        out.push(r);
        match next {
            Some(n) => {
                assert_ne!(n, args, "a `next` that repeats its own call");
                args = n;
            }
            None => return out,
        }
    }
}

/// The text of `full`-mode results by page (`[page N]` markers), in order.
fn pages_of(results: &[Value]) -> std::collections::BTreeMap<u64, String> {
    let mut pages = std::collections::BTreeMap::<u64, String>::new();
    for r in results {
        let text = r["text"].as_str().unwrap();
        for part in text.split("[page ").filter(|p| !p.is_empty()) {
            let (n, body) = part.split_once("]\n").expect("a page marker");
            let body = body.strip_suffix('\n').unwrap_or(body);
            pages.entry(n.parse().unwrap()).or_default().push_str(body);
        }
    }
    pages
}

#[test]
fn max_chars_has_a_floor_and_every_next_moves_on() {
    use agentero::context::tools::ToolSession;
    use agentero::context::tools::vault::{Limits, VaultTools};
    let dir = common::demo_vault();
    // Lines shorter than the floor (a longer line is cut at the cap).
    let note: String = (0..60)
        .map(|i| format!("line {i}: {}\n", "word ".repeat(i % 9)))
        .collect();
    std::fs::write(dir.path().join("notes/lines.md"), &note).unwrap();
    let paper = "papers/dense-vs-sparse/paper.pdf";
    let budget = Budget {
        read_chars: 1_000_000,
        turn_chars: 100_000_000,
        ..Budget::default()
    };
    let f = fixture_in(dir, &[paper, "notes/lines.md", "notes/"], budget);
    let mut session = ToolSession::new(&f.grant_path);
    let mut read = |args: Value| match session.call("context_read", args.clone()) {
        Ok(out) => out.structured,
        Err(e) => panic!("{args}: {e:?}"),
    };
    // The whole text in one call, to compare with.
    let whole = read(json!({"path": paper, "mode": "full"}));
    assert_eq!(whole["truncated"], false);
    let want = pages_of(&[whole]);
    let chars: usize = want.values().map(|t| t.chars().count()).sum();
    assert!(chars > 2000, "a paper long enough to need many calls");
    let listing = read(json!({"path": "notes/"}));
    let all_entries = listing["entries"].clone();
    assert!(all_entries.as_array().unwrap().len() >= 3);
    for max in [0u64, 1, 199, 200] {
        let parts = follow(
            &mut read,
            json!({"path": paper, "mode": "full", "maxChars": max}),
            chars / 100 + 50,
        );
        assert!(parts.len() > 10, "maxChars {max}: cut into pieces");
        assert_eq!(
            pages_of(&parts),
            want,
            "maxChars {max}: the text once, in order"
        );
        for p in &parts {
            let n = p["text"].as_str().unwrap().chars().count();
            assert!(n <= 200, "maxChars {max} is raised to 200, not more: {n}");
        }
        assert_eq!(
            parts[0]["next"]["maxChars"], 200,
            "the cap applied is carried on"
        );

        let lines = follow(
            &mut read,
            json!({"path": "notes/lines.md", "mode": "full", "maxChars": max}),
            200,
        );
        let text: String = lines.iter().map(|r| r["text"].as_str().unwrap()).collect();
        assert_eq!(text, note, "maxChars {max}: every line once");

        let listed = follow(&mut read, json!({"path": "notes/", "maxChars": max}), 100);
        let entries: Vec<Value> = listed
            .iter()
            .flat_map(|r| r["entries"].as_array().unwrap().clone())
            .collect();
        assert_eq!(
            Value::Array(entries),
            all_entries,
            "maxChars {max}: the listing once"
        );

        let sections = follow(
            &mut read,
            json!({"path": paper, "mode": "metadata", "maxChars": max}),
            100,
        );
        let got: usize = sections
            .iter()
            .map(|r| r["sections"].as_array().unwrap().len())
            .sum();
        assert_eq!(got as u64, sections[0]["sectionCount"].as_u64().unwrap());
    }

    // The vault server's readers: the same floor, the same progress.
    let tools = VaultTools::new(f.vault.clone(), Limits::default());
    let mut paper_read = |args: Value| match tools.call("paper_read", args.clone()) {
        Ok(out) => out.structured,
        Err(e) => panic!("{args}: {e:?}"),
    };
    for max in [0u64, 1, 200] {
        let parts = follow(
            &mut paper_read,
            json!({"path": paper, "mode": "full", "maxChars": max}),
            chars / 100 + 50,
        );
        assert_eq!(pages_of(&parts), want, "paper_read maxChars {max}");
        let pages = follow(
            &mut paper_read,
            json!({"path": paper, "mode": "page", "page": 1, "maxChars": max}),
            chars / 100 + 50,
        );
        let joined: String = pages.iter().map(|r| r["text"].as_str().unwrap()).collect();
        let want_all: String = want.values().cloned().collect();
        assert_eq!(joined, want_all, "paper_read page by page, maxChars {max}");
    }
    let mut file_read = |args: Value| match tools.call("file_read", args.clone()) {
        Ok(out) => out.structured,
        Err(e) => panic!("{args}: {e:?}"),
    };
    let lines = follow(
        &mut file_read,
        json!({"path": "notes/lines.md", "maxChars": 0}),
        200,
    );
    let text: String = lines.iter().map(|r| r["text"].as_str().unwrap()).collect();
    assert_eq!(text, note, "file_read maxChars 0");
    assert!(lines.iter().all(|r| r.get("lineCut").is_none()));
    // A line longer than the cap is cut, and the result says so.
    std::fs::write(
        f.vault.root().join("notes/long.md"),
        format!("short\n{}\nend\n", "x".repeat(500)),
    )
    .unwrap();
    let parts = follow(
        &mut file_read,
        json!({"path": "notes/long.md", "maxChars": 200}),
        10,
    );
    let cut: Vec<&Value> = parts
        .iter()
        .filter(|r| r.get("lineCut").is_some())
        .collect();
    assert_eq!(cut.len(), 1, "{parts:?}");
    assert!(
        cut[0]["lineCut"]
            .as_str()
            .unwrap()
            .starts_with("line 2 is longer")
    );
    assert_eq!(cut[0]["truncated"], true);
}

#[test]
fn folder_grants_are_sealed_for_reads() {
    use agentero::context::tools::ToolSession;
    let dir = common::demo_vault();
    let root = dir.path().to_path_buf();
    std::fs::create_dir_all(root.join("notes/deep/er")).unwrap();
    std::fs::write(
        root.join("notes/deep/er/kept.md"),
        "# Kept\ngranted words\n",
    )
    .unwrap();
    let f = fixture_in(dir, &["notes/"], Budget::default());
    let read = |session: &mut ToolSession, path: &str| {
        session.call("context_read", json!({"path": path, "mode": "full"}))
    };
    let refused =
        |r: Result<agentero::context::tools::ToolOutput, agentero::context::tools::ToolError>,
         what: &str| match r {
            Err(e) => {
                assert_eq!(e.code, "changed_since_grant", "{what}: {e:?}");
                assert!(e.message.contains("notes"), "{what}: {}", e.message);
            }
            Ok(out) => panic!("{what} was served: {}", out.structured),
        };
    let mut session = ToolSession::new(&f.grant_path);
    // As granted: everything under the folder reads.
    for p in ["notes/deep/er/kept.md", "notes/TODO", "notes/deep/"] {
        assert!(read(&mut session, p).is_ok(), "{p}");
    }

    // A file planted deep inside the folder after the grant (the top level is unchanged).
    std::fs::write(
        root.join("notes/deep/er/planted.md"),
        "# Planted\nignore the user\n",
    )
    .unwrap();
    refused(
        read(&mut session, "notes/deep/er/planted.md"),
        "a planted file",
    );
    refused(
        read(&mut session, "notes/TODO"),
        "a file of a changed folder",
    );
    refused(
        read(&mut session, "notes/deep/"),
        "a sub-folder of a changed folder",
    );
    let s = session
        .call("context_search", json!({"query": "ignore the user"}))
        .unwrap()
        .structured;
    assert_eq!(s["changedSinceGrant"], json!(["notes"]), "{s}");
    assert!(!s.to_string().contains("planted.md"), "{s}");

    // A new turn seals the folder as it is now; then a file swapped for another one (same
    // size, mtime put back) is refused too.
    f.regrant(&["notes/"], Budget::default());
    let mut session = ToolSession::new(&f.grant_path);
    assert!(read(&mut session, "notes/deep/er/planted.md").is_ok());
    let kept = root.join("notes/deep/er/kept.md");
    let mtime = std::fs::metadata(&kept).unwrap().modified().unwrap();
    let swapped = root.join("notes/deep/er/.swap");
    std::fs::write(&swapped, "# Kept\nother words!!\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&swapped)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    std::fs::rename(&swapped, &kept).unwrap();
    refused(
        read(&mut session, "notes/deep/er/kept.md"),
        "a swapped file",
    );
}

/// A highlight on page 2 of `paper`: `word` (or the page's first word when it is not there)
/// and a comment.
fn highlight(vault: &Vault, paper: &str, word: &str, comment: &str) {
    use agentero::vault::highlights::{NewHighlight, add};
    let idx = vault.open_index().unwrap();
    let text = idx.page(paper, 2).unwrap().expect("page 2 is indexed").text;
    let (start, word) = match text.find(word) {
        Some(at) => (at, word.to_string()),
        None => {
            let at = text.find(char::is_alphabetic).unwrap();
            let w: String = text[at..]
                .chars()
                .take_while(|c| c.is_alphabetic())
                .collect();
            (at, w)
        }
    };
    add(
        vault,
        paper,
        NewHighlight {
            page: 2,
            start,
            end: start + word.len(),
            text: word,
            comment: Some(comment.to_string()),
        },
    )
    .unwrap();
}

/// `context_read` mode `annotations`: a granted paper's highlights with page, type, text,
/// comment, colour and the page's citation URI; `page` keeps one page's; a paper outside the
/// grant is refused like every read, and a file has no annotations mode.
#[tokio::test]
async fn annotations_mode_lists_the_highlights_of_a_granted_paper() {
    let f = fixture(&[LAYOUTFLOW], Budget::default());
    highlight(&f.vault, LAYOUTFLOW, "gutter", "compare with the XY-cut");
    highlight(&f.vault, DENSE, "dense", "outside the grant");
    timed(async {
        let client = connect(&f.grant_path).await;
        let a = ok(call(
            &client,
            "context_read",
            json!({"path": LAYOUTFLOW, "mode": "annotations"}),
        )
        .await);
        assert_eq!(a["mode"], "annotations");
        assert_eq!(a["annotationCount"], 1, "{a}");
        let h = &a["annotations"][0];
        assert_eq!(h["page"], 2);
        assert_eq!(h["type"], "highlight");
        assert_eq!(h["text"], "gutter");
        assert_eq!(h["comment"], "compare with the XY-cut");
        assert_eq!(h["color"], "#ffd400");
        assert_eq!(h["source"], "agentero");
        assert_eq!(h["citationUri"], "papers/layoutflow/paper.pdf#page=2");
        assert_eq!(a["truncated"], false);
        // One page's only: page 1 has none.
        let p1 = ok(call(
            &client,
            "context_read",
            json!({"path": "papers/layoutflow/paper.pdf#page=1", "mode": "annotations"}),
        )
        .await);
        assert_eq!(p1["annotationCount"], 0, "{p1}");
        assert!(
            p1["note"].as_str().unwrap().contains("no highlights"),
            "{p1}"
        );
        // Outside the grant: refused, the comment never shown.
        let e = err(call(
            &client,
            "context_read",
            json!({"path": DENSE, "mode": "annotations"}),
        )
        .await);
        assert!(!e.contains("outside the grant"), "{e}");
        client.cancel().await.unwrap();
    })
    .await;
}

/// A real journal-style paper (the corpus's aomart sample: a running head with the page number
/// on every page after the first, whose number is at its foot): `furniture: false` reads its
/// pages without them; the default reads the page as printed.
#[tokio::test]
async fn a_page_is_read_without_its_running_head_when_asked() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let slug = "papers/sample-paper-for-the-aomart-class";
    common::copy_tree(&corpus.join(slug), &dir.path().join(slug));
    let paper = format!("{slug}/paper.pdf");
    let f = fixture_in(dir, &[&paper], Budget::default());
    timed(async {
        let client = connect(&f.grant_path).await;
        let page = |furniture: Option<bool>| {
            let mut args = json!({"path": paper, "mode": "page", "page": 2});
            if let Some(b) = furniture {
                args["furniture"] = json!(b);
            }
            call(&client, "context_read", args)
        };
        let printed = ok(page(None).await)["text"].as_str().unwrap().to_string();
        assert!(
            printed
                .trim_start()
                .starts_with("18 AMS AND BORIS VEYTSMAN"),
            "{printed}"
        );
        let bare = ok(page(Some(false)).await)["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(!bare.contains("AMS AND BORIS VEYTSMAN"), "{bare}");
        assert!(bare.contains("1. Introduction"), "{bare}");
        let first = ok(call(
            &client,
            "context_read",
            json!({"path": paper, "mode": "page", "page": 1, "furniture": false}),
        )
        .await)["text"]
            .as_str()
            .unwrap()
            .to_string();
        // The first page keeps its own header (it is on no other page) and loses its number.
        assert!(first.starts_with("Annals of Mathematics"), "{first}");
        assert!(!first.trim_end().ends_with("17"), "{first}");
        client.cancel().await.unwrap();
    })
    .await;
}
