//! A manuscript's citations as a checklist (`c` on a draft in the vault browser, `space k`
//! reopens it): a row each, its mark first (✓, ⚠, · for a claim without a quote), where it is
//! in the draft, the key and page as written and what it came to. Enter opens the cited paper
//! at the page the quote is on (or the cited page), the quote highlighted; `]` / `[` go to the
//! next / previous citation that needs a look.

use crate::context::check::{Checked, Outcome, Report};
use crate::tui::effect::{Jump, List, Out, OverlayKind, Row};
use crate::tui::widgets::truncate;
use crate::vault::visible::visible;

/// The list while check `seq` of `path` runs.
pub fn checking(seq: u64, path: &str) -> List {
    let mut list = List::new(
        OverlayKind::Checklist,
        title(path, ""),
        Vec::new(),
        "checking…",
    );
    list.tag = seq;
    list
}

/// The checklist of what check `seq` found (or why it failed), rows `width` columns wide.
pub fn checked(seq: u64, path: &str, result: Result<&Report, &String>, width: usize) -> List {
    let (rows, empty, n) = match result {
        Err(e) => (Vec::new(), format!("cannot check: {e}"), String::new()),
        Ok(r) => {
            let s = &r.summary;
            let n = format!(" ({} ✓, {} ⚠, {} ·)", s.verified, s.problems, s.claims);
            let rows = r.citations.iter().map(|c| row(c, width)).collect();
            (rows, "no citations found in it".to_string(), n)
        }
    };
    let mut list = List::new(OverlayKind::Checklist, title(path, &n), rows, empty);
    list.tag = seq;
    list
}

fn title(path: &str, n: &str) -> String {
    format!("Citations: {}{n} · enter opens · ]/[ next ⚠", visible(path))
}

/// `⚠ 12:34 @key, p. 4 — differs: "0.215" — the page has "0.251"`.
fn row(c: &Checked, width: usize) -> Row {
    let cited = match &c.locator {
        Some(l) => format!("{}, {l}", c.key),
        None => c.key.clone(),
    };
    let line = format!(
        "{} {}:{} {cited} — {}",
        c.outcome.glyph(),
        c.line,
        c.column,
        c.says
    );
    let text = truncate(&visible(&line), width.max(20));
    let open = match (&c.uri, c.outcome) {
        (_, Outcome::NotInLibrary | Outcome::Ambiguous) => {
            vec![Out::error(
                visible(&format!("{}: {}", c.key, c.says)).into_owned(),
            )]
        }
        (Some(u), _) => {
            // The quote is highlighted where it is; a quote that is not on the page is not.
            let quote = c
                .quote
                .clone()
                .filter(|_| matches!(c.outcome, Outcome::Verified | Outcome::OtherPage));
            Jump::at_uri(u, quote).map(Out::Jump).into_iter().collect()
        }
        (None, _) => Vec::new(),
    };
    Row::new(text, open)
}

/// Whether row text `text` is a citation that needs a look.
pub fn is_problem(text: &str) -> bool {
    text.starts_with(Outcome::NotFound.glyph())
}
