//! The ACP client: agent processes, the session state machine, turns, warm pool, transcripts.
//!
//! - [`session`]: the pure session state machine (resume by fingerprint, warm pool, fallback).
//! - [`transcript`]: threads on disk (`transcript.jsonl`, `state.json`, `HANDOFF.md`).
//! - [`threads`]: every thread of a vault, searchable by what its answers cite and say.
//! - [`client`]: one agent process (own process group) and its ACP connection; warm pool.
//! - [`turn`]: the turn driver (plan → grant → session → prompt → stream → sources).
//! - [`handoff`]: the agent-written summary that seeds the next session (`HANDOFF.md`).
//! - [`sandbox`]: the read restriction (Landlock) around an agent whose own tools read files.
//! - [`workdir`]: the agents' working folders, outside every vault.
//! - [`ask`]: `agentero ask`, one turn from the command line (its `--json` fields are there).

pub mod adapters;
pub mod ask;
pub mod cited;
pub mod client;
pub mod doctor;
pub mod events;
pub mod handoff;
pub mod ollama;
pub mod permission;
pub mod reverify;
pub mod sandbox;
pub mod seed;
pub mod session;
pub mod threads;
pub mod transcript;
pub mod transport;
pub mod turn;
pub mod workdir;
