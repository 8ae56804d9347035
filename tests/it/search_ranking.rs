//! Known-item ranking on an index built here (issue 15): a paper's title, authors and
//! identifiers find it above the notes and papers that only mention them; a phrase on a page
//! outranks its words scattered; a misspelt word still finds; quoted phrases stay exact;
//! paper-level results list their best pages; page-level results never let one document
//! crowd out the others.

use agentero::vault::index::{Identity, IndexDoc, SearchIndex};
use agentero::vault::{EntryKind, PaperHit, SearchOptions};

const DENSE: &str = "papers/dense/paper.pdf";
const CITING: &str = "papers/citing/paper.pdf";
const MANUAL: &str = "papers/manual/paper.pdf";

struct Paper<'a> {
    path: &'a str,
    title: &'a str,
    authors: &'a str,
    identity: Identity<'a>,
    pages: Vec<String>,
}

fn build(dir: &std::path::Path) -> SearchIndex {
    let index = SearchIndex::create(dir).unwrap();
    let mut w = index.writer().unwrap();
    let filler = "Background material on indexing, evaluation and corpora follows here. ";
    let papers = [
        Paper {
            path: DENSE,
            title: "Dense Retrieval for Scholarly Search",
            authors: "Adaeze Okonkwo, Lars Thørväld",
            identity: Identity {
                year: Some(2021),
                doi: Some("10.5555/agentero.2021.0001"),
                arxiv: Some("2101.00001"),
                abstract_text: Some("We retrieve papers with dense vectors."),
                ..Identity::default()
            },
            pages: vec![
                format!("Dense Retrieval for Scholarly Search. Adaeze Okonkwo. {filler}"),
                format!("{filler} As the saying goes, the quick brown fox jumps over the lazy dog. {filler}"),
                format!("{filler} Conclusion and outlook, zebrafish aside."),
            ],
        },
        Paper {
            path: CITING,
            title: "A Survey of Retrieval Methods",
            authors: "Ben Trovato",
            identity: Identity::default(),
            pages: vec![
                format!(
                    "A Survey of Retrieval Methods. {} {filler}",
                    "Okonkwo et al. show dense retrieval for scholarly search works; Okonkwo [3] again. "
                        .repeat(6)
                ),
                format!(
                    "{} {filler}",
                    "The dog was lazy. A fox, brown and quick, jumps; over it goes. ".repeat(8)
                ) + " A zebrafish.",
                format!(
                    "References. [3] A. Okonkwo, Dense Retrieval for Scholarly Search, \
                     doi:10.5555/agentero.2021.0001, arXiv:2101.00001. {filler} Zebrafish."
                ),
            ],
        },
        Paper {
            path: MANUAL,
            title: "The Retrieval Manual",
            authors: "The Manual Project",
            identity: Identity::default(),
            pages: (1..=12)
                .map(|n| {
                    format!(
                        "Chapter {n}: retrieval, more retrieval and retrieval again. {filler} \
                         Zebrafish, zebrafish, zebrafish."
                    )
                })
                .collect(),
        },
    ];
    for p in &papers {
        for (i, text) in p.pages.iter().enumerate() {
            index
                .add(
                    &w,
                    &IndexDoc {
                        path: p.path,
                        kind: EntryKind::Paper,
                        title: p.title,
                        authors: p.authors,
                        carries_title: i == 0,
                        identity: p.identity,
                        page: Some(i as u32 + 1),
                        page_label: None,
                        lines: None,
                        text,
                        sha256: "0",
                    },
                )
                .unwrap();
        }
    }
    // Notes that mention the paper: a reading list repeating its title and DOI, and a note
    // whose own title is the paper's title.
    let notes = [
        (
            "notes/reading.md",
            "Reading list",
            "Dense Retrieval for Scholarly Search (Okonkwo, 2021), doi:10.5555/agentero.2021.0001 — \
             to read. Dense Retrieval for Scholarly Search again. Zebrafish."
                .to_string(),
        ),
        (
            "notes/dense.md",
            "Dense Retrieval for Scholarly Search",
            "My notes on Dense Retrieval for Scholarly Search by Okonkwo. Zebrafish.".to_string(),
        ),
    ];
    for (path, title, text) in &notes {
        index
            .add(
                &w,
                &IndexDoc {
                    path,
                    kind: EntryKind::File,
                    title,
                    authors: "",
                    carries_title: true,
                    identity: Identity::default(),
                    page: None,
                    page_label: None,
                    lines: Some((1, 3)),
                    text,
                    sha256: "0",
                },
            )
            .unwrap();
    }
    w.commit().unwrap();
    index.reload().unwrap();
    index
}

fn papers(index: &SearchIndex, q: &str) -> Vec<PaperHit> {
    index
        .search_papers(q, &SearchOptions::default())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn first(index: &SearchIndex, q: &str) -> String {
    papers(index, q)
        .first()
        .map(|h| h.card.path.clone())
        .unwrap_or_default()
}

#[test]
fn titles_authors_and_identifiers_find_the_paper_first() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path());
    // Title: above the notes that repeat it and the paper that cites it.
    for q in [
        "Dense Retrieval for Scholarly Search",
        "dense retrieval scholarly",
        "scholarly search",
    ] {
        let hits = papers(&index, q);
        assert_eq!(hits[0].card.path, DENSE, "{q}: {hits:#?}");
        assert_eq!(hits[0].card.page, Some(1), "{q}");
        assert!(hits.iter().any(|h| h.card.path == "notes/dense.md"), "{q}");
    }
    // Author: above the paper that cites her over and over; names without their diacritics.
    for q in [
        "Okonkwo",
        "Adaeze Okonkwo",
        "okonkwo 2021",
        "Thorvald",
        "Thørväld",
    ] {
        assert_eq!(first(&index, q), DENSE, "{q}");
    }
    let okonkwo = papers(&index, "Okonkwo");
    assert_eq!(okonkwo[1].card.path, CITING, "{okonkwo:#?}");
    // Identifiers, bare or as typed from a citation: the owner, then the paper that prints it,
    // then the note.
    for q in [
        "10.5555/agentero.2021.0001",
        "doi:10.5555/AGENTERO.2021.0001",
        "https://doi.org/10.5555/agentero.2021.0001",
        "arXiv:2101.00001",
        "2101.00001v2",
        "https://arxiv.org/abs/2101.00001",
    ] {
        let hits = papers(&index, q);
        let order: Vec<&str> = hits.iter().map(|h| h.card.path.as_str()).collect();
        assert_eq!(order[0], DENSE, "{q}: {order:?}");
        assert_eq!(order[1], CITING, "{q}: {order:?}");
        assert!(
            hits[0].card.score >= 2.0 && hits[1].card.score >= 1.0,
            "{q}"
        );
    }
    let doi = papers(&index, "10.5555/agentero.2021.0001");
    assert_eq!(doi[2].card.path, "notes/reading.md");
    assert_eq!(doi[1].card.page, Some(3), "the page that prints it");
}

#[test]
fn phrases_outrank_scattered_words_and_quotes_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path());
    let hits = papers(&index, "the quick brown fox jumps over the lazy dog");
    assert_eq!(hits[0].card.path, DENSE, "{hits:#?}");
    assert_eq!(hits[0].card.page, Some(2));
    // One word misspelt: the rest of the phrase and the nearest word still find the page.
    let typo = papers(&index, "the quick brown fox jmups over the lazy dog");
    assert_eq!(typo[0].card.page, Some(2), "{typo:#?}");
    assert_eq!(first(&index, "scholraly"), DENSE);
    assert_eq!(first(&index, "Okonkow"), DENSE);
    // Quoted: exact, no slop, no nearest words.
    let quoted = papers(&index, "\"brown fox jumps\"");
    assert_eq!(quoted.len(), 1, "{quoted:#?}");
    assert!(papers(&index, "\"dog lazy\"").is_empty());
    assert!(papers(&index, "\"scholraly\"").is_empty());
    // Punctuation a reader types is text, even in strict mode.
    assert_eq!(
        first(&index, "Dense Retrieval: for Scholarly Search"),
        DENSE
    );
    assert_eq!(first(&index, "Okonkwo's dense retrieval"), DENSE);
}

#[test]
fn papers_list_their_best_pages_and_cards_are_shared_out() {
    let dir = tempfile::tempdir().unwrap();
    let index = build(dir.path());
    let hits = papers(&index, "retrieval");
    let manual = hits.iter().find(|h| h.card.path == MANUAL).unwrap();
    assert_eq!(manual.pages.len(), agentero::vault::index::PAGES_LISTED);
    assert_eq!(manual.pages[0].page, manual.card.page);
    assert_eq!(manual.pages[0].citation_uri, manual.card.citation_uri);
    assert!(manual.pages.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(manual.places(), "p. 1, 2, 3, 4, 5");
    let note = hits
        .iter()
        .find(|h| h.card.path == "notes/dense.md")
        .unwrap();
    assert_eq!(note.places(), "lines 1–3");
    // One result per document.
    let mut paths: Vec<&str> = hits.iter().map(|h| h.card.path.as_str()).collect();
    paths.dedup();
    assert_eq!(paths.len(), hits.len());
    // Page level: the manual's twelve pages match best, but with a cap per document the
    // other four documents get their share of the cards, which stay in score order.
    let opts = |per_document| SearchOptions {
        limit: 6,
        per_document,
        ..SearchOptions::default()
    };
    let manual_cards =
        |cards: &[agentero::vault::Card]| cards.iter().filter(|c| c.path == MANUAL).count();
    let plain = index.search("zebrafish", &opts(None)).unwrap();
    assert_eq!(manual_cards(&plain), 6, "{plain:#?}");
    let shared = index.search("zebrafish", &opts(Some(2))).unwrap();
    assert_eq!(shared.len(), 6);
    assert_eq!(manual_cards(&shared), 2, "{shared:#?}");
    assert!(shared.windows(2).all(|w| w[0].score >= w[1].score));
    // Nobody else matches: the document fills the slots.
    let alone = index.search("chapter", &opts(Some(2))).unwrap();
    assert_eq!(alone.len(), 6);
}
