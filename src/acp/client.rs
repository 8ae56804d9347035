//! One agent process and its ACP connection; many sessions over it.
//!
//! The child is started by the SDK's `AcpAgent` in its own process group: a clean stop closes
//! its stdin and ends the whole group after a short grace, and dropping the connection (abort,
//! crash, time limit) kills the group at once — some adapters leave children running after
//! stdin closes. Its stderr goes to the log (and a short tail is kept for error messages).
//!
//! The client advertises no fs and no terminal capability: the agent reads the vault only
//! through the `agentero-context` MCP server of its session, and only what the grant allows.
//! Session notifications and permission requests are routed per session id to the turn that
//! owns the session (see [`super::turn`]).
//!
//! By job: `process` starts the agent (`initialize`, authentication) and ends it,
//! `sessions` opens and reopens sessions and keeps the warm pool, `routes` hands what the
//! agent sends to the turn listening to that session, and `error` says what failed.

mod error;
mod place;
mod process;
mod routes;
mod sessions;

pub use super::adapters::CONTEXT_SERVER_NAME;
pub use error::{AgentError, OpenError};
pub use place::{Place, Protections, Reads};
pub use process::{AgentInfo, AgentProcess, INIT_TIMEOUT, WarmSession, find_command};
pub use routes::Inbound;
pub use sessions::{OPEN_TIMEOUT, context_server, unix_now};
