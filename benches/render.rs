//! Page images at 100 dpi on the real corpus (`AGENTERO_CORPUS`, default `../shared/corpus`):
//! our renderer (hayro, in process, the PDF parsed anew for every page as a fresh page load
//! does) beside `pdftoppm -r 100` and `mutool draw -r 100` (one process per page, as a script
//! would run them), p50/p99 per page and the ratios, in one run. Then the TUI's path: a page
//! from the page cache (PNG decode) against a render.
//!
//! Then the bounds: a flate bomb (4 MB that inflates to 4 GiB) and a page that takes minutes
//! to draw, rendered through the bounded child as the app does: time to refusal and the child's
//! peak RSS; and the cost of the child on normal pages (isolated against in process).
//!
//! Then the image view's zoom and pan (`render/zoom.rs`; `-- zoom` runs only that).
//!
//! `cargo bench --bench render` (release). Pages: the first five of every paper.

mod common;
#[path = "../tests/it/common/hostile_pdf.rs"]
mod hostile_pdf;
#[path = "render/zoom.rs"]
mod zoom;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::render::{self, Bounds, PageCache, Renderer};
use agentero::vault::{Vault, pdf};

const DPI: u32 = 100;
const PAGES_PER_PAPER: u32 = 5;

fn pdfs(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            pdfs(&p, out);
        } else if p.extension().is_some_and(|x| x == "pdf") {
            out.push(p);
        }
    }
}

fn timed(cmd: &mut Command) -> Option<Duration> {
    let t = Instant::now();
    let ok = cmd.output().ok()?.status.success();
    ok.then(|| t.elapsed())
}

/// The largest peak RSS (MiB) of the children reaped so far (their own children included).
fn children_peak_mib() -> f64 {
    // SAFETY: getrusage writes into the struct we own.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

/// Hostile pages through the bounded child with the default bounds. First in the run, so the
/// children's peak RSS is the bomb's own.
fn bounded(renderer: &Renderer) {
    let dir = tempfile::tempdir().unwrap();
    let b = renderer.bounds();
    println!(
        "## Hostile pages, bounded child ({} MiB address space, {} s)\n",
        b.memory >> 20,
        b.time.as_secs()
    );
    for (what, bytes) in [
        (
            "flate bomb (content stream, 4 GiB of zeros)",
            hostile_pdf::content_bomb(),
        ),
        (
            "flate bomb (image stream, 2 GiB of zeros)",
            hostile_pdf::image_bomb(),
        ),
        (
            "image declaring 100000x100000 px",
            hostile_pdf::huge_image(),
        ),
        (
            "slow page (10^6 full-page fills)",
            hostile_pdf::slow_page(6),
        ),
    ] {
        let f = dir.path().join("hostile.pdf");
        std::fs::write(&f, &bytes).unwrap();
        let t = Instant::now();
        let r = renderer.render_file(&f, 1, DPI);
        let took = t.elapsed();
        let said = match r {
            Ok(_) => "rendered (not refused!)".to_string(),
            Err(e) => e.to_string(),
        };
        println!(
            "{what}, {} kB: refused in {:.3} s, children's peak RSS so far {:.0} MiB: {said}",
            bytes.len() / 1000,
            took.as_secs_f64(),
            children_peak_mib()
        );
    }
    println!();
}

fn main() {
    let renderer = Renderer::new(env!("CARGO_BIN_EXE_agentero"), Bounds::default());
    let corpus = common::corpus();
    let mut files = Vec::new();
    pdfs(&corpus, &mut files);
    files.sort();
    if std::env::args().any(|a| a == "zoom") {
        zoom::run(&corpus, &files);
        return;
    }
    bounded(&renderer);
    let out = tempfile::tempdir().unwrap();
    let png = out.path().join("page");
    let have = |tool: &str| Command::new(tool).arg("-v").output().is_ok();
    let (has_poppler, has_mutool) = (have("pdftoppm"), have("mutool"));
    let (mut ours, mut poppler, mut mupdf) = (Vec::new(), Vec::new(), Vec::new());
    let (mut isolated, mut refused) = (Vec::new(), Vec::new());
    // One process for a paper's first pages, per page: the tools' start-up shared.
    let (mut poppler_run, mut mupdf_run) = (Vec::new(), Vec::new());
    let mut failed = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let count = match pdf::extract(
            &bytes,
            pdf::Limits {
                deadline: Instant::now() + Duration::from_secs(60),
            },
        ) {
            Ok(d) => d.pages.len() as u32,
            Err(_) => continue,
        };
        let last = count.min(PAGES_PER_PAPER);
        let l = last.to_string();
        if has_poppler
            && let Some(d) = timed(
                Command::new("pdftoppm")
                    .args(["-r", "100", "-png", "-f", "1", "-l", &l])
                    .arg(f)
                    .arg(&png),
            )
        {
            poppler_run.push(d / last);
        }
        if has_mutool
            && let Some(d) = timed(
                Command::new("mutool")
                    .args(["draw", "-q", "-r", "100", "-o"])
                    .arg(out.path().join("run-%d.png"))
                    .arg(f)
                    .arg(format!("1-{last}")),
            )
        {
            mupdf_run.push(d / last);
        }
        for page in 1..=last {
            let t = Instant::now();
            let r = render::render(&bytes, page, DPI);
            let took = t.elapsed();
            match r {
                Ok(img) => {
                    std::hint::black_box(img);
                    ours.push(took);
                }
                Err(_) => {
                    failed += 1;
                    continue;
                }
            }
            let t = Instant::now();
            match renderer.render_file(f, page, DPI) {
                Ok(img) => {
                    std::hint::black_box(img);
                    isolated.push(t.elapsed());
                }
                Err(e) => refused.push(format!("{} p.{page}: {e}", f.display())),
            }
            let n = page.to_string();
            if has_poppler
                && let Some(d) = timed(
                    Command::new("pdftoppm")
                        .args(["-r", "100", "-png", "-f", &n, "-l", &n, "-singlefile"])
                        .arg(f)
                        .arg(&png),
                )
            {
                poppler.push(d);
            }
            if has_mutool
                && let Some(d) = timed(
                    Command::new("mutool")
                        .args(["draw", "-q", "-r", "100", "-o"])
                        .arg(png.with_extension("mu.png"))
                        .arg(f)
                        .arg(&n),
                )
            {
                mupdf.push(d);
            }
        }
    }
    println!(
        "## Page render at {DPI} dpi: {} pages of {} PDFs ({failed} we could not render)\n",
        ours.len(),
        files.len()
    );
    common::report("ours (hayro, in process)", ours.clone(), None);
    common::report("ours (hayro, bounded child)", isolated.clone(), None);
    println!(
        "pages rendered in process but refused by the bounded child: {}",
        refused.len()
    );
    for r in &refused {
        println!("  {r}");
    }
    if !poppler.is_empty() {
        common::report("pdftoppm -r 100", poppler.clone(), None);
    }
    if !mupdf.is_empty() {
        common::report("mutool draw -r 100", mupdf.clone(), None);
    }
    let p = |mut v: Vec<Duration>, q: f64| {
        v.sort();
        common::pct(&v, q).as_secs_f64()
    };
    if !poppler_run.is_empty() {
        common::report("pdftoppm, one run per paper", poppler_run.clone(), None);
    }
    if !mupdf_run.is_empty() {
        common::report("mutool, one run per paper", mupdf_run.clone(), None);
    }
    println!(
        "bounded child/in process: p50 {:.2}x, p99 {:.2}x",
        p(isolated.clone(), 0.5) / p(ours.clone(), 0.5),
        p(isolated.clone(), 0.99) / p(ours.clone(), 0.99)
    );
    for (name, other) in [
        ("pdftoppm", &poppler),
        ("mutool", &mupdf),
        ("pdftoppm (one run per paper)", &poppler_run),
        ("mutool (one run per paper)", &mupdf_run),
    ] {
        if !other.is_empty() {
            println!(
                "ours/{name}: p50 {:.2}x, p99 {:.2}x",
                p(ours.clone(), 0.5) / p(other.clone(), 0.5),
                p(ours.clone(), 0.99) / p(other.clone(), 0.99)
            );
        }
    }

    // The TUI's path for one page: from the cache (decode the PNG) or rendered and stored.
    let vault_dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, vault_dir.path());
    let vault = Vault::open(vault_dir.path()).unwrap();
    let cache = PageCache::new(&vault);
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let mut some = Vec::new();
    pdfs(vault_dir.path(), &mut some);
    some.sort();
    for (i, f) in some.iter().enumerate() {
        let sha = format!("{:064x}", i + 1);
        let t = Instant::now();
        if cache.get_or_render(&renderer, f, &sha, 1, DPI).is_err() {
            continue;
        }
        cold.push(t.elapsed());
        let t = Instant::now();
        let (_, cached) = cache.get_or_render(&renderer, f, &sha, 1, DPI).unwrap();
        assert!(cached);
        warm.push(t.elapsed());
    }
    println!();
    common::report("page 1 uncached (render+store)", cold.clone(), None);
    common::report("page 1 from the cache", warm.clone(), None);
    println!("cached/uncached: p50 {:.2}x", p(warm, 0.5) / p(cold, 0.5));
    println!();
    zoom::run(&corpus, &files);
}
