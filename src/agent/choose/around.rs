//! Reading around a hit: the sentence after one that asks the question, and the units around a
//! good hit that hold the value or name asked for.

use super::{
    Kind, Question, Scored, Sent, Shape, code_names, form, has_name, has_number, prose,
    shape_weight, short,
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

/// Units of prose before a console session that may say what it computes.
const LEAD_IN: usize = 3;

/// What a program printed is read with the prose that introduces its session: for a value
/// question, a printed line with a number ("[1] 0.8279847") takes the question's words of that
/// prose ("We are interested in the probability … This is computed as follows:") as its own —
/// their BM25 score and count, a little less for each unit of prose between (not one that
/// ends with a colon) and for each printed line with a number before it. The session's typed
/// lines stand between them and count for nothing. `None` for any other unit, or when no prose
/// before it has the words.
pub(super) fn printed_value(
    q: &Question,
    sents: &[Sent],
    raw: &[(f64, usize)],
    j: usize,
) -> Option<(f64, usize)> {
    let s = &sents[j];
    if q.kind != Kind::Number || s.shape != Shape::Output || !has_number(&s.text) {
        return None;
    }
    let same = |k: usize| std::ptr::eq(sents[k].cand, s.cand);
    let mut k = j;
    let mut printed = 0;
    while k > 0 && same(k - 1) && matches!(sents[k - 1].shape, Shape::Code | Shape::Output) {
        k -= 1;
        printed += i32::from(sents[k].shape == Shape::Output && has_number(&sents[k].text));
    }
    // (A sentence that ends with a colon, "This is computed as follows:", introduces the
    // session: it stands in no way.)
    let between = |p: usize| {
        (p + 1..k)
            .filter(|&b| !sents[b].text.ends_with(':'))
            .count()
    };
    (k.saturating_sub(LEAD_IN)..k)
        .filter(|&p| same(p) && raw[p].1 > 0)
        .map(|p| {
            let fade = 0.85_f64.powi(between(p) as i32) * 0.97_f64.powi(printed);
            (raw[p].0 * fade, raw[p].1)
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// Units under a heading that may say what its section tells.
const UNDER: usize = 2;

/// A heading: a short piece of body text without closing punctuation, of words — a capital (or
/// a letter of a script without case) or a section number first, no number after it, nearly
/// all letters ("Missing values and surrogate splits", "3.1 Compatibility and Extended Mode";
/// not a line of code, a cut sentence or a table's label and value).
pub(super) fn is_heading(s: &Sent) -> bool {
    let t = &s.text;
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    let numbered = first.chars().all(|c| c.is_ascii_digit() || c == '.');
    let rest: Vec<&str> = if numbered {
        words.collect()
    } else {
        t.split_whitespace().collect()
    };
    let letters = rest
        .iter()
        .flat_map(|w| w.chars())
        .filter(|c| c.is_alphabetic())
        .count();
    let chars = rest.iter().map(|w| w.chars().count()).sum::<usize>().max(1);
    s.shape == Shape::Body
        && t.chars().count() <= 60
        && (1..=8).contains(&rest.len())
        && rest[0].starts_with(|c: char| c.is_alphabetic() && !c.is_lowercase())
        && letters * 10 >= chars * 9
        && !t.ends_with(['.', '?', '!', ':', ';', ',', '。'])
}

/// Reads under a heading that scores: a heading names what its section tells, and the
/// sentences right under it (within [`UNDER`], on its page) get a share of its score, less with
/// distance — so an answer quotes what the section says, not only its name.
pub(super) fn read_under_headings(sents: &[Sent], scored: &mut Vec<Scored>) {
    let heads: Vec<(usize, f64)> = scored
        .iter()
        .filter(|x| x.matched > 0 && is_heading(&sents[x.i]))
        .map(|x| (x.i, x.score))
        .collect();
    for (h, lead) in heads {
        let head = &sents[h];
        for (j, s) in sents.iter().enumerate().skip(h + 1).take(UNDER) {
            let d = s.pos.abs_diff(head.pos);
            if !std::ptr::eq(s.cand, head.cand)
                || s.shape != Shape::Body
                || is_heading(s)
                || d > UNDER
            {
                break;
            }
            let share = lead * 0.85_f64.powi(d as i32);
            match scored.iter_mut().find(|x| x.i == j) {
                Some(x) => x.score = x.score.max(share),
                None => scored.push(Scored {
                    score: share,
                    matched: 0,
                    i: j,
                }),
            }
        }
    }
}
