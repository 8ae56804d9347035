//! The pages the app's tests open (`agentero::vault::demo::fixtures`: a code listing, numbered
//! pages) read as they say, and the engine's fixtures (`agentero_pdf::fixtures`, whose text the
//! crate's own tests check) indexed and searched by the app. Each fixture says what text each page
//! must give.

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
        ("opaque", agentero_pdf::fixtures::undecodable_font()),
        ("cjk", agentero_pdf::fixtures::predefined_cmaps()),
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
