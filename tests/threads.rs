//! `agentero threads` over threads written by real `agentero ask` turns of the built-in agent on
//! the demo vault: found by the paper or page their answers cited, by words of their questions
//! and answers, listed most recent first, with the matching turn; the agents' and users' text
//! never reaches the terminal raw.

mod common;

use std::path::Path;
use std::time::Duration;

use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

fn ask(root: &Path, args: &[&str]) -> Value {
    let mut cmd = common::command(root);
    cmd.args(["ask", "--json"]).args(args);
    let out = common::output_within(cmd, Duration::from_secs(120));
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn threads(root: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = common::command(root);
    cmd.arg("threads").args(args);
    common::output_within(cmd, Duration::from_secs(60))
}

fn threads_json(root: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = threads(root, &all);
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn ids(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["threadId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn threads_are_found_by_cited_paper_and_page_and_by_their_words() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let halvorsen = "papers/halvorsen2009-passages/paper.pdf";
    let layout = "papers/layoutflow/paper.pdf";
    let a = ask(root, &[&format!("What window size is used? @{halvorsen}")]);
    let a_id = a["threadId"].as_str().unwrap().to_string();
    // A second turn in the same thread, about something else.
    ask(
        root,
        &[
            "--thread",
            &a_id,
            &format!("How are gutters detected? @{layout}"),
        ],
    );
    let b = ask(
        root,
        &[&format!("How is the reading order recovered? @{layout}")],
    );
    let b_id = b["threadId"].as_str().unwrap().to_string();

    // By paper: the thread whose answer cited it, at the turn that cited it.
    let by_paper = threads_json(root, &["--cites", halvorsen]);
    assert_eq!(ids(&by_paper), vec![a_id.clone()]);
    assert_eq!(by_paper[0]["turns"][0]["number"], 1);
    // By page: exactly the page an answer cited.
    let cited: Vec<String> = a["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    let page = cited.first().expect("the answer cites a page");
    assert_eq!(
        ids(&threads_json(root, &["--cites", page])),
        vec![a_id.clone()]
    );
    assert!(threads_json(root, &["--cites", &format!("{halvorsen}#page=99")]).is_empty());
    // Both threads cited the layout paper: most recent first, each at its turn.
    let by_layout = threads_json(root, &["--cites", layout]);
    assert_eq!(ids(&by_layout), vec![b_id.clone(), a_id.clone()]);
    assert_eq!(by_layout[1]["turns"][0]["number"], 2);
    // A folder covers every paper under it.
    assert_eq!(threads_json(root, &["--cites", "papers/"]).len(), 2);

    // Full text: words of the questions and the answers, all of them, any case.
    let by_words = threads_json(root, &["--search", "WINDOW size"]);
    assert_eq!(ids(&by_words), vec![a_id.clone()]);
    // The snippet shows the answer where the words are (the question is listed apart).
    let snippet = by_words[0]["turns"][0]["snippet"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(
        snippet.contains("window") || snippet.contains("size"),
        "{snippet}"
    );
    assert!(!snippet.contains("what window size is used"), "{snippet}");
    assert_eq!(
        ids(&threads_json(root, &["--search", "reading order"])),
        vec![b_id.clone()]
    );
    assert!(threads_json(root, &["--search", "window", "--cites", layout]).is_empty());

    // Text mode, and a listing of everything.
    let out = threads(root, &["--cites", page]);
    let text = common::stdout(&out);
    assert!(
        text.contains(&a_id) && text.contains("turn 1:") && text.contains(page),
        "{text}"
    );
    assert_eq!(threads_json(root, &[]).len(), 2);
    // A bad argument is an error that says what is expected.
    let bad = threads(root, &["--cites", "https://doi.org/10.1/x"]);
    assert!(!bad.status.success());
    assert!(
        common::stderr(&bad).contains("citation URI"),
        "{}",
        common::stderr(&bad)
    );
}

#[test]
fn control_characters_of_threads_never_reach_the_terminal() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    ask(
        root,
        &["What is the reading order\u{1b}[2J\u{7}? @papers/layoutflow/paper.pdf"],
    );
    for args in [&[][..], &["--search", "reading"][..]] {
        let out = threads(root, args);
        assert!(out.status.success());
        let text = common::stdout(&out);
        assert!(text.contains("reading order"), "{text}");
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "raw control characters in {text:?}"
        );
    }
}
