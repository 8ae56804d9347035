//! The citations of a manuscript, as its author wrote them: pandoc Markdown (`[@key, p. 4]`,
//! `[see @key, pp. 3–4; @other]`, `@key [p. 4]`), LaTeX (`\cite[p.~4]{key}`, natbib's
//! `\citep[see][p.~4]{a,b}`, biblatex's `\parencite`, `\textcite`, `\autocite`, `\cites…`) and
//! plain text (pandoc's form and author–year: `(Smith et al., 2020, p. 4)`,
//! `Smith (2020: 4)`). Each citation comes with its place (line and column), its locator, the
//! quote it vouches for (the quoted words before it in its sentence, the blockquote it closes)
//! and the sentence it supports, read from a clean copy of the text: markup, comments and
//! code removed, every byte mapped back to the source.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

mod forms;
mod prose;

use forms::{author_year_groups, latex_cite_re, latex_groups, mask, pandoc_groups};
use prose::Clean;

/// How the draft is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    Markdown,
    Latex,
    Plain,
}

impl Format {
    /// By the file's extension; an unknown one by what the text holds.
    pub fn of(name: &str, text: &str) -> Format {
        let ext = name
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "tex" | "latex" | "ltx" => Format::Latex,
            "md" | "markdown" | "pandoc" | "qmd" | "rmd" | "mdown" | "mkd" => Format::Markdown,
            "txt" | "text" => Format::Plain,
            _ if text.contains("\\documentclass") || latex_cite_re().is_match(text) => {
                Format::Latex
            }
            _ if text.contains("[@") => Format::Markdown,
            _ => Format::Plain,
        }
    }
}

/// Which paper a citation names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// A citation key (`@smith2020`, `\cite{smith2020}`).
    Key(String),
    /// An author–year citation: the first author's family name, the year and its letter
    /// (`2020a`).
    AuthorYear {
        family: String,
        year: i32,
        letter: Option<char>,
    },
}

impl Key {
    /// As a reader of the report recognises it: `@smith2020`, `Smith 2020`.
    pub fn shown(&self) -> String {
        match self {
            Key::Key(k) => format!("@{k}"),
            Key::AuthorYear {
                family,
                year,
                letter,
            } => format!(
                "{family} {year}{}",
                letter.map(String::from).unwrap_or_default()
            ),
        }
    }
}

/// Where in a cited work: pages (as printed labels: `4`, `xii`, `S3`), or something that is not
/// a page (`chap. 2`, `fig. 3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// As written (`pp. 3–4`).
    pub written: String,
    /// Page ranges, first and last label; empty when the locator is not pages.
    pub pages: Vec<(String, String)>,
}

/// One cited work of a manuscript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    pub key: Key,
    /// The citation as written (the whole group: `[see @a, p. 3; @b]`).
    pub written: String,
    /// Byte offset of the key in the source.
    pub at: usize,
    /// Line and column (1-based; the column in characters) of the key.
    pub line: u32,
    pub column: u32,
    pub locator: Option<Locator>,
    /// The quoted words this citation vouches for.
    pub quote: Option<String>,
    /// Where the quote's end could not be told from its marks.
    pub unclear: bool,
    /// The sentence it supports, without citations and markup.
    pub claim: String,
    /// Citations written together (`[@a; @b]`) share a group number.
    pub group: usize,
}

/// A citation group found in the source: its byte range and its items.
#[derive(Debug, Clone)]
struct Group {
    range: Range<usize>,
    items: Vec<Item>,
}

#[derive(Debug, Clone)]
struct Item {
    key: Key,
    at: usize,
    locator: Option<Locator>,
}

/// The citations of `text`, in the order they are written.
pub fn citations(text: &str, format: Format) -> Vec<Citation> {
    let masked = mask(text, format);
    let groups = match format {
        Format::Latex => latex_groups(&masked),
        Format::Markdown => pandoc_groups(&masked),
        Format::Plain => {
            let mut g = pandoc_groups(&masked);
            let taken: Vec<Range<usize>> = g.iter().map(|g| g.range.clone()).collect();
            g.extend(
                author_year_groups(&masked)
                    .into_iter()
                    .filter(|a| !taken.iter().any(|t| overlaps(t, &a.range))),
            );
            g.sort_by_key(|g| g.range.start);
            g
        }
    };
    let clean = Clean::new(&masked, format, &groups);
    let lines = LineIndex::new(text);
    let mut out = Vec::new();
    let mut used_quotes: Vec<Range<usize>> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let (quote, claim) = clean.context_of(gi, &mut used_quotes);
        let written = text[g.range.clone()].trim().to_string();
        for item in &g.items {
            let (line, column) = lines.at(text, item.at);
            out.push(Citation {
                key: item.key.clone(),
                written: written.clone(),
                at: item.at,
                line,
                column,
                locator: item.locator.clone(),
                quote: quote.as_ref().map(|q| q.0.clone()),
                unclear: quote.as_ref().is_some_and(|q| q.1),
                claim: claim.clone(),
                group: gi,
            });
        }
    }
    out
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// A locator: `p. 4`, `pp. 3–4`, `pp. 3, 7`, `4`, `12f.`, `xii`, `S3`; `chap. 2` and the like
/// are locators that are not pages. `bare_number`: a number alone is a page (pandoc, natbib).
pub fn locator(s: &str, bare_number: bool) -> Option<Locator> {
    let written = s.trim().trim_end_matches([',', '.', ';']).trim();
    if written.is_empty() {
        return None;
    }
    let lower = written.to_lowercase();
    static PAGE: OnceLock<Regex> = OnceLock::new();
    let page = PAGE
        .get_or_init(|| Regex::new(r"^(?:(?:pages|page|pgs|pg|pp|p)\.?\s*|s\.\s*)(.+)$").unwrap());
    static OTHER: OnceLock<Regex> = OnceLock::new();
    let other = OTHER.get_or_init(|| {
        Regex::new(r"^(?:§|(?:ch|chap|chapter|chapters|sec|sect|section|sections|§|fig|figs|figure|figures|tab|table|tables|eq|eqs|equation|n|nn|note|notes|para|paragraph|l|ll|line|lines|vol|volume|art|article|app|appendix|thm|theorem|def|definition|algorithm|alg|col|column)\b)")
            .unwrap()
    });
    let body = if let Some(c) = page.captures(&lower).filter(|_| !other.is_match(&lower)) {
        c.get(1).unwrap().as_str().to_string()
    } else if other.is_match(&lower) {
        return Some(Locator {
            written: written.to_string(),
            pages: Vec::new(),
        });
    } else if bare_number && lower.starts_with(|c: char| c.is_ascii_digit() || "ivxlc".contains(c))
    {
        lower.clone()
    } else {
        return Some(Locator {
            written: written.to_string(),
            pages: Vec::new(),
        });
    };
    let mut pages = Vec::new();
    for part in body.split([',', ';', '&']).flat_map(|p| p.split(" and ")) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (range, more) = match part.strip_suffix("ff.").or(part.strip_suffix("ff")) {
            Some(r) => (r.trim(), 2),
            None => match part.strip_suffix("f.").or(part.strip_suffix('f')) {
                Some(r) if r.chars().all(|c| c.is_ascii_digit()) && !r.is_empty() => (r.trim(), 1),
                _ => (part, 0),
            },
        };
        let mut ends = range
            .split(['–', '—', '-', '‒'])
            .map(str::trim)
            .filter(|e| !e.is_empty());
        let Some(first) = ends.next().filter(|f| is_label(f)) else {
            // Not a page list after all: keep what was written, no pages.
            return Some(Locator {
                written: written.to_string(),
                pages: Vec::new(),
            });
        };
        let last = ends.next_back().filter(|l| is_label(l)).unwrap_or(first);
        let last = match (more, first.parse::<u32>()) {
            (m, Ok(f)) if m > 0 => (f + m).to_string(),
            _ => abbreviated_end(first, last),
        };
        pages.push((first.to_string(), last));
    }
    Some(Locator {
        written: written.to_string(),
        pages,
    })
}

/// A page label: digits, a roman numeral, or a letter and digits (`S3`, `A12`).
fn is_label(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.len() <= 8
        && (s.chars().all(|c| c.is_ascii_digit())
            || s.chars().all(|c| "ivxlcdm".contains(c))
            || (s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().skip(1).all(|c| c.is_ascii_digit())
                && s.len() > 1))
}

/// `123–45` is 123–145: a shortened last page takes its first digits from the first.
fn abbreviated_end(first: &str, last: &str) -> String {
    match (first.parse::<u32>(), last.parse::<u32>()) {
        (Ok(f), Ok(l)) if l < f && last.len() < first.len() => {
            format!("{}{}", &first[..first.len() - last.len()], last)
        }
        _ => last.to_string(),
    }
}

/// Line starts of a text, to turn byte offsets into lines and columns.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn at(&self, text: &str, at: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= at).max(1) - 1;
        let col = text[self.starts[line]..at.min(text.len())].chars().count();
        (line as u32 + 1, col as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str, format: Format) -> Citation {
        let c = citations(text, format);
        assert_eq!(c.len(), 1, "{c:#?}");
        c.into_iter().next().unwrap()
    }

    fn pages(c: &Citation) -> Vec<(String, String)> {
        c.locator
            .as_ref()
            .map(|l| l.pages.clone())
            .unwrap_or_default()
    }

    fn p(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn pandoc_bracketed_with_a_quote_before_it() {
        let c = one(
            "Intro.\n\nAs they put it, “the error rate fell to 4.56% with fusion” [@smith2020, p. 4].\n",
            Format::Markdown,
        );
        assert_eq!(c.key, Key::Key("smith2020".into()));
        assert_eq!(pages(&c), vec![p("4", "4")]);
        assert_eq!(
            c.quote.as_deref(),
            Some("the error rate fell to 4.56% with fusion")
        );
        assert_eq!((c.line, c.column), (3, 61));
        assert_eq!(c.written, "[@smith2020, p. 4]");
    }

    #[test]
    fn pandoc_groups_prefixes_ranges_and_in_text_forms() {
        let c = citations(
            "Shown before [see @a, pp. 3–4; @b:x, 12f.]. Then @c [p. 9] says so, and @{d e} too. Mail me at x@example.org.",
            Format::Markdown,
        );
        let keys: Vec<String> = c.iter().map(|c| c.key.shown()).collect();
        assert_eq!(keys, ["@a", "@b:x", "@c", "@d e"]);
        assert_eq!(pages(&c[0]), vec![p("3", "4")]);
        assert_eq!(pages(&c[1]), vec![p("12", "13")]);
        assert_eq!(pages(&c[2]), vec![p("9", "9")]);
        assert_eq!(c[0].group, c[1].group);
        assert!(c[3].locator.is_none());
    }

    #[test]
    fn code_comments_and_links_are_not_citations() {
        let text = "Run `git log @{u}` and see [the docs](https://x.org/@a).\n\n```\n[@inside]\n```\n<!-- [@hidden] -->\n";
        assert!(citations(text, Format::Markdown).is_empty());
        let tex = "% \\cite[p.~3]{hidden}\nA claim \\cite{real}.\n";
        let c = citations(tex, Format::Latex);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].key, Key::Key("real".into()));
    }

    #[test]
    fn latex_forms() {
        let tex = "They write ``the model was annealed at 400 degrees'' \\citep[see][p.~4]{smith2020}. \
                   Also \\textcite[pp.~3--5]{lee2019,kim2021} and \\parencites[12]{a}[see][ii]{b}. \
                   \\citeauthor{smith2020} is not a citation of a place.";
        let c = citations(tex, Format::Latex);
        let keys: Vec<String> = c.iter().map(|c| c.key.shown()).collect();
        assert_eq!(keys, ["@smith2020", "@lee2019", "@kim2021", "@a", "@b"]);
        assert_eq!(pages(&c[0]), vec![p("4", "4")]);
        assert_eq!(
            c[0].quote.as_deref(),
            Some("the model was annealed at 400 degrees")
        );
        assert_eq!(pages(&c[1]), vec![p("3", "5")]);
        assert_eq!(pages(&c[3]), vec![p("12", "12")]);
        assert_eq!(pages(&c[4]), vec![p("ii", "ii")]);
        let single = one("A claim \\cite[p.~7]{x}.", Format::Latex);
        assert_eq!(pages(&single), vec![p("7", "7")]);
        let enq = one(
            "\\enquote{a quote of several words here} \\autocite[12]{y}.",
            Format::Latex,
        );
        assert_eq!(enq.quote.as_deref(), Some("a quote of several words here"));
    }

    #[test]
    fn latex_quote_environment_is_a_blockquote() {
        let tex = "Intro.\n\\begin{quote}\nThe model was trained\non four corpora at once.\n\\end{quote}\n\\cite[p.~2]{k}\n";
        let c = one(tex, Format::Latex);
        assert_eq!(
            c.quote.as_deref(),
            Some("The model was trained on four corpora at once.")
        );
    }

    #[test]
    fn markdown_blockquote_with_a_source_line() {
        let md = "Intro.\n\n> The model was trained on four corpora at once.\n>\n> — [@k, p. 2]\n\nNext.";
        let c = one(md, Format::Markdown);
        assert_eq!(
            c.quote.as_deref(),
            Some("The model was trained on four corpora at once.")
        );
        let md2 = "> The model was trained on four corpora at once.\n\n[@k, p. 2]";
        assert!(
            one(md2, Format::Markdown).quote.is_none(),
            "a blank line ends it"
        );
        let md3 = "> The model was trained on four corpora at once.\n— [@k, p. 2]";
        assert!(one(md3, Format::Markdown).quote.is_some());
    }

    #[test]
    fn a_quote_goes_to_the_citation_after_it_not_the_one_before() {
        let c = citations(
            "As @a [p. 1] notes, the method “works on every corpus we tried” [@b, p. 5]. Then “another quote of words” @c.",
            Format::Markdown,
        );
        assert_eq!(c[0].quote, None);
        assert_eq!(
            c[1].quote.as_deref(),
            Some("works on every corpus we tried")
        );
        assert_eq!(c[2].quote.as_deref(), Some("another quote of words"));
        let after = one(
            "As @a [p. 3] puts it, “the quote comes after the citation here.”",
            Format::Markdown,
        );
        assert_eq!(
            after.quote.as_deref(),
            Some("the quote comes after the citation here.")
        );
    }

    #[test]
    fn claims_are_the_citing_sentence() {
        let c = citations(
            "First sentence, e.g. with an abbreviation [@a]. Second one cites p. 3 of it [@b, p. 3]. Fig. 2 shows more.",
            Format::Markdown,
        );
        assert_eq!(c[0].claim, "First sentence, e.g. with an abbreviation .");
        assert_eq!(c[1].claim, "Second one cites p. 3 of it .");
        assert!(c[0].quote.is_none(), "short scare quotes are not evidence");
    }

    #[test]
    fn author_year_in_plain_text() {
        let c = citations(
            "Fusion helps (Smith et al., 2020, p. 4; see van der Berg & Lee 2019: 12–15). Moreno (2021, pp. 3-4) disagrees (Table 2, here).",
            Format::Plain,
        );
        let keys: Vec<String> = c.iter().map(|c| c.key.shown()).collect();
        assert_eq!(keys, ["Smith 2020", "van der Berg 2019", "Moreno 2021"]);
        assert_eq!(pages(&c[0]), vec![p("4", "4")]);
        assert_eq!(pages(&c[1]), vec![p("12", "15")]);
        assert_eq!(pages(&c[2]), vec![p("3", "4")]);
    }

    #[test]
    fn locators() {
        let l = |s: &str| locator(s, true).map(|l| l.pages).unwrap_or_default();
        assert_eq!(l("p. 4"), vec![p("4", "4")]);
        assert_eq!(l("pp. 123–45"), vec![p("123", "145")]);
        assert_eq!(l("pp. 3, 7"), vec![p("3", "3"), p("7", "7")]);
        assert_eq!(l("xii"), vec![p("xii", "xii")]);
        assert_eq!(
            l("S3"),
            Vec::<(String, String)>::new(),
            "S3 read as `S. 3`? no: a label"
        );
        assert!(l("chap. 2").is_empty());
        assert!(l("fig. 3").is_empty());
        assert!(l("and passim").is_empty());
        assert_eq!(l("page 12"), vec![p("12", "12")]);
    }
}
