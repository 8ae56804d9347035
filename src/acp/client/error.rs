//! Why talking to the agent failed: starting it, opening a session, a request.

use std::collections::VecDeque;
use std::sync::Mutex;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("cannot start agent {agent}: command {command:?} was not found. {hint}")]
    NotFound {
        agent: String,
        command: String,
        hint: String,
    },
    #[error("agent {agent} ({command}) exited before it was ready{tail}")]
    Exited {
        agent: String,
        command: String,
        tail: String,
    },
    #[error("agent {agent} refused `initialize`: {message}{tail}")]
    Initialize {
        agent: String,
        message: String,
        tail: String,
    },
    #[error("agent {agent} needs a login: {message}\n{hint}{methods}")]
    AuthRequired {
        agent: String,
        /// The agent's own words.
        message: String,
        /// Its advertised methods, one per line (empty when it named none).
        methods: String,
        /// The concrete next step for this agent.
        hint: String,
    },
    #[error("agent {agent} stopped during the turn{tail}")]
    Crashed { agent: String, tail: String },
    #[error("agent {agent}: {message}{tail}")]
    Protocol {
        agent: String,
        message: String,
        /// The agent's last stderr lines, when it wrote any (its own account of the error).
        tail: String,
    },
    #[error("agent {agent} did not answer within {secs} s")]
    TimedOut { agent: String, secs: u64 },
}

/// Why a session could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The agent answered with an error (e.g. an unknown session on resume).
    Refused(String),
    Agent(AgentError),
}

/// A failed `session/load` or `session/resume` is "could not reopen", never a login wall: the
/// turn then opens a new session seeded with the conversation, and only a failing
/// `session/new` says the agent needs a login. (Gemini CLI answers a load with "Authentication
/// required" when only `GEMINI_API_KEY` is set, though a new session works.) A stopped agent or
/// a timeout stays what it is.
pub(super) fn reopen_error(e: OpenError) -> OpenError {
    match e {
        OpenError::Agent(AgentError::AuthRequired { message, .. }) => OpenError::Refused(message),
        other => other,
    }
}

/// The request failed because the agent's side of the connection went away.
pub(super) fn connection_lost(e: &agent_client_protocol::Error) -> bool {
    agent_client_protocol::is_connection_terminated(e)
        || agent_client_protocol::is_incoming_transport_closed(e)
}

pub(super) fn tail_of(stderr: &Mutex<VecDeque<String>>) -> String {
    let t = stderr.lock().unwrap_or_else(|e| e.into_inner());
    if t.is_empty() {
        String::new()
    } else {
        format!(
            "; its last stderr lines:\n  {}",
            t.iter().cloned().collect::<Vec<_>>().join("\n  ")
        )
    }
}

pub(super) fn error_text(e: &agent_client_protocol::Error) -> String {
    match &e.data {
        Some(serde_json::Value::String(s)) => format!("{} ({s})", e.message),
        Some(v) if !v.is_null() => format!("{} ({v})", e.message),
        _ => e.message.clone(),
    }
}
