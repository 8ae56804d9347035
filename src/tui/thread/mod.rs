//! The chat pane's state: threads of items (user turns, streamed agent text, folded thoughts,
//! tool-call cards, sources, errors) fed by [`ChatEvent`]s from the turn driver.

use std::cell::RefCell;

use ratatui::text::Line;

use crate::context::mention::syntax;

/// What a turn driver reports while a turn runs (mirrors ACP `session/update` plus the turn's
/// end and its sources).
#[derive(Debug, Clone, PartialEq)]
pub enum ChatEvent {
    /// Which agent/session the turn runs in and with what grant (the status line).
    Session(SessionInfo),
    MessageChunk(String),
    ThoughtChunk(String),
    ToolCall {
        id: String,
        title: String,
        status: ToolStatus,
    },
    ToolCallUpdate {
        id: String,
        status: Option<ToolStatus>,
        title: Option<String>,
        detail: Option<String>,
    },
    Permission(PermissionRequest),
    /// The turn's sources (citation URIs, with the quote each points at when known): those
    /// its answer cites (all of them when the turn did not tell cited from consulted).
    Sources(Vec<SourceRef>),
    /// The sources the agent's tools read that its answer does not cite: folded.
    Consulted(Vec<SourceRef>),
    /// The verdict on each citation of the turn's answer ([`verdicts`]).
    Citations(Vec<crate::context::citations::CitationCheck>),
    TurnEnded {
        stop_reason: String,
    },
    TurnFailed(String),
    /// Something about the session the user should know (fallbacks, handoff written).
    Notice(String),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionInfo {
    pub agent: String,
    pub mode: String,
    pub grant_sources: usize,
    pub fingerprint: String,
    pub tools_attached: bool,
    /// `new`, `resumed` or `loaded`.
    pub session: String,
}

pub mod cells;
pub mod find;
pub mod mentions;
pub mod open;
pub mod scroll;
pub mod verdicts;

pub use crate::acp::events::ToolStatus;
pub use crate::acp::permission::PermissionKind;

/// The glyph a tool card shows for its status.
pub fn status_glyph(s: ToolStatus) -> &'static str {
    match s {
        ToolStatus::Pending => "○",
        ToolStatus::InProgress => "◐",
        ToolStatus::Completed => "●",
        ToolStatus::Failed => "✗",
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PermissionOption {
    pub id: String,
    pub name: String,
    pub kind: PermissionKind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    pub id: String,
    pub title: String,
    /// What the call would do: its arguments, the files it touches, the agent's description.
    pub details: Vec<String>,
    pub options: Vec<PermissionOption>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceRef {
    pub uri: String,
    /// Text the citation points at (highlighted when the page opens).
    pub quote: Option<String>,
}

#[derive(Debug)]
pub enum ItemKind {
    User {
        text: String,
        chips: Vec<String>,
    },
    Agent {
        text: String,
    },
    Thought {
        text: String,
    },
    Tool {
        id: String,
        title: String,
        status: ToolStatus,
        detail: String,
    },
    Source(SourceRef),
    /// Sources read by tools but not cited, folded into one line (`z` lists them): the
    /// number of them; each is the [`ItemKind::Source`] item that follows, listed under it
    /// ([`Item::listed`]).
    Consulted(usize),
    /// One citation of an answer and its verdict ([`verdicts`]); `named`: the turn cites
    /// more than one source, so the line names it.
    Citation {
        check: crate::context::citations::CitationCheck,
        named: bool,
    },
    Error(String),
    Notice(String),
}

#[derive(Debug)]
pub struct Item {
    pub kind: ItemKind,
    pub expanded: bool,
    /// A consulted source under its `consulted: N` line: `Some(shown)`, shown while that line
    /// is unfolded (folded, it takes no row and the cursor skips it).
    pub listed: Option<bool>,
    /// Rendered lines for a width; cleared whenever the item changes, so a frame only
    /// re-renders the message that is streaming.
    pub cache: RefCell<Option<(usize, bool, Vec<Line<'static>>)>>,
}

impl Item {
    pub fn new(kind: ItemKind) -> Item {
        Item {
            kind,
            expanded: false,
            listed: None,
            cache: RefCell::new(None),
        }
    }

    /// A consulted source of a folded `consulted: N` line: not drawn.
    pub fn hidden(&self) -> bool {
        self.listed == Some(false)
    }

    pub fn touch(&mut self) {
        *self.cache.get_mut() = None;
    }

    /// Items the chat cursor stops on: sources, citation verdicts, tool cards, thoughts.
    pub fn selectable(&self) -> bool {
        !self.hidden()
            && matches!(
                self.kind,
                ItemKind::Source(_)
                    | ItemKind::Consulted(_)
                    | ItemKind::Citation { .. }
                    | ItemKind::Tool { .. }
                    | ItemKind::Thought { .. }
            )
    }
}

#[derive(Debug, Default)]
pub struct Thread {
    pub id: String,
    pub title: String,
    pub items: Vec<Item>,
    pub session: Option<SessionInfo>,
}

impl Thread {
    pub fn new(id: String) -> Thread {
        Thread {
            title: "new thread".into(),
            id,
            ..Thread::default()
        }
    }

    /// Applies one streamed event; consecutive chunks extend the last message.
    pub fn apply(&mut self, ev: ChatEvent) {
        match ev {
            ChatEvent::Session(info) => self.session = Some(info),
            ChatEvent::MessageChunk(t) => match self.items.last_mut() {
                Some(Item {
                    kind: ItemKind::Agent { text },
                    cache,
                    ..
                }) => {
                    text.push_str(&t);
                    *cache.get_mut() = None;
                }
                _ => self.items.push(Item::new(ItemKind::Agent { text: t })),
            },
            ChatEvent::ThoughtChunk(t) => match self.items.last_mut() {
                Some(Item {
                    kind: ItemKind::Thought { text },
                    cache,
                    ..
                }) => {
                    text.push_str(&t);
                    *cache.get_mut() = None;
                }
                _ => self.items.push(Item::new(ItemKind::Thought { text: t })),
            },
            ChatEvent::ToolCall { id, title, status } => {
                self.items.push(Item::new(ItemKind::Tool {
                    id,
                    title,
                    status,
                    detail: String::new(),
                }))
            }
            ChatEvent::ToolCallUpdate {
                id: uid,
                status: s,
                title: t,
                detail: d,
            } => {
                for item in self.items.iter_mut().rev() {
                    if let ItemKind::Tool {
                        id,
                        title,
                        status,
                        detail,
                    } = &mut item.kind
                        && *id == uid
                    {
                        if let Some(s) = s {
                            *status = s;
                        }
                        if let Some(t) = t {
                            *title = t;
                        }
                        if let Some(d) = d {
                            *detail = d;
                        }
                        item.touch();
                        break;
                    }
                }
            }
            ChatEvent::Sources(list) => {
                if list.is_empty() {
                    return;
                }
                self.items.push(Item::new(ItemKind::Notice(format!(
                    "sources ({})",
                    list.len()
                ))));
                for s in list {
                    self.items.push(Item::new(ItemKind::Source(s)));
                }
            }
            ChatEvent::Consulted(list) => {
                if !list.is_empty() {
                    self.items.push(Item::new(ItemKind::Consulted(list.len())));
                    for s in list {
                        let mut item = Item::new(ItemKind::Source(s));
                        item.listed = Some(false);
                        self.items.push(item);
                    }
                }
            }
            ChatEvent::Citations(checks) => self.add_verdicts(checks),
            ChatEvent::TurnEnded { stop_reason } => {
                if stop_reason != "end_turn" {
                    self.items.push(Item::new(ItemKind::Notice(format!(
                        "turn ended: {stop_reason}"
                    ))));
                }
            }
            ChatEvent::TurnFailed(e) => self.items.push(Item::new(ItemKind::Error(e))),
            ChatEvent::Notice(n) => self.items.push(Item::new(ItemKind::Notice(n))),
            ChatEvent::Permission(_) => {}
        }
    }
}

impl Thread {
    /// `z` on item `i`: folds or unfolds it (a thought, a tool card's details, the list of a
    /// `consulted: N` line; on one of that list's sources, the list). Returns the item to
    /// select: the `consulted` line when its list folds under the cursor.
    pub fn toggle(&mut self, i: usize) -> Option<usize> {
        let head = match self.items.get(i)?.listed {
            Some(_) => (0..i)
                .rev()
                .find(|&h| matches!(self.items[h].kind, ItemKind::Consulted(_)))?,
            None => i,
        };
        let item = &mut self.items[head];
        item.expanded = !item.expanded;
        item.touch();
        let shown = item.expanded;
        if let ItemKind::Consulted(n) = item.kind {
            for entry in self.items.iter_mut().skip(head + 1).take(n) {
                if entry.listed.is_some() {
                    entry.listed = Some(shown);
                }
            }
        }
        Some(head)
    }

    /// Puts a turn's citation verdicts right under its answer (before its source cards,
    /// whichever arrived first): after the turn's last message, else at the end; a header
    /// counts them ([`verdicts::summary`]).
    fn add_verdicts(&mut self, checks: Vec<crate::context::citations::CitationCheck>) {
        if checks.is_empty() {
            return;
        }
        let items = &mut self.items;
        let last_user = items
            .iter()
            .rposition(|i| matches!(i.kind, ItemKind::User { .. }));
        let last_agent = items
            .iter()
            .rposition(|i| matches!(i.kind, ItemKind::Agent { .. }));
        let at = match (last_user, last_agent) {
            (u, Some(a)) if u.is_none_or(|u| u < a) => a + 1,
            _ => items.len(),
        };
        let named = verdicts::several_sources(&checks);
        let block = std::iter::once(Item::new(ItemKind::Notice(verdicts::summary(&checks)))).chain(
            checks
                .into_iter()
                .map(|check| Item::new(ItemKind::Citation { check, named })),
        );
        items.splice(at..at, block);
    }
}

/// The quote an answer gives for `uri`: the text before it on a line like
/// `> "quoted text" — uri` (how agents are asked to cite), without the quote marks. Only the
/// URI itself counts: `…#page=1` is not the start of `…#page=11` (nor `#line=3` of
/// `#line=3,9`).
pub fn quote_for(answer: &str, uri: &str) -> Option<String> {
    answer.lines().find_map(|line| {
        let at = line
            .match_indices(uri)
            .map(|(at, _)| at)
            .find(|&at| !continues_uri(&line[at + uri.len()..]))?;
        let q = line[..at]
            .trim()
            .trim_start_matches('>')
            .trim()
            .trim_end_matches(['—', '-', '(', ':'])
            .trim()
            .trim_matches(['"', '“', '”'])
            .trim();
        (!q.is_empty()).then(|| q.to_string())
    })
}

/// Whether the text after a URI goes on with it (another digit of the page, more of the
/// path, a line range), rather than ending it (a space, a bracket, a sentence's full stop).
fn continues_uri(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        None => false,
        Some(c) if c.is_alphanumeric() || "-_=/#&%?~+".contains(c) => true,
        Some('.' | ',' | ':') => chars.next().is_some_and(|c| c.is_alphanumeric()),
        Some(_) => false,
    }
}

/// A thread as it is on disk (`.agentero/chats/<id>/`), replayed into chat items.
pub fn from_transcript(t: &crate::acp::transcript::Thread) -> Thread {
    use crate::acp::transcript::Line;
    let mut out = Thread::new(t.id.clone());
    if !t.state.title.is_empty() {
        out.title = mentions::title(&t.state.title);
    }
    let mut answer = String::new();
    let cut = t.interrupted_turns(None);
    let mut open_turn: Option<&str> = None;
    let interrupted = |out: &mut Thread, turn: Option<&str>| {
        if turn.is_some_and(|t| cut.iter().any(|c| c == t)) {
            out.items
                .push(Item::new(ItemKind::Notice(INTERRUPTED.into())));
        }
    };
    for line in &t.lines {
        if open_turn.is_some_and(|o| o != line.turn()) {
            interrupted(&mut out, open_turn.take());
        }
        open_turn = Some(line.turn());
        let ev = match line {
            Line::User { text, mentions, .. } => {
                answer.clear();
                out.items.push(Item::new(ItemKind::User {
                    text: text.clone(),
                    chips: mentions.iter().map(|m| syntax::format(m)).collect(),
                }));
                continue;
            }
            Line::Agent { text, .. } => {
                answer.push_str(text);
                ChatEvent::MessageChunk(text.clone())
            }
            Line::Thought { text, .. } => ChatEvent::ThoughtChunk(text.clone()),
            Line::Tool {
                id, title, status, ..
            } => {
                let status = ToolStatus::from_key(status).unwrap_or(ToolStatus::Pending);
                let known = out
                    .items
                    .iter()
                    .any(|i| matches!(&i.kind, ItemKind::Tool { id: k, .. } if k == id));
                if known {
                    ChatEvent::ToolCallUpdate {
                        id: id.clone(),
                        status: Some(status),
                        title: (!title.is_empty()).then(|| title.clone()),
                        detail: None,
                    }
                } else {
                    ChatEvent::ToolCall {
                        id: id.clone(),
                        title: title.clone(),
                        status,
                    }
                }
            }
            Line::Plan { entries, .. } => {
                ChatEvent::Notice(format!("plan: {}", entries.join("; ")))
            }
            Line::Sources {
                uris, consulted, ..
            } => {
                let (cited, read): (Vec<SourceRef>, Vec<SourceRef>) = uris
                    .iter()
                    .map(|u| SourceRef {
                        uri: u.clone(),
                        quote: quote_for(&answer, u),
                    })
                    .partition(|s| !consulted.contains(&s.uri));
                out.apply(ChatEvent::Sources(cited));
                ChatEvent::Consulted(read)
            }
            Line::Citations { checks, .. } => ChatEvent::Citations(checks.clone()),
            Line::Notice { text, .. } => ChatEvent::Notice(text.clone()),
            Line::Error { message, .. } => ChatEvent::TurnFailed(message.clone()),
            Line::End { stop_reason, .. } => ChatEvent::TurnEnded {
                stop_reason: stop_reason.clone(),
            },
        };
        out.apply(ev);
    }
    interrupted(&mut out, open_turn);
    out
}

/// What a restored thread shows after a turn that was cut short.
pub const INTERRUPTED: &str =
    "interrupted: agentero stopped before this answer finished; what had arrived is kept";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acp::transcript::{Line, Thread as Transcript};

    /// The verdicts go under the turn's answer, before sources that came first, with a header;
    /// a turn citing two sources names them on each line; a turn without an answer yet gets
    /// them at the end.
    #[test]
    fn verdicts_go_under_the_answer() {
        use crate::context::citations::{CitationCheck, Verdict};
        let check = |uri: &str, verdict| CitationCheck {
            uri: uri.into(),
            quote: None,
            verdict,
            found_at: None,
            detail: None,
        };
        let mut t = Thread::new("t".into());
        t.items.push(Item::new(ItemKind::User {
            text: "q".into(),
            chips: vec![],
        }));
        t.apply(ChatEvent::MessageChunk("a".into()));
        t.apply(ChatEvent::Sources(vec![SourceRef {
            uri: "papers/x/paper.pdf#page=1".into(),
            quote: None,
        }]));
        t.apply(ChatEvent::Citations(vec![
            check("papers/x/paper.pdf#page=1", Verdict::Verified),
            check("papers/x/paper.pdf#page=3", Verdict::NoQuote),
        ]));
        let kinds: Vec<String> = t
            .items
            .iter()
            .map(|i| match &i.kind {
                ItemKind::Notice(n) => n.clone(),
                ItemKind::Citation { check, named } => {
                    format!("{} {named}", check.verdict.glyph())
                }
                other => format!("{other:?}").chars().take(5).collect(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "User ",
                "Agent",
                "citations of x: ✓ 1 verified, · 1 no quote",
                "✓ false",
                "· false",
                "sources (1)",
                "Sourc"
            ]
        );
        t.items.push(Item::new(ItemKind::User {
            text: "q2".into(),
            chips: vec![],
        }));
        t.apply(ChatEvent::Citations(vec![
            check("papers/x/paper.pdf#page=1", Verdict::Verified),
            check("notes/n.md#line=2,2", Verdict::NoQuote),
        ]));
        assert!(matches!(
            &t.items[t.items.len() - 3].kind,
            ItemKind::Notice(n) if n == "citations: ✓ 1 verified, · 1 no quote"
        ));
        assert!(matches!(
            t.items.last().unwrap().kind,
            ItemKind::Citation { named: true, .. }
        ));
    }

    /// A turn cut short (no end, no error) is restored with what had arrived and a notice;
    /// finished turns get none.
    #[test]
    fn an_interrupted_turn_is_restored_with_its_text_and_a_notice() {
        let dir = tempfile::tempdir().unwrap();
        let vault = crate::vault::Vault::open(dir.path()).unwrap();
        let mut t = Transcript::create(&vault);
        let line = |turn: &str, kind: &str, text: &str| match kind {
            "user" => Line::User {
                ts: "t".into(),
                turn: turn.into(),
                text: text.into(),
                mentions: Vec::new(),
            },
            "agent" => Line::Agent {
                ts: "t".into(),
                turn: turn.into(),
                text: text.into(),
            },
            _ => Line::End {
                ts: "t".into(),
                turn: turn.into(),
                stop_reason: "end_turn".into(),
                mode: "mcp".into(),
                session_id: "s".into(),
            },
        };
        for l in [
            line("t1", "user", "first?"),
            line("t1", "agent", "a whole answer"),
            line("t1", "end", ""),
            line("t2", "user", "second?"),
            line("t2", "agent", "half an ans"),
            line("t3", "user", "third?"),
            line("t3", "agent", "cut too"),
        ] {
            t.append(l).unwrap();
        }
        let th = from_transcript(&Transcript::open(&vault, &t.id).unwrap());
        let kinds: Vec<String> = th
            .items
            .iter()
            .map(|i| match &i.kind {
                ItemKind::User { text, .. } => format!("user {text}"),
                ItemKind::Agent { text } => format!("agent {text}"),
                ItemKind::Notice(n) if n == INTERRUPTED => "interrupted".into(),
                other => format!("{other:?}").chars().take(12).collect(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "user first?",
                "agent a whole answer",
                "user second?",
                "agent half an ans",
                "interrupted",
                "user third?",
                "agent cut too",
                "interrupted"
            ],
            "{:?}",
            th.items
                .iter()
                .map(|i| format!("{:?}", i.kind))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn consulted_sources_fold_under_the_cited_ones_and_restore_so() {
        let src = |u: &str| SourceRef {
            uri: u.into(),
            quote: None,
        };
        let mut t = Thread::new("t".into());
        t.apply(ChatEvent::Sources(vec![src("papers/a/paper.pdf#page=3")]));
        t.apply(ChatEvent::Consulted(vec![
            src("papers/b/paper.pdf#page=1"),
            src("notes/x.md#line=1,4"),
        ]));
        let kinds = |t: &Thread| -> Vec<String> {
            t.items
                .iter()
                .map(|i| match &i.kind {
                    ItemKind::Notice(n) => n.clone(),
                    ItemKind::Source(s) if i.hidden() => format!("(folded) {}", s.uri),
                    ItemKind::Source(s) => s.uri.clone(),
                    ItemKind::Consulted(n) => format!("consulted {n}"),
                    _ => "?".into(),
                })
                .collect()
        };
        assert_eq!(
            kinds(&t),
            [
                "sources (1)",
                "papers/a/paper.pdf#page=3",
                "consulted 2",
                "(folded) papers/b/paper.pdf#page=1",
                "(folded) notes/x.md#line=1,4"
            ]
        );
        assert!(t.items[2].selectable());
        assert!(!t.items[3].selectable() && !t.items[4].selectable());
        // z lists them (each selectable), z on one of them folds them under the line again.
        assert_eq!(t.toggle(2), Some(2));
        assert!(t.items[3].selectable() && t.items[4].selectable());
        assert_eq!(t.toggle(4), Some(2));
        assert!(t.items[3].hidden() && t.items[4].hidden() && !t.items[2].expanded);
        // From the transcript: the line's consulted list is folded the same way.
        let dir = tempfile::tempdir().unwrap();
        let vault = crate::vault::Vault::open(dir.path()).unwrap();
        let mut tr = Transcript::create(&vault);
        tr.append(Line::Sources {
            ts: String::new(),
            turn: "1".into(),
            uris: vec![
                "papers/a/paper.pdf#page=3".into(),
                "notes/x.md#line=1,4".into(),
            ],
            cited: vec!["papers/a/paper.pdf#page=3".into()],
            consulted: vec!["notes/x.md#line=1,4".into()],
        })
        .unwrap();
        let back = from_transcript(&tr);
        let n = back.items.len();
        assert!(matches!(back.items[n - 2].kind, ItemKind::Consulted(1)));
        assert!(
            matches!(&back.items[n - 1].kind, ItemKind::Source(s) if s.uri == "notes/x.md#line=1,4")
        );
    }

    /// A page's URI is not found inside another page's: the quote of p.1 is not the one of
    /// p.11 (nor lines 3 the one of lines 3–9), whichever comes first in the answer.
    #[test]
    fn quotes_belong_to_their_own_page() {
        let answer = "> \"eleven\" — papers/a/paper.pdf#page=11\n\
                      > \"lines\" — notes/n.md#line=3,9\n\
                      > \"one\" — papers/a/paper.pdf#page=1.\n\
                      > \"three\" (notes/n.md#line=3)";
        let q = |u: &str| quote_for(answer, u);
        assert_eq!(q("papers/a/paper.pdf#page=1").as_deref(), Some("one"));
        assert_eq!(q("papers/a/paper.pdf#page=11").as_deref(), Some("eleven"));
        assert_eq!(q("notes/n.md#line=3").as_deref(), Some("three"));
        assert_eq!(q("notes/n.md#line=3,9").as_deref(), Some("lines"));
        assert_eq!(q("papers/a/paper.pdf#page=2"), None);
    }
}
