//! The built-in agent against two judged question sets: the tuning set
//! (`tests/judged/questions.json`, what the ranking rules were tuned on) and the held-out set
//! (`tests/judged/heldout.json`, written before the rules of issue 19 and only measured, over
//! papers and pages the tuning set does not use). Questions written by hand from the corpus, each with the paper and the page(s) that answer it, some
//! asked from a current page or about a selection (`--paper --page --selection`, the selection
//! being the sentence of that page that holds the fixture's words). Every question is asked
//! through the real `agentero ask` (the built-in agent over ACP, the real context server) on a
//! copy of the corpus, in three scopes: the paper mentioned; every paper of the corpus mentioned
//! by name (the agent must find the paper as well as the page); the `papers/` folder mentioned
//! (the same, through a folder grant). The answer's citations, in order, are judged: top-1 is
//! the first cited page, top-3 any of the first three. Questions that do not say which paper
//! they are about (`needs_paper`) are asked in the first scope only.
//!
//! Besides the page, two rates are measured: "quotes the selection" (a question with a selection:
//! the first quote is a sentence of the selection) and "quotes the asked number" (a number or
//! table-row question: for the held-out set a quote holds the recorded `expect` words, for the
//! tuning set, which records none, the first quote is on a right page and has a number).
//!
//! A third set, `vignettes` (`tests/judged/vignettes.json`), asks reader questions of the
//! held-out R package vignettes (`AGENTERO_HELD_OUT`, laid out as `papers/<stem>/paper.pdf` in a
//! vault of all 30): written from titles, abstracts and section headings before the answering
//! pages were looked up, in a reader's words rather than the page's (issue 37). It is asked with
//! the paper mentioned and with the `papers/` folder mentioned, and reports besides the page
//! whether the first citation is in the right paper and whether a quote of a right page holds
//! the recorded `expect` words (every question of this set has them).
//!
//! The first two run when AGENTERO_CORPUS is set, the third when AGENTERO_HELD_OUT is set;
//! `AGENTERO_JUDGED_SET=tuning|heldout|vignettes` runs one set only. `AGENTERO_JUDGED_BIN` runs another build of agentero
//! instead (how the figures of an earlier version are measured); `AGENTERO_JUDGED_REPORT`
//! names a file that gets one JSON line per question and scope; `AGENTERO_JUDGED_SCOPES`
//! (`paper,each,folder`) asks in the scopes it names only. `AGENTERO_JUDGED_EMBEDDINGS` runs
//! with an embedding model (hybrid retrieval): a model2vec folder, or `wordllama` for the
//! wheel's matrix `AGENTERO_WORDLLAMA` unpacked (laid out as a model2vec folder beside the
//! vault); it is written as `[search] embeddings` into the config of the copied vault's test
//! home, which indexes and asks with it. Unset, that config says `off`: no model, whatever the
//! machine's Hugging Face cache holds.
//!
//! Every quote of every answer, in every scope, is also judged against the page it cites (our
//! extraction, page furniture kept): a bibliography entry (by its shape — "[12] A. Author",
//! "Surname, I. (2009)", "Surname I (1978).", a DOI — or by its place after a references heading)
//! or a running head or footer (an edge line of its page that stands at an edge of several pages)
//! is never evidence; they are counted, printed, and held to a floor.

use crate::common;
use crate::judged_home::{at_home, write_config};

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
pub(crate) struct Question {
    pub(crate) paper: String,
    pub(crate) pages: Vec<u32>,
    pub(crate) kind: String,
    pub(crate) question: String,
    #[serde(default)]
    anchor: Option<Anchor>,
    /// Asked only with its paper mentioned (it does not say which paper it is about).
    #[serde(default)]
    pub(crate) needs_paper: bool,
    /// Words the answering quote holds (held-out and vignettes sets).
    #[serde(default)]
    pub(crate) expect: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Anchor {
    page: u32,
    /// Words of the sentence selected on that page.
    #[serde(default)]
    selection: Option<String>,
    /// The selection runs on to the sentence holding these words.
    #[serde(default)]
    through: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Set {
    questions: Vec<Question>,
}

const SETS: [(&str, &str); 2] = [
    ("tuning", include_str!("../judged/questions.json")),
    ("heldout", include_str!("../judged/heldout.json")),
];

pub(crate) fn judged_set(text: &str) -> Vec<Question> {
    serde_json::from_str::<Set>(text)
        .expect("the judged set parses")
        .questions
}

/// Indexes `vault` with `bin` (the questions are asked of an indexed vault, with the embedding
/// model of the run, if any) and opens the report file `AGENTERO_JUDGED_REPORT` names, if any.
pub(crate) fn index_for_questions(bin: &Path, vault: &Path) -> Option<std::fs::File> {
    write_config(vault);
    let mut c = Command::new(bin);
    c.arg("index").arg(vault);
    at_home(&mut c, vault);
    let out = common::output_within(c, Duration::from_secs(1800));
    assert!(out.status.success(), "index: {}", common::stderr(&out));
    let summary = common::stdout(&out);
    if let Some(line) = summary.lines().find(|l| l.contains("embeddings:")) {
        eprintln!("index: {}", line.trim());
    }
    std::env::var_os("AGENTERO_JUDGED_REPORT")
        .map(|p| std::fs::File::create(p).expect("the report file can be written"))
}

/// Whether `scope` is asked (`AGENTERO_JUDGED_SCOPES` names the scopes to ask, else all).
pub(crate) fn asked(scope: &str) -> bool {
    std::env::var("AGENTERO_JUDGED_SCOPES")
        .map(|v| v.split(',').any(|s| s.trim() == scope))
        .unwrap_or(true)
}

pub(crate) fn binary() -> PathBuf {
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

/// The quotes of an answer with the page each cites, in order (`> "…" — uri` lines).
fn quotes(answer: &str) -> Vec<(String, String, u32)> {
    let re =
        regex::Regex::new(r#"(?m)^> "(.*)" — (?:[^\s]*?)(papers/[^\s#)>\]]+)#page=(\d+)"#).unwrap();
    re.captures_iter(answer)
        .map(|c| {
            (
                c[1].to_string(),
                c[2].to_string(),
                c[3].parse().unwrap_or(0),
            )
        })
        .collect()
}

/// A digit or a number written as a word ("usually by two referees").
fn has_number(t: &str) -> bool {
    const WORDS: &[&str] = &[
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
        "once", "twice", "single", "double", "half",
    ];
    t.chars().any(|c| c.is_ascii_digit())
        || t.split(|c: char| !c.is_alphanumeric())
            .any(|w| WORDS.contains(&w.to_lowercase().as_str()))
}

/// Case folded, whitespace dropped: how quotes and expected words are compared.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The pages of the papers quoted, extracted once (our extraction, furniture kept): what the
/// quotes are judged against.
#[derive(Default)]
pub(crate) struct Pages {
    papers: std::collections::HashMap<String, Vec<String>>,
}

impl Pages {
    fn of(&mut self, vault: &Path, paper: &str) -> &[String] {
        self.papers.entry(paper.to_string()).or_insert_with(|| {
            let abs = vault.join(paper);
            let Ok(bytes) = std::fs::read(&abs) else {
                return Vec::new();
            };
            agentero::vault::extract::extract_paper(
                &mut agentero::vault::extract::Isolation::default(),
                &abs,
                paper,
                bytes,
                String::new(),
                Duration::from_secs(120),
                None,
            )
            .map(|(_, pages)| pages.into_iter().map(|p| p.text).collect())
            .unwrap_or_default()
        })
    }
}

/// A line's shape for telling repeated lines: lowercase letters and spaces, every digit `#`.
fn line_shape(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else if c.is_alphabetic() {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() && !out.ends_with(' ') && !out.is_empty() {
            out.push(' ');
        }
    }
    out.trim().to_string()
}

/// The edge lines (two first, two last non-blank lines) of each page.
fn edge_lines(page: &str) -> Vec<String> {
    let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
    let n = lines.len();
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i < 2 || i + 2 >= n {
            out.push(l.trim().to_string());
        }
    }
    out
}

/// Whether a quote of page `page` (1-based) of a paper is (or carries) a running head or
/// footer: it holds an edge line of that page whose shape (8 letters at least) stands at an edge
/// of three or more pages of the paper (two in a paper of six pages or fewer), and that line has a
/// number in it or the quote starts or ends with it.
fn is_running_head(pages: &[String], page: u32, quote: &str) -> bool {
    let Some(text) = pages.get(page as usize - 1) else {
        return false;
    };
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for p in pages {
        let mut shapes: Vec<String> = edge_lines(p).iter().map(|l| line_shape(l)).collect();
        shapes.sort();
        shapes.dedup();
        for s in shapes {
            *seen.entry(s).or_default() += 1;
        }
    }
    let need = if pages.len() <= 6 { 2 } else { 3 };
    let q = line_shape(quote.trim_end_matches('…'));
    edge_lines(text).iter().any(|l| {
        let s = line_shape(l);
        s.chars().filter(|c| c.is_alphabetic()).count() >= 8
            && seen.get(&s).is_some_and(|n| *n >= need)
            && q.contains(&s)
            && (s.contains('#') || q.starts_with(&s) || q.ends_with(&s))
    })
}

/// A heading that opens a reference list.
fn is_references_heading(line: &str) -> bool {
    let t = line
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c.is_whitespace())
        .to_lowercase();
    matches!(
        t.as_str(),
        "references"
            | "bibliography"
            | "literatur"
            | "literature cited"
            | "works cited"
            | "references and notes"
            | "literaturverzeichnis"
    )
}

/// Where a paper's reference list starts: the page (0-based) and the place in that page's
/// squashed text of its last references heading (the list is the last one in a paper).
fn references_start(pages: &[String]) -> Option<(usize, usize)> {
    let mut start = None;
    for (i, text) in pages.iter().enumerate() {
        let mut at = 0;
        for line in text.lines() {
            if is_references_heading(line) {
                start = Some((i, at));
            }
            at += squash(line).len();
        }
    }
    start
}

/// Whether a quote is a bibliography entry: by its shape ("[12] A. Author …", "Surname, I.
/// (2009).", "Surname I, Surname J (1978).", a DOI), or by its place (after the paper's
/// references heading, on a page where lines with a year are common) and something of an
/// entry in it (a year, a volume and issue, a page range, an address).
fn is_reference_quote(pages: &[String], page: u32, quote: &str) -> bool {
    let q = quote.trim_end_matches('…');
    let year = regex::Regex::new(r"\b(19|20)\d\d[a-z]?\b").unwrap();
    let shapes = [
        r"^\s*\[\d{1,3}\]\s*\p{Lu}",
        r"\p{Lu}[\p{L}'’-]+,\s+(?:\p{Lu}\.\s*-?)+(?:,|\(|and|&)",
        r"\p{Lu}[\p{L}'’-]+\s+\p{Lu}{1,3}(?:,\s*\p{Lu}[\p{L}'’-]+\s+\p{Lu}{1,3})*(?:,?\s+and\s+\p{Lu}[\p{L}'’-]+\s+\p{Lu}{1,3})?\s+\((19|20)\d\d[a-z]?\)\.",
        r"(?i)\bdoi(?:\.org/|:\s*)10\.\d{4,}",
    ];
    let shaped = shapes
        .iter()
        .enumerate()
        .any(|(i, r)| regex::Regex::new(r).unwrap().is_match(q) && (i == 2 || year.is_match(q)));
    if shaped {
        return true;
    }
    let (Some((h_page, h_at)), Some(text)) =
        (references_start(pages), pages.get(page as usize - 1))
    else {
        return false;
    };
    let p = page as usize - 1;
    let entry_like = year.is_match(q)
        || regex::Regex::new(
            r"\b\d+\s*\(\d+\)|\b\d+\s*[–-]\s*\d+\b|https?://|\bURL\b|^\s*\[[^\]]{1,12}\]",
        )
        .unwrap()
        .is_match(q);
    if p < h_page || !entry_like {
        return false;
    }
    let head: String = squash(q).chars().take(40).collect();
    let all: String = text.lines().map(squash).collect();
    let Some(at) = all.find(&head) else {
        return false;
    };
    if p == h_page {
        return at >= h_at;
    }
    // A later page: still the list when lines with a year are common on it and no heading
    // stands between its top and the quote (an appendix after the references is no list).
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let dated = lines.iter().filter(|l| year.is_match(l)).count();
    let heading = |l: &str| {
        let t = l.trim();
        let words = t.split_whitespace().count();
        (1..=5).contains(&words)
            && t.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && !t.ends_with(['.', ',', ';', ':'])
            && !year.is_match(t)
            && !t.chars().any(|c| {
                c.is_ascii_digit() && words > 1 && !t.starts_with(|c: char| c.is_ascii_digit())
            })
    };
    let mut upto = String::new();
    for (i, l) in lines.iter().enumerate() {
        if upto.contains(&head) {
            break;
        }
        // (The first two lines are the running head's place, not a section's.)
        if i >= 2 && heading(l) {
            return false;
        }
        upto.push_str(&squash(l));
    }
    dated * 4 >= lines.len().max(1)
}

#[derive(Default)]
pub(crate) struct Run {
    pub(crate) top1: usize,
    pub(crate) top3: usize,
    pub(crate) answered: usize,
    pub(crate) total: usize,
    /// Questions with a selection, and those whose first quote is from it.
    pub(crate) selections: usize,
    pub(crate) quotes_selection: usize,
    /// Number and table questions, and those whose quote has the asked number.
    pub(crate) numbers: usize,
    pub(crate) quotes_number: usize,
    /// Answers whose first citation is in the question's paper.
    pub(crate) right_paper: usize,
    /// Questions with `expect` words, and those with a quote of a right page that holds them.
    pub(crate) expects: usize,
    pub(crate) quotes_expect: usize,
    /// Quotes (every quote of every answer) that are bibliography entries or running heads,
    /// each as `paper#page: quote`.
    pub(crate) reference_quotes: Vec<String>,
    pub(crate) running_quotes: Vec<String>,
}

/// The sentence of `paper`'s page `page` that contains `words` (through the one containing
/// `through`), as the paper pane shows it.
fn selected_sentence(
    vault: &Path,
    paper: &str,
    page: u32,
    words: &str,
    through: Option<&str>,
) -> String {
    let abs = vault.join(paper);
    let bytes = std::fs::read(&abs).unwrap();
    let (_, pages) = agentero::vault::extract::extract_paper(
        &mut agentero::vault::extract::Isolation::default(),
        &abs,
        paper,
        bytes,
        String::new(),
        Duration::from_secs(120),
        None,
    )
    .unwrap();
    let text = &pages[page as usize - 1].text;
    let sents = agentero::agent::rank::sentences(text);
    let has = |s: &str, w: &str| squash(s).contains(&squash(w));
    let start = sents
        .iter()
        .position(|s| has(s, words))
        .unwrap_or_else(|| panic!("no sentence with {words:?} on {paper} page {page}"));
    let end = match through {
        Some(t) => {
            start
                + sents[start..]
                    .iter()
                    .position(|s| has(s, t))
                    .unwrap_or_else(|| panic!("no sentence with {t:?} after {words:?}"))
        }
        None => start,
    };
    sents[start..=end].join(" ")
}

fn ask(bin: &Path, vault: &Path, question: &str, reading: &[String]) -> Value {
    let mut cmd = Command::new(bin);
    cmd.args(["ask", "--json", "--vault"])
        .arg(vault)
        .args(reading)
        .arg("--") // a question may start with a dash ("-no-auto-remove …?")
        .arg(question)
        .env_remove("AGENTERO_BUILTIN_FAULT");
    at_home(&mut cmd, vault);
    let out = common::output_within(cmd, Duration::from_secs(180));
    assert!(
        out.status.success(),
        "ask {question:?} failed: {}",
        common::stderr(&out)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::stdout(&out)))
}

pub(crate) fn run(
    bin: &Path,
    vault: &Path,
    set: &[Question],
    scope: &str,
    report: &mut Option<std::fs::File>,
    pages: &mut Pages,
) -> Run {
    let every_paper: Vec<String> = {
        let mut v: Vec<String> = set.iter().map(|q| format!("@{}", q.paper)).collect();
        v.sort();
        v.dedup();
        v
    };
    let mut r = Run::default();
    for q in set.iter().filter(|q| scope == "paper" || !q.needs_paper) {
        r.total += 1;
        let mentions = match scope {
            "paper" => format!("@{}", q.paper),
            "each" => every_paper.join(" "),
            _ => "@papers/".to_string(),
        };
        let mut reading = Vec::new();
        let mut selected = None;
        if let Some(a) = &q.anchor {
            reading.extend(["--paper".to_string(), q.paper.clone()]);
            reading.extend(["--page".to_string(), a.page.to_string()]);
            if let Some(words) = &a.selection {
                let s = selected_sentence(vault, &q.paper, a.page, words, a.through.as_deref());
                // One argument: a selection may start with a dash.
                reading.push(format!("--selection={s}"));
                selected = Some(s);
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
        let right_paper = cited.first().is_some_and(|(p, _)| *p == q.paper);
        r.right_paper += usize::from(right_paper);
        let said = quotes(&answer);
        let (mut bib, mut heads) = (Vec::new(), Vec::new());
        for (t, p, n) in &said {
            let of = pages.of(vault, p);
            let at = format!("{p}#page={n}: {t}");
            if is_reference_quote(of, *n, t) {
                bib.push(at);
            } else if is_running_head(of, *n, t) {
                heads.push(at);
            }
        }
        let on_page = |(_, p, n): &&(String, String, u32)| *p == q.paper && q.pages.contains(n);
        let quotes_expect = q.expect.as_ref().map(|e| {
            said.iter()
                .filter(on_page)
                .any(|(t, _, _)| squash(t).contains(&squash(e)))
        });
        if let Some(hit) = quotes_expect {
            r.expects += 1;
            r.quotes_expect += usize::from(hit);
        }
        let first = said.first();
        let from_selection = selected.as_ref().map(|s| {
            let s = squash(s);
            first.is_some_and(|(t, _, _)| {
                let t = squash(t.trim_end_matches('…'));
                t.chars().count() >= 8 && s.contains(&t)
            })
        });
        if let Some(hit) = from_selection {
            r.selections += 1;
            r.quotes_selection += usize::from(hit);
        }
        let number = if matches!(q.kind.as_str(), "number" | "table") {
            Some(match &q.expect {
                Some(e) => said
                    .iter()
                    .filter(on_page)
                    .any(|(t, _, _)| squash(t).contains(&squash(e))),
                None => first.filter(on_page).is_some_and(|(t, _, _)| has_number(t)),
            })
        } else {
            None
        };
        if let Some(hit) = number {
            r.numbers += 1;
            r.quotes_number += usize::from(hit);
        }
        if let Some(f) = report {
            let line = serde_json::json!({
                "scope": scope, "kind": q.kind, "question": q.question, "paper": q.paper,
                "pages": q.pages, "rank": rank, "cited": cited, "answer": answer,
                "quotes_selection": from_selection, "quotes_number": number,
                "right_paper": right_paper, "quotes_expect": quotes_expect,
                "reference_quotes": bib, "running_quotes": heads,
            });
            let _ = writeln!(f, "{line}");
        }
        r.reference_quotes.extend(bib);
        r.running_quotes.extend(heads);
    }
    r
}

/// Prints the quotes that are bibliography entries or running heads, and whether their count
/// is over the floor.
pub(crate) fn furniture_failures(what: &str, r: &Run, floor: usize) -> Option<String> {
    for q in &r.reference_quotes {
        eprintln!("  {what}: a bibliography entry quoted: {q}");
    }
    for q in &r.running_quotes {
        eprintln!("  {what}: a running head quoted: {q}");
    }
    let n = r.reference_quotes.len() + r.running_quotes.len();
    eprintln!(
        "{what}: {} bibliography entries and {} running heads quoted",
        r.reference_quotes.len(),
        r.running_quotes.len()
    );
    (n > floor).then(|| {
        format!("{what}: {n} quotes are bibliography entries or running heads, over the floor of {floor}")
    })
}

/// Floors per set: top-3 with the paper mentioned, top-3 over every paper (each scope, folder
/// scope), the selection-quote rate and the number rate.
struct Floors {
    paper_top3: f64,
    every_top3: f64,
    selection: f64,
    number: f64,
    /// Quotes that are bibliography entries or running heads, at most, in each scope (issue 37:
    /// none; before the reference lists were told, the tuning set quoted one in every scope).
    furniture: usize,
}

fn floors(set: &str) -> Floors {
    match set {
        // Measured (this build): top-3 1.000 / 0.936 / 0.936, selection 1.000, number 0.906.
        // With the value-and-name reading and the folder's paper prior (issue 37 items 2 and 3):
        // paper top-1 0.930, top-3 1.000; folder top-1 0.819 → 0.862, top-3 0.947 → 0.936,
        // first citation in the right paper 0.883 → 0.926.
        "tuning" => Floors {
            paper_top3: 0.95,
            every_top3: 0.9,
            selection: 0.8,
            number: 0.8,
            furniture: 0,
        },
        // Measured: top-3 0.912 / 0.923 / 0.908, selection 1.000, number 0.833. With the rules of
        // issue 37 items 2 and 3: paper unchanged (top-1 0.824, top-3 0.912); folder top-1
        // 0.815 → 0.831, top-3 0.938, right paper 0.954 → 0.969.
        _ => Floors {
            paper_top3: 0.85,
            every_top3: 0.85,
            selection: 0.8,
            number: 0.75,
            furniture: 0,
        },
    }
}

#[test]
fn the_builtin_agent_finds_the_page_that_answers() {
    let only = std::env::var("AGENTERO_JUDGED_SET").ok();
    if only.as_deref() == Some("vignettes") {
        return; // the vignettes set is its own test, on its own papers
    }
    let Some(corpus) = common::corpus() else {
        return;
    };
    let sets: Vec<(&str, Vec<Question>)> = SETS
        .iter()
        .filter(|(name, _)| only.as_deref().is_none_or(|o| o == *name))
        .map(|(name, text)| (*name, judged_set(text)))
        .collect();
    assert!(!sets.is_empty(), "AGENTERO_JUDGED_SET names no set");
    for (name, set) in &sets {
        assert!(
            set.len() >= 60,
            "the {name} set has {} questions",
            set.len()
        );
        for q in set {
            assert!(
                corpus.join(&q.paper).is_file(),
                "{} is not in the corpus",
                q.paper
            );
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    common::copy_tree(&corpus, &vault);
    let bin = binary();
    let mut report = index_for_questions(&bin, &vault);
    let mut failures = Vec::new();
    let mut pages = Pages::default();
    for (name, set) in &sets {
        let fl = floors(name);
        for scope in ["paper", "each", "folder"].into_iter().filter(|s| asked(s)) {
            let r = run(&bin, &vault, set, scope, &mut report, &mut pages);
            let f = |n: usize, of: usize| n as f64 / of.max(1) as f64;
            let (top3, sel, num) = (
                f(r.top3, r.total),
                f(r.quotes_selection, r.selections),
                f(r.quotes_number, r.numbers),
            );
            eprintln!(
                "{name} set, {scope} scope: top-1 {:.3}, top-3 {top3:.3}, first citation in the right paper {:.3}, \
                 answered with a page citation {:.3} ({} questions); quotes the selection {sel:.3} ({} questions), \
                 quotes the asked number {num:.3} ({} questions)",
                f(r.top1, r.total),
                f(r.right_paper, r.total),
                f(r.answered, r.total),
                r.total,
                r.selections,
                r.numbers,
            );
            failures.extend(furniture_failures(
                &format!("{name} set, {scope} scope"),
                &r,
                fl.furniture,
            ));
            let floor = if scope == "paper" {
                fl.paper_top3
            } else {
                fl.every_top3
            };
            if top3 < floor {
                failures.push(format!(
                    "{name} set, {scope} scope: top-3 page accuracy {top3:.3} is under the floor of {floor}"
                ));
            }
            if scope == "paper" && sel < fl.selection {
                failures.push(format!(
                    "{name} set: the selection is quoted first in {sel:.3} of its questions, under the floor of {}",
                    fl.selection
                ));
            }
            if scope == "paper" && num < fl.number {
                failures.push(format!(
                    "{name} set: the asked number is quoted in {num:.3} of its questions, under the floor of {}",
                    fl.number
                ));
            }
        }
    }
    if std::env::var_os("AGENTERO_JUDGED_BIN").is_some() {
        return; // measuring another build: figures only
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Floors of the vignettes set, per scope: top-1 page, top-3 page, first citation in the right
/// paper, a right page's quote holding the expected words.
struct VignetteFloors {
    top1: f64,
    top3: f64,
    right_paper: f64,
    expect: f64,
    /// Quotes that are bibliography entries or running heads, at most (issue 37: none; before
    /// the reference lists were told, one in each scope).
    furniture: usize,
}

fn vignette_floors(scope: &str) -> VignetteFloors {
    match scope {
        // Measured with the questions as first written, before any rule looked at them: top-1
        // 0.367, top-3 0.700, right paper 1.000, expected words quoted 0.267. After the rules of
        // issue 37 that were tried on this set (a name asked for, the sentence after the one that
        // asks, the paper prior) — so for those rules it is a tuning set now: top-1 0.333, top-3
        // 0.667, expected words 0.333; with the value-and-name reading of issue 37 item 2 (tried
        // on this set too): top-1 0.433, top-3 0.700, expected words 0.367. Each floor is about
        // one question under the earlier figures: a
        // measurement to improve on (issue 37 asks for top-1 0.80 and top-3 0.90), not a goal.
        "paper" => VignetteFloors {
            top1: 0.30,
            top3: 0.63,
            right_paper: 0.96,
            expect: 0.30,
            furniture: 0,
        },
        // 22 questions (the 8 that do not say what they are about are asked with their paper
        // only). As first written: top-1 0.364, top-3 0.636, right paper 0.773, expected words
        // 0.227; after the rules above: 0.364, 0.682, 0.818, 0.364; with the value-and-name
        // reading and the paper prior of issue 37 items 2 and 3: 0.455, 0.636, 0.818, 0.318
        // (top-3 one question down: a neighbour of a hit outranks the page). Floors about one question
        // under (the goal is right paper 0.90 and top-3 within 0.05 of the paper scope).
        _ => VignetteFloors {
            top1: 0.31,
            top3: 0.63,
            right_paper: 0.77,
            expect: 0.31,
            furniture: 0,
        },
    }
}

#[test]
fn the_builtin_agent_answers_reader_questions_on_the_held_out_vignettes() {
    let only = std::env::var("AGENTERO_JUDGED_SET").ok();
    if only.as_deref().is_some_and(|o| o != "vignettes") {
        return; // another set was asked for
    }
    let Some(held) = crate::verify_held_out::held_out() else {
        return;
    };
    let set = judged_set(include_str!("../judged/vignettes.json"));
    assert!(
        set.len() >= 30,
        "the vignettes set has {} questions",
        set.len()
    );
    // The vault: every held-out vignette, as papers/<stem>/paper.pdf (the 14 papers no question
    // is about stay in, as the folder scope's distractors).
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    for stem in crate::verify_held_out::HELD_OUT {
        let to = vault.join("papers").join(stem);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(held.join(format!("{stem}.pdf")), to.join("paper.pdf")).unwrap();
    }
    for q in &set {
        assert!(
            vault.join(&q.paper).is_file(),
            "{} is not a held-out vignette",
            q.paper
        );
        assert!(
            q.expect.is_some(),
            "{:?} records no expected words",
            q.question
        );
    }
    let bin = binary();
    let mut report = index_for_questions(&bin, &vault);
    let mut failures = Vec::new();
    let mut pages = Pages::default();
    for scope in ["paper", "folder"].into_iter().filter(|s| asked(s)) {
        let r = run(&bin, &vault, &set, scope, &mut report, &mut pages);
        let f = |n: usize, of: usize| n as f64 / of.max(1) as f64;
        let (top1, top3, right, expect) = (
            f(r.top1, r.total),
            f(r.top3, r.total),
            f(r.right_paper, r.total),
            f(r.quotes_expect, r.expects),
        );
        eprintln!(
            "vignettes set, {scope} scope ({} questions): top-1 page {top1:.3} ({}), top-3 page {top3:.3} ({}), \
             first citation in the right paper {right:.3} ({}), quotes the expected words {expect:.3} ({}/{}), \
             answered with a page citation {}",
            r.total, r.top1, r.top3, r.right_paper, r.quotes_expect, r.expects, r.answered,
        );
        let fl = vignette_floors(scope);
        failures.extend(furniture_failures(
            &format!("vignettes set, {scope} scope"),
            &r,
            fl.furniture,
        ));
        for (what, got, floor) in [
            ("top-1 page", top1, fl.top1),
            ("top-3 page", top3, fl.top3),
            ("first citation in the right paper", right, fl.right_paper),
            ("quotes the expected words", expect, fl.expect),
        ] {
            if got < floor {
                failures.push(format!(
                    "vignettes set, {scope} scope: {what} {got:.3} is under the floor of {floor}"
                ));
            }
        }
    }
    if std::env::var_os("AGENTERO_JUDGED_BIN").is_some() {
        return; // measuring another build: figures only
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
