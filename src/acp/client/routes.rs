//! The inbound routing: what the agent sends about a session (updates, permission requests)
//! goes to the one listener of that session, is kept until someone listens, or is dropped
//! during a `session/load` replay (a permission request then answered "cancelled").

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema::{
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse, SessionUpdate,
};
use tokio::sync::mpsc;

/// Something the agent sent about a session.
#[allow(clippy::large_enum_variant)] // short-lived messages; boxing the responder buys nothing
pub enum Inbound {
    Update(Box<SessionUpdate>),
    Permission(
        Box<RequestPermissionRequest>,
        Responder<RequestPermissionResponse>,
    ),
}

#[derive(Default)]
struct Route {
    tx: Option<mpsc::UnboundedSender<Inbound>>,
    /// Updates that arrived before anyone listened (e.g. commands announced right after
    /// `session/new`).
    early: Vec<Inbound>,
    /// Drop updates (the replay of `session/load`: the transcript already has it).
    suppress: bool,
    suppressed: usize,
}

/// The routes of one connection, by session id.
#[derive(Clone, Default)]
pub(super) struct Routes(Arc<Mutex<HashMap<String, Route>>>);

impl Routes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Route>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn deliver(&self, session: &str, msg: Inbound) {
        let mut map = self.lock();
        let route = map.entry(session.to_string()).or_default();
        if route.suppress {
            route.suppressed += 1;
            if let Inbound::Permission(_, responder) = msg {
                let _ = responder.respond(RequestPermissionResponse::new(
                    RequestPermissionOutcome::Cancelled,
                ));
            }
            return;
        }
        match &route.tx {
            Some(tx) => {
                if let Err(mpsc::error::SendError(Inbound::Permission(_, responder))) = tx.send(msg)
                {
                    let _ = responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Cancelled,
                    ));
                }
            }
            None => route.early.push(msg),
        }
    }

    /// Routes this session's updates to a new channel (with anything that arrived early).
    pub(super) fn listen(&self, session: &str) -> mpsc::UnboundedReceiver<Inbound> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut map = self.lock();
        let route = map.entry(session.to_string()).or_default();
        for m in route.early.drain(..) {
            let _ = tx.send(m);
        }
        route.tx = Some(tx);
        rx
    }

    pub(super) fn unlisten(&self, session: &str) {
        if let Some(r) = self.lock().get_mut(session) {
            r.tx = None;
        }
    }

    /// Drops this session's updates from now on (the replay of `session/load`).
    pub(super) fn suppress(&self, session: &str) {
        self.lock().entry(session.to_string()).or_default().suppress = true;
    }

    /// Delivers this session's updates again; returns how many were dropped meanwhile.
    pub(super) fn unsuppress(&self, session: &str) -> usize {
        let mut map = self.lock();
        let r = map.entry(session.to_string()).or_default();
        r.suppress = false;
        std::mem::take(&mut r.suppressed)
    }
}
