//! Verification benchmarks (issue 36), on the real corpus (`AGENTERO_CORPUS`) and the held-out R
//! vignettes (`AGENTERO_HELD_OUT`, downloaded by `.ci/run`):
//! - citation verification per citation, p50 and p99, cold (a fresh checker per answer: the
//!   paper's pages extracted, its furniture found, the second witness parsed) and warm (one
//!   checker for all answers), with right, altered and misplaced quotes;
//! - furniture detection per 1,000 pages (running heads, page numbers, the body order the
//!   verifier reads), beside the text extraction of the same pages: the ratio is what furniture
//!   adds to reading a page.
//!
//! Run: `cargo bench --bench verify` (release build).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agentero::context::citations::{self, Doc, Docs, VaultDocs};
use agentero::vault::furniture;
use agentero::vault::pdf::{Limits, extract};

mod common;

use common::{copy_tree, corpus, report};

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let papers = dir.path().join("papers");
    copy_tree(&corpus().join("papers"), &papers);
    let held = std::env::var_os("AGENTERO_HELD_OUT").map(PathBuf::from);
    match &held {
        Some(h) => {
            for e in std::fs::read_dir(h).unwrap().flatten() {
                let name = e
                    .file_name()
                    .to_string_lossy()
                    .trim_end_matches(".pdf")
                    .to_string();
                let to = papers.join(format!("held-out-{name}"));
                std::fs::create_dir_all(&to).unwrap();
                std::fs::copy(e.path(), to.join("paper.pdf")).unwrap();
            }
        }
        None => println!(
            "AGENTERO_HELD_OUT is not set: the corpus alone (.ci/run downloads the held-out papers)"
        ),
    }
    let mut pdfs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&papers)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            std::fs::read(e.path().join("paper.pdf"))
                .ok()
                .map(|b| (name, b))
        })
        .collect();
    pdfs.sort();

    // Furniture per 1,000 pages, beside extraction.
    let mut docs: Vec<Vec<String>> = Vec::new();
    let mut extraction = Duration::ZERO;
    for (_, bytes) in &pdfs {
        let t = Instant::now();
        let limits = Limits {
            deadline: Instant::now() + Duration::from_secs(120),
        };
        if let Ok(doc) = extract(bytes, limits) {
            extraction += t.elapsed();
            docs.push(doc.pages.into_iter().map(|p| p.text).collect());
        }
    }
    let pages: usize = docs.iter().map(Vec::len).sum();
    let rounds = (5_000 / pages.max(1)).max(3);
    let t = Instant::now();
    let mut marked = 0usize;
    for _ in 0..rounds {
        for d in &docs {
            let refs: Vec<&str> = d.iter().map(String::as_str).collect();
            marked += furniture::detect(&refs).iter().map(Vec::len).sum::<usize>();
            marked += furniture::body(&refs).len();
        }
    }
    let furniture_per_page = t.elapsed().as_secs_f64() / (rounds * pages) as f64;
    let extraction_per_page = extraction.as_secs_f64() / pages as f64;
    println!(
        "furniture detection: {:.1} ms per 1,000 pages ({} documents, {pages} pages, {rounds} rounds, {marked} marks); extraction {:.0} ms per 1,000 pages; furniture / extraction = {:.4}",
        furniture_per_page * 1e6,
        docs.len(),
        extraction_per_page * 1e6,
        furniture_per_page / extraction_per_page
    );

    // Verification per citation.
    let vault = agentero::vault::Vault::open(dir.path()).unwrap();
    let mut answers = Vec::new();
    for (name, _) in &pdfs {
        let path = format!("papers/{name}/paper.pdf");
        let Some(Doc::Pages(pages)) = VaultDocs::new(&vault).doc(&path) else {
            continue;
        };
        let n = pages.len();
        for (i, page) in pages.iter().enumerate().step_by((n / 4).max(1)).take(4) {
            let words: Vec<&str> = page.split_whitespace().collect();
            if words.len() < 80 {
                continue;
            }
            let q = words[40..60].join(" ");
            let p = i + 1;
            answers.push(format!("> \"{q}\" — {path}#page={p}\n"));
            answers.push(format!(
                "> \"{}\" — {path}#page={p}\n",
                q.replacen('e', "a", 1)
            ));
            answers.push(format!(
                "> \"{q}\" — {path}#page={}\n",
                if p > 1 { p - 1 } else { p + 1 }
            ));
        }
    }
    let mut samples = Vec::new();
    for a in &answers {
        let t = Instant::now();
        let checks = citations::check(a, &[], &mut VaultDocs::new(&vault));
        samples.push(t.elapsed());
        assert_eq!(checks.len(), 1, "{a}");
    }
    report("citation check (cold)", samples, None);
    let mut docs = VaultDocs::new(&vault);
    let mut samples = Vec::new();
    for a in &answers {
        let t = Instant::now();
        citations::check(a, &[], &mut docs);
        samples.push(t.elapsed());
    }
    report("citation check (warm)", samples, None);
}
