//! agentero: a keyboard-driven terminal reader for a vault of research papers, with an agent chat
//! beside it. The layers import one way only (enforced by `tests/it/architecture.rs`):
//! `vault` ← `context` ← (`mcp`, `acp`, `agent`) ← `tui`; `cli`/`main` wire them together.

#![forbid(unsafe_code)]

pub mod acp;
pub mod agent;
pub mod cli;
pub mod config;
pub mod context;
pub mod logging;
pub mod mcp;
pub mod paths;
pub mod tui;
pub mod vault;
pub mod viewer;
