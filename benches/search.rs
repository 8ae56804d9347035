//! Known-item search quality on the real corpus (issue 15): the judged queries of
//! `tests/known_items.tsv`, per kind, hit@1 and MRR of the right paper for `agentero search`
//! before (main at 53efbe7, see [`BEFORE`]) and now, beside `grep -i` over
//! `pdftotext` text of the same papers, and the latency of each search.
//!
//! grep's ranking: `grep -c -i -F -e QUERY` over one pdftotext file per paper (the query as
//! typed, surrounding quotes dropped); papers with a matching line ranked by the number of
//! matching lines, more first, then by the first matching line, earlier first, then by path.
//! Its page is the page of the first matching line.
//!
//! Run: `AGENTERO_CORPUS=../shared/corpus cargo bench --bench search` (release build).

mod common;
#[path = "../tests/it/common/known_items.rs"]
mod known_items;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::{SearchOptions, Vault};
use common::{copy_tree, corpus, dir_size};
use known_items::{KINDS, Ranked, Report};

/// One pdftotext file per paper, and for each the line numbers (1-based) where its pages start.
struct GrepCorpus {
    files: Vec<(String, PathBuf, Vec<usize>)>,
}

impl GrepCorpus {
    fn build(vault: &Path, work: &Path) -> GrepCorpus {
        std::fs::create_dir_all(work).unwrap();
        let mut files = Vec::new();
        let mut slugs: Vec<_> = std::fs::read_dir(vault.join("papers"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        slugs.sort();
        for slug in slugs {
            let pdf = vault.join("papers").join(&slug).join("paper.pdf");
            let txt = work.join(format!("{slug}.txt"));
            let ok = Command::new("pdftotext")
                .args(["-q", "-enc", "UTF-8"])
                .arg(&pdf)
                .arg(&txt)
                .status()
                .is_ok_and(|s| s.success());
            if !ok {
                continue;
            }
            let text = std::fs::read_to_string(&txt).unwrap_or_default();
            let mut starts = vec![1];
            for (i, line) in text.lines().enumerate() {
                for _ in 0..line.matches('\u{c}').count() {
                    starts.push(i + 1);
                }
            }
            files.push((format!("papers/{slug}/paper.pdf"), txt, starts));
        }
        GrepCorpus { files }
    }

    fn rank(&self, query: &str) -> Vec<Ranked> {
        let q = query.trim().trim_matches('"');
        let run = |extra: &[&str]| {
            let out = Command::new("grep")
                .env("LC_ALL", "C.UTF-8")
                .args(["-i", "-F", "-H"])
                .args(extra)
                .arg("-e")
                .arg(q)
                .args(self.files.iter().map(|f| &f.1))
                .output()
                .expect("grep runs");
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let by_file: HashMap<&Path, &(String, PathBuf, Vec<usize>)> =
            self.files.iter().map(|f| (f.1.as_path(), f)).collect();
        let split = |line: &str| -> Option<(PathBuf, String)> {
            let (file, rest) = line.split_once(".txt:")?;
            Some((PathBuf::from(format!("{file}.txt")), rest.to_string()))
        };
        let mut counts: HashMap<PathBuf, usize> = HashMap::new();
        for line in run(&["-c"]).lines() {
            if let Some((f, n)) = split(line) {
                counts.insert(f, n.trim().parse().unwrap_or(0));
            }
        }
        let mut first: HashMap<PathBuf, usize> = HashMap::new();
        for line in run(&["-n", "-m1"]).lines() {
            if let Some((f, rest)) = split(line)
                && let Some((n, _)) = rest.split_once(':')
            {
                first.insert(f, n.parse().unwrap_or(usize::MAX));
            }
        }
        let mut hits: Vec<(usize, usize, &str, u32)> = counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .filter_map(|(f, n)| {
                let (path, _, starts) = by_file.get(f.as_path())?;
                let line = first.get(f).copied().unwrap_or(usize::MAX);
                let page = starts.iter().filter(|s| **s <= line).count() as u32;
                Some((*n, line, path.as_str(), page.max(1)))
            })
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)));
        hits.into_iter()
            .map(|(_, _, path, page)| Ranked {
                path: path.to_string(),
                page: Some(page),
            })
            .collect()
    }
}

/// hit@1 and MRR per kind of `agentero search` before issue 15: main at 53efbe7 (with the CJK
/// work of issue 9), its `--json --limit 50` cards over the same queries, each paper counted at
/// its first card. (At a9c9fb9, before issue 9, this benchmark measured phrase 0.90/0.94, title
/// 0.68/0.78, author 0.98/0.98, identifier 0.58/0.60, typo 0.75/0.81, CJK 0.39/0.39.)
const BEFORE: &[(&str, f64, f64)] = &[
    ("phrase", 0.90, 0.94),
    ("title", 0.79, 0.83),
    ("author", 0.98, 0.98),
    ("identifier", 0.61, 0.63),
    ("typo", 0.75, 0.81),
    ("cjk", 1.00, 1.00),
    ("all", 0.84, 0.86),
];

fn main() {
    let corpus = corpus();
    let queries = known_items::load();
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("search-bench");
    let _ = std::fs::remove_dir_all(&work);
    let root = work.join("vault");
    copy_tree(&corpus, &root);
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let index = vault.open_index().unwrap();

    // `agentero search`'s options (strict: a query it cannot parse is an error, a miss).
    let opts = SearchOptions {
        limit: known_items::CUTOFF,
        ..SearchOptions::default()
    };
    let mut latency: Vec<Duration> = Vec::new();
    let mut errors = 0;
    let ours = known_items::evaluate(&queries, |q| {
        let t = Instant::now();
        let found = index.search_papers(q, &opts);
        latency.push(t.elapsed());
        match found {
            Ok(hits) => known_items::ranked(&hits),
            Err(_) => {
                errors += 1;
                Vec::new()
            }
        }
    });
    let grep = GrepCorpus::build(&root, &work.join("pdftotext"));
    let theirs = known_items::evaluate(&queries, |q| grep.rank(q));

    println!(
        "# Known-item search over the corpus ({} judged queries, {} papers)\n",
        queries.len(),
        grep.files.len()
    );
    table(&ours, &theirs);
    latency.sort();
    let pct = |p: f64| latency[((latency.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1e3;
    println!(
        "\n- agentero: {errors} queries refused; latency per search p50 {:.2} ms, p99 {:.2} ms",
        pct(0.5),
        pct(0.99)
    );
    println!(
        "- index of the corpus: {:.2} MB ({} documents)",
        dir_size(&vault.index_dir()) as f64 / 1e6,
        index.num_docs()
    );
    println!("\n## agentero misses\n\n{}", ours.misses_text());
    if std::env::var_os("AGENTERO_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&work);
    }
}

fn table(ours: &Report, grep: &Report) {
    println!(
        "| query kind | n | before hit@1 | before MRR | hit@1 | MRR | page@1 | grep hit@1 | grep MRR |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let before = |kind: &str| {
        BEFORE
            .iter()
            .find(|b| b.0 == kind)
            .map_or("—".to_string(), |b| format!("{:.2} | {:.2}", b.1, b.2))
    };
    let row = |name: &str, kind: &str, s: known_items::Score, g: known_items::Score| {
        let b = before(kind);
        let b = if b == "—" {
            "— | —".to_string()
        } else {
            b
        };
        println!(
            "| {name} | {} | {b} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            s.n,
            s.hit_at_1(),
            s.mrr(),
            s.page_at_1(),
            g.hit_at_1(),
            g.mrr()
        );
    };
    for kind in KINDS {
        row(kind, kind, ours.kind(kind), grep.kind(kind));
    }
    row("**all**", "all", ours.all(), grep.all());
}
