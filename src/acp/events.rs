//! What a turn reports as it runs, in the `acp` layer's own types: the UI and the CLI consume
//! these, never the protocol's structs.

use agent_client_protocol::v1::schema::ToolCallStatus;
use serde_json::Value;

/// A tool call's state (ACP's four statuses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolStatus {
    Pending,
    InProgress,
    Completed,
    Failed,
}

impl ToolStatus {
    /// From ACP's wire name (`pending`, `in_progress`, `completed`, `failed`).
    pub fn from_key(key: &str) -> Option<ToolStatus> {
        Some(match key {
            "pending" => ToolStatus::Pending,
            "in_progress" => ToolStatus::InProgress,
            "completed" => ToolStatus::Completed,
            "failed" => ToolStatus::Failed,
            _ => return None,
        })
    }

    /// The wire name (also what transcripts store).
    pub fn key(self) -> &'static str {
        match self {
            ToolStatus::Pending => "pending",
            ToolStatus::InProgress => "in_progress",
            ToolStatus::Completed => "completed",
            ToolStatus::Failed => "failed",
        }
    }
}

impl From<ToolCallStatus> for ToolStatus {
    fn from(s: ToolCallStatus) -> ToolStatus {
        match s {
            ToolCallStatus::InProgress => ToolStatus::InProgress,
            ToolCallStatus::Completed => ToolStatus::Completed,
            ToolCallStatus::Failed => ToolStatus::Failed,
            _ => ToolStatus::Pending,
        }
    }
}

/// A tool call as first announced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallInfo {
    pub id: String,
    pub title: String,
    pub status: ToolStatus,
    /// The ACP kind (`read`, `execute`, `other`, …) when the agent sent one.
    pub kind: Option<String>,
    /// The call's arguments (`rawInput`), when known.
    pub input: Option<Value>,
}

/// A later change to a tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolUpdateInfo {
    pub id: String,
    pub title: Option<String>,
    pub status: Option<ToolStatus>,
    pub input: Option<Value>,
}

/// Something that happened in a turn, as it happens (for streaming to a terminal or the UI).
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEvent {
    MessageChunk(String),
    ThoughtChunk(String),
    ToolCall(ToolCallInfo),
    ToolUpdate(ToolUpdateInfo),
    Plan(Vec<String>),
    Commands(Vec<String>),
    SessionTitle(String),
    /// Something about the session the user should know (fallbacks, refusals, attach problems).
    Notice(String),
}
