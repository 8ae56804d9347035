use std::time::{Duration, Instant};

use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, ObjectId, Stream, dictionary};

use super::*;

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

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(20),
    }
}

/// The three pages in Helvetica, page 1's annotations made by `annots` from the page ids.
fn build(annots: impl FnOnce(&[ObjectId]) -> Vec<Object>) -> Vec<u8> {
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
        let c = doc.add_object(Stream::new(
            dictionary! {},
            Content { operations: ops }.encode().unwrap(),
        ));
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
    let root = doc.add_object(dictionary! {
        "Type" => "Catalog", "Pages" => tree,
        "Names" => dictionary! { "Dests" => dictionary! {
            "Names" => vec![Object::string_literal("cite.1"), vec![ids[2].into(), "XYZ".into(), 72.into(), 690.into(), Object::Null].into()],
        } },
    });
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

/// A paper with hyperref-like links (a figure number, a citation number, a section, a URL) in a
/// vault beside the demo papers: each becomes a row with what it goes to; the citations of the
/// page resolve to the reference list, and [2] to the demo paper it names by DOI.
#[test]
fn a_page_s_links_and_citations_resolve() {
    // Where the linked words are, from the page drawn without links.
    let plain = build(|_| Vec::new());
    let drawn = pdf::page_layout(&plain, 1, limits()).unwrap();
    let around = |word: &str| {
        let at = drawn.text.find(word).unwrap();
        let r = drawn.rects(at..at + word.len())[0];
        [r[0] - 0.5, r[1] - 0.5, r[2] + 0.5, r[3] + 0.5]
    };
    let (two, one, url, three) = (
        around("2 shows"),
        around("1]"),
        around("https://example.org/reader"),
        around("3."),
    );
    let two = [two[0], two[1], two[0] + (two[2] - two[0]) / 7.0, two[3]];
    let one = [one[0], one[1], one[0] + (one[2] - one[0]) / 2.0, one[3]];
    let three = [
        three[0],
        three[1],
        three[0] + (three[2] - three[0]) / 2.0,
        three[3],
    ];
    let bytes = build(|ids| {
        vec![
            link(
                two,
                dictionary! { "Dest" => vec![ids[1].into(), "XYZ".into(), 72.into(), 712.into(), Object::Null] },
            ),
            link(
                one,
                dictionary! { "Dest" => Object::string_literal("cite.1") },
            ),
            link(
                url,
                dictionary! { "A" => dictionary! { "S" => "URI", "URI" => Object::string_literal("https://example.org/reader") } },
            ),
            link(
                three,
                dictionary! { "Dest" => vec![ids[1].into(), "XYZ".into(), 72.into(), 692.into(), Object::Null] },
            ),
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    crate::vault::demo::write_demo_vault(dir.path()).unwrap();
    std::fs::create_dir_all(dir.path().join("papers/linked")).unwrap();
    std::fs::write(dir.path().join("papers/linked/paper.pdf"), &bytes).unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    crate::vault::indexer::index_vault(&vault, &Default::default(), &mut |_| {}).unwrap();
    let doc = pdf::extract(&bytes, limits()).unwrap();
    let texts: Vec<String> = doc.pages.iter().map(|p| p.text.clone()).collect();

    let links = page_links(&vault, "papers/linked/paper.pdf", 1, &texts);
    assert_eq!(links.note, None);
    let rows: Vec<(&str, String)> = links
        .items
        .iter()
        .map(|i| {
            let to = match &i.to {
                Target::Page { page, label } => {
                    format!("p. {page}: {}", label.as_deref().unwrap_or("-"))
                }
                Target::Uri(u) => u.clone(),
                Target::Reference(c) => format!(
                    "[{}] p. {} {} → {}",
                    c.number,
                    c.page,
                    c.text
                        .split_whitespace()
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" "),
                    c.paper.as_ref().map_or("-", |p| p.0.as_str())
                ),
            };
            (i.anchor.as_str(), to)
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "Figure 2",
                "p. 2: Figure 2: The pipeline of the reader.".to_string()
            ),
            ("[1]", "[1] p. 3 A. Author. → -".to_string()),
            (
                "https://example.org/reader",
                "https://example.org/reader".to_string()
            ),
            ("Section 3", "p. 2: 3 Method".to_string()),
            (
                "[2]",
                "[2] p. 3 K. Halvorsen. → papers/halvorsen2009-passages/paper.pdf".to_string()
            ),
        ]
    );
    // A page without links or citations: nothing; the references page cites nothing.
    assert!(
        page_links(&vault, "papers/linked/paper.pdf", 3, &texts)
            .items
            .is_empty()
    );
}

#[test]
fn a_figure_or_equation_anchor_finds_its_line() {
    let page = "Some text about Figure 3 here.\nFigure 3: The model.\nx = y (4)\nFig. 5. Other.";
    assert_eq!(
        label("Figure 3", Some(page)).as_deref(),
        Some("Figure 3: The model.")
    );
    assert_eq!(
        label("Fig. 5", Some(page)).as_deref(),
        Some("Fig. 5. Other.")
    );
    assert_eq!(label("Eq. (4)", Some(page)).as_deref(), Some("x = y (4)"));
    assert_eq!(label("Table 9", Some(page)), None);
    assert_eq!(label("3", Some(page)), None);
    assert_eq!(cited_number("[12]"), Some(12));
    assert_eq!(cited_number("12,"), Some(12));
    assert_eq!(cited_number("Figure 1"), None);
}
