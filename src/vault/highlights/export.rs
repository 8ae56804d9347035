//! A paper's annotations as a markdown file: a heading per page, each highlight quoted, its
//! comment under it, and the citation URI of its page (`papers/x.pdf#page=N`), which agentero,
//! its agents and any markdown reader that knows the vault can follow.

use super::super::annotations::{Annotation, AnnotationOrigin};
use super::super::{Vault, meta, uri};

/// The markdown of `annotations` of the paper at `rel`.
pub fn markdown(vault: &Vault, rel: &str, annotations: &[Annotation]) -> String {
    let title = vault
        .record_for(rel)
        .map(|r| r.meta.title)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| meta::file_title(rel));
    let mut out = format!("# Highlights: {}\n\n", one_line(&title));
    out.push_str(&format!("Paper: [{rel}]({})\n", uri::encode_path(rel)));
    if annotations.is_empty() {
        out.push_str("\nNo highlights yet.\n");
        return out;
    }
    let mut page = 0;
    for a in annotations {
        if a.page != page {
            page = a.page;
            match &a.page_label {
                Some(l) if *l != page.to_string() => {
                    out.push_str(&format!("\n## Page {page} (labelled {l})\n"))
                }
                _ => out.push_str(&format!("\n## Page {page}\n")),
            }
        }
        out.push('\n');
        if let Some(t) = a.text.as_deref().filter(|t| !t.trim().is_empty()) {
            out.push_str(&format!("> {}\n", one_line(t)));
        } else {
            out.push_str(&format!("> ({})\n", a.kind.as_str()));
        }
        if let Some(c) = a.comment.as_deref().filter(|c| !c.trim().is_empty()) {
            out.push('\n');
            for line in c.trim().lines() {
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        let from = match &a.origin {
            AnnotationOrigin::Zotero { .. } => " (Zotero)",
            AnnotationOrigin::Agentero { .. } => "",
        };
        out.push_str(&format!("\n— {}{from}\n", uri::page_uri(rel, a.page)));
    }
    out
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
