//! The form of what a question asks for, as pure functions over a sentence: a value (a number,
//! with its unit when it has one) for "how many / how much / which value", a name for "which
//! function / library / data set / instrument" — one written as code (`rollapply()`,
//! `na.approx`, `\mubyte`), a proper noun or an acronym inside a sentence (Armadillo, LAPACK),
//! or the word a naming noun names ("the mstate package", "function monitor", "the sleepstudy
//! data"). `choose` gives the units that hold the asked form their cue, reads the units around
//! a good hit for it, and the answer leads with the value or name its first quote holds.

use super::candidate::{Kind, Question};
use super::names::{CALLABLE, Form, NAMING, bare, beside, named};
use super::text::{starts_with_unit, stems};

/// Words after a number that are not its unit.
const NOT_UNITS: &[&str] = &[
    "and", "or", "the", "of", "to", "in", "is", "are", "was", "were", "with", "for", "by", "on",
    "at", "from", "that", "which", "as", "but", "than",
];

/// Words after which a number points at a part of the text ("Section 3", "Table 2", "Eq. 4").
const POINTING: &[&str] = &[
    "section",
    "sections",
    "sec",
    "figure",
    "figures",
    "fig",
    "figs",
    "table",
    "tables",
    "chapter",
    "chapters",
    "appendix",
    "eq",
    "eqs",
    "equation",
    "equations",
    "footnote",
    "pp",
];

const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "june",
    "jun",
    "july",
    "jul",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
];

/// Whether the number at `s[at..stop]` points at something instead of saying a value: a
/// cross-reference ("Section 2.2", "Table 3") or the year of a citation ("(Hartigan and Kleiner
/// 1984)", "Edwards and Berry (1987)", "(Sanderson, 2010)").
fn is_reference(s: &str, at: usize, stop: usize) -> bool {
    let before = &s[..at];
    let token_start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let token_end = s[stop..]
        .find(char::is_whitespace)
        .map_or(s.len(), |i| stop + i);
    let token = &s[token_start..token_end];
    let prev = before[..token_start]
        .split_whitespace()
        .next_back()
        .unwrap_or("");
    let prev_bare = bare(prev).to_lowercase();
    if token_start == at && POINTING.contains(&prev_bare.as_str()) {
        return true;
    }
    let number = &s[at..stop];
    // "(2) In extended mode …", "… = 0 (3)": an item's or an equation's number.
    let bare_token = token.trim_end_matches([',', '.', ';', ':']);
    if bare_token == format!("({number})") && number.len() <= 2 {
        return true;
    }
    // "[12]", "[1] 0.8279847": a citation's number or the index a program prints before its
    // output, never the value.
    if bare_token == format!("[{number}]") && number.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    let year = number.len() == 4 && (number.starts_with("19") || number.starts_with("20"));
    let in_brackets =
        token.starts_with('(') || token.ends_with([')', ';']) || token.ends_with("),");
    let by_name = prev.starts_with(|c: char| c.is_uppercase() || c == '(')
        && !MONTHS.contains(&prev_bare.as_str())
        || prev_bare == "al";
    year && in_brackets && by_name
}

/// The end (an index into `chars`) of the number that starts at `k`: digits, with the stops
/// and commas between digits.
fn number_end(chars: &[(usize, char)], k: usize) -> usize {
    let mut end = k;
    while end < chars.len()
        && (chars[end].1.is_ascii_digit()
            || matches!(chars[end].1, '.' | ',')
                && chars.get(end + 1).is_some_and(|n| n.1.is_ascii_digit()))
    {
        end += 1;
    }
    end
}

/// The month named by `word` ("August", "Dec."), as written.
fn month(word: &str) -> Option<&str> {
    let t = bare(word);
    MONTHS.contains(&t.to_lowercase().as_str()).then_some(t)
}

/// A date written around the number at `s[at..stop]`, as one value: "August 26, 2015",
/// "January 2023", "26 August 2015". The value and where it ends in `s`.
fn date(s: &str, at: usize, stop: usize) -> Option<(String, usize)> {
    let number = &s[at..stop];
    let is_year = |n: &str| n.len() == 4 && n.chars().all(|c| c.is_ascii_digit());
    let day = number.len() <= 2 && number.chars().all(|c| c.is_ascii_digit());
    // A year after the day: ", 2015" or " 2015".
    let year_after = |from: usize| {
        let rest = &s[from..];
        let t = rest.strip_prefix(',').unwrap_or(rest).strip_prefix(' ')?;
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        is_year(&digits).then(|| (digits.clone(), from + (rest.len() - t.len()) + 4))
    };
    let before = s[..at].trim_end();
    let prev = before.rsplit(char::is_whitespace).next().unwrap_or("");
    if before.len() < at
        && !prev.ends_with([',', ';', ')'])
        && let Some(m) = month(prev)
        && (day || is_year(number))
    {
        return Some(match year_after(stop).filter(|_| day) {
            Some((y, end)) => (format!("{m} {number}, {y}"), end),
            None => (format!("{m} {number}"), stop),
        });
    }
    let rest = &s[stop..];
    let next = rest.strip_prefix(' ')?;
    let word: String = next.chars().take_while(|c| c.is_alphabetic()).collect();
    let m = month(&word).filter(|_| day)?;
    let after = stop + 1 + word.len();
    let (y, end) = year_after(after).unwrap_or_default();
    Some(if y.is_empty() {
        (format!("{number} {m}"), after)
    } else {
        (format!("{number} {m} {y}"), end)
    })
}

/// A version glued to its "v" ("v6.1", "V2.0"): the "v" stands alone before the digits.
fn is_version_mark(chars: &[(usize, char)], k: usize) -> bool {
    k > 0 && matches!(chars[k - 1].1, 'v' | 'V') && (k == 1 || !chars[k - 2].1.is_alphanumeric())
}

/// Whether a value is a version: "v6.1", "1.8b", "2.28".
pub(super) fn is_version(value: &str) -> bool {
    let t = value.strip_prefix(['v', 'V']).unwrap_or(value);
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.contains('.')
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c.is_ascii_lowercase())
}

/// Whether a value is a date or a year: "August 26, 2015", "1978", "2017 年".
fn is_date(value: &str) -> bool {
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    value.split_whitespace().any(|w| month(w).is_some())
        || digits.len() == 4 && (digits.starts_with("19") || digits.starts_with("20"))
}

/// The values of a sentence, in order: each number with the unit that follows it ("4406
/// individuals", "14 pt", "0.8279847", "45%"), a version ("v6.1", "1.8b") and a date
/// ("August 26, 2015") as one value each; a cross-reference, a citation's year or the index a
/// program prints ("[1]") is not a value (see [`is_reference`]), nor a number that ends a name
/// ("X1", "level-3").
pub fn values(s: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (at, c) = chars[k];
        if !c.is_ascii_digit() {
            k += 1;
            continue;
        }
        if is_version_mark(&chars, k) {
            let end = number_end(&chars, k);
            let stop = chars.get(end).map_or(s.len(), |x| x.0);
            if s[at..stop].contains('.') {
                out.push(s[chars[k - 1].0..stop].to_string());
            }
            k = end;
            continue;
        }
        // A number starts at a digit that does not end a name ("X1", "v2", "ε-TeX3",
        // "level-3").
        let glued = k > 0 && (chars[k - 1].1.is_alphanumeric() || chars[k - 1].1 == '_')
            || k > 1 && chars[k - 1].1 == '-' && chars[k - 2].1.is_alphabetic();
        if glued {
            k += 1;
            continue;
        }
        let end = number_end(&chars, k);
        let stop = chars.get(end).map_or(s.len(), |x| x.0);
        let number = &s[at..stop];
        k = end;
        if is_reference(s, at, stop) {
            continue;
        }
        if chars
            .get(end)
            .is_some_and(|x| x.1.is_alphabetic() && x.1.is_ascii())
        {
            // "10pt", "2nd", "1.8b": the unit glued on, an ordinal, or a version's letter.
            let word: String = s[stop..]
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            let version = number.contains('.')
                && word.len() == 1
                && word != "e"
                && word.chars().all(|c| c.is_ascii_lowercase());
            if starts_with_unit(&word) || version {
                out.push(format!("{number}{word}"));
            }
            continue;
        }
        if let Some((d, end_at)) = date(s, at, stop) {
            out.push(d);
            while k < chars.len() && chars[k].0 < end_at {
                k += 1;
            }
            continue;
        }
        let rest = &s[stop..];
        let spaced = rest.trim_start();
        if spaced.starts_with('%') {
            out.push(format!("{number}%"));
            continue;
        }
        let next = spaced.split_whitespace().next().map(bare).unwrap_or("");
        let year = number.len() == 4 && (number.starts_with("19") || number.starts_with("20"));
        if starts_with_unit(spaced) {
            // A counter after a number in Chinese or Japanese text: its first character.
            let unit: String = if next.is_ascii() {
                next.to_string()
            } else {
                spaced
                    .chars()
                    .take_while(|c| !c.is_ascii())
                    .take(1)
                    .collect()
            };
            out.push(format!("{number} {unit}").trim_end().to_string());
        } else if !year
            && number.len() >= 2
            && next.chars().count() >= 3
            && next.chars().all(|c| c.is_ascii_lowercase())
            && !NOT_UNITS.contains(&next)
        {
            // "4406 individuals".
            out.push(format!("{number} {next}"));
        } else {
            out.push(number.to_string());
        }
    }
    out
}

/// Units that measure rather than count: "10 years" says how long, "299 women" how many.
const MEASURING: &[&str] = &[
    "pt", "mm", "cm", "in", "%", "dpi", "px", "kb", "mb", "times", "point", "second", "ms", "hz",
    "khz", "ghz", "kg", "em", "ex", "bp", "year", "day", "byte", "level",
];

/// Whether a value is measured in a unit ("10 years", "14 pt", "10pt", "45%").
fn is_measured(value: &str) -> bool {
    let unit: String = match value.split_once(' ') {
        Some((_, u)) => u.to_string(),
        None => value
            .chars()
            .skip_while(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
            .collect(),
    };
    let unit = unit.to_lowercase();
    !unit.is_empty()
        && MEASURING
            .iter()
            .any(|m| unit == *m || unit.strip_prefix(m).is_some_and(|r| r == "s"))
}

/// What the question asks a name of, by the naming noun it uses ("which package …"): the
/// first of its words that is one.
fn asked_noun(q: &Question) -> Option<&str> {
    // The last of the first run of them: "which class option" asks for an option.
    let first = q.words.iter().position(|w| NAMING.contains(&w.as_str()))?;
    q.words[first..]
        .iter()
        .take_while(|w| NAMING.contains(&w.as_str()))
        .last()
        .map(String::as_str)
}

/// Nouns of things that are not written as TeX control sequences: a package or a library is
/// loaded, not called.
const LOADED: &[&str] = &["package", "packages", "library", "libraries"];

/// The best candidate of a quote for the lead: the value or name, and whether it is the form
/// asked for ("strong": a value in the asked shape, a name beside the asked noun or made of the
/// question's words).
struct Lead {
    text: String,
    strong: bool,
    /// Fits the question well enough to lead from a later quote when the first has nothing
    /// to lead with (a value in the asked unit: "6 pages").
    fits: bool,
}

/// The best candidate of one quote (see [`lead_of`]): the one that fits the question best, by a
/// key of each kind's own (the smaller the better).
fn best_in(q: &Question, quote: &str) -> Option<Lead> {
    let terms = &q.terms;
    let kind = q.kind;
    // "Which command …", "which function …": code answers, not an acronym or a proper noun.
    let asks_code = q.words.iter().any(|w| CALLABLE.contains(&w.as_str()));
    let noun = asked_noun(q);
    let loaded = noun.is_some_and(|n| LOADED.contains(&n));
    let words: Vec<&str> = quote.split_whitespace().collect();
    let at = |c: &str| {
        let first = c.split_whitespace().next().unwrap_or(c);
        words.iter().position(|w| w.contains(first)).unwrap_or(0)
    };
    let is_term = |w: &str| stems(w).iter().any(|s| terms.contains(s));
    if kind == Kind::Number {
        // A value is about what comes before it ("the probability … is 0.83", "data on 4406
        // individuals"); a value whose unit is a word of the question first ("150 words"), or
        // whose shape is asked for (a version, a date), then — when the question asks how many
        // — a count before a measured value ("299 women", not "10 years"), then the one
        // nearest after a word of the question, then the first.
        let counting = q.words.iter().any(|w| w == "many");
        let asks_version = q.words.iter().any(|w| w.starts_with("version"));
        let asks_date = q
            .words
            .iter()
            .any(|w| matches!(w.as_str(), "year" | "date" | "day"));
        let unit_asked = |c: &str| c.split_whitespace().nth(1).is_some_and(is_term);
        let shape_asked =
            |c: &str| asks_version && is_version(c) || asks_date && !asks_version && is_date(c);
        let after_term = |i: usize| {
            (0..i)
                .rev()
                .find(|&k| is_term(words[k]))
                .map_or(usize::MAX, |k| i - k)
        };
        let measured = |c: &str| counting && is_measured(c);
        return values(quote)
            .into_iter()
            .enumerate()
            .map(|(n, c)| {
                let key = (
                    !unit_asked(&c),
                    !shape_asked(&c),
                    measured(&c),
                    after_term(at(&c)),
                    n,
                );
                let lead = Lead {
                    strong: shape_asked(&c),
                    fits: unit_asked(&c) || shape_asked(&c),
                    text: c,
                };
                (key, lead)
            })
            .min_by_key(|(key, _)| *key)
            .map(|(_, lead)| lead);
    }
    if !matches!(kind, Kind::Name | Kind::Dataset) {
        return None;
    }
    // The question's own words, as a name may be made of them ("\bibliographystyle" for "which
    // bibliography style command"); not the naming nouns ("\usepackage" is no answer to every
    // "which package").
    let own: Vec<&str> = q
        .words
        .iter()
        .map(String::as_str)
        .filter(|w| w.chars().count() >= 4 && !NAMING.contains(w))
        .collect();
    let near_term = |i: usize| {
        words
            .iter()
            .enumerate()
            .filter(|(_, w)| is_term(w))
            .map(|(k, _)| k.abs_diff(i))
            .min()
            .unwrap_or(usize::MAX)
    };
    named(quote)
        .into_iter()
        .filter(|(n, form)| {
            !stems(n).iter().all(|s| terms.contains(s))
                && (!asks_code || kind != Kind::Name || *form == Form::Code)
                && !(loaded && n.starts_with('\\'))
        })
        .enumerate()
        .map(|(k, (n, _))| {
            let i = at(&n);
            let by_noun = noun.map_or(2, |noun| beside(&words, i, noun));
            // Made of them: at least half of its letters are the question's words.
            let lower: String = n
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric())
                .collect();
            let covered: usize = own
                .iter()
                .filter(|w| lower.contains(**w))
                .map(|w| w.len())
                .sum();
            let made_of = covered * 2 >= lower.len().max(1) && covered > 0;
            let item = i > 0 && words[i - 1] == "•";
            let key = (!made_of, by_noun, !item, near_term(i), k);
            let lead = Lead {
                strong: by_noun < 2 || made_of,
                fits: by_noun < 2 || made_of,
                text: n,
            };
            (key, lead)
        })
        .min_by_key(|(key, _)| *key)
        .map(|(_, lead)| lead)
}

/// What an answer leads with, and which quote (0 = the first) holds it: for a value question
/// the value nearest to a word of the question, for a name question the name nearest to one (a
/// name the question itself says is not an answer; for "which command / function", only a name
/// written as code; for "which package / library", no TeX command). The first quote's, unless
/// it holds nothing of the asked form and a later one does ("version 1.8b" in the third quote
/// when the first is a date; a value in the asked unit when the first has no value at all).
/// `None` when no quote holds one.
pub fn lead_of(q: &Question, quotes: &[&str]) -> Option<(usize, String)> {
    let best: Vec<Option<Lead>> = quotes.iter().map(|t| best_in(q, t)).collect();
    let strong = |i: usize| best[i].as_ref().is_some_and(|l| l.strong);
    let fits = |i: usize| best[i].as_ref().is_some_and(|l| l.fits);
    // (What a data set holds is told in words more than by a name: the first quote only.)
    let later = q.kind != Kind::Dataset && !best.is_empty() && !strong(0);
    let none_first = best.first().is_some_and(Option::is_none);
    let i = (1..best.len())
        .find(|&i| strong(i))
        .or_else(|| (1..best.len()).find(|&i| none_first && fits(i)))
        .filter(|_| later)
        .unwrap_or(0);
    best.into_iter().nth(i).flatten().map(|l| (i, l.text))
}

#[cfg(test)]
mod tests;
