//! The session calls over a started agent: `session/new`, `session/resume` and `session/load`
//! (with the adapter's `_meta` and read-only mode), who listens to a session, and the warm
//! pool of prompt-only sessions.

use std::path::Path;
use std::time::Duration;

use agent_client_protocol::ErrorCode;
use agent_client_protocol::v1::schema::{
    CloseSessionRequest, LoadSessionRequest, McpServer, McpServerStdio, NewSessionRequest,
    ResumeSessionRequest, SessionId, SessionModeState, SetSessionModeRequest,
};
use tokio::sync::mpsc;

use super::error::{AgentError, OpenError, connection_lost, error_text, reopen_error};
use super::process::{AgentProcess, WarmSession};
use super::routes::Inbound;
use crate::acp::adapters::{self, CONTEXT_SERVER_NAME};
use crate::context::grant::new_id;

/// How long opening a session may take.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(60);

impl AgentProcess {
    fn open_error(&self, e: agent_client_protocol::Error) -> OpenError {
        if e.code == ErrorCode::AUTH_REQUIRED {
            return OpenError::Agent(self.auth_error(&e));
        }
        if self.has_exited() || connection_lost(&e) {
            return OpenError::Agent(self.failure(&e));
        }
        OpenError::Refused(error_text(&e))
    }

    async fn timed<T>(
        &self,
        fut: impl Future<Output = Result<T, agent_client_protocol::Error>>,
    ) -> Result<T, OpenError> {
        match tokio::time::timeout(OPEN_TIMEOUT, fut).await {
            Err(_) => Err(OpenError::Agent(AgentError::TimedOut {
                agent: self.def.name.clone(),
                secs: OPEN_TIMEOUT.as_secs(),
            })),
            Ok(Err(e)) => {
                // Let a dying process finish exiting so the error says "stopped".
                tokio::time::sleep(Duration::from_millis(20)).await;
                Err(self.open_error(e))
            }
            Ok(Ok(v)) => Ok(v),
        }
    }

    /// `session/new` in `cwd` with `mcp` servers (and the adapter's `_meta`).
    pub async fn new_session(&self, cwd: &Path, mcp: Vec<McpServer>) -> Result<String, OpenError> {
        let req = NewSessionRequest::new(cwd)
            .mcp_servers(mcp)
            .meta(self.meta.clone());
        let resp = self.timed(self.cx.send_request(req).block_task()).await?;
        let id = resp.session_id.0.to_string();
        self.mark_live(&id, unix_now());
        self.settle_mode(&id, resp.modes.as_ref()).await;
        Ok(id)
    }

    fn mark_live(&self, id: &str, at: u64) {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), at);
    }

    /// When this connection created or reopened session `id`, if it has it open (a session
    /// it has can be prompted again without reopening it).
    pub fn live_since(&self, id: &str) -> Option<u64> {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .copied()
    }

    /// `session/close`: the agent frees what the session holds (its context servers); the
    /// session is no longer live here, so its next turn reopens it (`session/resume` or
    /// `session/load`). Whether the agent closed it.
    pub async fn close_session(&self, id: &str) -> bool {
        let req = CloseSessionRequest::new(SessionId::new(id));
        match self.timed(self.cx.send_request(req).block_task()).await {
            Ok(_) => {
                self.live
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(id);
                tracing::info!(agent = %self.def.name, session = %id, "closed an idle session");
                true
            }
            Err(e) => {
                tracing::warn!(agent = %self.def.name, session = %id, error = ?e, "cannot close a session");
                false
            }
        }
    }

    /// Switches a just-opened session to the adapter's read-only mode when it offers one and
    /// is in another (a failure is logged: the permission policy still holds).
    async fn settle_mode(&self, session: &str, modes: Option<&SessionModeState>) {
        let (Some(want), Some(modes)) = (adapters::wanted_mode(&self.def), modes) else {
            return;
        };
        if modes.current_mode_id.0.as_ref() == want
            || !modes
                .available_modes
                .iter()
                .any(|m| m.id.0.as_ref() == want)
        {
            return;
        }
        let req = SetSessionModeRequest::new(SessionId::new(session), want);
        if let Err(e) = self.timed(self.cx.send_request(req).block_task()).await {
            tracing::warn!(agent = %self.def.name, error = ?e, "cannot switch to the {want} mode");
        }
    }

    /// `session/resume`.
    pub async fn resume(&self, id: &str, cwd: &Path, mcp: Vec<McpServer>) -> Result<(), OpenError> {
        let req = ResumeSessionRequest::new(SessionId::new(id), cwd)
            .mcp_servers(mcp)
            .meta(self.meta.clone());
        let resp = self
            .timed(self.cx.send_request(req).block_task())
            .await
            .map_err(reopen_error)?;
        self.mark_live(id, unix_now());
        self.settle_mode(id, resp.modes.as_ref()).await;
        Ok(())
    }

    /// `session/load`, its replay suppressed (the transcript is already on disk). Returns how
    /// many replayed updates were dropped.
    pub async fn load(
        &self,
        id: &str,
        cwd: &Path,
        mcp: Vec<McpServer>,
    ) -> Result<usize, OpenError> {
        self.routes.suppress(id);
        let req = LoadSessionRequest::new(SessionId::new(id), cwd)
            .mcp_servers(mcp)
            .meta(self.meta.clone());
        let result = self.timed(self.cx.send_request(req).block_task()).await;
        let suppressed = self.routes.unsuppress(id);
        let resp = result.map_err(reopen_error)?;
        self.mark_live(id, unix_now());
        self.settle_mode(id, resp.modes.as_ref()).await;
        Ok(suppressed)
    }

    /// Routes this session's updates to a new channel (with anything that arrived early).
    pub fn listen(&self, session: &str) -> mpsc::UnboundedReceiver<Inbound> {
        self.routes.listen(session)
    }

    pub fn unlisten(&self, session: &str) {
        self.routes.unlisten(session)
    }

    /// The working folder of session runtime `runtime_id`: a folder of its own outside the
    /// vault (prepared for the adapter), or, for agentero's own agent, the runtime's folder in
    /// the vault's state folder.
    pub fn session_cwd(&self, runtime_id: &str) -> std::io::Result<std::path::PathBuf> {
        cwd_of(&self.def, &self.protections, &self.place, runtime_id)
    }

    /// Removes the working folder of a throwaway session runtime (outside the vault; the
    /// runtime's folder in the state folder is the caller's).
    pub fn forget_session_cwd(&self, runtime_id: &str) {
        if let Some(w) = &self.protections.work {
            crate::acp::workdir::remove_session_dir(w, runtime_id);
        }
    }

    /// The `agentero-context` server for a grant: agentero itself, or, for an agent inside
    /// the read restriction, the relay to this process's broker.
    pub fn context_server(&self, grant: &Path) -> McpServer {
        match &self.broker {
            Some(b) => McpServer::Stdio(
                McpServerStdio::new(CONTEXT_SERVER_NAME, &self.place.host_exe).args(vec![
                    crate::acp::sandbox::RELAY_FLAG.into(),
                    b.socket.display().to_string(),
                    grant.display().to_string(),
                ]),
            ),
            None => context_server(&self.place.host_exe, grant),
        }
    }

    /// Creates `n` prompt-only sessions (no MCP server) in fresh working folders, in the
    /// background.
    pub async fn fill_pool(&self, n: usize) {
        let mut pool = self.pool.lock().await;
        let missing = n.saturating_sub(pool.ready.len());
        if missing == 0 || pool.filling.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        let cx = self.cx.clone();
        let (def, protections, place) = (
            self.def.clone(),
            self.protections.clone(),
            self.place.clone(),
        );
        let shared = self.pool.clone();
        let agent = self.def.name.clone();
        let live = self.live.clone();
        pool.filling = Some(tokio::spawn(async move {
            for _ in 0..missing {
                let runtime_id = new_id("rt");
                let cwd = match cwd_of(&def, &protections, &place, &runtime_id) {
                    Ok(cwd) => cwd,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot create a warm session folder");
                        return;
                    }
                };
                let req = NewSessionRequest::new(cwd).mcp_servers(Vec::new());
                match tokio::time::timeout(OPEN_TIMEOUT, cx.send_request(req).block_task()).await {
                    Ok(Ok(r)) => {
                        let created = unix_now();
                        let session_id = r.session_id.0.to_string();
                        live.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(session_id.clone(), created);
                        shared.lock().await.ready.push(WarmSession {
                            session_id,
                            runtime_id,
                            created,
                        })
                    }
                    other => {
                        tracing::warn!(agent = %agent, outcome = ?other.map(|r| r.map(|_| ())), "cannot pre-create a warm session");
                        return;
                    }
                }
            }
        }));
    }

    /// A warm session is ready or being created.
    pub async fn warm_available(&self) -> bool {
        let pool = self.pool.lock().await;
        !pool.ready.is_empty() || pool.filling.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Takes a warm session (waiting for a fill in progress), refilling in the background when
    /// `auto_refill` is on. A taken session never returns to the pool.
    pub async fn take_warm(&self) -> Option<WarmSession> {
        let filling = {
            let mut pool = self.pool.lock().await;
            if pool.ready.is_empty() {
                pool.filling.take()
            } else {
                None
            }
        };
        if let Some(h) = filling {
            let _ = h.await;
        }
        let taken = {
            let mut pool = self.pool.lock().await;
            if pool.ready.is_empty() {
                None
            } else {
                Some(pool.ready.remove(0))
            }
        };
        if taken.is_some() && self.auto_refill {
            self.fill_pool(self.def.warm_pool).await;
        }
        taken
    }

    /// Waits until a background fill has finished (benchmarks, tests).
    pub async fn pool_settled(&self) -> usize {
        let h = self.pool.lock().await.filling.take();
        if let Some(h) = h {
            let _ = h.await;
        }
        self.pool.lock().await.ready.len()
    }
}

/// The working folder of `runtime_id` for `def` (see [`AgentProcess::session_cwd`]).
fn cwd_of(
    def: &crate::config::AgentDef,
    protections: &super::Protections,
    place: &super::Place,
    runtime_id: &str,
) -> std::io::Result<std::path::PathBuf> {
    match &protections.work {
        Some(w) => {
            let dir = crate::acp::workdir::session_dir(w, runtime_id)?;
            adapters::prepare_cwd(def, &dir)?;
            Ok(dir)
        }
        None => {
            let dir = place.sessions_dir().join(runtime_id);
            crate::vault::statefs::ensure_dir(&dir)?;
            Ok(dir)
        }
    }
}

/// Now as Unix seconds.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The `agentero-context` server for a grant: the host's own executable.
pub fn context_server(host_exe: &Path, grant: &Path) -> McpServer {
    McpServer::Stdio(
        McpServerStdio::new(CONTEXT_SERVER_NAME, host_exe).args(vec![
            "--agentero-context-mcp".into(),
            grant.display().to_string(),
        ]),
    )
}
