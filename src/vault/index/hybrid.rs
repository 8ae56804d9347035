//! Hybrid retrieval: the BM25 hits of a plain query fused with the passages nearest to it in
//! the embedding space, by reciprocal rank fusion. Tiers stay first (a paper the query names by
//! its metadata, the owner of an identifier); within a tier a passage ranks by
//! `1 / (K + BM25 rank) + w / (K + vector rank)` (weighted reciprocal rank fusion, K = 60,
//! w = [`VECTOR_WEIGHT`]); only passages at least [`MIN_SIMILARITY`] near the query have a
//! vector rank, and a query the model's vocabulary mostly does not know has none. Queries with operators, phrases or fields, and
//! identifiers, are exact requests: BM25 alone answers them.

use std::collections::HashMap;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, TantivyDocument, Term};

use super::cards::Scope;
use super::error::IndexError;
use super::store::SearchIndex;
use crate::vault::embed::Vectors;
use crate::vault::ranking::{self, Hit};

/// Windows of a page compared with the query for an excerpt, at most.
const MAX_WINDOWS: usize = 64;

/// Reciprocal rank fusion's constant (the usual 60: a rank's weight falls slowly).
const RRF_K: f32 = 60.0;
/// How much a rank in the vectors' list counts against the same rank in BM25's. Measured on
/// the judged sets with wordllama's static embeddings (`tests/it/hybrid_quality.rs`): at 1 (plain
/// RRF) whole-page vectors pushed right pages out of BM25's top five in folder scope (recall@5
/// 0.809 → 0.739 on the tuning set); at 0.2 BM25's answers stay and passages the words miss
/// still come in (the vignettes set's folder scope 0.367 → 0.433).
const VECTOR_WEIGHT: f32 = 0.2;

/// Passages taken from the vectors for a query.
pub(super) const VECTOR_DEPTH: usize = 50;
/// Documents of the BM25 list fused (their hits, in BM25 order).
pub(super) const BM25_DOCS: usize = 50;
/// A passage counts in the vectors' list only when it is at least this similar to the query
/// (cosine): below it, every query would "find" something, and every BM25 hit get a vote.
const MIN_SIMILARITY: f32 = 0.2;

/// Whether the vectors answer `query` too: plain words, no identifier.
pub(super) fn fusable(query: &str) -> bool {
    ranking::is_plain(query) && ranking::identifier(query).is_none()
}

/// The scores shown for fused passages, best first: `tier + 0.998 × rrf / best possible rrf`,
/// in [tier, tier + 1), rounded to three decimals and kept strictly decreasing within a tier
/// (later sorts by score keep the fused order).
fn fused_scores(ranked: &[(u8, f32)], best_possible: f32) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::with_capacity(ranked.len());
    for (i, &(tier, rrf)) in ranked.iter().enumerate() {
        let raw = tier as f32 + 0.998 * (rrf / best_possible).clamp(0.0, 1.0);
        let mut s = (raw * 1000.0).round() / 1000.0;
        if i > 0 && ranked[i - 1].0 == tier {
            s = s.min(out[i - 1] - 0.001);
        }
        out.push(s.max(tier as f32 + 0.001));
    }
    out
}

fn unit_of(h: &Hit) -> u32 {
    h.page
        .or(h.lines.map(|l| l.0))
        .map_or(0, |u| u.min(u32::MAX as u64) as u32)
}

struct Fused {
    path: String,
    unit: u32,
    tier: u8,
    rrf: f32,
    hit: Option<Hit>,
    /// The vectors' document (for a passage only they found).
    doc: Option<usize>,
}

impl SearchIndex {
    /// `bm25` (best first) fused with the vectors' nearest passages, best first, at most
    /// `keep` of them; `bm25` itself when there are no vectors or the query is not plain.
    pub(super) fn fuse(
        &self,
        searcher: &tantivy::Searcher,
        query: &str,
        scope: Option<&Scope>,
        bm25: Vec<(String, Hit)>,
        keep: usize,
    ) -> Result<Vec<(String, Hit)>, IndexError> {
        let Some(v) = self.vectors.as_deref().filter(|_| fusable(query)) else {
            return Ok(bm25);
        };
        let Some(q) = v.model.embed_query(query) else {
            return Ok(bm25);
        };
        let allowed = |d: usize| in_scope(scope, &v.store.docs[d].path);
        // Only passages near enough to the query vote: the rest of the vectors' list is noise.
        let mut nearest = v.store.nearest(&q, VECTOR_DEPTH, &allowed);
        nearest.retain(|(_, sim)| *sim >= MIN_SIMILARITY);
        let mut fused: Vec<Fused> = Vec::new();
        let mut at: HashMap<(String, u32), usize> = HashMap::new();
        for (rank, (path, hit)) in bm25.into_iter().enumerate() {
            let key = (path.clone(), unit_of(&hit));
            at.entry(key).or_insert_with(|| {
                fused.push(Fused {
                    path,
                    unit: unit_of(&hit),
                    tier: hit.tier,
                    rrf: 1.0 / (RRF_K + rank as f32 + 1.0),
                    hit: Some(hit),
                    doc: None,
                });
                fused.len() - 1
            });
        }
        for (rank, (row, _)) in nearest.into_iter().enumerate() {
            let doc = row.doc as usize;
            let path = &v.store.docs[doc].path;
            let w = VECTOR_WEIGHT / (RRF_K + rank as f32 + 1.0);
            match at.get(&(path.clone(), row.unit)) {
                Some(&i) => fused[i].rrf += w,
                None => fused.push(Fused {
                    path: path.clone(),
                    unit: row.unit,
                    tier: 0,
                    rrf: w,
                    hit: None,
                    doc: Some(doc),
                }),
            }
        }
        fused.sort_by(|a, b| {
            b.tier
                .cmp(&a.tier)
                .then_with(|| b.rrf.total_cmp(&a.rrf))
                .then_with(|| a.path.cmp(&b.path))
                .then_with(|| a.unit.cmp(&b.unit))
        });
        let mut out: Vec<(String, Hit, u8, f32)> = Vec::with_capacity(keep.min(fused.len()));
        for f in fused {
            if out.len() >= keep {
                break;
            }
            let hit = match (f.hit, f.doc) {
                (Some(h), _) => Some(h),
                (None, Some(d)) => self.passage(searcher, v, d, f.unit)?,
                (None, None) => None,
            };
            if let Some(h) = hit {
                out.push((f.path, h, f.tier, f.rrf));
            }
        }
        let ranked: Vec<(u8, f32)> = out.iter().map(|o| (o.2, o.3)).collect();
        let scores = fused_scores(&ranked, (1.0 + VECTOR_WEIGHT) / (RRF_K + 1.0));
        Ok(out
            .into_iter()
            .zip(scores)
            .map(|((path, mut h, _, _), s)| {
                h.score = s;
                (path, h)
            })
            .collect())
    }

    /// The vector of `query` when the vectors answer it (see [`fusable`]).
    pub(super) fn query_vector(&self, query: &str) -> Option<Vec<f32>> {
        let v = self.vectors.as_deref().filter(|_| fusable(query))?;
        v.model.embed_query(query)
    }

    /// The window of `text` (about `max` characters, cut at spaces) nearest to the query
    /// vector `q`, with `…` where it was cut; `None` when the text is short or nothing is near.
    pub(super) fn nearest_window(&self, text: &str, q: &[f32], max: usize) -> Option<String> {
        let v = self.vectors.as_deref()?;
        let words: Vec<&str> = text.split_whitespace().collect();
        let max = max.max(40);
        if words.iter().map(|w| w.len() + 1).sum::<usize>() <= max {
            return None;
        }
        // Windows of whole words, each starting half a window after the previous one.
        let mut windows: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        while start < words.len() && windows.len() < MAX_WINDOWS {
            let (mut end, mut chars) = (start, 0);
            while end < words.len() && chars + words[end].chars().count() < max {
                chars += words[end].chars().count() + 1;
                end += 1;
            }
            let end = end.max(start + 1);
            windows.push((start, end));
            if end >= words.len() {
                break;
            }
            start += ((end - start) / 2).max(1);
        }
        let texts: Vec<String> = windows
            .iter()
            .map(|&(a, b)| words[a..b].join(" "))
            .collect();
        let vectors = v.model.embed(&texts)?;
        let dims = v.model.dims;
        let (best, sim) = vectors
            .chunks(dims)
            .map(|w| w.iter().zip(q).map(|(a, b)| a * b).sum::<f32>())
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        if sim < MIN_SIMILARITY {
            return None;
        }
        let (a, b) = windows[best];
        let mut out = String::new();
        if a > 0 {
            out.push('…');
        }
        out.push_str(&texts[best]);
        if b < words.len() {
            out.push('…');
        }
        Some(out)
    }

    /// The index's document of the vectors' passage (`unit` of document `d`), when the index
    /// holds it as the vectors saw it (same sha256).
    fn passage(
        &self,
        searcher: &tantivy::Searcher,
        v: &Vectors,
        d: usize,
        unit: u32,
    ) -> Result<Option<Hit>, IndexError> {
        let f = &self.fields;
        let doc = &v.store.docs[d];
        let path_q = || -> Box<dyn Query> {
            Box::new(TermQuery::new(
                Term::from_field_text(f.path, &doc.path),
                IndexRecordOption::Basic,
            ))
        };
        let page_q = BooleanQuery::new(vec![
            (Occur::Must, path_q()),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.page, unit as u64),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        let num = |d: &TantivyDocument, field| d.get_first(field).and_then(|v| v.as_u64());
        let same = |d: &TantivyDocument| {
            d.get_first(f.sha256).and_then(|v| v.as_str()) == Some(doc.sha256.as_str())
        };
        let hit = |address: DocAddress, page, lines| Hit {
            tier: 0,
            score: 0.0,
            address,
            page,
            lines,
        };
        let found = searcher.search(&page_q, &TopDocs::with_limit(1).order_by_score())?;
        if let Some((_, addr)) = found.first() {
            let d: TantivyDocument = searcher.doc(*addr)?;
            return Ok(same(&d).then(|| hit(*addr, Some(unit as u64), None)));
        }
        // A text file's chunk, by its first line.
        let chunks = searcher.search(&*path_q(), &TopDocs::with_limit(10_000).order_by_score())?;
        for (_, addr) in chunks {
            let d: TantivyDocument = searcher.doc(addr)?;
            if num(&d, f.line_start) == Some(unit as u64) && same(&d) {
                let lines = num(&d, f.line_start).zip(num(&d, f.line_end));
                return Ok(Some(hit(addr, None, lines)));
            }
        }
        Ok(None)
    }
}

/// Whether `path` is inside `scope` (everything when there is none).
fn in_scope(scope: Option<&Scope>, path: &str) -> bool {
    let Some(s) = scope else {
        return true;
    };
    s.files.iter().any(|f| f == path)
        || s.dirs.iter().any(|d| {
            d.is_empty()
                || path
                    .strip_prefix(d.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fused_scores_keep_tiers_apart_and_the_fused_order() {
        let r = |k: f32| 1.0 / (RRF_K + k);
        let ranked = [
            (1, r(1.0)),
            (0, r(1.0) + r(1.0)),
            (0, r(90.0)),
            (0, r(90.5)),
            (0, 0.0),
        ];
        let s = fused_scores(&ranked, 2.0 * r(1.0));
        assert!(s[0] >= 1.0 && s[1] < 1.0, "{s:?}");
        assert!(s.windows(2).all(|w| w[0] > w[1]), "{s:?}");
        assert!(s[4] > 0.0);
    }

    #[test]
    fn only_plain_queries_are_fused() {
        assert!(fusable("heat treatment of steel"));
        assert!(!fusable("\"heat treatment\""));
        assert!(!fusable("title:steel"));
        assert!(!fusable("10.1145/3290605.3300233"));
    }

    #[test]
    fn scope_admits_its_files_and_folders() {
        let s = Scope {
            files: vec!["a/x.pdf".into()],
            dirs: vec!["papers".into()],
        };
        assert!(in_scope(Some(&s), "a/x.pdf"));
        assert!(in_scope(Some(&s), "papers/y/z.pdf"));
        assert!(!in_scope(Some(&s), "papersx/z.pdf"));
        assert!(!in_scope(Some(&s), "a/y.pdf"));
        assert!(in_scope(None, "anything"));
    }
}
