//! The file around the laid-out text: fonts, pages and their compressed content streams, the
//! catalog (outline, page labels, XMP metadata) and the Info dictionary, written with
//! `pdf-writer`.

use std::io::{self, Write};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use pdf_writer::types::{PageMode, ProcSet};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, TextStr};

use super::content::{round, write_footer, write_text};
use super::encoding::{FI_CODE, Fonts};
use super::layout::{Laid, lay_out};
use super::{Face, PdfSpec, PlacedHeading, PlacedLine, Rendered, TextStyle};

/// Hands out object numbers in order, so the same document always gets the same ones.
pub(super) struct Ids(i32);

impl Ids {
    pub(super) fn new() -> Ids {
        Ids(0)
    }

    pub(super) fn next(&mut self) -> Ref {
        self.0 += 1;
        Ref::new(self.0)
    }
}

/// `bytes` deflated (zlib), for a `/FlateDecode` stream.
pub(super) fn deflate(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// Writes a `/FlateDecode` stream of `bytes` as object `id`.
pub(super) fn write_stream(pdf: &mut Pdf, id: Ref, bytes: &[u8]) -> io::Result<()> {
    let data = deflate(bytes)?;
    pdf.stream(id, &data).filter(Filter::FlateDecode);
    Ok(())
}

/// Lays out and writes one document.
pub fn render(spec: &PdfSpec) -> io::Result<Rendered> {
    let style = &spec.style;
    let fonts = Fonts::new(style.ligatures, style.text == TextStyle::Positioned);
    let Laid {
        lines,
        headings,
        page_count,
    } = lay_out(spec, &fonts);

    let mut pdf = Pdf::new();
    pdf.set_version(1, 5);
    let mut ids = Ids::new();
    let catalog_id = ids.next();
    let pages_id = ids.next();
    let font_ids: Vec<Ref> = Face::ALL
        .iter()
        .map(|&face| {
            let id = ids.next();
            write_font(&mut pdf, id, face, &fonts);
            id
        })
        .collect();
    let resources_id = ids.next();
    {
        let mut resources = pdf
            .indirect(resources_id)
            .start::<pdf_writer::writers::Resources>();
        let mut font_dict = resources.fonts();
        for (face, id) in Face::ALL.iter().zip(&font_ids) {
            font_dict.pair(Name(face.resource().as_bytes()), *id);
        }
        font_dict.finish();
        resources.proc_sets([ProcSet::Pdf, ProcSet::Text]);
    }
    let media_box = Rect::new(0.0, 0.0, round(style.page_width), round(style.page_height));
    let mut page_ids: Vec<Ref> = Vec::new();
    for page in 0..page_count {
        let on_page: Vec<&PlacedLine> = lines.iter().filter(|l| l.page == page).collect();
        let mut content = Content::new();
        write_text(&mut content, &on_page, style, &fonts);
        write_footer(&mut content, spec, page, &fonts);
        let content_id = ids.next();
        write_stream(&mut pdf, content_id, &content.finish())?;
        let page_id = ids.next();
        pdf.page(page_id)
            .parent(pages_id)
            .media_box(media_box)
            .contents(content_id)
            .pair(Name(b"Resources"), resources_id);
        page_ids.push(page_id);
    }
    pdf.pages(pages_id)
        .kids(page_ids.iter().copied())
        .count(page_count as i32);
    let outline_id = (spec.outline && !headings.is_empty()).then(|| {
        let id = ids.next();
        write_outline(&mut pdf, &mut ids, id, &headings, &page_ids);
        id
    });
    let metadata_id = spec.xmp.as_ref().map(|xmp| {
        let id = ids.next();
        pdf.metadata(id, xmp.as_bytes());
        id
    });
    write_catalog(
        &mut pdf,
        catalog_id,
        pages_id,
        outline_id,
        metadata_id,
        spec,
    );
    if !spec.info.is_empty() {
        let mut info = pdf.document_info(ids.next());
        for (key, value) in &spec.info {
            info.pair(Name(key.as_bytes()), TextStr(value));
        }
    }
    Ok(Rendered {
        bytes: pdf.finish(),
        lines,
        headings,
        page_count,
    })
}

/// The catalog: the page tree, and the outline, page labels and metadata when there are any.
fn write_catalog(
    pdf: &mut Pdf,
    id: Ref,
    pages_id: Ref,
    outline_id: Option<Ref>,
    metadata_id: Option<Ref>,
    spec: &PdfSpec,
) {
    let mut catalog = pdf.catalog(id);
    catalog.pages(pages_id);
    if let Some(outline_id) = outline_id {
        catalog
            .outlines(outline_id)
            .page_mode(PageMode::UseOutlines);
    }
    if let Some(start) = spec.first_page_number {
        // One range from the first page on: decimal numbers from `start`.
        let mut labels = catalog.insert(Name(b"PageLabels")).dict();
        let mut nums = labels.insert(Name(b"Nums")).array();
        nums.item(0);
        nums.push()
            .dict()
            .pair(Name(b"S"), Name(b"D"))
            .pair(Name(b"St"), start as i32);
    }
    if let Some(metadata_id) = metadata_id {
        catalog.metadata(metadata_id);
    }
}

/// A standard-14 face with the document's encoding (WinAnsi, plus the ligature slots when the
/// document uses them) and its `/Widths`.
fn write_font(pdf: &mut Pdf, id: Ref, face: Face, fonts: &Fonts) {
    let m = &fonts.metrics[face.index()];
    let mut font = pdf.type1_font(id);
    font.base_font(Name(face.base_font().as_bytes()))
        .first_char(m.first_char)
        .last_char(255)
        .widths((m.first_char..=255).map(|code| f32::from(m.widths[usize::from(code)])));
    if fonts.ligatures {
        font.encoding_custom()
            .base_encoding(Name(b"WinAnsiEncoding"))
            .differences()
            .consecutive(FI_CODE, [Name(b"fi"), Name(b"fl")]);
    } else {
        font.encoding_predefined(Name(b"WinAnsiEncoding"));
    }
}

/// Writes `/Outlines` (as object `root_id`) with top-level entries for level-0 headings and
/// children for deeper ones, each pointing at its page with an `/XYZ` destination at the
/// heading's top.
fn write_outline(
    pdf: &mut Pdf,
    ids: &mut Ids,
    root_id: Ref,
    headings: &[PlacedHeading],
    page_ids: &[Ref],
) {
    let item_ids: Vec<Ref> = headings.iter().map(|_| ids.next()).collect();
    // Parent of each entry: the nearest earlier heading of a lower level, else the root.
    let parents: Vec<Option<usize>> = (0..headings.len())
        .map(|i| {
            (0..i)
                .rev()
                .find(|&j| headings[j].level < headings[i].level)
        })
        .collect();
    let children = |parent: Option<usize>| -> Vec<usize> {
        (0..headings.len())
            .filter(|&i| parents[i] == parent)
            .collect()
    };
    for (i, heading) in headings.iter().enumerate() {
        let siblings = children(parents[i]);
        let pos = siblings.iter().position(|&s| s == i).unwrap_or(0);
        let mut item = pdf.outline_item(item_ids[i]);
        item.title(TextStr(&heading.title))
            .parent(parents[i].map_or(root_id, |p| item_ids[p]));
        if pos > 0 {
            item.prev(item_ids[siblings[pos - 1]]);
        }
        if let Some(&next) = siblings.get(pos + 1) {
            item.next(item_ids[next]);
        }
        let kids = children(Some(i));
        if let (Some(&first), Some(&last)) = (kids.first(), kids.last()) {
            item.first(item_ids[first]).last(item_ids[last]);
            // Positive: the entry is shown open with its children.
            item.count(kids.len() as i32);
        }
        item.dest()
            .page(page_ids[heading.page])
            .xyz(0.0, round(heading.y), None);
    }
    let top = children(None);
    // Every entry is open, so all of them count as visible.
    let mut root = pdf.outline(root_id);
    root.count(headings.len() as i32);
    if let (Some(&first), Some(&last)) = (top.first(), top.last()) {
        root.first(item_ids[first]).last(item_ids[last]);
    }
}
