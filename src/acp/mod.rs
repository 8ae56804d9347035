//! The ACP client: agent processes, the session state machine, turns, warm pool, transcripts.
