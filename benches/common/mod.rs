//! What the benchmarks share: the 1,000-paper vault built from the demo vault's PDFs, the
//! p50/p99 report line, the real corpus and folder helpers, a child process measured (wall,
//! CPU, peak RSS).
#![allow(dead_code)]

/// A missing peer, said in one line (the tests' rule: `tests/it/common/skip.rs`).
#[path = "../../tests/it/common/skip.rs"]
pub mod skip;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};

pub const PAPERS: usize = 1000;

fn pdfs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
            pdfs_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "pdf") {
            out.push(p);
        }
    }
}

pub fn build_vault(root: &Path) -> Vec<String> {
    agentero::vault::demo::write_demo_vault(root).unwrap();
    let mut demo = Vec::new();
    pdfs_under(root, &mut demo);
    demo.sort();
    let sources: Vec<Vec<u8>> = demo.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut paths = Vec::new();
    let extra = PAPERS - demo.len();
    for n in 0..extra {
        let mut bytes = sources[n % sources.len()].clone();
        bytes.extend_from_slice(format!("\n% copy {n}\n").as_bytes());
        let rel = format!("library/copy-{n:04}/paper.pdf");
        std::fs::create_dir_all(root.join(rel.rsplit_once('/').unwrap().0)).unwrap();
        std::fs::write(root.join(&rel), bytes).unwrap();
        paths.push(rel);
    }
    paths
}

pub fn pct(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

pub fn report(name: &str, mut samples: Vec<Duration>, goal: Option<Duration>) {
    samples.sort();
    let (p50, p99) = (pct(&samples, 0.5), pct(&samples, 0.99));
    let verdict = match goal {
        Some(g) if p99 < g => format!("goal p99 < {g:?}: met"),
        Some(g) => format!("goal p99 < {g:?}: MISSED"),
        None => String::new(),
    };
    println!(
        "{name:<28} n={:<4} p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  {verdict}",
        samples.len(),
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        samples.last().unwrap().as_secs_f64() * 1e3,
    );
}

/// The 1,000-paper vault in `root`, indexed: the copies' paths and the open vault.
pub fn indexed_vault(root: &Path) -> (Vec<String>, Vault) {
    let t = Instant::now();
    let copies = build_vault(root);
    let vault = Vault::open(root).unwrap();
    let summary = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    println!(
        "vault: {} papers ({} pages), built and indexed in {:.1} s",
        summary.papers,
        summary.pages,
        t.elapsed().as_secs_f64()
    );
    (copies, vault)
}

/// The corpus of real PDFs (`AGENTERO_CORPUS`, default `../shared/corpus`).
pub fn corpus() -> PathBuf {
    let dir = std::env::var_os("AGENTERO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"));
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("AGENTERO_CORPUS={} cannot be opened: {e}", dir.display()))
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), &t).unwrap();
        }
    }
}

/// Bytes of the files under `dir`.
pub fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => dir_size(&e.path()),
                    _ => e.metadata().map(|m| m.len()).unwrap_or(0),
                })
                .sum()
        })
        .unwrap_or(0)
}

/// CPU time (user + system) in a rusage.
pub fn cpu_of(usage: &libc::rusage) -> Duration {
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Peak RSS (kB) of a child process, via wait4's rusage.
pub fn run_measured(cmd: &mut Command) -> (Duration, i64, bool) {
    let (wall, _cpu, rss, ok) = run_measured_cpu(cmd);
    (wall, rss, ok)
}

/// Wall time, CPU time, peak RSS (kB) and success of a child process (not started: failed).
pub fn run_measured_cpu(cmd: &mut Command) -> (Duration, Duration, i64, bool) {
    let t = Instant::now();
    let Ok(child) = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    else {
        return (Duration::ZERO, Duration::ZERO, 0, false);
    };
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(rc, pid);
    std::mem::forget(child);
    (
        t.elapsed(),
        cpu_of(&usage),
        usage.ru_maxrss,
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
    )
}
