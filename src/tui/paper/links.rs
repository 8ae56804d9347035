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

/// Characters of a reference entry shown in its row (whole words), and words of it its jump
/// highlights.
const ROW_CHARS: usize = 40;
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
        Target::Uri(u) if item.anchor == *u => {
            return Row::new(
                visible(&format!("web link → {u}")).into_owned(),
                follow_uri(u),
            );
        }
        Target::Uri(u) => (u.clone(), follow_uri(u), Vec::new()),
        Target::Reference(c) => {
            let (to, open, key) = reference(path, &item.anchor, c);
            (to, open, key.into_iter().collect())
        }
    };
    Row {
        text: visible(&format!("{anchor} → {to}")).into_owned(),
        open,
        keys,
    }
}

/// The words of `text` that fit in `max` characters, `…` after them when some are left out.
fn first_words(text: &str, max: usize) -> String {
    let mut out = String::new();
    for w in text.split_whitespace() {
        let len = out.chars().count() + usize::from(!out.is_empty()) + w.chars().count();
        if len > max {
            let kept = out.trim_end_matches(['.', ',', ';', ':']).len();
            out.truncate(kept);
            out.push('…');
            return out;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The first words of an entry, the quote its jump highlights.
fn quote_words(text: &str) -> String {
    text.split_whitespace()
        .take(QUOTE_WORDS)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A key of a row and what it does.
type Key = (Action, Vec<Out>);

/// A web address opens with `$BROWSER` (without one the runner copies it); any other scheme
/// (a PDF may link to `file:` or `javascript:`) is copied (OSC 52, control characters left
/// out) and the status says so.
fn follow_uri(u: &str) -> Vec<Out> {
    let web = matches!(
        crate::vault::uri::parse(u),
        Some(crate::vault::uri::Target::External(_))
    ) && !u.chars().any(|c| c.is_control() || c.is_whitespace());
    if web {
        return open_url(u.to_string());
    }
    let clean: String = u.chars().filter(|c| !c.is_control()).collect();
    vec![
        Out::Run(Effect::Copy(clean.clone())),
        Out::info(
            visible(&format!(
                "copied {clean} (through the terminal, OSC 52; only http and https links are opened)"
            ))
            .into_owned(),
        ),
    ]
}

/// A reference entry's row: its number (when the anchor does not say it), page and first
/// words; enter jumps to it, highlighted; `o` opens the paper of the library it names.
fn reference(path: &str, anchor: &str, c: &Cited) -> (String, Vec<Out>, Option<Key>) {
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
        quote: Some(quote_words(&c.on_page)).filter(|q| !q.is_empty()),
        lines: None,
    };
    let key = c.paper.as_ref().map(|(cited, _)| {
        to.push_str(" · in library (o)");
        let open = Out::Jump(Jump::to(cited.clone(), 1));
        (Action::OpenCited, vec![open])
    });
    to.push_str(&format!(" · {}", first_words(&c.text, ROW_CHARS)));
    (to, vec![Out::Jump(jump)], key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links() -> PageLinks {
        let item = |anchor: &str, to: Target| Item {
            anchor: anchor.into(),
            to,
        };
        PageLinks {
            page: 4,
            items: vec![
                item(
                    "Figure 3",
                    Target::Page {
                        page: 7,
                        label: Some("Figure 3: The pipeline of the reader, from glyphs to…".into()),
                    },
                ),
                item(
                    "",
                    Target::Page {
                        page: 9,
                        label: None,
                    },
                ),
                item("code", Target::Uri("https://example.org/x\u{1b}[2J".into())),
                item(
                    "[3, 7]",
                    Target::Reference(Cited {
                        number: 7,
                        page: 12,
                        text: "G. Ode. Fonts and their encodings in scholarly PDFs. 2015.".into(),
                        on_page: "G. Ode. Fonts and their encodings".into(),
                        paper: Some(("papers/ode/paper.pdf".into(), "Fonts".into())),
                    }),
                ),
            ],
            note: None,
        }
    }

    /// Each link a row: what it is anchored on and where it goes; enter jumps (a page with its
    /// destination's line, a reference entry with its text as the quote), a URI is opened or
    /// copied, and only a reference the library holds has `o`.
    #[test]
    fn rows_follow_their_links() {
        let list = list(5, "papers/a/paper.pdf", &links());
        assert_eq!(list.tag, 5);
        assert!(
            list.title.starts_with("Links on p. 4 (4)"),
            "{}",
            list.title
        );
        let texts: Vec<&str> = list.rows.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(
            texts[0],
            "Figure 3 → p. 7: Figure 3: The pipeline of the reader, from glyphs to…"
        );
        assert_eq!(texts[1], "(link) → p. 9");
        assert!(!texts[2].contains('\u{1b}'), "{:?}", texts[2]);
        assert_eq!(
            texts[3],
            "[3, 7] → [7] p. 12 · in library (o) · G. Ode. Fonts and their encodings in…"
        );
        let jump = |r: &Row| match &r.open[..] {
            [Out::Jump(j)] => (j.to.path.clone(), j.to.page, j.quote.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            jump(&list.rows[0]),
            (
                "papers/a/paper.pdf".into(),
                7,
                Some("Figure 3: The pipeline of the reader, from glyphs to".into())
            )
        );
        assert_eq!(jump(&list.rows[1]).2, None);
        // Not a clean web address: copied, never opened, without its escape.
        let uri = &list.rows[2].open;
        assert!(
            matches!(&uri[..], [Out::Run(Effect::Copy(u)), Out::Status(s)] if u == "https://example.org/x[2J" && s.text.contains("only http")),
            "{uri:?}"
        );
        for bad in ["file:///etc/passwd", "javascript:alert(1)"] {
            let out = follow_uri(bad);
            assert!(
                !out.iter()
                    .any(|o| matches!(o, Out::Run(Effect::OpenUrl(_)))),
                "{bad}"
            );
        }
        let web = follow_uri("https://example.org/paper");
        assert!(
            matches!(&web[..], [Out::Run(Effect::OpenUrl(u))] if u == "https://example.org/paper"),
            "{web:?}"
        );
        let (path, page, quote) = jump(&list.rows[3]);
        assert_eq!((path.as_str(), page), ("papers/a/paper.pdf", 12));
        assert!(quote.unwrap().starts_with("G. Ode. Fonts"));
        assert!(list.rows[..3].iter().all(|r| r.keys.is_empty()));
        match &list.rows[3].keys[..] {
            [(Action::OpenCited, outs)] => {
                assert!(matches!(&outs[..], [Out::Jump(j)] if j.to.path == "papers/ode/paper.pdf"))
            }
            other => panic!("{other:?}"),
        }
    }

    /// A late answer (the list asked for again, or another paper open) is dropped.
    #[test]
    fn a_stale_answer_is_dropped() {
        let mut paper = Paper::default();
        assert!(
            paper
                .links_arrived(1, "papers/a/paper.pdf", links())
                .is_empty()
        );
    }
}
