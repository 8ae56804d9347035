//! The demo papers' sidecars: papis `info.yaml`, `references.json` and `references.bib`, and
//! each paper's own BibTeX entry for the vault's `references.bib`.

use serde::Serialize;

use super::compose::{RefEntry, references};
use super::papers::{Paper, Ref};
use super::pdfwriter::{Face, words};

/// Splits "Ilse de Vries" into ("Ilse", "de Vries") and "Margit Halvorsen" into ("Margit",
/// "Halvorsen"): the family name starts at the first lowercase particle, else it is the last word.
fn split_name(name: &str) -> (String, String) {
    let parts: Vec<&str> = name.split(' ').collect();
    let at = parts
        .iter()
        .position(|p| p.chars().next().is_some_and(char::is_lowercase))
        .filter(|&i| i > 0)
        .unwrap_or(parts.len() - 1);
    (parts[..at].join(" "), parts[at..].join(" "))
}

#[derive(Serialize)]
struct PapisAuthor {
    family: String,
    given: String,
}

/// papis-style info.yaml. One paper uses `author_list`, the other only the `author` string, as
/// both occur in real libraries.
#[derive(Serialize)]
struct PapisInfo {
    title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    author_list: Option<Vec<PapisAuthor>>,
    author: String,
    year: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    doi: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    eprint: Option<String>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    journal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    booktitle: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    volume: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pages: Option<String>,
    #[serde(rename = "ref")]
    reference: String,
    tags: Vec<String>,
    #[serde(rename = "abstract")]
    abstract_text: String,
}

/// papis' and BibTeX's "Family, Given and Family, Given".
fn bibtex_authors(paper: &Paper) -> String {
    let names: Vec<String> = paper
        .authors
        .iter()
        .map(|a| {
            let (given, family) = split_name(a.name);
            format!("{family}, {given}")
        })
        .collect();
    names.join(" and ")
}

/// The abstract as one line of prose (the source keeps line continuations' spacing).
pub fn plain_abstract(paper: &Paper) -> String {
    let words: Vec<String> = words(paper.abstract_text, Face::Roman)
        .into_iter()
        .map(|w| w.text)
        .collect();
    words.join(" ")
}

/// Where a paper appeared, as papis keeps it: a preprint nowhere; proceedings (or findings) as
/// the `booktitle` of an `inproceedings`; a journal line `Name 41(3): 283–286, 2009` as an
/// `article`'s journal, volume, number and pages.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Venue {
    pub(super) kind: Option<&'static str>,
    pub(super) journal: Option<String>,
    pub(super) booktitle: Option<String>,
    pub(super) volume: Option<String>,
    pub(super) number: Option<String>,
    pub(super) pages: Option<String>,
}

pub(super) fn venue(line: &str) -> Venue {
    if line.starts_with("Preprint") || line.starts_with("arXiv") {
        return Venue::default();
    }
    if line.starts_with("Proceedings of") || line.starts_with("Findings of") {
        return Venue {
            kind: Some("inproceedings"),
            booktitle: Some(line.to_string()),
            ..Venue::default()
        };
    }
    let journal_line = regex::Regex::new(r"^(.+?) (\d+)(?:\((\d+)\))?: (\d+)–(\d+)(?:, \d{4})?$")
        .expect("valid regex");
    match journal_line.captures(line) {
        Some(c) => Venue {
            kind: Some("article"),
            journal: Some(c[1].to_string()),
            volume: Some(c[2].to_string()),
            number: c.get(3).map(|m| m.as_str().to_string()),
            pages: Some(format!("{}--{}", &c[4], &c[5])),
            ..Venue::default()
        },
        None => Venue {
            kind: Some("article"),
            journal: Some(line.to_string()),
            ..Venue::default()
        },
    }
}

pub fn info_yaml(paper: &Paper, with_author_list: bool) -> Result<String, serde_norway::Error> {
    let venue = venue(paper.venue);
    let info = PapisInfo {
        title: paper.title.to_string(),
        author_list: with_author_list.then(|| {
            paper
                .authors
                .iter()
                .map(|a| {
                    let (given, family) = split_name(a.name);
                    PapisAuthor { family, given }
                })
                .collect()
        }),
        author: bibtex_authors(paper),
        year: paper.year,
        doi: paper.doi.map(str::to_string),
        eprint: paper.arxiv.map(str::to_string),
        kind: venue.kind,
        journal: venue.journal,
        booktitle: venue.booktitle,
        volume: venue.volume,
        number: venue.number,
        pages: venue.pages,
        reference: bib_key(paper),
        tags: paper.keywords.iter().map(|k| k.replace(' ', "-")).collect(),
        abstract_text: plain_abstract(paper),
    };
    serde_norway::to_string(&info)
}

#[derive(Serialize)]
struct JsonReference {
    raw: String,
    title: String,
    authors: Vec<String>,
    year: u16,
    doi: Option<String>,
    arxiv: Option<String>,
}

pub fn references_json(paper: &Paper) -> Result<String, serde_json::Error> {
    let refs: Vec<JsonReference> = references(paper)
        .into_iter()
        .map(|r| JsonReference {
            raw: r.raw(),
            title: r.title.clone(),
            authors: r.authors.clone(),
            year: r.year,
            doi: r.doi.clone(),
            arxiv: r.arxiv.clone(),
        })
        .collect();
    let mut json = serde_json::to_string_pretty(&refs)?;
    json.push('\n');
    Ok(json)
}

/// "halvorsen2009passage": family name of the first author, year, first long title word.
pub fn bib_key(paper: &Paper) -> String {
    let (_, family) = split_name(paper.authors[0].name);
    let word = paper
        .title
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| w.len() > 3)
        .unwrap_or("paper");
    ascii_key(&format!("{family}{}{word}", paper.year))
}

fn ascii_key(s: &str) -> String {
    s.chars()
        .filter_map(|c| match c {
            'ä' | 'á' | 'à' => Some('a'),
            'ö' | 'ó' => Some('o'),
            'ü' | 'ú' => Some('u'),
            'é' | 'ê' => Some('e'),
            'č' => Some('c'),
            c if c.is_ascii_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn bib_entry(key: &str, kind: &str, fields: &[(&str, String)]) -> String {
    let mut entry = format!("@{kind}{{{key},\n");
    for (name, value) in fields {
        entry.push_str(&format!("  {name} = {{{value}}},\n"));
    }
    entry.push_str("}\n");
    entry
}

/// A BibTeX entry for a reference: `@article` with `doi` when published, `@misc` with
/// `eprint`/`archivePrefix` for preprints.
fn bib_for_ref(r: &RefEntry) -> String {
    let mut fields = vec![
        ("author", r.authors.join(" and ")),
        ("title", format!("{{{}}}", r.title)),
        ("year", r.year.to_string()),
    ];
    let kind = if r.venue == "arXiv preprint"
        || r.venue == "Preprint"
        || r.venue.starts_with("Preprint")
    {
        "misc"
    } else if r.venue.starts_with("Proceedings") || r.venue.starts_with("Findings") {
        fields.push(("booktitle", r.venue.clone()));
        "inproceedings"
    } else {
        fields.push(("journal", r.venue.clone()));
        "article"
    };
    if let Some(doi) = &r.doi {
        fields.push(("doi", doi.clone()));
    }
    if let Some(arxiv) = &r.arxiv {
        fields.push(("eprint", arxiv.clone()));
        fields.push(("archivePrefix", "arXiv".to_string()));
    }
    bib_entry(&ascii_key(&r.key), kind, &fields)
}

/// The reference list of `paper` as BibTeX, in reference-list order.
pub fn references_bib(paper: &Paper) -> String {
    let entries: Vec<String> = references(paper).iter().map(bib_for_ref).collect();
    entries.join("\n")
}

/// A BibTeX entry for a demo paper itself (for the vault's root references.bib).
pub fn paper_bib(paper: &Paper) -> String {
    let mut r = RefEntry::from_ref(&Ref::Demo(paper.slug));
    r.key = bib_key(paper);
    // Full names in the library file, as reference managers export them.
    r.authors = vec![bibtex_authors(paper)];
    bib_for_ref(&r)
}
