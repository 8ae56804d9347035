//! The judged known-item queries of `tests/known_items.tsv` and how a search is scored on them:
//! per query kind, hit@1 (the right paper first), MRR (reciprocal rank of the right paper among
//! the first ten, 0 when absent) and page@1 (the first result's best page is one that answers).
//! Shared by `tests/known_items.rs` (floors) and `benches/search.rs` (the table of issue 15).
#![allow(dead_code)]

use std::collections::BTreeMap;

/// The kinds in the order the table shows them.
pub const KINDS: &[&str] = &["phrase", "title", "author", "identifier", "typo", "cjk"];

/// Ranks past this one count as a miss for MRR.
pub const CUTOFF: usize = 10;

#[derive(Debug, Clone)]
pub struct Judged {
    pub kind: String,
    pub query: String,
    /// Vault path of the paper that answers the query.
    pub path: String,
    /// Physical pages where the answer is printed.
    pub pages: Vec<u32>,
}

/// One result of a ranking: a paper (or file) and the page it is shown at, when it has one.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub path: String,
    pub page: Option<u32>,
}

/// Paper-level results as a ranking: each paper at its best page.
pub fn ranked(hits: &[agentero::vault::PaperHit]) -> Vec<Ranked> {
    hits.iter()
        .map(|h| Ranked {
            path: h.card.path.clone(),
            page: h.card.page,
        })
        .collect()
}

pub fn load() -> Vec<Judged> {
    let text = include_str!("../../known_items.tsv");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "known_items.tsv line {}: {line:?}", n + 1);
        assert!(
            KINDS.contains(&cols[0]),
            "line {}: kind {:?}",
            n + 1,
            cols[0]
        );
        out.push(Judged {
            kind: cols[0].to_string(),
            query: cols[1].to_string(),
            path: cols[2].to_string(),
            pages: cols[3]
                .split(',')
                .map(|p| p.parse().expect("a page number"))
                .collect(),
        });
    }
    out
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Score {
    pub n: usize,
    pub hits: usize,
    pub reciprocal_ranks: f64,
    pub page_hits: usize,
}

impl Score {
    pub fn hit_at_1(&self) -> f64 {
        self.hits as f64 / self.n.max(1) as f64
    }
    pub fn mrr(&self) -> f64 {
        self.reciprocal_ranks / self.n.max(1) as f64
    }
    pub fn page_at_1(&self) -> f64 {
        self.page_hits as f64 / self.n.max(1) as f64
    }
    fn add(&mut self, other: &Score) {
        self.n += other.n;
        self.hits += other.hits;
        self.reciprocal_ranks += other.reciprocal_ranks;
        self.page_hits += other.page_hits;
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub by_kind: BTreeMap<String, Score>,
    /// Queries whose paper was not first: the query and the first results.
    pub misses: Vec<(Judged, Vec<Ranked>)>,
}

impl Report {
    pub fn kind(&self, kind: &str) -> Score {
        self.by_kind.get(kind).copied().unwrap_or_default()
    }

    pub fn all(&self) -> Score {
        let mut s = Score::default();
        for k in self.by_kind.values() {
            s.add(k);
        }
        s
    }

    /// The misses, one a line: kind, query, expected, and what came first.
    pub fn misses_text(&self) -> String {
        let mut out = String::new();
        for (j, got) in &self.misses {
            let first: Vec<String> = got
                .iter()
                .take(3)
                .map(|r| match r.page {
                    Some(p) => format!("{}#{p}", r.path),
                    None => r.path.clone(),
                })
                .collect();
            out.push_str(&format!(
                "  {:<10} {:?} → want {} p. {:?}, got {:?}\n",
                j.kind, j.query, j.path, j.pages, first
            ));
        }
        out
    }
}

/// Scores `rank` (a query's results, best first; several results of one path count once, at
/// the first) on `queries`.
pub fn evaluate(queries: &[Judged], mut rank: impl FnMut(&str) -> Vec<Ranked>) -> Report {
    let mut report = Report::default();
    for j in queries {
        let got = rank(&j.query);
        let mut papers: Vec<&Ranked> = Vec::new();
        for r in &got {
            if !papers.iter().any(|p| p.path == r.path) {
                papers.push(r);
            }
        }
        let s = report.by_kind.entry(j.kind.clone()).or_default();
        s.n += 1;
        let at = papers.iter().position(|r| r.path == j.path);
        if let Some(i) = at.filter(|i| *i < CUTOFF) {
            s.reciprocal_ranks += 1.0 / (i + 1) as f64;
        }
        if at == Some(0) {
            s.hits += 1;
            if papers[0].page.is_some_and(|p| j.pages.contains(&p)) {
                s.page_hits += 1;
            }
        } else {
            report
                .misses
                .push((j.clone(), got.into_iter().take(5).collect()));
        }
    }
    report
}
