//! The demo vault on disk, and what the PDF text extractor makes of its papers.
//!
//! The demo papers are built to exercise the extractor (ligature glyphs, hyphenated line ends,
//! two columns, positioned word gaps, page labels, an outline, a file without an Info
//! dictionary), so the expectations below are the extractor's contract as much as the demo's.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentero::vault::demo::{DEMO_VAULT_VERSION, VERSION_MARKER, write_demo_vault};
use agentero::vault::pdf::{Limits, PdfDocument, extract};

fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn demo() -> (tempfile::TempDir, BTreeMap<PathBuf, Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    write_demo_vault(dir.path()).unwrap();
    let files = files_under(dir.path());
    (dir, files)
}

fn extract_paper(files: &BTreeMap<PathBuf, Vec<u8>>, path: &str) -> PdfDocument {
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(30),
    };
    extract(&files[Path::new(path)], limits).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Page text with all whitespace runs collapsed to single spaces, so expectations do not depend
/// on where lines break.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn flat_doc(doc: &PdfDocument) -> String {
    let pages: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
    flat(&pages.join("\n"))
}

const PDFS: [&str; 8] = [
    "inbox/2402.09876v2.pdf",
    "papers/citeweave/paper.pdf",
    "papers/dense-vs-sparse/paper.pdf",
    "papers/halvorsen2009-passages/paper.pdf",
    "papers/layoutflow/paper.pdf",
    "papers/reading-machines-survey/paper.pdf",
    "papers/receipts-qa/paper.pdf",
    "papers/sci-tokenisation/paper.pdf",
];

#[test]
fn layout_on_disk() {
    let (_dir, files) = demo();
    let pdfs: Vec<String> = files
        .keys()
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .collect();
    assert_eq!(pdfs, PDFS);
    for sidecar in [
        "papers/citeweave/info.yaml",
        "papers/sci-tokenisation/info.yaml",
        "papers/receipts-qa/references.json",
        "papers/reading-machines-survey/references.bib",
        "references.bib",
        "README.md",
    ] {
        assert!(files.contains_key(Path::new(sidecar)), "missing {sidecar}");
    }
    let notes: Vec<&PathBuf> = files
        .keys()
        .filter(|p| p.starts_with("notes") && p.extension().is_some_and(|e| e == "md"))
        .collect();
    assert!(notes.len() >= 3, "{notes:?}");
    let with_front_matter = notes
        .iter()
        .filter(|p| files[**p].starts_with(b"---\n"))
        .count();
    assert_eq!(with_front_matter, 1);
    // A text file without an extension: valid UTF-8 with non-ASCII characters.
    let todo = std::str::from_utf8(&files[Path::new("notes/TODO")]).unwrap();
    assert!(!todo.is_ascii());
    for ext in ["txt", "csv", "tex"] {
        assert!(
            files
                .keys()
                .any(|p| p.starts_with("datasets") && p.extension().is_some_and(|e| e == ext)),
            "no datasets/*.{ext}"
        );
    }
    assert_eq!(
        files[Path::new(VERSION_MARKER)],
        format!("{DEMO_VAULT_VERSION}\n").into_bytes()
    );
    assert!(
        VERSION_MARKER.starts_with('.'),
        "the marker must be hidden from the vault scan"
    );
    for bytes in files.values() {
        assert!(bytes.len() < 64 * 1024, "demo files stay small");
    }
}

#[test]
fn generation_is_deterministic() {
    let (_a, first) = demo();
    let (_b, second) = demo();
    assert_eq!(first, second);
}

// ---------------------------------------------------------------------------------------------
// Through the extractor.

#[test]
fn every_paper_extracts_with_its_identifier_on_page_one() {
    let (_dir, files) = demo();
    let ids = [
        ("inbox/2402.09876v2.pdf", "arXiv:2402.09876v2"),
        ("papers/citeweave/paper.pdf", "10.5555/agentero.2022.0217"),
        (
            "papers/dense-vs-sparse/paper.pdf",
            "10.5555/agentero.2023.0042",
        ),
        (
            "papers/halvorsen2009-passages/paper.pdf",
            "doi:10.5555/agentero.2009.0283",
        ),
        ("papers/layoutflow/paper.pdf", "arXiv:2104.05512"),
        (
            "papers/reading-machines-survey/paper.pdf",
            "10.5555/agentero.2024.0150",
        ),
        ("papers/receipts-qa/paper.pdf", "10.5555/agentero.2023.0311"),
        ("papers/sci-tokenisation/paper.pdf", "arXiv:2211.07321"),
    ];
    for (path, id) in ids {
        let doc = extract_paper(&files, path);
        assert!(
            (2..=4).contains(&doc.pages.len()),
            "{path}: {} pages",
            doc.pages.len()
        );
        for page in &doc.pages {
            assert!(
                !page.text.trim().is_empty(),
                "{path} page {} is empty",
                page.number
            );
        }
        let first = flat(&doc.pages[0].text);
        assert!(first.contains(id), "{path}: {id} not on page 1:\n{first}");
        assert!(first.contains("Abstract"), "{path}");
        assert!(flat_doc(&doc).contains("References [1]"), "{path}");
    }
}

#[test]
fn ligatures_come_out_as_letters_and_hyphenated_words_are_joined() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/layoutflow/paper.pdf");
    let text = flat_doc(&doc);
    for expected in [
        "an efficient rule-based method",
        "The whole workflow runs on a CPU",
        "finds columns from vertical whitespace",
        "so that fi, fl, ffi and ffl become plain letters",
        // Hyphenated at the line end in the PDF ("extrac-" / "tion", "decompo-" / "sition").
        "starts with text extraction, and most treat it as solved",
        "the compatibility decomposition of the ligature code point",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    for unexpected in [
        "extrac- tion",
        "extrac-tion",
        "decompo- sition",
        "\u{fb01}",
        "\u{fb02}",
    ] {
        assert!(!text.contains(unexpected), "found {unexpected:?}");
    }
    // Real hyphens inside words survive.
    assert!(text.contains("state-of-the-art"));
}

#[test]
fn two_column_page_reads_left_column_first() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/dense-vs-sparse/paper.pdf");
    let page = flat(&doc.pages[0].text);
    // Full-width title and abstract come before both columns.
    let abs = page
        .find("Dense retrievers dominate open-domain question answering")
        .unwrap();
    let pos = |s: &str| {
        page.find(s)
            .unwrap_or_else(|| panic!("missing {s:?} in\n{page}"))
    };
    assert!(abs < pos("1 Introduction"));
    // The left column (sections 1-3) is read completely before the right one (section 4 on),
    // which starts at the same height as "1 Introduction".
    assert!(pos("1 Introduction") < pos("2 The SciPassage-QA benchmark"));
    assert!(pos("2 The SciPassage-QA benchmark") < pos("3 Retrievers"));
    assert!(pos("3 Retrievers") < pos("4 Results"));
    // The sentence that runs from the bottom of the left column to the top of the right one.
    assert!(page.contains("cited passages from the CiteWeave graph [3]. The hybrid combines"));
}

/// Every paper's abstract reads as one paragraph, also where it is set full width across the
/// gutter of a two-column paper (each of its lines was once a paragraph of its own).
#[test]
fn abstracts_read_as_one_paragraph() {
    let (_dir, files) = demo();
    for path in files
        .keys()
        .filter(|p| p.starts_with("papers") && p.extension().is_some_and(|e| e == "pdf"))
    {
        let doc = extract_paper(&files, path.to_str().unwrap());
        let page = &doc.pages[0].text;
        let Some(start) = page.find("Abstract\n") else {
            continue;
        };
        let rest = &page[start + "Abstract\n".len()..];
        let abstract_text = rest.split("\n\n").next().unwrap_or("");
        assert!(
            abstract_text.lines().count() >= 3,
            "{}: {abstract_text}",
            path.display()
        );
    }
    let doc = extract_paper(&files, "papers/dense-vs-sparse/paper.pdf");
    assert!(
        doc.pages[0]
            .text
            .contains("citation contexts, and their\nhybrid on SciPassage-QA"),
        "{}",
        doc.pages[0].text
    );
}

#[test]
fn positioned_word_gaps_become_spaces() {
    let (_dir, files) = demo();
    // Both papers are set with TJ arrays and no space characters.
    let doc = extract_paper(&files, "papers/dense-vs-sparse/paper.pdf");
    assert!(
        flat_doc(&doc)
            .contains("Reciprocal rank fusion of the two reaches a recall at 10 of 0.731")
    );
    let doc = extract_paper(&files, "papers/layoutflow/paper.pdf");
    assert!(
        flat_doc(&doc).contains("Turning a scholarly PDF into text that downstream search can use")
    );
}

#[test]
fn page_labels_follow_the_journal_pages() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/halvorsen2009-passages/paper.pdf");
    let labels: Vec<Option<&str>> = doc.pages.iter().map(|p| p.label.as_deref()).collect();
    let expected: Vec<String> = (0..doc.pages.len())
        .map(|i| (283 + i).to_string())
        .collect();
    assert_eq!(
        labels,
        expected
            .iter()
            .map(|s| Some(s.as_str()))
            .collect::<Vec<_>>()
    );
    let numbers: Vec<u32> = doc.pages.iter().map(|p| p.number).collect();
    assert_eq!(numbers, (1..=doc.pages.len() as u32).collect::<Vec<_>>());
    assert!(
        flat_doc(&doc).contains("The passage, not the document, should be the unit of retrieval")
    );
    // Papers without /PageLabels have no labels.
    let doc = extract_paper(&files, "papers/citeweave/paper.pdf");
    assert!(doc.pages.iter().all(|p| p.label.is_none()));
}

#[test]
fn outline_lists_sections_with_their_pages() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/layoutflow/paper.pdf");
    let outline: Vec<(&str, u32, Option<u32>)> = doc
        .outline
        .iter()
        .map(|o| (o.title.as_str(), o.level, o.page))
        .collect();
    assert_eq!(
        outline,
        [
            ("1 Introduction", 0, Some(1)),
            ("2 Method", 0, Some(1)),
            ("2.1 Lines", 1, Some(1)),
            ("2.2 Columns", 1, Some(2)),
            ("2.3 Ligatures and hyphens", 1, Some(2)),
            ("2.4 Reading order", 1, Some(2)),
            ("3 Evaluation", 0, Some(2)),
            ("4 Conclusion", 0, Some(2)),
            ("References", 0, Some(2)),
        ]
    );
    let doc = extract_paper(&files, "papers/dense-vs-sparse/paper.pdf");
    assert!(doc.outline.is_empty());
}

#[test]
fn metadata_comes_from_info_xmp_or_nowhere() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/dense-vs-sparse/paper.pdf");
    assert_eq!(
        doc.info.title.as_deref(),
        Some("Dense or Sparse? Retrieving Passages from Scientific Papers")
    );
    // Non-ASCII names are written as UTF-16 text strings.
    assert_eq!(
        doc.info.author.as_deref(),
        Some("Lena Fischbach, Tomás Ibarra, Mei-Ling Cho")
    );

    let doc = extract_paper(&files, "papers/receipts-qa/paper.pdf");
    assert_eq!(doc.info.doi.as_deref(), Some("10.5555/agentero.2023.0311"));
    assert_eq!(
        doc.info.xmp_authors,
        ["Samuel Okonkwo", "Clara Vidal", "Henrik Aalto"]
    );
    assert_eq!(
        doc.info.xmp_title.as_deref(),
        Some("Answering with Receipts: Grounded Question Answering over Paper Collections")
    );

    // The inbox preprint has no Info dictionary: title and authors are only in the page text.
    let doc = extract_paper(&files, "inbox/2402.09876v2.pdf");
    assert_eq!(doc.info.title, None);
    assert_eq!(doc.info.author, None);
    let first = flat(&doc.pages[0].text);
    assert!(first.starts_with(
        "How Well Do Citations Support Answers? Measuring Attribution in Scholarly Question Answering"
    ));
    assert!(first.contains("Naomi Achterberg"));
}

#[test]
fn reference_lists_carry_the_cited_identifiers() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/reading-machines-survey/paper.pdf");
    let text = flat_doc(&doc);
    for id in [
        "doi:10.5555/agentero.2009.0283",
        "doi:10.5555/agentero.2021.0104",
        "doi:10.5555/agentero.2022.0217",
        "doi:10.5555/agentero.2023.0042",
        "doi:10.5555/agentero.2023.0311",
        "arXiv:2211.07321",
        "arXiv:2402.09876",
    ] {
        assert!(text.contains(id), "survey references lack {id}");
    }
}

#[test]
fn a_title_set_on_two_lines_stays_one_paragraph() {
    let (_dir, files) = demo();
    let doc = extract_paper(&files, "papers/layoutflow/paper.pdf");
    let first = &doc.pages[0].text;
    assert!(
        first.starts_with("LayoutFlow: Recovering Reading Order from Scholarly\nPDFs\n"),
        "{}",
        &first[..first.len().min(120)]
    );
    // The larger type of the title is not mistaken for a paragraph gap, but the gap to the
    // authors still is one.
    assert!(
        first.contains("PDFs\n\nInês Carvalho"),
        "{}",
        &first[..first.len().min(160)]
    );
}
