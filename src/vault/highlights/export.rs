//! A paper's annotations as a markdown file: a heading per page, each highlight quoted, its
//! comment under it, and the citation URI of its page (`papers/x.pdf#page=N`), which agentero,
//! its agents and any markdown reader that knows the vault can follow. Every piece of the
//! library's or the reader's text (title, path, page label, highlighted text, comment) goes
//! through [`output::markdown`]: it reads as text, never as a heading, a tag or a link.

use super::super::annotations::{Annotation, AnnotationOrigin};
use super::super::output::markdown;
use super::super::{Vault, meta, uri};

/// The longest page label written, in characters (labels are "iv", "12", "A-3").
const LABEL_CHARS: usize = 32;

/// The markdown of `annotations` of the paper at `rel`.
pub fn markdown(vault: &Vault, rel: &str, annotations: &[Annotation]) -> String {
    let title = vault
        .record_for(rel)
        .map(|r| r.meta.title)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| meta::file_title(rel));
    let mut out = format!("# Highlights: {}\n\n", markdown::inline(&title));
    // The link target is percent-encoded (its alphabet has no `:`, so no scheme).
    out.push_str(&format!(
        "Paper: [{}]({})\n",
        markdown::inline(rel),
        uri::encode_path(rel)
    ));
    if annotations.is_empty() {
        out.push_str("\nNo highlights yet.\n");
        return out;
    }
    let mut page = 0;
    for a in annotations {
        if a.page != page {
            page = a.page;
            match &a.page_label {
                Some(l) if *l != page.to_string() && !l.trim().is_empty() => {
                    out.push_str(&format!(
                        "\n## Page {page} (labelled {})\n",
                        markdown::label(l, LABEL_CHARS)
                    ))
                }
                _ => out.push_str(&format!("\n## Page {page}\n")),
            }
        }
        out.push('\n');
        match a.text.as_deref().map(markdown::inline) {
            Some(t) if !t.is_empty() => out.push_str(&format!("> {t}\n")),
            _ => out.push_str(&format!("> ({})\n", a.kind.as_str())),
        }
        let comment = a
            .comment
            .as_deref()
            .map(markdown::block)
            .unwrap_or_default();
        if !comment.is_empty() {
            out.push('\n');
            out.push_str(&comment);
            out.push('\n');
        }
        let from = match &a.origin {
            AnnotationOrigin::Zotero { .. } => " (Zotero)",
            AnnotationOrigin::Agentero { .. } => "",
        };
        out.push_str(&format!(
            "\n— {}{from}\n",
            markdown::inline(&uri::page_uri(rel, a.page))
        ));
    }
    out
}
