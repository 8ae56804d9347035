//! A Zotero item's fields read as a paper's metadata: the field by one of its names, the date,
//! the citation key, DOI and arXiv id wherever Zotero keeps them (a field, Extra, the URL), and
//! where the work appeared.

use super::read::ItemRow;
use crate::vault::publication::{self, NameParts, Publication, WorkType};

pub(super) fn field<'a>(item: &'a ItemRow, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| item.fields.get(*n))
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
}

/// The item's bibliographic fields. Zotero stores each under its type's own name (a thesis's
/// `university`, a report's `institution` and `reportNumber`, a chapter's `bookTitle`), mapped
/// here to one field each.
pub(super) fn publication_of(item: &ItemRow) -> Publication {
    let get = |names: &[&str]| field(item, names).and_then(publication::value);
    Publication {
        kind: Some(WorkType::from_zotero(
            &item.type_name,
            field(item, &["thesisType"]),
        )),
        container: get(&[
            "publicationTitle",
            "proceedingsTitle",
            "bookTitle",
            "encyclopediaTitle",
            "dictionaryTitle",
            "websiteTitle",
            "blogTitle",
            "forumTitle",
        ]),
        volume: get(&["volume"]),
        issue: get(&["issue", "reportNumber", "number"]),
        pages: get(&["pages"]),
        publisher: get(&["publisher", "repository", "label", "company"]),
        institution: get(&["university", "institution"]),
        url: get(&["url"]),
        names: Vec::new(),
        // The book's editors, when the item has authors of its own (an edited book's editors
        // stand as its authors, see `ZoteroItem::authors`).
        editors: if item.creators.iter().any(|c| c.kind == "author") {
            item.creators
                .iter()
                .filter(|c| c.kind == "editor")
                .filter_map(|c| match c.last.trim() {
                    "" => NameParts::new(&c.first, ""),
                    last => NameParts::new(last, &c.first),
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// Zotero stores dates as `YYYY-MM-DD original` (`2009-00-00 2009`).
pub(super) fn split_date(raw: &str) -> (Option<String>, Option<i32>) {
    let (sql, shown) = match raw.split_once(' ') {
        Some((a, b)) if a.len() == 10 && a.as_bytes()[4] == b'-' => (a, b.trim()),
        _ => ("", raw.trim()),
    };
    let year = sql
        .get(..4)
        .and_then(|y| y.parse::<i32>().ok())
        .filter(|y| *y > 0)
        .or_else(|| {
            regex::Regex::new(r"\b(1[5-9]\d\d|2\d\d\d)\b")
                .ok()?
                .find(shown)?
                .as_str()
                .parse()
                .ok()
        });
    ((!shown.is_empty()).then(|| shown.to_string()), year)
}

/// `Citation Key: x` in Extra (Better BibTeX's and Zotero's own convention before 7).
pub(super) fn key_in_extra(extra: &str) -> Option<String> {
    in_extra(extra, "citation key")
}

/// The value of a `Name: value` line of Extra (any case), where Zotero keeps the fields an
/// item type lacks (`DOI: 10.…` on a book section or a thesis).
fn in_extra(extra: &str, name: &str) -> Option<String> {
    extra.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim().eq_ignore_ascii_case(name) && !v.trim().is_empty()).then(|| v.trim().to_string())
    })
}

/// An item's DOI: its `DOI` field, else a `DOI:` line of Extra (item types without the field),
/// else a `doi.org` URL.
pub(super) fn doi_of(owner: &ItemRow) -> Option<String> {
    use crate::vault::ids::normalize_doi;
    field(owner, &["DOI"]).map(str::to_string).or_else(|| {
        field(owner, &["extra"])
            .and_then(|e| in_extra(e, "doi"))
            .and_then(|d| normalize_doi(&d))
            .or_else(|| {
                field(owner, &["url"])
                    .filter(|u| u.to_ascii_lowercase().contains("doi.org/"))
                    .and_then(normalize_doi)
            })
    })
}

/// An item's arXiv id: its `archiveID` (`arXiv:2101.00001`), else an arxiv.org URL.
pub(super) fn arxiv_of(owner: &ItemRow) -> Option<String> {
    use crate::vault::ids::normalize_arxiv;
    field(owner, &["archiveID"])
        .and_then(normalize_arxiv)
        .or_else(|| {
            field(owner, &["url"])
                .filter(|u| u.to_ascii_lowercase().contains("arxiv.org/"))
                .and_then(normalize_arxiv)
        })
}
