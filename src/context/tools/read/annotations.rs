//! `context_read` mode `annotations`: the highlights and annotations of a granted paper
//! (agentero's own and, in a Zotero library, Zotero's), each with its page, type, text, comment,
//! colour and the citation URI of its page; `page` keeps one page's, `start` continues a list
//! cut at the budget.

use serde_json::{Value, json};

use super::{Piece, Target, fit};
use crate::vault::annotations::AnnotationOrigin;
use crate::vault::{Vault, uri};

pub(super) fn piece(
    vault: &Vault,
    t: &Target,
    page: Option<u32>,
    start: Option<u64>,
    limit: usize,
) -> Piece {
    let rel = &t.rel;
    // The grant was checked on `rel`; the annotations are those of the file it is.
    let page = page.or(t.page);
    let all: Vec<Value> = vault
        .annotations(&t.canonical_rel)
        .into_iter()
        .filter(|a| page.is_none_or(|p| a.page == p))
        .map(|a| {
            let source = match &a.origin {
                AnnotationOrigin::Zotero { .. } => "zotero",
                AnnotationOrigin::Agentero { .. } => "agentero",
            };
            let mut v = json!({
                "page": a.page,
                "type": a.kind.as_str(),
                "text": a.text,
                "comment": a.comment,
                "color": a.color,
                "source": source,
                "citationUri": uri::page_uri(rel, a.page),
            });
            if let Some(l) = &a.page_label {
                v["pageLabel"] = json!(l);
            }
            v
        })
        .collect();
    let total = all.len();
    let from = start.unwrap_or(0) as usize;
    let (shown, more) = fit(all, from, limit.saturating_sub(300 + rel.len() * 2));
    let mut p = Piece::data(Some(uri::page_uri(rel, page.unwrap_or(1))));
    if let Some(n) = page {
        p.page = Some(n);
    }
    p.extra.insert("annotationCount".into(), json!(total));
    if from > 0 {
        p.extra.insert("annotationsFrom".into(), json!(from));
    }
    if total == 0 {
        p.extra.insert(
            "note".into(),
            json!(if page.is_some() {
                "no highlights or annotations on this page"
            } else {
                "this paper has no highlights or annotations"
            }),
        );
    }
    p.extra.insert("annotations".into(), Value::Array(shown));
    if let Some(k) = more {
        p.truncated = true;
        let mut next = json!({"path": rel, "mode": "annotations", "start": k});
        if let Some(n) = page {
            next["page"] = json!(n);
        }
        p.next = Some(next);
    }
    p
}
