//! DOI and arXiv identifiers found in free text.

use std::sync::LazyLock;

use regex::Regex;

static DOI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?i)\b10\.\d{4,9}/[^\s"<>{}|\\^`\[\]]+"#).expect("valid regex"));
static ARXIV_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:arxiv[:\s./]*(?:abs/|pdf/)?\s*)?\b(\d{4}\.\d{4,5})(v\d+)?\b")
        .expect("valid regex")
});
static ARXIV_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(v\d+)?\b")
        .expect("valid regex")
});

/// Cleans the end of a DOI match: trailing punctuation and unbalanced closing brackets.
fn trim_doi(mut doi: &str) -> &str {
    loop {
        let before = doi;
        doi = doi.trim_end_matches(['.', ',', ';', ':', '\'', '’', '”']);
        for (open, close) in [('(', ')'), ('[', ']')] {
            if doi.ends_with(close) && doi.matches(close).count() > doi.matches(open).count() {
                doi = &doi[..doi.len() - 1];
            }
        }
        if doi == before {
            return doi;
        }
    }
}

/// Whether the match at `start` sits inside a URL that is not a DOI resolver
/// (`xnotdoi.org/10.1234/…` is a fake; `https://doi.org/10.1234/…` is real).
fn in_foreign_url(text: &str, start: usize) -> bool {
    let before = &text[..start];
    if !before.ends_with('/') {
        return false;
    }
    let token_start = before
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '<')
        .map(|i| i + 1)
        .unwrap_or(0);
    let url = before[token_start..].to_ascii_lowercase();
    let host = url
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or("");
    !(host == "doi.org" || host == "dx.doi.org" || host.ends_with(".doi.org"))
}

/// All DOIs in `text`, in order of appearance, lower-cased, without duplicates. A DOI broken
/// across a line right after `/`, `.`, `-` or `_` is joined with the next line's first token.
pub fn find_dois(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in DOI.find_iter(text) {
        if in_foreign_url(text, m.start()) {
            continue;
        }
        let mut doi = trim_doi(m.as_str()).to_string();
        let rest = &text[m.end()..];
        if m.as_str().ends_with(['/', '.', '-', '_']) && rest.starts_with('\n') {
            let next: String = rest[1..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .collect();
            // Keep a trailing hyphen: DOIs contain literal hyphens far more often than breaks.
            if !next.is_empty() {
                doi = trim_doi(&format!("{}{}", m.as_str(), next)).to_string();
            }
        }
        let doi = doi.to_lowercase();
        if doi.len() > 7 && !out.contains(&doi) {
            out.push(doi);
        }
    }
    out
}

/// All arXiv identifiers (new `2101.00001` and old `hep-th/0106109` styles), without version.
/// New-style ids are only taken when introduced by "arXiv" (bare `1234.5678` is too ambiguous).
pub fn find_arxiv_ids(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in ARXIV_NEW.captures_iter(text) {
        let whole = c.get(0).map(|m| m.as_str()).unwrap_or("");
        if !whole.to_ascii_lowercase().starts_with("arxiv") {
            continue;
        }
        let id = c[1].to_string();
        // yymm: month 01–12
        let month: u32 = id[2..4].parse().unwrap_or(0);
        if (1..=12).contains(&month) && !out.contains(&id) {
            out.push(id);
        }
    }
    for c in ARXIV_OLD.captures_iter(text) {
        let id = c[1].to_string();
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// Normalizes a user- or sidecar-supplied DOI (`https://doi.org/…`, `doi:…`) to its bare form.
pub fn normalize_doi(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.to_lowercase();
    let bare = lower
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("dx.")
        .trim_start_matches("doi.org/")
        .trim_start_matches("doi:")
        .trim();
    DOI.find(bare)
        .filter(|m| m.start() == 0)
        .map(|m| trim_doi(m.as_str()).to_string())
}

/// Normalizes an arXiv id (`arXiv:2101.00001v2`, `https://arxiv.org/abs/…`) to its bare form.
pub fn normalize_arxiv(s: &str) -> Option<String> {
    let s = s.trim();
    let lower = s.to_ascii_lowercase();
    let bare = lower
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("arxiv.org/abs/")
        .trim_start_matches("arxiv.org/pdf/")
        .trim_start_matches("arxiv:")
        .trim();
    let probe = format!("arXiv:{bare}");
    find_arxiv_ids(&probe)
        .into_iter()
        .next()
        .or_else(|| find_arxiv_ids(bare).into_iter().next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dois() {
        let t = "See doi:10.1145/3290605.3300233. Also (https://doi.org/10.1103/PhysRevB.1.2), \
                 and https://xnotdoi.org/10.47397/fake here, and 10.5555/agentero.2023.0042;";
        assert_eq!(
            find_dois(t),
            vec![
                "10.1145/3290605.3300233",
                "10.1103/physrevb.1.2",
                "10.5555/agentero.2023.0042"
            ]
        );
        assert_eq!(
            find_dois("doi: 10.1016/j.cell.\n2020.01.001 next"),
            vec!["10.1016/j.cell.2020.01.001"]
        );
        assert_eq!(
            normalize_doi("https://doi.org/10.1234/ABC").as_deref(),
            Some("10.1234/abc")
        );
    }

    #[test]
    fn arxiv() {
        let t = "arXiv:2305.01234v2 and arXiv preprint arXiv: 1706.03762, old hep-th/0106109, \
                 but not 1234.5678 or version 2013.99999.";
        assert_eq!(
            find_arxiv_ids(t),
            vec!["2305.01234", "1706.03762", "hep-th/0106109"]
        );
        assert_eq!(
            normalize_arxiv("https://arxiv.org/abs/2101.00001v3").as_deref(),
            Some("2101.00001")
        );
        assert_eq!(
            normalize_arxiv("cond-mat/0201234").as_deref(),
            Some("cond-mat/0201234")
        );
    }
}
