//! The extractor on PDFs the project writes itself (`agentero::vault::demo::fixtures`): every
//! family of Adobe's predefined CMaps, vertical writing, a TrueType font known only by glyph ids,
//! a font nothing can decode, margin line numbers, a sidebar box, a drop cap, TeX accents and a
//! code listing. Each fixture says what text each page must give.

use crate::common;

use std::time::{Duration, Instant};

use agentero::vault::demo::fixtures::{self, Fixture};
use agentero::vault::pdf::{Limits, PdfDocument, extract};

fn read(f: &Fixture) -> PdfDocument {
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(30),
    };
    extract(&f.pdf, limits).unwrap_or_else(|e| panic!("{}: {e}", f.name))
}

fn assert_pages(f: &Fixture) -> PdfDocument {
    let doc = read(f);
    let got: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
    let want: Vec<&str> = f.pages.iter().map(String::as_str).collect();
    assert_eq!(got, want, "{}", f.name);
    doc
}

#[test]
fn every_predefined_cmap_family_decodes_without_tounicode() {
    let f = fixtures::predefined_cmaps().unwrap();
    let doc = assert_pages(&f);
    assert!(doc.undecodable_pages.is_empty());
}

#[test]
fn vertical_columns_read_top_down_right_to_left() {
    assert_pages(&fixtures::vertical_writing().unwrap());
}

#[test]
fn truetype_identity_font_without_tounicode_reads_through_its_cmap() {
    let doc = assert_pages(&fixtures::truetype_without_tounicode().unwrap());
    assert!(doc.undecodable_pages.is_empty());
}

#[test]
fn undecodable_pages_are_counted_and_give_no_guessed_text() {
    let doc = assert_pages(&fixtures::undecodable_font().unwrap());
    assert_eq!(doc.undecodable_pages, vec![1]);
}

#[test]
fn margin_line_numbers_stay_out_of_the_text() {
    assert_pages(&fixtures::margin_line_numbers().unwrap());
}

#[test]
fn a_sidebar_box_is_a_block_after_the_abstract() {
    assert_pages(&fixtures::sidebar_box().unwrap());
}

#[test]
fn a_drop_cap_joins_its_word() {
    assert_pages(&fixtures::drop_cap().unwrap());
}

#[test]
fn tex_accents_compose_with_their_letters() {
    assert_pages(&fixtures::tex_accents().unwrap());
}

#[test]
fn code_keeps_its_indentation_and_line_breaks() {
    assert_pages(&fixtures::code_listing().unwrap());
}

#[test]
fn numbered_pages_read_as_written() {
    assert_pages(&fixtures::numbered_pages(7).unwrap());
}

/// `agentero index` names the papers whose text could not be decoded, on every run, and the CJK
/// text of CID fonts without ToUnicode is searchable.
#[test]
fn index_summary_reports_undecodable_pages() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (slug, fixture) in [
        ("opaque", fixtures::undecodable_font().unwrap()),
        ("cjk", fixtures::predefined_cmaps().unwrap()),
    ] {
        std::fs::create_dir_all(root.join("papers").join(slug)).unwrap();
        std::fs::write(
            root.join("papers").join(slug).join("paper.pdf"),
            fixture.pdf,
        )
        .unwrap();
    }
    let v = root.to_str().unwrap();
    for run in 0..2 {
        let out = common::agentero(&["index", v], root);
        assert!(out.status.success(), "{}", common::stderr(&out));
        let stdout = common::stdout(&out);
        assert!(
            stdout.contains("papers/opaque/paper.pdf: text not decodable on 1 page"),
            "run {run}: {stdout}"
        );
        assert!(!stdout.contains("papers/cjk/paper.pdf: text"), "{stdout}");
    }
    let out = common::agentero(&["search", "--vault", v, "--json", "中文排版"], root);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        found["cards"][0]["citationUri"], "papers/cjk/paper.pdf#page=1",
        "{found}"
    );
}
