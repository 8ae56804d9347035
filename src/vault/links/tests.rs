use super::*;

const PAGE_1: &str = "1 Introduction\nReading order was studied before [1], and again in\n[3, 7] and [3–5]; the layout model of [12, p. 4] is\nthe baseline [2].\n";
const PAGE_2: &str = "5 Conclusion\nIt works [6].\nReferences\n[1] A. Vaswani, N. Shazeer. Attention is all you\nneed. In NeurIPS, 2017.\n[2] B. Smith. Reading order in PDFs. J. Doc. Eng.,\n2020.\n[3] C. Jones. Columns. 2019.\n[4] D. Lee. Boxes and lines. 2018.\n[5] E. Kim. Layout trees. 2021.\n[6] F. Wu. Tables, hyphen-\n";
const PAGE_3: &str = "ated. 2016.\n[7] G. Ode. Fonts. 2015.\n[12] H. Ray. A layout model. 2014.\nA Appendix\n[1] not an entry: the appendix has begun.\n";

fn pages() -> Vec<&'static str> {
    vec![PAGE_1, PAGE_2, PAGE_3]
}

#[test]
fn a_numbered_list_gives_each_entry_its_page_range_and_text() {
    let list = reference_list(&pages());
    let numbers: Vec<u32> = list.entries.iter().map(|e| e.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7], "{list:#?}");
    let first = list.get(1).unwrap();
    assert_eq!(first.page, 2);
    assert_eq!(
        first.text,
        "A. Vaswani, N. Shazeer. Attention is all you need. In NeurIPS, 2017."
    );
    assert_eq!(
        &PAGE_2[first.range.clone()],
        "[1] A. Vaswani, N. Shazeer. Attention is all you\nneed. In NeurIPS, 2017."
    );
    // Continued on the next page: the text joins the hyphenated word; the range stays on
    // the entry's page.
    let six = list.get(6).unwrap();
    assert_eq!(six.text, "F. Wu. Tables, hyphenated. 2016.");
    assert_eq!(&six.text[..six.on_page], "F. Wu. Tables, hyphen");
    assert_eq!(first.on_page, first.text.len());
    assert_eq!(&PAGE_2[six.range.clone()], "[6] F. Wu. Tables, hyphen-");
    assert_eq!(list.get(7).unwrap().page, 3);
    // [12] does not follow [7] closely enough to be taken for the next entry.
    assert!(list.get(12).is_none());
}

#[test]
fn markers_give_the_numbers_the_list_has() {
    let list = reference_list(&pages());
    let found: Vec<(&str, Vec<u32>)> = citation_markers(PAGE_1, 1, &list)
        .into_iter()
        .map(|m| (&PAGE_1[m.range], m.numbers))
        .collect();
    assert_eq!(
        found,
        [
            ("[1]", vec![1]),
            ("[3, 7]", vec![3, 7]),
            ("[3–5]", vec![3, 4, 5]),
            ("[2]", vec![2]),
        ],
        "[12, p. 4] names an entry the list does not have"
    );
    // The entries' own numbers are not citations; a citation on the same page is.
    let on_refs: Vec<&str> = citation_markers(PAGE_2, 2, &list)
        .into_iter()
        .map(|m| &PAGE_2[m.range])
        .collect();
    assert_eq!(on_refs, ["[6]"]);
}

#[test]
fn page_markers_and_ranges_parse() {
    assert_eq!(numbers("[12, p. 4]"), [12]);
    assert_eq!(numbers("[12, pp. 4–6]"), [12]);
    assert_eq!(numbers("[3-5, 9]"), [3, 4, 5, 9]);
    assert_eq!(numbers("[5–3]"), [5, 3]);
    assert_eq!(
        numbers("[1–9999]"),
        [1, 9999],
        "a huge range is not expanded"
    );
    assert_eq!(numbers("[2, 2, 2]"), [2]);
}

#[test]
fn a_dotted_list_is_read_when_no_line_starts_with_a_bracket() {
    let page = "Text citing [2] and [1].\nBibliography\n1. A. One. First paper. 2001.\n2. B. Two. Second\npaper. 2002.\n";
    let list = reference_list(&[page]);
    assert_eq!(list.entries.len(), 2);
    assert_eq!(list.get(2).unwrap().text, "B. Two. Second paper. 2002.");
    let markers = citation_markers(page, 1, &list);
    assert_eq!(markers.len(), 2);
}

/// Brackets everywhere, a page of numbers, numbered lines after the heading that are not a
/// sequence, no reference list: no entry, no marker, no panic.
#[test]
fn hostile_text_gives_nothing_to_follow() {
    let brackets =
        "[[[]]] [1] [2020] [a] [1,,2] [ 1 - ] [-3] [99999999999] ]][[ [1–] [,] [p. 4]\n".repeat(50);
    assert!(reference_list(&[&brackets]).entries.is_empty());
    let none = ReferenceList::default();
    assert!(citation_markers(&brackets, 1, &none).is_empty());

    let numbers_page: String = (1..2000).map(|n| format!("{n}. {n}\n[{n}] x\n")).collect();
    let with_heading = format!("References\n{numbers_page}");
    let list = reference_list(&[&with_heading]);
    // The sequence is real here (1, 2, 3 …), but bounded.
    assert!(list.entries.len() <= MAX_ENTRIES);
    let cited = citation_markers(&with_heading, 1, &list);
    assert!(cited.len() <= MAX_MARKERS);

    // Numbers out of sequence are not entries: only [2] could start a list.
    let shuffled = "References\n[9] x\n[400] y\n[2] z\n[1000] w\n";
    let numbers: Vec<u32> = reference_list(&[shuffled])
        .entries
        .iter()
        .map(|e| e.number)
        .collect();
    assert_eq!(numbers, [2]);

    let no_list = "Intro [1] and [2].\n[1] looks like an entry\n[2] but there is no heading\n";
    assert!(reference_list(&[no_list]).entries.is_empty());
    assert!(reference_list(&[]).entries.is_empty());
    // Multi-byte text around the markers, and an entry cut on a character boundary.
    let long = format!("References\n[1] {}\n[2] é.\n", "é".repeat(MAX_ENTRY));
    let list = reference_list(&[&long]);
    assert!(list.get(1).unwrap().text.len() <= MAX_ENTRY);
    assert_eq!(citation_markers("«[2]» — [1]", 1, &list).len(), 2);
}

/// The demo vault's papers cite `[n]` and print a numbered list: every marker of every page
/// names an entry, and each paper that cites has markers.
#[test]
fn the_demo_papers_markers_resolve_to_their_lists() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    crate::vault::demo::write_demo_vault(dir.path()).unwrap();
    let mut papers = 0;
    for entry in std::fs::read_dir(dir.path().join("papers")).unwrap() {
        let pdf = entry.unwrap().path().join("paper.pdf");
        let Ok(bytes) = std::fs::read(&pdf) else {
            continue;
        };
        let limits = crate::vault::pdf::Limits {
            deadline: Instant::now() + Duration::from_secs(30),
        };
        let doc = crate::vault::pdf::extract(&bytes, limits).unwrap();
        let texts: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
        let list = reference_list(&texts);
        if list.entries.is_empty() {
            continue;
        }
        papers += 1;
        let numbers: Vec<u32> = list.entries.iter().map(|e| e.number).collect();
        let want: Vec<u32> = (1..=numbers.len() as u32).collect();
        assert_eq!(numbers, want, "{}", pdf.display());
        let markers: usize = texts
            .iter()
            .enumerate()
            .map(|(i, t)| citation_markers(t, i as u32 + 1, &list).len())
            .sum();
        assert!(markers > 0, "{}: no citation found", pdf.display());
        for e in &list.entries {
            let page = texts[e.page as usize - 1];
            assert!(page[e.range.clone()].starts_with(&format!("[{}]", e.number)));
        }
    }
    assert!(
        papers >= 4,
        "only {papers} demo papers have a numbered list"
    );
}
