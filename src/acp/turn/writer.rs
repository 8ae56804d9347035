//! The turn's transcript as it streams: each `session/update` written as its line (before it
//! is shown) and reported as a [`TurnEvent`].

use agent_client_protocol::v1::schema::{ContentBlock, SessionUpdate};

use super::super::events::{ToolCallInfo, ToolStatus, ToolUpdateInfo, TurnEvent};
use super::super::transcript::{Line, Thread};
use crate::context::grant::now_rfc3339;

fn kind_name(k: agent_client_protocol::v1::schema::ToolKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "other".into())
}

fn text_of(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(t) => Some(&t.text),
        _ => None,
    }
}

/// Collects a turn's agent text and writes it to the transcript as it streams: each chunk is
/// one whole line, written before the chunk is shown, so whatever was on screen when the app
/// was killed is on disk.
pub(super) struct Writer<'a> {
    pub thread: &'a mut Thread,
    pub turn: String,
    pub answer: String,
}

impl Writer<'_> {
    pub fn line(&mut self, line: Line) {
        if let Err(e) = self.thread.append(line) {
            tracing::warn!(error = %e, "cannot append to the transcript");
        }
    }

    pub fn chunk(&mut self, text: &str) {
        self.answer.push_str(text);
        self.line(Line::Agent {
            ts: now_rfc3339(),
            turn: self.turn.clone(),
            text: text.to_string(),
        });
    }

    pub fn notice(&mut self, text: String) {
        self.line(Line::Notice {
            ts: now_rfc3339(),
            turn: self.turn.clone(),
            text,
        });
    }
}

pub(super) fn handle_update(
    w: &mut Writer<'_>,
    update: SessionUpdate,
    on_event: &mut (dyn FnMut(&TurnEvent) + Send),
) {
    let ts = now_rfc3339;
    match update {
        SessionUpdate::AgentMessageChunk(c) => {
            if let Some(n) = text_of(&c.content).and_then(super::super::ollama::runtime_notice) {
                w.notice(n.clone());
                on_event(&TurnEvent::Notice(n));
            } else if let Some(t) = text_of(&c.content) {
                w.chunk(t);
                on_event(&TurnEvent::MessageChunk(t.to_string()));
            }
        }
        SessionUpdate::AgentThoughtChunk(c) => {
            if let Some(t) = text_of(&c.content) {
                w.line(Line::Thought {
                    ts: ts(),
                    turn: w.turn.clone(),
                    text: t.to_string(),
                });
                on_event(&TurnEvent::ThoughtChunk(t.to_string()));
            }
        }
        SessionUpdate::ToolCall(tc) => {
            let info = ToolCallInfo {
                id: tc.tool_call_id.0.to_string(),
                title: tc.title.clone(),
                status: tc.status.into(),
                kind: Some(kind_name(tc.kind)),
                input: tc.raw_input.clone(),
            };
            w.line(Line::Tool {
                ts: ts(),
                turn: w.turn.clone(),
                id: info.id.clone(),
                title: info.title.clone(),
                status: info.status.key().into(),
            });
            on_event(&TurnEvent::ToolCall(info));
        }
        SessionUpdate::ToolCallUpdate(u) => {
            let info = ToolUpdateInfo {
                id: u.tool_call_id.0.to_string(),
                title: u.fields.title.clone(),
                status: u.fields.status.map(ToolStatus::from),
                input: u.fields.raw_input.clone(),
            };
            // Only status changes make a transcript line: content is fetched on demand.
            if let Some(s) = info.status {
                let known = w
                    .thread
                    .lines
                    .iter()
                    .rev()
                    .find_map(|l| match l {
                        Line::Tool { id: i, title, .. } if *i == info.id => Some(title.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                w.line(Line::Tool {
                    ts: ts(),
                    turn: w.turn.clone(),
                    id: info.id.clone(),
                    title: info.title.clone().unwrap_or(known),
                    status: s.key().into(),
                });
            }
            on_event(&TurnEvent::ToolUpdate(info));
        }
        SessionUpdate::Plan(p) => {
            let entries: Vec<String> = p.entries.iter().map(|e| e.content.clone()).collect();
            w.line(Line::Plan {
                ts: ts(),
                turn: w.turn.clone(),
                entries: entries.clone(),
            });
            on_event(&TurnEvent::Plan(entries));
        }
        SessionUpdate::AvailableCommandsUpdate(c) => {
            on_event(&TurnEvent::Commands(
                c.available_commands
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
            ));
        }
        SessionUpdate::SessionInfoUpdate(i) => {
            if let agent_client_protocol::schema::MaybeUndefined::Value(t) = i.title.clone() {
                on_event(&TurnEvent::SessionTitle(t));
            }
        }
        other => tracing::debug!(update = ?other, "session update not shown"),
    }
}
