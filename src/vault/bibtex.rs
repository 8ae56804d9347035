//! A paper's BibTeX entry, built from its metadata (sidecar or PDF), written by the biblatex
//! crate so braces, backslashes and TeX specials in titles and names are escaped properly. Every
//! value and the key pass [`output::bibtex`](super::output::bibtex) first: one line, no control
//! character, balanced braces, a key of BibTeX's alphabet, so no text can end the entry.

use biblatex::{Chunk, Entry, EntryType, Spanned};
use unicode_normalization::UnicodeNormalization;

use super::meta::PaperMeta;
use super::output::bibtex as gate;

/// The entry for a paper: `@article` when it has a DOI, `@misc` otherwise (with the arXiv id
/// as `eprint`); fields in alphabetical order, TeX specials escaped (`\%`, `\&`, `\_`). The key is Google Scholar's shape: first author's family name, year, first
/// word of the title that is not a small word (`vaswani2017attention`).
pub fn entry(meta: &PaperMeta) -> String {
    entry_with_key(meta, &key(meta))
}

/// The entry for a paper under a given citation key (a reference manager's, or a generated one
/// made unique within a bibliography). A key outside BibTeX's alphabet is not written: the
/// generated one stands instead (callers check first and say so, see [`super::citekeys`]).
pub fn entry_with_key(meta: &PaperMeta, key: &str) -> String {
    let key = if gate::key_ok(key) {
        key.to_string()
    } else {
        self::key(meta)
    };
    let kind = if meta.doi.is_some() {
        EntryType::Article
    } else {
        EntryType::Misc
    };
    let mut e = Entry::new(key, kind);
    let text = |s: &str| vec![Spanned::zero(Chunk::Normal(one_line(s)))];
    // The title in an inner pair of braces: BibTeX styles must not change its case.
    if !meta.title.trim().is_empty() {
        e.set(
            "title",
            vec![Spanned::zero(Chunk::Verbatim(one_line(&meta.title)))],
        );
    }
    let authors: Vec<String> = meta
        .authors
        .iter()
        .map(|a| one_line(a))
        .filter(|a| !a.is_empty())
        .collect();
    if !authors.is_empty() {
        e.set("author", text(&authors.join(" and ")));
    }
    if let Some(y) = meta.year {
        e.set("year", text(&y.to_string()));
    }
    if let Some(doi) = &meta.doi {
        e.set("doi", vec![Spanned::zero(Chunk::Verbatim(one_line(doi)))]);
    }
    if let Some(id) = &meta.arxiv {
        e.set("eprint", vec![Spanned::zero(Chunk::Verbatim(one_line(id)))]);
        e.set("archiveprefix", text("arXiv"));
    }
    // Only a malformed date field makes this fail, and none is set.
    e.to_bibtex_string()
        .unwrap_or_else(|_| format!("@misc{{{},}}", e.key))
}

/// Whitespace (line breaks from a PDF's text included) as single spaces, controls dropped,
/// braces balanced: a value that stays inside its field.
fn one_line(s: &str) -> String {
    gate::value(s)
}

/// Letters and digits of `s`, lowercase, accents dropped (Schrödinger → schrodinger).
fn ascii_word(s: &str) -> String {
    s.nfd()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(char::to_lowercase)
        .collect()
}

/// The family name of an author written "Family, Given" or "Given Family".
pub fn family_name(author: &str) -> &str {
    match author.split_once(',') {
        // "Vaswani, Ashish"
        Some((family, _)) => family.trim(),
        None => author.split_whitespace().last().unwrap_or(""),
    }
}

const SMALL_WORDS: &[&str] = &[
    "a", "an", "the", "of", "on", "in", "for", "to", "and", "with", "from", "by", "at", "is",
    "are", "towards", "toward", "via",
];

/// The generated citation key: `vaswani2017attention` (name and word 40 letters at most, so
/// the key is always of BibTeX's alphabet and length).
pub fn key(meta: &PaperMeta) -> String {
    let cap = |w: String| w.chars().take(40).collect::<String>();
    let who = meta
        .authors
        .first()
        .map(|a| cap(ascii_word(family_name(a))))
        .filter(|w| !w.is_empty())
        .unwrap_or_else(|| "anon".into());
    let year = meta.year.map(|y| y.to_string()).unwrap_or_default();
    let word = meta
        .title
        .split(|c: char| !c.is_alphanumeric())
        .map(ascii_word)
        .find(|w| !w.is_empty() && !SMALL_WORDS.contains(&w.as_str()))
        .map(cap)
        .unwrap_or_default();
    format!("{who}{year}{word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> PaperMeta {
        PaperMeta {
            title: "Attention Is All\nYou Need".into(),
            authors: vec!["Ashish Vaswani".into(), "Noam Shazeer".into()],
            year: Some(2017),
            doi: None,
            arxiv: Some("1706.03762".into()),
            ..PaperMeta::default()
        }
    }

    #[test]
    fn an_arxiv_paper_is_misc_with_eprint() {
        let e = entry(&meta());
        assert_eq!(
            e,
            "@misc{vaswani2017attention,\n\
             archiveprefix = {arXiv},\n\
             author = {Ashish Vaswani and Noam Shazeer},\n\
             eprint = {{1706.03762}},\n\
             title = {{Attention Is All You Need}},\n\
             year = {2017},\n\
             }"
        );
    }

    #[test]
    fn a_doi_makes_an_article_and_specials_are_escaped() {
        let m = PaperMeta {
            title: "The 100% {Robust} Parser & its_friends".into(),
            authors: vec!["Schrödinger, Erwin".into()],
            year: Some(1935),
            doi: Some("10.1000/x_y".into()),
            arxiv: None,
            ..PaperMeta::default()
        };
        let e = entry(&m);
        assert!(e.starts_with("@article{schrodinger1935100,\n"), "{e}");
        assert!(e.contains("author = {Schrödinger, Erwin},"), "{e}");
        assert!(
            e.contains("title = {{The 100\\% \\{Robust\\} Parser \\& its\\_friends}},"),
            "{e}"
        );
        assert!(e.contains("doi = {{10.1000/x_y}},"), "{e}");
        // It parses back.
        let parsed = biblatex::Bibliography::parse(&e).unwrap();
        assert_eq!(parsed.len(), 1);
    }

    #[test]
    fn no_metadata_still_gives_an_entry() {
        let e = entry(&PaperMeta::default());
        assert_eq!(e, "@misc{anon,\n}");
        let small = PaperMeta {
            title: "On the Origin".into(),
            ..PaperMeta::default()
        };
        assert!(entry(&small).starts_with("@misc{anonorigin,"));
    }
}
