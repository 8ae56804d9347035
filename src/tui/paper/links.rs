//! `L`: the links and numbered citations of the page, as a list. Enter follows one: a page of
//! the paper or a reference entry is a jump (recorded, so ctrl-o comes back), the entry or the
//! destination's line highlighted there; a URI opens with `$BROWSER`, or is copied. `o` on a
//! reference the library holds opens that paper.

use super::Paper;
use crate::context::links::{Cited, Item, PageLinks, Target};
use crate::tui::action::Action;
use crate::tui::effect::{
    Effect, Jump, List, Location, Out, OverlayKind, OverlayRequest, Row, open_url,
};
use crate::tui::widgets::truncate;
use crate::vault::EntryKind;
use crate::vault::visible::visible;

/// Words of a reference entry shown in its row, and used as the quote its jump highlights.
const ROW_WORDS: usize = 7;
const QUOTE_WORDS: usize = 30;

impl Paper {
    /// Opens the list for the current page, empty while the links are read.
    pub(super) fn list_links(&mut self) -> Vec<Out> {
        let Some(p) = self.doc.as_ref() else {
            return Vec::new();
        };
        if p.kind != EntryKind::Paper {
            return vec![Out::info("links are read from a paper's PDF")];
        }
        self.links_seq += 1;
        let mut list = List::new(
            OverlayKind::Links,
            title(p.page, None),
            Vec::new(),
            format!("reading the links on p. {}…", p.page),
        );
        list.tag = self.links_seq;
        vec![
            Out::Overlay(OverlayRequest::List(list)),
            Out::Run(Effect::PageLinks {
                seq: self.links_seq,
                path: p.path.clone(),
                page: p.page,
                pages: p.page_count(),
            }),
        ]
    }

    /// The links arrived: the open list gets its rows (nothing when it was closed, or asked
    /// for again since).
    pub(super) fn links_arrived(&mut self, seq: u64, path: &str, links: PageLinks) -> Vec<Out> {
        if seq != self.links_seq || self.doc.as_ref().is_none_or(|p| p.path != path) {
            return Vec::new();
        }
        vec![Out::Refill {
            list: list(seq, path, &links),
            keep_selection: false,
        }]
    }
}

fn title(page: u32, n: Option<usize>) -> String {
    let n = n.map(|n| format!(" ({n})")).unwrap_or_default();
    format!("Links on p. {page}{n} · enter follows · o opens a cited paper")
}

/// The list of a page's links: one row a link or cited reference.
pub(super) fn list(seq: u64, path: &str, links: &PageLinks) -> List {
    let rows: Vec<Row> = links.items.iter().map(|i| row(path, i)).collect();
    let empty = match &links.note {
        Some(note) => format!("no links or numbered citations found on this page ({note})"),
        None => "no links or numbered citations on this page".into(),
    };
    let mut list = List::new(
        OverlayKind::Links,
        title(links.page, Some(rows.len())),
        rows,
        empty,
    );
    list.tag = seq;
    list
}

fn row(path: &str, item: &Item) -> Row {
    let anchor = if item.anchor.is_empty() {
        "(link)".to_string()
    } else {
        truncate(&item.anchor, 30)
    };
    let (to, open, keys) = match &item.to {
        Target::Page { page, label } => {
            let to = match label {
                Some(l) => format!("p. {page}: {l}"),
                None => format!("p. {page}"),
            };
            // The destination's line, highlighted there (without the cut's ellipsis).
            let quote = label.as_ref().map(|l| l.trim_end_matches('…').to_string());
            let jump = Jump {
                to: Location {
                    path: path.to_string(),
                    page: *page,
                    row: 0,
                },
                quote,
                lines: None,
            };
            (to, vec![Out::Jump(jump)], Vec::new())
        }
        Target::Uri(u) => (u.clone(), follow_uri(u), Vec::new()),
        Target::Reference(c) => reference(path, &item.anchor, c),
    };
    Row {
        text: visible(&format!("{anchor} → {to}")).into_owned(),
        open,
        keys,
    }
}

/// A URI opens with `$BROWSER`; without one it is copied (OSC 52) and the status says so.
fn follow_uri(u: &str) -> Vec<Out> {
    if std::env::var_os("BROWSER").is_some() {
        return open_url(u.to_string());
    }
    vec![
        Out::Run(Effect::Copy(u.to_string())),
        Out::info(format!(
            "copied {u} (through the terminal, OSC 52; set $BROWSER to open links)"
        )),
    ]
}

/// A reference entry's row: its number (when the anchor does not say it), page and first
/// words; enter jumps to it, highlighted; `o` opens the paper of the library it names.
fn reference(path: &str, anchor: &str, c: &Cited) -> (String, Vec<Out>, Vec<(Action, Vec<Out>)>) {
    let words = |n: usize| c.text.split_whitespace().take(n).collect::<Vec<_>>();
    let more = if c.text.split_whitespace().count() > ROW_WORDS {
        "…"
    } else {
        ""
    };
    let number = format!("[{}]", c.number);
    let mut to = if anchor == number {
        format!("p. {}", c.page)
    } else {
        format!("{number} p. {}", c.page)
    };
    let jump = Jump {
        to: Location {
            path: path.to_string(),
            page: c.page,
            row: 0,
        },
        quote: Some(words(QUOTE_WORDS).join(" ")).filter(|q| !q.is_empty()),
        lines: None,
    };
    let mut keys = Vec::new();
    if let Some((cited, _)) = &c.paper {
        to.push_str(" · in the library (o)");
        keys.push((
            Action::OpenCited,
            vec![Out::Jump(Jump::to(cited.clone(), 1))],
        ));
    }
    to.push_str(&format!(" · {}{more}", words(ROW_WORDS).join(" ")));
    (to, vec![Out::Jump(jump)], keys)
}
