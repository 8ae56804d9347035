use std::path::Path;

use super::excerpt::{mark, match_window, word_highlights};
use super::query::as_typed;
use super::*;
use crate::vault::scan::EntryKind;

fn tiny_index(dir: &Path) -> SearchIndex {
    let index = SearchIndex::create(dir).unwrap();
    let mut w = index.writer().unwrap();
    index
        .add(
            &w,
            &IndexDoc {
                path: "notes/a.md",
                kind: EntryKind::File,
                title: "A",
                authors: "",
                carries_title: true,
                identity: Identity::default(),
                page: None,
                page_label: None,
                lines: Some((1, 1)),
                text: "nested parentheses everywhere",
                sha256: "0",
            },
        )
        .unwrap();
    w.commit().unwrap();
    index.reload().unwrap();
    index
}

#[test]
fn only_the_searchable_fields_can_be_named() {
    let dir = tempfile::tempdir().unwrap();
    let index = tiny_index(dir.path());
    let strict = SearchOptions::default();
    let lenient = SearchOptions {
        lenient: true,
        ..SearchOptions::default()
    };
    for q in [
        "sha256:*",
        "path:notes",
        "kind:file",
        "text:*",
        "dir:notes AND nested",
    ] {
        match index.search(q, &strict) {
            Err(IndexError::BadQuery(m)) => assert!(!m.is_empty()),
            other => panic!("{q}: {other:?}"),
        }
        assert!(index.search(q, &lenient).is_ok(), "{q}");
    }
    // Lenient: a literal on a bookkeeping field is a plain word.
    assert_eq!(index.search("path:nested", &lenient).unwrap().len(), 1);
    assert_eq!(index.search("text:nested", &strict).unwrap().len(), 1);
    assert_eq!(index.search("title:a", &strict).unwrap().len(), 1);
}

#[test]
fn text_that_is_not_query_syntax_searches_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let index = tiny_index(dir.path());
    let strict = SearchOptions::default();
    for q in [
        "nested ~ parentheses | everywhere",
        "nested (parentheses",
        "everywhere) nested",
        "cat notes | grep nested",
        "\"nested parentheses",
        "f(x) = nested^2 ~ [everywhere",
    ] {
        let hits = index
            .search(q, &strict)
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(hits.len(), 1, "{q}");
    }
}

#[test]
fn deeply_nested_queries_are_bounded_not_recursed() {
    let dir = tempfile::tempdir().unwrap();
    let index = tiny_index(dir.path());
    let deep = format!("{}parentheses{}", "(".repeat(5000), ")".repeat(5000));
    let unclosed = format!("{}parentheses", "(-".repeat(3000));
    // A small stack: without the bound, these overflow it and abort the process.
    let found = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn_scoped(s, || {
                let lenient = SearchOptions {
                    lenient: true,
                    ..SearchOptions::default()
                };
                let a = index.search(&deep, &lenient).unwrap();
                let b = index.search(&unclosed, &lenient).unwrap();
                let strict = index.search(&deep, &SearchOptions::default());
                (a.len(), b.len(), strict.err().map(|e| e.to_string()))
            })
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(found.0, 1, "the lenient search still finds the word");
    assert!(found.2.unwrap().contains("nested 5000 deep"));
    let shallow = format!("{}parentheses{}", "(".repeat(5), ")".repeat(5));
    assert_eq!(
        index
            .search(&shallow, &SearchOptions::default())
            .unwrap()
            .len(),
        1
    );
    assert_eq!(nesting_depth("a (b (c) d) (e)"), 2);
    assert_eq!(nesting_depth(")))((("), 3);
}

#[test]
fn typed_punctuation_is_text() {
    assert_eq!(
        as_typed("Manuscript Title: with Forced Linebreak"),
        "Manuscript Title with Forced Linebreak"
    );
    assert_eq!(as_typed("Poorman's Hangul"), "Poorman s Hangul");
    assert_eq!(as_typed("title: hope 'a b' x:y"), "title: hope 'a b' x:y");
    let dir = tempfile::tempdir().unwrap();
    let index = tiny_index(dir.path());
    let strict = SearchOptions::default();
    for q in ["Nested: parentheses", "everywhere's nested", "title: a"] {
        assert_eq!(index.search(q, &strict).unwrap().len(), 1, "{q}");
    }
    assert!(index.search("nosuchfield:nested", &strict).is_err());
    // Identifier fields as citations write them, inside a longer query.
    for q in [
        "arXiv:2101.00001 nested",
        "DOI:10.1/x OR nested",
        "year:2020 OR nested",
    ] {
        assert_eq!(index.search(q, &strict).unwrap().len(), 1, "{q}");
    }
}

#[test]
fn cjk_highlights_cover_words() {
    let fragment = "在中文排版中的问题";
    let byte = |i: usize| {
        fragment
            .char_indices()
            .nth(i)
            .map_or(fragment.len(), |c| c.0)
    };
    let char_ranges: Vec<std::ops::Range<usize>> = [1, 2, 3, 4, 5]
        .iter()
        .map(|&i| byte(i)..byte(i + 1))
        .collect();
    // 中 文 排 版 adjacent, then 中 alone after them.
    let merged = word_highlights(fragment, &char_ranges[..4], true);
    assert_eq!(mark(fragment, &merged), "…在**中文排版**中的问题…");
    let lone = vec![byte(1)..byte(3), byte(5)..byte(6)];
    assert_eq!(
        mark(fragment, &word_highlights(fragment, &lone, true)),
        "…在**中文**排版中的问题…"
    );
    assert_eq!(
        mark(fragment, &word_highlights(fragment, &lone, false)),
        "…在**中文**排版**中**的问题…"
    );
}

#[test]
fn marks_and_orders() {
    assert_eq!(
        mark("a  reading\norder", &[3..10, 11..16]),
        "…a **reading** **order**…"
    );
    let card = |path: &str, page, score| Card {
        path: path.into(),
        kind: EntryKind::Paper,
        title: String::new(),
        page: Some(page),
        page_label: None,
        lines: None,
        excerpt: String::new(),
        citation_uri: String::new(),
        citation_key: None,
        score,
    };
    let mut cards = vec![
        card("b", 1, 1.0),
        card("a", 2, 1.0),
        card("a", 1, 1.0),
        card("z", 9, 2.0),
    ];
    sort_cards(&mut cards);
    let order: Vec<(String, Option<u32>)> = cards.into_iter().map(|c| (c.path, c.page)).collect();
    assert_eq!(
        order,
        vec![
            ("z".into(), Some(9)),
            ("a".into(), Some(1)),
            ("a".into(), Some(2)),
            ("b".into(), Some(1))
        ]
    );
    assert_eq!(shorten("one two three four", 9), "one two…");
    let long = format!("{}needle{}", "hay ".repeat(2000), " straw".repeat(2000));
    let w = match_window(&long, &["needl".to_string()], &[], 200);
    assert!(w.contains("needle") && w.len() < 2000);
    assert_eq!(
        match_window("short needle", &["needl".to_string()], &[], 200),
        "short needle"
    );
}
