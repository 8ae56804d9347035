//! The @ popup's completions: vault paths and paper titles, fuzzy-matched with nucleo.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

use crate::tui::listing::Entry;
use crate::vault::EntryKind;

/// The best `limit` entries for `query` as (path, display). An empty query lists papers first.
pub fn complete(entries: &[Entry], query: &str, limit: usize) -> Vec<(String, String)> {
    let display = |e: &Entry| match e.kind {
        EntryKind::Paper => format!("{} — {}", e.title, e.path),
        EntryKind::Directory => format!("{}/", e.path),
        EntryKind::File => e.path.clone(),
    };
    if query.is_empty() {
        let mut all: Vec<&Entry> = entries.iter().collect();
        all.sort_by_key(|e| (e.kind != EntryKind::Paper, e.path.clone()));
        return all
            .into_iter()
            .take(limit)
            .map(|e| (e.path.clone(), display(e)))
            .collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let hay: Vec<(usize, String)> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (i, format!("{} {}", e.path, e.title)))
        .collect();
    let mut scored: Vec<(usize, u32)> = hay
        .iter()
        .filter_map(|(i, h)| {
            let mut buf = Vec::new();
            let s = pattern.score(nucleo_matcher::Utf32Str::new(h, &mut buf), &mut matcher)?;
            Some((*i, s))
        })
        .collect();
    // Best score first; ties keep vault order so the list is stable while typing.
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
        .into_iter()
        .take(limit)
        .map(|(i, _)| (entries[i].path.clone(), display(&entries[i])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str, title: &str, kind: EntryKind) -> Entry {
        Entry {
            path: path.into(),
            kind,
            title: title.into(),
            authors: String::new(),
            year: None,
            depth: 0,
        }
    }

    #[test]
    fn fuzzy_over_paths_and_titles() {
        let list = vec![
            e(
                "papers/attn/paper.pdf",
                "Attention Is All You Need",
                EntryKind::Paper,
            ),
            e("notes/ideas.md", "ideas", EntryKind::File),
        ];
        let r = complete(&list, "attnall", 5);
        assert_eq!(r[0].0, "papers/attn/paper.pdf");
        let r = complete(&list, "ideas", 5);
        assert_eq!(r[0].0, "notes/ideas.md");
    }
}
