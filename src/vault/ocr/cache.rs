//! OCR results kept by the PDF's content hash: `{state}/ocr/<sha256>/<page>.json`, one file per
//! page written atomically once the page is done (a kill during OCR loses at most the page
//! being read). A file is used only when it is agentero's own (the state folder's checks: no
//! links, no foreign owner), not larger than a page's result can be, and says what it must: the
//! format, the document's hash and the page it is named for, languages and an engine by name,
//! words with boxes inside the image and confidences from 0 to 100. Anything else is refused
//! with a warning and the page is OCR'd again; the PDF and its folder are never written.

use std::io::Read;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::tsv::{self, Word};
use crate::vault::statefs;

/// Raised when what a file holds changes meaning.
pub const FORMAT: u32 = 1;
/// One page's file, at most.
const MAX_FILE: u64 = 16 << 20;

/// One page's OCR: what made it and what it read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPage {
    pub format: u32,
    pub sha256: String,
    pub page: u32,
    /// "tesseract 5.3.0".
    pub engine: String,
    pub languages: Vec<String>,
    pub dpi: u32,
    pub width: u32,
    pub height: u32,
    /// PDF user space to pixels of the image the words' boxes are in.
    pub transform: [f64; 6],
    pub words: Vec<Word>,
}

/// A word is read with little confidence under this (tesseract's 0–100 scale).
pub const LOW_CONFIDENCE: f32 = 60.0;

impl OcrPage {
    /// The page text and each word's byte range in it.
    pub fn text(&self) -> (String, Vec<std::ops::Range<usize>>) {
        tsv::text(&self.words)
    }

    /// The mean word confidence, from 0 to 1 (0 without words).
    pub fn confidence(&self) -> f32 {
        if self.words.is_empty() {
            return 0.0;
        }
        let sum: f64 = self.words.iter().map(|w| f64::from(w.conf)).sum();
        (sum / self.words.len() as f64 / 100.0) as f32
    }

    /// The word boxes in PDF user space (`[x0, y0, x1, y1]`, y up), as the text layer's
    /// rectangles are given, for highlights.
    pub fn user_rect(&self, w: &Word) -> Option<[f32; 4]> {
        let [a, b, c, d, e, f] = self.transform;
        let det = a * d - b * c;
        if det.abs() < 1e-12 || !det.is_finite() {
            return None;
        }
        let back = |px: f64, py: f64| {
            let (x, y) = (px - e, py - f);
            ((d * x - c * y) / det, (-b * x + a * y) / det)
        };
        let [l, t, r, bt] = w.bbox.map(f64::from);
        let pts = [back(l, t), back(r, t), back(l, bt), back(r, bt)];
        let xs = pts.map(|p| p.0);
        let ys = pts.map(|p| p.1);
        let min = |v: [f64; 4]| v.iter().copied().fold(f64::INFINITY, f64::min) as f32;
        let max = |v: [f64; 4]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max) as f32;
        Some([min(xs), min(ys), max(xs), max(ys)])
    }

    /// The boxes (PDF user space) of the words whose text overlaps bytes `range` of
    /// [`OcrPage::text`], one box per line: what a highlight of that range covers.
    pub fn rects(&self, range: std::ops::Range<usize>) -> Vec<[f32; 4]> {
        let (_, spans) = self.text();
        let mut out: Vec<(u32, [f32; 4])> = Vec::new();
        for (w, s) in self.words.iter().zip(spans) {
            if s.end <= range.start || s.start >= range.end {
                continue;
            }
            let Some(r) = self.user_rect(w) else { continue };
            match out.last_mut() {
                Some((line, b)) if *line == w.line => {
                    *b = [
                        b[0].min(r[0]),
                        b[1].min(r[1]),
                        b[2].max(r[2]),
                        b[3].max(r[3]),
                    ];
                }
                _ => out.push((w.line, r)),
            }
        }
        out.into_iter().map(|(_, r)| r).collect()
    }

    /// Why this file cannot be trusted as the OCR of page `page` of `sha256`, if it cannot.
    fn refusal(&self, sha256: &str, page: u32) -> Option<String> {
        if self.format != FORMAT {
            return Some(format!("format {} (not {FORMAT})", self.format));
        }
        if self.sha256 != sha256 || self.page != page {
            return Some("it is named for another page or document".into());
        }
        let name_ok = |s: &str| {
            (1..=64).contains(&s.len())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || " ._-".contains(c))
        };
        if !name_ok(&self.engine) {
            return Some("not an engine's name".into());
        }
        if self.languages.is_empty() || !self.languages.iter().all(|l| super::valid_language(l)) {
            return Some("not a list of languages".into());
        }
        if self.width == 0
            || self.height == 0
            || self.width > 16_000
            || self.height > 16_000
            || !self.transform.iter().all(|v| v.is_finite())
        {
            return Some("not an image's size".into());
        }
        if self.words.len() > tsv::MAX_WORDS {
            return Some("too many words".into());
        }
        let mut last = (0, 0);
        for w in &self.words {
            let [l, t, r, b] = w.bbox;
            let bad_box = l > r || t > b || r > self.width || b > self.height;
            let bad_text = w.text.is_empty()
                || w.text.chars().count() > tsv::MAX_WORD_CHARS
                || w.text.chars().any(|c| c.is_control() || c == '\u{FFFD}');
            let bad_order = (w.par, w.line) < last;
            if bad_box || bad_text || bad_order || !(0.0..=100.0).contains(&w.conf) {
                return Some("a word that tesseract cannot have given".into());
            }
            last = (w.par, w.line);
        }
        None
    }
}

/// The OCR results of a vault.
#[derive(Debug, Clone)]
pub struct OcrCache {
    dir: PathBuf,
}

fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

impl OcrCache {
    pub fn new(vault: &crate::vault::Vault) -> OcrCache {
        OcrCache::at(vault.state_dir().join("ocr"))
    }

    /// The cache in folder `dir` (under a state folder).
    pub fn at(dir: PathBuf) -> OcrCache {
        OcrCache { dir }
    }

    fn file(&self, sha256: &str, page: u32) -> Option<PathBuf> {
        is_hash(sha256).then(|| self.dir.join(sha256).join(format!("{page}.json")))
    }

    /// The OCR of page `page` of the document `sha256`, when there is a trustworthy one. A
    /// refused file is logged and left to be replaced.
    pub fn get(&self, sha256: &str, page: u32) -> Option<OcrPage> {
        let path = self.file(sha256, page)?;
        let file = match statefs::open_read(&path) {
            Ok(f) => f,
            Err(e) => {
                if !e.is_not_found() {
                    tracing::warn!(%e, "an OCR result was not used");
                }
                return None;
            }
        };
        let mut bytes = Vec::new();
        if file.take(MAX_FILE + 1).read_to_end(&mut bytes).is_err() || bytes.len() as u64 > MAX_FILE
        {
            tracing::warn!(path = %path.display(), "an OCR result was not used: unreadable or too large");
            return None;
        }
        let refused = |why: &str| {
            tracing::warn!(path = %path.display(), why, "an OCR result was not used; the page will be read again");
        };
        let page_ocr: OcrPage = match serde_json::from_slice(&bytes) {
            Ok(p) => p,
            Err(_) => {
                refused("not an OCR result");
                return None;
            }
        };
        if let Some(why) = page_ocr.refusal(sha256, page) {
            refused(&why);
            return None;
        }
        Some(page_ocr)
    }

    /// Keeps one page's OCR (atomically: a reader sees the whole file or none).
    pub fn put(&self, p: &OcrPage) -> Result<(), String> {
        let path = self
            .file(&p.sha256, p.page)
            .ok_or_else(|| "not a document's hash".to_string())?;
        if let Some(why) = p.refusal(&p.sha256, p.page) {
            return Err(why);
        }
        let bytes = serde_json::to_vec(p).map_err(|e| e.to_string())?;
        statefs::atomic_write(&path, &bytes).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample(sha: &str) -> OcrPage {
        OcrPage {
            format: FORMAT,
            sha256: sha.into(),
            page: 2,
            engine: "tesseract 5.3.0".into(),
            languages: vec!["eng".into()],
            dpi: 300,
            width: 2550,
            height: 3300,
            transform: [300.0 / 72.0, 0.0, 0.0, -300.0 / 72.0, 0.0, 3300.0],
            words: vec![
                Word {
                    text: "Scanned".into(),
                    conf: 95.0,
                    bbox: [300, 300, 600, 350],
                    line: 0,
                    par: 0,
                },
                Word {
                    text: "page".into(),
                    conf: 55.0,
                    bbox: [620, 300, 800, 350],
                    line: 0,
                    par: 0,
                },
            ],
        }
    }

    #[test]
    fn round_trip_and_refusals() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OcrCache::at(dir.path().join(".agentero").join("ocr"));
        let sha = "b".repeat(64);
        assert!(cache.get(&sha, 2).is_none());
        let p = sample(&sha);
        cache.put(&p).unwrap();
        let back = cache.get(&sha, 2).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.text().0, "Scanned page");
        assert!((back.confidence() - 0.75).abs() < 1e-6);
        // One inch from the left at 300 dpi is 72 points.
        let r = back.user_rect(&back.words[0]).unwrap();
        assert!(
            (r[0] - 72.0).abs() < 0.01 && (r[3] - (3300.0 - 300.0) * 72.0 / 300.0).abs() < 0.01
        );
        // Not a hash: never a path.
        let mut bad = p.clone();
        bad.sha256 = "../../x".into();
        assert!(cache.put(&bad).is_err());
        assert!(cache.get("../../x", 2).is_none());

        let file = dir.path().join(".agentero/ocr").join(&sha).join("2.json");
        // Corrupted: refused, so the page is read again.
        std::fs::write(&file, b"{\"format\":1,").unwrap();
        assert!(cache.get(&sha, 2).is_none());
        // Planted under another page's name, or with a word outside the image.
        let mut other = p.clone();
        other.page = 3;
        std::fs::write(&file, serde_json::to_vec(&other).unwrap()).unwrap();
        assert!(cache.get(&sha, 2).is_none());
        let mut outside = p.clone();
        outside.words[0].bbox = [0, 0, 9000, 10];
        std::fs::write(&file, serde_json::to_vec(&outside).unwrap()).unwrap();
        assert!(cache.get(&sha, 2).is_none());
        // A link in its place is never followed.
        std::fs::remove_file(&file).unwrap();
        let elsewhere = dir.path().join("elsewhere.json");
        std::fs::write(&elsewhere, serde_json::to_vec(&p).unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
        assert!(cache.get(&sha, 2).is_none());
    }
}
