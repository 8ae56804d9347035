//! Paper metadata: the papis `info.yaml` sidecar first, then the PDF's Info dictionary and XMP
//! (only when they look like real metadata), then the first page's text.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::ids;
use super::pdf::{DocInfo, PageText};
use super::publication::{self, NameParts, Publication, WorkType};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaSource {
    Sidecar,
    /// The Zotero library the paper belongs to.
    Zotero,
    PdfInfo,
    FirstPage,
    #[default]
    FileName,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaperMeta {
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    #[serde(rename = "abstract")]
    pub abstract_text: Option<String>,
    /// Where the title came from.
    pub title_source: MetaSource,
    /// The kind of work and where it appeared (journal, volume, pages, …).
    #[serde(default, skip_serializing_if = "Publication::is_empty")]
    pub publication: Publication,
    /// The citation key the reference manager gave the paper (papis `ref`, Zotero's
    /// `citationKey`, Better BibTeX's), as it wrote it: checked where it is written
    /// ([`super::citekeys`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation_key: Option<String>,
}

/// The fields of a papis-style `info.yaml` we use (papis writes BibTeX's field names, and
/// `ref` for the citation key). Unknown fields are ignored; the bibliographic ones may be
/// numbers (`volume: 12`) as well as strings.
#[derive(Debug, Default, Deserialize)]
struct InfoYaml {
    title: Option<String>,
    author: Option<String>,
    author_list: Option<Vec<AuthorEntry>>,
    editor: Option<serde_norway::Value>,
    year: Option<serde_norway::Value>,
    doi: Option<String>,
    eprint: Option<String>,
    #[serde(rename = "abstract")]
    abstract_text: Option<String>,
    #[serde(rename = "ref")]
    citation_key: Option<serde_norway::Value>,
    #[serde(rename = "type")]
    kind: Option<serde_norway::Value>,
    journal: Option<serde_norway::Value>,
    journaltitle: Option<serde_norway::Value>,
    #[serde(rename = "container-title")]
    container_title: Option<serde_norway::Value>,
    booktitle: Option<serde_norway::Value>,
    volume: Option<serde_norway::Value>,
    number: Option<serde_norway::Value>,
    issue: Option<serde_norway::Value>,
    pages: Option<serde_norway::Value>,
    publisher: Option<serde_norway::Value>,
    school: Option<serde_norway::Value>,
    institution: Option<serde_norway::Value>,
    organization: Option<serde_norway::Value>,
    url: Option<serde_norway::Value>,
}

/// A scalar of the YAML as text (`12` and `"12"` alike); lists and maps are not a value.
fn scalar(v: &Option<serde_norway::Value>) -> Option<String> {
    match v.as_ref()? {
        serde_norway::Value::String(s) => publication::value(s),
        serde_norway::Value::Number(n) => publication::value(&n.to_string()),
        _ => None,
    }
}

impl InfoYaml {
    /// The bibliographic fields: the journal is the container of an article, the booktitle
    /// that of a conference paper or a chapter; a thesis's `school` and a report's
    /// `institution` are one field.
    fn publication(&self) -> Publication {
        let kind = scalar(&self.kind).and_then(|k| WorkType::from_name(&k));
        let journal = scalar(&self.journal)
            .or_else(|| scalar(&self.journaltitle))
            .or_else(|| scalar(&self.container_title));
        let booktitle = scalar(&self.booktitle);
        let container = match kind {
            Some(WorkType::Conference | WorkType::Chapter) => booktitle.or(journal),
            _ => journal.or(booktitle),
        };
        Publication {
            kind: kind.or(match (&container, self.booktitle.is_some()) {
                (Some(_), true) if self.journal.is_none() => Some(WorkType::Conference),
                _ => None,
            }),
            container,
            volume: scalar(&self.volume),
            issue: scalar(&self.number).or_else(|| scalar(&self.issue)),
            pages: scalar(&self.pages),
            publisher: scalar(&self.publisher),
            institution: scalar(&self.school)
                .or_else(|| scalar(&self.institution))
                .or_else(|| scalar(&self.organization)),
            url: scalar(&self.url),
            names: Vec::new(),
            editors: self.editors(),
        }
    }
}

impl InfoYaml {
    /// `editor:` as papis writes it (`Family, Given and Family, Given`, BibTeX's form) or a
    /// list of names; a name without a comma is split at its last word.
    fn editors(&self) -> Vec<NameParts> {
        let names: Vec<String> = match self.editor.as_ref() {
            Some(serde_norway::Value::String(s)) => {
                s.split(" and ").map(|n| n.trim().to_string()).collect()
            }
            Some(serde_norway::Value::Sequence(list)) => list
                .iter()
                .filter_map(|v| v.as_str())
                .map(|n| n.trim().to_string())
                .collect(),
            _ => Vec::new(),
        };
        names
            .iter()
            .filter_map(|n| match n.split_once(',') {
                Some((family, given)) => NameParts::new(family, given),
                None => match n.rsplit_once(' ') {
                    Some((given, family)) => NameParts::new(family, given),
                    None => NameParts::new(n, ""),
                },
            })
            .take(100)
            .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum AuthorEntry {
    Parts {
        given: Option<String>,
        family: Option<String>,
    },
    Plain(String),
}

/// The sidecar's fields, or an error message when it exists but cannot be parsed.
pub fn read_sidecar(pdf: &Path) -> Result<Option<PaperMeta>, String> {
    let Some(dir) = pdf.parent() else {
        return Ok(None);
    };
    let path = dir.join("info.yaml");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("info.yaml: {e}")),
    };
    let info: InfoYaml = serde_norway::from_str(&text).map_err(|e| format!("info.yaml: {e}"))?;
    // The names in parts too, when every author has them (an `author_list` of family and
    // given names, or `Family, Given and …`).
    let mut names: Vec<NameParts> = Vec::new();
    let mut authors: Vec<String> = match &info.author_list {
        Some(list) => list
            .iter()
            .filter_map(|a| match a {
                AuthorEntry::Parts { given, family } => {
                    let name = [given.as_deref(), family.as_deref()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" ");
                    names.extend(NameParts::new(
                        family.as_deref().unwrap_or(""),
                        given.as_deref().unwrap_or(""),
                    ));
                    (!name.trim().is_empty()).then(|| name.trim().to_string())
                }
                AuthorEntry::Plain(s) => Some(s.trim().to_string()),
            })
            .collect(),
        None => Vec::new(),
    };
    if authors.is_empty()
        && let Some(a) = &info.author
    {
        names.clear();
        authors = a
            .split(" and ")
            .map(|s| match s.split_once(',') {
                Some((family, given)) => {
                    names.extend(NameParts::new(family, given));
                    format!("{} {}", given.trim(), family.trim())
                }
                None => s.trim().to_string(),
            })
            .filter(|s| !s.is_empty())
            .collect();
    }
    let year = info.year.as_ref().and_then(|v| match v {
        serde_norway::Value::Number(n) => n.as_i64().map(|y| y as i32),
        serde_norway::Value::String(s) => s.trim().get(..4).and_then(|y| y.parse().ok()),
        _ => None,
    });
    let mut publication = info.publication();
    if names.len() == authors.len() {
        publication.names = names;
    }
    let citation_key = scalar(&info.citation_key);
    Ok(Some(PaperMeta {
        title: clean(info.title.as_deref().unwrap_or("")),
        authors,
        year,
        doi: info.doi.as_deref().and_then(ids::normalize_doi),
        arxiv: info.eprint.as_deref().and_then(ids::normalize_arxiv),
        abstract_text: info
            .abstract_text
            .map(|a| clean(&a))
            .filter(|a| !a.is_empty()),
        title_source: MetaSource::Sidecar,
        publication,
        citation_key,
    }))
}

/// Drops the footnote marks a title carries ("Title∗", "Title*†").
fn strip_marks(s: &str) -> String {
    s.trim_end_matches(|c: char| "∗*†‡§¶ ".contains(c))
        .to_string()
}

fn clean(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Info-dictionary titles that are placeholders or file names, not titles.
fn plausible_info_title(t: &str) -> bool {
    let lower = t.trim().to_lowercase();
    let junk = [
        "no title given",
        "untitled",
        "title",
        "paper title",
        "your title",
        "insert title",
        "microsoft word",
        "powerpoint",
    ];
    lower.chars().filter(|c| c.is_alphabetic()).count() >= 4
        && !lower.contains("<rdf:")
        && !lower.starts_with('<')
        && !junk.iter().any(|j| lower.starts_with(j))
        && ![".dvi", ".tex", ".doc", ".docx", ".pdf", ".ps", ".rtf"]
            .iter()
            .any(|e| lower.ends_with(e))
}

fn plausible_info_author(a: &str) -> bool {
    let lower = a.trim().to_lowercase();
    lower.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && ![
            "no author given",
            "author",
            "unknown",
            "administrator",
            "user",
        ]
        .iter()
        .any(|j| lower == *j || lower.starts_with(j) && lower.len() < j.len() + 3)
}

static HEADER_NOISE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(^(arxiv:|preprint|proceedings|journal|vol\.|volume|submitted|accepted|received|",
        r"published|copyright|©|\(c\)|https?://|www\.|doi|issn|isbn|page \d|\d+$|draft|",
        r"manuscript|to appear|technical report|the \w+ journal))|\bvol(ume|\.)\s*\d|\bno\.\s*\d"
    ))
    .expect("valid regex")
});
static ABSTRACT_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(abstract|a b s t r a c t|summary)\s*[.:—–-]?\s*").expect("valid regex")
});
static SECTION_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*((1|I)\.?\s+introduction|introduction$|keywords|key words|index terms|ccs concepts|acm reference format|contents$|1\s+\p{Lu})").expect("valid regex")
});
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(19[5-9]\d|20[0-4]\d)\b").expect("valid regex"));

fn looks_like_author_line(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.is_empty() || words.len() > 40 {
        return false;
    }
    let caps = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_uppercase()))
        .count();
    let has_sep = line.contains(',') || line.contains(" and ") || line.contains('·');
    let lower = line.to_lowercase();
    let affiliation = [
        "university",
        "institute",
        "department",
        "@",
        "school",
        "laboratory",
        "inc.",
        "college",
        "universit",
    ]
    .iter()
    .any(|k| lower.contains(k));
    !affiliation
        && caps * 10 >= words.len() * 6
        && (has_sep || (2..=4).contains(&words.len()))
        && !line.trim_end().ends_with('.')
}

/// " and " between names, in any case ("FRANK BRETZ, AND ALAN GENZ").
static AND: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\s+and\s+").expect("valid regex"));

/// The names in one metadata field ("Achim Zeileis, Torsten Hothorn", "A B; C D", "A B and C
/// D", "Achim Zeileis† Torsten Hothorn"): split at semicolons, "and" and footnote marks, and at
/// commas only when every piece is a name of two words or more ("Zeileis, Achim" is one name,
/// family first, read as "Achim Zeileis").
fn split_names(field: &str) -> Vec<String> {
    let marked = field.replace(['†', '‡', '∗'], ";");
    let mut out = Vec::new();
    for part in marked.split(';').flat_map(|p| AND.split(p)) {
        let pieces: Vec<&str> = part
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if pieces.len() > 1 && pieces.iter().all(|p| p.split_whitespace().count() >= 2) {
            out.extend(pieces.into_iter().map(clean));
        } else if let [family, given] = pieces[..]
            && family.split_whitespace().count() == 1
        {
            out.push(clean(&format!("{given} {family}")));
        } else {
            out.push(clean(part));
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

fn split_authors(line: &str) -> Vec<String> {
    AND.replace_all(line, ",")
        .replace(['·', ';'], ",")
        .split(',')
        .map(|s| {
            s.trim()
                .trim_end_matches(|c: char| c.is_ascii_digit() || "*†‡§¶∗ ¹²³⁴⁵⁶⁷⁸⁹⁰,".contains(c))
                .trim()
                .to_string()
        })
        .filter(|s| {
            let n = s.split_whitespace().count();
            let honorific = ["Member", "Fellow", "IEEE", "Student"]
                .iter()
                .any(|h| s.split_whitespace().any(|w| w == *h));
            (2..=5).contains(&n) && !honorific && s.chars().next().is_some_and(|c| c.is_uppercase())
        })
        .collect()
}

/// Title, authors and abstract guessed from the first page's text. `title_hint` is the line the
/// extractor found set in the largest font, when it knows.
pub fn from_first_page(text: &str, title_hint: Option<&str>) -> PaperMeta {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut meta = PaperMeta {
        title_source: MetaSource::FirstPage,
        ..Default::default()
    };
    let abstract_at = lines.iter().position(|l| ABSTRACT_HEAD.is_match(l));
    let head_end = abstract_at.unwrap_or(lines.len().min(25));
    let mut title_end = 0;
    // The largest type on the page is the title only when it sits above the abstract (an IEEE
    // drop cap is larger still, but it starts the body).
    let hint_at = title_hint
        .map(clean)
        .filter(|h| h.len() >= 4)
        .and_then(|hint| {
            lines
                .iter()
                .take(head_end.max(1))
                .position(|l| !l.is_empty() && hint.starts_with(&clean(l)))
                .map(|i| (hint, i))
        });
    if let Some((hint, i)) = hint_at {
        meta.title = strip_marks(&hint);
        {
            title_end = i + 1;
            while title_end < head_end
                && hint.contains(&clean(lines[title_end]))
                && !lines[title_end].is_empty()
            {
                title_end += 1;
            }
        }
    } else {
        let mut i = 0;
        while i < head_end && (lines[i].len() < 4 || HEADER_NOISE.is_match(lines[i])) {
            i += 1;
        }
        if i < head_end {
            let mut title = lines[i].to_string();
            let mut j = i + 1;
            // A title continues on the next line unless that line starts the author list.
            while j < head_end
                && j < i + 3
                && !lines[j].is_empty()
                && !looks_like_author_line(lines[j])
                && title.len() < 160
            {
                title.push(' ');
                title.push_str(lines[j]);
                j += 1;
            }
            meta.title = strip_marks(&clean(&title));
            title_end = j;
        }
    }
    for line in lines.iter().take(head_end).skip(title_end).take(8) {
        if line.is_empty() {
            continue;
        }
        if looks_like_author_line(line) && !meta.title.contains(&strip_marks(&clean(line))) {
            meta.authors.extend(split_authors(line));
        } else if !meta.authors.is_empty() {
            break;
        }
    }
    if let Some(start) = abstract_at {
        let first = ABSTRACT_HEAD.replace(lines[start], "").to_string();
        let mut abs = first;
        for line in lines.iter().skip(start + 1) {
            if SECTION_START.is_match(line) || abs.len() > 2500 {
                break;
            }
            if line.is_empty() && abs.len() > 200 {
                break;
            }
            abs.push(' ');
            abs.push_str(line);
        }
        let abs = clean(&abs);
        if abs.len() > 40 {
            meta.abstract_text = Some(abs);
        }
    }
    // The year is printed in the header or in the first page's footer, not in the body; a
    // citation of the paper's published version (its first author's) says it too.
    let own_family = meta
        .authors
        .first()
        .and_then(|a| a.split_whitespace().last())
        .map(str::to_lowercase);
    let year_in = |text: &str| {
        YEAR.captures(&without_cited_years(text, own_family.as_deref()))
            .and_then(|c| c[1].parse().ok())
    };
    // The head as one text: a citation may break over two lines ("(Meyer, Zeileis,\nand Hornik
    // 2006)").
    let head: Vec<&str> = lines.iter().take(head_end.max(10)).copied().collect();
    meta.year = year_in(&head.join("\n")).or_else(|| {
        lines
            .iter()
            .rev()
            .filter(|l| !l.is_empty())
            .take(FOOTER_LINES)
            .find_map(|l| year_in(l))
    });
    meta
}

/// `line` without the years of the works it cites, but for those of a work by `own_family` (the
/// paper's first author: its published version, "Zeileis and Grothendieck (2005) in the Journal
/// of Statistical Software") and a month's ("July 2008,").
fn without_cited_years<'a>(line: &'a str, own_family: Option<&str>) -> std::borrow::Cow<'a, str> {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    CITED_YEAR.replace_all(line, |c: &regex::Captures| {
        // The citation's names: back from the year to the last bracket or semicolon, on its
        // line or the one before.
        let start = c.get(0).map_or(0, |m| m.start());
        let bracket = line[..start].rfind(['(', ')', ';']).map_or(0, |i| i + 1);
        let line_before = line[..start]
            .rmatch_indices('\n')
            .nth(1)
            .map_or(0, |(i, _)| i + 1);
        let names = &line[bracket.max(line_before)..start];
        let own = own_family.is_some_and(|f| {
            format!("{names} {}", &c[1])
                .split(|ch: char| !ch.is_alphabetic())
                .any(|w| w.to_lowercase() == f)
        });
        if MONTHS.contains(&&c[1]) || own {
            c[0].to_string()
        } else {
            String::new()
        }
    })
}

/// A cited work's year in running text: after a name in brackets ("Genz (1992)", "Zeileis et
/// al. (2008a)", "Trivedi (1998, 2005)"), or closing a bracketed citation ("(Lambert 1992)",
/// "(Nelder and Wedderburn 1972; …"). A year after a name and a comma is not one: "ACL 2020,
/// pages 1–10", "Copyright 2021, IEEE" give the paper's own.
static CITED_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(\p{Lu}[\p{L}'’-]+|\bal\.)",
        r"(?:\s*\((?:19|20)\d\d[a-z]?(?:,\s*(?:19|20)\d\d[a-z]?)*[),;]",
        r"|\s+(?:19|20)\d\d[a-z]?(?:,\s*(?:19|20)\d\d[a-z]?)*[);])",
    ))
    .expect("valid regex")
});

/// Merges the sources in order of trust: sidecar, PDF metadata, first page, file name.
pub fn resolve(
    sidecar: Option<PaperMeta>,
    info: &DocInfo,
    pages: &[PageText],
    title_hint: Option<&str>,
    path: &str,
) -> PaperMeta {
    let first_text = pages.first().map(|p| p.text.as_str()).unwrap_or("");
    let first = from_first_page(first_text, title_hint);
    let mut meta = sidecar.unwrap_or_default();
    if meta.title.is_empty() {
        let info_title = info
            .xmp_title
            .as_deref()
            .filter(|t| plausible_info_title(t))
            .or(info.title.as_deref().filter(|t| plausible_info_title(t)));
        if let Some(t) = info_title {
            meta.title = clean(t);
            meta.title_source = MetaSource::PdfInfo;
        } else if !first.title.is_empty() {
            meta.title = first.title.clone();
            meta.title_source = MetaSource::FirstPage;
        } else {
            meta.title = file_title(path);
            meta.title_source = MetaSource::FileName;
        }
    }
    if meta.authors.is_empty() {
        if !info.xmp_authors.is_empty() {
            meta.authors = info
                .xmp_authors
                .iter()
                .flat_map(|a| split_names(a))
                .collect();
        } else if let Some(a) = info.author.as_deref().filter(|a| plausible_info_author(a)) {
            meta.authors = split_names(a);
        } else {
            meta.authors = first.authors.clone();
        }
    }
    if meta.abstract_text.is_none() {
        meta.abstract_text = first.abstract_text.clone();
    }
    if meta.year.is_none() {
        meta.year = first.year;
    }
    // The paper's own identifiers: printed on the first page (a DOI in a template header can be
    // foreign, so the Info/XMP DOI is preferred when present).
    let own = head_and_footer(first_text);
    if meta.doi.is_none() {
        meta.doi = info
            .doi
            .as_deref()
            .and_then(ids::normalize_doi)
            .or_else(|| ids::find_dois(&own).into_iter().next());
    }
    if meta.arxiv.is_none() {
        meta.arxiv = ids::find_arxiv_ids(&own).into_iter().next();
    }
    // A publisher's XMP (PRISM) names the journal, volume, issue and pages; the sidecar's
    // fields come first.
    meta.publication.fill_from(&Publication {
        container: info.publication.as_deref().and_then(publication::value),
        volume: info.volume.as_deref().and_then(publication::value),
        issue: info.issue.as_deref().and_then(publication::value),
        pages: info.pages.as_deref().and_then(publication::value),
        ..Publication::default()
    });
    meta
}

/// Lines at the foot of a first page (journal line, DOI, page number).
const FOOTER_LINES: usize = 4;

/// Where a paper prints its own identifiers: the part of the first page before the body starts
/// and the page's last lines (footers). The body cites other papers' ids, so it is left out.
fn head_and_footer(text: &str) -> String {
    let cut = text
        .find("\n1 Introduction")
        .or_else(|| text.find("Introduction"))
        .unwrap_or(text.len())
        .min(3000);
    let mut end = cut.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let footer: Vec<&str> = text
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(FOOTER_LINES)
        .collect();
    let mut out = text[..end].to_string();
    for line in footer.iter().rev() {
        out.push('\n');
        out.push_str(line);
    }
    out
}

/// A readable title from a path: `papers/attention-is-all/paper.pdf` → "attention is all".
pub fn file_title(path: &str) -> String {
    let p = Path::new(path);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or(path);
    let name = if stem == "paper" {
        p.parent()
            .and_then(|d| d.file_name())
            .and_then(|s| s.to_str())
            .unwrap_or(stem)
    } else {
        stem
    };
    name.replace(['-', '_'], " ")
}

#[cfg(test)]
mod tests;
