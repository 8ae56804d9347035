//! Where a piece of a page's text sits on the page: the one place a page is laid out for the
//! boxes of its text — a quote highlighted on a page image (the paper pane, `agentero page
//! --quote`), a highlight's rectangles when it is made — under one rule: the file read and the
//! page laid out on an isolated thread (a parser panic or an endless loop is an error, not a
//! crash) within [`TIME_LIMIT`]. The caller says which text with a locator over the page's
//! laid-out text (the quote finder of `context::quote`, a highlight's own range).

use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use super::extract::{ExtractError, isolated};
use super::pdf::{self, Limits, PdfError};

/// The time one page's layout may take, its file parsed included.
pub const TIME_LIMIT: Duration = Duration::from_secs(30);

/// A rectangle in PDF user space, `[x0, y0, x1, y1]` with y up: one per line the text spans.
pub type TextBox = [f32; 4];

/// Why a text's boxes on a page are not known.
#[derive(Debug, thiserror::Error)]
pub enum BoxError {
    #[error("cannot read the file: {0}")]
    Unreadable(String),
    #[error(transparent)]
    Pdf(#[from] PdfError),
    /// The layout panicked or ran out of time.
    #[error(transparent)]
    Stopped(#[from] ExtractError),
    #[error("not in the text of page {0}")]
    NotFound(u32),
    #[error("the text layer gives no position for it on page {0}")]
    NoPosition(u32),
}

/// The boxes of the text `locate` finds (a byte range of the page's laid-out text) on physical
/// page `page` of the PDF at `pdf` (a scanned page's: [`ocr_text_boxes`]).
pub fn text_boxes(
    pdf: &Path,
    page: u32,
    locate: impl FnOnce(&str) -> Option<Range<usize>> + Send + 'static,
) -> Result<Vec<TextBox>, BoxError> {
    let bytes = std::fs::read(pdf).map_err(|e| BoxError::Unreadable(e.to_string()))?;
    let deadline = Instant::now() + TIME_LIMIT;
    // A little longer than the layout's own deadline, which it checks as it goes.
    isolated(TIME_LIMIT + Duration::from_secs(2), move || {
        let layout = pdf::page_layout(&bytes, page, Limits { deadline })?;
        let range = locate(&layout.text).ok_or(BoxError::NotFound(page))?;
        let rects = layout.rects(range);
        if rects.is_empty() {
            return Err(BoxError::NoPosition(page));
        }
        Ok(rects)
    })?
}

/// The boxes of the text `locate` finds (a byte range of the page's OCR text) on a scanned
/// page: where tesseract placed its words, one box per line; `None` when it is not there.
pub fn ocr_text_boxes(
    ocr: &super::ocr::OcrPage,
    locate: impl FnOnce(&str) -> Option<Range<usize>>,
) -> Option<Vec<TextBox>> {
    let (text, _) = ocr.text();
    let rects = ocr.rects(locate(&text)?);
    (!rects.is_empty()).then_some(rects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_boxed_where_the_layout_draws_it_and_failures_say_why() {
        let dir = tempfile::tempdir().unwrap();
        crate::vault::demo::write_demo_vault(dir.path()).unwrap();
        let pdf = dir.path().join("papers/dense-vs-sparse/paper.pdf");
        let bytes = std::fs::read(&pdf).unwrap();
        let limits = Limits {
            deadline: Instant::now() + TIME_LIMIT,
        };
        let layout = pdf::page_layout(&bytes, 1, limits).unwrap();
        let word = "Introduction";
        let at = layout
            .text
            .find(word)
            .expect("the demo paper has an introduction");
        let want = layout.rects(at..at + word.len());
        let got = text_boxes(&pdf, 1, move |t| t.find(word).map(|i| i..i + word.len())).unwrap();
        assert_eq!(got, want);
        assert!(!got.is_empty());

        let missing = text_boxes(&pdf, 1, |_| None).unwrap_err();
        assert!(matches!(missing, BoxError::NotFound(1)), "{missing}");
        let no_page = text_boxes(&pdf, 99, |_| Some(0..1)).unwrap_err();
        assert!(matches!(no_page, BoxError::Pdf(_)), "{no_page}");
        let gone = text_boxes(&dir.path().join("none.pdf"), 1, |_| Some(0..1)).unwrap_err();
        assert!(matches!(gone, BoxError::Unreadable(_)), "{gone}");
        // A locator that panics is the isolated thread's error, not the caller's crash.
        let panicked = text_boxes(&pdf, 1, |_| panic!("locator")).unwrap_err();
        assert!(
            matches!(panicked, BoxError::Stopped(ExtractError::Panicked(_))),
            "{panicked}"
        );
    }
}
