//! Cited papers as a bibliography: one citation key per paper (the reference manager's when the
//! vault has one and it is of BibTeX's key alphabet, else generated as `author2009word`), every
//! key unique within one bibliography (`a`, `b`, … appended in the order the papers come),
//! written as BibTeX (through the biblatex crate and [`output::bibtex`](super::output::bibtex))
//! or CSL-JSON (the Citation Style Language's input format, which pandoc, Zotero and citeproc
//! read; written through [`output::to_json_pretty`](super::output::to_json_pretty)).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::meta::{self, PaperMeta};
use super::output::bibtex::key_ok;
use super::publication::{self, NameParts, WorkType};
use super::{Vault, bibtex, uri};

/// One paper of a bibliography.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Vault-relative path of the PDF.
    pub path: String,
    pub key: String,
    pub meta: PaperMeta,
}

/// A bibliography's papers, and what was changed on the way (for the user to read).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bibliography {
    pub sources: Vec<Source>,
    /// One line per managed key that could not be written as it is.
    pub warnings: Vec<String>,
}

/// The papers at `paths` (in that order, each once) with their metadata and unique keys. A
/// paper the index has no record of still gets an entry, titled after its file.
pub fn sources(vault: &Vault, paths: &[String]) -> Vec<Source> {
    bibliography(vault, paths).sources
}

/// [`sources`], with a warning for each managed key replaced: one outside BibTeX's alphabet
/// (the generated key stands instead) or one a paper before it already has (a suffix is added).
pub fn bibliography(vault: &Vault, paths: &[String]) -> Bibliography {
    let mut seen_paths = BTreeSet::new();
    let papers: Vec<(String, Option<String>, PaperMeta)> = paths
        .iter()
        .filter(|p| seen_paths.insert(p.as_str()))
        .map(|p| {
            let zotero = vault.zotero().and_then(|z| z.item(p));
            let meta = vault
                .record_for(p)
                .map(|r| r.meta)
                .or_else(|| vault.zotero()?.meta(p))
                .unwrap_or_else(|| PaperMeta {
                    title: meta::file_title(p),
                    ..PaperMeta::default()
                });
            // Zotero's key as the library has it now, else the one the index read (papis's
            // `ref`, or Zotero's at the last run).
            let key = zotero
                .and_then(|z| z.citation_key)
                .or_else(|| meta.citation_key.clone());
            (p.clone(), key, meta)
        })
        .collect();
    assign(papers)
}

/// The citation key of one paper on its own: its reference manager's when there is one of
/// BibTeX's key alphabet, else the generated one. (In a bibliography a key two papers share
/// gets a suffix, see [`assign`].) What `context_read`'s metadata and search cards show.
pub fn key_of(meta: &PaperMeta) -> String {
    match &meta.citation_key {
        Some(k) if key_ok(k) => k.clone(),
        _ => bibtex::key(meta),
    }
}

/// The bibliography of `papers` (path, the reference manager's key if any, metadata), in
/// their order: what [`bibliography`] does once it has read them from the vault.
pub fn assign(papers: Vec<(String, Option<String>, PaperMeta)>) -> Bibliography {
    let mut warnings = Vec::new();
    // The reference manager's keys are the user's: each is kept for the first paper that has
    // it, and generated keys step around them.
    let mut reserved: BTreeSet<String> = BTreeSet::new();
    let mut managed: Vec<Option<String>> = Vec::with_capacity(papers.len());
    for (path, key, _) in &papers {
        managed.push(match key {
            Some(k) if key_ok(k) => Some(k.clone()),
            Some(k) => {
                warnings.push(format!(
                    "{path}: the citation key {k:?} is not a BibTeX key (letters, digits and -_:./+, at most {} characters); the generated key is used",
                    super::output::bibtex::MAX_KEY_CHARS
                ));
                None
            }
            None => None,
        });
    }
    reserved.extend(managed.iter().flatten().cloned());
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut sources = Vec::with_capacity(papers.len());
    for ((path, _, meta), managed) in papers.into_iter().zip(managed) {
        let key = match managed {
            Some(k) if taken.insert(k.clone()) => k,
            Some(k) => {
                let key = unique(&k, &mut taken, &reserved);
                warnings.push(format!(
                    "{path}: the citation key {k:?} is another paper's too; written as {key:?}"
                ));
                key
            }
            None => unique(&bibtex::key(&meta), &mut taken, &reserved),
        };
        sources.push(Source { path, key, meta });
    }
    Bibliography { sources, warnings }
}

/// `base`, or `base` + `a`, `b`, … `z`, `aa`, … when it is taken (or reserved for a managed
/// key of a later paper); the key is then taken.
fn unique(base: &str, taken: &mut BTreeSet<String>, reserved: &BTreeSet<String>) -> String {
    let mut key = base.to_string();
    let mut n = 0usize;
    while taken.contains(&key) || reserved.contains(&key) {
        key = format!("{base}{}", suffix(n));
        n += 1;
    }
    taken.insert(key.clone());
    key
}

/// 0 → a, 25 → z, 26 → aa.
fn suffix(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// The BibTeX of `sources`, one entry each, separated by blank lines.
pub fn bibtex(sources: &[Source]) -> String {
    let mut out = String::new();
    for s in sources {
        out.push_str(&bibtex::entry_with_key(&s.meta, &s.key));
        out.push_str("\n\n");
    }
    out
}

/// A name as CSL: `{family, given}` when it splits ("Vaswani, Ashish" or "Ashish Vaswani"),
/// else `{literal}` (an organisation, a single name).
fn csl_name(author: &str) -> Value {
    let author = author.split_whitespace().collect::<Vec<_>>().join(" ");
    let family = bibtex::family_name(&author).to_string();
    let given = match author.split_once(',') {
        Some((_, g)) => g.trim().to_string(),
        None => author
            .strip_suffix(family.as_str())
            .unwrap_or("")
            .trim()
            .to_string(),
    };
    if family.is_empty() || given.is_empty() {
        json!({"literal": author})
    } else {
        json!({"family": family, "given": given})
    }
}

/// A name given in parts as CSL: `{family, given}`, or `{literal}` for a family name alone (an
/// organisation).
fn csl_parts(n: &NameParts) -> Value {
    if n.given.is_empty() {
        json!({"literal": n.family})
    } else {
        json!({"family": n.family, "given": n.given})
    }
}

/// The CSL-JSON of `sources`: an array of items, `id` and `citation-key` the key, the type of
/// work (`article-journal`, `paper-conference`, `book`, `chapter`, `thesis`, `report`,
/// `article` for a preprint, `document` otherwise) and where it appeared.
pub fn csl_json(sources: &[Source]) -> Value {
    let items = sources.iter().map(|s| {
        let m = &s.meta;
        let p = &m.publication;
        let mut v = Map::new();
        v.insert("id".into(), json!(s.key));
        v.insert("citation-key".into(), json!(s.key));
        let kind = p.kind_or_guess(m.doi.is_some(), m.arxiv.is_some());
        v.insert("type".into(), json!(kind.csl()));
        if let Some(genre) = kind.thesis_genre() {
            v.insert("genre".into(), json!(genre));
        }
        let title = m.title.split_whitespace().collect::<Vec<_>>().join(" ");
        if !title.is_empty() {
            v.insert("title".into(), json!(title));
        }
        let authors: Vec<Value> = match p.names_of(m.authors.len()) {
            Some(parts) => parts.iter().map(csl_parts).collect(),
            None => m
                .authors
                .iter()
                .filter(|a| !a.trim().is_empty())
                .map(|a| csl_name(a))
                .collect(),
        };
        if !authors.is_empty() {
            v.insert("author".into(), Value::Array(authors));
        }
        if !p.editors.is_empty() {
            let editors: Vec<Value> = p.editors.iter().map(csl_parts).collect();
            v.insert("editor".into(), Value::Array(editors));
        }
        if let Some(y) = m.year {
            v.insert("issued".into(), json!({"date-parts": [[y]]}));
        }
        let mut put = |field: &str, value: &Option<String>| {
            if let Some(x) = value {
                v.insert(field.into(), json!(x));
            }
        };
        put("container-title", &p.container);
        put("volume", &p.volume);
        put(
            if kind == WorkType::Report {
                "number"
            } else {
                "issue"
            },
            &p.issue,
        );
        put("page", &p.pages.as_deref().map(publication::csl_pages));
        // CSL names a thesis's university and a report's institution `publisher`.
        let publisher = match kind {
            WorkType::PhdThesis | WorkType::MastersThesis | WorkType::Report => {
                p.institution.clone().or_else(|| p.publisher.clone())
            }
            _ => p.publisher.clone(),
        };
        put("publisher", &publisher);
        put("URL", &p.url);
        if let Some(doi) = &m.doi {
            v.insert("DOI".into(), json!(doi));
            v.entry("URL").or_insert_with(|| json!(uri::doi_uri(doi)));
        }
        if let Some(id) = &m.arxiv {
            v.insert("archive".into(), json!("arXiv"));
            v.entry("number").or_insert_with(|| json!(id));
            v.entry("URL").or_insert_with(|| json!(uri::arxiv_uri(id)));
        }
        if let Some(ab) = m.abstract_text.as_deref().filter(|a| !a.trim().is_empty()) {
            v.insert("abstract".into(), json!(ab.trim()));
        }
        v.insert("source".into(), json!(s.path));
        Value::Object(v)
    });
    Value::Array(items.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_made_unique_in_order() {
        let mut taken = BTreeSet::new();
        let none = BTreeSet::new();
        assert_eq!(unique("smith2009word", &mut taken, &none), "smith2009word");
        assert_eq!(unique("smith2009word", &mut taken, &none), "smith2009worda");
        assert_eq!(unique("smith2009word", &mut taken, &none), "smith2009wordb");
        taken.insert("kept".to_string());
        assert_eq!(unique("kept", &mut taken, &none), "kepta");
        let reserved = BTreeSet::from(["later".to_string(), "latera".to_string()]);
        assert_eq!(unique("later", &mut taken, &reserved), "laterb");
        assert_eq!(suffix(25), "z");
        assert_eq!(suffix(26), "aa");
        assert_eq!(suffix(27), "ab");
    }

    fn paper(path: &str, key: Option<&str>, title: &str) -> (String, Option<String>, PaperMeta) {
        let meta = PaperMeta {
            title: title.into(),
            authors: vec!["Gal, Yarin".into()],
            year: Some(2009),
            ..PaperMeta::default()
        };
        (path.into(), key.map(str::to_string), meta)
    }

    #[test]
    fn managed_keys_are_checked_and_made_unique() {
        let hostile = "gal2009,\n  title = {PWNED}}\n@misc{pwn";
        let b = assign(vec![
            paper("a.pdf", Some(hostile), "Dropout as inference"),
            paper("b.pdf", Some("same2020"), "One"),
            paper("c.pdf", Some("same2020"), "Two"),
            paper("d.pdf", None, "Dropout again"),
            paper("e.pdf", Some("gal2009dropouta"), "Kept"),
        ]);
        let keys: Vec<&str> = b.sources.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "gal2009dropout",
                "same2020",
                "same2020a",
                "gal2009dropoutb",
                "gal2009dropouta"
            ]
        );
        assert_eq!(b.warnings.len(), 2, "{:?}", b.warnings);
        assert!(
            b.warnings[0].starts_with("a.pdf: the citation key"),
            "{:?}",
            b.warnings
        );
        assert!(b.warnings[1].contains("\"same2020a\""), "{:?}", b.warnings);
        let bib = bibtex(&b.sources);
        let parsed = biblatex::Bibliography::parse(&bib).unwrap();
        assert_eq!(parsed.len(), 5, "{bib}");
        assert!(!bib.contains("PWNED"), "{bib}");
    }

    #[test]
    fn names_split_into_family_and_given() {
        assert_eq!(
            csl_name("Vaswani, Ashish"),
            json!({"family": "Vaswani", "given": "Ashish"})
        );
        assert_eq!(
            csl_name("Erwin  Schrödinger"),
            json!({"family": "Schrödinger", "given": "Erwin"})
        );
        assert_eq!(csl_name("OpenAI"), json!({"literal": "OpenAI"}));
        assert_eq!(
            csl_parts(&NameParts::new("García Márquez", "Gabriel").unwrap()),
            json!({"family": "García Márquez", "given": "Gabriel"})
        );
        assert_eq!(
            csl_parts(&NameParts::new("World Health Organization", "").unwrap()),
            json!({"literal": "World Health Organization"})
        );
    }

    #[test]
    fn the_managed_key_is_the_papers_key_when_it_is_one() {
        let mut m = PaperMeta {
            title: "Işık".into(),
            authors: vec!["Yıldız, Ayşe".into()],
            year: Some(2020),
            citation_key: Some("Yildiz:2020".into()),
            ..PaperMeta::default()
        };
        assert_eq!(key_of(&m), "Yildiz:2020");
        m.citation_key = Some("bad key}".into());
        assert_eq!(key_of(&m), "yildiz2020isik");
        m.citation_key = None;
        assert_eq!(key_of(&m), "yildiz2020isik");
    }

    #[test]
    fn csl_items_carry_their_type_and_container() {
        let m = PaperMeta {
            title: "Tables".into(),
            authors: vec!["de Vries, Ilse".into()],
            year: Some(2019),
            publication: crate::vault::publication::Publication {
                kind: Some(WorkType::MastersThesis),
                institution: Some("TU Delft".into()),
                pages: Some("1–20".into()),
                ..Default::default()
            },
            ..PaperMeta::default()
        };
        let csl = csl_json(&[Source {
            path: "a.pdf".into(),
            key: "k".into(),
            meta: m,
        }]);
        let item = &csl[0];
        assert_eq!(item["type"], "thesis");
        assert_eq!(item["genre"], "Master's thesis");
        assert_eq!(item["publisher"], "TU Delft");
        assert_eq!(item["page"], "1-20");
    }
}
