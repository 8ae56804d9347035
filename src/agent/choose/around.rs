//! Reading around a hit: the sentence after one that asks the question, and the units around a
//! good hit that hold the value or name asked for.

use super::{
    Kind, Question, Scored, Sent, code_names, form, has_name, has_number, prose, shape_weight,
    short,
};

/// An answer often comes right after the sentence that asks it ("… suppose that we wanted to
/// test that the slopes were the same? This is done with the anova command."): the sentence
/// after one that has most of the question's words gets more than that one's score when that
/// one is a question, and most of it when a name is asked for and it names code — even with
/// none of the words itself.
pub(super) fn follow_the_question(
    q: &Question,
    sents: &[Sent],
    raw: &[(f64, usize)],
    scored: &mut Vec<Scored>,
) {
    let need = q.terms.len().div_ceil(2).max(2);
    for i in 1..sents.len() {
        let (prev, s) = (&sents[i - 1], &sents[i]);
        let asked = prev.text.ends_with('?');
        if !std::ptr::eq(prev.cand, s.cand)
            || prev.pos + 1 != s.pos
            || raw[i - 1].1 < need
            || !(asked || q.kind == Kind::Name && code_names(&s.text) > 0)
        {
            continue;
        }
        let Some(lead) = scored.iter().find(|x| x.i == i - 1).map(|x| x.score) else {
            continue;
        };
        // After a question the paper asks, the next sentence is its answer.
        let share = if prev.text.ends_with('?') { 1.1 } else { 0.7 };
        match scored.iter_mut().find(|x| x.i == i) {
            Some(x) => x.score = x.score.max(x.score * 0.5 + lead * share),
            None => scored.push(Scored {
                score: lead * share,
                matched: 0,
                i,
            }),
        }
    }
}

/// Units after a good hit that may hold what it is about (a heading's, farther).
const AROUND: usize = 2;

/// Reads the units around a good hit: the value or name asked for is often in the sentence after
/// the one with the question's words ("We are interested in the probability …" then the output
/// with the number; "Testing coefficients in cross-sectional data" then "… the data frame
/// PublicSchools"). A unit within [`AROUND`] after a hit (or before it, one) that has the asked
/// form while the hit has not gets a share of the hit's score, less with distance.
pub(super) fn read_around(q: &Question, sents: &[Sent], scored: &mut Vec<Scored>) {
    if !matches!(q.kind, Kind::Number | Kind::Name | Kind::Dataset) {
        return;
    }
    // (A code line names everything: a name is read around in prose only.)
    let has_form = |t: &str| match q.kind {
        Kind::Number => has_number(t),
        _ => prose(t) && has_name(t),
    };
    let hits: Vec<(usize, f64)> = scored
        .iter()
        .filter(|x| x.matched > 0 && !has_form(&sents[x.i].text))
        .map(|x| {
            let s = &sents[x.i];
            (x.i, x.score / form(q, &s.text) / short(q, s))
        })
        .collect();
    for (h, lead) in hits {
        let hit = &sents[h];
        let heading = !hit.text.ends_with(['.', '?', '!', ':']);
        let reach = if heading { AROUND + 1 } else { AROUND };
        let lo = h.saturating_sub(1);
        let hi = (h + reach + 1).min(sents.len());
        for (j, s) in sents.iter().enumerate().take(hi).skip(lo) {
            if j == h || !std::ptr::eq(s.cand, hit.cand) || !has_form(&s.text) {
                continue;
            }
            let d = s.pos.abs_diff(hit.pos);
            if d == 0 || d > reach {
                continue;
            }
            let share = 0.85_f64.powi(d as i32) * shape_weight(q, s);
            match scored.iter_mut().find(|x| x.i == j) {
                Some(x) => x.score = x.score.max(lead * share),
                None => scored.push(Scored {
                    score: lead * share,
                    matched: 0,
                    i: j,
                }),
            }
        }
    }
}
