//! A paper's apparatus, which is never evidence: its reference list (under a "References" heading,
//! or a page that continues one — lines that start entries like "Author AB, Other C (2009).",
//! "Author, A. (2009).", "[12] A. Author", with years and DOIs), its front matter (the title
//! page's author list and affiliations, a table of contents) and its page furniture (running
//! heads and page numbers, which `shape` tells by their place). Pure functions over the lines of
//! a page's text.

use std::sync::LazyLock;

use regex::Regex;

/// A year as entries print it: 1900–2099, maybe with a letter ("2009a").
static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(?:19|20)\d\d[a-z]?\b").unwrap());

/// The start of an entry: a label ("[12]", "12."), or a family name followed by initials in
/// one of the common styles ("Zeileis A,", "Zeileis A (2004)", "Zeileis, A.", "A. Zeileis,").
static ENTRY_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:",
        r"\[[\p{L}\d+ ,.-]{1,12}\]\s*\S",
        r"|\d{1,3}\.\s+\p{Lu}",
        r"|(?:[a-z]{1,3}\s+){0,2}\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?\s+\p{Lu}{1,3}(?:,|\s+\(|\s+and\s|\s*$)",
        r"|\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?,\s+(?:\p{Lu}\.\s?-?)+",
        r"|(?:\p{Lu}\.\s?-?)+\s*\p{Lu}[\p{L}'’-]+\s*(?:,|and\s|&)",
        // The AMS styles' given name first: "Alan Genz. Numerical …", "Torsten Hothorn, Frank".
        r"|\p{Lu}\p{Ll}[\p{L}'’-]*(?:\s+\p{Lu}\.)*\s+\p{Lu}[\p{L}'’-]+(?:\.(?:\s|$)|,\s+(?:and\s+)?\p{Lu})",
        r")"
    ))
    .unwrap()
});

/// A DOI or a web address, as entries end.
static LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bdoi:|doi\.org/|\b10\.\d{4,}/|https?://|\bURL\b").unwrap());

/// A volume and issue or a page range ("16(3)", "507–525", "pp. 3-9").
static LOCATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d+\s*\(\d+[^)]{0,6}\)|\b\d+\s*[–-]\s*\d+\b|\bpp?\.\s*\d|\bvol\.\s*\d").unwrap()
});

/// An author as entries name one: "Andrews DWK (", "Zeileis A,", "Zeileis, A.", "R. Koenker,".
static AUTHOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\p{Lu}[\p{L}'’-]+,?\s+\p{Lu}{1,3}(?:,|\s*\()",
        r"|\p{Lu}[\p{L}'’-]+,\s+(?:\p{Lu}\.\s?)+",
        r"|(?:\p{Lu}\.\s?)+\p{Lu}[\p{L}'’-]+,"
    ))
    .unwrap()
});

/// Whether a passage (a search card's excerpt, which starts anywhere in a line) is a run of
/// bibliography entries: two years or more and two authors named as entries name them. Prose
/// that cites papers ("as Zeileis (2004) shows") names no author that way.
pub fn looks_like_entries(text: &str) -> bool {
    YEAR.find_iter(text).count() >= 2 && AUTHOR.find_iter(text).count() >= 2
}

/// A reference-list heading ("References", "7 Bibliography", "Literatur", "参考文献").
pub fn is_reference_heading(line: &str) -> bool {
    let t = line
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
        .trim_end_matches(':')
        .to_lowercase();
    matches!(
        t.as_str(),
        "references"
            | "reference"
            | "bibliography"
            | "literature cited"
            | "works cited"
            | "references and notes"
            | "literatur"
            | "literaturverzeichnis"
            | "bibliographie"
            | "bibliografía"
            | "referencias"
            | "références"
            | "参考文献"
            | "参考 文献"
            | "參考文獻"
            | "참고문헌"
    )
}

/// A line that starts an entry of a reference list: its start has the shape of one, and the
/// line has what entries have (a year, a DOI or address, a volume or pages) — prose that starts
/// with a name ("Koenker R showed …") has neither.
pub fn is_entry_start(line: &str) -> bool {
    let t = line.trim();
    has_entry_shape(t) && has_entry_mark(t)
}

fn has_entry_shape(line: &str) -> bool {
    line.chars().count() >= 12 && ENTRY_START.is_match(line)
}

/// Whether the line at `content[j]` (indices of `lines`) starts an entry: as
/// [`is_entry_start`], or with the entry's year, link or locator on one of the two lines it
/// wraps onto (the AMS styles end an entry with its year: "Alan Genz. Numerical computation of
/// multivariate normal probabilities." / "Journal of …, 1:141–149, 1992.").
fn starts_entry(lines: &[&str], content: &[usize], j: usize) -> bool {
    let t = lines[content[j]].trim();
    has_entry_shape(t)
        && (has_entry_mark(t)
            || content[j + 1..]
                .iter()
                .take(2)
                .take_while(|&&i| !has_entry_shape(lines[i].trim()))
                .any(|&i| has_entry_mark(lines[i])))
}

/// Something an entry's line has: a year, a link, a volume or page range.
fn has_entry_mark(line: &str) -> bool {
    YEAR.is_match(line) || LINK.is_match(line) || LOCATOR.is_match(line)
}

/// A heading line that ends a reference list ("A. Data sets", "Appendix", "B Proofs"): short,
/// no year, no end punctuation, not the start of an entry.
fn is_heading_line(line: &str) -> bool {
    let t = line.trim();
    let words = t.split_whitespace().count();
    (1..=6).contains(&words)
        && t.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && !t.ends_with(['.', ',', ';', ':', '–', '-'])
        && !has_entry_mark(t)
        && !is_entry_start(t)
        && t.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Entries a page must start in its list for the list to count without a heading.
const MIN_ENTRIES: usize = 3;

/// Which lines of `lines` (a page's lines in reading order, blank ones included) belong to a
/// reference list: after a reference heading while the lines look like entries, or — a page
/// that continues a list — from the page's first entries on, when they start at the top of the
/// page and are many. A list ends at a heading line ("A. Data sets") or at prose.
pub fn reference_lines(lines: &[&str]) -> Vec<bool> {
    let mut out = vec![false; lines.len()];
    let content: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    // Where a list may start: after each heading, and at any entry outside a list found so far
    // (a page that continues a list, a list whose heading the reading order put elsewhere).
    let mut k = 0;
    while k < content.len() {
        let headed = is_reference_heading(lines[content[k]]);
        if !headed && (out[content[k]] || !starts_entry(lines, &content, k)) {
            k += 1;
            continue;
        }
        let from = if headed { k + 1 } else { k };
        let rest = &content[from.min(content.len())..];
        let run = list_run(lines, rest);
        let entries = (0..run.len())
            .filter(|&j| starts_entry(lines, rest, j))
            .count();
        // Without a heading, lines count as a list only when entries are most of them.
        let enough = if headed {
            entries >= 1
        } else {
            entries >= MIN_ENTRIES && run.len() <= entries * 5
        };
        if enough {
            for &i in &run {
                out[i] = true;
            }
        }
        k = from + if enough { run.len().max(1) } else { 1 };
    }
    out
}

/// The lines of a list from `content[0]` on: entries and the lines they wrap onto, until a
/// heading line or a stretch of prose (four lines in a row without any mark of an entry, none
/// of them starting one).
fn list_run(lines: &[&str], content: &[usize]) -> Vec<usize> {
    let mut run: Vec<usize> = Vec::new();
    let mut plain = 0;
    let mut started = false;
    let mut headed_off = false;
    for (j, &i) in content.iter().enumerate() {
        let l = lines[i];
        if starts_entry(lines, content, j) {
            started = true;
            plain = 0;
        } else if is_heading_line(l) && started {
            headed_off = true;
            break;
        } else if !has_entry_mark(l) {
            plain += 1;
            if plain >= 4 || !started {
                break;
            }
        } else {
            plain = 0;
        }
        run.push(i);
    }
    // Plain lines after the last entry are prose when the list ran into prose (or the page
    // ended on two or more of them); before a heading, one is the last entry's wrapped line.
    if !headed_off && plain >= 2 {
        run.truncate(run.len().saturating_sub(plain.min(3)));
    }
    run
}

/// A line of a table of contents: a section number, a title, a page number at the end
/// ("2.1 Fitting the model 7"), or the title and dot leaders.
pub fn is_contents_line(line: &str) -> bool {
    static TOC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(?:[A-Z]|\d{1,2}(?:\.\d{1,2})*)\.?\s+\p{L}[^.!?]{1,80}?(?:\s|\.{2,}\s*)\d{1,3}$",
        )
        .unwrap()
    });
    let t = line.trim();
    TOC.is_match(t) || t.contains(". . .") || t.contains("....")
}

/// Which lines of a page are a table of contents: contents lines, when the page has four or
/// more of them (one numbered heading with a number is not a contents list).
pub fn contents_lines(lines: &[&str]) -> Vec<bool> {
    let marks: Vec<bool> = lines.iter().map(|l| is_contents_line(l)).collect();
    if marks.iter().filter(|m| **m).count() >= 4 {
        marks
    } else {
        vec![false; lines.len()]
    }
}

/// Words of an affiliation line.
const AFFILIATION: &[&str] = &[
    "university",
    "universität",
    "universitat",
    "université",
    "universidad",
    "department",
    "dept.",
    "institute",
    "institut",
    "laboratory",
    "college",
    "school of",
    "faculty",
    "fakultät",
    "centre",
    "center for",
    "gmbh",
    "inc.",
];

/// Front matter of a title page: an author list, an affiliation or an address (an e-mail). A
/// sentence of prose (a verb, a full stop after ten words) is not, whatever it names.
pub fn is_front_matter(unit: &str) -> bool {
    static EMAIL: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[\w.+-]+@[\w-]+\.[\w.-]+").unwrap());
    let t = unit.trim();
    let lower = t.to_lowercase();
    let words: Vec<&str> = t.split_whitespace().collect();
    let prose = words.len() >= 10 && t.ends_with('.') && !EMAIL.is_match(t);
    if prose {
        return false;
    }
    if EMAIL.is_match(t) {
        return true;
    }
    if !t.ends_with('.') && AFFILIATION.iter().any(|a| lower.contains(a)) {
        return true;
    }
    // "Achim Zeileis, Christian Kleiber and Kurt Hornik": two or more names of two to four
    // capitalised words each, parted by commas and "and", nothing else.
    let groups: Vec<&str> = t
        .split([',', '&'])
        .flat_map(|g| g.split(" and "))
        .flat_map(|g| g.split(" und "))
        .map(str::trim)
        .filter(|g| !g.is_empty())
        .collect();
    groups.len() >= 2
        && !t.ends_with('.')
        && groups.iter().all(|g| {
            let ws: Vec<&str> = g.split_whitespace().collect();
            (2..=4).contains(&ws.len())
                && ws.iter().all(|w| {
                    let w = w.trim_end_matches(['*', '†', '‡']);
                    w.chars().next().is_some_and(char::is_uppercase)
                        && w.chars()
                            .all(|c| c.is_alphabetic() || matches!(c, '.' | '-' | '\''))
                })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(page: &str) -> Vec<(String, bool)> {
        let lines: Vec<&str> = page.lines().collect();
        reference_lines(&lines)
            .into_iter()
            .zip(lines)
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(r, l)| (l.to_string(), r))
            .collect()
    }

    #[test]
    fn entries_of_the_common_styles_start_entries() {
        for e in [
            "Unwin AR, Hawkins G, Hofmann H, Siegl B (1996). “Interactive Graphics for Data Sets",
            "Young FW (1996). “ViSta: The Visual Statistics System.” Technical Report 94–1(c), UNC",
            "Zeileis, A. and Hothorn, T. (2002). Diagnostic checking in regression. R News 2(3).",
            "[12] A. Vaswani, N. Shazeer. Attention is all you need. In NeurIPS, 2017.",
            "3. D. E. Knuth, The TeXbook, Addison-Wesley, 1984.",
            "R. Koenker and G. Bassett, Regression quantiles, Econometrica 46 (1978), 33–50.",
            "van der Vaart AW (1998). Asymptotic Statistics. Cambridge University Press.",
        ] {
            assert!(is_entry_start(e), "{e}");
        }
        for p in [
            "Koenker R showed that the estimator is consistent under mild conditions.",
            "The model of Zeileis et al. (2008) is fitted below.",
            "In 2009, the package was rewritten.",
            "Table 3 lists the results for 2001 to 2009.",
            "References",
        ] {
            assert!(!is_entry_start(p), "{p}");
        }
    }

    #[test]
    fn a_page_that_continues_a_list_is_the_list_until_its_appendix() {
        let page = "Unwin AR, Hawkins G, Hofmann H, Siegl B (1996). “Interactive Graphics for Data Sets\nwith Missing Values – MANET.” Journal of Computational and Graphical Statistics, 4(6),\n113–122.\nUrbanek S, Wichtrey T (2006). iplots: Interactive Graphics for R. R package version 1.0-3,\nURL http://www.rosuda.org/iPlots/.\nYoung FW (1996). “ViSta: The Visual Statistics System.” Technical Report 94–1(c), UNC\nL. L. Thurstone Psychometric Laboratory Research Memorandum.\n\nA. Data sets\nThe data set names in the paper are those from the R system. In the following, we give a\nshort description of each data set.\nArthritis Data from a double-blind clinical trial investigating a new treatment.";
        let r = refs(page);
        assert!(r[..7].iter().all(|(_, x)| *x), "{r:?}");
        assert!(r[7..].iter().all(|(_, x)| !*x), "{r:?}");
    }

    #[test]
    fn an_ams_style_page_that_continues_a_list_is_the_list() {
        // The last page of an R News article: the list's heading is on the page before, and
        // each entry's year is on its last line.
        let page = "Alan Genz. Numerical computation of multivariate normal probabilities.\n\nJournal of Computational and Graphical Statistics, 1:141–149, 1992.\nAlan Genz. Comparison of methods for the computation of multivariate\n\nnormal probabilities. Computing Science and Statistics, 25:400–405, 1993.\nP.D. Watson, M. B. Wolf, and I.S. Beck-Montgemery. Blood and isoproterenol\nreduce capillary permeability in cat hindlimb. The American Journal\nof Physiology, 252:H47–H53, 1987.";
        let r = refs(page);
        assert!(r.iter().all(|(_, x)| *x), "{r:?}");
        assert!(!is_entry_start(
            "Alan Genz. Numerical computation of multivariate normal probabilities."
        ));
        // Prose that names people given name first, with years, is still prose.
        let prose = "Alan Genz. His method is the one used here since 1992 and it is fast.\nIt needs no tuning at all and works in any dimension the user asks for.\nTorsten Hothorn, Frank Bretz and others wrote the package in 2001 and 2002.\nWe thank them for it and for the help they gave us with the examples.";
        assert!(refs(prose).iter().all(|(_, x)| !*x), "{:?}", refs(prose));
    }

    #[test]
    fn a_heading_starts_a_list_and_prose_under_it_is_no_list() {
        let page = "The end of the conclusion is here.\nReferences\nBates D, Maechler M (2015). Fitting linear mixed-effects models. Journal of\nStatistical Software, 67(1), 1–48. doi:10.18637/jss.v067.i01.";
        let r = refs(page);
        assert!(!r[0].1 && !r[1].1 && r[2].1 && r[3].1, "{r:?}");
        // A style guide's section about references is prose.
        let guide = "References\nAll references should be numbered and listed at the end of the paper.\nUse the style of the journal for each of them.";
        assert!(refs(guide).iter().all(|(_, x)| !*x));
    }

    #[test]
    fn prose_that_mentions_references_or_cites_papers_is_no_list() {
        // The word in prose, and citations in running text, even many of them.
        let page = "The references of a paper are listed at its end, as the journal asks.\nZeileis (2004) and Lumley and Heagerty (1999) give the estimators; Andrews (1991) the\nkernel. Newey and West (1987) proposed the first one, and many followed it in 1994\nand 2002. Koenker (2005) covers quantile regression; Cameron et al. (2011) clustering.\nThe list of references in each vignette has all of them.";
        assert!(refs(page).iter().all(|(_, x)| !*x), "{:?}", refs(page));
        // Two entries at the top of a page are not enough without a heading.
        let few = "Zeileis A (2004). Econometric computing. JSS 11(10).\nThe next paragraph is prose that goes on about the model for a while.\nIt has no years in it at all and ends here.";
        assert!(refs(few).iter().all(|(_, x)| !*x));
        // Nothing, and blank lines only.
        assert!(reference_lines(&[]).is_empty());
        assert_eq!(reference_lines(&["", " "]), vec![false, false]);
    }

    #[test]
    fn headings_in_other_languages_and_with_numbers() {
        assert!(is_reference_heading("7 References"));
        assert!(is_reference_heading("Literatur"));
        assert!(is_reference_heading("  Bibliography:"));
        assert!(!is_reference_heading("References to figures"));
        assert!(!is_reference_heading("See the references below."));
    }

    #[test]
    fn contents_lists_need_several_lines() {
        let toc = [
            "1 Introduction 2",
            "2 The model 3",
            "2.1 Fitting 5",
            "3 Summary 9",
        ];
        assert!(contents_lines(&toc).iter().all(|x| *x));
        // One numbered heading with a number at its end is a heading, not a contents list.
        let one = ["2 Results for 2009", "The model fits well."];
        assert!(contents_lines(&one).iter().all(|x| !*x));
        assert!(is_contents_line("Introduction . . . . . . 3"));
    }

    #[test]
    fn author_lists_and_affiliations_are_front_matter_and_prose_is_not() {
        assert!(is_front_matter(
            "Achim Zeileis, Christian Kleiber and Kurt Hornik"
        ));
        assert!(is_front_matter("Universität Innsbruck"));
        assert!(is_front_matter("E-mail: Achim.Zeileis@R-project.org"));
        assert!(!is_front_matter(
            "The sandwich package was written at the Department of Statistics to compute robust standard errors."
        ));
        assert!(!is_front_matter(
            "Regression Quantiles, Bootstrap, And Tests"
        ));
    }
}
