//! OCR of scanned pages: pages without a usable text layer (none, or garbage) rendered by our
//! own renderer at 300 dpi and read by `tesseract`, in the bounded child process rendering uses
//! (`process.rs`), one page at a time; tesseract's TSV read into words with boxes and
//! confidences (`tsv.rs`); the result kept by the PDF's content hash in the state folder
//! (`cache.rs`), never in the PDF or its folder. Extraction puts a cached page's text where the
//! text layer had none ([`apply_cached`]), so search, the context tools and citations read it,
//! and the paper's record says which pages are OCR and how confident tesseract was
//! ([`OcrPageNote`]). [`run`] is the pass an index run makes over the pages still waiting.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use super::Vault;
use super::catalog::{Catalog, Status};
use super::pdf::PageText;
use super::render::{Bounds, RenderError};
use super::scan::EntryKind;

mod cache;
mod process;
pub mod tsv;

pub use cache::{LOW_CONFIDENCE, OcrCache, OcrPage};
pub use process::{Engine, OCR_FLAG, OcrRunner, Raw, child_main, default_bounds, valid_language};

/// The resolution pages are rendered at for tesseract.
pub const DPI: u32 = 300;
/// The Debian package that installs tesseract (with English), and the prefix of its language packs.
pub const PACKAGE: &str = "tesseract-ocr";

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum OcrError {
    #[error(
        "tesseract is not available ({0}): install it with `sudo apt install tesseract-ocr` (and a language pack such as tesseract-ocr-jpn) to read scanned pages"
    )]
    Missing(String),
    #[error(
        "tesseract has no language pack for {0}: install it with `sudo apt install tesseract-ocr-{0}`"
    )]
    NoLanguage(String),
    #[error("not a tesseract language: {0}")]
    BadLanguage(String),
    #[error("{0}")]
    Render(RenderError),
    #[error("tesseract took longer than {secs} s on page {page}")]
    TookTooLong { page: u32, secs: u64 },
    #[error("OCR of page {page} failed: {reason}")]
    Failed { page: u32, reason: String },
    #[error("tesseract's output on page {page} cannot be read: {reason}")]
    Garbage { page: u32, reason: String },
}

/// Which pages of a paper are OCR text and what made them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPageNote {
    pub page: u32,
    /// "tesseract 5.3.0".
    pub engine: String,
    pub languages: Vec<String>,
    /// Mean word confidence, 0 to 1.
    pub confidence: f32,
    pub words: u32,
}

impl OcrPageNote {
    /// `OCR (tesseract 5.3.0, eng) · confidence 0.91`: what the text view and the context
    /// tools say of the page.
    pub fn says(&self) -> String {
        format!(
            "OCR ({}, {}) · confidence {:.2}",
            self.engine,
            self.languages.join("+"),
            self.confidence
        )
    }
}

/// Whether a text layer is worth reading: not empty, and not garbage — a quarter or more of
/// replacement, private-use or control characters (what a font without a usable mapping to
/// Unicode gives), or almost no letters or digits at all (under one sign in ten). A page of
/// code or formulas, thick with `\`, `{`, `_` and operators, is text and is kept: OCR would read
/// it worse.
pub fn usable_text(text: &str) -> bool {
    let (mut total, mut words, mut junk) = (0usize, 0usize, 0usize);
    for c in text.chars() {
        // Most signs are ASCII: answered without Unicode's tables.
        if c.is_ascii() {
            match c {
                '\t'..='\r' | ' ' => {}
                _ => {
                    total += 1;
                    words += usize::from(c.is_ascii_alphanumeric());
                    junk += usize::from(c.is_ascii_control());
                }
            }
            continue;
        }
        // CJK ideographs and Hangul syllables: letters, all of them.
        if ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{AC00}'..='\u{D7A3}').contains(&c) {
            total += 1;
            words += 1;
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        total += 1;
        if c.is_alphanumeric() {
            words += 1;
        }
        if c == '\u{FFFD}' || ('\u{E000}'..='\u{F8FF}').contains(&c) || c.is_control() {
            junk += 1;
        }
    }
    if total == 0 {
        return false;
    }
    if total < 20 {
        return junk == 0;
    }
    junk * 4 < total && words * 10 >= total
}

/// What [`apply_cached`] did to a paper's pages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// The pages that are OCR now (or were read and had no words).
    pub notes: Vec<OcrPageNote>,
    /// Pages without a usable text layer and no OCR yet.
    pub waiting: Vec<u32>,
}

/// Puts the cached OCR of the document `sha256` in the place of its pages without a usable
/// text layer (a garbage layer is replaced only by OCR that found words).
pub fn apply_cached(cache: &OcrCache, sha256: &str, pages: &mut [PageText]) -> Applied {
    let mut applied = Applied::default();
    for p in pages.iter_mut() {
        if usable_text(&p.text) {
            continue;
        }
        let Some(o) = cache.get(sha256, p.number) else {
            applied.waiting.push(p.number);
            continue;
        };
        let (text, _) = o.text();
        if !text.trim().is_empty() {
            p.text = text;
        }
        applied.notes.push(OcrPageNote {
            page: p.number,
            confidence: o.confidence(),
            words: o.words.len() as u32,
            engine: o.engine,
            languages: o.languages,
        });
    }
    applied
}

/// How an index run reads scanned pages.
#[derive(Debug, Clone)]
pub struct OcrOptions {
    pub tesseract: PathBuf,
    pub languages: Vec<String>,
    /// The agentero executable, for the bounded child.
    pub exe: PathBuf,
    pub bounds: Bounds,
    /// Set to stop after the page being read.
    pub cancel: Arc<AtomicBool>,
    /// `--ocr`: a missing tesseract is an error, not a hint.
    pub required: bool,
}

impl OcrOptions {
    /// tesseract from `PATH`, in `languages`, run by this executable.
    pub fn new(languages: Vec<String>) -> OcrOptions {
        OcrOptions {
            tesseract: PathBuf::from("tesseract"),
            languages,
            exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("agentero")),
            bounds: default_bounds(),
            cancel: Arc::new(AtomicBool::new(false)),
            required: false,
        }
    }
}

/// What an OCR pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OcrSummary {
    /// "tesseract 5.3.0", when it ran.
    pub engine: Option<String>,
    /// Pages read in this pass.
    pub pages: usize,
    /// Pages still waiting (tesseract missing, the pass cancelled).
    pub waiting: usize,
    /// Papers with pages read in this pass (extracted again to take them in).
    pub papers: Vec<String>,
    /// Pages not read, with the reason.
    pub failed: Vec<(String, u32, String)>,
    /// Why nothing was read at all (tesseract missing: how to install it).
    pub unavailable: Option<String>,
    pub cancelled: bool,
}

/// The pages of the catalog's papers still to read: the ones without a usable text layer and no
/// OCR, and the OCR'd ones read in other languages than `languages`.
fn waiting(vault: &Vault, catalog: &Catalog, languages: &[String]) -> Vec<(String, String, u32)> {
    let mut out = Vec::new();
    for (path, e) in &catalog.entries {
        if e.kind != EntryKind::Paper
            || e.status == Status::Failed
            || (e.ocr == 0 && e.status != Status::NoText)
        {
            continue;
        }
        let Some(record) = vault.record(&e.sha256) else {
            continue;
        };
        let mut pages = record.pages_for_ocr.clone();
        pages.extend(
            record
                .pages_ocr
                .iter()
                .filter(|n| n.languages != languages)
                .map(|n| n.page),
        );
        pages.sort_unstable();
        pages.dedup();
        out.extend(
            pages
                .into_iter()
                .map(|p| (path.clone(), e.sha256.clone(), p)),
        );
    }
    out
}

/// Reads the pages of `catalog`'s papers that wait for OCR, one at a time, each kept in the
/// cache as soon as it is read; `progress(path, page, done, total)` before each.
pub fn run(
    vault: &Vault,
    catalog: &Catalog,
    opts: &OcrOptions,
    progress: &mut dyn FnMut(&str, u32, usize, usize),
) -> Result<OcrSummary, OcrError> {
    let mut summary = OcrSummary::default();
    let cache = OcrCache::new(vault);
    // Pages read before a run was stopped are in the cache already: their papers are only
    // extracted again, to take them in.
    let (done, todo): (Vec<_>, Vec<_>) = waiting(vault, catalog, &opts.languages)
        .into_iter()
        .partition(|(_, sha, page)| {
            cache
                .get(sha, *page)
                .is_some_and(|c| c.languages == opts.languages)
        });
    for (path, _, _) in done {
        if !summary.papers.contains(&path) {
            summary.papers.push(path);
        }
    }
    if todo.is_empty() {
        return Ok(summary);
    }
    let engine = match Engine::detect(&opts.tesseract)
        .and_then(|e| e.check_languages(&opts.languages).map(|()| e))
    {
        Ok(e) => e,
        Err(e) if !opts.required => {
            summary.waiting = todo.len();
            summary.unavailable = Some(e.to_string());
            return Ok(summary);
        }
        Err(e) => return Err(e),
    };
    summary.engine = Some(engine.name());
    let runner = OcrRunner {
        exe: opts.exe.clone(),
        bounds: opts.bounds,
        tesseract: engine.command.clone(),
    };
    let total = todo.len();
    for (n, (path, sha, page)) in todo.iter().enumerate() {
        if opts.cancel.load(Ordering::Relaxed) {
            summary.cancelled = true;
            summary.waiting = total - n;
            break;
        }
        progress(path, *page, n, total);
        let abs = match vault.read_path(path) {
            Ok(a) => a,
            Err(why) => {
                summary.failed.push((path.clone(), *page, why.to_string()));
                continue;
            }
        };
        let read = runner
            .page(&abs, *page, DPI, &opts.languages)
            .and_then(|raw| {
                let words = tsv::parse(&raw.tsv, raw.width, raw.height).map_err(|reason| {
                    OcrError::Garbage {
                        page: *page,
                        reason,
                    }
                })?;
                Ok(OcrPage {
                    format: cache::FORMAT,
                    sha256: sha.clone(),
                    page: *page,
                    engine: engine.name(),
                    languages: opts.languages.clone(),
                    dpi: DPI,
                    width: raw.width,
                    height: raw.height,
                    transform: raw.transform,
                    words,
                })
            });
        match read.map(|p| cache.put(&p)) {
            Ok(Ok(())) => {
                summary.pages += 1;
                if !summary.papers.contains(path) {
                    summary.papers.push(path.clone());
                }
            }
            Ok(Err(why)) => summary.failed.push((path.clone(), *page, why)),
            Err(e) => summary.failed.push((path.clone(), *page, e.to_string())),
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_ocr_takes_the_place_of_missing_or_garbage_text_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OcrCache::at(dir.path().join(".agentero").join("ocr"));
        let sha = "c".repeat(64);
        for page in [1, 2, 3] {
            cache
                .put(&OcrPage {
                    format: cache::FORMAT,
                    sha256: sha.clone(),
                    page,
                    engine: "tesseract 5.3.0".into(),
                    languages: vec!["eng".into()],
                    dpi: DPI,
                    width: 100,
                    height: 100,
                    transform: [1.0, 0.0, 0.0, -1.0, 0.0, 100.0],
                    words: vec![tsv::Word {
                        text: format!("scanned{page}"),
                        conf: 90.0,
                        bbox: [0, 0, 10, 10],
                        line: 0,
                        par: 0,
                    }],
                })
                .unwrap();
        }
        let page = |number, text: &str| PageText {
            number,
            label: None,
            text: text.into(),
            ..PageText::default()
        };
        let mut pages = vec![
            page(1, ""),
            page(2, &"\u{FFFD}".repeat(40)),
            page(3, "A text layer that reads well, kept as it is."),
            page(4, ""),
        ];
        let applied = apply_cached(&cache, &sha, &mut pages);
        let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "scanned1",
                "scanned2",
                "A text layer that reads well, kept as it is.",
                ""
            ]
        );
        let noted: Vec<u32> = applied.notes.iter().map(|n| n.page).collect();
        assert_eq!(noted, [1, 2]);
        assert_eq!(applied.waiting, [4]);
        assert_eq!(
            applied.notes[0].says(),
            "OCR (tesseract 5.3.0, eng) · confidence 0.90"
        );
    }

    #[test]
    fn garbage_text_layers_are_not_usable() {
        assert!(!usable_text(""));
        assert!(!usable_text("  \n "));
        assert!(usable_text("Page 4"));
        assert!(usable_text(
            "The results in Table 2 (p < 0.05) hold for x = 3."
        ));
        assert!(usable_text("日本語の文章です。"));
        assert!(!usable_text(&"\u{FFFD}".repeat(30)));
        assert!(!usable_text(&"\u{E012}\u{E013} ".repeat(30)));
        assert!(!usable_text(&"#$%&*@!^ ".repeat(10)));
        assert!(!usable_text("\u{FFFD}\u{FFFD}"));
        // Code and formulas are text, however many signs they hold.
        assert!(usable_text(
            "\\cs_new:Npn \\__kernel_tl_set:Nx #1#2 { \\tl_set:Nx #1 { #2 } } % (x_{i} + y^{2})"
        ));
        // Control characters are junk, white space is not counted, for ASCII as for the rest.
        assert!(!usable_text(&"ab\u{1}\u{2}".repeat(10)));
        assert!(usable_text(&"abcdef\u{1}\t\u{b}\u{c}\r\n    ".repeat(10)));
        assert!(!usable_text(&"ab\u{85}\u{7f}\u{7f}".repeat(10)));
        // The ranges counted as letters without Unicode's tables are letters in them.
        for c in ('\u{4E00}'..='\u{9FFF}').chain('\u{AC00}'..='\u{D7A3}') {
            assert!(
                c.is_alphanumeric() && !c.is_whitespace() && !c.is_control(),
                "{c}"
            );
        }
    }
}
