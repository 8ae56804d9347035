//! Thread search over 1,000 threads (`cargo bench --bench threads`): 1,000 threads of 5 turns
//! each written through the real transcript code (questions, answers with quotes and citation
//! URIs into 200 papers, cited sources), then `agentero threads`' work — loading every thread
//! (`ThreadIndex::load`, what the CLI does on each run and the terminal app once) and searching
//! the loaded index by cited paper, cited page, words, and both — as p50/p99; then the terminal
//! app's thread list filter over the same 1,000 threads as the chat shows them (indexing them
//! when `/` opens the filter, then what one key typed into it costs).

mod common;

use std::time::{Duration, Instant};

use agentero::acp::threads::{ThreadIndex, ThreadQuery};
use agentero::acp::transcript::{Line, Thread};
use agentero::context::citations::{CitationCheck, Verdict};
use agentero::context::grant::now_rfc3339;
use agentero::vault::Vault;

const THREADS: usize = 1000;
const TURNS: usize = 5;
const PAPERS: usize = 200;

const WORDS: &[&str] = &[
    "retrieval",
    "passage",
    "window",
    "columns",
    "gutter",
    "reading",
    "order",
    "citation",
    "quote",
    "precision",
    "recall",
    "fusion",
    "tokenisation",
    "layout",
    "table",
    "figure",
    "caption",
    "footnote",
    "margin",
    "abstract",
    "dataset",
    "benchmark",
    "limitation",
    "method",
];

/// A small deterministic generator (no dependency on the random crates for a bench).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize
    }
    fn word(&mut self) -> &'static str {
        WORDS[self.next() % WORDS.len()]
    }
    fn sentence(&mut self, n: usize) -> String {
        (0..n).map(|_| self.word()).collect::<Vec<_>>().join(" ")
    }
}

/// A kind of query: its name and how to make one.
type QueryKind = (&'static str, Box<dyn Fn(&mut Lcg) -> ThreadQuery>);

/// A filter typed in the terminal app: its name and how to make one.
type Typed = (&'static str, Box<dyn Fn(&mut Lcg) -> String>);

fn paper(n: usize) -> String {
    format!("papers/p{n:03}/paper.pdf")
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    let mut rng = Lcg(14);
    let t = Instant::now();
    for i in 0..THREADS {
        let mut th = Thread::create(&vault);
        for k in 0..TURNS {
            let turn = format!("turn-{i}-{k}");
            let ts = now_rfc3339();
            th.append(Line::User {
                ts: ts.clone(),
                turn: turn.clone(),
                text: format!("What about the {}?", rng.sentence(6)),
                mentions: vec![paper(rng.next() % PAPERS)],
            })
            .unwrap();
            let mut answer = String::from("From the granted sources:\n\n");
            let mut cited = Vec::new();
            for _ in 0..3 {
                let u = format!(
                    "{}#page={}",
                    paper(rng.next() % PAPERS),
                    1 + rng.next() % 30
                );
                answer.push_str(&format!("> \"{}.\" — {u}\n\n", rng.sentence(18)));
                cited.push(u);
            }
            th.append(Line::Agent {
                ts: ts.clone(),
                turn: turn.clone(),
                text: answer,
            })
            .unwrap();
            th.append(Line::Sources {
                ts: ts.clone(),
                turn: turn.clone(),
                uris: cited.clone(),
                cited: cited.clone(),
                consulted: Vec::new(),
            })
            .unwrap();
            // The verdicts, as every turn with citations records them.
            th.append(Line::Citations {
                ts: ts.clone(),
                turn: turn.clone(),
                checks: cited
                    .iter()
                    .map(|u| CitationCheck {
                        uri: u.clone(),
                        quote: Some("a quote".into()),
                        verdict: Verdict::Verified,
                        found_at: None,
                        detail: None,
                    })
                    .collect(),
                receipt: None,
            })
            .unwrap();
            th.append(Line::End {
                ts,
                turn,
                stop_reason: "end_turn".into(),
                mode: "mcp".into(),
                session_id: format!("s-{i}"),
            })
            .unwrap();
        }
        th.state.title = format!("Thread {i}");
        th.save_state().unwrap();
    }
    println!(
        "wrote {THREADS} threads of {TURNS} turns in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let mut loads = Vec::new();
    let mut index = ThreadIndex::default();
    for _ in 0..20 {
        let t = Instant::now();
        index = ThreadIndex::load(&vault);
        loads.push(t.elapsed());
    }
    assert_eq!(index.len(), THREADS);
    common::report("load 1,000 threads", loads, None);

    let kinds: [QueryKind; 4] = [
        (
            "search --cites paper",
            Box::new(|r: &mut Lcg| ThreadQuery {
                cites: Some(paper(r.next() % PAPERS)),
                text: None,
            }),
        ),
        (
            "search --cites page",
            Box::new(|r: &mut Lcg| ThreadQuery {
                cites: Some(format!(
                    "{}#page={}",
                    paper(r.next() % PAPERS),
                    1 + r.next() % 30
                )),
                text: None,
            }),
        ),
        (
            "search --search 2 words",
            Box::new(|r: &mut Lcg| ThreadQuery {
                cites: None,
                text: Some(format!("{} {}", r.word(), r.word())),
            }),
        ),
        (
            "search --cites + --search",
            Box::new(|r: &mut Lcg| ThreadQuery {
                cites: Some(paper(r.next() % PAPERS)),
                text: Some(r.word().to_string()),
            }),
        ),
    ];
    for (name, make) in &kinds {
        let mut samples: Vec<Duration> = Vec::new();
        let mut found = 0usize;
        for _ in 0..300 {
            let q = make(&mut rng);
            let t = Instant::now();
            let hits = index.search(&q).unwrap();
            samples.push(t.elapsed());
            found += hits.len();
        }
        common::report(name, samples, Some(Duration::from_millis(50)));
        println!(
            "{:<28} {:.1} threads found per query",
            "",
            found as f64 / 300.0
        );
    }
    // The terminal app's thread list filter: the chat's 1,000 threads (as restored from their
    // transcripts) searched on every key typed into the filter.
    let ids: Vec<String> = std::fs::read_dir(vault.state_dir().join("chats"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let chat: Vec<agentero::tui::thread::Thread> = ids
        .iter()
        .map(|id| agentero::tui::thread::from_transcript(&Thread::open(&vault, id).unwrap()))
        .collect();
    let typed: [Typed; 3] = [
        (
            "TUI filter @paper",
            Box::new(|r: &mut Lcg| format!("@{}", paper(r.next() % PAPERS))),
        ),
        (
            "TUI filter @page",
            Box::new(|r: &mut Lcg| {
                format!("@{}#page={}", paper(r.next() % PAPERS), 1 + r.next() % 30)
            }),
        ),
        (
            "TUI filter 2 words",
            Box::new(|r: &mut Lcg| format!("{} {}", r.word(), r.word())),
        ),
    ];
    use agentero::tui::thread::find;
    let mut opened = Vec::new();
    let mut index = find::index(&chat);
    for _ in 0..20 {
        let t = Instant::now();
        index = find::index(&chat);
        opened.push(t.elapsed());
    }
    common::report(
        "TUI filter opened (index)",
        opened,
        Some(Duration::from_millis(200)),
    );
    for (name, make) in &typed {
        let mut samples = Vec::new();
        for _ in 0..100 {
            let q = make(&mut rng);
            let t = Instant::now();
            let f = find::find_in(&index, &q);
            samples.push(t.elapsed());
            assert!(f.error.is_none());
        }
        common::report(name, samples, Some(Duration::from_millis(50)));
    }

    // What one `agentero threads --cites …` run does: load, then search.
    let mut runs = Vec::new();
    for _ in 0..20 {
        let q = ThreadQuery {
            cites: Some(paper(rng.next() % PAPERS)),
            text: None,
        };
        let t = Instant::now();
        let index = ThreadIndex::load(&vault);
        index.search(&q).unwrap();
        runs.push(t.elapsed());
    }
    common::report(
        "threads --cites (load+search)",
        runs,
        Some(Duration::from_millis(500)),
    );
}
