//! The words of the reader's comments (and of the text they marked) are searchable: a query
//! whose every word — analysed as the index analyses words: lower-cased, folded to ASCII,
//! stemmed — occurs in one annotation finds that annotation's page. Annotations change while
//! the PDF does not, so they are looked up when a search runs (their files are small) instead
//! of being written into the index, which a re-index would then have to follow.

use std::collections::BTreeSet;

use tantivy::tokenizer::TokenStream;

use super::annotations::Annotation;
use super::index::{Card, PageRef, PaperHit, sort_cards};
use super::scan::EntryKind;
use super::{Vault, tokenizer, uri};

/// How an annotation's excerpt starts: what tells a reader (and an agent) the hit is theirs.
pub const PREFIX: &str = "matched an annotation";

/// The query's words as the index analyses them (operators dropped).
fn words(text: &str) -> BTreeSet<String> {
    let mut a = tokenizer::analyzer();
    let mut stream = a.token_stream(text);
    let mut out = BTreeSet::new();
    while stream.advance() {
        let t = &stream.token().text;
        if !t.is_empty() {
            out.insert(t.clone());
        }
    }
    out
}

fn query_words(query: &str) -> BTreeSet<String> {
    let plain: String = query
        .split_whitespace()
        .filter(|w| !matches!(*w, "AND" | "OR" | "NOT"))
        .map(|w| w.trim_start_matches(['+', '-']))
        .collect::<Vec<_>>()
        .join(" ");
    words(&plain)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
    t.push('…');
    t
}

/// The excerpt of a matching annotation: `matched an annotation (highlight, p. 3): «comment» on “text”`.
fn excerpt(a: &Annotation, max: usize) -> String {
    let mut s = format!("{PREFIX} ({}, p. {})", a.kind.as_str(), a.page);
    if let Some(c) = a.comment.as_deref().filter(|c| !c.trim().is_empty()) {
        s.push_str(&format!(": «{}»", one_line(c)));
    }
    if let Some(t) = a.text.as_deref().filter(|t| !t.trim().is_empty()) {
        s.push_str(&format!(" on “{}”", one_line(t)));
    }
    cut(&s, max.max(80))
}

/// Cards of the annotations that match `query`, on the papers `in_scope` accepts; one card per
/// annotation, scored `score` (the caller's scale). Highlight stores that cannot be read are
/// left out (and logged).
pub fn cards(
    vault: &Vault,
    query: &str,
    in_scope: &dyn Fn(&str) -> bool,
    excerpt_chars: usize,
    score: f32,
) -> Vec<Card> {
    let (cards, problems) = cards_checked(vault, query, in_scope, excerpt_chars, score);
    for p in problems {
        tracing::warn!("{p}");
    }
    cards
}

/// [`cards`], and why highlight stores were left out (one line each).
fn cards_checked(
    vault: &Vault,
    query: &str,
    in_scope: &dyn Fn(&str) -> bool,
    excerpt_chars: usize,
    score: f32,
) -> (Vec<Card>, Vec<String>) {
    let want = query_words(query);
    if want.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for path in vault.annotated_papers() {
        if !in_scope(&path) {
            continue;
        }
        let record = vault.record_for(&path);
        let citation_key = record.as_ref().map(|r| super::citekeys::key_of(&r.meta));
        let title = record
            .map(|r| r.meta.title)
            .unwrap_or_else(|| super::meta::file_title(&path));
        let (annotations, problem) = vault.annotations_checked(&path);
        problems.extend(problem);
        for a in annotations {
            let have = words(&format!(
                "{} {}",
                a.comment.as_deref().unwrap_or(""),
                a.text.as_deref().unwrap_or("")
            ));
            if want.is_subset(&have) {
                out.push(Card {
                    path: path.clone(),
                    kind: EntryKind::Paper,
                    title: title.clone(),
                    page: Some(a.page),
                    page_label: a.page_label.clone(),
                    lines: None,
                    excerpt: excerpt(&a, excerpt_chars),
                    citation_uri: uri::page_uri(&path, a.page),
                    citation_key: citation_key.clone(),
                    score,
                });
            }
        }
    }
    sort_cards(&mut out);
    (out, problems)
}

/// Adds the annotations matching `query` to paper-level hits: a paper already found keeps its
/// place and its excerpt says the annotation matched too; a paper found only by an annotation
/// comes first (the reader's own words are the surest sign of what they meant). At most
/// `limit` hits are kept. Returns why highlight stores were left out (one line each), for the
/// user.
pub fn merge_into(
    vault: &Vault,
    query: &str,
    hits: &mut Vec<PaperHit>,
    limit: usize,
    excerpt_chars: usize,
) -> Vec<String> {
    let top = hits.iter().map(|h| h.card.score).fold(1.0f32, f32::max);
    let (found, problems) = cards_checked(vault, query, &|_| true, excerpt_chars, top);
    let mut new: Vec<PaperHit> = Vec::new();
    for c in found {
        let page = PageRef {
            page: c.page,
            lines: None,
            citation_uri: c.citation_uri.clone(),
            score: c.score,
        };
        if let Some(h) = hits.iter_mut().find(|h| h.card.path == c.path) {
            if !h.card.excerpt.contains(PREFIX) {
                h.card.excerpt = format!("{} · {}", c.excerpt, h.card.excerpt);
            }
            if !h.pages.iter().any(|p| p.page == c.page) {
                h.pages.push(page);
            }
        } else if let Some(h) = new.iter_mut().find(|h| h.card.path == c.path) {
            if !h.pages.iter().any(|p| p.page == c.page) {
                h.pages.push(page);
            }
        } else {
            new.push(PaperHit {
                card: c,
                pages: vec![page],
            });
        }
    }
    if !new.is_empty() {
        new.append(hits);
        *hits = new;
    }
    hits.truncate(limit.max(1));
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_analysed_as_the_index_does() {
        let w = query_words("Tables AND Schrödinger");
        assert!(w.contains("tabl") || w.contains("table"), "{w:?}");
        assert!(
            w.contains("schroding") || w.contains("schrodinger"),
            "{w:?}"
        );
        assert!(!w.iter().any(|x| x == "and"));
        assert!(query_words("AND OR").is_empty());
    }
}
