//! What opening a thread's item does — enter on the chat pane's or Quick Chat's selection, or
//! `O` (`external`: only what lies outside the vault) — one rule for both surfaces; each only
//! carries it out (Quick Chat closes before it jumps).

use super::{ItemKind, SourceRef, verdicts};
use crate::tui::effect::{Jump, Out, open_url};
use crate::vault::uri::{self, Target};

#[derive(Debug, PartialEq)]
pub enum Opening {
    /// A place in the vault, for the paper pane.
    Jump(Jump),
    /// Fold or unfold the item (a tool call, a thought, the consulted sources).
    Toggle,
    /// What to run or say instead: an address for `$BROWSER`, why nothing opens.
    Outs(Vec<Out>),
}

/// What opening an item of kind `kind` does.
pub fn open(kind: &ItemKind, external: bool) -> Opening {
    match kind {
        ItemKind::Source(SourceRef { uri: u, quote }) => match uri::parse(u) {
            Some(Target::External(url)) => Opening::Outs(open_url(url)),
            Some(Target::Vault { path, page, lines }) if !external => {
                Opening::Jump(Jump::at_place(path, page, lines, quote.clone()))
            }
            Some(Target::Vault { .. }) => Opening::Outs(vec![Out::info(
                "this source is in the vault: enter opens it",
            )]),
            None => Opening::Outs(vec![Out::error(format!("cannot open {u}"))]),
        },
        ItemKind::Citation { check: c, .. } if !external => {
            match Jump::at_uri(verdicts::opens(c), c.quote.clone()) {
                Some(jump) => Opening::Jump(jump),
                None => Opening::Outs(vec![Out::error(format!("cannot open {}", c.uri))]),
            }
        }
        ItemKind::Tool { .. } | ItemKind::Thought { .. } | ItemKind::Consulted(_) => {
            Opening::Toggle
        }
        _ => Opening::Outs(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::citations::{CitationCheck, Verdict};

    fn source(uri: &str) -> ItemKind {
        ItemKind::Source(SourceRef {
            uri: uri.into(),
            quote: Some("the quote".into()),
        })
    }

    #[test]
    fn sources_citations_and_folds_open_one_way() {
        let vault = source("papers/a/paper.pdf#page=3");
        let jump = Jump::at_place(
            "papers/a/paper.pdf".into(),
            Some(3),
            None,
            Some("the quote".into()),
        );
        assert_eq!(open(&vault, false), Opening::Jump(jump.clone()));
        assert_eq!(
            open(&vault, true),
            Opening::Outs(vec![Out::info(
                "this source is in the vault: enter opens it"
            )])
        );
        let web = source("https://doi.org/10.1/x");
        assert_eq!(
            open(&web, false),
            Opening::Outs(open_url("https://doi.org/10.1/x".into()))
        );
        assert_eq!(open(&web, true), open(&web, false));
        assert!(matches!(open(&source("ftp://x"), false), Opening::Outs(o) if o.len() == 1));

        // A citation opens where its quote really is.
        let mut check = CitationCheck {
            uri: "papers/a/paper.pdf#page=2".into(),
            quote: Some("the quote".into()),
            verdict: Verdict::OtherPage,
            found_at: Some("papers/a/paper.pdf#page=3".into()),
            detail: None,
        };
        let cited = |c: &CitationCheck| ItemKind::Citation {
            check: c.clone(),
            named: false,
        };
        assert_eq!(open(&cited(&check), false), Opening::Jump(jump));
        assert_eq!(open(&cited(&check), true), Opening::Outs(Vec::new()));
        check.found_at = None;
        check.uri = "ftp://x".into();
        assert_eq!(
            open(&cited(&check), false),
            Opening::Outs(vec![Out::error("cannot open ftp://x")])
        );

        for folds in [
            ItemKind::Thought { text: "t".into() },
            ItemKind::Consulted(2),
        ] {
            assert_eq!(open(&folds, false), Opening::Toggle);
        }
        let said = ItemKind::Agent { text: "a".into() };
        assert_eq!(open(&said, false), Opening::Outs(Vec::new()));
    }
}
