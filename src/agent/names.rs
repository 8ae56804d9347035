//! Names in a sentence, as pure functions: a name written as code (`rollapply()`, `na.approx`,
//! `\mubyte`), a proper noun or an acronym inside a sentence (Armadillo, LAPACK), or the word a
//! naming noun names ("the mstate package", "function monitor", "the sleepstudy data"); and what
//! is not one: the authors of a citation, placeholders (`foo`), common capitalized words. What a
//! "which function / library / data set" question is answered with ([`super::value::lead_of`]).

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
pub(super) const NAMING: &[&str] = &[
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
pub(super) const CALLABLE: &[&str] = &[
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

/// Capitalized words that are not names when they stand inside a sentence.
const COMMON_CAPITALS: &[&str] = &[
    "Section", "Sections", "Figure", "Figures", "Table", "Tables", "Appendix", "Chapter",
    "Equation", "Eq", "Fig", "Example", "Note", "In", "The", "For", "This", "We", "It", "If",
];

pub(super) fn bare(w: &str) -> &str {
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

/// Punctuation that parts two words: a name and a noun with it between do not go together.
const STOPS: [char; 6] = [',', ';', ':', '.', '?', '!'];

/// Whether the word at `i` is what `noun` (or its plural) names: 0 right after it ("the
/// package longtable", "option fleqn"), 1 right before it after "the" ("the listings
/// package", "the “acks” environment"), 2 neither ("a Mac-specific program" describes the
/// program; "the package, please" is no name). After comes first: in "the LaTeX2e package
/// longtable" the word before is what kind of package.
pub(super) fn beside(words: &[&str], i: usize, noun: &str) -> u8 {
    let is_noun = |k: usize| {
        words.get(k).is_some_and(|w| {
            let w = bare(w).to_lowercase();
            w == noun || w.strip_suffix('s') == Some(noun) || noun.strip_suffix('s') == Some(&w)
        })
    };
    let article = |k: usize| bare(words[k]).eq_ignore_ascii_case("the");
    if i > 0 && is_noun(i - 1) && !words[i - 1].ends_with(STOPS) {
        0
    } else if i > 0 && article(i - 1) && is_noun(i + 1) && !words[i].ends_with(STOPS) {
        1
    } else {
        2
    }
}

/// How a name is written, which tells what it can answer: code (and a word a code noun
/// names) answers "which command / function", the others a name question of any kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
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

pub(super) fn named(s: &str) -> Vec<(String, Form)> {
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
                    && words.get(i - 1).is_some_and(|p| {
                        // "function monitor", not "the package, please".
                        CODE_NOUNS.contains(&bare(p).to_lowercase().as_str()) && !p.ends_with(STOPS)
                    })
                    && !verb
                    && !t.chars().all(|c| c.is_ascii_digit()));
        // As written, a control sequence with its backslash, up to what cannot be in a name
        // ("\\mubyteout>=2" is `\\mubyteout`); an environment by its name ("\\begin{acks}" names
        // `acks`).
        let environment = ["\\begin{", "\\end{"]
            .iter()
            .find_map(|b| w.split_once(b).map(|(_, r)| r))
            .and_then(|r| r.split_once('}'))
            .map(|(e, _)| e)
            .filter(|e| !e.is_empty() && e.chars().all(|c| c.is_alphanumeric() || c == '*'));
        let start = w
            .find(|c: char| c.is_alphanumeric() || c == '\\')
            .unwrap_or(w.len());
        let run: &str = {
            let r = &w[start..];
            let end = r
                .char_indices()
                .skip(1)
                .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')))
                .map_or(r.len(), |(k, _)| k);
            &r[..end]
        };
        let shown = environment.unwrap_or(run).trim_end_matches(['.', ':', '-']);
        let callable = |k: usize| {
            words
                .get(k)
                .is_some_and(|n| CALLABLE.contains(&bare(n).to_lowercase().as_str()))
        };
        let code = is_code_name(w) || by_noun && (i > 0 && callable(i - 1) || callable(i + 1));
        // The head of a list item that names what it describes ("• mathptmx, to use Times
        // fonts", "• PdfDraftCopy: the package …"): one word, not a common one, before a comma
        // or a colon.
        let head = i > 0
            && words[i - 1] == "•"
            && w.ends_with([',', ':'])
            && identifier
            && letters >= 3
            && !NOT_NAMES.contains(&lower.as_str())
            && !COMMON_CAPITALS.contains(&t)
            && (t.chars().all(|c| !c.is_uppercase()) || upper >= 2);
        if (code || acronym || mixed || proper && !cited || by_noun || head)
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
}
