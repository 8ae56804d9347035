//! The recently opened documents (`space r`): one row each, `title · p. 3`, opening the
//! document where it was left.

use crate::tui::effect::{List, Out, OverlayKind, Row};

/// The list of `(path, title, page)`, the latest first (an empty title: the path shows).
pub fn list(recent: Vec<(String, String, u32)>) -> List {
    let rows = recent
        .into_iter()
        .map(|(path, title, page)| {
            let title = if title.is_empty() {
                path.clone()
            } else {
                title
            };
            Row::new(
                format!("{title} · p. {page}"),
                vec![Out::OpenEntry { path }],
            )
        })
        .collect();
    List::new(
        OverlayKind::Recent,
        "Recently opened · enter opens",
        rows,
        "nothing opened yet",
    )
}
