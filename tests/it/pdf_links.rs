//! Link annotations and numbered citations on the real PDFs of the corpus (LaTeX documents,
//! many built with hyperref): every internal link resolves to a page the document has, most of
//! a hyperlinked document's links resolve, anchors are found under them, and numbered
//! citations resolve to reference entries.

use std::time::{Duration, Instant};

use agentero::vault::links::{citation_markers, reference_list};
use agentero::vault::pdf::{self, Limits, LinkTarget};

use crate::common;

/// Pages of one document read for links.
const MAX_PAGES: u32 = 40;

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(60),
    }
}

#[test]
fn corpus_links_resolve_within_their_documents() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut pdfs: Vec<_> = std::fs::read_dir(corpus.join("papers"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("paper.pdf"))
        .filter(|p| p.is_file())
        .collect();
    pdfs.sort();
    let (mut internal, mut uris, mut anchored, mut documents_with_links) = (0, 0, 0, 0);
    let (mut markers, mut listed) = (0, 0);
    // Citation links (anchor `12` or `[12]`) against the page the text's reference list puts
    // entry 12 on.
    let (mut cite_links, mut cite_agree) = (0, 0);
    for path in &pdfs {
        let bytes = std::fs::read(path).unwrap();
        let Ok(doc) = pdf::extract(&bytes, limits()) else {
            continue;
        };
        let count = doc.pages.len() as u32;
        let texts: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
        let list = reference_list(&texts);
        // A link into the pages of the reference list (a section or page number elsewhere is
        // not a citation).
        let first = list.entries.first().map_or(0, |e| e.page);
        let last = list.entries.last().map_or(0, |e| e.page);
        let in_list = |p: u32| p >= first && p <= last;
        let mut here = 0;
        // The first pages of a long manual are enough, and keep the test short.
        for page in 1..=count.min(MAX_PAGES) {
            let links = pdf::page_links(&bytes, page, limits()).unwrap();
            if links.is_empty() {
                continue;
            }
            let layout = pdf::page_layout(&bytes, page, limits()).unwrap();
            for link in &links {
                match &link.target {
                    LinkTarget::Page { page: to, top } => {
                        assert!(
                            (1..=count).contains(to),
                            "{}: p. {page} links to p. {to} of {count}",
                            path.display()
                        );
                        if let Some(t) = top {
                            assert!(t.is_finite());
                        }
                        internal += 1;
                    }
                    LinkTarget::Uri(u) => {
                        assert!(!u.trim().is_empty());
                        uris += 1;
                    }
                }
                here += 1;
                let Some(range) = layout.text_in(link.rect) else {
                    continue;
                };
                anchored += 1;
                let anchor = layout.text[range].trim_matches(['[', ']', ' ']);
                if let (Ok(n), LinkTarget::Page { page: to, .. }) = (anchor.parse(), &link.target)
                    && let Some(e) = list.get(n)
                    && in_list(*to)
                {
                    if e.page != *to {
                        eprintln!(
                            "{}: p. {page} [{n}] → p. {to}, entry on p. {}",
                            path.display(),
                            e.page
                        );
                    }
                    cite_links += 1;
                    cite_agree += usize::from(e.page == *to);
                }
            }
        }
        if here > 0 {
            documents_with_links += 1;
        }
        listed += list.entries.len();
        for (i, t) in texts.iter().enumerate() {
            markers += citation_markers(t, i as u32 + 1, &list).len();
        }
    }
    eprintln!(
        "corpus links: {} PDFs, {documents_with_links} with links; {internal} internal, {uris} URIs, {anchored} with anchor text; {listed} reference entries, {markers} numbered citations; {cite_agree} of {cite_links} citation links go to their entry's page",
        pdfs.len()
    );
    assert!(
        documents_with_links >= 5,
        "{documents_with_links} documents with links"
    );
    assert!(internal >= 100, "{internal} internal links");
    assert!(
        anchored * 10 >= (internal + uris) * 8,
        "{anchored} of {} links have anchor text",
        internal + uris
    );
    assert!(
        listed >= 10 && markers >= 10,
        "{listed} entries, {markers} citations"
    );
    assert!(
        cite_links >= 5 && cite_agree * 10 >= cite_links * 9,
        "{cite_agree} of {cite_links} citation links go to their entry's page"
    );
}

/// A three-page paper with hyperref-like links on page 1: `2` of "Figure 2" to the figure's
/// page, `1` of "[1]" to the reference list (a named destination), a URL, and `3` of
/// "Section 3" to the section's heading. Each rectangle is put over its words as drawn.
pub fn linked_pdf() -> Vec<u8> {
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, ObjectId, Stream, dictionary};
    const PAGES: [&[&str]; 3] = [
        &[
            "As Figure 2 shows, the reader follows [1] and [2].",
            "Code: https://example.org/reader and Section 3.",
        ],
        &["Figure 2: The pipeline of the reader.", "3 Method"],
        &[
            "References",
            "[1] A. Author. An unrelated study of things. 2001.",
            "[2] K. Halvorsen. Passage-Level Retrieval. 2009. doi:10.5555/agentero.2009.0283",
        ],
    ];
    let build = |annots: &dyn Fn(&[ObjectId]) -> Vec<Object>| -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let tree = doc.new_object_id();
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let mut ids = Vec::new();
        for lines in PAGES {
            let mut ops = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                let y = 700.0 - 20.0 * i as f32;
                ops.extend([
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 10.into()]),
                    Operation::new("Td", vec![72.into(), y.into()]),
                    Operation::new("Tj", vec![Object::string_literal(*line)]),
                    Operation::new("ET", vec![]),
                ]);
            }
            let content = Content { operations: ops }.encode().unwrap();
            let c = doc.add_object(Stream::new(dictionary! {}, content));
            ids.push(
                doc.add_object(dictionary! { "Type" => "Page", "Parent" => tree, "Contents" => c }),
            );
        }
        let a = annots(&ids);
        if let Ok(Object::Dictionary(d)) = doc.get_object_mut(ids[0]) {
            d.set("Annots", a);
        }
        let kids: Vec<Object> = ids.iter().map(|i| (*i).into()).collect();
        doc.objects.insert(
            tree,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => 3,
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let cite = vec![
            ids[2].into(),
            "XYZ".into(),
            72.into(),
            690.into(),
            Object::Null,
        ];
        let root = doc.add_object(dictionary! {
            "Type" => "Catalog", "Pages" => tree,
            "Names" => dictionary! { "Dests" => dictionary! {
                "Names" => vec![Object::string_literal("cite.1"), cite.into()],
            } },
        });
        doc.trailer.set("Root", root);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    };
    let plain = build(&|_| Vec::new());
    let drawn = pdf::page_layout(&plain, 1, limits()).unwrap();
    // The rectangle over `chars` characters of `word` from its start.
    let over = |word: &str, chars: usize| {
        let at = drawn.text.find(word).unwrap();
        let r = drawn.rects(at..at + chars)[0];
        [r[0] - 0.3, r[1] - 0.3, r[2] + 0.3, r[3] + 0.3]
    };
    let rects = [
        over("2 shows", 1),
        over("1]", 1),
        over("https://", "https://example.org/reader".len()),
        over("3.", 1),
    ];
    build(&|ids| {
        let link = |rect: [f32; 4], rest: lopdf::Dictionary| {
            let mut d = dictionary! {
                "Type" => "Annot", "Subtype" => "Link",
                "Rect" => rect.iter().map(|v| Object::Real(*v)).collect::<Vec<_>>(),
            };
            d.extend(&rest);
            Object::Dictionary(d)
        };
        let xyz = |page: ObjectId, top: i64| -> Object {
            vec![
                page.into(),
                "XYZ".into(),
                72.into(),
                top.into(),
                Object::Null,
            ]
            .into()
        };
        let uri = dictionary! { "S" => "URI", "URI" => Object::string_literal("https://example.org/reader") };
        vec![
            link(rects[0], dictionary! { "Dest" => xyz(ids[1], 712) }),
            link(
                rects[1],
                dictionary! { "Dest" => Object::string_literal("cite.1") },
            ),
            link(rects[2], dictionary! { "A" => uri }),
            link(rects[3], dictionary! { "Dest" => xyz(ids[1], 692) }),
        ]
    })
}
