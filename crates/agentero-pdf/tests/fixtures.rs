//! The engine on its own fixtures (`agentero_pdf::fixtures`): every family of Adobe's predefined
//! CMaps, vertical writing, a TrueType font known only by glyph ids, a font nothing can decode,
//! margin line numbers, a sidebar box, a drop cap and TeX accents. Each fixture says what text
//! each page must give.

mod common;

use agentero_pdf::PdfDocument;
use agentero_pdf::fixtures::{self, Fixture};
use common::read;

fn assert_pages(f: &Fixture) -> PdfDocument {
    let doc = read(&f.pdf);
    let got: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
    let want: Vec<&str> = f.pages.iter().map(String::as_str).collect();
    assert_eq!(got, want, "{}", f.name);
    doc
}

#[test]
fn every_predefined_cmap_family_decodes_without_tounicode() {
    let doc = assert_pages(&fixtures::predefined_cmaps());
    assert!(doc.undecodable_pages.is_empty());
}

#[test]
fn vertical_columns_read_top_down_right_to_left() {
    assert_pages(&fixtures::vertical_writing());
}

#[test]
fn truetype_identity_font_without_tounicode_reads_through_its_cmap() {
    let doc = assert_pages(&fixtures::truetype_without_tounicode());
    assert!(doc.undecodable_pages.is_empty());
}

#[test]
fn undecodable_pages_are_counted_and_give_no_guessed_text() {
    let doc = assert_pages(&fixtures::undecodable_font());
    assert_eq!(doc.undecodable_pages, vec![1]);
}

#[test]
fn margin_line_numbers_stay_out_of_the_text() {
    assert_pages(&fixtures::margin_line_numbers());
}

#[test]
fn a_sidebar_box_is_a_block_after_the_abstract() {
    assert_pages(&fixtures::sidebar_box());
}

#[test]
fn a_drop_cap_joins_its_word() {
    assert_pages(&fixtures::drop_cap());
}

#[test]
fn tex_accents_compose_with_their_letters() {
    assert_pages(&fixtures::tex_accents());
}

#[test]
fn every_fixture_is_read_here() {
    let names: Vec<&str> = fixtures::all().iter().map(|f| f.name).collect();
    assert_eq!(names.len(), 8, "a new fixture gets a test above: {names:?}");
}
