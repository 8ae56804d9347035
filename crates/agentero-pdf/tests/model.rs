//! One page model: `extract`, `open` and `page_layout` all give `PageText`s, the same text and
//! page numbers, with as much geometry as each is asked for.

mod common;

use agentero_pdf::fixtures::{margin_line_numbers, sidebar_box};
use agentero_pdf::{extract, open, page_layout};
use common::limits;

#[test]
fn extract_open_and_page_layout_give_one_page_model() {
    for fixture in [sidebar_box(), margin_line_numbers()] {
        let plain = extract(&fixture.pdf, limits()).expect("the fixture opens");
        let full = open(&fixture.pdf, limits()).expect("the fixture opens");
        assert_eq!(plain.pages.len(), full.pages.len(), "{}", fixture.name);
        assert_eq!(plain.title_hint, full.title_hint, "{}", fixture.name);
        for (p, f) in plain.pages.iter().zip(&full.pages) {
            assert_eq!((p.number, &p.label, &p.text), (f.number, &f.label, &f.text));
            assert!(
                p.blocks.is_empty() && p.boxes.is_empty(),
                "extract keeps no geometry"
            );
            assert!(
                !f.blocks.is_empty() && f.boxes.is_empty(),
                "open keeps the blocks"
            );
            for line in f.lines() {
                assert_eq!(&f.text[line.range.clone()], line.text);
                assert!(line.bbox[2] > line.bbox[0] && line.bbox[3] > line.bbox[1]);
            }
            let one = page_layout(&fixture.pdf, p.number, limits()).expect("the page opens");
            assert_eq!(
                (one.number, &one.label, &one.text),
                (p.number, &p.label, &p.text)
            );
            assert_eq!(one.blocks, f.blocks, "{} p.{}", fixture.name, p.number);
            let drawn = one.text.chars().filter(|c| !c.is_whitespace()).count();
            assert_eq!(one.boxes.len(), drawn, "a box per drawn character");
            let first = &f.lines().next().expect("a line").range;
            assert!(!one.rects(first.clone()).is_empty());
        }
    }
}
