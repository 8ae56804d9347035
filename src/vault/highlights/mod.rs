//! agentero's own highlights: `{state}/highlights/<sha256>.json`, one file per PDF keyed by its
//! content hash, so a highlight stays with its paper when the file is renamed or moved. Each
//! change rewrites the file atomically (through [`statefs`]), so a crash leaves the previous
//! version whole. A highlight is a byte range of one page's text (as the text view shows it),
//! its text, an optional comment and its rectangles in PDF user space (for the image view).

mod export;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::annotations::{Annotation, AnnotationKind, AnnotationOrigin};
use super::statefs::{self, StateError};
use super::{Vault, render};

pub use export::markdown;

const VERSION: u32 = 1;
const DIR: &str = "highlights";
/// The colour of a new highlight (Zotero's default yellow).
pub const DEFAULT_COLOR: &str = "#ffd400";
/// Highlights kept per PDF; more are refused (a file that large is no longer a reading aid).
pub const MAX_PER_PAPER: usize = 10_000;
/// The longest comment kept, in characters.
pub const MAX_COMMENT_CHARS: usize = 4000;
/// The longest highlighted text kept, in characters.
pub const MAX_TEXT_CHARS: usize = 20_000;
/// The largest highlight store read or written, in bytes. Ten thousand highlights of a long
/// sentence and a comment each take about 5 MB; a larger file was not written by agentero and
/// is refused before it is read (a planted store must not cost every `search` its size in
/// memory).
pub const MAX_STORE_BYTES: u64 = 16 << 20;
/// The most annotations of one paper shown (agentero's and Zotero's together).
pub const MAX_ANNOTATIONS: usize = 2 * MAX_PER_PAPER;

/// One highlight, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Highlight {
    pub id: String,
    /// 1-based physical page.
    pub page: u32,
    /// Byte range in the page's text.
    pub start: usize,
    pub end: usize,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    pub color: String,
    /// `[x0, y0, x1, y1]` in PDF user space, one per line the text spans.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rects: Vec<[f32; 4]>,
    /// RFC 3339, UTC.
    pub created: String,
}

/// A highlight to make: a byte range of a page's text (and that text, to check it against).
#[derive(Debug, Clone, PartialEq)]
pub struct NewHighlight {
    pub page: u32,
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub comment: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum HighlightError {
    #[error("{0}")]
    NotAPaper(String),
    #[error("nothing to highlight: the selection is empty")]
    Empty,
    #[error("{path} already has {MAX_PER_PAPER} highlights")]
    Full { path: String },
    #[error("no highlight {id} on {path}")]
    Unknown { path: String, id: String },
    #[error("the highlights of {path} cannot be read ({reason}); the file was left as it is")]
    Corrupt { path: String, reason: String },
    #[error(
        "the highlights of {path} were not loaded: their file {file} holds {bytes} bytes, more than the {} MB a highlight store may hold; the file was left as it is",
        MAX_STORE_BYTES >> 20
    )]
    TooLarge {
        path: String,
        file: String,
        bytes: u64,
    },
    #[error("{path} would have highlights of more than {} MB", MAX_STORE_BYTES >> 20)]
    StoreFull { path: String },
    #[error("{0}")]
    NoState(String),
    #[error(transparent)]
    State(#[from] StateError),
}

#[derive(Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    highlights: Vec<Highlight>,
}

fn store_path(vault: &Vault, sha256: &str) -> PathBuf {
    vault.state_dir().join(DIR).join(format!("{sha256}.json"))
}

/// The content hash of the paper at `rel` (from the catalog when the file is unchanged).
fn sha_of(vault: &Vault, rel: &str) -> Result<(PathBuf, String), HighlightError> {
    render::locate_paper(vault, rel).map_err(|e| HighlightError::NotAPaper(e.to_string()))
}

fn load_file(vault: &Vault, rel: &str, sha: &str) -> Result<Vec<Highlight>, HighlightError> {
    let path = store_path(vault, sha);
    let Some(bytes) = read_bounded(&path, rel)? else {
        return Ok(Vec::new());
    };
    let file: StoreFile = serde_json::from_slice(&bytes).map_err(|e| HighlightError::Corrupt {
        path: rel.to_string(),
        reason: e.to_string(),
    })?;
    let mut v = file.highlights;
    if v.len() > MAX_PER_PAPER {
        return Err(HighlightError::Corrupt {
            path: rel.to_string(),
            reason: format!("{} highlights, more than {MAX_PER_PAPER}", v.len()),
        });
    }
    // What `add` keeps, on load too.
    for h in &mut v {
        if h.text.len() > MAX_TEXT_CHARS {
            h.text = h.text.chars().take(MAX_TEXT_CHARS).collect();
        }
        if let Some(c) = h.comment.as_mut().filter(|c| c.len() > MAX_COMMENT_CHARS) {
            *c = c.chars().take(MAX_COMMENT_CHARS).collect();
        }
    }
    v.sort_by_key(|h| (h.page, h.start, h.end));
    Ok(v)
}

/// The store at `path`, or `None` when there is none; its size is checked before it is read
/// (and the read stops past the cap, should it grow meanwhile).
fn read_bounded(path: &std::path::Path, rel: &str) -> Result<Option<Vec<u8>>, HighlightError> {
    use std::io::Read;
    let f = match statefs::open_read(path) {
        Ok(f) => f,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let too_large = |bytes: u64| HighlightError::TooLarge {
        path: rel.to_string(),
        file: path.display().to_string(),
        bytes,
    };
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    if size > MAX_STORE_BYTES {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    f.take(MAX_STORE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| HighlightError::Corrupt {
            path: rel.to_string(),
            reason: e.to_string(),
        })?;
    if bytes.len() as u64 > MAX_STORE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

fn save_file(
    vault: &Vault,
    rel: &str,
    sha: &str,
    highlights: Vec<Highlight>,
) -> Result<(), HighlightError> {
    let path = store_path(vault, sha);
    if highlights.is_empty() {
        match statefs::remove_file(&path) {
            Err(e) if !e.is_not_found() => return Err(e.into()),
            _ => return Ok(()),
        }
    }
    let file = StoreFile {
        version: VERSION,
        highlights,
    };
    let bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
    if bytes.len() as u64 > MAX_STORE_BYTES {
        return Err(HighlightError::StoreFull {
            path: rel.to_string(),
        });
    }
    vault
        .ensure_state_dir()
        .map_err(|e| HighlightError::NoState(e.to_string()))?;
    let dir = vault.state_dir().join(DIR);
    statefs::ensure_dir(&dir)?;
    // What a save killed before its rename left here.
    super::output::file::sweep_state(&dir);
    statefs::atomic_write(&path, &bytes)?;
    Ok(())
}

/// The highlights of the paper at `rel`, in page order.
pub fn list(vault: &Vault, rel: &str) -> Result<Vec<Highlight>, HighlightError> {
    let (_, sha) = sha_of(vault, rel)?;
    load_file(vault, rel, &sha)
}

/// Saves a new highlight on the paper at `rel` and returns it.
pub fn add(vault: &Vault, rel: &str, new: NewHighlight) -> Result<Highlight, HighlightError> {
    let text: String = new.text.trim().chars().take(MAX_TEXT_CHARS).collect();
    if text.is_empty() || new.end <= new.start || new.page == 0 {
        return Err(HighlightError::Empty);
    }
    let (abs, sha) = sha_of(vault, rel)?;
    let mut all = load_file(vault, rel, &sha)?;
    if all.len() >= MAX_PER_PAPER {
        return Err(HighlightError::Full {
            path: rel.to_string(),
        });
    }
    let comment = new
        .comment
        .as_deref()
        .map(|c| c.trim().chars().take(MAX_COMMENT_CHARS).collect::<String>())
        .filter(|c| !c.is_empty());
    let h = Highlight {
        id: uuid::Uuid::new_v4().simple().to_string()[..12].to_string(),
        page: new.page,
        start: new.start,
        end: new.end,
        rects: {
            let rects = rects_of(abs, new.page, new.start, new.end, &new.text);
            if rects.is_empty() {
                ocr_rects(vault, &sha, new.page, new.start, new.end, &new.text)
            } else {
                rects
            }
        },
        text,
        comment,
        color: DEFAULT_COLOR.to_string(),
        created: now_rfc3339(),
    };
    all.push(h.clone());
    all.sort_by_key(|h| (h.page, h.start, h.end));
    save_file(vault, rel, &sha, all)?;
    Ok(h)
}

/// Removes the highlight `id` of the paper at `rel`.
/// Puts back a highlight [`delete`] returned (undo): as it was, its id and comment kept, in
/// page order; nothing changes when one with its id is there already.
pub fn restore(vault: &Vault, rel: &str, h: Highlight) -> Result<Highlight, HighlightError> {
    let (_, sha) = sha_of(vault, rel)?;
    let mut all = load_file(vault, rel, &sha)?;
    if all.iter().any(|x| x.id == h.id) {
        return Ok(h);
    }
    if all.len() >= MAX_PER_PAPER {
        return Err(HighlightError::Full {
            path: rel.to_string(),
        });
    }
    let at = all.partition_point(|x| (x.page, x.start) <= (h.page, h.start));
    all.insert(at, h.clone());
    save_file(vault, rel, &sha, all)?;
    Ok(h)
}

pub fn delete(vault: &Vault, rel: &str, id: &str) -> Result<Highlight, HighlightError> {
    let (_, sha) = sha_of(vault, rel)?;
    let mut all = load_file(vault, rel, &sha)?;
    let Some(i) = all.iter().position(|h| h.id == id) else {
        return Err(HighlightError::Unknown {
            path: rel.to_string(),
            id: id.to_string(),
        });
    };
    let gone = all.remove(i);
    save_file(vault, rel, &sha, all)?;
    Ok(gone)
}

/// Rectangles of the highlighted range where the text layer draws it: the range itself when
/// the layout's text is the text the range was taken from, else the first place the text occurs.
/// Empty when the page cannot be laid out (the text view still shows the highlight).
fn rects_of(abs: PathBuf, page: u32, start: usize, end: usize, text: &str) -> Vec<[f32; 4]> {
    let text = text.to_string();
    let locate = move |laid: &str| {
        if laid.get(start..end) == Some(text.as_str()) {
            return Some(start..end);
        }
        let at = laid.find(text.trim())?;
        Some(at..at + text.trim().len())
    };
    super::boxes::text_boxes(&abs, page, locate).unwrap_or_default()
}

/// [`rects_of`] on a page whose text is OCR: the boxes tesseract gave the words of the range
/// (the range of its text as the index holds it, else the first place the text occurs).
fn ocr_rects(
    vault: &Vault,
    sha: &str,
    page: u32,
    start: usize,
    end: usize,
    text: &str,
) -> Vec<[f32; 4]> {
    let Some(o) = super::ocr::OcrCache::new(vault).get(sha, page) else {
        return Vec::new();
    };
    super::boxes::ocr_text_boxes(&o, |ocr_text| {
        if ocr_text.get(start..end) == Some(text) {
            Some(start..end)
        } else {
            let t = text.trim();
            ocr_text.find(t).map(|at| at..at + t.len())
        }
    })
    .unwrap_or_default()
}

fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

impl Highlight {
    /// The highlight in the shape shared with Zotero's annotations.
    pub fn annotation(&self, paper: &str) -> Annotation {
        Annotation {
            paper: paper.to_string(),
            page: self.page,
            page_label: None,
            kind: AnnotationKind::Highlight,
            text: Some(self.text.clone()),
            comment: self.comment.clone(),
            color: Some(self.color.clone()),
            rects: self.rects.clone(),
            origin: AnnotationOrigin::Agentero {
                id: self.id.clone(),
            },
            created: Some(self.created.clone()),
        }
    }
}

impl Vault {
    /// Every annotation of the paper at `rel`, in page order: agentero's own highlights (and,
    /// for a Zotero library, Zotero's), [`MAX_ANNOTATIONS`] at most. A paper whose highlights
    /// cannot be read has none here; the reason is logged.
    pub fn annotations(&self, rel: &str) -> Vec<Annotation> {
        let (out, problem) = self.annotations_checked(rel);
        if let Some(e) = problem {
            tracing::warn!(path = rel, %e, "highlights not read");
        }
        out
    }

    /// [`Vault::annotations`], and why agentero's own highlights were left out, when they were
    /// (a damaged or oversized store), for a caller that tells the user.
    pub fn annotations_checked(&self, rel: &str) -> (Vec<Annotation>, Option<String>) {
        let (mut out, problem) = match list(self, rel) {
            Ok(v) => (
                v.iter().map(|h| h.annotation(rel)).collect::<Vec<_>>(),
                None,
            ),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        out.extend(self.zotero_annotations(rel));
        if out.len() > MAX_ANNOTATIONS {
            tracing::warn!(
                path = rel,
                n = out.len(),
                "annotations cut to {MAX_ANNOTATIONS}"
            );
            out.truncate(MAX_ANNOTATIONS);
        }
        // Page order; within a page, Zotero's and ours keep the order they came in.
        out.sort_by_key(|a| a.page);
        (out, problem)
    }

    /// The papers of the catalog that have annotations (highlight files of their hash), in path
    /// order: where a search of the annotations looks.
    pub fn annotated_papers(&self) -> Vec<String> {
        let dir = self.state_dir().join(DIR);
        // A save killed before its rename left a temporary file: gone on the next run that
        // looks here (every `search`), not only on the next save.
        super::output::file::sweep_state(&dir);
        let names = match statefs::check_dir(&dir).and_then(|d| d.list()) {
            Ok(n) => n,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(%e, "highlights folder not read");
                }
                Vec::new()
            }
        };
        let shas: std::collections::BTreeSet<String> = names
            .iter()
            .filter_map(|n| n.to_str()?.strip_suffix(".json").map(str::to_string))
            .collect();
        let mut out: Vec<String> = if shas.is_empty() {
            Vec::new()
        } else {
            self.catalog()
                .entries
                .into_iter()
                .filter(|(_, e)| e.kind == super::EntryKind::Paper && shas.contains(&e.sha256))
                .map(|(p, _)| p)
                .collect()
        };
        if let Some(z) = self.zotero() {
            out.extend(z.annotated_papers());
            out.sort();
            out.dedup();
        }
        out
    }

    /// The citation key a reference manager gave the paper at `rel`, when it has one: Zotero's
    /// (or Better BibTeX's), else papis's `ref` as the last index run read it (agentero
    /// generates one from the metadata otherwise, see [`super::citekeys`]).
    pub fn citation_key(&self, rel: &str) -> Option<String> {
        if let Some(key) = self.zotero().and_then(|z| z.item(rel)?.citation_key) {
            return Some(key);
        }
        self.record_for(rel)?.meta.citation_key
    }
}

#[cfg(test)]
mod tests;
