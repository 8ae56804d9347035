//! Ranking papers before pages, for a question asked of many papers (a folder, a collection,
//! several papers mentioned): a page that matches a few words well is often in a paper about
//! something else (a bibliography that lists titles with the question's words, an appendix
//! list), while the paper that answers covers the question — in its title and abstract (its
//! first page's card), and across several of its pages. Each paper is scored from the search's
//! cards of it: the share of the question's terms its title and matching passages hold, the share
//! in its title, how well the search ranked it, and how many of its pages match. Cards whose
//! passage is a run of bibliography entries count for nothing. Pure functions.

use std::collections::HashMap;

use super::apparatus;
use super::candidate::Question;
use super::text::stems;

/// A search card, as the paper ranking reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub title: String,
    pub page: Option<u32>,
    pub excerpt: String,
    /// Its place in the search that found it (0 = best).
    pub rank: usize,
    /// Found by a search over the whole scope (not one restricted to its paper).
    pub scoped: bool,
}

/// A paper and its score, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub path: String,
    pub score: f64,
    /// How much of it the scope's search found, against the paper it found most of (0–1).
    pub search: f64,
}

/// Weights of the parts of a paper's score.
const COVERAGE: f64 = 1.0;
const TITLE: f64 = 0.5;
const SEARCH: f64 = 0.4;
const PAGES: f64 = 0.05;
/// Pages counted for how much of a paper matches.
const MAX_PAGES: usize = 5;

/// Whether a card's passage is bibliography entries (years and initials, several of them),
/// not text that answers.
pub fn is_bibliography(excerpt: &str) -> bool {
    let plain = excerpt.replace("**", "");
    apparatus::looks_like_entries(&plain)
}

/// The papers of `hits`, best first.
pub fn rank(q: &Question, hits: &[Hit]) -> Vec<Ranked> {
    let terms: Vec<&String> = q.terms.iter().chain(q.expansion.iter()).collect();
    struct Acc<'a> {
        title: &'a str,
        words: Vec<String>,
        mass: f64,
        pages: Vec<u32>,
        first_seen: usize,
    }
    let mut by: HashMap<&str, Acc> = HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        let a = by.entry(h.path.as_str()).or_insert_with(|| Acc {
            title: h.title.as_str(),
            words: Vec::new(),
            mass: 0.0,
            pages: Vec::new(),
            first_seen: i,
        });
        if is_bibliography(&h.excerpt) {
            continue;
        }
        a.words.extend(stems(&h.excerpt));
        if h.scoped {
            a.mass += 1.0 / (1.0 + h.rank as f64);
        }
        if let Some(p) = h.page
            && !a.pages.contains(&p)
        {
            a.pages.push(p);
        }
    }
    let best_mass = by.values().map(|a| a.mass).fold(0.0, f64::max);
    // A term most of the papers have says little about which one answers: each term weighs by
    // how few of the papers found hold it.
    let papers = by.len() as f64;
    let weight: Vec<f64> = terms
        .iter()
        .map(|t| {
            let df = by
                .values()
                .filter(|a| a.words.contains(t) || stems(a.title).contains(t))
                .count()
                .max(1) as f64;
            ((papers + 1.0) / df).ln()
        })
        .collect();
    let total: f64 = weight.iter().sum::<f64>().max(f64::EPSILON);
    let mut out: Vec<(Ranked, usize)> = by
        .into_iter()
        .map(|(path, a)| {
            let title = stems(a.title);
            let share = |has: &dyn Fn(&String) -> bool| -> f64 {
                terms
                    .iter()
                    .zip(&weight)
                    .filter(|(t, _)| has(t))
                    .map(|(_, w)| w)
                    .sum::<f64>()
                    / total
            };
            let in_title = share(&|t| title.contains(t));
            let covered = share(&|t| title.contains(t) || a.words.contains(t));
            let search = if best_mass > 0.0 {
                a.mass / best_mass
            } else {
                0.0
            };
            let pages = a.pages.len().min(MAX_PAGES) as f64;
            let score = COVERAGE * covered + TITLE * in_title + SEARCH * search + PAGES * pages;
            (
                Ranked {
                    path: path.to_string(),
                    score,
                    search,
                },
                a.first_seen,
            )
        })
        .collect();
    out.sort_by(|a, b| b.0.score.total_cmp(&a.0.score).then(a.1.cmp(&b.1)));
    out.into_iter().map(|(r, _)| r).collect()
}

/// How much a sentence of a paper scored `score` counts against one of the best paper (scored
/// `best`): as much when the two papers score alike, down to [`LOWEST_PRIOR`] for a paper
/// scored a third less or worse — a sentence of a clearly lower paper must match clearly better
/// to lead the answer.
pub fn prior(score: f64, best: f64) -> f64 {
    if best <= 0.0 || score >= best {
        return 1.0;
    }
    let behind = ((best - score) / best / 0.33).min(1.0);
    1.0 - (1.0 - LOWEST_PRIOR) * behind
}

/// How much better than the next paper the best one must score to be read first.
const STANDS_OUT: f64 = 1.25;

/// The least share of the scope's search the best paper must have (against the paper the search
/// found most of) to be read first.
const SEARCH_AGREES: f64 = 1.0;

/// Whether the best of `ranked` stands out: it scores [`STANDS_OUT`] times the next one or more
/// (or is the only one), and the scope's search found much of it too (the two agree). Otherwise
/// the ranking of papers is no better than the search's pages.
pub fn stands_out(ranked: &[Ranked]) -> bool {
    match ranked {
        [] => false,
        [a] => a.search >= SEARCH_AGREES,
        [a, b, ..] => a.score >= b.score * STANDS_OUT && a.search >= SEARCH_AGREES,
    }
}

/// The least weight of a lower paper's sentences.
const LOWEST_PRIOR: f64 = 0.8;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::rank::read_question;

    fn hit(path: &str, title: &str, page: u32, excerpt: &str, rank: usize) -> Hit {
        Hit {
            path: path.into(),
            title: title.into(),
            page: Some(page),
            excerpt: excerpt.into(),
            rank,
            scoped: true,
        }
    }

    #[test]
    fn the_paper_that_covers_the_question_ranks_above_the_best_single_page() {
        let q = read_question(
            "Which function computes heteroskedasticity and autocorrelation consistent standard errors?",
            None,
        );
        let hits = [
            // A bibliography page that lists titles with the question's words ranks first.
            hit(
                "papers/other/paper.pdf",
                "Clustered Covariances",
                30,
                "Andrews DWK (1991). “**Heteroskedasticity** and **Autocorrelation** **Consistent** Covariance Matrix Estimation.” Econometrica, 59(3), 817–858. Newey WK, West KD (1987). “A Simple, Positive-Definite, **Heteroskedasticity** and **Autocorrelation** **Consistent** Covariance Matrix.” Econometrica, 55(3), 703–708.",
                0,
            ),
            hit(
                "papers/hac/paper.pdf",
                "Econometric Computing with HC and HAC Covariance Matrix Estimators",
                1,
                "**Heteroskedasticity** and **autocorrelation** **consistent** (HAC) estimation of the covariance matrix of the coefficient estimates",
                1,
            ),
            hit(
                "papers/other/paper.pdf",
                "Clustered Covariances",
                4,
                "clustered **standard** **errors** are computed",
                2,
            ),
            hit(
                "papers/hac/paper.pdf",
                "Econometric Computing with HC and HAC Covariance Matrix Estimators",
                6,
                "the **function** vcovHAC **computes** **standard** **errors**",
                3,
            ),
        ];
        let ranked = rank(&q, &hits);
        assert_eq!(ranked[0].path, "papers/hac/paper.pdf", "{ranked:?}");
        assert_eq!(ranked.len(), 2);
    }

    #[test]
    fn a_title_that_names_the_question_wins_over_search_mass() {
        let q = read_question("How are quantile regression models fitted?", None);
        let hits = [
            hit("papers/a/paper.pdf", "Survival Models", 3, "the **models** are **fitted**", 0),
            hit("papers/a/paper.pdf", "Survival Models", 4, "**models** **fitted** again", 1),
            hit(
                "papers/q/paper.pdf",
                "Quantile Regression in R",
                2,
                "**quantile** **regression** **models** are **fitted** by linear programming",
                2,
            ),
        ];
        assert_eq!(rank(&q, &hits)[0].path, "papers/q/paper.pdf");
    }

    #[test]
    fn nothing_in_nothing_out_and_ties_keep_the_search_order() {
        let q = read_question("zebra stripes", None);
        assert!(rank(&q, &[]).is_empty());
        let hits = [
            hit("papers/b/paper.pdf", "B", 1, "no match here", 0),
            hit("papers/a/paper.pdf", "A", 1, "no match here", 0),
        ];
        let r = rank(&q, &hits);
        assert_eq!(r[0].path, "papers/b/paper.pdf");
        assert!(!stands_out(&r) && !stands_out(&[]));
        let one = |score: f64, search: f64| Ranked {
            path: "p".into(),
            score,
            search,
        };
        assert!(stands_out(&[one(1.0, 1.0)]) && stands_out(&[one(2.0, 1.0), one(1.5, 0.6)]));
        // Close to the next one, or barely found by the scope's search: it does not.
        assert!(!stands_out(&[one(2.0, 1.0), one(1.9, 1.0)]));
        assert!(!stands_out(&[one(2.0, 0.2), one(1.0, 1.0)]));
        assert_eq!(prior(2.0, 2.0), 1.0);
        assert!(prior(1.9, 2.0) > prior(1.5, 2.0));
        assert_eq!(prior(0.5, 2.0), LOWEST_PRIOR);
        assert_eq!(prior(0.0, 0.0), 1.0);
    }

    #[test]
    fn bibliography_passages_are_told_from_prose_with_citations() {
        assert!(is_bibliography(
            "Zeileis A (2004). “Econometric Computing with HC and HAC Covariance Matrix Estimators.” Journal of Statistical Software, 11(10), 1–17. Zeileis A, Hothorn T (2002). “Diagnostic Checking in Regression Relationships.” R News, 2(3), 7–10."
        ));
        assert!(!is_bibliography(
            "As Zeileis (2004) and Newey and West (1987) show, the **estimator** is consistent; Andrews (1991) chose the bandwidth."
        ));
        assert!(!is_bibliography("The model is fitted in 2009 with 4 iterations."));
    }
}
