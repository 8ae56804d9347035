//! A paper's BibTeX entry, built from its metadata (sidecar or PDF), written by the biblatex
//! crate so braces, backslashes and TeX specials in titles and names are escaped properly. Every
//! value and the key pass [`output::bibtex`](super::output::bibtex) first: one line, no control
//! character, balanced braces, a key of BibTeX's alphabet, so no text can end the entry.

use biblatex::{Chunk, Entry, EntryType, Spanned};

use super::meta::PaperMeta;
use super::output::bibtex as gate;
use super::publication::{self, NameParts, WorkType};

/// The entry for a paper under its generated key (Google Scholar's shape: first author's
/// family name, year, first word of the title that is not a small word,
/// `vaswani2017attention`). See [`entry_with_key`].
pub fn entry(meta: &PaperMeta) -> String {
    entry_with_key(meta, &key(meta))
}

/// The BibTeX entry type of a paper, and the field its container is written in: the kind its
/// metadata gives (or guesses, see [`publication::Publication::kind_or_guess`]) when the
/// fields BibTeX's standard styles require of that type are there, else `@misc` with the
/// container as `howpublished` — an entry those styles print without a warning.
fn entry_type(meta: &PaperMeta) -> (EntryType, &'static str) {
    let p = &meta.publication;
    let has = |v: &Option<String>| v.is_some();
    let kind = p.kind_or_guess(meta.doi.is_some(), meta.arxiv.is_some());
    match kind {
        WorkType::Article if has(&p.container) => (EntryType::Article, "journal"),
        WorkType::Conference if has(&p.container) => (EntryType::InProceedings, "booktitle"),
        WorkType::Chapter if has(&p.container) && has(&p.publisher) => {
            (EntryType::InCollection, "booktitle")
        }
        // A chapter whose book names no publisher: the styles print it alike, "In …".
        WorkType::Chapter if has(&p.container) => (EntryType::InProceedings, "booktitle"),
        WorkType::Book if has(&p.publisher) => (EntryType::Book, "series"),
        WorkType::PhdThesis if has(&p.institution) => (EntryType::PhdThesis, "howpublished"),
        WorkType::MastersThesis if has(&p.institution) => {
            (EntryType::MastersThesis, "howpublished")
        }
        WorkType::Report if has(&p.institution) || has(&p.publisher) => {
            (EntryType::TechReport, "howpublished")
        }
        _ => (EntryType::Misc, "howpublished"),
    }
}

/// The entry for a paper under a given citation key (a reference manager's, or a generated one
/// made unique within a bibliography): its type (`@article`, `@inproceedings`, `@book`,
/// `@incollection`, `@phdthesis`, `@mastersthesis`, `@techreport`, else `@misc` with the
/// arXiv id as `eprint`) and its fields in alphabetical order, TeX specials escaped (`\%`,
/// `\&`, `\_`); DOI and URL written as they are, pages with BibTeX's `--`. A key outside
/// BibTeX's alphabet is not written: the generated one stands instead (callers check first and
/// say so, see [`super::citekeys`]).
pub fn entry_with_key(meta: &PaperMeta, key: &str) -> String {
    let key = if gate::key_ok(key) {
        key.to_string()
    } else {
        self::key(meta)
    };
    let (kind, container_field) = entry_type(meta);
    let mut e = Entry::new(key, kind.clone());
    let text = |s: &str| vec![Spanned::zero(Chunk::Normal(one_line(s)))];
    // The title in an inner pair of braces: BibTeX styles must not change its case.
    if !meta.title.trim().is_empty() {
        e.set(
            "title",
            vec![Spanned::zero(Chunk::Verbatim(one_line(&meta.title)))],
        );
    }
    // "Family, Given" when the source kept the parts (BibTeX would take the last word of
    // "Gabriel García Márquez" for the family name).
    let names: Vec<String> = match meta.publication.names_of(meta.authors.len()) {
        Some(parts) => parts.iter().map(NameParts::bibtex).collect(),
        None => meta.authors.clone(),
    };
    let authors: Vec<String> = names
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
    let p = &meta.publication;
    // The book's editors, where BibTeX's styles print them (a chapter, a proceedings paper).
    if matches!(kind, EntryType::InCollection | EntryType::InProceedings) {
        let editors: Vec<String> = p
            .editors
            .iter()
            .map(|n| one_line(&n.bibtex()))
            .filter(|n| !n.is_empty())
            .collect();
        if !editors.is_empty() {
            e.set("editor", text(&editors.join(" and ")));
        }
    }
    let mut put = |field: &str, v: &Option<String>| {
        if let Some(v) = v.as_deref().map(one_line).filter(|v| !v.is_empty()) {
            e.set(field, text(&v));
        }
    };
    put(container_field, &p.container);
    put("volume", &p.volume);
    put("number", &p.issue);
    put("pages", &p.pages.as_deref().map(publication::bibtex_pages));
    put("publisher", &p.publisher);
    match kind {
        EntryType::PhdThesis | EntryType::MastersThesis => put("school", &p.institution),
        EntryType::TechReport => put(
            "institution",
            &p.institution.clone().or(p.publisher.clone()),
        ),
        _ => {}
    }
    // Identifiers and addresses are written as they are (biblatex's verbatim fields escape
    // nothing but braces and backslashes, which none of them keeps).
    let raw = |s: String| vec![Spanned::zero(Chunk::Normal(s))];
    if let Some(doi) = meta.doi.as_deref().map(raw_doi).filter(|d| !d.is_empty()) {
        e.set("doi", raw(doi));
    }
    if let Some(url) = p.url.as_deref().map(raw_url).filter(|u| !u.is_empty()) {
        e.set("url", raw(url));
    }
    if let Some(id) = meta.arxiv.as_deref().map(raw_doi).filter(|i| !i.is_empty()) {
        e.set("eprint", raw(id));
        e.set("archiveprefix", text("arXiv"));
    }
    // Only a malformed date field makes this fail, and none is set.
    e.to_bibtex_string()
        .unwrap_or_else(|_| format!("@misc{{{},}}", e.key))
}

/// A DOI or an arXiv id as written: one line, without spaces, braces or backslashes (no DOI
/// has them; BibTeX would read them as syntax).
fn raw_doi(s: &str) -> String {
    one_line(s)
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '{' | '}' | '\\'))
        .collect()
}

/// A URL as written, its spaces, braces and backslashes percent-encoded (what a browser sends
/// for them), so BibTeX reads it as one value.
fn raw_url(s: &str) -> String {
    let mut out = String::new();
    for c in one_line(s).trim().chars() {
        match c {
            ' ' => out.push_str("%20"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out
}

/// Whitespace (line breaks from a PDF's text included) as single spaces, controls dropped,
/// braces balanced: a value that stays inside its field.
fn one_line(s: &str) -> String {
    gate::value(s)
}

/// Letters and digits of `s` in ASCII, lowercase: letters transliterated (Schrödinger →
/// schrodinger, Yıldız → yildiz, Søren → soren, Straße → strasse, 张 → zhang).
pub fn ascii_word(s: &str) -> String {
    deunicode::deunicode(s)
        .chars()
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
    let family = match meta.publication.names_of(meta.authors.len()) {
        Some(parts) => parts.first().map(|n| n.family.as_str()),
        None => meta.authors.first().map(|a| family_name(a)),
    };
    let who = family
        .map(|f| cap(ascii_word(f)))
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
    use crate::vault::publication::Publication;

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
             eprint = {1706.03762},\n\
             title = {{Attention Is All You Need}},\n\
             year = {2017},\n\
             }"
        );
    }

    #[test]
    fn a_doi_is_written_plainly_and_specials_are_escaped() {
        let m = PaperMeta {
            title: "The 100% {Robust} Parser & its_friends".into(),
            authors: vec!["Schrödinger, Erwin".into()],
            year: Some(1935),
            doi: Some("10.1000/x_y".into()),
            arxiv: None,
            ..PaperMeta::default()
        };
        let e = entry(&m);
        // No journal: BibTeX's styles would warn of an `@article` without one.
        assert!(e.starts_with("@misc{schrodinger1935100,\n"), "{e}");
        assert!(e.contains("author = {Schrödinger, Erwin},"), "{e}");
        assert!(
            e.contains("title = {{The 100\\% \\{Robust\\} Parser \\& its\\_friends}},"),
            "{e}"
        );
        assert!(e.contains("doi = {10.1000/x_y},"), "{e}");
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

    fn published(kind: Option<WorkType>) -> PaperMeta {
        PaperMeta {
            title: "Tables without ruling lines".into(),
            authors: vec!["Ilse de Vries".into()],
            year: Some(2019),
            doi: Some("10.1145/3209280.3209520".into()),
            publication: Publication {
                kind,
                container: Some("Proceedings of Document Engineering".into()),
                volume: Some("12".into()),
                issue: Some("3".into()),
                pages: Some("117–130".into()),
                publisher: Some("ACM".into()),
                institution: Some("Universität Wien".into()),
                url: Some("https://example.org/a b{c}".into()),
                names: Vec::new(),
                editors: Vec::new(),
            },
            ..PaperMeta::default()
        }
    }

    #[test]
    fn each_kind_gets_its_entry_type_and_container_field() {
        for (kind, head, container) in [
            (WorkType::Article, "@article{", "journal = {Proceedings"),
            (
                WorkType::Conference,
                "@inproceedings{",
                "booktitle = {Proceedings",
            ),
            (
                WorkType::Chapter,
                "@incollection{",
                "booktitle = {Proceedings",
            ),
            (WorkType::Book, "@book{", "publisher = {ACM}"),
            (
                WorkType::PhdThesis,
                "@phdthesis{",
                "school = {Universität Wien}",
            ),
            (
                WorkType::MastersThesis,
                "@mastersthesis{",
                "school = {Universität Wien}",
            ),
            (
                WorkType::Report,
                "@techreport{",
                "institution = {Universität Wien}",
            ),
            (WorkType::Preprint, "@misc{", "howpublished = {Proceedings"),
        ] {
            let e = entry(&published(Some(kind)));
            assert!(e.starts_with(head), "{kind:?}: {e}");
            assert!(e.contains(container), "{kind:?}: {e}");
            assert!(e.contains("pages = {117--130},"), "{e}");
            assert!(e.contains("doi = {10.1145/3209280.3209520},"), "{e}");
            assert!(
                e.contains("url = {https://example.org/a%20b%7Bc%7D},"),
                "{e}"
            );
            assert!(
                e.contains("volume = {12},") && e.contains("number = {3},"),
                "{e}"
            );
            assert_eq!(biblatex::Bibliography::parse(&e).unwrap().len(), 1, "{e}");
        }
        // A type whose required field is missing is written as @misc.
        let mut bare = published(Some(WorkType::PhdThesis));
        bare.publication.institution = None;
        assert!(entry(&bare).starts_with("@misc{"));
        // No kind given: a container makes an article.
        assert!(entry(&published(None)).starts_with("@article{"));
    }

    #[test]
    fn generated_keys_transliterate_letters() {
        let m = |author: &str, title: &str| PaperMeta {
            title: title.into(),
            authors: vec![author.into()],
            year: Some(2020),
            ..PaperMeta::default()
        };
        assert_eq!(key(&m("Yıldız, Ayşe", "Işık")), "yildiz2020isik");
        assert_eq!(key(&m("Søren Ødegård", "Straße")), "odegard2020strasse");
        assert_eq!(key(&m("Éric Leroux", "Étude")), "leroux2020etude");
        assert_eq!(key(&m("Zhang Wei", "注意力")), "wei2020zhuyili");
        assert!(gate::key_ok(&key(&m("Łukasz Ćwik", "Œuvre"))));
    }

    #[test]
    fn names_in_parts_are_written_family_first() {
        let m = PaperMeta {
            title: "Cien años".into(),
            authors: vec!["Gabriel García Márquez".into(), "Ilse de Vries".into()],
            year: Some(1967),
            publication: Publication {
                names: vec![
                    NameParts::new("García Márquez", "Gabriel").unwrap(),
                    NameParts::new("de Vries", "Ilse").unwrap(),
                ],
                ..Publication::default()
            },
            ..PaperMeta::default()
        };
        let e = entry(&m);
        assert!(e.starts_with("@misc{garciamarquez1967cien,"), "{e}");
        assert!(
            e.contains("author = {García Márquez, Gabriel and de Vries, Ilse},"),
            "{e}"
        );
        // Parts that do not match the authors one for one are not used.
        let mut short = m.clone();
        short.publication.names.pop();
        assert!(entry(&short).starts_with("@misc{marquez1967cien,"));
    }
}
