//! The prompt/stream phase of a turn as a pure state machine, in the style of
//! [`super::super::session`]: `handle(event) -> effects`. No IO here and no clock: the driver
//! maps what arrives (updates, permission requests, the response, the deadline, a cancel, the
//! end of the grace) to events, passes the time in, and carries out the effects.
//!
//! Rules:
//! - every update is shown; while the turn runs, its tool names are noted for the permission
//!   requests that follow, and the first agent message chunk sets the first-chunk time;
//! - a permission the rules allow or reject is answered at once; a rejected title is noticed
//!   once per turn (a model that retries is not a flood); an open one goes to the asker;
//! - the deadline or a cancel asks the agent to stop once (the deadline also says why in the
//!   transcript) and answers the open questions `cancelled`; after a grace of [`GRACE`] with no
//!   response the turn ends timed out;
//! - the response ends the turn, cancelled or not; what is still queued after it is shown, and
//!   its permission requests are answered `cancelled`.

use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{PromptResponse, SessionUpdate};

use super::super::client::AgentError;
use super::super::permission::{Announced, Verdict};
use crate::config::Adapter;

/// How long a cancelled turn waits for the agent's response before it gives up.
pub const GRACE: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Streaming,
    /// The agent was asked to stop at `since`.
    Cancelling {
        since: Instant,
    },
    Done,
}

#[derive(Debug)]
pub enum Event {
    /// A `session/update` arrived; `at` is the time since the turn started.
    Update {
        update: Box<SessionUpdate>,
        at: Duration,
    },
    /// A permission request while the turn runs, with what the rules say about it (a native
    /// read already counted against the budget by the driver: allowed or rejected).
    Permission { title: String, verdict: Verdict },
    /// A permission request still queued when the turn ended: nobody judges it.
    PermissionAfterEnd,
    /// The agent's answer to `session/prompt` (or why there is none).
    Response(Result<PromptResponse, AgentError>),
    /// The turn's time limit passed.
    Deadline { now: Instant },
    /// The user cancelled the turn.
    Cancel { now: Instant },
    /// The grace after the cancel passed without a response.
    GraceOver,
}

/// The answer to one permission request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Allow {
        reason: String,
    },
    Reject {
        reason: String,
    },
    /// Ask whoever answers the open questions (in a task of its own).
    AskUser,
    /// The turn is over.
    Cancelled,
}

#[derive(Debug)]
pub enum Effect {
    /// Write the update to the transcript and report it.
    Show(Box<SessionUpdate>),
    /// Answer the permission request of the event.
    Respond(Answer),
    /// Answer the questions still open `cancelled` (and any asked later).
    StopAsking,
    /// Send `session/cancel`.
    SendCancel,
    /// A transcript notice the user is also told of and the outcome lists.
    Notice(String),
    /// A transcript notice only.
    Note(String),
    /// The prompt phase is over with this result.
    Break(Result<PromptResponse, AgentError>),
}

#[derive(Debug)]
pub struct TurnMachine {
    pub state: State,
    agent: String,
    timeout: Duration,
    announced: Announced,
    /// Tool titles refused (and noticed) this turn.
    refused: Vec<String>,
    first_chunk: Option<Duration>,
}

impl TurnMachine {
    pub fn new(agent: &str, adapter: Adapter, timeout: Duration) -> TurnMachine {
        TurnMachine {
            state: State::Streaming,
            agent: agent.to_string(),
            timeout,
            announced: Announced::new(adapter),
            refused: Vec::new(),
            first_chunk: None,
        }
    }

    /// The tool names the session announced, for reading its permission requests.
    pub fn announced(&self) -> &Announced {
        &self.announced
    }

    /// When the first agent message chunk arrived (since the turn started).
    pub fn first_chunk(&self) -> Option<Duration> {
        self.first_chunk
    }

    /// The grace still left at `now` while cancelling (`None` otherwise).
    pub fn grace_left(&self, now: Instant) -> Option<Duration> {
        match self.state {
            State::Cancelling { since } => {
                Some(GRACE.saturating_sub(now.saturating_duration_since(since)))
            }
            _ => None,
        }
    }

    /// The agent has not been asked to stop (the deadline and cancel still count).
    pub fn stoppable(&self) -> bool {
        self.state == State::Streaming
    }

    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::Update { update, at } => {
                if self.state != State::Done {
                    if self.first_chunk.is_none()
                        && matches!(*update, SessionUpdate::AgentMessageChunk(_))
                    {
                        self.first_chunk = Some(at);
                    }
                    self.announced.note(&update);
                }
                vec![Effect::Show(update)]
            }
            Event::Permission { title, verdict } if self.state != State::Done => {
                self.permission(title, verdict)
            }
            Event::Permission { .. } | Event::PermissionAfterEnd => {
                vec![Effect::Respond(Answer::Cancelled)]
            }
            Event::Response(r) if self.state != State::Done => {
                self.state = State::Done;
                vec![Effect::Break(r)]
            }
            Event::Deadline { now } if self.stoppable() => {
                self.state = State::Cancelling { since: now };
                vec![
                    Effect::StopAsking,
                    Effect::SendCancel,
                    Effect::Note(format!(
                        "The turn hit its time limit of {} s; asked the agent to stop.",
                        self.timeout.as_secs()
                    )),
                ]
            }
            Event::Cancel { now } if self.stoppable() => {
                self.state = State::Cancelling { since: now };
                vec![Effect::StopAsking, Effect::SendCancel]
            }
            Event::GraceOver if matches!(self.state, State::Cancelling { .. }) => {
                self.state = State::Done;
                vec![Effect::Break(Err(AgentError::TimedOut {
                    agent: self.agent.clone(),
                    secs: self.timeout.as_secs(),
                }))]
            }
            Event::Response(_)
            | Event::Deadline { .. }
            | Event::Cancel { .. }
            | Event::GraceOver => Vec::new(),
        }
    }

    fn permission(&mut self, title: String, verdict: Verdict) -> Vec<Effect> {
        match verdict {
            Verdict::Allow { reason } => vec![Effect::Respond(Answer::Allow { reason })],
            Verdict::Reject { reason } => {
                let mut effects = Vec::new();
                if !self.refused.contains(&title) {
                    effects.push(Effect::Notice(format!("refused {title}: {reason}")));
                    self.refused.push(title);
                }
                effects.insert(0, Effect::Respond(Answer::Reject { reason }));
                effects
            }
            Verdict::AllowNativeRead { .. } | Verdict::Ask => {
                vec![Effect::Respond(Answer::AskUser)]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        ContentBlock, ContentChunk, StopReason, TextContent, ToolCall,
    };

    use super::*;

    fn machine() -> TurnMachine {
        TurnMachine::new("builtin", Adapter::Builtin, Duration::from_secs(30))
    }

    fn chunk(text: &str) -> Box<SessionUpdate> {
        Box::new(SessionUpdate::AgentMessageChunk(ContentChunk::new(
            ContentBlock::Text(TextContent::new(text)),
        )))
    }

    fn thought(text: &str) -> Box<SessionUpdate> {
        Box::new(SessionUpdate::AgentThoughtChunk(ContentChunk::new(
            ContentBlock::Text(TextContent::new(text)),
        )))
    }

    fn reject(title: &str, reason: &str) -> Event {
        Event::Permission {
            title: title.into(),
            verdict: Verdict::Reject {
                reason: reason.into(),
            },
        }
    }

    fn ended() -> Event {
        Event::Response(Ok(PromptResponse::new(StopReason::EndTurn)))
    }

    fn notices(effects: &[Effect]) -> Vec<&str> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Notice(n) => Some(n.as_str()),
                _ => None,
            })
            .collect()
    }

    fn cancels(effects: &[Effect]) -> usize {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::SendCancel))
            .count()
    }

    #[test]
    fn refused_titles_are_noticed_once() {
        let mut m = machine();
        let first = m.handle(reject("Write notes.md", "outside the grant"));
        assert!(matches!(
            &first[0],
            Effect::Respond(Answer::Reject { reason }) if reason == "outside the grant"
        ));
        assert_eq!(
            notices(&first),
            vec!["refused Write notes.md: outside the grant"]
        );
        let again = m.handle(reject("Write notes.md", "outside the grant"));
        assert!(matches!(
            &again[..],
            [Effect::Respond(Answer::Reject { .. })]
        ));
        let other = m.handle(reject("Run rm", "a command"));
        assert_eq!(notices(&other), vec!["refused Run rm: a command"]);
    }

    #[test]
    fn allowed_and_open_permissions_are_answered_without_notice() {
        let mut m = machine();
        let allow = m.handle(Event::Permission {
            title: "read".into(),
            verdict: Verdict::Allow {
                reason: "granted".into(),
            },
        });
        assert!(matches!(
            &allow[..],
            [Effect::Respond(Answer::Allow { reason })] if reason == "granted"
        ));
        for verdict in [
            Verdict::Ask,
            Verdict::AllowNativeRead {
                paths: vec!["a.md".into()],
            },
        ] {
            let asked = m.handle(Event::Permission {
                title: "edit".into(),
                verdict,
            });
            assert!(matches!(&asked[..], [Effect::Respond(Answer::AskUser)]));
        }
    }

    #[test]
    fn deadline_cancels_then_the_grace_times_out() {
        let mut m = machine();
        let now = Instant::now();
        let effects = m.handle(Event::Deadline { now });
        assert!(matches!(
            &effects[..],
            [Effect::StopAsking, Effect::SendCancel, Effect::Note(n)]
                if n == "The turn hit its time limit of 30 s; asked the agent to stop."
        ));
        assert_eq!(m.state, State::Cancelling { since: now });
        assert_eq!(m.grace_left(now), Some(GRACE));
        assert_eq!(
            m.grace_left(now + Duration::from_secs(1)),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            m.grace_left(now + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
        let over = m.handle(Event::GraceOver);
        assert!(matches!(
            &over[..],
            [Effect::Break(Err(AgentError::TimedOut { agent, secs: 30 }))] if agent == "builtin"
        ));
        assert_eq!(m.state, State::Done);
        assert_eq!(m.grace_left(now), None);
    }

    #[test]
    fn cancel_twice_sends_once() {
        let mut m = machine();
        let now = Instant::now();
        let first = m.handle(Event::Cancel { now });
        assert!(matches!(
            &first[..],
            [Effect::StopAsking, Effect::SendCancel]
        ));
        assert!(!m.stoppable());
        let second = m.handle(Event::Cancel { now });
        let deadline = m.handle(Event::Deadline { now });
        assert_eq!(cancels(&first) + cancels(&second) + cancels(&deadline), 1);
        assert!(second.is_empty() && deadline.is_empty());
        assert_eq!(m.state, State::Cancelling { since: now });
    }

    #[test]
    fn the_grace_counts_only_while_cancelling() {
        let mut m = machine();
        assert_eq!(m.grace_left(Instant::now()), None);
        assert!(m.handle(Event::GraceOver).is_empty());
        assert_eq!(m.state, State::Streaming);
    }

    #[test]
    fn response_after_cancel_ends_the_turn() {
        let mut m = machine();
        m.handle(Event::Cancel {
            now: Instant::now(),
        });
        let effects = m.handle(Event::Response(Ok(PromptResponse::new(
            StopReason::Cancelled,
        ))));
        assert!(matches!(
            &effects[..],
            [Effect::Break(Ok(r))] if r.stop_reason == StopReason::Cancelled
        ));
        assert_eq!(m.state, State::Done);
        // Nothing more ends it again, and a late grace is no time-out.
        assert!(m.handle(Event::GraceOver).is_empty());
        assert!(m.handle(ended()).is_empty());
    }

    #[test]
    fn a_failed_response_breaks_with_its_error() {
        let mut m = machine();
        let effects = m.handle(Event::Response(Err(AgentError::Crashed {
            agent: "builtin".into(),
            tail: String::new(),
        })));
        assert!(matches!(
            &effects[..],
            [Effect::Break(Err(AgentError::Crashed { .. }))]
        ));
    }

    #[test]
    fn first_chunk_time_is_the_first_agent_message_chunk() {
        let mut m = machine();
        let shown = m.handle(Event::Update {
            update: thought("hmm"),
            at: Duration::from_millis(5),
        });
        assert!(matches!(&shown[..], [Effect::Show(_)]));
        assert_eq!(m.first_chunk(), None);
        m.handle(Event::Update {
            update: chunk("Hello"),
            at: Duration::from_millis(10),
        });
        m.handle(Event::Update {
            update: chunk(" world"),
            at: Duration::from_millis(20),
        });
        assert_eq!(m.first_chunk(), Some(Duration::from_millis(10)));
    }

    #[test]
    fn updates_after_the_end_are_shown_but_not_timed() {
        let mut m = machine();
        m.handle(ended());
        let shown = m.handle(Event::Update {
            update: chunk("late"),
            at: Duration::from_millis(99),
        });
        assert!(matches!(&shown[..], [Effect::Show(_)]));
        assert_eq!(m.first_chunk(), None);
    }

    #[test]
    fn permissions_after_the_end_are_cancelled() {
        let mut m = machine();
        m.handle(ended());
        assert!(matches!(
            &m.handle(Event::PermissionAfterEnd)[..],
            [Effect::Respond(Answer::Cancelled)]
        ));
        assert!(matches!(
            &m.handle(reject("Write", "no"))[..],
            [Effect::Respond(Answer::Cancelled)]
        ));
    }

    #[test]
    fn tool_calls_are_shown_and_set_no_first_chunk() {
        let mut m = machine();
        let effects = m.handle(Event::Update {
            update: Box::new(SessionUpdate::ToolCall(ToolCall::new("c1", "Read a.md"))),
            at: Duration::ZERO,
        });
        assert!(
            matches!(&effects[..], [Effect::Show(u)] if matches!(**u, SessionUpdate::ToolCall(_)))
        );
        assert_eq!(m.first_chunk(), None);
    }
}
