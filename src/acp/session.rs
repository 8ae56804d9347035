//! Which agent session a turn runs in, as a pure state machine in atuin's `fsm`
//! style: `handle(event) -> effects`. No IO here: the turn driver performs the effects (ACP
//! requests, file writes) and feeds the outcomes back as events, so every rule below is unit
//! tested without a process.
//!
//! Rules:
//! - same fingerprint and a usable session id → reuse the live session, else `session/resume`
//!   when the agent advertises it, else `session/load` (its replay is suppressed by the driver);
//!   the MCP server is attached again in both cases;
//! - fingerprint changed or missing (or another agent) → drop the resume id and `session/new`,
//!   seeded with the prior visible conversation (or the thread's HANDOFF.md when present);
//! - a session refused for resume/load is remembered and never tried again;
//! - warm-pool sessions only for turns whose plan is `prompt_only` (they have no MCP server);
//! - an `mcp` turn whose agent never attached the context server switches the thread to
//!   inlined evidence (`prompt_only` wording) until a later turn sees the agent attach.

use serde::{Deserialize, Serialize};

use crate::context::Mode;

/// What a thread remembers about its agent session (persisted in `state.json`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionRecord {
    pub agent: String,
    /// The ACP session id (the resume id).
    pub session_id: Option<String>,
    /// The session's folder under `.agentero/context-sessions/` (its cwd and grant).
    pub runtime_id: Option<String>,
    /// The fingerprint of the grant the session was opened with.
    pub fingerprint: Option<String>,
    /// Sessions the agent refused to resume or load.
    pub refused: Vec<String>,
    /// The agent did not attach the context server in an `mcp` turn.
    pub mcp_fallback: bool,
    /// When a process last created or reopened the session (Unix seconds, UTC): gemini-cli
    /// names a session's recording by that minute (see [`super::adapters::reopen_hazard`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opened_at: Option<u64>,
}

/// The agent capabilities the choice depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    pub load_session: bool,
    pub resume: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInput {
    pub agent: String,
    pub fingerprint: String,
    /// The plan's mode.
    pub mode: Mode,
    pub caps: Caps,
    /// The session this thread has open over the current connection, if any.
    pub live: Option<String>,
    /// Why reopening the thread's session (resume or load) now would harm it, if it would:
    /// a new session seeded with the conversation is started instead (unless it is live).
    pub reopen_hazard: Option<String>,
    pub warm_available: bool,
    pub has_handoff: bool,
    /// The thread has earlier visible conversation.
    pub has_history: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seed {
    None,
    /// The prior visible conversation, minus what this prompt's evidence already contains.
    Conversation,
    /// The thread's HANDOFF.md instead of the whole conversation.
    Handoff,
}

/// How the session is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Open {
    /// The session is already open on this connection: just prompt it.
    Live { session_id: String },
    Resume {
        session_id: String,
        runtime_id: String,
    },
    Load {
        session_id: String,
        runtime_id: String,
    },
    /// `session/new` in a fresh session folder.
    New,
    /// A pre-created prompt-only session from the pool.
    Warm,
}

/// How the thread's session came to be, as reported to the user (`--json` `session`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Opening {
    New,
    Resumed,
    Loaded,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Open {
        how: Open,
        /// Offer the `agentero-context` server in `mcpServers`.
        attach_mcp: bool,
        seed: Seed,
        /// The wording of the context block (`prompt_only` while falling back).
        prompt_mode: Mode,
    },
    /// Write `state.json`.
    Persist,
    /// Tell the user (a transcript notice line).
    Notice(String),
    /// Remove HANDOFF.md: the new session has it.
    ConsumeHandoff,
}

impl Effect {
    /// The session to open among `effects`: how, whether to offer the context server, the
    /// seed and the prompt's mode.
    pub fn open_of(effects: &[Effect]) -> Option<(Open, bool, Seed, Mode)> {
        effects.iter().find_map(|e| match e {
            Effect::Open {
                how,
                attach_mcp,
                seed,
                prompt_mode,
            } => Some((how.clone(), *attach_mcp, *seed, *prompt_mode)),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    TurnRequested(TurnInput),
    /// The session of the pending turn is open.
    Opened {
        session_id: String,
        runtime_id: String,
        opening: Opening,
        /// When the agent created or reopened it (Unix seconds); `None` for a live session,
        /// which keeps the time it was opened.
        opened_at: Option<u64>,
    },
    /// The agent refused to resume or load `session_id`.
    OpenRefused {
        session_id: String,
    },
    /// The turn finished; `attached` is whether the agent attached the context server (`None`
    /// when no server was offered).
    TurnEnded {
        attached: Option<bool>,
    },
    /// The turn failed after the session was open (crash, time limit).
    TurnFailed,
}

/// Why a new session was started for a thread with history: what its seed tells the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NewSessionReason {
    /// The grant's fingerprint changed: an old session must not read new sources.
    SourcesChanged,
    /// The thread moved to another agent.
    OtherAgent,
    /// The agent could not reopen the earlier session.
    ReopenFailed,
    /// Reopening the earlier session now would harm it (see [`TurnInput::reopen_hazard`]).
    ReopenTooSoon,
    /// The thread had no session to go on with (the first session of an old thread, after a
    /// failed turn or a handoff).
    #[default]
    NoSession,
}

impl NewSessionReason {
    /// The seed's wording.
    pub fn says(self) -> &'static str {
        match self {
            NewSessionReason::SourcesChanged => {
                "a new session was started because the granted sources changed"
            }
            NewSessionReason::OtherAgent => {
                "a new session was started because the thread moved to another agent"
            }
            NewSessionReason::ReopenFailed => {
                "a new session was started because the earlier one could not be reopened"
            }
            NewSessionReason::ReopenTooSoon => {
                "a new session was started because the earlier one cannot be reopened safely yet"
            }
            NewSessionReason::NoSession => "a new session was started for this thread",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SessionMachine {
    pub record: SessionRecord,
    pending: Option<Pending>,
}

#[derive(Debug, Clone)]
struct Pending {
    input: TurnInput,
    attach_mcp: bool,
    seed: Seed,
    prompt_mode: Mode,
    why: NewSessionReason,
}

impl SessionMachine {
    pub fn new(record: SessionRecord) -> SessionMachine {
        SessionMachine {
            record,
            pending: None,
        }
    }

    /// Why the pending turn's session is a new one (meaningful with `Seed::Conversation`).
    pub fn new_session_reason(&self) -> NewSessionReason {
        self.pending.as_ref().map(|p| p.why).unwrap_or_default()
    }

    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        match event {
            Event::TurnRequested(input) => self.turn_requested(input),
            Event::Opened {
                session_id,
                runtime_id,
                opening: _,
                opened_at,
            } => {
                let Some(p) = &self.pending else {
                    return Vec::new();
                };
                self.record.agent = p.input.agent.clone();
                if opened_at.is_some() || self.record.session_id.as_ref() != Some(&session_id) {
                    self.record.opened_at = opened_at;
                }
                self.record.session_id = Some(session_id);
                self.record.runtime_id = Some(runtime_id);
                self.record.fingerprint = Some(p.input.fingerprint.clone());
                vec![Effect::Persist]
            }
            Event::OpenRefused { session_id } => {
                if !self.record.refused.contains(&session_id) {
                    self.record.refused.push(session_id);
                }
                self.forget_session();
                let Some(p) = self.pending.as_mut() else {
                    return vec![Effect::Persist];
                };
                p.seed = seed_for(&p.input);
                p.why = NewSessionReason::ReopenFailed;
                vec![
                    Effect::Persist,
                    Effect::Open {
                        how: Open::New,
                        attach_mcp: p.attach_mcp,
                        seed: p.seed,
                        prompt_mode: p.prompt_mode,
                    },
                ]
            }
            Event::TurnEnded { attached } => {
                let Some(p) = self.pending.take() else {
                    return Vec::new();
                };
                let mut effects = Vec::new();
                if p.seed == Seed::Handoff {
                    effects.push(Effect::ConsumeHandoff);
                }
                match attached {
                    Some(false) if !self.record.mcp_fallback => {
                        self.record.mcp_fallback = true;
                        effects.push(Effect::Notice(format!(
                            "The agent {} never connected the {} server in this turn, so it \
                             could not read the vault; the next turns inline the evidence in the prompt \
                             until it attaches.",
                            p.input.agent,
                            crate::context::CONTEXT_SERVER_NAME
                        )));
                    }
                    Some(true) if self.record.mcp_fallback => {
                        self.record.mcp_fallback = false;
                        effects.push(Effect::Notice(format!(
                            "The agent {} attached the {} server: vault tools are back on.",
                            p.input.agent,
                            crate::context::CONTEXT_SERVER_NAME
                        )));
                    }
                    _ => {}
                }
                effects.push(Effect::Persist);
                effects
            }
            Event::TurnFailed => {
                self.pending = None;
                vec![Effect::Persist]
            }
        }
    }

    fn forget_session(&mut self) {
        self.record.session_id = None;
        self.record.runtime_id = None;
        self.record.fingerprint = None;
        self.record.opened_at = None;
    }

    fn turn_requested(&mut self, input: TurnInput) -> Vec<Effect> {
        let attach_mcp = input.mode == Mode::Mcp;
        let prompt_mode = if attach_mcp && self.record.mcp_fallback {
            Mode::PromptOnly
        } else {
            input.mode
        };
        let same = self.record.agent == input.agent
            && self.record.fingerprint.as_deref() == Some(input.fingerprint.as_str());
        let mut reusable = self
            .record
            .session_id
            .clone()
            .zip(self.record.runtime_id.clone())
            .filter(|(id, _)| same && !self.record.refused.contains(id));
        let mut effects = Vec::new();
        let reopens = reusable
            .as_ref()
            .is_some_and(|(id, _)| input.live.as_deref() != Some(id.as_str()))
            && (input.caps.resume || input.caps.load_session);
        let hazard = input.reopen_hazard.as_ref().filter(|_| reopens);
        if let Some(h) = hazard {
            // Never reopen a session in a way that harms it: go on in a new, seeded session.
            reusable = None;
            effects.push(Effect::Notice(format!(
                "{} was not asked to reopen this thread's session: {h}. A new session was \
                 started and given the conversation so far.",
                input.agent
            )));
        }
        let why = match (&self.record.session_id, &self.record.fingerprint) {
            (Some(id), _) if self.record.refused.contains(id) => NewSessionReason::ReopenFailed,
            (Some(_), _) if !self.record.agent.is_empty() && self.record.agent != input.agent => {
                NewSessionReason::OtherAgent
            }
            (Some(_), Some(f)) if *f != input.fingerprint => NewSessionReason::SourcesChanged,
            _ if hazard.is_some() => NewSessionReason::ReopenTooSoon,
            _ => NewSessionReason::NoSession,
        };
        let (how, seed) = match reusable {
            Some((session_id, _)) if input.live.as_deref() == Some(session_id.as_str()) => {
                (Open::Live { session_id }, Seed::None)
            }
            Some((session_id, runtime_id)) if input.caps.resume => (
                Open::Resume {
                    session_id,
                    runtime_id,
                },
                Seed::None,
            ),
            Some((session_id, runtime_id)) if input.caps.load_session => (
                Open::Load {
                    session_id,
                    runtime_id,
                },
                Seed::None,
            ),
            _ => {
                // An old session must never read newly granted sources: forget it.
                if self.record.session_id.is_some() {
                    self.forget_session();
                    effects.push(Effect::Persist);
                }
                let how = if !attach_mcp && input.warm_available {
                    Open::Warm
                } else {
                    Open::New
                };
                (how, seed_for(&input))
            }
        };
        effects.push(Effect::Open {
            how,
            attach_mcp,
            seed,
            prompt_mode,
        });
        self.pending = Some(Pending {
            input,
            attach_mcp,
            seed,
            prompt_mode,
            why,
        });
        effects
    }
}

fn seed_for(input: &TurnInput) -> Seed {
    if input.has_handoff {
        Seed::Handoff
    } else if input.has_history {
        Seed::Conversation
    } else {
        Seed::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(fp: &str, mode: Mode) -> TurnInput {
        TurnInput {
            agent: "builtin".into(),
            fingerprint: fp.into(),
            mode,
            caps: Caps {
                load_session: true,
                resume: true,
            },
            live: None,
            reopen_hazard: None,
            warm_available: true,
            has_handoff: false,
            has_history: true,
        }
    }

    fn open_of(effects: &[Effect]) -> (Open, bool, Seed, Mode) {
        Effect::open_of(effects).expect("an Open effect")
    }

    fn opened(m: &mut SessionMachine, id: &str) {
        m.handle(Event::Opened {
            session_id: id.into(),
            runtime_id: format!("rt-{id}"),
            opening: Opening::New,
            opened_at: Some(1_000),
        });
        m.handle(Event::TurnEnded {
            attached: Some(true),
        });
    }

    #[test]
    fn first_turn_is_new_and_unseeded() {
        let mut m = SessionMachine::default();
        let mut i = input("f1", Mode::Mcp);
        i.has_history = false;
        let (how, attach, seed, mode) = open_of(&m.handle(Event::TurnRequested(i)));
        assert_eq!(
            (how, attach, seed, mode),
            (Open::New, true, Seed::None, Mode::Mcp)
        );
    }

    #[test]
    fn same_fingerprint_resumes_then_loads_then_uses_live() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        assert_eq!(m.record.fingerprint.as_deref(), Some("f1"));
        let (how, attach, seed, _) =
            open_of(&m.handle(Event::TurnRequested(input("f1", Mode::Mcp))));
        assert_eq!(
            how,
            Open::Resume {
                session_id: "s1".into(),
                runtime_id: "rt-s1".into()
            }
        );
        assert!(attach, "the MCP server is attached again on resume");
        assert_eq!(seed, Seed::None);
        m.handle(Event::TurnEnded {
            attached: Some(true),
        });

        let mut no_resume = input("f1", Mode::Mcp);
        no_resume.caps.resume = false;
        let (how, attach, _, _) = open_of(&m.handle(Event::TurnRequested(no_resume.clone())));
        assert!(matches!(how, Open::Load { .. }) && attach);
        m.handle(Event::TurnEnded {
            attached: Some(true),
        });

        no_resume.live = Some("s1".into());
        let (how, _, _, _) = open_of(&m.handle(Event::TurnRequested(no_resume)));
        assert_eq!(
            how,
            Open::Live {
                session_id: "s1".into()
            }
        );
    }

    #[test]
    fn a_hazardous_reopen_uses_the_live_session_or_a_seeded_new_one() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        assert_eq!(m.record.opened_at, Some(1_000));
        let mut i = input("f1", Mode::Mcp);
        i.caps.resume = false;
        i.reopen_hazard = Some("it was opened this minute".into());

        // The process still has it: prompt it again, nothing reopened, nothing forgotten.
        i.live = Some("s1".into());
        let effects = m.handle(Event::TurnRequested(i.clone()));
        assert!(matches!(open_of(&effects).0, Open::Live { .. }));
        assert!(!effects.iter().any(|e| matches!(e, Effect::Notice(_))));
        m.handle(Event::Opened {
            session_id: "s1".into(),
            runtime_id: "rt-s1".into(),
            opening: Opening::Resumed,
            opened_at: None,
        });
        assert_eq!(
            m.record.opened_at,
            Some(1_000),
            "a live turn keeps the time"
        );
        m.handle(Event::TurnEnded {
            attached: Some(true),
        });

        // Another process: never load it now; a new session gets the conversation.
        i.live = None;
        let effects = m.handle(Event::TurnRequested(i));
        let (how, attach, seed, _) = open_of(&effects);
        assert_eq!((how, attach, seed), (Open::New, true, Seed::Conversation));
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Notice(n) if n.contains("opened this minute")))
        );
        assert_eq!(m.new_session_reason(), NewSessionReason::ReopenTooSoon);
        assert_eq!(m.record.session_id, None);
        assert_eq!(m.record.opened_at, None);
    }

    #[test]
    fn changed_fingerprint_drops_the_resume_id_and_seeds() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        let effects = m.handle(Event::TurnRequested(input("f2", Mode::Mcp)));
        assert!(effects.contains(&Effect::Persist));
        assert_eq!(
            m.record.session_id, None,
            "the old session is forgotten at once"
        );
        let (how, _, seed, _) = open_of(&effects);
        assert_eq!((how, seed), (Open::New, Seed::Conversation));
        assert_eq!(m.new_session_reason(), NewSessionReason::SourcesChanged);
    }

    #[test]
    fn another_agent_never_resumes_this_session() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        let mut other = input("f1", Mode::Mcp);
        other.agent = "claude".into();
        let (how, _, _, _) = open_of(&m.handle(Event::TurnRequested(other)));
        assert_eq!(how, Open::New);
        assert_eq!(m.new_session_reason(), NewSessionReason::OtherAgent);
    }

    #[test]
    fn refused_resume_falls_back_to_new_and_is_never_reused() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        let effects = m.handle(Event::OpenRefused {
            session_id: "s1".into(),
        });
        let (how, _, seed, _) = open_of(&effects);
        assert_eq!((how, seed), (Open::New, Seed::Conversation));
        assert_eq!(
            m.new_session_reason(),
            NewSessionReason::ReopenFailed,
            "the sources did not change: the seed must not say they did"
        );
        assert_eq!(m.record.refused, vec!["s1".to_string()]);
        // Even if some stale state pointed at it again, it is not resumed.
        m.record.session_id = Some("s1".into());
        m.record.runtime_id = Some("rt-s1".into());
        m.record.fingerprint = Some("f1".into());
        let (how, _, _, _) = open_of(&m.handle(Event::TurnRequested(input("f1", Mode::Mcp))));
        assert_eq!(how, Open::New);
    }

    #[test]
    fn warm_sessions_only_for_prompt_only_turns() {
        let mut m = SessionMachine::default();
        let (how, attach, _, _) =
            open_of(&m.handle(Event::TurnRequested(input("p", Mode::PromptOnly))));
        assert_eq!((how, attach), (Open::Warm, false));
        let mut m = SessionMachine::default();
        let (how, _, _, _) = open_of(&m.handle(Event::TurnRequested(input("f", Mode::Mcp))));
        assert_eq!(how, Open::New, "an MCP turn never takes a warm session");
        let mut m = SessionMachine::default();
        let mut i = input("p", Mode::PromptOnly);
        i.warm_available = false;
        let (how, _, _, _) = open_of(&m.handle(Event::TurnRequested(i)));
        assert_eq!(how, Open::New);
    }

    #[test]
    fn unattached_mcp_turn_falls_back_until_the_agent_attaches() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        m.handle(Event::Opened {
            session_id: "s1".into(),
            runtime_id: "rt1".into(),
            opening: Opening::New,
            opened_at: Some(1_000),
        });
        let effects = m.handle(Event::TurnEnded {
            attached: Some(false),
        });
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Notice(n) if n.contains("never connected")))
        );
        assert!(m.record.mcp_fallback);

        let (_, attach, _, mode) = open_of(&m.handle(Event::TurnRequested(input("f1", Mode::Mcp))));
        assert!(
            attach,
            "the server is still offered so the agent can prove it attaches"
        );
        assert_eq!(
            mode,
            Mode::PromptOnly,
            "evidence inlined with the prompt_only wording"
        );
        let effects = m.handle(Event::TurnEnded {
            attached: Some(false),
        });
        assert!(
            !effects.iter().any(|e| matches!(e, Effect::Notice(_))),
            "said once"
        );

        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        let effects = m.handle(Event::TurnEnded {
            attached: Some(true),
        });
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::Notice(n) if n.contains("back on")))
        );
        let (_, _, _, mode) = open_of(&m.handle(Event::TurnRequested(input("f1", Mode::Mcp))));
        assert_eq!(mode, Mode::Mcp);
    }

    #[test]
    fn handoff_seeds_instead_of_the_conversation_and_is_consumed() {
        let mut m = SessionMachine::default();
        let mut i = input("f1", Mode::Mcp);
        i.has_handoff = true;
        let (_, _, seed, _) = open_of(&m.handle(Event::TurnRequested(i)));
        assert_eq!(seed, Seed::Handoff);
        m.handle(Event::Opened {
            session_id: "s".into(),
            runtime_id: "r".into(),
            opening: Opening::New,
            opened_at: Some(1_000),
        });
        assert!(
            m.handle(Event::TurnEnded {
                attached: Some(true)
            })
            .contains(&Effect::ConsumeHandoff)
        );
    }

    #[test]
    fn failed_turn_keeps_the_session_for_a_later_resume() {
        let mut m = SessionMachine::default();
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        opened(&mut m, "s1");
        m.handle(Event::TurnRequested(input("f1", Mode::Mcp)));
        assert_eq!(m.handle(Event::TurnFailed), vec![Effect::Persist]);
        assert_eq!(m.record.session_id.as_deref(), Some("s1"));
    }
}
