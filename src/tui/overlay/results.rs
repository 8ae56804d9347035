//! The vault search's results (`space /`): searching, then one row a hit that opens the
//! paper at its best page with the matched words highlighted there.

use crate::tui::effect::{Jump, List, OverlayKind, Row};
use crate::tui::widgets::truncate;
use crate::vault::marked::Marked;
use crate::vault::{EntryKind, PaperHit};

/// The list while search `seq` for `query` runs.
pub fn searching(seq: u64, query: &str) -> List {
    let mut list = List::new(
        OverlayKind::Results,
        title(query, ""),
        Vec::new(),
        "searching…",
    );
    list.tag = seq;
    list
}

/// The list of what search `seq` found (or why it failed), its rows `width` columns wide.
pub fn found(seq: u64, query: &str, result: Result<Vec<PaperHit>, String>, width: usize) -> List {
    let (rows, empty, n) = match result {
        Err(e) => (Vec::new(), format!("cannot search: {e}"), String::new()),
        Ok(hits) => {
            let n = format!(" ({})", hits.len());
            let rows = hits
                .into_iter()
                .map(|hit| Row::new(result_line(&hit, width), vec![open_hit(hit, query)]))
                .collect();
            (rows, format!("nothing in the vault matches {query:?}"), n)
        }
    };
    let mut list = List::new(OverlayKind::Results, title(query, &n), rows, empty);
    list.tag = seq;
    list
}

fn title(query: &str, n: &str) -> String {
    format!("Search: {query}{n} · enter opens at the page")
}

/// A search result opens at its best page, the first matched words highlighted there.
fn open_hit(hit: PaperHit, query: &str) -> crate::tui::effect::Out {
    let best = hit.pages.first();
    let page = best.and_then(|p| p.page).or(hit.card.page).unwrap_or(1);
    let mut jump = Jump::to(hit.card.path.clone(), page);
    jump.lines = best.and_then(|p| p.lines).map(|[a, b]| (a, b));
    // The excerpt's longest run of matches (a searched phrase), else the query's words: found
    // on the page, shown.
    let matched = Marked(&hit.card.excerpt)
        .longest_run()
        .filter(|m| !m.trim().is_empty())
        .unwrap_or_else(|| query.to_string());
    if hit.card.kind == EntryKind::Paper {
        jump.quote = Some(matched);
    }
    crate::tui::effect::Out::Jump(jump)
}

/// One result in `width` columns: the title (cut to two fifths of the line), where it
/// matched (`p. 3, 7`, `lines 1–17`), and the excerpt from a little before its first match,
/// the matched words between ‹ and ›.
fn result_line(hit: &crate::vault::PaperHit, width: usize) -> String {
    use crate::tui::text::str_width;
    let title = if hit.card.title.trim().is_empty() {
        hit.card.path.clone()
    } else {
        hit.card.title.clone()
    };
    let excerpt = hit
        .card
        .excerpt
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // A match is shown ‹word›.
    let marked = Marked(&excerpt).with_marks('‹', '›');
    // Start a few words before the first match, so it shows.
    let excerpt = match marked.find('‹') {
        Some(at) => {
            let before: Vec<&str> = marked[..at].split(' ').collect();
            let keep = before.len().saturating_sub(4);
            let lead = if keep > 0 { "…" } else { "" };
            format!("{lead}{}{}", before[keep..].join(" "), &marked[at..])
        }
        None => marked,
    };
    let places = hit.places();
    let places = if places.is_empty() {
        String::new()
    } else {
        format!(" · {places}")
    };
    let title_room = (width * 2 / 5).max(12);
    let title = if str_width(&title) > title_room {
        truncate(&title, title_room)
    } else {
        title
    };
    let line = format!("{title}{places} · {}", excerpt.trim());
    crate::vault::visible::visible(&line).into_owned()
}
