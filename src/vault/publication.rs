//! Where and as what a paper was published, as a bibliography needs it: the kind of work
//! (journal article, conference paper, book, chapter, thesis, report …), the journal or book it
//! appeared in, volume, issue, pages, publisher, school or institution, URL. Read from papis's
//! `info.yaml`, Zotero's item fields or the PDF's XMP (PRISM); written by
//! [`bibtex`](super::bibtex) and [`citekeys::csl_json`](super::citekeys::csl_json).

use serde::{Deserialize, Serialize};

/// The longest value kept from a source, in characters: a journal name or a publisher is short,
/// and a longer value is not bibliographic data.
const MAX_VALUE_CHARS: usize = 500;

/// What kind of work a paper is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkType {
    /// In a journal (or a magazine).
    Article,
    /// In conference proceedings.
    Conference,
    Book,
    /// A chapter or a contribution in an edited book.
    Chapter,
    PhdThesis,
    MastersThesis,
    /// A technical report, a working paper.
    Report,
    /// A preprint (arXiv and the like).
    Preprint,
    Webpage,
    Misc,
}

impl WorkType {
    /// The type a papis `type:`, a BibTeX or biblatex entry type or a CSL type names
    /// (`article`, `inproceedings`, `paper-conference`, `incollection`, `phdthesis`,
    /// `techreport`, …), any case; `None` for a name it does not know.
    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        Some(match n.as_str() {
            "article" | "article-journal" | "journal-article" | "journalarticle"
            | "article-magazine" | "magazinearticle" | "article-newspaper" | "periodical" => {
                Self::Article
            }
            "inproceedings"
            | "conference"
            | "paper-conference"
            | "proceedings-article"
            | "conferencepaper" => Self::Conference,
            "book" | "mvbook" | "monograph" | "edited-book" | "reference-book" | "proceedings" => {
                Self::Book
            }
            "incollection" | "inbook" | "chapter" | "book-chapter" | "booksection"
            | "book-section" | "book-part" | "inreference" => Self::Chapter,
            "phdthesis" | "thesis" | "dissertation" => Self::PhdThesis,
            "mastersthesis" | "masterthesis" => Self::MastersThesis,
            "techreport" | "report" | "report-component" | "working-paper" => Self::Report,
            "preprint" | "posted-content" | "unpublished" | "manuscript" => Self::Preprint,
            "online" | "webpage" | "www" | "electronic" => Self::Webpage,
            "misc" | "document" | "other" => Self::Misc,
            _ => return None,
        })
    }

    /// The kind in words, for a person (`journal article`, `conference paper`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Article => "journal article",
            Self::Conference => "conference paper",
            Self::Book => "book",
            Self::Chapter => "book chapter",
            Self::PhdThesis => "PhD thesis",
            Self::MastersThesis => "master's thesis",
            Self::Report => "report",
            Self::Preprint => "preprint",
            Self::Webpage => "web page",
            Self::Misc => "other",
        }
    }

    /// The type of a Zotero item (`journalArticle`, `conferencePaper`, `bookSection`, …); a
    /// thesis is a master's thesis when its `thesisType` says so.
    pub fn from_zotero(item_type: &str, thesis_type: Option<&str>) -> Self {
        match item_type {
            "journalArticle" | "magazineArticle" | "newspaperArticle" => Self::Article,
            "conferencePaper" => Self::Conference,
            "book" => Self::Book,
            "bookSection" | "encyclopediaArticle" | "dictionaryEntry" => Self::Chapter,
            "thesis" => {
                let t = thesis_type.unwrap_or("").to_lowercase();
                if t.contains("master") || t.starts_with("ms") || t.starts_with("m.") {
                    Self::MastersThesis
                } else {
                    Self::PhdThesis
                }
            }
            "report" => Self::Report,
            "preprint" | "manuscript" => Self::Preprint,
            "webpage" | "blogPost" | "forumPost" => Self::Webpage,
            _ => Self::Misc,
        }
    }

    /// Its CSL type.
    pub fn csl(self) -> &'static str {
        match self {
            Self::Article => "article-journal",
            Self::Conference => "paper-conference",
            Self::Book => "book",
            Self::Chapter => "chapter",
            Self::PhdThesis | Self::MastersThesis => "thesis",
            Self::Report => "report",
            Self::Preprint => "article",
            Self::Webpage => "webpage",
            Self::Misc => "document",
        }
    }

    /// What the CSL `genre` says of a thesis (styles print it).
    pub fn thesis_genre(self) -> Option<&'static str> {
        match self {
            Self::PhdThesis => Some("PhD thesis"),
            Self::MastersThesis => Some("Master's thesis"),
            _ => None,
        }
    }
}

/// The bibliographic facts of a paper beyond title, authors, year and identifiers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Publication {
    /// The kind of work, when a source says (else guessed, see [`Publication::kind_or_guess`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<WorkType>,
    /// The journal, the proceedings or the book it appeared in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<String>,
    /// The issue (BibTeX's `number`), or a report's number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issue: Option<String>,
    /// As the source writes them (`117--130`, `117–130`, `e1234`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    /// A thesis's school, a report's institution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub institution: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The authors' names in parts, when the source keeps them apart (papis's `author_list` or
    /// `Family, Given`, Zotero's creators): one per author of the paper, in order. A
    /// bibliography needs them — "Gabriel García Márquez" alone reads as family name Márquez.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<NameParts>,
    /// The editors of the book or proceedings it appeared in (papis's `editor`, Zotero's
    /// editor creators), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub editors: Vec<NameParts>,
}

/// A person's name as family and given names; an organisation has a family name only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameParts {
    pub family: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub given: String,
}

impl NameParts {
    /// From `family` and `given` as a source wrote them (whitespace runs as one space); `None`
    /// without a family name.
    pub fn new(family: &str, given: &str) -> Option<NameParts> {
        let clean = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        let family = clean(family);
        (!family.is_empty()).then(|| NameParts {
            family,
            given: clean(given),
        })
    }

    /// As BibTeX reads a name: `Family, Given` (a `von` part such as "de" stays in front:
    /// `de Vries, Ilse`), or the family name alone.
    pub fn bibtex(&self) -> String {
        if self.given.is_empty() {
            self.family.clone()
        } else {
            format!("{}, {}", self.family, self.given)
        }
    }
}

impl Publication {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The kind a source gave, else what the fields say: a journal → article; a DOI alone →
    /// article; an arXiv id → preprint; nothing → misc. (A container without a kind is taken
    /// for a journal: that is what papis and PDF metadata mostly mean by it.)
    pub fn kind_or_guess(&self, doi: bool, arxiv: bool) -> WorkType {
        match self.kind {
            Some(k) => k,
            None if self.container.is_some() || doi => WorkType::Article,
            None if arxiv => WorkType::Preprint,
            None => WorkType::Misc,
        }
    }

    /// Each field of `self` that is empty taken from `other` (the kind too).
    pub fn fill_from(&mut self, other: &Publication) {
        let fill = |mine: &mut Option<String>, theirs: &Option<String>| {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        };
        if self.kind.is_none() {
            self.kind = other.kind;
        }
        fill(&mut self.container, &other.container);
        fill(&mut self.volume, &other.volume);
        fill(&mut self.issue, &other.issue);
        fill(&mut self.pages, &other.pages);
        fill(&mut self.publisher, &other.publisher);
        fill(&mut self.institution, &other.institution);
        fill(&mut self.url, &other.url);
        if self.names.is_empty() {
            self.names.clone_from(&other.names);
        }
    }

    /// The names in parts of `authors`, when there is one for each.
    pub fn names_of(&self, authors: usize) -> Option<&[NameParts]> {
        (authors > 0 && self.names.len() == authors).then_some(self.names.as_slice())
    }
}

/// A source's value as kept: whitespace runs (line breaks too) as single spaces, at most
/// [`MAX_VALUE_CHARS`] characters; `None` when nothing is left.
pub fn value(s: &str) -> Option<String> {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let one: String = one.chars().take(MAX_VALUE_CHARS).collect();
    (!one.is_empty()).then_some(one)
}

/// A page range as BibTeX wants it: the dash between two pages is `--` (`117–130`, `117-130`,
/// `117 — 130` → `117--130`); anything else is kept as it is.
pub fn bibtex_pages(pages: &str) -> String {
    match split_range(pages) {
        Some((a, b)) => format!("{a}--{b}"),
        None => pages.trim().to_string(),
    }
}

/// A page range as CSL writes it: `117-130` (the style sets the dash).
pub fn csl_pages(pages: &str) -> String {
    match split_range(pages) {
        Some((a, b)) => format!("{a}-{b}"),
        None => pages.trim().to_string(),
    }
}

/// The two ends of `first–last` written with any dash (`-`, `--`, `–`, `—`, `‐`), spaces
/// around it or not; `None` when it is not one range of two pages.
fn split_range(pages: &str) -> Option<(&str, &str)> {
    let dash = |c: char| matches!(c, '-' | '‐' | '‑' | '‒' | '–' | '—' | '−');
    let s = pages.trim();
    let start = s.find(dash)?;
    let first = s[..start].trim();
    let rest = s[start..].trim_start_matches(|c: char| dash(c) || c.is_whitespace());
    let is_page = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '.');
    (is_page(first) && is_page(rest)).then_some((first, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_of_every_source_map_to_one_kind() {
        for (name, kind) in [
            ("article", WorkType::Article),
            ("journal-article", WorkType::Article),
            ("InProceedings", WorkType::Conference),
            ("paper-conference", WorkType::Conference),
            ("proceedings-article", WorkType::Conference),
            ("conference", WorkType::Conference),
            ("book", WorkType::Book),
            ("incollection", WorkType::Chapter),
            ("book-chapter", WorkType::Chapter),
            ("phdthesis", WorkType::PhdThesis),
            ("mastersthesis", WorkType::MastersThesis),
            ("techreport", WorkType::Report),
            ("report", WorkType::Report),
            ("misc", WorkType::Misc),
        ] {
            assert_eq!(WorkType::from_name(name), Some(kind), "{name}");
        }
        assert_eq!(WorkType::from_name("poem-ish"), None);
        assert_eq!(
            WorkType::from_zotero("conferencePaper", None),
            WorkType::Conference
        );
        assert_eq!(
            WorkType::from_zotero("bookSection", None),
            WorkType::Chapter
        );
        assert_eq!(
            WorkType::from_zotero("thesis", Some("Master's thesis")),
            WorkType::MastersThesis
        );
        assert_eq!(
            WorkType::from_zotero("thesis", Some("Doctoral dissertation")),
            WorkType::PhdThesis
        );
        assert_eq!(WorkType::from_zotero("artwork", None), WorkType::Misc);
        assert_eq!(WorkType::Conference.csl(), "paper-conference");
        assert_eq!(WorkType::Chapter.csl(), "chapter");
        assert_eq!(WorkType::MastersThesis.csl(), "thesis");
    }

    #[test]
    fn a_kind_is_guessed_from_the_fields_when_no_source_says() {
        let journal = Publication {
            container: Some("Journal of Reading".into()),
            ..Publication::default()
        };
        assert_eq!(journal.kind_or_guess(false, false), WorkType::Article);
        let none = Publication::default();
        assert_eq!(none.kind_or_guess(true, false), WorkType::Article);
        assert_eq!(none.kind_or_guess(false, true), WorkType::Preprint);
        assert_eq!(none.kind_or_guess(false, false), WorkType::Misc);
        let book = Publication {
            kind: Some(WorkType::Book),
            ..journal
        };
        assert_eq!(book.kind_or_guess(true, true), WorkType::Book);
    }

    #[test]
    fn page_ranges_get_bibtex_and_csl_dashes() {
        for raw in ["117-130", "117--130", "117–130", "117 — 130", "117‐130"] {
            assert_eq!(bibtex_pages(raw), "117--130", "{raw}");
            assert_eq!(csl_pages(raw), "117-130", "{raw}");
        }
        assert_eq!(bibtex_pages("xii-xiv"), "xii--xiv");
        assert_eq!(bibtex_pages("e1234"), "e1234");
        assert_eq!(bibtex_pages(" 42 "), "42");
        assert_eq!(bibtex_pages("1-2-3"), "1-2-3");
        assert_eq!(bibtex_pages("pp. 1-2"), "pp. 1-2");
    }

    #[test]
    fn values_are_one_line_and_bounded() {
        assert_eq!(
            value("  Journal of\n  Reading "),
            Some("Journal of Reading".into())
        );
        assert_eq!(value(" \n "), None);
        assert_eq!(value(&"x".repeat(10_000)).unwrap().len(), MAX_VALUE_CHARS);
    }
}
