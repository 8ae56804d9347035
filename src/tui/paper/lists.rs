//! The paper's overlays, built when they open: the outline (enter jumps to a section), the
//! highlights and annotations (enter jumps, `d` deletes one of agentero's own, `e` exports
//! them as markdown), and the metadata.

use super::{Doc, Paper};
use crate::tui::action::Action;
use crate::tui::effect::{
    Effect, Jump, List, Location, MarksEffect, Out, OverlayKind, OverlayRequest, Row, TextLine,
};
use crate::tui::widgets::truncate;
use crate::vault::annotations::{Annotation, AnnotationOrigin};

/// The outline: one section a row, indented by level (0 is the top, as a paper's record counts
/// them), with its page; `selected` marked.
pub(super) fn outline(p: &Doc, selected: usize) -> List {
    let rows = p
        .info
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let ind = "  ".repeat(s.level.min(4) as usize);
            let num = s
                .number
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default();
            let text = format!("{ind}{num}{}  · p. {}", s.title, s.page);
            Row::new(text, vec![Out::Section(i)])
        })
        .collect();
    let mut list = List::new(OverlayKind::Outline, "Outline · enter jumps", rows, "");
    list.selected = selected;
    list
}

/// The open paper's highlights and annotations: `p. 3 · highlight · “text” — comment`.
pub(super) fn annotations(p: &Doc) -> List {
    let rows = p
        .info
        .annotations
        .iter()
        .map(|a| annotation_row(&p.path, a))
        .collect();
    let mut list = List::new(
        OverlayKind::Annotations,
        "Highlights · enter jumps · d deletes (u undoes) · e exports markdown",
        rows,
        "no highlights yet: select text (v or V), then H",
    );
    list.keys = vec![(
        Action::ExportMarkdown,
        vec![Out::Run(Effect::Marks(MarksEffect::ExportHighlights {
            path: p.path.clone(),
        }))],
    )];
    list
}

fn annotation_row(path: &str, a: &Annotation) -> Row {
    let one = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut line = format!("p. {} · {}", a.page, a.kind.as_str());
    if let Some(t) = a.text.as_deref().filter(|t| !t.trim().is_empty()) {
        line.push_str(&format!(" · “{}”", truncate(&one(t), 60)));
    }
    if let Some(c) = a.comment.as_deref().filter(|c| !c.trim().is_empty()) {
        line.push_str(&format!(" — {}", one(c)));
    }
    let delete = match &a.origin {
        AnnotationOrigin::Agentero { id } => Out::Run(Effect::Marks(MarksEffect::Delete {
            path: path.to_string(),
            id: id.clone(),
        })),
        AnnotationOrigin::Zotero { .. } => {
            line.push_str(" (Zotero)");
            Out::info(
                "this annotation is Zotero's: delete it in Zotero (agentero never writes there)",
            )
        }
    };
    // Its page, its text highlighted as a quote.
    let jump = Jump {
        to: Location {
            path: path.to_string(),
            page: a.page,
            row: 0,
        },
        quote: a.text.clone().filter(|t| !t.trim().is_empty()),
        lines: None,
    };
    Row {
        text: line,
        open: vec![Out::Jump(jump)],
        keys: vec![(Action::Delete, vec![delete])],
    }
}

/// The metadata: title, path, authors, year, identifiers, pages, what could not be read.
pub(super) fn metadata(p: &Doc) -> OverlayRequest {
    let i = &p.info;
    let mut lines: Vec<TextLine> = vec![
        (Some("ui.title"), i.title.clone()),
        (None, format!("path     {}", p.path)),
    ];
    if !i.authors.is_empty() {
        lines.push((None, format!("authors  {}", i.authors.join(", "))));
    }
    if let Some(y) = i.year {
        lines.push((None, format!("year     {y}")));
    }
    if p.kind == crate::vault::EntryKind::Paper {
        // The key a manuscript cites it by (`agentero check`, `y b`): the reference
        // manager's when it gave one, else the one agentero generates.
        let meta = i.meta();
        let key = crate::vault::citekeys::key_of(&meta);
        let whose = if meta.citation_key.as_deref() == Some(key.as_str()) {
            "its reference manager's"
        } else {
            "generated; y b copies the entry"
        };
        lines.push((None, format!("key      @{key} ({whose})")));
    }
    let pubn = &i.publication;
    if let Some(kind) = pubn.kind {
        lines.push((None, format!("type     {}", kind.label())));
    }
    if let Some(c) = &pubn.container {
        let mut at = c.clone();
        if let Some(v) = &pubn.volume {
            at.push_str(&format!(", vol. {v}"));
        }
        if let Some(n) = &pubn.issue {
            at.push_str(&format!(", no. {n}"));
        }
        if let Some(pp) = &pubn.pages {
            at.push_str(&format!(", pp. {pp}"));
        }
        lines.push((None, format!("in       {at}")));
    }
    for (label, v) in [
        ("publisher", &pubn.publisher),
        ("school   ", &pubn.institution),
        ("url      ", &pubn.url),
    ] {
        if let Some(v) = v {
            lines.push((None, format!("{label} {v}")));
        }
    }
    if let Some(d) = &i.doi {
        lines.push((None, format!("doi      {d}")));
    }
    if let Some(a) = &i.arxiv {
        lines.push((None, format!("arXiv    {a}")));
    }
    lines.push((None, format!("pages    {}", p.page_count())));
    if !i.pages_without_text.is_empty() {
        lines.push((None, format!("no text  pages {:?}", i.pages_without_text)));
    }
    if !i.ocr.is_empty() {
        let pages: Vec<u32> = i
            .ocr
            .iter()
            .filter(|n| n.words > 0)
            .map(|n| n.page)
            .collect();
        lines.push((None, format!("OCR      pages {pages:?}")));
    }
    if !i.pages_undecodable.is_empty() {
        let n = i.pages_undecodable.len();
        lines.push((
            Some("ui.status.error"),
            format!(
                "text not decodable on {n} page{} {:?} (fonts without a usable encoding)",
                if n == 1 { "" } else { "s" },
                i.pages_undecodable
            ),
        ));
    }
    if let Some(n) = &i.note {
        lines.push((Some("ui.dim"), n.clone()));
    }
    if let Some(a) = &i.abstract_text {
        lines.push((None, String::new()));
        lines.push((None, a.clone()));
    }
    OverlayRequest::Text {
        kind: OverlayKind::Metadata,
        title: "Metadata".into(),
        lines,
    }
}

impl Paper {
    /// The annotations list again, when the open paper's annotations changed (a highlight
    /// saved or deleted while it is open).
    pub(super) fn refill_annotations(&self) -> Vec<Out> {
        match self.doc.as_ref() {
            Some(p) => vec![Out::Refill {
                list: annotations(p),
                keep_selection: true,
            }],
            None => Vec::new(),
        }
    }
}
