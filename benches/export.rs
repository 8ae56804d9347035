//! Exporting a 10,000-entry bibliography (`cargo bench --bench export`): 10,000 papers with
//! long titles (some with control characters, braces, `@` and line breaks, as a hostile
//! library has them), authors, years, DOIs or arXiv ids; one in ten with a reference manager's
//! key, some shared, some outside BibTeX's alphabet. Timed, as p50 of 5 runs: the keys
//! (checked, made unique), the BibTeX text through the output gate, the CSL-JSON text, and
//! each written with the atomic `-o` write; then, for scale, reading the BibTeX back with the
//! biblatex crate (not part of an export).

use std::time::{Duration, Instant};

use agentero::vault::citekeys;
use agentero::vault::meta::PaperMeta;
use agentero::vault::output;

const ENTRIES: usize = 10_000;
const RUNS: usize = 5;

const WORDS: &[&str] = &[
    "retrieval",
    "passage",
    "window",
    "columns",
    "gutter",
    "reading",
    "order",
    "citation",
    "layout",
    "table",
    "figure",
    "caption",
    "Schrödinger",
    "Ångström",
    "{Robust}",
    "100%",
    "a_b",
    "R&D",
    "x@y",
    "}}",
    "\u{1b}]52;c;eA==\u{7}",
    "\u{202e}",
    "\u{9b}31m",
    "line\nbreak",
];

fn papers() -> Vec<(String, Option<String>, PaperMeta)> {
    let mut state = 42u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..ENTRIES)
        .map(|i| {
            let title: Vec<&str> = (0..12).map(|_| WORDS[next() % WORDS.len()]).collect();
            let managed = match i % 10 {
                0 => Some(format!("key{}", i % 300)),
                5 if i % 20 == 5 => Some(format!("bad key, {{{i}}}")),
                _ => None,
            };
            let meta = PaperMeta {
                title: title.join(" "),
                authors: vec![
                    format!("Author{}, Given", next() % 500),
                    "Ada Lovelace".into(),
                    "Zoë Núñez".into(),
                ],
                year: Some(1990 + (next() % 35) as i32),
                doi: (i % 2 == 0).then(|| format!("10.1234/x.{i}")),
                arxiv: (i % 2 == 1).then(|| format!("2101.{:05}", i)),
                abstract_text: Some("An abstract of a few words.".into()),
                ..PaperMeta::default()
            };
            (format!("papers/p{i:05}/paper.pdf"), managed, meta)
        })
        .collect()
}

fn p50(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let input = papers();
    let (mut keys, mut bib, mut csl, mut write_bib, mut write_csl) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut last = (String::new(), String::new(), 0usize);
    for _ in 0..RUNS {
        let t = Instant::now();
        let b = citekeys::assign(input.clone());
        keys.push(t.elapsed());
        let t = Instant::now();
        let text = citekeys::bibtex(&b.sources);
        bib.push(t.elapsed());
        let t = Instant::now();
        let json = output::to_json_pretty(&citekeys::csl_json(&b.sources)).unwrap();
        csl.push(t.elapsed());
        let t = Instant::now();
        output::file::write_atomic(&dir.path().join("out.bib"), text.as_bytes()).unwrap();
        write_bib.push(t.elapsed());
        let t = Instant::now();
        output::file::write_atomic(&dir.path().join("out.json"), json.as_bytes()).unwrap();
        write_csl.push(t.elapsed());
        last = (text, json, b.warnings.len());
    }
    let (text, json, warnings) = last;
    let t = Instant::now();
    let parsed = biblatex::Bibliography::parse(&text).expect("the export parses");
    let parse = t.elapsed();
    assert_eq!(parsed.len(), ENTRIES, "one entry per paper");
    let total = p50(keys.clone()) + p50(bib.clone()) + p50(write_bib.clone());
    println!("export of {ENTRIES} entries (p50 of {RUNS} runs):");
    println!(
        "  keys (checked, unique): {:>8.1} ms  ({warnings} managed keys replaced)",
        p50(keys).as_secs_f64() * 1e3
    );
    println!(
        "  BibTeX text:            {:>8.1} ms  ({} KB)",
        p50(bib).as_secs_f64() * 1e3,
        text.len() / 1024
    );
    println!(
        "  CSL-JSON text:          {:>8.1} ms  ({} KB)",
        p50(csl).as_secs_f64() * 1e3,
        json.len() / 1024
    );
    println!(
        "  atomic write .bib:      {:>8.1} ms",
        p50(write_bib).as_secs_f64() * 1e3
    );
    println!(
        "  atomic write .json:     {:>8.1} ms",
        p50(write_csl).as_secs_f64() * 1e3
    );
    println!(
        "  keys + BibTeX + write:  {:>8.1} ms",
        total.as_secs_f64() * 1e3
    );
    println!(
        "  (biblatex reading it back: {:.1} ms)",
        parse.as_secs_f64() * 1e3
    );
}
