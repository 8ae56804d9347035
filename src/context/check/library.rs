//! Which paper of the vault a manuscript's citation names: by citation key (the reference
//! manager's, or the key agentero generates and exports), through the manuscript's own `.bib`
//! (its entries matched to papers by DOI, arXiv id or title), or by first author and year.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use unicode_normalization::UnicodeNormalization;

use super::draft::Key;
use crate::vault::catalog::Status;
use crate::vault::extract::PaperRecord;
use crate::vault::meta::PaperMeta;
use crate::vault::refs::{self, Reference};
use crate::vault::scan::EntryKind;
use crate::vault::{Vault, bibtex, citekeys};

/// A paper of the vault, as the checker knows it.
#[derive(Debug, Clone)]
pub struct Paper {
    pub path: String,
    pub meta: PaperMeta,
    /// Its key in a bibliography of the whole vault.
    pub key: String,
    pub record: Option<PaperRecord>,
}

/// What a citation resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The index of a paper in [`Library::papers`]; how it was found when that is worth saying
    /// (`refs.bib: by DOI`).
    Paper(usize, Option<String>),
    /// Several papers answer to it: their indexes.
    Ambiguous(Vec<usize>),
    /// None does; why, in words.
    Missing(String),
}

/// The vault's papers and every name a manuscript may call them by.
#[derive(Debug, Default)]
pub struct Library {
    pub papers: Vec<Paper>,
    keys: HashMap<String, BTreeSet<usize>>,
    /// The manuscript's `.bib`: key → what its entry matched.
    bib: HashMap<String, Resolved>,
}

impl Library {
    /// The vault's papers as of its last index run.
    pub fn load(vault: &Vault) -> Library {
        let catalog = vault.catalog();
        let paths: Vec<String> = catalog
            .entries
            .iter()
            .filter(|(_, e)| e.kind == EntryKind::Paper && e.status != Status::Failed)
            .map(|(p, _)| p.clone())
            .collect();
        let bib = citekeys::bibliography(vault, &paths);
        let papers = bib
            .sources
            .into_iter()
            .map(|s| {
                let managed = vault.citation_key(&s.path);
                let paper = Paper {
                    record: vault.record_for(&s.path),
                    path: s.path,
                    meta: s.meta,
                    key: s.key,
                };
                (managed, paper)
            })
            .collect::<Vec<_>>();
        Library::from_papers(papers)
    }

    /// A library of `papers`, each with the reference manager's key if it has one.
    pub fn from_papers(papers: Vec<(Option<String>, Paper)>) -> Library {
        let mut keys: HashMap<String, BTreeSet<usize>> = HashMap::new();
        let mut lib = Library::default();
        for (i, (managed, p)) in papers.into_iter().enumerate() {
            // The key of the whole vault's bibliography, the reference manager's, and the
            // generated key without a suffix (what a one-paper export writes).
            for k in [Some(p.key.clone()), managed, Some(bibtex::key(&p.meta))]
                .into_iter()
                .flatten()
            {
                keys.entry(k).or_default().insert(i);
            }
            lib.papers.push(p);
        }
        lib.keys = keys;
        lib
    }

    /// Reads a manuscript's `.bib`: each entry is matched to a paper of the vault by DOI, arXiv
    /// id or title. Returns how many entries matched none.
    pub fn add_bib(&mut self, text: &str) -> usize {
        self.add_references(refs::parse_bib_keyed(text))
    }

    /// [`Library::add_bib`] for a CSL-JSON bibliography (pandoc's `.json`); refused with the
    /// reason when it is not CSL-JSON.
    pub fn add_csl_json(&mut self, text: &str) -> Result<usize, String> {
        Ok(self.add_references(refs::parse_csl_keyed(text)?))
    }

    fn add_references(&mut self, entries: Vec<(String, Reference)>) -> usize {
        let mut unmatched = 0;
        for (key, r) in entries {
            let found = self.match_reference(&r);
            if matches!(found, Resolved::Missing(_)) {
                unmatched += 1;
            }
            self.bib.insert(key, found);
        }
        unmatched
    }

    /// The paper of the library a bibliography entry names: by DOI, else arXiv id, else title.
    pub fn match_reference(&self, r: &Reference) -> Resolved {
        let by = |what: &str, hits: Vec<usize>| match hits.len() {
            0 => None,
            1 => Some(Resolved::Paper(
                hits[0],
                Some(format!("its bibliography entry, by {what}")),
            )),
            _ => Some(Resolved::Ambiguous(hits)),
        };
        let doi = r.doi.as_deref().map(str::to_lowercase);
        if let Some(d) = &doi
            && let Some(found) = by(
                "DOI",
                self.find(|m| m.doi.as_deref().map(str::to_lowercase).as_ref() == Some(d)),
            )
        {
            return found;
        }
        if let Some(a) = &r.arxiv
            && let Some(found) = by("arXiv id", self.find(|m| m.arxiv.as_ref() == Some(a)))
        {
            return found;
        }
        if let Some(t) = r.title.as_deref().map(fold).filter(|t| t.len() >= 12)
            && let Some(found) = by("title", self.find(|m| fold(&m.title) == t))
        {
            return found;
        }
        let what = r
            .title
            .as_deref()
            .map(|t| format!("«{}»", t.chars().take(80).collect::<String>()))
            .or(r.doi.clone())
            .unwrap_or_else(|| "its entry".into());
        Resolved::Missing(format!(
            "not in the library ({what} in the bibliography matches no paper by DOI, arXiv id or title)"
        ))
    }

    fn find(&self, pred: impl Fn(&PaperMeta) -> bool) -> Vec<usize> {
        (0..self.papers.len())
            .filter(|&i| pred(&self.papers[i].meta))
            .collect()
    }

    /// The paper `key` names.
    pub fn resolve(&self, key: &Key) -> Resolved {
        match key {
            Key::Key(k) => {
                if let Some(r) = self.bib.get(k) {
                    return r.clone();
                }
                match self
                    .keys
                    .get(k)
                    .map(|s| s.iter().copied().collect::<Vec<_>>())
                {
                    Some(v) if v.len() == 1 => Resolved::Paper(v[0], None),
                    Some(v) if !v.is_empty() => Resolved::Ambiguous(v),
                    _ => {
                        let why = if self.bib.is_empty() {
                            "not in the library (no paper has this citation key)".to_string()
                        } else {
                            "not in the library (no paper has this citation key, and the .bib has no entry for it)".to_string()
                        };
                        Resolved::Missing(why)
                    }
                }
            }
            Key::AuthorYear {
                family,
                year,
                letter,
            } => {
                let want = fold(family);
                let last_word = family
                    .split_whitespace()
                    .last()
                    .map(fold)
                    .unwrap_or_default();
                let mut hits: Vec<usize> = self.find(|m| {
                    m.year == Some(*year)
                        && m.authors.first().is_some_and(|a| {
                            let full = fold(a);
                            let fam = fold(bibtex::family_name(a));
                            fam == want || fam == last_word || full.ends_with(&want)
                        })
                });
                // `2020a`, `2020b`: the papers of that author and year in the order a
                // reference list puts them (by title).
                if let Some(l) = letter
                    && hits.len() > 1
                {
                    hits.sort_by_key(|&i| fold(&self.papers[i].meta.title));
                    let k = (*l as u8).wrapping_sub(b'a') as usize;
                    return match hits.get(k) {
                        Some(&i) => Resolved::Paper(
                            i,
                            Some(format!(
                                "the {} of {} papers by title",
                                ordinal(k),
                                hits.len()
                            )),
                        ),
                        None => Resolved::Missing(format!(
                            "not in the library (only {} papers of {family}, {year})",
                            hits.len()
                        )),
                    };
                }
                match hits.len() {
                    0 => Resolved::Missing(format!(
                        "not in the library (no paper of {year} whose first author is {family})"
                    )),
                    1 => Resolved::Paper(hits[0], None),
                    _ => Resolved::Ambiguous(hits),
                }
            }
        }
    }

    /// Keys of the library (for the nearest match of a key not found).
    pub fn nearest_key(&self, key: &str) -> Option<&str> {
        let want = key.to_lowercase();
        let mut best: Option<(usize, &str)> = None;
        let keys: BTreeMap<&str, ()> = self.keys.keys().map(|k| (k.as_str(), ())).collect();
        for k in keys.keys() {
            let lower = k.to_lowercase();
            // A key written short (`smith2020` for `smith2020fusion`) or with a typo.
            let d = if lower.starts_with(&want) && want.chars().count() >= 6 {
                0
            } else {
                strsim::levenshtein(&want, &lower)
            };
            if d <= (want.chars().count() / 4).max(1) && best.is_none_or(|(b, _)| d < b) {
                best = Some((d, k));
            }
        }
        best.map(|(_, k)| k)
    }
}

fn ordinal(k: usize) -> String {
    match k {
        0 => "first".into(),
        1 => "second".into(),
        2 => "third".into(),
        n => format!("{}th", n + 1),
    }
}

/// A name or title for comparing: letters and digits, accents dropped, lower case.
pub fn fold(s: &str) -> String {
    s.nfkd()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}
