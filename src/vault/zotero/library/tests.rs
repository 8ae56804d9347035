use super::*;
use crate::vault::zotero::fields::{arxiv_of, doi_of, key_in_extra, split_date};
use crate::vault::zotero::read::ItemRow;

#[test]
fn dates_notes_and_positions() {
    assert_eq!(
        split_date("2009-03-00 March 2009"),
        (Some("March 2009".into()), Some(2009))
    );
    assert_eq!(split_date("2011"), (Some("2011".into()), Some(2011)));
    assert_eq!(
        note_text("<div><h1>Idea</h1><p>a &amp; b</p><p>c<br/>d</p></div>"),
        "Idea\na & b\nc\nd"
    );
    assert_eq!(
        position(r#"{"pageIndex":2,"rects":[[1,2,3,4.5]]}"#),
        Some((3, vec![[1.0, 2.0, 3.0, 4.5]]))
    );
    assert_eq!(
        position(r#"{"pageIndex":0,"width":2,"paths":[[10,20,30,5]]}"#),
        Some((1, vec![[10.0, 5.0, 30.0, 20.0]]))
    );
    assert_eq!(segment("a/b", "x").as_str(), "a-b");
    assert_eq!(segment(".hidden", "x").as_str(), "_.hidden");
    assert_eq!(segment(" \u{200B} ", "x").as_str(), "x");
    assert!(segment(&"😀".repeat(70), "x").as_str().len() <= NAME_BYTES);
    assert!(is_key("ABCD2345") && is_key("ZZZZ9999"));
    for bad in [
        "ABCD234",
        "ABCD23450",
        "ABCD2341",
        "ABCDO234",
        "abcd2345",
        "../../.x",
        "ABCD234\0",
    ] {
        assert!(!is_key(bad), "{bad}");
    }
    assert_eq!(
        key_in_extra("foo\nCitation Key: knuth1984\n"),
        Some("knuth1984".into())
    );
}

#[test]
fn a_doi_or_arxiv_id_kept_elsewhere_is_found() {
    let item = |pairs: &[(&str, &str)]| ItemRow {
        fields: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..ItemRow::default()
    };
    // The field first, as written.
    let both = item(&[("DOI", "10.1000/ABC"), ("extra", "DOI: 10.1000/other")]);
    assert_eq!(doi_of(&both).as_deref(), Some("10.1000/ABC"));
    // A book section keeps it in Extra; a web page in its URL.
    let extra = item(&[("extra", "tex.x: y\ndoi:  https://doi.org/10.1000/xyz.1 \n")]);
    assert_eq!(doi_of(&extra).as_deref(), Some("10.1000/xyz.1"));
    let url = item(&[("url", "https://doi.org/10.1000/ABC.2")]);
    assert_eq!(doi_of(&url).as_deref(), Some("10.1000/abc.2"));
    // Not a DOI: nothing.
    let junk = item(&[
        ("extra", "DOI: see the publisher"),
        ("url", "https://example.org/doi.org/x"),
    ]);
    assert_eq!(doi_of(&junk), None);
    let arxiv = item(&[("url", "http://arxiv.org/abs/2101.00001v2")]);
    assert!(arxiv_of(&arxiv).is_some_and(|a| a.starts_with("2101.00001")));
    assert_eq!(arxiv_of(&item(&[("url", "https://example.org/")])), None);
}
