//! Link annotations and numbered citations on the real PDFs of the corpus (LaTeX documents,
//! many built with hyperref): every internal link resolves to a page the document has, most of
//! a hyperlinked document's links resolve, anchors are found under them, and numbered
//! citations resolve to reference entries.

use std::time::{Duration, Instant};

use agentero::vault::links::{citation_markers, reference_list};
use agentero::vault::pdf::{self, Limits, LinkTarget};

use crate::common;

/// Pages of one document read for links.
const MAX_PAGES: u32 = 40;

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(60),
    }
}

#[test]
fn corpus_links_resolve_within_their_documents() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let mut pdfs: Vec<_> = std::fs::read_dir(corpus.join("papers"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("paper.pdf"))
        .filter(|p| p.is_file())
        .collect();
    pdfs.sort();
    let (mut internal, mut uris, mut anchored, mut documents_with_links) = (0, 0, 0, 0);
    let (mut markers, mut listed) = (0, 0);
    // Citation links (anchor `12` or `[12]`) against the page the text's reference list puts
    // entry 12 on.
    let (mut cite_links, mut cite_agree) = (0, 0);
    for path in &pdfs {
        let bytes = std::fs::read(path).unwrap();
        let Ok(doc) = pdf::extract(&bytes, limits()) else {
            continue;
        };
        let count = doc.pages.len() as u32;
        let texts: Vec<&str> = doc.pages.iter().map(|p| p.text.as_str()).collect();
        let list = reference_list(&texts);
        // A link into the pages of the reference list (a section or page number elsewhere is
        // not a citation).
        let first = list.entries.first().map_or(0, |e| e.page);
        let last = list.entries.last().map_or(0, |e| e.page);
        let in_list = |p: u32| p >= first && p <= last;
        let mut here = 0;
        // The first pages of a long manual are enough, and keep the test short.
        for page in 1..=count.min(MAX_PAGES) {
            let links = pdf::page_links(&bytes, page, limits()).unwrap();
            if links.is_empty() {
                continue;
            }
            let layout = pdf::page_layout(&bytes, page, limits()).unwrap();
            for link in &links {
                match &link.target {
                    LinkTarget::Page { page: to, top } => {
                        assert!(
                            (1..=count).contains(to),
                            "{}: p. {page} links to p. {to} of {count}",
                            path.display()
                        );
                        if let Some(t) = top {
                            assert!(t.is_finite());
                        }
                        internal += 1;
                    }
                    LinkTarget::Uri(u) => {
                        assert!(!u.trim().is_empty());
                        uris += 1;
                    }
                }
                here += 1;
                let Some(range) = layout.text_in(link.rect) else {
                    continue;
                };
                anchored += 1;
                let anchor = layout.text[range].trim_matches(['[', ']', ' ']);
                if let (Ok(n), LinkTarget::Page { page: to, .. }) = (anchor.parse(), &link.target)
                    && let Some(e) = list.get(n)
                    && in_list(*to)
                {
                    if e.page != *to {
                        eprintln!(
                            "{}: p. {page} [{n}] → p. {to}, entry on p. {}",
                            path.display(),
                            e.page
                        );
                    }
                    cite_links += 1;
                    cite_agree += usize::from(e.page == *to);
                }
            }
        }
        if here > 0 {
            documents_with_links += 1;
        }
        listed += list.entries.len();
        for (i, t) in texts.iter().enumerate() {
            markers += citation_markers(t, i as u32 + 1, &list).len();
        }
    }
    eprintln!(
        "corpus links: {} PDFs, {documents_with_links} with links; {internal} internal, {uris} URIs, {anchored} with anchor text; {listed} reference entries, {markers} numbered citations; {cite_agree} of {cite_links} citation links go to their entry's page",
        pdfs.len()
    );
    assert!(
        documents_with_links >= 5,
        "{documents_with_links} documents with links"
    );
    assert!(internal >= 100, "{internal} internal links");
    assert!(
        anchored * 10 >= (internal + uris) * 8,
        "{anchored} of {} links have anchor text",
        internal + uris
    );
    assert!(
        listed >= 10 && markers >= 10,
        "{listed} entries, {markers} citations"
    );
    assert!(
        cite_links >= 5 && cite_agree * 10 >= cite_links * 9,
        "{cite_agree} of {cite_links} citation links go to their entry's page"
    );
}
