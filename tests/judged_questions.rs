//! The built-in agent against a judged question set (`tests/judged/questions.json`): questions
//! written by hand from the corpus, each with the paper and the page(s) that answer it, some
//! asked from a current page or about a selection (`--paper --page --selection`, the selection
//! being the sentence of that page that holds the fixture's words). Every question is asked
//! through the real `agentero ask` (the built-in agent over ACP, the real context server) on a
//! copy of the corpus, in three scopes: the paper mentioned; every paper of the corpus mentioned
//! by name (the agent must find the paper as well as the page); the `papers/` folder mentioned
//! (the same, through a folder grant). The answer's citations, in order, are judged: top-1 is
//! the first cited page, top-3 any of the first three. Questions that do not say which paper
//! they are about (`needs_paper`) are asked in the first scope only.
//!
//! Runs when AGENTERO_CORPUS is set. `AGENTERO_JUDGED_BIN` runs another build of agentero
//! instead (how the figures of an earlier version are measured); `AGENTERO_JUDGED_REPORT`
//! names a file that gets one JSON line per question and scope.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
struct Question {
    paper: String,
    pages: Vec<u32>,
    kind: String,
    question: String,
    #[serde(default)]
    anchor: Option<Anchor>,
    /// Asked only with its paper mentioned (it does not say which paper it is about).
    #[serde(default)]
    needs_paper: bool,
}

#[derive(Debug, Deserialize)]
struct Anchor {
    page: u32,
    /// Words of the sentence selected on that page.
    #[serde(default)]
    selection: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Set {
    questions: Vec<Question>,
}

fn judged_set() -> Vec<Question> {
    let text = include_str!("judged/questions.json");
    serde_json::from_str::<Set>(text)
        .expect("tests/judged/questions.json parses")
        .questions
}

fn binary() -> PathBuf {
    std::env::var_os("AGENTERO_JUDGED_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_agentero")))
}

/// Vault page citations of an answer, in the order they first appear.
fn cited_pages(answer: &str) -> Vec<(String, u32)> {
    let re = regex::Regex::new(r"(papers/[^\s#)>\]]+)#page=(\d+)").unwrap();
    let mut out: Vec<(String, u32)> = Vec::new();
    for c in re.captures_iter(answer) {
        let hit = (c[1].to_string(), c[2].parse().unwrap_or(0));
        if !out.contains(&hit) {
            out.push(hit);
        }
    }
    out
}

struct Run {
    top1: usize,
    top3: usize,
    answered: usize,
    total: usize,
}

/// The sentence of `paper`'s page `page` that contains `words`, as the paper pane shows it.
fn selected_sentence(vault: &Path, paper: &str, page: u32, words: &str) -> String {
    let abs = vault.join(paper);
    let bytes = std::fs::read(&abs).unwrap();
    let (_, pages) = agentero::vault::extract::extract_paper(
        &abs,
        paper,
        bytes,
        String::new(),
        Duration::from_secs(120),
    )
    .unwrap();
    let text = &pages[page as usize - 1].text;
    agentero::agent::rank::sentences(text)
        .into_iter()
        .find(|s| s.to_lowercase().contains(&words.to_lowercase()))
        .unwrap_or_else(|| panic!("no sentence with {words:?} on {paper} page {page}"))
}

fn ask(bin: &Path, vault: &Path, question: &str, reading: &[String]) -> Value {
    let home = vault.join(".agentero-test-home");
    let mut cmd = Command::new(bin);
    cmd.args(["ask", "--json", "--vault"])
        .arg(vault)
        .args(reading)
        .arg(question)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("AGENTERO_BUILTIN_FAULT");
    let out = common::output_within(cmd, Duration::from_secs(180));
    assert!(
        out.status.success(),
        "ask {question:?} failed: {}",
        common::stderr(&out)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::stdout(&out)))
}

fn run(
    bin: &Path,
    vault: &Path,
    set: &[Question],
    scope: &str,
    report: &mut Option<std::fs::File>,
) -> Run {
    let every_paper: Vec<String> = {
        let mut v: Vec<String> = set.iter().map(|q| format!("@{}", q.paper)).collect();
        v.sort();
        v.dedup();
        v
    };
    let mut r = Run {
        top1: 0,
        top3: 0,
        answered: 0,
        total: 0,
    };
    for q in set.iter().filter(|q| scope == "paper" || !q.needs_paper) {
        r.total += 1;
        let mentions = match scope {
            "paper" => format!("@{}", q.paper),
            "each" => every_paper.join(" "),
            _ => "@papers/".to_string(),
        };
        let mut reading = Vec::new();
        if let Some(a) = &q.anchor {
            reading.extend(["--paper".to_string(), q.paper.clone()]);
            reading.extend(["--page".to_string(), a.page.to_string()]);
            if let Some(words) = &a.selection {
                let s = selected_sentence(vault, &q.paper, a.page, words);
                reading.extend(["--selection".to_string(), s]);
            }
        }
        let doc = ask(bin, vault, &format!("{} {mentions}", q.question), &reading);
        let answer = doc["answer"].as_str().unwrap_or_default().to_string();
        let cited = cited_pages(&answer);
        let rank = cited
            .iter()
            .position(|(p, n)| *p == q.paper && q.pages.contains(n));
        if !cited.is_empty() {
            r.answered += 1;
        }
        if rank == Some(0) {
            r.top1 += 1;
        }
        if rank.is_some_and(|i| i < 3) {
            r.top3 += 1;
        }
        if let Some(f) = report {
            let line = serde_json::json!({
                "scope": scope, "kind": q.kind, "question": q.question, "paper": q.paper,
                "pages": q.pages, "rank": rank, "cited": cited, "answer": answer,
            });
            let _ = writeln!(f, "{line}");
        }
    }
    r
}

#[test]
fn the_builtin_agent_finds_the_page_that_answers() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let set = judged_set();
    assert!(
        set.len() >= 60,
        "the judged set has {} questions",
        set.len()
    );
    for q in &set {
        assert!(
            corpus.join(&q.paper).is_file(),
            "{} is not in the corpus",
            q.paper
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    common::copy_tree(&corpus, &vault);
    let bin = binary();
    let out = common::output_within(
        {
            let mut c = Command::new(&bin);
            c.arg("index").arg(&vault);
            c
        },
        Duration::from_secs(900),
    );
    assert!(out.status.success(), "index: {}", common::stderr(&out));
    let mut report = std::env::var_os("AGENTERO_JUDGED_REPORT")
        .map(|p| std::fs::File::create(p).expect("the report file can be written"));
    let mut figures = Vec::new();
    for scope in ["paper", "each", "folder"] {
        let r = run(&bin, &vault, &set, scope, &mut report);
        let f = |n: usize| n as f64 / r.total as f64;
        eprintln!(
            "judged set, {scope} scope: top-1 {:.3}, top-3 {:.3}, answered with a page citation {:.3} ({} questions)",
            f(r.top1),
            f(r.top3),
            f(r.answered),
            r.total
        );
        figures.push((scope, f(r.top1), f(r.top3)));
    }
    if std::env::var_os("AGENTERO_JUDGED_BIN").is_some() {
        return; // measuring another build: figures only
    }
    let (_, _, paper_top3) = figures[0];
    assert!(
        paper_top3 >= 0.8,
        "top-3 page accuracy with the paper mentioned is {paper_top3:.3}, under the floor of 0.8"
    );
    for (scope, _, top3) in &figures[1..] {
        assert!(
            *top3 >= 0.8,
            "top-3 page accuracy over every paper ({scope} scope) is {top3:.3}, under the floor of 0.8"
        );
    }
}
