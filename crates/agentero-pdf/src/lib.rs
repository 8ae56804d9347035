//! Page text of PDF files in reading order, built on lopdf's content-stream operators.
//!
//! One page model: a [`PdfDocument`] of [`PageText`]s, each page's text in reading order with,
//! as asked, its [`Block`]s and [`TextLine`]s (boxes in PDF user space) and the box of every
//! character, plus page labels, the outline and the document info. [`open`] reads every page
//! with its blocks:
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use agentero_pdf::{Limits, open};
//!
//! let bytes = std::fs::read("paper.pdf").unwrap();
//! let limits = Limits { deadline: Instant::now() + Duration::from_secs(30) };
//! let doc = open(&bytes, limits).unwrap();
//! for page in &doc.pages {
//!     for line in page.lines() {
//!         println!("p.{} {:?} at {:?}", page.number, line.text, line.bbox);
//!     }
//! }
//! ```
//!
//! [`extract`] gives the same pages without geometry (what an indexer wants), [`page_layout`]
//! one page with the box of every character (a quote's highlight), [`stream_blocks`] the text in
//! content-stream order. The layout reads columns, full-width bands, sidebars beside
//! the text (an Elsevier "Article history / Keywords" column stays one block after the
//! abstract), vertical writing right to left, and decodes TeX's math fonts through their own
//! layouts (see the crate's README.md).
//!
//! Every threshold of the layout is a documented field of [`LayoutParams`] (pdfminer's
//! `LAParams`): the functions above use its defaults, and [`extract_with`],
//! [`open_with`], [`page_layout_with`] and [`stream_blocks_with`] take others.
//!
//! With the `fixtures` feature, `agentero_pdf::fixtures` holds the engine's test PDFs (each with
//! the text of its pages) and the one writer they are made with, for this crate's tests and
//! other crates' tests alike.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use lopdf::Document as LoDocument;

mod cid;
mod cmap;
mod content;
mod dest;
mod document;
mod encodings;
#[cfg(feature = "fixtures")]
pub mod fixtures;
mod fontfile;
mod fonts;
mod forms;
mod info;
mod labels;
mod layout;
mod links;
pub mod metrics;
mod objstm;
mod outline;
mod texmath;
mod util;

pub use document::{Block, Rect, TextLine};
pub use encodings::decode_text_string;
pub use layout::{
    AccentParams, AsideParams, ColumnParams, DropCapParams, HighlightParams, LayoutParams,
    LineNumberParams, LineParams, OverstrikeParams, ParagraphParams, SlantParams, StreamParams,
    TextBox, TitleParams, VerticalParams, WordParams, merge_boxes, merge_boxes_with,
};
pub use links::{Link, LinkTarget};

/// Limits for one document: extraction stops with [`PdfError::Timeout`] past the deadline.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub deadline: Instant,
}

/// A PDF read for its text: its pages in order, with the document's metadata and outline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PdfDocument {
    /// One entry per physical page, in page order (page 1 first).
    pub pages: Vec<PageText>,
    /// The Info dictionary and XMP metadata, as found (not trusted: callers judge).
    pub info: DocInfo,
    /// The document outline (bookmarks), flattened in document order.
    pub outline: Vec<OutlineItem>,
    /// True when the file was encrypted and opened with the empty user password.
    pub was_encrypted: bool,
    /// Physical pages (1-based) where many shown glyphs could not be turned into text: their
    /// fonts carry no usable mapping to Unicode, so the page text is incomplete.
    pub undecodable_pages: Vec<u32>,
    /// The text of page 1 set in the largest font (usually the title), when there is one line
    /// or a run of consecutive lines clearly larger than the body text; joined with spaces.
    pub title_hint: Option<String>,
}

/// One physical page: its text in reading order and, as asked, where that text sits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageText {
    /// 1-based physical page number.
    pub number: u32,
    /// Page label from `/PageLabels` ("iv", "283", "A-3"), when the document defines one.
    pub label: Option<String>,
    /// The page's text in reading order: words separated by single spaces, lines by '\n',
    /// paragraphs by a blank line. Empty when the page has no text layer.
    pub text: String,
    /// The blocks of `text` (its paragraphs, each with its lines), in the same order, with their
    /// boxes: filled by [`open`] and [`page_layout`], empty from [`extract`].
    pub blocks: Vec<Block>,
    /// One box per character of `text` that a glyph drew, in text order: filled by
    /// [`page_layout`] only (a page's worth is as large as its text many times over).
    pub boxes: Vec<TextBox>,
    /// Shown glyphs no font table could turn into text.
    pub unmapped_glyphs: u32,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocInfo {
    pub title: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    pub keywords: Option<String>,
    pub creator: Option<String>,
    pub producer: Option<String>,
    /// `dc:creator` entries from XMP, when present.
    pub xmp_authors: Vec<String>,
    /// `dc:title` from XMP, when present.
    pub xmp_title: Option<String>,
    pub doi: Option<String>,
    /// The journal or book XMP's PRISM names (`prism:publicationName`).
    pub publication: Option<String>,
    /// `prism:volume`, `prism:number`.
    pub volume: Option<String>,
    pub issue: Option<String>,
    /// `prism:pageRange`, or `prism:startingPage`–`prism:endingPage`.
    pub pages: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OutlineItem {
    pub title: String,
    /// 0 for top-level entries.
    pub level: u32,
    /// 1-based physical page the entry points to, when resolvable.
    pub page: Option<u32>,
}

#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum PdfError {
    #[error("encrypted PDF: a password is required to open it")]
    PasswordRequired,
    #[error("not a readable PDF: {0}")]
    Malformed(String),
    #[error("text extraction took longer than the time limit")]
    Timeout,
}

/// Documents with more pages than this are cut off (their remaining pages are not read).
const MAX_PAGES: usize = 20_000;

/// Extracts page text, page labels, outline and metadata from a PDF held in memory.
///
/// Encrypted files open when their user password is empty; otherwise the result is
/// [`PdfError::PasswordRequired`]. Pages without a text layer come back with empty text.
pub fn extract(bytes: &[u8], limits: Limits) -> Result<PdfDocument, PdfError> {
    extract_with(bytes, limits, &LayoutParams::DEFAULT)
}

/// [`extract`] with the layout's thresholds from `params`.
pub fn extract_with(
    bytes: &[u8],
    limits: Limits,
    params: &LayoutParams,
) -> Result<PdfDocument, PdfError> {
    read_document(bytes, limits, params, false)
}

/// Every page of a PDF held in memory, as [`extract`] reads them, each with its blocks and lines
/// ([`PageText::blocks`]) and their boxes.
pub fn open(bytes: &[u8], limits: Limits) -> Result<PdfDocument, PdfError> {
    open_with(bytes, limits, &LayoutParams::DEFAULT)
}

/// [`open`] with the layout's thresholds from `params`.
pub fn open_with(
    bytes: &[u8],
    limits: Limits,
    params: &LayoutParams,
) -> Result<PdfDocument, PdfError> {
    read_document(bytes, limits, params, true)
}

/// Every page, with its blocks when `blocks` is asked for.
fn read_document(
    bytes: &[u8],
    limits: Limits,
    params: &LayoutParams,
    blocks: bool,
) -> Result<PdfDocument, PdfError> {
    check_deadline(&limits)?;
    let doc = load(bytes)?;
    check_deadline(&limits)?;

    let page_ids: Vec<lopdf::ObjectId> = doc.page_iter().take(MAX_PAGES).collect();
    if page_ids.is_empty() {
        return Err(PdfError::Malformed(
            "the document has no readable pages".into(),
        ));
    }
    let page_numbers: HashMap<lopdf::ObjectId, u32> = page_ids
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, i as u32 + 1))
        .collect();
    let labels = labels::page_labels(&doc, page_ids.len());

    let mut fonts = content::FontCache::default();
    let mut pages = Vec::with_capacity(page_ids.len());
    let mut title_hint = None;
    let mut undecodable_pages = Vec::new();
    for (i, &id) in page_ids.iter().enumerate() {
        check_deadline(&limits)?;
        let glyphs =
            content::Interpreter::new(&doc, &mut fonts, limits.deadline, params.slant.skew_min)
                .run_page(id)?;
        if i == 0 {
            title_hint = layout::title_hint(&glyphs, params);
        }
        if undecodable(&glyphs) {
            undecodable_pages.push(i as u32 + 1);
        }
        let label = labels.as_ref().and_then(|l| l.get(i).cloned().flatten());
        let mut page = PageText {
            number: i as u32 + 1,
            label,
            unmapped_glyphs: glyphs.unmapped,
            ..PageText::default()
        };
        if blocks {
            let (text, boxes) = layout::page_layout(&glyphs, params);
            page.blocks = document::blocks(&text, &boxes, &params.highlight);
            page.text = text;
        } else {
            page.text = layout::page_text(&glyphs, params);
        }
        pages.push(page);
    }
    check_deadline(&limits)?;
    Ok(PdfDocument {
        pages,
        info: info::doc_info(&doc),
        outline: outline::outline(&doc, &page_numbers),
        was_encrypted: doc.was_encrypted(),
        undecodable_pages,
        title_hint,
    })
}

impl PageText {
    /// The lines of all blocks, in reading order.
    pub fn lines(&self) -> impl Iterator<Item = &TextLine> {
        self.blocks.iter().flat_map(|b| b.lines.iter())
    }

    /// Rectangles in PDF user space (`[x0, y0, x1, y1]`, y up) covering the bytes `range` of
    /// the text, one per line the range spans. Empty when no drawn character is in it (or the
    /// page was read without its boxes: see [`PageText::boxes`]).
    pub fn rects(&self, range: std::ops::Range<usize>) -> Vec<[f32; 4]> {
        let from = self
            .boxes
            .partition_point(|b| (b.at as usize) < range.start);
        let to = self.boxes.partition_point(|b| (b.at as usize) < range.end);
        merge_boxes(&self.boxes[from..to.max(from)])
    }

    /// The bytes of the text whose characters' boxes have their centre inside `rect` (PDF user
    /// space, `[x0, y0, x1, y1]`, y up): a link's anchor text. From the first such character
    /// to the end of the last, so a link broken over two lines of one rectangle reads whole;
    /// `None` when no drawn character is inside.
    pub fn text_in(&self, rect: [f32; 4]) -> Option<std::ops::Range<usize>> {
        let inside = |b: &&TextBox| {
            let [x0, y0, x1, y1] = b.rect();
            let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
            cx >= rect[0] && cx <= rect[2] && cy >= rect[1] && cy <= rect[3]
        };
        let mut hits = self.boxes.iter().filter(inside).map(|b| b.at as usize);
        let first = hits.next()?;
        let last = hits.fold(first, usize::max).max(first);
        let end = last
            + self
                .text
                .get(last..)?
                .chars()
                .next()
                .map_or(0, char::len_utf8);
        self.text.get(first..end).map(|_| first..end)
    }
}

/// Physical page `page` (1-based) of a PDF held in memory, its text exactly as [`extract`] gives
/// it, with its blocks and the box of each of its characters ([`PageText::boxes`]): where a
/// quote found in that text sits on the page.
pub fn page_layout(bytes: &[u8], page: u32, limits: Limits) -> Result<PageText, PdfError> {
    page_layout_with(bytes, page, limits, &LayoutParams::DEFAULT)
}

/// [`page_layout`] with the layout's thresholds from `params`.
pub fn page_layout_with(
    bytes: &[u8],
    page: u32,
    limits: Limits,
    params: &LayoutParams,
) -> Result<PageText, PdfError> {
    check_deadline(&limits)?;
    let doc = load(bytes)?;
    let ids: Vec<lopdf::ObjectId> = doc.page_iter().take(MAX_PAGES).collect();
    let id = page
        .checked_sub(1)
        .and_then(|i| ids.get(i as usize).copied())
        .ok_or_else(|| PdfError::Malformed(format!("the document has no page {page}")))?;
    let mut fonts = content::FontCache::default();
    let glyphs =
        content::Interpreter::new(&doc, &mut fonts, limits.deadline, params.slant.skew_min)
            .run_page(id)?;
    let (text, boxes) = layout::page_layout(&glyphs, params);
    let label = labels::page_labels(&doc, ids.len())
        .and_then(|l| l.get(page as usize - 1).cloned().flatten());
    Ok(PageText {
        number: page,
        label,
        blocks: document::blocks(&text, &boxes, &params.highlight),
        text,
        boxes,
        unmapped_glyphs: glyphs.unmapped,
    })
}

/// The link annotations of physical page `page` (1-based) of a PDF held in memory: each
/// rectangle and where it goes (a page of the document, with the height its destination shows,
/// or a URI). At most 1 000 (`links::MAX_LINKS`); an annotation that is not a readable link is
/// skipped. The anchor text of a link is `page_layout(..).text_in(link.rect)`.
pub fn page_links(bytes: &[u8], page: u32, limits: Limits) -> Result<Vec<Link>, PdfError> {
    check_deadline(&limits)?;
    let doc = load_with(bytes, keep_for_links)?;
    check_deadline(&limits)?;
    let ids: Vec<lopdf::ObjectId> = doc.page_iter().take(MAX_PAGES).collect();
    let id = page
        .checked_sub(1)
        .and_then(|i| ids.get(i as usize).copied())
        .ok_or_else(|| PdfError::Malformed(format!("the document has no page {page}")))?;
    let numbers: HashMap<lopdf::ObjectId, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, i as u32 + 1))
        .collect();
    Ok(links::page_links(&doc, id, &numbers))
}

/// The text blocks of physical pages `pages` (1-based) of a PDF held in memory, each page's in
/// content-stream order (see `layout::stream_blocks`): what the PDF draws in sequence, with no
/// layout decision that could splice a sidebar into a column. One entry per asked page (empty
/// for a page the document does not have).
pub fn stream_blocks(
    bytes: &[u8],
    pages: &[u32],
    limits: Limits,
) -> Result<Vec<Vec<String>>, PdfError> {
    stream_blocks_with(bytes, pages, limits, &LayoutParams::DEFAULT)
}

/// [`stream_blocks`] with the layout's thresholds from `params`.
pub fn stream_blocks_with(
    bytes: &[u8],
    pages: &[u32],
    limits: Limits,
    params: &LayoutParams,
) -> Result<Vec<Vec<String>>, PdfError> {
    check_deadline(&limits)?;
    let doc = load(bytes)?;
    let ids: Vec<lopdf::ObjectId> = doc.page_iter().take(MAX_PAGES).collect();
    let mut fonts = content::FontCache::default();
    let mut out = Vec::with_capacity(pages.len());
    for &page in pages {
        check_deadline(&limits)?;
        let Some(&id) = page.checked_sub(1).and_then(|i| ids.get(i as usize)) else {
            out.push(Vec::new());
            continue;
        };
        let glyphs =
            content::Interpreter::new(&doc, &mut fonts, limits.deadline, params.slant.skew_min)
                .run_page(id)?;
        out.push(layout::stream_blocks(&glyphs, params));
    }
    Ok(out)
}

/// A page is undecodable when a real part of what it shows could not be read: at least 20
/// glyphs and a tenth of all visible ones (a stray symbol in a formula does not count).
fn undecodable(page: &content::PageGlyphs) -> bool {
    let unmapped = page.unmapped as usize;
    let shown = page.glyphs.iter().filter(|g| !g.space).count() + unmapped;
    unmapped >= 20 && unmapped * 10 >= shown
}

fn check_deadline(limits: &Limits) -> Result<(), PdfError> {
    if Instant::now() > limits.deadline {
        Err(PdfError::Timeout)
    } else {
        Ok(())
    }
}

fn load(bytes: &[u8]) -> Result<LoDocument, PdfError> {
    load_with(bytes, keep_for_text)
}

/// The filter of a document read as [`load`] does.
type Filter = fn(lopdf::ObjectId, &mut lopdf::Object) -> Option<(lopdf::ObjectId, lopdf::Object)>;

fn load_with(bytes: &[u8], filter: Filter) -> Result<LoDocument, PdfError> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(PdfError::Malformed("no %PDF header".into()));
    }
    // lopdf is the only code here not written against hostile input; keep its panics inside.
    let loaded = catch_unwind(AssertUnwindSafe(|| {
        let options = lopdf::LoadOptions {
            filter: Some(filter),
            ..Default::default()
        };
        match LoDocument::load_mem_with_options(bytes, options) {
            // lopdf rebuilds a damaged page tree only on an unfiltered load: read such a file
            // again whole.
            Ok(doc) if doc.page_iter().next().is_none() => {
                LoDocument::load_mem(bytes).map(drop_image_data)
            }
            loaded => loaded,
        }
    }))
    .map_err(|_| PdfError::Malformed("the PDF parser failed on this file".into()))?;
    let doc = match loaded {
        Ok(doc) => doc,
        Err(lopdf::Error::InvalidPassword) => return Err(PdfError::PasswordRequired),
        Err(e) => {
            return Err(PdfError::Malformed(format!(
                "{e} (the file may be truncated or damaged)"
            )));
        }
    };
    // lopdf leaves /Encrypt in the trailer (and no objects loaded) when the empty user
    // password does not open the file, instead of failing.
    if doc.trailer.has(b"Encrypt") {
        return Err(PdfError::PasswordRequired);
    }
    let mut doc = doc;
    // An object stream's members are objects of their own now; its bytes are never read again.
    for object in doc.objects.values_mut() {
        if let lopdf::Object::Stream(stream) = object
            && stream.dict.has_type(b"ObjStm")
        {
            stream.content = Vec::new();
        }
    }
    Ok(doc)
}

/// The objects page text never reads, dropped as the file is parsed rather than held for as long
/// as its pages are read: annotations (a paper's thousands of link boxes, with their actions),
/// structure-tree elements, and image data (kept as its bare dictionary). They are most of a
/// hyperlinked manual's objects and of a scanned paper's bytes, and the peak memory of a parse
/// is what each indexing thread keeps.
fn keep_for_text(
    id: lopdf::ObjectId,
    object: &mut lopdf::Object,
) -> Option<(lopdf::ObjectId, lopdf::Object)> {
    keep(id, object, false)
}

/// What [`page_links`] reads: as [`keep_for_text`], annotations kept.
fn keep_for_links(
    id: lopdf::ObjectId,
    object: &mut lopdf::Object,
) -> Option<(lopdf::ObjectId, lopdf::Object)> {
    keep(id, object, true)
}

fn keep(
    id: lopdf::ObjectId,
    object: &mut lopdf::Object,
    annotations: bool,
) -> Option<(lopdf::ObjectId, lopdf::Object)> {
    // lopdf keeps a top-level object as the filter left it and an object-stream member as the
    // filter returns it. Only top-level objects can be streams: a stream is changed in place
    // (what is returned is dropped); any other object is returned as kept.
    let dict = match object {
        lopdf::Object::Dictionary(d) => d,
        lopdf::Object::Stream(s) => {
            if is_image(&s.dict) {
                *object = lopdf::Object::Dictionary(std::mem::take(&mut s.dict));
            } else if !annotations && s.dict.has_type(b"ObjStm") {
                // Seen before lopdf parses its members: the ones dropped below go unparsed.
                objstm::prune(s);
            }
            return Some((id, lopdf::Object::Null));
        }
        other => return Some((id, other.clone())),
    };
    let name = |key: &[u8]| match dict.get(key) {
        Ok(lopdf::Object::Name(n)) => Some(n.as_slice()),
        _ => None,
    };
    match (name(b"Type"), name(b"Subtype")) {
        (Some(b"StructElem"), _) => None,
        (Some(b"Annot"), _) if !annotations => None,
        (_, Some(b"Link")) if dict.has(b"Rect") && !annotations => None,
        _ => Some((id, object.clone())),
    }
}

/// Frees the data of image XObjects in a document read without [`keep_for_text`].
fn drop_image_data(mut doc: LoDocument) -> LoDocument {
    for object in doc.objects.values_mut() {
        if let lopdf::Object::Stream(stream) = object
            && is_image(&stream.dict)
        {
            stream.content = Vec::new();
        }
    }
    doc
}

fn is_image(dict: &lopdf::Dictionary) -> bool {
    matches!(dict.get(b"Subtype"), Ok(lopdf::Object::Name(n)) if n == b"Image")
}
