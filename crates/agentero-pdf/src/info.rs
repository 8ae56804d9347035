//! Document metadata: the Info dictionary and a tolerant scan of the XMP packet.

use lopdf::Document;

use super::DocInfo;
use super::encodings::decode_text_string;
use super::util::{get, get_dict, get_stream, stream_bytes};

/// XMP packets beyond this size are not metadata anyone wrote by hand; skip them.
const MAX_XMP: usize = 4 << 20;

pub fn doc_info(doc: &Document) -> DocInfo {
    let mut info = DocInfo::default();
    if let Some(dict) = get_dict(doc, &doc.trailer, b"Info") {
        let field = |key: &[u8]| {
            get(doc, dict, key)
                .and_then(|o| o.as_str().ok())
                .map(decode_text_string)
                .filter(|s| !s.is_empty())
        };
        info.title = field(b"Title");
        info.author = field(b"Author");
        info.subject = field(b"Subject");
        info.keywords = field(b"Keywords");
        info.creator = field(b"Creator");
        info.producer = field(b"Producer");
        info.doi = field(b"doi")
            .or_else(|| field(b"DOI"))
            .and_then(|d| clean_doi(&d));
    }
    if let Some(xml) = doc
        .catalog()
        .ok()
        .and_then(|c| get_stream(doc, c, b"Metadata"))
        .and_then(stream_bytes)
        .filter(|b| b.len() <= MAX_XMP)
    {
        let xml = String::from_utf8_lossy(&xml);
        apply_xmp(&xml, &mut info);
    }
    info
}

pub fn apply_xmp(xml: &str, info: &mut DocInfo) {
    if let Some(title) = element(xml, "dc:title") {
        let items = list_items(title);
        info.xmp_title = items
            .into_iter()
            .next()
            // A bare value; markup whose items are empty (`<rdf:li …></rdf:li>`) is no title.
            .or_else(|| Some(unescape(title.trim())).filter(|t| !t.contains('<')))
            .filter(|s| !s.trim().is_empty());
    }
    if let Some(creators) = element(xml, "dc:creator") {
        info.xmp_authors = list_items(creators);
    }
    // PRISM, as publishers write it, as an element or as an attribute.
    let prism = |tag: &str| {
        element(xml, tag)
            .map(|v| {
                list_items(v)
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| unescape(v.trim()))
            })
            .or_else(|| attribute(xml, tag).map(|v| unescape(&v)))
            .filter(|v| !v.is_empty() && !v.contains('<'))
    };
    info.publication = prism("prism:publicationName");
    info.volume = prism("prism:volume");
    info.issue = prism("prism:number");
    info.pages = prism("prism:pageRange").or_else(|| {
        match (prism("prism:startingPage"), prism("prism:endingPage")) {
            (Some(a), Some(b)) if a != b => Some(format!("{a}-{b}")),
            (Some(a), _) => Some(a),
            _ => None,
        }
    });
    if info.doi.is_none() {
        let candidates = [
            "prism:doi",
            "pdfx:doi",
            "crossmark:DOI",
            "pdfx:DOI",
            "dc:identifier",
            "prism:url",
        ];
        info.doi = candidates.iter().find_map(|tag| {
            let value = element(xml, tag)
                .map(|v| {
                    let items = list_items(v);
                    items
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| unescape(v.trim()))
                })
                .or_else(|| attribute(xml, tag).map(|v| unescape(&v)))?;
            clean_doi(&value)
        });
    }
}

/// Inner text of the first `<tag …>…</tag>`.
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}");
    let mut from = 0;
    while let Some(pos) = xml[from..].find(&open) {
        let start = from + pos + open.len();
        let rest = &xml[start..];
        // `<dc:titleX` is another element.
        match rest.chars().next() {
            Some('>') | Some(' ') | Some('\n') | Some('\r') | Some('\t') => {}
            Some('/') => return None,
            _ => {
                from = start;
                continue;
            }
        }
        let gt = rest.find('>')?;
        if rest[..gt].ends_with('/') {
            return None;
        }
        let body = &rest[gt + 1..];
        let end = body.find(&format!("</{tag}>"))?;
        return Some(&body[..end]);
    }
    None
}

/// `tag="value"` written as an attribute (compact XMP form).
fn attribute(xml: &str, tag: &str) -> Option<String> {
    let pat = format!("{tag}=");
    let pos = xml.find(&pat)?;
    let rest = &xml[pos + pat.len()..];
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    Some(body[..end].to_string())
}

fn list_items(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(pos) = rest.find("<rdf:li") {
        let after = &rest[pos + 7..];
        let Some(gt) = after.find('>') else { break };
        if after[..gt].ends_with('/') {
            rest = &after[gt + 1..];
            continue;
        }
        let body = &after[gt + 1..];
        let Some(end) = body.find("</rdf:li>") else {
            break;
        };
        let v = unescape(body[..end].trim());
        if !v.is_empty() {
            out.push(v);
        }
        rest = &body[end + 9..];
    }
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let Some(semi) = tail.find(';').filter(|&i| i <= 10) else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let ent = &tail[1..semi];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .or_else(|| ent.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &tail[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The DOI in a metadata value ("doi:10.1/x", "https://doi.org/10.1/x"), if any.
pub fn clean_doi(v: &str) -> Option<String> {
    let start = v.find("10.")?;
    let doi: String = v[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '"' && *c != '<')
        .collect();
    let doi = doi.trim_end_matches(['.', ',', ';']);
    let (prefix, suffix) = doi.split_once('/')?;
    (prefix.len() > 3
        && prefix[3..].chars().all(|c| c.is_ascii_digit() || c == '.')
        && !suffix.is_empty())
    .then(|| doi.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xmp_scan() {
        let xml = r#"<x:xmpmeta><rdf:RDF><rdf:Description prism:doi="10.1234/abc.5">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">A &amp; B</rdf:li></rdf:Alt></dc:title>
            <dc:creator><rdf:Seq><rdf:li>Ann Smith</rdf:li><rdf:li>Bob Jones</rdf:li></rdf:Seq></dc:creator>
            </rdf:Description></rdf:RDF></x:xmpmeta>"#;
        let mut info = DocInfo::default();
        apply_xmp(xml, &mut info);
        assert_eq!(info.xmp_title.as_deref(), Some("A & B"));
        // hyperref with an empty title writes an empty item: no title, never the markup.
        let empty = r#"<x:xmpmeta><rdf:RDF><rdf:Description>
            <dc:title><rdf:Alt><rdf:li xml:lang='x-default'></rdf:li></rdf:Alt></dc:title>
            </rdf:Description></rdf:RDF></x:xmpmeta>"#;
        let mut none = DocInfo::default();
        apply_xmp(empty, &mut none);
        assert_eq!(none.xmp_title, None);
        assert_eq!(info.xmp_authors, vec!["Ann Smith", "Bob Jones"]);
        assert_eq!(info.doi.as_deref(), Some("10.1234/abc.5"));
    }

    #[test]
    fn prism_gives_journal_volume_issue_pages() {
        let xml = r#"<x:xmpmeta><rdf:RDF><rdf:Description prism:volume="12" prism:number="3">
            <prism:publicationName>Journal of A &amp; B</prism:publicationName>
            <prism:startingPage>117</prism:startingPage><prism:endingPage>130</prism:endingPage>
            </rdf:Description></rdf:RDF></x:xmpmeta>"#;
        let mut info = DocInfo::default();
        apply_xmp(xml, &mut info);
        assert_eq!(info.publication.as_deref(), Some("Journal of A & B"));
        assert_eq!(info.volume.as_deref(), Some("12"));
        assert_eq!(info.issue.as_deref(), Some("3"));
        assert_eq!(info.pages.as_deref(), Some("117-130"));
        let mut none = DocInfo::default();
        apply_xmp("<x:xmpmeta></x:xmpmeta>", &mut none);
        assert_eq!((none.publication, none.pages), (None, None));
    }

    #[test]
    fn dois() {
        assert_eq!(
            clean_doi("doi:10.1000/xyz123.").as_deref(),
            Some("10.1000/xyz123")
        );
        assert_eq!(
            clean_doi("https://doi.org/10.48550/arXiv.1").as_deref(),
            Some("10.48550/arXiv.1")
        );
        assert_eq!(clean_doi("version 10.2"), None);
    }
}
