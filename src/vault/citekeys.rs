//! Cited papers as a bibliography: one citation key per paper (the reference manager's when the
//! vault has one, else generated as `author2009word`, made unique with `a`, `b`, … in the
//! order the papers come), written as BibTeX (through the biblatex crate) or CSL-JSON (the
//! Citation Style Language's input format, which pandoc, Zotero and citeproc read).

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::meta::{self, PaperMeta};
use super::{Vault, bibtex, uri};

/// One paper of a bibliography.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Vault-relative path of the PDF.
    pub path: String,
    pub key: String,
    pub meta: PaperMeta,
}

/// The papers at `paths` (in that order, each once) with their metadata and unique keys. A
/// paper the index has no record of still gets an entry, titled after its file.
pub fn sources(vault: &Vault, paths: &[String]) -> Vec<Source> {
    let mut seen_paths = BTreeSet::new();
    let mut keys: BTreeSet<String> = BTreeSet::new();
    let mut out: Vec<Source> = Vec::new();
    let given: Vec<(String, Option<String>)> = paths
        .iter()
        .filter(|p| seen_paths.insert(p.as_str()))
        .map(|p| (p.clone(), vault.citation_key(p)))
        .collect();
    // The reference manager's keys are the user's: they are kept as they are, and generated
    // keys step around them.
    keys.extend(given.iter().filter_map(|(_, k)| k.clone()));
    for (path, managed) in given {
        let meta = vault
            .record_for(&path)
            .map(|r| r.meta)
            .unwrap_or_else(|| PaperMeta {
                title: meta::file_title(&path),
                ..PaperMeta::default()
            });
        let key = match managed {
            Some(k) => k,
            None => unique(&bibtex::key(&meta), &mut keys),
        };
        out.push(Source { path, key, meta });
    }
    out
}

/// `base`, or `base` + `a`, `b`, … `z`, `aa`, … when it is taken; the key is then taken.
fn unique(base: &str, taken: &mut BTreeSet<String>) -> String {
    let mut key = base.to_string();
    let mut n = 0usize;
    while taken.contains(&key) {
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

/// The CSL-JSON of `sources`: an array of items, `id` and `citation-key` the key.
pub fn csl_json(sources: &[Source]) -> Value {
    let items = sources.iter().map(|s| {
        let m = &s.meta;
        let mut v = Map::new();
        v.insert("id".into(), json!(s.key));
        v.insert("citation-key".into(), json!(s.key));
        let kind = if m.doi.is_some() {
            "article-journal"
        } else {
            "article"
        };
        v.insert("type".into(), json!(kind));
        let title = m.title.split_whitespace().collect::<Vec<_>>().join(" ");
        if !title.is_empty() {
            v.insert("title".into(), json!(title));
        }
        let authors: Vec<Value> = m
            .authors
            .iter()
            .filter(|a| !a.trim().is_empty())
            .map(|a| csl_name(a))
            .collect();
        if !authors.is_empty() {
            v.insert("author".into(), Value::Array(authors));
        }
        if let Some(y) = m.year {
            v.insert("issued".into(), json!({"date-parts": [[y]]}));
        }
        if let Some(doi) = &m.doi {
            v.insert("DOI".into(), json!(doi));
            v.insert("URL".into(), json!(uri::doi_uri(doi)));
        }
        if let Some(id) = &m.arxiv {
            v.insert("archive".into(), json!("arXiv"));
            v.insert("number".into(), json!(id));
            if m.doi.is_none() {
                v.insert("URL".into(), json!(uri::arxiv_uri(id)));
            }
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
        assert_eq!(unique("smith2009word", &mut taken), "smith2009word");
        assert_eq!(unique("smith2009word", &mut taken), "smith2009worda");
        assert_eq!(unique("smith2009word", &mut taken), "smith2009wordb");
        taken.insert("kept".to_string());
        assert_eq!(unique("kept", &mut taken), "kepta");
        assert_eq!(suffix(25), "z");
        assert_eq!(suffix(26), "aa");
        assert_eq!(suffix(27), "ab");
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
    }
}
