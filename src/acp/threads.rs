//! Chats searchable by what they cite and what they say: an in-memory index of every thread of
//! a vault (`agentero threads`, the terminal app's thread list filter). A thread is found by a
//! paper or page its answers cited (`--cites papers/x/paper.pdf[#page=N]`) and by words of its
//! questions and answers (`--search`); each hit names the turns that match, so a thread can be
//! opened at that turn.

use std::path::Path;

use serde::Serialize;

use super::transcript::{
    CHATS_DIR, Line, STATE_FILE, TRANSCRIPT_FILE, ThreadState, read_transcript,
};
use crate::context::citations;
use crate::context::grant::valid_id;
use crate::context::mention::syntax;
use crate::vault::Vault;
use crate::vault::uri::{self, Target};

/// Each path a thread cited, once, with its cited pages in order.
pub type CitedPlaces = Vec<(String, Vec<u32>)>;

/// A cited place: vault path, page, lines.
type Place = (String, Option<u32>, Option<(u32, u32)>);

/// One turn of a thread, as searched.
#[derive(Debug, Clone)]
struct IndexedTurn {
    turn: String,
    question: String,
    answer: String,
    /// Places the answer cited: (path, page, lines).
    cited: Vec<Place>,
    cited_uris: Vec<String>,
    /// Question and answer, lower-cased (what text search looks in).
    lower: String,
    /// Where the answer starts in `lower`.
    split: usize,
}

#[derive(Debug, Clone)]
struct IndexedThread {
    id: String,
    title: String,
    updated: String,
    turns: Vec<IndexedTurn>,
}

/// Every thread of a vault, loaded once and searched in memory.
#[derive(Debug, Clone, Default)]
pub struct ThreadIndex {
    threads: Vec<IndexedThread>,
    /// Transcripts that could not be read, as messages.
    pub warnings: Vec<String>,
}

/// What to look for; every given part must match (in the same turn).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadQuery {
    /// A paper or file, optionally a page or lines: a citation URI or a vault path.
    pub cites: Option<String>,
    /// Words that must all occur in the turn's question or answer (case-insensitive).
    pub text: Option<String>,
}

impl ThreadQuery {
    /// A query typed on one line (the terminal app's thread filter): `@papers/x/paper.pdf#page=3`
    /// (a word starting with `@`, or a citation URI with `#page=` / `#line=`) is what the turn
    /// must cite — the first such word; the other words are text the turn must contain.
    pub fn parse(line: &str) -> ThreadQuery {
        let mut cites = None;
        let mut words = Vec::new();
        for w in line.split_whitespace() {
            let place = syntax::strip(w)
                .or_else(|| (w.contains("#page=") || w.contains("#line=")).then_some(w));
            match place {
                Some(p) if cites.is_none() => cites = Some(p.to_string()),
                _ => words.push(w),
            }
        }
        ThreadQuery {
            cites,
            text: (!words.is_empty()).then(|| words.join(" ")),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.cites.as_deref().is_none_or(|c| c.trim().is_empty())
            && self.text.as_deref().is_none_or(|t| t.trim().is_empty())
    }
}

/// A matching turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnHit {
    /// The turn id (`turn` of its transcript lines).
    pub turn: String,
    /// 1-based number of the turn in its thread.
    pub number: usize,
    pub question: String,
    /// The citations of the answer that match `--cites` (all of them without it).
    pub cited: Vec<String>,
    /// Text around the first match of `--search` (or the answer's start).
    pub snippet: String,
}

/// A matching thread, most recently updated first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadHit {
    pub thread_id: String,
    pub title: String,
    pub updated: String,
    /// Turns in the thread.
    pub turn_count: usize,
    pub turns: Vec<TurnHit>,
}

/// Why a `--cites` argument names nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a vault path or citation URI (papers/x/paper.pdf, papers/x/paper.pdf#page=3, notes/a.md#line=1,5)"
)]
pub struct BadCites(pub String);

/// The place a `--cites` argument names.
fn place_of(cites: &str) -> Result<Place, BadCites> {
    // `@papers/x/paper.pdf` as a mention is written names the same place.
    let cites = cites.trim();
    match uri::parse(syntax::clean(cites)) {
        Some(Target::Vault { path, page, lines }) if !path.trim_matches('/').is_empty() => {
            Ok((path.trim_matches('/').to_string(), page, lines))
        }
        _ => Err(BadCites(cites.to_string())),
    }
}

fn overlaps(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

impl IndexedTurn {
    /// The cited URIs that match the place (a folder matches everything under it).
    fn citing(&self, path: &str, page: Option<u32>, lines: Option<(u32, u32)>) -> Vec<String> {
        self.cited
            .iter()
            .zip(&self.cited_uris)
            .filter(|((p, pg, ln), _)| {
                let same = p == path || p.starts_with(&format!("{path}/"));
                same && page.is_none_or(|want| *pg == Some(want))
                    && lines.is_none_or(|want| ln.is_some_and(|l| overlaps(l, want)))
            })
            .map(|(_, u)| u.clone())
            .collect()
    }
}

/// Text around byte `at` of `text` (about `width` characters), on one line.
fn snippet(text: &str, at: usize, width: usize) -> String {
    let flat_start = text[..at].chars().rev().take(width / 3).count();
    let start = at
        - text[..at]
            .chars()
            .rev()
            .take(flat_start)
            .map(char::len_utf8)
            .sum::<usize>();
    let piece: String = text[start..].chars().take(width).collect();
    let mut s = piece.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        s.insert(0, '…');
    }
    if text[start..].chars().count() > width {
        s.push('…');
    }
    s
}

/// One turn's text and what its answer cited, to be indexed (from a transcript, or from the
/// chat pane's items).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnText {
    pub turn: String,
    pub question: String,
    pub answer: String,
    /// The places the answer cited; empty: the URIs the answer itself names.
    pub cited: Vec<String>,
}

fn index_turn(t: TurnText) -> IndexedTurn {
    // Turns from before cited sources were recorded: the URIs the answer names.
    let uris = if t.cited.is_empty() {
        citations::cited_places(&t.answer)
    } else {
        t.cited
    };
    let mut cited = Vec::new();
    let mut cited_uris = Vec::new();
    for u in uris {
        if let Some(Target::Vault { path, page, lines }) = uri::parse(&u) {
            cited.push((path, page, lines));
            cited_uris.push(u);
        }
    }
    let question = t.question.to_lowercase();
    IndexedTurn {
        split: question.len() + 1,
        lower: format!("{question}\n{}", t.answer.to_lowercase()),
        turn: t.turn,
        question: t.question,
        answer: t.answer,
        cited,
        cited_uris,
    }
}

fn load_thread(dir: &Path, id: &str) -> (IndexedThread, Vec<String>) {
    let state: ThreadState = crate::vault::statefs::read(&dir.join(STATE_FILE))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let (lines, warnings) = read_transcript(&dir.join(TRANSCRIPT_FILE));
    let mut turns: Vec<TurnText> = Vec::new();
    for l in &lines {
        let turn = l.turn();
        let i = match turns.iter().rposition(|t| t.turn == turn) {
            Some(i) => i,
            None => {
                turns.push(TurnText {
                    turn: turn.to_string(),
                    ..TurnText::default()
                });
                turns.len() - 1
            }
        };
        let t = &mut turns[i];
        match l {
            Line::User { text, .. } => t.question.push_str(text),
            Line::Agent { text, .. } => t.answer.push_str(text),
            Line::Sources { cited, .. } => {
                for u in cited {
                    if !t.cited.contains(u) {
                        t.cited.push(u.clone());
                    }
                }
            }
            _ => {}
        }
    }
    turns.retain(|t| !t.question.is_empty() || !t.answer.is_empty());
    (
        thread_of(id.to_string(), state.title, state.updated, turns),
        warnings,
    )
}

fn thread_of(id: String, title: String, updated: String, turns: Vec<TurnText>) -> IndexedThread {
    let turns: Vec<IndexedTurn> = turns.into_iter().map(index_turn).collect();
    let title = if title.is_empty() {
        turns
            .first()
            .map(|t| t.question.chars().take(80).collect())
            .unwrap_or_default()
    } else {
        title
    };
    IndexedThread {
        id,
        title,
        updated,
        turns,
    }
}

impl ThreadIndex {
    /// Reads every thread of `vault` (a transcript that cannot be read is skipped with a
    /// warning; a corrupt line only loses itself).
    pub fn load(vault: &Vault) -> ThreadIndex {
        let dir = vault.state_dir().join(CHATS_DIR);
        let mut index = ThreadIndex::default();
        let names = match crate::vault::statefs::check_dir(&dir).and_then(|d| d.list()) {
            Ok(names) => names,
            Err(e) => {
                if !e.is_not_found() {
                    index.warnings.push(e.to_string());
                }
                return index;
            }
        };
        for name in names {
            let id = name.to_string_lossy().into_owned();
            let path = dir.join(&name);
            if !valid_id(&id) || !path.symlink_metadata().is_ok_and(|m| m.is_dir()) {
                continue;
            }
            if let Err(e) = crate::vault::statefs::check_dir(&path) {
                index.warnings.push(e.to_string());
                continue;
            }
            let (t, w) = load_thread(&path, &id);
            index.warnings.extend(w);
            index.threads.push(t);
        }
        index
            .threads
            .sort_by(|a, b| b.updated.cmp(&a.updated).then(a.id.cmp(&b.id)));
        index
    }

    /// Adds a thread after the ones already there (search lists threads in this order; `load`
    /// puts the most recently updated first).
    pub fn add(&mut self, id: String, title: String, updated: String, turns: Vec<TurnText>) {
        self.threads.push(thread_of(id, title, updated, turns));
    }

    pub fn len(&self) -> usize {
        self.threads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }

    /// The full id of thread `id` (the id, or a prefix of only one).
    pub fn resolve(&self, id: &str) -> Result<String, String> {
        self.find(id).map(|t| t.id.clone())
    }

    fn find(&self, id: &str) -> Result<&IndexedThread, String> {
        let id = id.trim();
        let found: Vec<&IndexedThread> = match self.threads.iter().find(|t| t.id == id) {
            Some(t) => vec![t],
            None if id.is_empty() => Vec::new(),
            None => self
                .threads
                .iter()
                .filter(|t| t.id.starts_with(id))
                .collect(),
        };
        let t = match found.as_slice() {
            [t] => *t,
            [] => return Err(format!("no thread {id:?} (agentero threads lists them)")),
            more => {
                return Err(format!(
                    "{id:?} names {} threads; give more of the id",
                    more.len()
                ));
            }
        };
        Ok(t)
    }

    /// The places the answers of thread `id` (the id, or a prefix of only one) cited: each
    /// path once, in the order first cited, with its cited pages in order; the full id first.
    pub fn cited_in(&self, id: &str) -> Result<(String, CitedPlaces), String> {
        let t = self.find(id)?;
        let mut out: Vec<(String, Vec<u32>)> = Vec::new();
        for (path, page, _) in t.turns.iter().flat_map(|turn| &turn.cited) {
            let i = match out.iter().position(|(p, _)| p == path) {
                Some(i) => i,
                None => {
                    out.push((path.clone(), Vec::new()));
                    out.len() - 1
                }
            };
            if let Some(pg) = page
                && !out[i].1.contains(pg)
            {
                out[i].1.push(*pg);
            }
        }
        for (_, pages) in &mut out {
            pages.sort_unstable();
        }
        Ok((t.id.clone(), out))
    }

    /// The threads matching `q` (every thread, without a query), most recent first, each with
    /// its matching turns.
    pub fn search(&self, q: &ThreadQuery) -> Result<Vec<ThreadHit>, BadCites> {
        let place = match q.cites.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(place_of(c)?),
            None => None,
        };
        let words: Vec<String> = q
            .text
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let mut out = Vec::new();
        for t in &self.threads {
            let mut turns = Vec::new();
            for (i, turn) in t.turns.iter().enumerate() {
                let cited = match &place {
                    Some((p, pg, ln)) => {
                        let c = turn.citing(p, *pg, *ln);
                        if c.is_empty() {
                            continue;
                        }
                        c
                    }
                    None => turn.cited_uris.clone(),
                };
                let at = if words.is_empty() {
                    None
                } else {
                    let mut first = None;
                    let mut all = true;
                    for w in &words {
                        match turn.lower.find(w.as_str()) {
                            Some(p) => first = Some(first.map_or(p, |f: usize| f.min(p))),
                            None => {
                                all = false;
                                break;
                            }
                        }
                    }
                    if !all {
                        continue;
                    }
                    first
                };
                // The snippet shows the answer where the words are; the question only when
                // they are in it alone. (Offsets in `lower` hold where lower-casing kept the
                // length.)
                let lower_answer = &turn.lower[turn.split.min(turn.lower.len())..];
                let in_answer = words
                    .iter()
                    .filter_map(|w| lower_answer.find(w.as_str()))
                    .min();
                let both = format!("{}\n{}", turn.question, turn.answer);
                let snip = match (in_answer, at) {
                    (Some(p), _)
                        if turn.answer.len() == lower_answer.len()
                            && turn.answer.is_char_boundary(p) =>
                    {
                        snippet(&turn.answer, p, 120)
                    }
                    (None, Some(p))
                        if both.len() == turn.lower.len() && both.is_char_boundary(p) =>
                    {
                        snippet(&both, p, 120)
                    }
                    _ => snippet(&turn.answer, 0, 120),
                };
                turns.push(TurnHit {
                    turn: turn.turn.clone(),
                    number: i + 1,
                    question: turn.question.clone(),
                    cited,
                    snippet: snip,
                });
            }
            if !turns.is_empty() || (q.is_empty() && t.turns.is_empty()) {
                out.push(ThreadHit {
                    thread_id: t.id.clone(),
                    title: t.title.clone(),
                    updated: t.updated.clone(),
                    turn_count: t.turns.len(),
                    turns,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::transcript::Thread;
    use crate::context::grant::now_rfc3339;

    fn turn(t: &mut Thread, id: &str, q: &str, a: &str, cited: &[&str]) {
        let ts = now_rfc3339();
        t.append(Line::User {
            ts: ts.clone(),
            turn: id.into(),
            text: q.into(),
            mentions: vec![],
        })
        .unwrap();
        t.append(Line::Agent {
            ts: ts.clone(),
            turn: id.into(),
            text: a.into(),
        })
        .unwrap();
        if !cited.is_empty() {
            t.append(Line::Sources {
                ts,
                turn: id.into(),
                uris: cited.iter().map(|s| s.to_string()).collect(),
                cited: cited.iter().map(|s| s.to_string()).collect(),
                consulted: vec![],
            })
            .unwrap();
        }
    }

    #[test]
    fn threads_are_found_by_what_they_cite_and_say() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let mut a = Thread::create(&vault);
        turn(
            &mut a,
            "t1",
            "How are columns found?",
            "> \"Gutters split columns.\" — papers/x/paper.pdf#page=2",
            &["papers/x/paper.pdf#page=2"],
        );
        turn(
            &mut a,
            "t2",
            "And the reading order?",
            "It follows the columns.",
            &[],
        );
        a.save_state().unwrap();
        let mut b = Thread::create(&vault);
        // An older transcript: no cited list, only the answer's URIs.
        b.append(Line::User {
            ts: now_rfc3339(),
            turn: "u1".into(),
            text: "Footnote size?".into(),
            mentions: vec![],
        })
        .unwrap();
        b.append(Line::Agent {
            ts: now_rfc3339(),
            turn: "u1".into(),
            text: "\"All footnotes are of 8pt font size.\" papers/x/paper.pdf#page=3 and notes/n.md#line=4,6".into(),
        })
        .unwrap();
        b.save_state().unwrap();
        let index = ThreadIndex::load(&vault);
        assert_eq!(index.len(), 2);
        let ids = |hits: &[ThreadHit]| hits.iter().map(|h| h.thread_id.clone()).collect::<Vec<_>>();
        let q = |cites: Option<&str>, text: Option<&str>| ThreadQuery {
            cites: cites.map(String::from),
            text: text.map(String::from),
        };
        let paper = index.search(&q(Some("papers/x/paper.pdf"), None)).unwrap();
        assert_eq!(paper.len(), 2);
        let page2 = index
            .search(&q(Some("papers/x/paper.pdf#page=2"), None))
            .unwrap();
        assert_eq!(ids(&page2), vec![a.id.clone()]);
        assert_eq!(page2[0].turns.len(), 1);
        assert_eq!(
            (page2[0].turns[0].number, page2[0].turns[0].turn.as_str()),
            (1, "t1")
        );
        // As a mention is written, too.
        let mention = index.search(&q(Some("@papers/x/paper.pdf#page=2"), None));
        assert_eq!(mention.unwrap(), page2);
        let lines = index.search(&q(Some("notes/n.md#line=5,5"), None)).unwrap();
        assert_eq!(ids(&lines), vec![b.id.clone()]);
        assert!(
            index
                .search(&q(Some("papers/x/paper.pdf#page=9"), None))
                .unwrap()
                .is_empty()
        );
        // Words: all of them, in one turn, any case.
        let text = index.search(&q(None, Some("READING order"))).unwrap();
        assert_eq!(ids(&text), vec![a.id.clone()]);
        assert_eq!(text[0].turns[0].number, 2);
        assert!(text[0].turns[0].snippet.contains("reading order"));
        assert!(
            index
                .search(&q(None, Some("reading footnotes")))
                .unwrap()
                .is_empty()
        );
        // Both: the same turn must match both.
        assert!(
            index
                .search(&q(Some("papers/x/paper.pdf#page=2"), Some("reading")))
                .unwrap()
                .is_empty()
        );
        // No query: every thread.
        assert_eq!(index.search(&ThreadQuery::default()).unwrap().len(), 2);
        assert!(
            index
                .search(&q(Some("https://doi.org/10.1/x"), None))
                .is_err()
        );
    }

    #[test]
    fn a_typed_query_names_the_cited_place_and_the_words() {
        let p = ThreadQuery::parse;
        assert_eq!(
            p("  window @papers/x/paper.pdf#page=3  size "),
            ThreadQuery {
                cites: Some("papers/x/paper.pdf#page=3".into()),
                text: Some("window size".into()),
            }
        );
        assert_eq!(
            p("notes/a.md#line=2,4"),
            ThreadQuery {
                cites: Some("notes/a.md#line=2,4".into()),
                text: None,
            }
        );
        assert_eq!(p("reading order").cites, None);
        assert_eq!(p("@").text.as_deref(), Some("@"));
        assert!(p("   ").is_empty());
        // In-memory threads (the terminal app's): found in the order they were added.
        let mut index = ThreadIndex::default();
        for (id, cited) in [
            ("old", "papers/x/paper.pdf#page=3"),
            ("new", "papers/y/paper.pdf#page=1"),
        ] {
            index.add(
                id.into(),
                String::new(),
                String::new(),
                vec![TurnText {
                    turn: "1".into(),
                    question: format!("question of {id}"),
                    answer: "an answer".into(),
                    cited: vec![cited.into()],
                }],
            );
        }
        let hits = index.search(&p("@papers/x question")).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].thread_id.as_str(), hits[0].title.as_str()),
            ("old", "question of old")
        );
        assert_eq!(index.search(&p("answer")).unwrap().len(), 2);
    }
}
