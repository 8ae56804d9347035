use std::collections::BTreeMap;
use std::path::PathBuf;

use lopdf::{Document, Object};

use super::compose::{cited_keys, identifier_line, pdf_spec, references, resolve_citations};
use super::papers::{PAPERS, Paper, Ref, find};
use super::pdfwriter::{FI_CODE, FL_CODE, Rendered, glyph_name, render, win_ansi_code};
use super::*;
use crate::vault::pdf::metrics::std14_width;

fn rendered(slug: &str) -> (&'static Paper, Rendered) {
    let paper = find(slug).unwrap();
    (paper, render(&pdf_spec(paper).unwrap()).unwrap())
}

fn load(bytes: &[u8]) -> Document {
    Document::load_mem(bytes).expect("demo PDF loads with lopdf")
}

/// All files under `dir` (hidden ones included) as relative path → bytes.
fn read_tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
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

#[test]
fn two_runs_write_identical_bytes() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    write_demo_vault(a.path()).unwrap();
    write_demo_vault(&b.path().join("nested/vault")).unwrap();
    let (ta, tb) = (
        read_tree(a.path()),
        read_tree(&b.path().join("nested/vault")),
    );
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (path, bytes) in &ta {
        assert!(
            bytes == &tb[path],
            "{} differs between runs",
            path.display()
        );
    }
    assert_eq!(
        ta[Path::new(VERSION_MARKER)],
        format!("{DEMO_VAULT_VERSION}\n").into_bytes()
    );
    // Writing again over an existing vault changes nothing either.
    write_demo_vault(a.path()).unwrap();
    assert_eq!(read_tree(a.path()), ta);
}

#[test]
fn every_pdf_loads_and_has_two_to_four_pages() {
    for paper in &PAPERS {
        let (_, r) = rendered(paper.slug);
        let doc = load(&r.bytes);
        let pages = doc.get_pages().len();
        assert_eq!(pages, r.page_count, "{}", paper.slug);
        assert!((2..=4).contains(&pages), "{} has {pages} pages", paper.slug);
    }
}

#[test]
fn font_widths_match_the_metrics() {
    for paper in &PAPERS {
        let (_, r) = rendered(paper.slug);
        let doc = load(&r.bytes);
        let page = *doc.get_pages().get(&1).unwrap();
        let fonts = doc.get_page_fonts(page).unwrap();
        assert_eq!(fonts.len(), 4, "{}", paper.slug);
        for font in fonts.values() {
            let base =
                std::str::from_utf8(font.get(b"BaseFont").unwrap().as_name().unwrap()).unwrap();
            let first = font.get(b"FirstChar").unwrap().as_i64().unwrap();
            assert_eq!(font.get(b"LastChar").unwrap().as_i64().unwrap(), 255);
            let ligatures = match font.get(b"Encoding").unwrap() {
                Object::Name(n) => {
                    assert_eq!(n, b"WinAnsiEncoding");
                    false
                }
                Object::Dictionary(d) => {
                    assert_eq!(
                        d.get(b"BaseEncoding").unwrap().as_name().unwrap(),
                        b"WinAnsiEncoding"
                    );
                    let diffs = d.get(b"Differences").unwrap().as_array().unwrap();
                    assert_eq!(diffs[0].as_i64().unwrap(), i64::from(FI_CODE));
                    assert_eq!(diffs[1].as_name().unwrap(), b"fi");
                    assert_eq!(diffs[2].as_name().unwrap(), b"fl");
                    true
                }
                other => panic!("unexpected encoding {other:?}"),
            };
            assert_eq!(ligatures, paper.features.ligatures, "{}", paper.slug);
            let widths = font.get(b"Widths").unwrap().as_array().unwrap();
            assert_eq!(widths.len() as i64, 256 - first);
            for (i, w) in widths.iter().enumerate() {
                let code = (first + i as i64) as u8;
                let expected = glyph_name(code, ligatures)
                    .and_then(|g| std14_width(base, g))
                    .unwrap_or(0);
                assert_eq!(
                    w.as_i64().unwrap(),
                    i64::from(expected),
                    "{base} code {code}"
                );
            }
        }
    }
}

#[test]
fn demo_text_is_all_win_ansi() {
    let mut texts: Vec<&str> = Vec::new();
    for p in &PAPERS {
        texts.extend([p.title, p.venue, p.abstract_text]);
        texts.extend(p.affiliations.iter().copied());
        texts.extend(p.keywords.iter().copied());
        texts.extend(p.authors.iter().map(|a| a.name));
        for s in p.sections {
            texts.push(s.title);
            texts.extend(s.paragraphs.iter().copied());
        }
        for r in references(p) {
            texts.push(Box::leak(r.raw().into_boxed_str()));
        }
    }
    for text in texts {
        for c in text.chars() {
            assert!(
                c == '\u{ad}' || win_ansi_code(c).is_some(),
                "{c:?} has no WinAnsi code (in {text:?})"
            );
        }
    }
}

#[test]
fn citations_resolve_and_every_reference_is_cited() {
    for paper in &PAPERS {
        let refs = references(paper);
        let cited = cited_keys(paper);
        for r in &refs {
            assert!(
                cited.contains(&r.key),
                "{}: reference {} is never cited",
                paper.slug,
                r.key
            );
        }
        for s in paper.sections {
            for p in s.paragraphs {
                resolve_citations(p, &refs).unwrap_or_else(|e| panic!("{}: {e}", paper.slug));
            }
        }
        for r in paper.references {
            if let Ref::Demo(slug) = r {
                let target = find(slug).unwrap();
                assert_ne!(target.slug, paper.slug, "a paper cites itself");
                assert!(
                    target.year <= paper.year,
                    "{} cites the later {}",
                    paper.slug,
                    slug
                );
            }
        }
    }
    // The survey cites every other demo paper.
    let survey = find("reading-machines-survey").unwrap();
    let demo_refs = survey
        .references
        .iter()
        .filter(|r| matches!(r, Ref::Demo(_)))
        .count();
    assert_eq!(demo_refs, PAPERS.len() - 1);
}

#[test]
fn first_page_prints_the_papers_identifiers() {
    for paper in &PAPERS {
        let (_, r) = rendered(paper.slug);
        let first_page: Vec<String> = r
            .lines
            .iter()
            .filter(|l| l.page == 0)
            .map(|l| l.text())
            .collect();
        let text = first_page.join("\n");
        if paper.features.first_page_number.is_some() {
            // The journal article prints its DOI in the first-page footnote instead.
            let spec = pdf_spec(paper).unwrap();
            assert!(spec.first_page_note.unwrap().contains(paper.doi.unwrap()));
        } else {
            assert!(text.contains(&identifier_line(paper)), "{}", paper.slug);
        }
        assert!(text.contains(paper.authors[0].name), "{}", paper.slug);
    }
}

#[test]
fn two_column_page_flows_left_column_into_right() {
    let (_, r) = rendered("dense-vs-sparse");
    let page0: Vec<_> = r.lines.iter().filter(|l| l.page == 0).collect();
    let left: Vec<_> = page0
        .iter()
        .filter(|l| l.column == 0 && l.size == 10.0)
        .collect();
    let right: Vec<_> = page0.iter().filter(|l| l.column == 1).collect();
    assert!(!left.is_empty() && !right.is_empty());
    let gutter_x = right[0].x;
    assert!(left.iter().all(|l| l.x < gutter_x - 200.0));
    // The extractor test relies on this sentence crossing the column break.
    assert!(
        left.last()
            .unwrap()
            .text()
            .ends_with("cited passages from the"),
        "{}",
        left.last().unwrap().text()
    );
    assert!(
        right[0].text().starts_with("CiteWeave graph [3]."),
        "{}",
        right[0].text()
    );
    // Right column starts at the same height as the left one, below the full-width abstract.
    let intro = page0.iter().find(|l| l.text() == "1 Introduction").unwrap();
    assert_eq!(intro.column, 0);
    assert_eq!(intro.y + intro.leading, right[0].y + right[0].leading);
    let texts: Vec<String> = right.iter().map(|l| l.text()).collect();
    assert!(texts.contains(&"4 Results".to_string()));
}

#[test]
fn ligature_paper_hyphenates_and_uses_ligature_codes() {
    let (_, r) = rendered("layoutflow");
    let lines: Vec<String> = r.lines.iter().map(|l| l.text()).collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("with text extrac-"))
        .expect("a line ends in extrac-");
    assert!(
        lines[at + 1].starts_with("tion, and most treat"),
        "{}",
        lines[at + 1]
    );
    let at = lines
        .iter()
        .position(|l| l.ends_with("compatibility decompo-"))
        .unwrap();
    assert!(
        lines[at + 1].starts_with("sition of the ligature"),
        "{}",
        lines[at + 1]
    );

    let doc = load(&r.bytes);
    let page = *doc.get_pages().get(&1).unwrap();
    let content = doc.get_and_decode_page_content(page).unwrap();
    let mut strings: Vec<Vec<u8>> = Vec::new();
    let mut kerns = 0;
    let mut gaps = 0;
    for op in &content.operations {
        match op.operator.as_str() {
            "TJ" => {
                for item in op.operands[0].as_array().unwrap() {
                    match item {
                        Object::String(s, _) => strings.push(s.clone()),
                        Object::Integer(n) if *n > 0 => kerns += 1,
                        Object::Integer(_) => gaps += 1,
                        _ => {}
                    }
                }
            }
            "Tj" => strings.push(op.operands[0].as_str().unwrap().to_vec()),
            _ => {}
        }
    }
    let all: Vec<u8> = strings.concat();
    assert!(all.contains(&FI_CODE) && all.contains(&FL_CODE));
    // "efficient" is e, f, fi-ligature, c, i, e, n, t; "workflow" is w, o, r, k, fl-ligature, o, w.
    assert!(all.windows(8).any(|w| w == b"ef\x0ccient"));
    assert!(all.windows(7).any(|w| w == b"work\x0dow"));
    // Word gaps are positioning, never space characters, in the TeX-like paper's body.
    let body: Vec<&Vec<u8>> = strings.iter().filter(|s| s.len() > 1).collect();
    assert!(body.iter().all(|s| !s.contains(&b' ')));
    assert!(kerns >= 3 && gaps > 100, "kerns {kerns}, gaps {gaps}");
}

#[test]
fn spaced_papers_justify_with_word_spacing() {
    let (_, r) = rendered("halvorsen2009-passages");
    let doc = load(&r.bytes);
    let page = *doc.get_pages().get(&1).unwrap();
    let content = doc.get_and_decode_page_content(page).unwrap();
    let ops: Vec<&str> = content
        .operations
        .iter()
        .map(|o| o.operator.as_str())
        .collect();
    for op in ["BT", "Tf", "TL", "Td", "T*", "Tw", "Tj", "Tm", "ET"] {
        assert!(ops.contains(&op), "missing {op}");
    }
    assert!(!ops.contains(&"TJ"));
}

#[test]
fn parentheses_are_escaped_in_content() {
    let (_, r) = rendered("layoutflow");
    let doc = load(&r.bytes);
    let page = *doc.get_pages().get(&1).unwrap();
    let raw = doc.get_page_content(page);
    let text = String::from_utf8_lossy(&raw);
    assert!(
        text.contains("(\\(WDU)"),
        "parenthesis escaped in a string of its own"
    );
}

#[test]
fn metadata_variety() {
    let mut without_info = Vec::new();
    for paper in &PAPERS {
        let (_, r) = rendered(paper.slug);
        let doc = load(&r.bytes);
        match doc.trailer.get(b"Info") {
            Ok(info) => {
                let info = doc.dereference(info).unwrap().1.as_dict().unwrap();
                let title = info.get(b"Title").unwrap().as_str().unwrap();
                assert_eq!(title, paper.title.as_bytes());
                assert!(info.get(b"Author").is_ok());
            }
            Err(_) => without_info.push(paper.slug),
        }
        let catalog = doc.catalog().unwrap();
        assert_eq!(
            catalog.get(b"Metadata").is_ok(),
            paper.features.xmp,
            "{}",
            paper.slug
        );
    }
    assert_eq!(without_info, ["attribution-eval"]);

    let (paper, r) = rendered("receipts-qa");
    let doc = load(&r.bytes);
    let catalog = doc.catalog().unwrap();
    let xmp = doc
        .get_object(catalog.get(b"Metadata").unwrap().as_reference().unwrap())
        .unwrap()
        .as_stream()
        .unwrap();
    let xmp = String::from_utf8(xmp.content.clone()).unwrap();
    assert!(xmp.contains("<rdf:li>Clara Vidal</rdf:li>"));
    assert!(xmp.contains(&format!("<prism:doi>{}</prism:doi>", paper.doi.unwrap())));
}

#[test]
fn author_names_outside_ascii_use_utf16_in_info() {
    let (_, r) = rendered("dense-vs-sparse");
    let doc = load(&r.bytes);
    let info = doc.trailer.get(b"Info").unwrap();
    let info = doc.dereference(info).unwrap().1.as_dict().unwrap();
    let author = info.get(b"Author").unwrap().as_str().unwrap();
    assert_eq!(&author[..2], &[0xfe, 0xff]);
    let units: Vec<u16> = author[2..]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(
        String::from_utf16(&units).unwrap(),
        "Lena Fischbach, Tomás Ibarra, Mei-Ling Cho"
    );
}

#[test]
fn outline_points_at_the_section_pages() {
    let (_, r) = rendered("layoutflow");
    let doc = load(&r.bytes);
    let catalog = doc.catalog().unwrap();
    let root = doc
        .get_dictionary(catalog.get(b"Outlines").unwrap().as_reference().unwrap())
        .unwrap();
    let pages: BTreeMap<lopdf::ObjectId, u32> =
        doc.get_pages().into_iter().map(|(n, id)| (id, n)).collect();
    // Walk the tree in document order: (title, level, page).
    fn walk(
        doc: &Document,
        first: &Object,
        level: u8,
        pages: &BTreeMap<lopdf::ObjectId, u32>,
        out: &mut Vec<(String, u8, u32)>,
    ) {
        let mut next = Some(first.as_reference().unwrap());
        while let Some(id) = next {
            let item = doc.get_dictionary(id).unwrap();
            let title =
                String::from_utf8(item.get(b"Title").unwrap().as_str().unwrap().to_vec()).unwrap();
            let dest = item.get(b"Dest").unwrap().as_array().unwrap();
            out.push((title, level, pages[&dest[0].as_reference().unwrap()]));
            if let Ok(kid) = item.get(b"First") {
                walk(doc, kid, level + 1, pages, out);
            }
            next = item.get(b"Next").ok().map(|n| n.as_reference().unwrap());
        }
    }
    let mut items = Vec::new();
    walk(&doc, root.get(b"First").unwrap(), 0, &pages, &mut items);
    let expected: Vec<(String, u8, u32)> = r
        .headings
        .iter()
        .map(|h| (h.title.clone(), h.level, h.page as u32 + 1))
        .collect();
    assert_eq!(items, expected);
    let titles: Vec<&str> = items.iter().map(|i| i.0.as_str()).collect();
    assert_eq!(
        titles,
        [
            "1 Introduction",
            "2 Method",
            "2.1 Lines",
            "2.2 Columns",
            "2.3 Ligatures and hyphens",
            "2.4 Reading order",
            "3 Evaluation",
            "4 Conclusion",
            "References"
        ]
    );
    assert_eq!(items[0].2, 1);
    assert_eq!(items.last().unwrap().2 as usize, r.page_count);
    assert_eq!(root.get(b"Count").unwrap().as_i64().unwrap(), 9);
}

#[test]
fn page_labels_start_at_the_journal_page() {
    let (_, r) = rendered("halvorsen2009-passages");
    let doc = load(&r.bytes);
    let labels = doc
        .catalog()
        .unwrap()
        .get(b"PageLabels")
        .unwrap()
        .as_dict()
        .unwrap();
    let nums = labels.get(b"Nums").unwrap().as_array().unwrap();
    assert_eq!(nums[0].as_i64().unwrap(), 0);
    let range = nums[1].as_dict().unwrap();
    assert_eq!(range.get(b"S").unwrap().as_name().unwrap(), b"D");
    assert_eq!(range.get(b"St").unwrap().as_i64().unwrap(), 283);
    // The printed page numbers agree with the labels.
    let page2 = *doc.get_pages().get(&2).unwrap();
    let text = String::from_utf8_lossy(&doc.get_page_content(page2)).into_owned();
    assert!(text.contains("(284) Tj"));
}

#[test]
fn sidecars_parse() {
    let files: BTreeMap<String, Vec<u8>> = demo_files().unwrap().into_iter().collect();
    let yaml =
        |path: &str| -> serde_norway::Value { serde_norway::from_slice(&files[path]).unwrap() };
    let citeweave = yaml("papers/citeweave/info.yaml");
    assert_eq!(
        citeweave["doi"].as_str(),
        Some("10.5555/agentero.2022.0217")
    );
    assert_eq!(citeweave["eprint"].as_str(), Some("2203.11873"));
    assert_eq!(citeweave["year"].as_u64(), Some(2022));
    assert_eq!(
        citeweave["author_list"][1]["family"].as_str(),
        Some("Möller")
    );
    assert!(
        citeweave["abstract"]
            .as_str()
            .unwrap()
            .starts_with("A citation is more than an edge")
    );
    let tokens = yaml("papers/sci-tokenisation/info.yaml");
    assert!(tokens.get("author_list").is_none() && tokens.get("doi").is_none());
    assert_eq!(
        tokens["author"].as_str(),
        Some("Adeyemi, Oluwaseun and Virtanen, Hanna")
    );
    assert_eq!(tokens["eprint"].as_str(), Some("2211.07321"));

    let json: serde_json::Value =
        serde_json::from_slice(&files["papers/receipts-qa/references.json"]).unwrap();
    let refs = json.as_array().unwrap();
    assert_eq!(refs.len(), 6);
    assert_eq!(refs[1]["doi"].as_str(), Some("10.5555/agentero.2023.0042"));
    assert_eq!(refs[4]["arxiv"].as_str(), Some("2211.07321"));
    assert!(refs[4]["doi"].is_null());
    for r in refs {
        for field in ["raw", "title", "authors", "year", "doi", "arxiv"] {
            assert!(r.get(field).is_some(), "{field} missing");
        }
    }

    let bib =
        String::from_utf8(files["papers/reading-machines-survey/references.bib"].clone()).unwrap();
    assert_eq!(bib.matches("\n@").count() + 1, 10);
    assert!(bib.contains("doi = {10.5555/agentero.2021.0104}"));
    assert!(bib.contains("eprint = {2402.09876}"));
    let library = String::from_utf8(files["references.bib"].clone()).unwrap();
    assert_eq!(library.matches('@').count(), PAPERS.len());
}

#[test]
fn note_quotes_are_verbatim_from_the_papers() {
    let corpus: Vec<String> = PAPERS
        .iter()
        .map(|p| {
            let refs = references(p);
            let mut parts = vec![p.abstract_text.to_string()];
            for s in p.sections {
                for para in s.paragraphs {
                    parts.push(resolve_citations(para, &refs).unwrap());
                }
            }
            parts
                .join(" ")
                .replace('\u{ad}', "")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut quotes = 0;
    for (path, content) in files::FILES {
        let mut current: Vec<&str> = Vec::new();
        for line in content.lines().chain(std::iter::once("")) {
            if let Some(q) = line.strip_prefix("> ") {
                current.push(q);
            } else if !current.is_empty() {
                let quote = current.join(" ");
                assert!(
                    corpus.iter().any(|c| c.contains(&quote)),
                    "{path}: {quote:?} is not in any paper"
                );
                quotes += 1;
                current.clear();
            }
        }
    }
    assert!(quotes >= 4);
}

/// The sidecars say where each paper appeared as papis does: a journal article's journal,
/// volume and pages apart, proceedings as a booktitle, a preprint nowhere.
#[test]
fn sidecars_carry_the_venue_as_bibliographic_fields() {
    use crate::vault::publication::WorkType;
    let dir = tempfile::tempdir().unwrap();
    write_demo_vault(dir.path()).unwrap();
    let read = |path: &str| {
        crate::vault::meta::read_sidecar(&dir.path().join(path))
            .unwrap()
            .unwrap_or_else(|| panic!("{path} has a sidecar"))
            .publication
    };
    let journal = read("papers/citeweave/paper.pdf");
    assert_eq!(journal.kind, Some(WorkType::Article));
    assert_eq!(
        journal.container.as_deref(),
        Some("Transactions on Scholarly Data Mining")
    );
    assert_eq!(journal.volume.as_deref(), Some("5"));
    assert_eq!(journal.issue, None);
    assert_eq!(journal.pages.as_deref(), Some("112--131"));
    let v = super::compose::venue("Surveys in Information Access 7(2): 1–38, 2024");
    assert_eq!(
        (v.kind, v.journal.as_deref(), v.volume.as_deref()),
        (
            Some("article"),
            Some("Surveys in Information Access"),
            Some("7")
        )
    );
    assert_eq!(
        (v.number.as_deref(), v.pages.as_deref()),
        (Some("2"), Some("1--38"))
    );
    let v =
        super::compose::venue("Proceedings of the Workshop on Document Understanding (WDU 2021)");
    assert_eq!(v.kind, Some("inproceedings"));
    assert!(v.booktitle.is_some_and(|b| b.starts_with("Proceedings of")));
    assert_eq!(
        super::compose::venue("Preprint, version 2"),
        Default::default()
    );
    for paper in PAPERS.iter().filter(|p| p.venue.starts_with("Preprint")) {
        let sidecar = dir.path().join(paper.path).with_file_name("info.yaml");
        let yaml = std::fs::read_to_string(&sidecar).unwrap_or_default();
        assert!(!yaml.contains("journal:"), "{}: {yaml}", paper.path);
    }
}
