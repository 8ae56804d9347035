//! The chat pane's state: threads of items (user turns, streamed agent text, folded thoughts,
//! tool-call cards, sources, errors) fed by [`ChatEvent`]s from the turn driver.

use std::cell::RefCell;

use ratatui::text::Line;

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
    /// The turn's sources (citation URIs, with the quote each points at when known).
    Sources(Vec<SourceRef>),
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
    Error(String),
    Notice(String),
}

#[derive(Debug)]
pub struct Item {
    pub kind: ItemKind,
    pub expanded: bool,
    /// Rendered lines for a width; cleared whenever the item changes, so a frame only
    /// re-renders the message that is streaming.
    pub cache: RefCell<Option<(usize, bool, Vec<Line<'static>>)>>,
}

impl Item {
    pub fn new(kind: ItemKind) -> Item {
        Item {
            kind,
            expanded: false,
            cache: RefCell::new(None),
        }
    }

    pub fn touch(&mut self) {
        *self.cache.get_mut() = None;
    }

    /// Items the chat cursor stops on: sources, tool cards, thoughts.
    pub fn selectable(&self) -> bool {
        matches!(
            self.kind,
            ItemKind::Source(_) | ItemKind::Tool { .. } | ItemKind::Thought { .. }
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

/// The quote an answer gives for `uri`: the text before it on a line like
/// `> "quoted text" — uri` (how agents are asked to cite), without the quote marks.
pub fn quote_for(answer: &str, uri: &str) -> Option<String> {
    answer.lines().find_map(|line| {
        let at = line.find(uri)?;
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

/// A thread as it is on disk (`.agentero/chats/<id>/`), replayed into chat items.
pub fn from_transcript(t: &crate::acp::transcript::Thread) -> Thread {
    use crate::acp::transcript::Line;
    let mut out = Thread::new(t.id.clone());
    if !t.state.title.is_empty() {
        out.title = t.state.title.chars().take(40).collect();
    }
    let mut answer = String::new();
    for line in &t.lines {
        let ev = match line {
            Line::User { text, mentions, .. } => {
                answer.clear();
                out.items.push(Item::new(ItemKind::User {
                    text: text.clone(),
                    chips: mentions.iter().map(|m| format!("@{m}")).collect(),
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
            Line::Sources { uris, .. } => ChatEvent::Sources(
                uris.iter()
                    .map(|u| SourceRef {
                        uri: u.clone(),
                        quote: quote_for(&answer, u),
                    })
                    .collect(),
            ),
            Line::Notice { text, .. } => ChatEvent::Notice(text.clone()),
            Line::Error { message, .. } => ChatEvent::TurnFailed(message.clone()),
            Line::End { stop_reason, .. } => ChatEvent::TurnEnded {
                stop_reason: stop_reason.clone(),
            },
        };
        out.apply(ev);
    }
    out
}
