//! The thread list's filter (`/` in the list of threads): the chat's threads searched by what
//! their answers cited and by their words, with the rules of `agentero threads`
//! ([`crate::acp::threads`]) — `@papers/x/paper.pdf#page=3` for a cited paper, page or
//! lines (a folder covers what is under it), other words all in one turn. One row per
//! matching turn, most recent thread first; choosing a row shows the thread at that turn.

use crate::acp::threads::{ThreadIndex, ThreadQuery, TurnText};
use crate::context::citations;

use super::{ItemKind, Thread};

/// A matching turn of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundTurn {
    /// The thread (index into the chat's threads).
    pub thread: usize,
    /// 1-based turn of that thread (its n-th question).
    pub turn: usize,
    /// The citations of that turn that matched (all of them, without a place in the query).
    pub cited: Vec<String>,
    /// The row shown: title, turn, question, what matched.
    pub row: String,
}

/// The thread list's filter: what was typed and what it finds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ThreadFilter {
    pub text: String,
    pub found: Vec<FoundTurn>,
    /// Why the query finds nothing by construction (a `@` place that is not a vault path).
    pub error: Option<String>,
}

/// The turns of a chat thread as text: each question with the answer and the citation
/// verdicts that follow it.
fn turns(t: &Thread) -> Vec<TurnText> {
    let mut out: Vec<TurnText> = Vec::new();
    for item in &t.items {
        match &item.kind {
            ItemKind::User { text, .. } => out.push(TurnText {
                turn: (out.len() + 1).to_string(),
                question: text.clone(),
                ..TurnText::default()
            }),
            ItemKind::Agent { text } => {
                if let Some(turn) = out.last_mut() {
                    turn.answer.push_str(text);
                }
            }
            ItemKind::Citation { check, .. } => {
                if let Some(turn) = out.last_mut()
                    && !turn
                        .cited
                        .iter()
                        .any(|c| citations::same_place(c, &check.uri))
                {
                    turn.cited.push(check.uri.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// The chat's threads indexed for the filter (built once when the filter opens; each key
/// typed then only searches).
pub fn index(threads: &[Thread]) -> ThreadIndex {
    let mut index = ThreadIndex::default();
    // The chat keeps threads oldest first; the list shows the most recent first.
    for (i, t) in threads.iter().enumerate().rev() {
        index.add(i.to_string(), t.title.clone(), String::new(), turns(t));
    }
    index
}

/// The turns of `threads` that `text` finds (see the module's rules).
pub fn find(threads: &[Thread], text: &str) -> ThreadFilter {
    find_in(&index(threads), text)
}

/// The turns of an [`index`] of the chat's threads that `text` finds.
pub fn find_in(index: &ThreadIndex, text: &str) -> ThreadFilter {
    let query = ThreadQuery::parse(text);
    let mut filter = ThreadFilter {
        text: text.to_string(),
        ..ThreadFilter::default()
    };
    let hits = match index.search(&query) {
        Ok(h) => h,
        Err(e) => {
            filter.error = Some(e.to_string());
            return filter;
        }
    };
    for h in hits {
        let Ok(thread) = h.thread_id.parse::<usize>() else {
            continue;
        };
        for t in h.turns {
            let question = t.question.split_whitespace().collect::<Vec<_>>().join(" ");
            let title = h.title.split_whitespace().collect::<Vec<_>>().join(" ");
            // A thread is titled by its first question: said once.
            let mut row = if t.number == 1 && question.starts_with(&title) {
                format!("{question} · turn 1")
            } else {
                format!("{title} · turn {}: {question}", t.number)
            };
            if query.cites.is_some() {
                row.push_str(&format!(" · {}", t.cited.join(", ")));
            } else {
                // The snippet, without the question the row already shows.
                let snippet = t
                    .snippet
                    .strip_prefix(question.as_str())
                    .unwrap_or(&t.snippet);
                row.push_str(&format!(" · {}", snippet.trim()));
            }
            filter.found.push(FoundTurn {
                thread,
                turn: t.number,
                cited: t.cited,
                row,
            });
        }
    }
    filter
}

/// The item of `t` to select when it is shown at `turn` (1-based): the verdict of a citation
/// that matched, else its source card, else the turn's first item the cursor stops on, else
/// its question.
pub fn item_at(t: &Thread, turn: usize, cited: &[String]) -> Option<usize> {
    let users: Vec<usize> = t
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i.kind, ItemKind::User { .. }))
        .map(|(n, _)| n)
        .collect();
    let start = *users.get(turn.checked_sub(1)?)?;
    let end = users.get(turn).copied().unwrap_or(t.items.len());
    let span = start..end;
    let matches = |u: &str| cited.iter().any(|c| citations::same_place(c, u));
    let verdict = span.clone().find(
        |&n| matches!(&t.items[n].kind, ItemKind::Citation { check, .. } if matches(&check.uri)),
    );
    let source = || {
        span.clone()
            .find(|&n| matches!(&t.items[n].kind, ItemKind::Source(s) if matches(&s.uri)))
    };
    let first = || span.clone().find(|&n| t.items[n].selectable());
    Some(verdict.or_else(source).or_else(first).unwrap_or(start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::citations::{CitationCheck, Verdict};
    use crate::tui::thread::{ChatEvent, Item};

    fn thread(title: &str, turns: &[(&str, &str, &[&str])]) -> Thread {
        let mut t = Thread::new(title.into());
        t.title = title.into();
        for (q, a, cited) in turns {
            t.items.push(Item::new(ItemKind::User {
                text: q.to_string(),
                chips: vec![],
            }));
            t.apply(ChatEvent::MessageChunk(a.to_string()));
            t.apply(ChatEvent::Citations(
                cited
                    .iter()
                    .map(|u| CitationCheck {
                        uri: u.to_string(),
                        quote: Some("a quote of some words".into()),
                        verdict: Verdict::Verified,
                        found_at: None,
                        detail: None,
                    })
                    .collect(),
            ));
        }
        t
    }

    #[test]
    fn the_filter_finds_turns_by_cited_page_and_words_most_recent_first() {
        let threads = vec![
            thread(
                "columns",
                &[
                    (
                        "How are columns found?",
                        "From gutters.",
                        &["papers/l/paper.pdf#page=2"],
                    ),
                    (
                        "And the window size?",
                        "150 words.",
                        &["papers/h/paper.pdf#page=3"],
                    ),
                ],
            ),
            thread(
                "windows",
                &[(
                    "Which window size?",
                    "It is 150 words.",
                    &["papers/h/paper.pdf#page=3"],
                )],
            ),
        ];
        let f = find(&threads, "@papers/h/paper.pdf#page=3");
        let at: Vec<(usize, usize)> = f.found.iter().map(|r| (r.thread, r.turn)).collect();
        assert_eq!(at, [(1, 1), (0, 2)]);
        assert_eq!(
            f.found[1].row,
            "columns · turn 2: And the window size? · papers/h/paper.pdf#page=3"
        );
        let f = find(&threads, "150 words");
        assert_eq!(
            f.found[0].row,
            "windows · turn 1: Which window size? · It is 150 words."
        );
        let f = find(&threads, "COLUMNS gutters");
        assert_eq!(f.found.len(), 1);
        assert_eq!((f.found[0].thread, f.found[0].turn), (0, 1));
        assert!(
            find(&threads, "@papers/h/paper.pdf#page=3 gutters")
                .found
                .is_empty()
        );
        assert_eq!(find(&threads, "@papers/").found.len(), 3);
        assert!(find(&threads, "@https://doi.org/10.1/x").error.is_some());
        // Shown at the turn: its verdict of the matched page is selected.
        let sel = item_at(&threads[0], 2, &["papers/h/paper.pdf#page=3".into()]).unwrap();
        assert!(matches!(
            &threads[0].items[sel].kind,
            ItemKind::Citation { check, .. } if check.uri == "papers/h/paper.pdf#page=3"
        ));
        // No turn 3.
        assert_eq!(item_at(&threads[0], 3, &[]), None);
    }
}
