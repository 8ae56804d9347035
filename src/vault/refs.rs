//! A paper's reference list: the citation sidecar (`references.json` or `references.bib`) when
//! present, else the PDF's reference section parsed into entries.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::ids;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub raw: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefSource {
    SidecarJson,
    SidecarBib,
    #[default]
    Extracted,
}

/// Reads the citation sidecar beside `pdf`. `Ok(None)` when there is none.
pub fn read_sidecar(pdf: &Path) -> Result<Option<(RefSource, Vec<Reference>)>, String> {
    let Some(dir) = pdf.parent() else {
        return Ok(None);
    };
    match std::fs::read_to_string(dir.join("references.json")) {
        Ok(text) => return parse_json(&text).map(|r| Some((RefSource::SidecarJson, r))),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("references.json: {e}"));
        }
        Err(_) => {}
    }
    match std::fs::read_to_string(dir.join("references.bib")) {
        Ok(text) => Ok(Some((RefSource::SidecarBib, parse_bib(&text)))),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("references.bib: {e}")),
        Err(_) => Ok(None),
    }
}

#[derive(Deserialize)]
struct JsonRef {
    raw: Option<String>,
    title: Option<String>,
    #[serde(default, alias = "author")]
    authors: AuthorsField,
    year: Option<serde_json::Value>,
    doi: Option<String>,
    #[serde(alias = "eprint")]
    arxiv: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum AuthorsField {
    List(Vec<String>),
    One(String),
    #[default]
    None,
}

fn parse_json(text: &str) -> Result<Vec<Reference>, String> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Doc {
        List(Vec<JsonRef>),
        Wrapped { references: Vec<JsonRef> },
    }
    let doc: Doc = serde_json::from_str(text).map_err(|e| format!("references.json: {e}"))?;
    let list = match doc {
        Doc::List(l) => l,
        Doc::Wrapped { references } => references,
    };
    Ok(list
        .into_iter()
        .map(|r| {
            let authors = match r.authors {
                AuthorsField::List(l) => l,
                AuthorsField::One(s) => s.split(" and ").map(|a| a.trim().to_string()).collect(),
                AuthorsField::None => Vec::new(),
            };
            let year = r.year.and_then(|y| match y {
                serde_json::Value::Number(n) => n.as_i64().map(|v| v as i32),
                serde_json::Value::String(s) => s.get(..4).and_then(|v| v.parse().ok()),
                _ => None,
            });
            let raw = r.raw.unwrap_or_else(|| {
                let mut parts = Vec::new();
                if !authors.is_empty() {
                    parts.push(authors.join(", "));
                }
                if let Some(t) = &r.title {
                    parts.push(t.clone());
                }
                if let Some(y) = year {
                    parts.push(y.to_string());
                }
                parts.join(". ")
            });
            Reference {
                raw,
                title: r.title,
                authors,
                year,
                doi: r.doi.as_deref().and_then(ids::normalize_doi),
                arxiv: r.arxiv.as_deref().and_then(ids::normalize_arxiv),
            }
        })
        .collect())
}

/// A BibTeX sidecar read with the `biblatex` crate (TeX accents such as `Schr{\"o}dinger`
/// become Unicode, `@string` abbreviations are expanded). Entries delimited by `(…)`, which the
/// crate does not read, are rewritten as `{…}` first; a file the crate refuses as a whole (one
/// broken entry, a repeated key) is read entry by entry so that the good ones are kept.
pub fn parse_bib(text: &str) -> Vec<Reference> {
    parse_bib_keyed(text).into_iter().map(|(_, r)| r).collect()
}

/// [`parse_bib`], each reference with its citation key (a manuscript's `refs.bib`).
pub fn parse_bib_keyed(text: &str) -> Vec<(String, Reference)> {
    let keyed = |e: &biblatex::Entry| (e.key.clone(), reference_of(e));
    let entries = bib_entries(text);
    let strings: String = entries
        .iter()
        .filter(|e| e.kind == "string")
        .map(|e| e.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let records: Vec<&BibEntry> = entries
        .iter()
        .filter(|e| !matches!(e.kind.as_str(), "string" | "comment" | "preamble"))
        .collect();
    let whole: String = std::iter::once(strings.as_str())
        .chain(records.iter().map(|e| e.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    if let Ok(bib) = biblatex::Bibliography::parse(&whole) {
        return bib.iter().map(keyed).collect();
    }
    records
        .iter()
        .filter_map(|e| {
            match biblatex::Bibliography::parse(&format!("{strings}\n{}", e.text)) {
                Ok(bib) => bib.iter().next().map(keyed),
                Err(err) => {
                    tracing::warn!(entry = %e.text.chars().take(60).collect::<String>(), error = ?err.kind, "skipped a BibTeX entry");
                    None
                }
            }
        })
        .collect()
}

/// A CSL-JSON bibliography (pandoc's `.json` bibliography, what Zotero and agentero export):
/// each item's `id` with its reference (title, authors, year, DOI, and an arXiv id from its DOI,
/// URL or `number`). Items without an `id` are skipped; a file that is not a CSL-JSON array is
/// refused with the reason.
pub fn parse_csl_keyed(text: &str) -> Result<Vec<(String, Reference)>, String> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| format!("not a CSL-JSON array: {e}"))?;
    let s = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(str::to_string)
    };
    Ok(items
        .iter()
        .filter_map(|item| {
            let id = s(item, "id").or_else(|| item.get("id")?.as_i64().map(|n| n.to_string()))?;
            let title = s(item, "title");
            let authors: Vec<String> = item
                .get("author")
                .and_then(|a| a.as_array())
                .map(|list| {
                    list.iter()
                        .filter_map(|a| {
                            let family = s(a, "family").or_else(|| s(a, "literal"))?;
                            Some(match s(a, "given") {
                                Some(g) => format!("{g} {family}"),
                                None => family,
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let year = item
                .get("issued")
                .and_then(|i| i.get("date-parts"))
                .and_then(|d| d.get(0)?.get(0)?.as_i64())
                .map(|y| y as i32);
            let doi = s(item, "DOI").and_then(|d| ids::normalize_doi(&d));
            let arxiv = ["number", "URL", "DOI"]
                .iter()
                .filter_map(|k| s(item, k))
                .find_map(|v| ids::normalize_arxiv(&v));
            let raw = [authors.join(", "), title.clone().unwrap_or_default()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(". ");
            Some((
                id,
                Reference {
                    raw,
                    title,
                    authors,
                    year,
                    doi,
                    arxiv,
                },
            ))
        })
        .collect())
}

/// One top-level `@type{…}` or `@type(…)` of a .bib file, rewritten with braces.
struct BibEntry {
    kind: String,
    text: String,
}

/// The top-level entries of a .bib file. A `{`-delimited entry ends at its matching brace; a
/// `(`-delimited one at the first `)` outside braces (values may hold parentheses).
fn bib_entries(text: &str) -> Vec<BibEntry> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let after = &rest[at + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len());
        let kind = after[..name_len].to_ascii_lowercase();
        let tail = after[name_len..].trim_start();
        let open = tail.chars().next();
        if kind.is_empty() || !matches!(open, Some('{' | '(')) {
            rest = after;
            continue;
        }
        let body = &tail[1..];
        let close = if open == Some('{') { '}' } else { ')' };
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 && close == '}' => {
                    end = Some(i);
                    break;
                }
                '}' => depth = depth.saturating_sub(1),
                ')' if depth == 0 && close == ')' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        // An entry cut off at the end of the file: what is there is read, closed.
        let end = end.unwrap_or(body.len());
        out.push(BibEntry {
            text: format!("@{kind}{{{}}}", &body[..end]),
            kind,
        });
        rest = body.get(end + 1..).unwrap_or("");
    }
    out
}

fn reference_of(e: &biblatex::Entry) -> Reference {
    use biblatex::ChunksExt;
    let get = |k: &str| {
        e.fields
            .get(k)
            .map(|c| c.format_verbatim())
            .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|v| !v.is_empty())
    };
    let title = get("title");
    let authors: Vec<String> = e
        .author()
        .map(|people| {
            people
                .iter()
                .map(|p| {
                    [&p.given_name, &p.prefix, &p.name, &p.suffix]
                        .into_iter()
                        .filter(|s| !s.is_empty())
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let year = get("year")
        .or_else(|| get("date"))
        .and_then(|y| y.get(..4).and_then(|v| v.parse::<i32>().ok()));
    let doi = get("doi").as_deref().and_then(ids::normalize_doi);
    let arxiv = get("eprint")
        .as_deref()
        .and_then(ids::normalize_arxiv)
        .or_else(|| get("arxiv").as_deref().and_then(ids::normalize_arxiv));
    let venue = get("journal")
        .or_else(|| get("journaltitle"))
        .or_else(|| get("booktitle"));
    let mut raw = Vec::new();
    if !authors.is_empty() {
        raw.push(authors.join(", "));
    }
    if let Some(t) = &title {
        raw.push(t.clone());
    }
    if let Some(v) = venue {
        raw.push(v);
    }
    if let Some(y) = year {
        raw.push(y.to_string());
    }
    Reference {
        raw: raw.join(". "),
        title,
        authors,
        year,
        doi,
        arxiv,
    }
}

static HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:\d+\.?\s+|[IVX]+\.\s+)?(references|r\s?eferences|bibliography|literature cited|references and notes|works cited)\s*$")
        .expect("valid regex")
});
/// Words every [`HEADING`] holds (under the same case folding): a page without any of them has
/// no heading, and this plain search skips it far faster than the heading's anchored one.
static HEADING_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)eferences|bibliography|literature cited|works cited").expect("valid regex")
});
static BRACKET_NUM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\[(\d{1,3}|[A-Za-z+]{2,8}\d{2,4}[a-z]?)\]\s*").expect("valid regex")
});
static DOT_NUM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d{1,3})\.\s+\S").expect("valid regex"));
static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[“"]([^”"]{10,300}?)[,.]?[”"]"#).expect("valid regex"));
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(19[5-9]\d|20[0-4]\d)[a-z]?\b").expect("valid regex"));
static END_SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(appendix|appendices|supplementary material|[A-Z]\s+(proof|additional|appendix)\b)").expect("valid regex")
});

/// Where a paper's reference list starts: the page (0-based index in `pages`) and the byte
/// offset after the last "References" (or "Bibliography", …) heading of the document.
pub fn list_start(pages: &[&str]) -> Option<(usize, usize)> {
    // The last page with a heading holds it: read from the end (the list is near it).
    pages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, text)| HEADING_WORDS.is_match(text))
        .find_map(|(p, text)| HEADING.find_iter(text).last().map(|m| (p, m.end())))
}

/// A line that ends the reference list (an appendix after it).
pub fn ends_list(line: &str) -> bool {
    END_SECTION.is_match(line)
}

/// The reference list of a paper from its page texts (pages in order).
pub fn extract_from_text(pages: &[&str]) -> Vec<Reference> {
    // The last "References" heading in the document starts the list.
    let Some((page, offset)) = list_start(pages) else {
        return Vec::new();
    };
    let mut lines: Vec<&str> = Vec::new();
    'pages: for (p, text) in pages.iter().enumerate().skip(page) {
        let body = if p == page { &text[offset..] } else { text };
        for line in body.lines() {
            if ends_list(line) {
                break 'pages;
            }
            lines.push(line);
        }
    }
    split_entries(&lines)
        .into_iter()
        .filter(|e| e.len() >= 15)
        .take(1000)
        .map(|raw| parse_entry(&raw))
        .collect()
}

fn split_entries(lines: &[&str]) -> Vec<String> {
    let bracketed = lines.iter().filter(|l| BRACKET_NUM.is_match(l)).count();
    let dotted = lines.iter().filter(|l| DOT_NUM.is_match(l)).count();
    let mut entries: Vec<String> = Vec::new();
    let starts_entry = |line: &str| -> bool {
        if bracketed >= 2 {
            BRACKET_NUM.is_match(line)
        } else if dotted >= 2 {
            DOT_NUM.is_match(line)
        } else {
            false
        }
    };
    let by_marker = bracketed >= 2 || dotted >= 2;
    let mut blank_before = true;
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            blank_before = true;
            continue;
        }
        let new_entry = if by_marker {
            starts_entry(t)
        } else {
            blank_before
        };
        if new_entry || entries.is_empty() {
            entries.push(t.to_string());
        } else if let Some(last) = entries.last_mut() {
            if last.ends_with('-') && t.chars().next().is_some_and(|c| c.is_lowercase()) {
                last.pop();
            } else {
                last.push(' ');
            }
            last.push_str(t);
        }
        blank_before = false;
    }
    entries
        .into_iter()
        .map(|e| {
            let e = BRACKET_NUM.replace(&e, "").to_string();
            let e = if by_marker && bracketed < 2 {
                e.trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start_matches('.')
                    .trim()
                    .to_string()
            } else {
                e
            };
            e.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// One entry's text as a [`Reference`]: its title, year, DOI and arXiv id as far as they can
/// be told.
pub fn parse_entry(raw: &str) -> Reference {
    let title = QUOTED
        .captures(raw)
        .map(|c| c[1].trim().trim_end_matches(',').to_string())
        .or_else(|| guess_title(raw));
    Reference {
        raw: raw.to_string(),
        title,
        authors: Vec::new(),
        year: YEAR.captures(raw).and_then(|c| c[1].parse().ok()),
        doi: ids::find_dois(raw).into_iter().next(),
        arxiv: ids::find_arxiv_ids(raw).into_iter().next(),
    }
}

/// "Authors. Title. Venue, year." — the title is the segment after the author list.
fn guess_title(raw: &str) -> Option<String> {
    // Split on ". " but not after initials ("A. B. Smith").
    let mut segments = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = raw.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        cur.push(c);
        if c == '.' && chars.get(k + 1) == Some(&' ') {
            let word: String = cur
                .trim_end_matches('.')
                .rsplit(' ')
                .next()
                .unwrap_or("")
                .to_string();
            let initial =
                word.chars().count() <= 2 && word.chars().next().is_some_and(|c| c.is_uppercase());
            if !initial {
                segments.push(cur.trim().to_string());
                cur.clear();
            }
        }
    }
    if !cur.trim().is_empty() {
        segments.push(cur.trim().to_string());
    }
    let mut idx = 1;
    // Author-year styles put "(2020)." after the authors.
    if segments.len() > 2 && YEAR.is_match(&segments[1]) && segments[1].len() < 12 {
        idx = 2;
    }
    let candidate = segments.get(idx)?.trim_end_matches('.').trim();
    let candidate = YEAR
        .replace(candidate, "")
        .trim()
        .trim_start_matches(['(', ')', ' '])
        .to_string();
    let words = candidate.split_whitespace().count();
    (3..=40).contains(&words).then_some(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_heading_holds_a_heading_word() {
        // The page filter must never hide a heading: each form, in each case, numbered or not.
        let phrases = [
            "references",
            "r eferences",
            "bibliography",
            "literature cited",
            "references and notes",
            "works cited",
        ];
        for phrase in phrases {
            for word in [
                phrase.to_string(),
                phrase.to_uppercase(),
                phrase
                    .split(' ')
                    .map(|w| w[..1].to_uppercase() + &w[1..])
                    .collect::<Vec<_>>()
                    .join(" "),
            ] {
                for line in [word.clone(), format!("7 {word}"), format!("  IV. {word}  ")] {
                    let page = format!("Text before.\n{line}\n[1] A. Author. A title. 2020.\n");
                    assert!(HEADING.is_match(&page), "{line:?}");
                    assert!(HEADING_WORDS.is_match(&page), "{line:?}");
                    assert_eq!(
                        list_start(&["No heading here.", &page]).map(|(p, _)| p),
                        Some(1),
                        "{line:?}"
                    );
                }
            }
        }
        assert_eq!(list_start(&["Referenced in the text.\n[1] x"]), None);
    }

    #[test]
    fn numbered_list_from_text() {
        let page = "5 Conclusion\nDone.\nReferences\n[1] A. Vaswani, N. Shazeer. Attention is all you\nneed. In NeurIPS, 2017. arXiv:1706.03762\n[2] B. Smith. “Reading order in PDFs,” J. Doc. Eng., 2020. doi:10.5555/agentero.2020.0001\n";
        let refs = extract_from_text(&[page]);
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].arxiv.as_deref(), Some("1706.03762"));
        assert_eq!(refs[0].title.as_deref(), Some("Attention is all you need"));
        assert_eq!(refs[0].year, Some(2017));
        assert_eq!(refs[1].title.as_deref(), Some("Reading order in PDFs"));
        assert_eq!(refs[1].doi.as_deref(), Some("10.5555/agentero.2020.0001"));
    }

    #[test]
    fn bibtex_sidecar() {
        let bib = "@article{a, title={{Dense} Retrieval}, author={Doe, Jane and Roe, R.}, year=2021, doi={10.1234/ABC}}\n@misc{b, title=\"X y z\", eprint = {2101.00001}}";
        let refs = parse_bib(bib);
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].title.as_deref(), Some("Dense Retrieval"));
        assert_eq!(refs[0].authors, vec!["Jane Doe", "R. Roe"]);
        assert_eq!(refs[0].doi.as_deref(), Some("10.1234/abc"));
        assert_eq!(refs[1].arxiv.as_deref(), Some("2101.00001"));
    }

    /// `(`-delimited entries (their values may hold parentheses), TeX accents and `@string`.
    #[test]
    fn bibtex_parens_accents_and_strings() {
        let bib = "@string{prl = \"Physical Review Letters\"}\n\
                   @article(schr26, title = {Quantisierung als Eigenwertproblem (Erste Mitteilung)},\n\
                     author = {Schr{\\\"o}dinger, Erwin}, journal = prl, year = 1926)\n\
                   @misc{after, title = {Still read}, author = {G{\\'e}rard Debreu}}";
        let refs = parse_bib(bib);
        assert_eq!(refs.len(), 2, "{refs:?}");
        assert_eq!(
            refs[0].title.as_deref(),
            Some("Quantisierung als Eigenwertproblem (Erste Mitteilung)")
        );
        assert_eq!(refs[0].authors, vec!["Erwin Schrödinger"]);
        assert_eq!(refs[0].year, Some(1926));
        assert!(
            refs[0].raw.contains("Physical Review Letters"),
            "{}",
            refs[0].raw
        );
        assert_eq!(refs[1].title.as_deref(), Some("Still read"));
        assert_eq!(refs[1].authors, vec!["Gérard Debreu"]);
    }

    /// One broken entry or a repeated key loses only itself.
    #[test]
    fn bibtex_bad_entries_lose_only_themselves() {
        let bib = "@article{a, title = {First}}\n@article{a, title = {Again}}\n\
                   @article{b title = {No comma after the key}}\n@book{c, title = {Third}}";
        let titles: Vec<String> = parse_bib(bib).into_iter().filter_map(|r| r.title).collect();
        assert!(titles.contains(&"First".to_string()), "{titles:?}");
        assert!(titles.contains(&"Third".to_string()), "{titles:?}");
    }

    #[test]
    fn json_sidecar() {
        let refs =
            parse_json(r#"[{"title":"T one two","authors":["A B"],"year":2020,"doi":"10.1/x"}]"#)
                .unwrap();
        assert_eq!(refs[0].raw, "A B. T one two. 2020");
        assert!(parse_json("{oops").is_err());
    }
}
