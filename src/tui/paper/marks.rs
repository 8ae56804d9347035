//! Highlights in the paper pane: `H` on a visual selection asks for an optional comment and
//! saves the highlight (agentero's own store, keyed by the PDF's content); the paper's
//! annotations — its own and, in a Zotero library, Zotero's — are drawn on their pages, listed
//! (`A`), jumped to, deleted and exported from that list.

use super::doc::Doc;
use super::pending::Pending;
use super::{Paper, Viewport};
use crate::context::quote;
use crate::tui::effect::{Effect, MarksEffect, Out, OverlayRequest, PromptKind};
use crate::vault::EntryKind;
use crate::vault::annotations::Annotation;
use crate::vault::highlights::NewHighlight;

impl Paper {
    /// `H`: the visual selection becomes a highlight once its comment is typed.
    pub(super) fn start_highlight(&mut self, view: Viewport) -> Vec<Out> {
        let Some(p) = self.doc.as_mut() else {
            return vec![Out::info("no paper open: nothing to highlight")];
        };
        if p.kind != EntryKind::Paper {
            return vec![Out::info(
                "highlights are kept for PDFs; this document is text",
            )];
        }
        let rows = p.rows(view.0);
        let sel = p.selection(&rows);
        let text = p.selected_text(&rows).filter(|t| !t.trim().is_empty());
        let (Some((start, end)), Some(text)) = (sel, text) else {
            return vec![Out::info(
                "select the text to highlight first (v or V, then H)",
            )];
        };
        p.visual = None;
        self.pending = Some(Pending {
            path: p.path.clone(),
            new: NewHighlight {
                page: p.page,
                start,
                end,
                text,
                comment: None,
            },
        });
        vec![
            Out::Prompt {
                kind: PromptKind::Comment,
                text: String::new(),
            },
            Out::info("comment on the highlight (optional): enter saves, esc cancels"),
        ]
    }

    /// The comment prompt was answered (`None`: cancelled, nothing is saved).
    pub(super) fn comment(&mut self, text: Option<String>) -> Vec<Out> {
        let Some(Pending { path, mut new }) = self.pending.take() else {
            return Vec::new();
        };
        let Some(text) = text else {
            return vec![Out::info("highlight cancelled")];
        };
        new.comment = Some(text).filter(|c| !c.trim().is_empty());
        vec![
            Out::Run(Effect::Marks(MarksEffect::Add { path, new })),
            Out::info("saving the highlight…"),
        ]
    }

    /// The annotations of `path` now (after a change, or read when it opened).
    pub(super) fn annotations_arrived(&mut self, path: &str, list: Vec<Annotation>) -> Vec<Out> {
        match self.doc.as_mut().filter(|p| p.path == path) {
            Some(p) => {
                p.info.annotations = list;
                self.refill_annotations()
            }
            None => Vec::new(),
        }
    }

    /// The open paper's annotations, in page order.
    pub fn annotations(&self) -> &[Annotation] {
        self.doc.as_ref().map_or(&[], |p| &p.info.annotations)
    }

    /// `A`: the list of the paper's annotations.
    pub(super) fn list_annotations(&self) -> Vec<Out> {
        match self.doc.as_ref() {
            Some(p) if p.kind == EntryKind::Paper => {
                vec![Out::Overlay(OverlayRequest::List(
                    super::lists::annotations(p),
                ))]
            }
            Some(_) => vec![Out::info("annotations are kept for PDFs")],
            None => vec![Out::info("no paper open")],
        }
    }
}

impl Doc {
    /// What read `page`, when its text is OCR: `OCR (tesseract 5.3.0, eng) · confidence 0.91`.
    pub fn ocr_says(&self, page: u32) -> Option<String> {
        self.info
            .ocr
            .iter()
            .find(|n| n.page == page && n.words > 0)
            .map(|n| n.says())
    }

    /// Byte ranges of `page`'s words that OCR read with little confidence (inside the text).
    pub fn ocr_low_ranges(&self, page: u32) -> Vec<(usize, usize)> {
        let len = self.text(page).map_or(0, str::len);
        self.info
            .ocr_low
            .iter()
            .find(|(p, _)| *p == page)
            .map(|(_, r)| r.iter().copied().filter(|&(_, e)| e <= len).collect())
            .unwrap_or_default()
    }

    /// Byte ranges of `page`'s text that annotations mark: where their text is found (the
    /// same finder as cited quotes, so ligatures and hyphenation do not hide them).
    pub fn annotation_ranges(&self, page: u32) -> Vec<(usize, usize)> {
        let Some(text) = self.text(page) else {
            return Vec::new();
        };
        self.info
            .annotations
            .iter()
            .filter(|a| a.page == page)
            .filter_map(|a| {
                let t = a.text.as_deref()?.trim();
                if t.is_empty() {
                    return None;
                }
                if let Some(at) = text.find(t) {
                    return Some((at, at + t.len()));
                }
                let f = quote::find(text, t)?;
                Some((f.range.start, f.range.end))
            })
            .collect()
    }
}
