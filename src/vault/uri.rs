//! Citation URIs: `papers/x/paper.pdf#page=3` (RFC 8118) and `notes/a.md#line=10,20`
//! (RFC 5147); vault-relative, `/`-separated, percent-encoded where needed.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};

/// Everything but the RFC 3986 unreserved characters and `/` is encoded in a path.
const PATH_SET: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Where a citation URI points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A vault-relative path, optionally a page (1-based) or a line range (1-based, inclusive).
    Vault {
        path: String,
        page: Option<u32>,
        lines: Option<(u32, u32)>,
    },
    /// An external paper (`https://doi.org/…`, `https://arxiv.org/abs/…`).
    External(String),
}

pub fn encode_path(path: &str) -> String {
    utf8_percent_encode(path, PATH_SET).to_string()
}

pub fn page_uri(path: &str, page: u32) -> String {
    format!("{}#page={page}", encode_path(path))
}

pub fn lines_uri(path: &str, start: u32, end: u32) -> String {
    format!("{}#line={start},{end}", encode_path(path))
}

pub fn doi_uri(doi: &str) -> String {
    format!("https://doi.org/{}", encode_path(doi))
}

pub fn arxiv_uri(id: &str) -> String {
    format!("https://arxiv.org/abs/{id}")
}

/// Parses a citation URI or a bare vault path. Returns `None` for URIs of other schemes.
pub fn parse(uri: &str) -> Option<Target> {
    let uri = uri.trim();
    if uri.starts_with("https://") || uri.starts_with("http://") {
        return Some(Target::External(uri.to_string()));
    }
    if uri.contains("://") {
        return None;
    }
    let (path, fragment) = match uri.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (uri, None),
    };
    let path = percent_decode_str(path).decode_utf8().ok()?.into_owned();
    let mut page = None;
    let mut lines = None;
    if let Some(fragment) = fragment {
        for part in fragment.split('&') {
            if let Some(v) = part.strip_prefix("page=") {
                page = Some(v.parse::<u32>().ok().filter(|p| *p > 0)?);
            } else if let Some(v) = part.strip_prefix("line=") {
                let (a, b) = v.split_once(',').unwrap_or((v, v));
                let (a, b) = (a.parse::<u32>().ok()?, b.parse::<u32>().ok()?);
                lines = Some((a.max(1), b.max(a.max(1))));
            }
        }
    }
    Some(Target::Vault { path, page, lines })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_pages_and_lines() {
        let u = page_uri("papers/a b/paper.pdf", 3);
        assert_eq!(u, "papers/a%20b/paper.pdf#page=3");
        assert_eq!(
            parse(&u),
            Some(Target::Vault {
                path: "papers/a b/paper.pdf".into(),
                page: Some(3),
                lines: None
            })
        );
        let l = lines_uri("notes/ideas.md", 10, 20);
        assert_eq!(l, "notes/ideas.md#line=10,20");
        assert_eq!(
            parse(&l),
            Some(Target::Vault {
                path: "notes/ideas.md".into(),
                page: None,
                lines: Some((10, 20))
            })
        );
    }

    #[test]
    fn rejects_bad_fragments_and_foreign_schemes() {
        assert_eq!(parse("a.pdf#page=0"), None);
        assert_eq!(parse("a.pdf#page=x"), None);
        assert_eq!(parse("file:///etc/passwd"), None);
        assert!(matches!(
            parse("https://doi.org/10.1/x"),
            Some(Target::External(_))
        ));
    }
}
