//! One paper, end to end: PDF text (isolated from panics and endless loops), metadata,
//! references and sections, gathered into a [`PaperRecord`] plus its page texts. [`record`] is
//! the one way a record is built: the indexer stores it, the paper pane shows it before the
//! paper is indexed, the context tools read a granted paper the index does not hold yet.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::LazyLock;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::Vault;
use super::fsutil::sha256_hex;
use super::meta::{self, PaperMeta};
use super::pdf::{self, Limits, OutlineItem, PageText, PdfDocument, PdfError};
use super::refs::{self, RefSource, Reference};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    pub title: String,
    pub level: u32,
    /// 1-based physical page where the section starts.
    pub page: u32,
}

/// What the vault knows about one paper besides its page texts (those live in the index).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperRecord {
    pub path: String,
    pub sha256: String,
    pub pages: u32,
    /// Page labels by physical page (index 0 = page 1), `None` where the PDF defines none.
    pub page_labels: Vec<Option<String>>,
    /// Physical pages without a text layer.
    pub pages_without_text: Vec<u32>,
    /// Physical pages whose text could not be decoded (fonts without a usable mapping to
    /// Unicode): their text is incomplete, and what could not be read is left out, not guessed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_undecodable: Vec<u32>,
    /// Pages whose text is OCR (no usable text layer; read by tesseract), with what read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_ocr: Vec<super::ocr::OcrPageNote>,
    /// Pages without a usable text layer that have no OCR yet.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_for_ocr: Vec<u32>,
    pub meta: PaperMeta,
    pub references: Vec<Reference>,
    pub references_source: RefSource,
    pub sections: Vec<Section>,
    pub was_encrypted: bool,
    /// Problems that did not stop extraction (a broken sidecar, say).
    pub warnings: Vec<String>,
}

impl PaperRecord {
    /// What read page `page`, when its text is OCR.
    pub fn ocr_note(&self, page: u32) -> Option<&super::ocr::OcrPageNote> {
        self.pages_ocr
            .iter()
            .find(|n| n.page == page && n.words > 0)
    }

    pub fn label(&self, page: u32) -> Option<&str> {
        self.page_labels
            .get(page.checked_sub(1)? as usize)
            .and_then(|l| l.as_deref())
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("{0}")]
    Pdf(#[from] PdfError),
    #[error("the PDF parser crashed on this file ({0})")]
    Panicked(String),
    #[error("text extraction did not finish within {0} s")]
    TimedOut(u64),
}

/// Runs `work` on its own thread; a panic or overrunning `limit` becomes an error and the
/// caller carries on (an overrunning thread is abandoned: it stops at its own deadline check).
pub fn isolated<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ExtractError> {
    Isolation::default().run(limit, work)
}

type IsolatedJob = Box<dyn FnOnce() + Send>;

/// One thread kept for a sequence of [`isolated`] runs (an indexing worker's extractions).
///
/// The allocator keeps, per thread, about what the largest job that thread ran needed; a fresh
/// thread per paper passes those arenas from thread to thread until every one has held the
/// vault's largest parse. A thread that stays keeps only the peak of the files it was given. It
/// survives panics; one that overruns its limit is abandoned and the next run starts another.
#[derive(Default)]
pub struct Isolation {
    thread: Option<mpsc::Sender<IsolatedJob>>,
}

impl Isolation {
    pub fn run<T: Send + 'static>(
        &mut self,
        limit: Duration,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ExtractError> {
        let (tx, rx) = mpsc::channel();
        let job: IsolatedJob = Box::new(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = tx.send(result);
        });
        let thread = match self.thread.take() {
            Some(t) => t,
            None => start_isolated_thread()?,
        };
        // The kept thread ends only when it is dropped here, so a send that fails means it died.
        thread
            .send(job)
            .map_err(|_| ExtractError::Io("the extraction thread stopped".into()))?;
        self.thread = Some(thread);
        match rx.recv_timeout(limit) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(payload)) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(ExtractError::Panicked(msg))
            }
            Err(_) => {
                // Still busy (or gone): leave it to finish on its own.
                self.thread = None;
                Err(ExtractError::TimedOut(limit.as_secs()))
            }
        }
    }
}

fn start_isolated_thread() -> Result<mpsc::Sender<IsolatedJob>, ExtractError> {
    let (tx, jobs) = mpsc::channel::<IsolatedJob>();
    std::thread::Builder::new()
        .name(ISOLATED_THREAD.to_string())
        .spawn(move || {
            for job in jobs {
                job();
            }
        })
        .map_err(|e| ExtractError::Io(format!("cannot start a worker thread: {e}")))?;
    Ok(tx)
}

/// Name of the threads [`isolated`] starts; the panic hook keeps their panics off the terminal.
pub const ISOLATED_THREAD: &str = "agentero-isolated";

/// The time one paper's extraction may take, unless a run says otherwise (`agentero index
/// --time-limit`).
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// A paper's file, as its record is built from.
pub struct PaperFile<'a> {
    /// Where it is read from (its sidecars sit beside it).
    pub abs: &'a Path,
    /// Its vault path.
    pub rel: &'a str,
    pub bytes: Vec<u8>,
    pub sha256: String,
    /// Metadata from outside the file (its Zotero item), which replaces what the PDF says.
    pub meta: Option<PaperMeta>,
    /// The OCR read of its scanned pages, when there is one ([`super::ocr`]).
    pub ocr: Option<&'a super::ocr::OcrCache>,
}

/// A paper's record and its page texts, extracted on `isolation`'s thread within `time_limit`.
pub fn record(
    isolation: &mut Isolation,
    file: PaperFile,
    time_limit: Duration,
) -> Result<(PaperRecord, Vec<PageText>), ExtractError> {
    let PaperFile {
        abs,
        rel,
        bytes,
        sha256,
        meta,
        ocr,
    } = file;
    let (mut record, pages) = extract_paper(isolation, abs, rel, bytes, sha256, time_limit, ocr)?;
    if let Some(meta) = meta {
        record.meta = meta;
    }
    Ok((record, pages))
}

/// [`record`] of the paper at `rel` in `vault`, read from its file now (through
/// [`Vault::read_path`]) with its Zotero item's metadata and its pages' OCR, within
/// [`TIME_LIMIT`].
pub fn record_of(vault: &Vault, rel: &str) -> Result<(PaperRecord, Vec<PageText>), ExtractError> {
    let abs = vault
        .read_path(rel)
        .map_err(|why| ExtractError::Io(why.to_string()))?;
    let bytes = std::fs::read(&abs).map_err(|e| ExtractError::Io(e.to_string()))?;
    let ocr = super::ocr::OcrCache::new(vault);
    let file = PaperFile {
        abs: &abs,
        rel,
        sha256: sha256_hex(&bytes),
        bytes,
        meta: outside_meta(vault, rel),
        ocr: Some(&ocr),
    };
    record(&mut Isolation::default(), file, TIME_LIMIT)
}

/// The metadata of the paper at `rel` from outside its file: its Zotero item's, in a Zotero
/// library.
pub fn outside_meta(vault: &Vault, rel: &str) -> Option<PaperMeta> {
    vault.zotero().and_then(|z| z.meta(rel))
}

/// Extracts one PDF's pages and everything derived from them, on `isolation`'s thread: the
/// record as the file alone gives it ([`record`] without metadata from outside); pages without
/// a usable text layer take their OCR from `ocr` when it has them.
pub fn extract_paper(
    isolation: &mut Isolation,
    abs: &Path,
    rel: &str,
    bytes: Vec<u8>,
    sha256: String,
    time_limit: Duration,
    ocr: Option<&super::ocr::OcrCache>,
) -> Result<(PaperRecord, Vec<PageText>), ExtractError> {
    let deadline = Instant::now() + time_limit;
    let mut doc: PdfDocument = isolation
        .run(time_limit + Duration::from_secs(2), move || {
            pdf::extract(&bytes, Limits { deadline })
        })??;
    let ocr = ocr
        .map(|cache| super::ocr::apply_cached(cache, &sha256, &mut doc.pages))
        .unwrap_or_default();
    let mut warnings = Vec::new();
    let sidecar = meta::read_sidecar(abs).unwrap_or_else(|e| {
        warnings.push(e);
        None
    });
    let meta = meta::resolve(
        sidecar,
        &doc.info,
        &doc.pages,
        doc.title_hint.as_deref(),
        rel,
    );
    let (references_source, references) = match refs::read_sidecar(abs) {
        Ok(Some(found)) => found,
        Ok(None) => (RefSource::Extracted, extract_refs(&doc.pages)),
        Err(e) => {
            warnings.push(e);
            (RefSource::Extracted, extract_refs(&doc.pages))
        }
    };
    let sections = if doc.outline.is_empty() {
        sections_from_headings(&doc.pages)
    } else {
        sections_from_outline(&doc.outline)
    };
    let record = PaperRecord {
        path: rel.to_string(),
        sha256,
        pages: doc.pages.len() as u32,
        page_labels: doc.pages.iter().map(|p| p.label.clone()).collect(),
        pages_without_text: doc
            .pages
            .iter()
            .filter(|p| p.text.trim().is_empty())
            .map(|p| p.number)
            .collect(),
        pages_undecodable: doc.undecodable_pages.clone(),
        pages_ocr: ocr.notes,
        pages_for_ocr: ocr.waiting,
        meta,
        references,
        references_source,
        sections,
        was_encrypted: doc.was_encrypted,
        warnings,
    };
    Ok((record, doc.pages))
}

fn extract_refs(pages: &[PageText]) -> Vec<Reference> {
    let texts: Vec<&str> = pages.iter().map(|p| p.text.as_str()).collect();
    refs::extract_from_text(&texts)
}

fn sections_from_outline(outline: &[OutlineItem]) -> Vec<Section> {
    static NUMBERED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(\d+(?:\.\d+)*)\.?\s+(.+)$").expect("valid regex"));
    outline
        .iter()
        .filter_map(|item| {
            let title = item.title.split_whitespace().collect::<Vec<_>>().join(" ");
            if title.is_empty() {
                return None;
            }
            let (number, title) = match NUMBERED.captures(&title) {
                Some(c) => (Some(c[1].to_string()), c[2].to_string()),
                None => (None, title),
            };
            Some(Section {
                number,
                title,
                level: item.level,
                page: item.page.unwrap_or(1),
            })
        })
        .collect()
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5})\.?\s+(\p{Lu}[^\n]{1,90})$")
        .expect("valid regex")
});

/// Numbered headings ("2.1 Reading order", "III. METHOD") found in the page text, kept only when
/// their numbers run forward, which filters out numbered list items and table rows. A title
/// found on more than one page is a running head after its page number ("2 TORSTEN HOTHORN,
/// FRANK BRETZ, AND ALAN GENZ"), not a section: a section is headed once.
pub fn sections_from_headings(pages: &[PageText]) -> Vec<Section> {
    // Every numbered line (page, number, title), read once, and the pages each title is on.
    let numbered: Vec<(u32, String, String)> = pages
        .iter()
        .flat_map(|page| {
            page.text.lines().filter_map(|line| {
                let c = HEADING.captures(line.trim())?;
                Some((page.number, c[1].to_string(), c[2].trim().to_string()))
            })
        })
        .collect();
    let mut pages_of: HashMap<String, BTreeSet<u32>> = HashMap::new();
    for (page, _, title) in &numbered {
        pages_of
            .entry(title.to_lowercase())
            .or_default()
            .insert(*page);
    }
    let mut out: Vec<Section> = Vec::new();
    let mut last_top: Option<u32> = None;
    for (page, number, title) in numbered {
        if pages_of[&title.to_lowercase()].len() > 1 || !is_heading_title(&title) {
            continue;
        }
        let words = title.split_whitespace().count();
        if words > 12 || title.ends_with(['.', ',', ';', ':']) || title.contains('=') {
            continue;
        }
        let top = roman_or_arabic(number.split('.').next().unwrap_or(""));
        let Some(top) = top else { continue };
        let level = number.matches('.').count() as u32;
        let ok = match last_top {
            None => top <= 2,
            Some(prev) => top == prev || top == prev + 1,
        };
        if !ok || (level > 0 && last_top != Some(top)) {
            continue;
        }
        last_top = Some(top);
        if out
            .iter()
            .any(|s| s.number.as_deref() == Some(number.as_str()))
        {
            continue;
        }
        out.push(Section {
            number: Some(number),
            title,
            level,
            page,
        });
    }
    out
}

/// Whether a numbered line's title reads as a heading's: not a contents line ("Introduction 3",
/// "Help . . . . 12": a title and its page), and a word of three letters or more (a table row
/// such as "4 NA NA NA NA" or "4 M 80 1.2" has none).
fn is_heading_title(title: &str) -> bool {
    let last = title.split_whitespace().last().unwrap_or("");
    let page_at_end = title.split_whitespace().count() > 1
        && last.len() <= 4
        && last.chars().all(|c| c.is_ascii_digit());
    !page_at_end
        && !title.contains(". .")
        && !title.contains("..")
        && title
            .split(|c: char| !c.is_alphabetic())
            .any(|w| w.chars().count() >= 3)
}

fn roman_or_arabic(s: &str) -> Option<u32> {
    if let Ok(n) = s.parse() {
        return Some(n);
    }
    let mut total = 0u32;
    let mut prev = 0u32;
    for c in s.chars().rev() {
        let v = match c {
            'I' => 1,
            'V' => 5,
            'X' => 10,
            _ => return None,
        };
        if v < prev {
            total = total.checked_sub(v)?;
        } else {
            total += v;
            prev = v;
        }
    }
    (total > 0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolation_catches_panics_and_loops() {
        let r: Result<u32, _> = isolated(Duration::from_secs(5), || panic!("boom"));
        assert_eq!(r, Err(ExtractError::Panicked("boom".into())));
        let r: Result<(), _> = isolated(Duration::from_millis(200), || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(3) {
                std::hint::spin_loop();
            }
        });
        assert_eq!(r, Err(ExtractError::TimedOut(0)));
        assert_eq!(isolated(Duration::from_secs(5), || 7), Ok(7));
    }

    #[test]
    fn a_kept_thread_runs_on_after_a_panic_and_is_replaced_after_an_overrun() {
        let thread_id = || std::thread::current().id();
        let mut iso = Isolation::default();
        let first = iso.run(Duration::from_secs(5), thread_id).unwrap();
        let r: Result<(), _> = iso.run(Duration::from_secs(5), || panic!("boom"));
        assert_eq!(r, Err(ExtractError::Panicked("boom".into())));
        assert_eq!(
            iso.run(Duration::from_secs(5), thread_id),
            Ok(first),
            "the same thread, after a panic"
        );
        let r: Result<(), _> = iso.run(Duration::from_millis(100), || {
            std::thread::sleep(Duration::from_secs(2))
        });
        assert_eq!(r, Err(ExtractError::TimedOut(0)));
        let after = iso.run(Duration::from_secs(5), thread_id).unwrap();
        assert_ne!(after, first, "an overrunning thread is left behind");
        assert_eq!(iso.run(Duration::from_secs(5), thread_id), Ok(after));
    }

    /// Page `n` whose text is `t`.
    fn page(n: u32, t: &str) -> PageText {
        PageText {
            number: n,
            text: t.to_string(),
            ..PageText::default()
        }
    }

    #[test]
    fn headings_run_forward() {
        let pages = vec![
            page(
                1,
                "Title\n1 Introduction\ntext\n2 Method\n2.1 Reading Order\n5 Items in a list",
            ),
            page(2, "3 Results\nII. Not this\n4 Conclusion"),
        ];
        let got: Vec<(Option<String>, String, u32)> = sections_from_headings(&pages)
            .into_iter()
            .map(|s| (s.number, s.title, s.page))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("1".into()), "Introduction".into(), 1),
                (Some("2".into()), "Method".into(), 1),
                (Some("2.1".into()), "Reading Order".into(), 1),
                (Some("3".into()), "Results".into(), 2),
                (Some("4".into()), "Conclusion".into(), 2),
            ]
        );
    }

    #[test]
    fn contents_lines_and_table_rows_are_no_sections() {
        let pages = vec![
            page(
                2,
                "Contents\n1 Introduction 3\n2 Survival curves 9\n3 Getting help . . . . 12",
            ),
            page(
                3,
                "1 Introduction\ntext\n2 Survival curves\n3 NA NA NA NA\n3 M 80 1.2",
            ),
            page(4, "3 Getting help\ntext"),
        ];
        let got: Vec<(String, u32)> = sections_from_headings(&pages)
            .into_iter()
            .map(|s| (s.title, s.page))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Introduction".into(), 3),
                ("Survival curves".into(), 3),
                ("Getting help".into(), 4),
            ]
        );
    }

    #[test]
    fn a_running_head_after_its_page_number_is_no_section() {
        // R News: even pages start with the page number and the authors, which read as a
        // numbered heading, and took the real section 2's number.
        let pages = vec![
            page(
                1,
                "On Multivariate t and Gauss Probabilities in R\n1. A Simple Example\ntext",
            ),
            page(
                2,
                "2 TORSTEN HOTHORN, FRANK BRETZ, AND ALAN GENZ\ntext\n2. Algorithms\ntext",
            ),
            page(
                3,
                "ON MULTIVARIATE t AND GAUSS PROBABILITIES IN R 3\n3. Applications",
            ),
            page(4, "4 TORSTEN HOTHORN, FRANK BRETZ, AND ALAN GENZ\ntext"),
        ];
        let got: Vec<(Option<String>, String)> = sections_from_headings(&pages)
            .into_iter()
            .map(|s| (s.number, s.title))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("1".into()), "A Simple Example".into()),
                (Some("2".into()), "Algorithms".into()),
                (Some("3".into()), "Applications".into()),
            ]
        );
    }
}
