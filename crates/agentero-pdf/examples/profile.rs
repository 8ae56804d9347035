//! Where the page-text engine spends its time, file by file: lopdf's parse of the whole file,
//! lopdf's parse of the pages' content streams, hayro-syntax's parse of the same (the parser of
//! the page images, as a candidate for text too), and the full [`agentero_pdf::extract`].
//!
//! Run: `cargo run --release -p agentero-pdf --example profile -- DIR_OR_PDF…` (a directory is
//! searched for `*.pdf` one level down, as the corpus' `papers/*/paper.pdf`). `PROFILE_ONLY=extract`
//! (or `load`, `lopdf`, `hayro`) runs one measure alone, once per file, for `time` or `perf`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentero_pdf::{Limits, extract};

fn pdfs(arg: &Path) -> Vec<PathBuf> {
    if arg.is_file() {
        return vec![arg.to_path_buf()];
    }
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir(arg) else {
        return out;
    };
    for e in dir.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(pdfs(&p));
        } else if p.extension().is_some_and(|x| x == "pdf") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn best<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        last = Some(r);
    }
    (best, last.expect("n > 0"))
}

/// lopdf: the whole file, then every page's content stream split into operators.
fn lopdf_parse(bytes: &[u8]) -> (usize, usize) {
    let Ok(doc) = lopdf::Document::load_mem(bytes) else {
        return (0, 0);
    };
    let mut ops = 0;
    let mut pages = 0;
    for id in doc.page_iter() {
        pages += 1;
        let content = doc.get_page_content(id);
        for op in lopdf::content::Content::decode_iter(&content) {
            let Ok(op) = op else { break };
            ops += 1 + op.operands.len();
        }
    }
    (pages, ops)
}

fn lopdf_load(bytes: &[u8]) -> usize {
    lopdf::Document::load_mem(bytes).map_or(0, |d| d.objects.len())
}

/// hayro-syntax: the same pages and operators (operands read, as an interpreter would).
fn hayro_parse(bytes: &[u8]) -> (usize, usize) {
    let Ok(pdf) = hayro_syntax::Pdf::new(bytes.to_vec()) else {
        return (0, 0);
    };
    let mut ops = 0;
    let mut pages = 0;
    for page in pdf.pages().iter() {
        pages += 1;
        let mut it = page.operations();
        while let Some(op) = it.next() {
            ops += 1 + op.operands().count();
        }
    }
    (pages, ops)
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let files: Vec<PathBuf> = args.iter().flat_map(|a| pdfs(a)).collect();
    // One measure alone, once per file, for CPU time under `time` or `perf`: `extract`,
    // `load` (lopdf's parse of the file), `lopdf` (and its content operators), `hayro`.
    if let Ok(only) = std::env::var("PROFILE_ONLY") {
        let mut n = 0usize;
        for f in &files {
            let Ok(bytes) = std::fs::read(f) else {
                continue;
            };
            n += match only.as_str() {
                "extract" => extract(
                    &bytes,
                    Limits {
                        deadline: Instant::now() + Duration::from_secs(120),
                    },
                )
                .map_or(0, |d| d.pages.len()),
                "load" => lopdf_load(&bytes),
                "lopdf" => lopdf_parse(&bytes).1,
                _ => hayro_parse(&bytes).1,
            };
        }
        println!("{only}: {n}");
        return;
    }
    let only_extract = false;
    let rounds: usize = std::env::var("PROFILE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    println!("| file | pages | lopdf load ms | lopdf load+ops ms | hayro ops ms | extract ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut tot = [Duration::ZERO; 4];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let limits = || Limits {
            deadline: Instant::now() + Duration::from_secs(120),
        };
        let (t_ex, doc) = best(rounds, || extract(&bytes, limits()));
        let pages = doc.map_or(0, |d| d.pages.len());
        if only_extract {
            tot[3] += t_ex;
            continue;
        }
        let (t_load, _) = best(rounds, || lopdf_load(&bytes));
        let (t_lo, _) = best(rounds, || lopdf_parse(&bytes));
        let (t_ha, _) = best(rounds, || hayro_parse(&bytes));
        for (slot, t) in tot.iter_mut().zip([t_load, t_lo, t_ha, t_ex]) {
            *slot += t;
        }
        let name = f
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!(
            "| {} | {pages} | {:.1} | {:.1} | {:.1} | {:.1} |",
            &name[..name.len().min(36)],
            ms(t_load),
            ms(t_lo),
            ms(t_ha),
            ms(t_ex)
        );
    }
    println!(
        "| **total** | | **{:.1}** | **{:.1}** | **{:.1}** | **{:.1}** |",
        ms(tot[0]),
        ms(tot[1]),
        ms(tot[2]),
        ms(tot[3])
    );
}
