//! The paper prior of a folder scope: papers are weighed before their pages.

use std::collections::HashMap;

use super::{Candidate, Question, Sent};

/// The source a candidate's URI is in (its path, without the page).
pub(super) fn paper_of(uri: &str) -> &str {
    uri.split('#').next().unwrap_or(uri)
}

/// With candidates from several papers (a folder in the grant), the papers are weighed first:
/// by how much of them the search found — their cards' ranks summed as `1/(1+rank)`, the page
/// the user reads counted as the best card — and by how many of the question's words their read
/// pages hold together. The best paper keeps its sentences' scores; another paper's are weighed
/// down by how much less it has of each (to 0.6 at most): a sentence of a paper the search
/// barely touched, or that has only some of the question's words, must match much better to
/// lead.
pub(super) fn paper_prior<'a>(
    q: &Question,
    cands: &'a [Candidate],
    sents: &[Sent],
) -> HashMap<&'a str, f64> {
    let mut mass: HashMap<&str, f64> = HashMap::new();
    for c in cands {
        let m = match (c.anchor, c.rank) {
            (true, _) => 1.0,
            (false, Some(r)) => 1.0 / (1.0 + r as f64),
            (false, None) => 0.0,
        };
        *mass.entry(paper_of(&c.uri)).or_default() += m;
    }
    if mass.len() < 2 {
        return HashMap::new();
    }
    let best = mass.values().copied().fold(0.0, f64::max);
    if best <= 0.0 {
        return HashMap::new();
    }
    // The share of the question's words each paper's read pages hold.
    let mut cover: HashMap<&str, f64> = HashMap::new();
    for p in mass.keys() {
        let held = q
            .terms
            .iter()
            .filter(|t| {
                sents
                    .iter()
                    .any(|s| paper_of(&s.cand.uri) == *p && s.tf.contains_key(t.as_str()))
            })
            .count();
        cover.insert(p, held as f64 / q.terms.len().max(1) as f64);
    }
    let best_cover = cover
        .values()
        .copied()
        .fold(0.0, f64::max)
        .max(f64::EPSILON);
    mass.into_iter()
        .map(|(p, m)| {
            let c = cover.get(p).copied().unwrap_or(0.0) / best_cover;
            (p, 0.6 + 0.25 * m / best + 0.15 * c)
        })
        .collect()
}
