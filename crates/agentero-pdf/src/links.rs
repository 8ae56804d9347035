//! A page's link annotations: where each clickable rectangle goes, a page of the document (its
//! destination resolved as the outline's are) or a URI. Bounded in the annotations read and the
//! length of a URI; an annotation that is not a readable link is skipped.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::dest::Resolver;
use super::encodings::decode_text_string;
use super::util::{as_dict, get, get_array, get_dict, get_name, num_deref};

/// Annotations of one page looked at, at most (a page of a hyperlinked index has hundreds).
const MAX_ANNOTS: usize = 4_000;
/// Links returned for one page, at most.
pub const MAX_LINKS: usize = 1_000;
/// A URI longer than this is not a link anyone follows from a terminal.
const MAX_URI: usize = 4_096;

/// A link annotation of a page.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The clickable rectangle in PDF user space: `[x0, y0, x1, y1]`, y up, `x0 <= x1`,
    /// `y0 <= y1`.
    pub rect: [f32; 4],
    pub target: LinkTarget,
}

/// Where a link goes.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkTarget {
    /// A page of the same document (1-based), and the height of the view's top on it (PDF
    /// user space, y up) when the destination gives one (`/XYZ`, `/FitH`, `/FitBH`).
    Page { page: u32, top: Option<f32> },
    /// A URI action's address, as written.
    Uri(String),
}

/// The links of the page `page`, in the order of its `/Annots`.
pub fn page_links(doc: &Document, page: ObjectId, pages: &HashMap<ObjectId, u32>) -> Vec<Link> {
    let Ok(page_dict) = doc.get_dictionary(page) else {
        return Vec::new();
    };
    let Some(annots) = get_array(doc, page_dict, b"Annots") else {
        return Vec::new();
    };
    let mut dests = Resolver::new(doc, pages);
    let mut out = Vec::new();
    for annot in annots.iter().take(MAX_ANNOTS) {
        if out.len() >= MAX_LINKS {
            break;
        }
        let Some(a) = as_dict(doc, annot) else {
            continue;
        };
        if get_name(doc, a, b"Subtype") != Some(b"Link") {
            continue;
        }
        let (Some(rect), Some(target)) = (rect(doc, a), target(doc, a, &mut dests)) else {
            continue;
        };
        out.push(Link { rect, target });
    }
    out
}

fn rect(doc: &Document, a: &Dictionary) -> Option<[f32; 4]> {
    let r = get_array(doc, a, b"Rect")?;
    if r.len() != 4 {
        return None;
    }
    let mut v = [0f32; 4];
    for (slot, o) in v.iter_mut().zip(r) {
        *slot = num_deref(doc, o)?;
    }
    Some([
        v[0].min(v[2]),
        v[1].min(v[3]),
        v[0].max(v[2]),
        v[1].max(v[3]),
    ])
}

fn target<'a>(
    doc: &'a Document,
    a: &'a Dictionary,
    dests: &mut Resolver<'a>,
) -> Option<LinkTarget> {
    if get(doc, a, b"Dest").is_some() {
        let d = dests.of_item(a)?;
        return Some(LinkTarget::Page {
            page: d.page,
            top: d.top,
        });
    }
    let action = get_dict(doc, a, b"A")?;
    match get_name(doc, action, b"S")? {
        b"GoTo" => dests.of_action(action).map(|d| LinkTarget::Page {
            page: d.page,
            top: d.top,
        }),
        b"URI" => {
            let uri = match get(doc, action, b"URI")? {
                Object::String(s, _) if s.len() <= MAX_URI => decode_text_string(s),
                _ => return None,
            };
            let uri = uri.trim();
            (!uri.is_empty()).then(|| LinkTarget::Uri(uri.to_string()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};

    use crate::{Limits, LinkTarget, page_layout, page_links};

    fn limits() -> Limits {
        Limits {
            deadline: Instant::now() + Duration::from_secs(20),
        }
    }

    fn text(x: f32, y: f32, s: &str) -> Vec<Operation> {
        let op = |o: &str, args: Vec<Object>| Operation::new(o, args);
        vec![
            op("BT", vec![]),
            op("Tf", vec!["F1".into(), 10.into()]),
            op("Td", vec![x.into(), y.into()]),
            op("Tj", vec![Object::string_literal(s)]),
            op("ET", vec![]),
        ]
    }

    /// A Helvetica document of `pages` pages, each showing its lines (x, y, text); the annots of
    /// the first page are made by `annots` from the page ids (any objects it adds kept), and
    /// the catalog gets `catalog`.
    fn pdf(
        pages: &[Vec<(f32, f32, &str)>],
        annots: impl FnOnce(&mut Document, &[lopdf::ObjectId]) -> Object,
        catalog: impl FnOnce(&[lopdf::ObjectId]) -> lopdf::Dictionary,
    ) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let tree = doc.new_object_id();
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let mut ids = Vec::new();
        for lines in pages {
            let ops: Vec<Operation> = lines.iter().flat_map(|(x, y, s)| text(*x, *y, s)).collect();
            let content = Content { operations: ops }.encode().unwrap();
            let c = doc.add_object(Stream::new(dictionary! {}, content));
            ids.push(doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => tree, "Contents" => c,
            }));
        }
        let a = annots(&mut doc, &ids);
        if let Ok(Object::Dictionary(d)) = doc.get_object_mut(ids[0]) {
            d.set("Annots", a);
        }
        let kids: Vec<Object> = ids.iter().map(|id| (*id).into()).collect();
        doc.objects.insert(
            tree,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => pages.len() as i64,
                "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
                "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
            }),
        );
        let mut cat = catalog(&ids);
        cat.set("Type", "Catalog");
        cat.set("Pages", tree);
        let root = doc.add_object(cat);
        doc.trailer.set("Root", root);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    fn link(rect: [f32; 4], rest: lopdf::Dictionary) -> Object {
        let mut d = dictionary! {
            "Type" => "Annot", "Subtype" => "Link",
            "Rect" => rect.iter().map(|v| Object::Real(*v)).collect::<Vec<_>>(),
        };
        d.extend(&rest);
        Object::Dictionary(d)
    }

    /// Explicit destinations (`/XYZ` with its top, `/FitH`, `/Fit`), a named destination through
    /// the `/Names` tree and the old `/Dests` dictionary, a GoTo action and a URI action; the
    /// anchor text of each is the page text inside its rectangle.
    #[test]
    fn links_resolve_to_pages_and_uris_with_their_anchor_text() {
        let pages = [
            vec![
                (72.0, 700.0, "See Figure 3 and Section 2 and [12]."),
                (72.0, 680.0, "Code at https://example.org/x and Eq. 4."),
            ],
            vec![(72.0, 700.0, "Figure 3: the pipeline")],
            vec![
                (72.0, 700.0, "References"),
                (72.0, 680.0, "[12] A. Author."),
            ],
        ];
        // Where the words are, from the page as drawn without links.
        let plain = pdf(&pages, |_, _| Object::Null, |_| dictionary! {});
        let drawn = page_layout(&plain, 1, limits()).unwrap();
        let around = |word: &str| {
            let at = drawn.text.find(word).unwrap();
            let r = drawn.rects(at..at + word.len())[0];
            [r[0] - 1.0, r[1] - 1.0, r[2] + 1.0, r[3] + 1.0]
        };
        let (figure, section, cite) = (around("Figure 3"), around("Section 2"), around("[12]"));
        let (url, eq) = (around("https://example.org/x"), around("Eq. 4"));
        let bytes = pdf(
            &pages,
            |doc, ids| {
                let named = doc.add_object(Object::Array(vec![
                    ids[2].into(),
                    "XYZ".into(),
                    0.into(),
                    690.into(),
                    Object::Null,
                ]));
                Object::Array(vec![
                    link(
                        figure,
                        dictionary! { "Dest" => vec![ids[1].into(), "XYZ".into(), 72.into(), 712.into(), 0.into()] },
                    ),
                    link(
                        section,
                        dictionary! { "Dest" => vec![ids[1].into(), "FitH".into(), 500.into()] },
                    ),
                    link(
                        cite,
                        dictionary! { "Dest" => Object::string_literal("cite.12") },
                    ),
                    link(
                        url,
                        dictionary! { "A" => dictionary! { "S" => "URI", "URI" => Object::string_literal("https://example.org/x") } },
                    ),
                    link(
                        eq,
                        dictionary! { "A" => dictionary! { "S" => "GoTo", "D" => Object::Name(b"eq4".to_vec()) } },
                    ),
                    // Not a link: skipped.
                    Object::Dictionary(
                        dictionary! { "Type" => "Annot", "Subtype" => "Text", "Rect" => vec![0.into(), 0.into(), 1.into(), 1.into()] },
                    ),
                    link([1.0, 1.0, 2.0, 2.0], dictionary! { "Dest" => named }),
                ])
            },
            |ids| {
                dictionary! {
                    "Names" => dictionary! { "Dests" => dictionary! {
                        "Names" => vec![Object::string_literal("cite.12"), vec![ids[2].into(), "Fit".into()].into()],
                    } },
                    "Dests" => dictionary! { "eq4" => dictionary! { "D" => vec![ids[1].into(), "FitBH".into(), 300.into()] } },
                }
            },
        );
        let links = page_links(&bytes, 1, limits()).unwrap();
        let targets: Vec<_> = links.iter().map(|l| l.target.clone()).collect();
        assert_eq!(
            targets,
            [
                LinkTarget::Page {
                    page: 2,
                    top: Some(712.0)
                },
                LinkTarget::Page {
                    page: 2,
                    top: Some(500.0)
                },
                LinkTarget::Page { page: 3, top: None },
                LinkTarget::Uri("https://example.org/x".into()),
                LinkTarget::Page {
                    page: 2,
                    top: Some(300.0)
                },
                LinkTarget::Page {
                    page: 3,
                    top: Some(690.0)
                },
            ]
        );
        let layout = page_layout(&bytes, 1, limits()).unwrap();
        let anchor = |i: usize| layout.text_in(links[i].rect).map(|r| &layout.text[r]);
        assert_eq!(anchor(0), Some("Figure 3"));
        assert_eq!(anchor(1), Some("Section 2"));
        assert_eq!(anchor(2), Some("[12]"));
        assert_eq!(anchor(3), Some("https://example.org/x"));
        assert_eq!(anchor(5), None, "no text under it");
        // The other pages have no links; a page the document lacks is an error.
        assert!(page_links(&bytes, 2, limits()).unwrap().is_empty());
        assert!(page_links(&bytes, 9, limits()).is_err());
    }

    /// Broken `/Annots` (not an array, non-dictionary members, a dangling reference, a bad
    /// rectangle), destinations that loop through names and dictionaries, a named destination
    /// the document lacks, a page index past the end, a huge URI: no panic, no hang, no link
    /// out of them.
    #[test]
    fn hostile_annotations_yield_nothing_and_never_panic() {
        let broken = |annots: fn(&mut Document, &[lopdf::ObjectId]) -> Object| {
            pdf(&[vec![(72.0, 700.0, "text")]], annots, |_| {
                dictionary! {
                    "Dests" => dictionary! {
                        "a" => Object::Name(b"b".to_vec()),
                        "b" => dictionary! { "D" => Object::Name(b"a".to_vec()) },
                        "self" => Object::Name(b"self".to_vec()),
                    },
                }
            })
        };
        let cases: Vec<fn(&mut Document, &[lopdf::ObjectId]) -> Object> = vec![
            |_, _| Object::Integer(7),
            |_, _| Object::string_literal("annots"),
            |_, _| Object::Array(vec![Object::Null, 3.into(), Object::Reference((999, 0))]),
            |_, _| {
                Object::Array(vec![
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => Object::Name(b"a".to_vec()) },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => Object::Name(b"self".to_vec()) },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => Object::string_literal("missing") },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => vec![Object::Integer(-3), "Fit".into()] },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => vec![Object::Integer(i64::MAX), "Fit".into()] },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "Dest" => Object::Array(vec![]) },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "A" => dictionary! { "S" => "URI", "URI" => Object::string_literal("x".repeat(10_000)) } },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "A" => dictionary! { "S" => "Launch", "F" => "evil" } },
                    ),
                    link(
                        [0.0, 0.0, 1.0, 1.0],
                        dictionary! { "A" => Object::Integer(1) },
                    ),
                    Object::Dictionary(
                        dictionary! { "Subtype" => "Link", "Rect" => vec![0.into()], "Dest" => vec![Object::Integer(0), "Fit".into()] },
                    ),
                    Object::Dictionary(
                        dictionary! { "Subtype" => "Link", "Rect" => Object::Null, "Dest" => vec![Object::Integer(0), "Fit".into()] },
                    ),
                ])
            },
            |doc, _| {
                // A dictionary destination that names itself through an indirect object.
                let id = doc.new_object_id();
                doc.objects.insert(
                    id,
                    Object::Dictionary(dictionary! { "D" => Object::Reference(id) }),
                );
                Object::Array(vec![link(
                    [0.0, 0.0, 1.0, 1.0],
                    dictionary! { "Dest" => Object::Reference(id) },
                )])
            },
        ];
        for (i, make) in cases.into_iter().enumerate() {
            let bytes = broken(make);
            let links = page_links(&bytes, 1, limits()).unwrap();
            assert!(links.is_empty(), "case {i}: {links:?}");
        }
        // Garbage and truncated files are errors, not panics.
        assert!(page_links(b"%PDF-1.5\n1 0 obj << /Type /Catalog", 1, limits()).is_err());
        assert!(page_links(b"not a pdf", 1, limits()).is_err());
        let whole = broken(|_, _| Object::Null);
        // A file cut in half: whatever lopdf recovers, no panic.
        let _ = page_links(&whole[..whole.len() / 2], 1, limits());
    }

    /// More link annotations than a page may give: cut at the bound.
    #[test]
    fn a_page_of_links_is_cut_at_the_bound() {
        let bytes = pdf(
            &[vec![(72.0, 700.0, "x")]],
            |_, ids| {
                Object::Array(
                    (0..super::MAX_LINKS + 50)
                        .map(|_| {
                            link(
                                [0.0, 0.0, 1.0, 1.0],
                                dictionary! { "Dest" => vec![ids[0].into(), "Fit".into()] },
                            )
                        })
                        .collect(),
                )
            },
            |_| dictionary! {},
        );
        assert_eq!(
            page_links(&bytes, 1, limits()).unwrap().len(),
            super::MAX_LINKS
        );
    }
}
