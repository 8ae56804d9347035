//! The form of what a question asks for, as pure functions over a sentence: a value (a number,
//! with its unit when it has one) for "how many / how much / which value", a name for "which
//! function / library / data set / instrument" — one written as code (`rollapply()`,
//! `na.approx`, `\mubyte`), a proper noun or an acronym inside a sentence (Armadillo, LAPACK),
//! or the word a naming noun names ("the mstate package", "function monitor", "the sleepstudy
//! data"). `choose` gives the units that hold the asked form their cue, reads the units around
//! a good hit for it, and the answer leads with the value or name its first quote holds.

use super::candidate::{Kind, Question};
use super::text::{starts_with_unit, stems};

/// How many names written as code a sentence has: a call (`rollapply()`, `anova(f0, f1)`), a
/// dotted or underscored identifier (`na.approx`, `type_coef`), a camel-case one
/// (`xtsAttributes`, `evalCpp`), a class in straight quotes (`"zoo"`), a TeX control sequence
/// (`\mubyte`). Abbreviations (`e.g.`, `i.e.`) are not names.
pub fn code_names(s: &str) -> usize {
    s.split_whitespace().filter(|w| is_code_name(w)).count()
}

/// The names programmers give what stands for anything in a made-up example ("a function
/// foo()"): they name nothing a reader can use.
const PLACEHOLDERS: &[&str] = &[
    "foo", "bar", "baz", "qux", "quux", "foobar", "corge", "grault", "garply", "waldo", "fred",
    "plugh", "xyzzy", "thud", "hoge", "fuga", "piyo",
];

/// Whether a word is a placeholder name (`foo`, `bar()`, `\foo`, `foo.bar`).
fn is_placeholder(w: &str) -> bool {
    let w = w.split(['(', '{', '[']).next().unwrap_or(w);
    w.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .all(|p| PLACEHOLDERS.contains(&p.to_lowercase().as_str()))
        && w.chars().any(|c| c.is_ascii_alphabetic())
}

fn is_code_name(w: &str) -> bool {
    if is_placeholder(w) {
        return false;
    }
    let quoted = w.starts_with('"') && w.trim_end_matches([',', '.', ';', ')']).ends_with('"');
    let t = w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '('));
    let t = t.trim_end_matches('.');
    let ident = |x: &str| {
        x.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && x.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    };
    // A model's order in capitals ("AR(4)", "GARCH(1,1)") is notation, not a call.
    let order = w.split_once('(').is_some_and(|(name, args)| {
        let args: String = args.chars().take_while(|&c| c != ')').collect();
        bare(name)
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            && !args.is_empty()
            && args.chars().all(|c| c.is_ascii_digit() || c == ',')
    });
    let call = !order
        && t.split_once('(')
            .is_some_and(|(name, _)| name.len() >= 2 && ident(name));
    let dotted = ident(t) && t.contains('.') && t.split('.').all(|p| p.len() >= 2);
    let snake = ident(t) && t.contains('_');
    // A hump — a capital followed by a small letter (`xtsAttributes`, `evalCpp`) — and not a
    // word whose tail is in capitals (`encTEX`, `pTEX`): that is how names of programs are
    // written, and their case alone does not make them code.
    let camel = ident(t)
        && t.starts_with(|c: char| c.is_ascii_lowercase())
        && t.as_bytes()
            .windows(2)
            .any(|p| p[0].is_ascii_uppercase() && p[1].is_ascii_lowercase());
    // `pkg::fn`, `Class::method`.
    let scoped = t
        .split('(')
        .next()
        .and_then(|u| u.split_once("::"))
        .is_some_and(|(a, b)| ident(a) && ident(b));
    let control = w
        .trim_start_matches(['(', '‘', '\'', '`', '"'])
        .strip_prefix('\\')
        .is_some_and(|r| r.chars().take_while(char::is_ascii_alphabetic).count() >= 2);
    (quoted && w.len() >= 4) || call || dotted || snake || camel || scoped || control
}

/// Nouns that name what stands next to them: "the X package", "function X".
const NAMING: &[&str] = &[
    "package",
    "packages",
    "function",
    "functions",
    "command",
    "commands",
    "class",
    "classes",
    "library",
    "libraries",
    "data",
    "dataset",
    "method",
    "methods",
    "routine",
    "object",
    "option",
    "argument",
    "macro",
    "environment",
    "primitive",
    "field",
    "type",
    "format",
    "program",
    "tool",
    "algorithm",
    "optimizer",
    "estimator",
    "instrument",
    "corpus",
];

/// Naming nouns after which the name stands ("function monitor", "package zoo").
const CODE_NOUNS: &[&str] = &[
    "package",
    "function",
    "command",
    "class",
    "routine",
    "macro",
    "primitive",
    "environment",
    "option",
    "argument",
    "method",
];

/// Nouns that name something called in code ("function monitor", "the tmerge function"); a
/// question that asks for one asks for code.
const CALLABLE: &[&str] = &[
    "function",
    "functions",
    "command",
    "commands",
    "routine",
    "routines",
    "macro",
    "macros",
    "primitive",
    "primitives",
    "method",
    "methods",
];

/// How adjectives end ("the simulated data", "the empirical data", "the cross-sectional data").
const ADJECTIVE_ENDS: &[&str] = &["ed", "al", "ic", "ive", "ous", "ary", "ing", "ent", "ant"];

/// Words that stand before a naming noun without being a name ("the same function").
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "same",
    "following",
    "above",
    "new",
    "first",
    "second",
    "last",
    "main",
    "other",
    "original",
    "standard",
    "default",
    "previous",
    "next",
    "given",
    "corresponding",
    "whole",
    "full",
    "basic",
    "simple",
    "generic",
    "only",
    "each",
    "any",
    "all",
    "our",
    "their",
    "its",
    "his",
    "her",
    "of",
    "to",
    "in",
    "on",
    "for",
    "with",
    "by",
    "is",
    "are",
    "was",
    "be",
    "and",
    "or",
    "as",
    "which",
    "whose",
    "real",
    "raw",
    "such",
    "some",
    "one",
    "two",
    "several",
    "many",
    "own",
    "r",
    "c",
    "we",
    "it",
    "can",
    "may",
    "will",
    "not",
    "no",
    "from",
    "at",
    "into",
    "used",
    "using",
    "called",
    "frame",
    "frames",
    "set",
    "sets",
    "type",
    "types",
    "has",
    "have",
    "had",
    "returns",
    "does",
    "takes",
    "gives",
    "uses",
    "computes",
    "provides",
    "allows",
    "calls",
    "call",
    "here",
    "there",
    "then",
    "also",
    "would",
    "should",
    "could",
    "must",
    "might",
    "shall",
    "above",
    "below",
    "itself",
];

/// Words after a number that are not its unit.
const NOT_UNITS: &[&str] = &[
    "and", "or", "the", "of", "to", "in", "is", "are", "was", "were", "with", "for", "by", "on",
    "at", "from", "that", "which", "as", "but", "than",
];

/// Capitalized words that are not names when they stand inside a sentence.
const COMMON_CAPITALS: &[&str] = &[
    "Section", "Sections", "Figure", "Figures", "Table", "Tables", "Appendix", "Chapter",
    "Equation", "Eq", "Fig", "Example", "Note", "In", "The", "For", "This", "We", "It", "If",
];

fn bare(w: &str) -> &str {
    w.trim_matches(|c: char| !c.is_alphanumeric())
}

/// A 4-digit year, as a citation has it ("2010)", "(1984").
fn is_year(w: &str) -> bool {
    let t = bare(w);
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    digits.len() == 4 && (digits.starts_with("19") || digits.starts_with("20"))
}

/// Whether the capitalized word at `i` is an author's name: followed by the year or the "et
/// al." of a citation ("Sanderson (2010)", "Guennebaud et al."), or by more names joined by
/// "and", "&" or commas that end so ("Royston and Altman (1994)", "Hartigan, Kleiner and
/// Friendly 1984") — or that end the sentence where a quote was cut before the year
/// ("… discussed by Royston and Altman").
fn is_cited(words: &[&str], i: usize) -> bool {
    let capital = |w: &str| bare(w).starts_with(|c: char| c.is_uppercase());
    let closes = |w: &str| is_year(w) || w == "et" || w == "(et";
    let mut k = i + 1;
    let mut joined = 0;
    loop {
        let Some(next) = words.get(k) else {
            // The quote ends on the names: a citation cut before its year, when two or more
            // names are joined and nothing closes the sentence.
            return joined > 0 && !words[k - 1].ends_with(['.', '!', '?', ':', ';']);
        };
        if closes(next) {
            return true;
        }
        let comma = words[k - 1].ends_with(',');
        if matches!(*next, "and" | "&") && words.get(k + 1).is_some_and(|n| capital(n)) {
            k += 2;
        } else if comma && capital(next) && !closes(words[k - 1]) {
            k += 1;
        } else {
            return false;
        }
        joined += 1;
        if words[k - 1].ends_with(['.', '!', '?', ':', ';']) {
            // "… and Altman." ends the sentence: names cut off before their year only
            // when the year is what follows.
            return words.get(k).is_some_and(|n| closes(n));
        }
    }
}

/// The first name of the names joined to the one at `i` ("Royston" for "Altman" in "Royston
/// and Altman").
fn chain_start(words: &[&str], i: usize) -> usize {
    let capital = |w: &str| bare(w).starts_with(|c: char| c.is_uppercase());
    let mut k = i;
    loop {
        if k >= 2 && matches!(words[k - 1], "and" | "&") && capital(words[k - 2]) {
            k -= 2;
        } else if k >= 1 && words[k - 1].ends_with(',') && capital(words[k - 1]) {
            k -= 1;
        } else {
            return k;
        }
    }
}

/// How a name is written, which tells what it can answer: code (and a word a code noun
/// names) answers "which command / function", the others a name question of any kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Written as code (see [`code_names`]) or named by a code noun ("function monitor").
    Code,
    /// An acronym, a proper noun, a mixed-case word, or what another naming noun names.
    Word,
}

/// The names a sentence holds, in order (see the module's head), without authors cited by
/// year ("Sanderson, 2010"), placeholders ("foo") or abbreviations written with stops ("U.S.").
pub fn names(s: &str) -> Vec<String> {
    named(s).into_iter().map(|(n, _)| n).collect()
}

fn named(s: &str) -> Vec<(String, Form)> {
    let words: Vec<&str> = s.split_whitespace().collect();
    // A heading in capitals names nothing by its capitals.
    let caps = words
        .iter()
        .filter(|w| bare(w).chars().all(|c| !c.is_lowercase()))
        .count();
    let shouting = caps * 2 > words.len();
    let mut out: Vec<(String, Form)> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let t = bare(w);
        if t.is_empty() || is_placeholder(w) {
            continue;
        }
        let cited = is_cited(&words, chain_start(&words, i));
        let after_stop =
            i == 0 || words[i - 1].ends_with(['.', ':', '?', '!']) || words[i - 1].starts_with('•');
        let letters = t.chars().filter(|c| c.is_alphabetic()).count();
        let upper = t.chars().filter(|c| c.is_uppercase()).count();
        let first_upper = t.starts_with(|c: char| c.is_uppercase());
        // "U.S.", "E.U.": an abbreviation, not a name.
        let stops = t.split('.').count() > 1 && t.split('.').all(|p| p.chars().count() <= 1);
        let acronym = !shouting
            && !stops
            && letters >= 2
            && upper == letters
            && t.len() <= 10
            && !t.chars().all(|c| "IVXLC".contains(c));
        // "NeweyWest", "LaTeX", and "encTEX", "vcovHC" (a name, not code by its case alone).
        let mixed = first_upper && upper >= 2 && upper < letters && letters >= 4 && !cited
            || !first_upper && upper >= 1 && letters >= 4 && t.chars().all(char::is_alphanumeric);
        let proper = !shouting
            && first_upper
            && upper == 1
            && letters >= 3
            && !after_stop
            && !COMMON_CAPITALS.contains(&t)
            && !words
                .get(i + 1)
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
        let lower = t.to_lowercase();
        let named = |k: usize| {
            words
                .get(k)
                .is_some_and(|n| NAMING.contains(&bare(n).to_lowercase().as_str()))
        };
        // "the mstate package" / "function monitor": a word that reads as a name, not as an
        // adjective ("the simulated data") or a verb ("the function returns").
        let plain = t.chars().all(|c| c.is_ascii_lowercase() || c == '-');
        let adjective = plain && ADJECTIVE_ENDS.iter().any(|e| lower.ends_with(e));
        let verb = plain && lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 3;
        let identifier = t
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'));
        let by_noun = identifier
            && !NOT_NAMES.contains(&lower.as_str())
            && letters >= 2
            && (named(i + 1) && i > 0 && matches!(bare(words[i - 1]), "the" | "The") && !adjective
                || i > 0
                    && words
                        .get(i - 1)
                        .is_some_and(|p| CODE_NOUNS.contains(&bare(p).to_lowercase().as_str()))
                    && !verb
                    && !t.chars().all(|c| c.is_ascii_digit()));
        // As written, a control sequence with its backslash.
        let shown = w
            .split(['(', '{'])
            .next()
            .unwrap_or(w)
            .trim_matches(|c: char| !(c.is_alphanumeric() || c == '\\' || c == '_' || c == '.'))
            .trim_end_matches('.');
        let callable = |k: usize| {
            words
                .get(k)
                .is_some_and(|n| CALLABLE.contains(&bare(n).to_lowercase().as_str()))
        };
        let code = is_code_name(w) || by_noun && (i > 0 && callable(i - 1) || callable(i + 1));
        if (code || acronym || mixed || proper && !cited || by_noun)
            && !out.iter().any(|(o, _)| o == shown)
        {
            let form = if code { Form::Code } else { Form::Word };
            out.push((shown.to_string(), form));
        }
    }
    out
}

/// Whether a sentence cites its source by authors ("Royston and Altman (1994)", "Deb and
/// Trivedi (1997) analyze data on …"): no name to lead with, but a data set is often known by
/// who collected it.
pub fn cites_authors(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    (0..words.len()).any(|i| {
        let t = bare(words[i]);
        t.starts_with(|c: char| c.is_uppercase())
            && t.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && is_cited(&words, chain_start(&words, i))
    })
}

/// Whether a sentence holds a name.
pub fn has_name(s: &str) -> bool {
    !names(s).is_empty()
}

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
    if token.trim_end_matches([',', '.', ';', ':']) == format!("({number})") && number.len() <= 2 {
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

/// The values of a sentence, in order: each number with the unit that follows it ("4406
/// individuals", "14 pt", "0.8279847", "45%"); a cross-reference or a citation's year is not
/// a value (see [`is_reference`]).
pub fn values(s: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (at, c) = chars[k];
        // A number starts at a digit that does not end a name ("X1", "v2", "ε-TeX3").
        let glued = k > 0 && (chars[k - 1].1.is_alphanumeric() || chars[k - 1].1 == '_');
        if !c.is_ascii_digit() || glued {
            k += 1;
            continue;
        }
        let mut end = k;
        while end < chars.len()
            && (chars[end].1.is_ascii_digit()
                || matches!(chars[end].1, '.' | ',')
                    && chars.get(end + 1).is_some_and(|n| n.1.is_ascii_digit()))
        {
            end += 1;
        }
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
            // "10pt", "2nd": the unit glued on, or an ordinal.
            let word: String = s[stop..]
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            if starts_with_unit(&word) {
                out.push(format!("{number}{word}"));
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

/// What an answer leads with: for a value question the value of `quote` nearest to a word of
/// the question, for a name question its name nearest to one (a name the question itself says
/// is not an answer; for "which command / function", only a name written as code). `None`
/// when the quote holds none.
pub fn lead(q: &Question, quote: &str) -> Option<String> {
    let terms = &q.terms;
    let kind = q.kind;
    // "Which command …", "which function …": code answers, not an acronym or a proper noun.
    let asks_code = q.words.iter().any(|w| CALLABLE.contains(&w.as_str()));
    let candidates = match kind {
        Kind::Number => values(quote),
        Kind::Name | Kind::Dataset => named(quote)
            .into_iter()
            .filter(|(n, form)| {
                !stems(n).iter().all(|s| terms.contains(s))
                    && (!asks_code || kind != Kind::Name || *form == Form::Code)
            })
            .map(|(n, _)| n)
            .collect(),
        _ => return None,
    };
    let words: Vec<&str> = quote.split_whitespace().collect();
    let at = |c: &str| {
        let first = c.split_whitespace().next().unwrap_or(c);
        words.iter().position(|w| w.contains(first)).unwrap_or(0)
    };
    let is_term = |w: &str| stems(w).iter().any(|s| terms.contains(s));
    if kind == Kind::Number {
        // A value is about what comes before it ("the probability … is 0.83", "data on 4406
        // individuals"); a value whose unit is a word of the question first ("150 words"), then
        // — when the question asks how many — a count before a measured value ("299 women",
        // not "10 years"), then the one nearest after a word of the question, then the first.
        let counting = q.words.iter().any(|w| w == "many");
        let unit_asked = |c: &str| c.split_whitespace().nth(1).is_some_and(is_term);
        let after_term = |i: usize| {
            (0..i)
                .rev()
                .find(|&k| is_term(words[k]))
                .map_or(usize::MAX, |k| i - k)
        };
        let measured = |c: &str| counting && is_measured(c);
        return candidates
            .into_iter()
            .enumerate()
            .min_by_key(|(n, c)| (!unit_asked(c), measured(c), after_term(at(c)), *n))
            .map(|(_, c)| c);
    }
    let near_term = |i: usize| {
        words
            .iter()
            .enumerate()
            .filter(|(_, w)| is_term(w))
            .map(|(k, _)| k.abs_diff(i))
            .min()
            .unwrap_or(usize::MAX)
    };
    candidates.into_iter().min_by_key(|c| near_term(at(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_code_proper_nouns_acronyms_and_what_a_noun_names() {
        assert_eq!(
            names("Then apply the function rollapply() to the series."),
            ["rollapply"]
        );
        assert_eq!(
            names("We use the data frame PublicSchools from the sandwich package."),
            ["PublicSchools", "sandwich"]
        );
        assert_eq!(
            names("The msm package addresses panel data, while mstate and LAPACK help."),
            ["msm", "LAPACK"]
        );
        assert_eq!(
            names("The entry is added by the \\mubyte primitive."),
            ["\\mubyte"]
        );
        // An author cited by year is not the answer; a sentence's first word is not a name.
        assert!(names("Libraries like those of Sanderson (2010) are used.").is_empty());
        assert!(names("The same function is used.").is_empty());
        assert!(names("Evaluate some function, e.g., the mean, as the function would.").is_empty());
        assert_eq!(
            names("A function fit(lmobj, vcov) and \\bibliography{refs} are used."),
            ["fit", "\\bibliography"]
        );
        assert!(names("The analysis of multi-state data has four key steps.").is_empty());
        assert!(
            names("We fit the simulated data with the function; it returns a list.").is_empty()
        );
    }

    #[test]
    fn values_are_numbers_with_their_units() {
        assert_eq!(
            values("Data on 4406 individuals aged 66 and over."),
            ["4406 individuals", "66"]
        );
        assert_eq!(values("[1] 0.8279847"), ["1", "0.8279847"]);
        assert_eq!(values("The margins are 14 pt wide."), ["14 pt"]);
        assert_eq!(
            values("Titles use 10pt (8 pt), about 4% of X1 in 1997 analyze."),
            ["10pt", "8 pt", "4%", "1997"]
        );
        assert_eq!(values("默认每页最多可以放 3 个浮动体"), ["3 个"]);
        // A cross-reference or a citation's year says no value; a year in prose does.
        assert!(values("(2) In extended mode, x = y (3).").is_empty());
        assert!(
            values("A mosaic plot (Hartigan and Kleiner 1984) is shown in Section 3.3.").is_empty()
        );
        assert!(
            values("Edwards and Berry (1987) and Sanderson et al. (2010a) did it, see Table 2.")
                .is_empty()
        );
        assert_eq!(
            values("It used 80.000 runs (Sanderson, 2010), in 1997, since Dec 2002 (2 pages)."),
            ["80.000 runs", "1997", "2002", "2 pages"]
        );
    }

    fn ask(question: &str) -> Question {
        super::super::rank::read_question(question, None)
    }

    #[test]
    fn the_lead_is_the_value_or_name_nearest_the_question() {
        let q = ask("How many individuals are in the data?");
        assert_eq!(
            lead(&q, "Table 3 lists data on 4406 individuals."),
            Some("4406 individuals".to_string())
        );
        let q = ask("What window size is used?");
        assert_eq!(
            lead(
                &q,
                "We use W = 150 and S = 75, so every sentence appears in two windows."
            ),
            Some("150".to_string())
        );
        let q = ask("Which function builds start-stop data?");
        assert_eq!(
            lead(&q, "The start-stop data are built by the tmerge function."),
            Some("tmerge".to_string())
        );
        let q = ask("Why is the sky blue?");
        assert_eq!(lead(&q, "tmerge"), None);
    }

    #[test]
    fn authors_of_a_citation_are_not_names_even_when_the_quote_stops_before_the_year() {
        let cut = "The second is data on fetal mandible length discussed by Royston and Altman";
        assert!(names(cut).is_empty(), "{:?}", names(cut));
        assert!(
            names("As Royston and Altman (1994) and Hartigan, Kleiner and Friendly 1984 show.")
                .is_empty()
        );
        assert!(
            names("Models by Venables & Ripley (2002) and Sanderson et al. (2010) fit.").is_empty()
        );
        // Names that end a sentence are not a cut citation; an abbreviation is no name.
        assert_eq!(
            names("We compare it with Armadillo and Eigen."),
            ["Armadillo", "Eigen"]
        );
        assert!(names("A series from the U.S. is used.").is_empty());
        let q = ask("What is measured in the jaw bone data set?");
        assert_eq!(lead(&q, cut), None);
        assert!(cites_authors(cut));
        assert!(!cites_authors("We compare it with Armadillo and Eigen."));
    }

    #[test]
    fn a_how_many_question_leads_with_a_count_before_a_measured_value() {
        let q = ask("How many patients are in the ovarian cancer data?");
        let s = "Information was obtained from 299 women, who were operated for cancer 10 years before.";
        assert_eq!(lead(&q, s), Some("299 women".to_string()));
        // A measured value answers "how long"; a count of the asked noun comes first.
        let q = ask("How long before the study were they operated?");
        assert_eq!(lead(&q, s), Some("10 years".to_string()));
        let q = ask("How many years of follow-up are there?");
        assert_eq!(lead(&q, s), Some("10 years".to_string()));
    }

    #[test]
    fn a_command_question_leads_with_code_and_mixed_case_is_not_code() {
        assert_eq!(code_names("The encTEX and pTEX maps UTF-8 codes."), 0);
        assert_eq!(code_names("Call stats::lm(y ~ x) or utils::head."), 2);
        let q = ask("Which command maps an input byte to a control sequence?");
        assert_eq!(
            lead(
                &q,
                "The encTEX maps UTF-8 bytes to a control sequence with \\mubyte."
            ),
            Some("\\mubyte".to_string())
        );
        assert_eq!(
            lead(&q, "The encTEX maps UTF-8 codes to control sequences."),
            None
        );
        let q = ask("Which function fits the model?");
        assert_eq!(
            lead(&q, "In R the LM is fitted with stats::lm on the data."),
            Some("stats::lm".to_string())
        );
        // A model's order is notation, not a call.
        assert_eq!(
            code_names("Is AR(4) or GARCH(1,1) a better fit than ar(4)?"),
            1
        );
        let q = ask("Which function tests the lag coefficients?");
        assert_eq!(
            lead(
                &q,
                "We test whether the AR(4) lag coefficients are constant."
            ),
            None
        );
        // A name question that asks for no code still takes a word.
        let q = ask("Which library do they use for the matrix algebra?");
        assert_eq!(
            lead(&q, "The matrix algebra uses LAPACK."),
            Some("LAPACK".to_string())
        );
    }

    #[test]
    fn placeholder_names_never_lead() {
        let s = "Say, a function foo(lmobj, vcov = x) calls bar() with \\baz and vcovHC.";
        assert_eq!(names(s), ["vcovHC"]);
        assert_eq!(code_names(s), 0);
        let q = ask("Which function estimates robust standard errors?");
        assert_eq!(
            lead(&q, "Say, a function foo(lmobj) wants standard errors."),
            None
        );
    }
}
