//! Starting the agent: the process (its own group), the connection's two inbound handlers,
//! `initialize` and the `env_var` authentication; its failures and its end.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthenticateRequest, ClientCapabilities, Implementation, InitializeRequest,
    RequestPermissionRequest, RequestPermissionResponse, SessionNotification,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ErrorCode};
use tokio::sync::oneshot;

use super::error::{AgentError, connection_lost, error_text, tail_of};
use super::place::{Place, Protections};
use super::routes::{Inbound, Routes};
use crate::acp::adapters::{self, AuthInfo};
use crate::acp::transport;
use crate::config::AgentDef;

/// How long `initialize` may take (adapters fetched by `npx` can be slow the first time).
pub const INIT_TIMEOUT: Duration = Duration::from_secs(60);

/// What the agent said it can do (`initialize`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentInfo {
    pub name: Option<String>,
    pub version: Option<String>,
    pub load_session: bool,
    pub resume: bool,
    /// It closes sessions (`session/close`): an idle one is closed to free what it holds.
    pub close: bool,
    pub prompt_image: bool,
    pub prompt_audio: bool,
    pub prompt_embedded_context: bool,
    pub mcp_http: bool,
    pub mcp_sse: bool,
    /// The protocol version the agent answered with (a number on the wire).
    pub protocol_version: u16,
    /// The authentication methods it advertised.
    pub auth: Vec<AuthInfo>,
    /// The `env_var` method agentero authenticated with, if any.
    pub authenticated: Option<String>,
}

/// A ready prompt-only session from the warm pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmSession {
    pub session_id: String,
    pub runtime_id: String,
    /// When the agent created it (Unix seconds).
    pub created: u64,
}

/// The warm pool of one connection.
#[derive(Default)]
pub(super) struct Pool {
    pub(super) ready: Vec<WarmSession>,
    pub(super) filling: Option<tokio::task::JoinHandle<()>>,
}

/// An agent process with an initialized ACP connection.
pub struct AgentProcess {
    pub def: AgentDef,
    pub info: AgentInfo,
    pub(super) cx: ConnectionTo<Agent>,
    pub(super) routes: Routes,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// The agent's process group (ended on stop, kill and drop).
    group: Arc<tokio::sync::Mutex<transport::Group>>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), agent_client_protocol::Error>>>,
    pub(super) pool: Arc<tokio::sync::Mutex<Pool>>,
    /// The sessions this connection has open (created or reopened), with when each was.
    pub(super) live: Arc<Mutex<HashMap<String, u64>>>,
    /// Refill the pool in the background after a warm session is taken (off for one-shot
    /// processes, which would never use the refill).
    pub auto_refill: bool,
    /// The adapter's `_meta` for every session opened (see [`adapters::session_meta`]).
    pub(super) meta: Option<serde_json::Map<String, serde_json::Value>>,
    command: String,
    /// What the agent runs, as remembered permission answers are bound to it.
    command_id: String,
    /// The host's end of the relayed context server of a restricted agent.
    pub(super) broker: Option<crate::acp::sandbox::Broker>,
    /// What keeps the vault away from it besides the grant.
    pub protections: Protections,
    /// The vault it serves and agentero's executable.
    pub(super) place: Place,
}

/// The executable `command` names: a path as given, else the first match on `PATH`.
pub fn find_command(command: &Path) -> Option<PathBuf> {
    if command.components().count() > 1 {
        return command.is_file().then(|| command.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(command))
        .find(|p| p.is_file())
}

fn install_hint(def: &AgentDef) -> String {
    if let Some(pkg) = &def.npx_package {
        return format!(
            "Neither it nor `npx` is on PATH: install Node.js (npx runs `npx -y {pkg}`), or \
             `npm install -g {pkg}`. It needs {}.",
            def.install_hint.as_deref().unwrap_or("a login")
        );
    }
    match &def.install_hint {
        Some(h) => format!("Install: {h}."),
        None => {
            let presets: Vec<String> = crate::config::presets()
                .iter()
                .map(|p| {
                    let line = std::iter::once(p.command)
                        .chain(p.args.iter().copied())
                        .collect::<Vec<_>>()
                        .join(" ");
                    format!(
                        "{} (`{line}` or `npx -y {}`: {})",
                        p.name, p.package, p.install
                    )
                })
                .collect();
            format!(
                "Check `command` in [agents.{}] of the config file. Known ACP agents: {}.",
                def.name,
                presets.join("; ")
            )
        }
    }
}

/// The advertised methods: from the raw JSON when it was seen (it keeps `type` and `vars`),
/// else from the typed list.
fn auth_methods(
    typed: &[agent_client_protocol::v1::schema::AuthMethod],
    raw: &Mutex<Option<serde_json::Value>>,
) -> Vec<AuthInfo> {
    let raw = raw.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(serde_json::Value::Array(a)) = raw {
        return a.iter().filter_map(AuthInfo::from_json).collect();
    }
    typed
        .iter()
        .filter_map(|m| serde_json::to_value(m).ok())
        .filter_map(|v| AuthInfo::from_json(&v))
        .collect()
}

fn launch_line(l: &adapters::Launch) -> String {
    let mut s = l.command.display().to_string();
    for a in &l.args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

impl AgentProcess {
    /// Starts the agent for the vault of `place` (files agentero writes for an adapter go to
    /// its state folder), outside the vault and within the protections of its adapter (see
    /// [`place`](super::place)), runs `initialize` (protocol v1, no fs, no terminal) and, for
    /// an `env_var` auth method whose variables are set, `authenticate`.
    pub async fn start(def: &AgentDef, place: &Place) -> Result<AgentProcess, AgentError> {
        let agent = def.name.clone();
        let found = find_command(&def.command);
        let npx = found.is_none() && def.npx_package.is_some();
        let cannot = |e: std::io::Error| AgentError::Protocol {
            agent: agent.clone(),
            message: format!("cannot prepare the agent's files: {e}"),
            tail: String::new(),
        };
        let launch = adapters::launch(def, &place.state_dir, found.is_some()).map_err(cannot)?;
        let command = launch_line(&launch);
        let exe = match found {
            Some(exe) => exe,
            None => match npx.then(|| find_command(Path::new("npx"))).flatten() {
                Some(npx) => npx,
                None => {
                    return Err(AgentError::NotFound {
                        agent,
                        command: def.command.display().to_string(),
                        hint: install_hint(def),
                    });
                }
            },
        };
        let command_id = crate::acp::permission::command_id(&exe, &launch.args);
        let prepared = super::place::prepare(def, place, &exe, npx, launch).map_err(cannot)?;
        for line in prepared.protections.lines() {
            tracing::info!(agent = %def.name, "{line}");
        }
        let launch = prepared.launch;
        // Restricted: the launcher (agentero itself) becomes the agent.
        let exe = if prepared.broker.is_some() {
            launch.command.clone()
        } else {
            exe
        };
        let name = def.name.clone();
        // The typed schema drops an auth method's `type` and `vars`: keep the raw methods.
        let raw_auth: Arc<Mutex<Option<serde_json::Value>>> = Arc::default();
        let raw_auth_w = raw_auth.clone();
        let on_stdout = Arc::new(move |line: &str| {
            tracing::trace!(agent = %name, "<- {line}");
            if line.contains("\"authMethods\"") {
                let mut slot = raw_auth_w.lock().unwrap_or_else(|e| e.into_inner());
                if slot.is_none()
                    && let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
                    && let Some(m) = v.pointer("/result/authMethods")
                {
                    *slot = Some(m.clone());
                }
            }
        });
        let spawned = transport::spawn(
            &def.name,
            &exe,
            &launch.args,
            &launch.env,
            prepared.cwd.as_deref(),
            on_stdout,
        )
        .map_err(|e| AgentError::Exited {
            agent: agent.clone(),
            command: command.clone(),
            tail: format!(": {e}"),
        })?;
        let transport = spawned.lines;
        let stderr = spawned.stderr;
        let group = Arc::new(tokio::sync::Mutex::new(spawned.group));
        let routes = Routes::default();
        let (r_notif, r_perm) = (routes.clone(), routes.clone());
        let (cx_tx, cx_rx) = oneshot::channel::<ConnectionTo<Agent>>();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            Client
                .v1()
                .name("agentero")
                .on_receive_notification(
                    async move |n: SessionNotification, _cx| {
                        r_notif.deliver(&n.session_id.0, Inbound::Update(Box::new(n.update)));
                        Ok(())
                    },
                    agent_client_protocol::on_receive_notification!(),
                )
                .on_receive_request(
                    async move |r: RequestPermissionRequest,
                                responder: Responder<RequestPermissionResponse>,
                                _cx| {
                        let sid = r.session_id.0.to_string();
                        r_perm.deliver(&sid, Inbound::Permission(Box::new(r), responder));
                        Ok(())
                    },
                    agent_client_protocol::on_receive_request!(),
                )
                .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                    let _ = cx_tx.send(cx);
                    // The connection lives until the owner stops it (or the agent exits).
                    let _ = stop_rx.await;
                    Ok(())
                })
                .await
        });
        let mut process = AgentProcess {
            def: def.clone(),
            info: AgentInfo::default(),
            cx: match cx_rx.await {
                Ok(cx) => cx,
                Err(_) => {
                    let detail = match task.await {
                        Ok(Err(e)) => format!(": {}", e.message),
                        _ => String::new(),
                    };
                    return Err(AgentError::Exited {
                        agent,
                        command,
                        tail: format!("{detail}{}", tail_of(&stderr)),
                    });
                }
            },
            routes,
            stderr,
            group,
            stop: Some(stop_tx),
            task: Some(task),
            pool: Arc::default(),
            live: Arc::default(),
            auto_refill: true,
            meta: adapters::session_meta(def),
            command,
            command_id,
            broker: prepared.broker,
            protections: prepared.protections,
            place: place.clone(),
        };
        process.initialize(&raw_auth).await?;
        process.authenticate().await?;
        Ok(process)
    }

    /// `authenticate` with an `env_var` method whose variables are set (Codex needs it even
    /// with the key in its environment). Other methods are the user's to complete.
    async fn authenticate(&mut self) -> Result<(), AgentError> {
        let Some(method) =
            adapters::env_auth_method(&self.info.auth, &self.def.env, |v| std::env::var(v).ok())
        else {
            return Ok(());
        };
        let req = AuthenticateRequest::new(method.clone());
        match tokio::time::timeout(INIT_TIMEOUT, self.cx.send_request(req).block_task()).await {
            Ok(Ok(_)) => {
                tracing::info!(agent = %self.def.name, %method, "authenticated");
                self.info.authenticated = Some(method);
                Ok(())
            }
            Ok(Err(e)) => Err(AgentError::AuthRequired {
                agent: self.def.name.clone(),
                message: format!("`authenticate` with {method} failed: {}", error_text(&e)),
                methods: self.methods_text(),
                hint: adapters::login_hint(&self.def),
            }),
            Err(_) => Err(AgentError::TimedOut {
                agent: self.def.name.clone(),
                secs: INIT_TIMEOUT.as_secs(),
            }),
        }
    }

    /// The advertised auth methods, one per line after a heading (empty when none).
    fn methods_text(&self) -> String {
        if self.info.auth.is_empty() {
            return String::new();
        }
        let lines: Vec<String> = self.info.auth.iter().map(AuthInfo::describe).collect();
        format!("\nThe agent offers:\n{}", lines.join("\n"))
    }

    /// The login error for an `AUTH_REQUIRED` answer (at `session/new` or the first prompt).
    pub fn auth_error(&self, e: &agent_client_protocol::Error) -> AgentError {
        AgentError::AuthRequired {
            agent: self.def.name.clone(),
            message: error_text(e),
            methods: self.methods_text(),
            hint: adapters::login_hint(&self.def),
        }
    }

    /// The command line actually started (after the npx fallback and the adapter's switches).
    pub fn command_line(&self) -> &str {
        &self.command
    }

    /// [`crate::acp::permission::command_id`] of the program and arguments started.
    pub fn command_id(&self) -> &str {
        &self.command_id
    }

    async fn initialize(
        &mut self,
        raw_auth: &Mutex<Option<serde_json::Value>>,
    ) -> Result<(), AgentError> {
        let req = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(ClientCapabilities::new())
            .client_info(Implementation::new("agentero", env!("CARGO_PKG_VERSION")));
        let sent = self.cx.send_request(req).block_task();
        let resp = match tokio::time::timeout(INIT_TIMEOUT, sent).await {
            Err(_) => {
                return Err(AgentError::TimedOut {
                    agent: self.def.name.clone(),
                    secs: INIT_TIMEOUT.as_secs(),
                });
            }
            Ok(Err(e)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                return Err(if self.has_exited() {
                    AgentError::Exited {
                        agent: self.def.name.clone(),
                        command: self.command.clone(),
                        tail: self.tail(),
                    }
                } else {
                    AgentError::Initialize {
                        agent: self.def.name.clone(),
                        message: error_text(&e),
                        tail: self.tail(),
                    }
                });
            }
            Ok(Ok(r)) => r,
        };
        let caps = &resp.agent_capabilities;
        self.info = AgentInfo {
            name: resp.agent_info.as_ref().map(|i| i.name.clone()),
            version: resp.agent_info.as_ref().map(|i| i.version.clone()),
            load_session: caps.load_session,
            resume: caps.session_capabilities.resume.is_some(),
            close: caps.session_capabilities.close.is_some(),
            prompt_image: caps.prompt_capabilities.image,
            prompt_audio: caps.prompt_capabilities.audio,
            prompt_embedded_context: caps.prompt_capabilities.embedded_context,
            mcp_http: caps.mcp_capabilities.http,
            mcp_sse: caps.mcp_capabilities.sse,
            protocol_version: resp.protocol_version.as_u16(),
            auth: auth_methods(&resp.auth_methods, raw_auth),
            authenticated: None,
        };
        tracing::info!(agent = %self.def.name, info = ?self.info, "agent initialized");
        Ok(())
    }

    pub fn connection(&self) -> &ConnectionTo<Agent> {
        &self.cx
    }

    pub fn has_exited(&self) -> bool {
        self.task.as_ref().is_none_or(|t| t.is_finished())
            || self.group.try_lock().is_ok_and(|mut g| g.has_exited())
    }

    /// The last lines the agent wrote to stderr, for error messages.
    pub fn tail(&self) -> String {
        tail_of(&self.stderr)
    }

    /// The error for a request that failed: a login wall, the connection ended, or the
    /// agent's own error.
    pub fn failure(&self, e: &agent_client_protocol::Error) -> AgentError {
        if e.code == ErrorCode::AUTH_REQUIRED {
            return self.auth_error(e);
        }
        if self.has_exited() || connection_lost(e) {
            AgentError::Crashed {
                agent: self.def.name.clone(),
                tail: self.tail(),
            }
        } else {
            AgentError::Protocol {
                agent: self.def.name.clone(),
                message: error_text(e),
                tail: self.tail(),
            }
        }
    }

    /// Ends the connection: stdin closed, a short grace, then the whole process group is
    /// ended by the SDK; if that takes too long the connection is dropped (group killed).
    pub async fn shutdown(mut self) {
        self.stop_now(Duration::from_secs(3)).await;
    }

    /// Kills the agent's process group now (after a crash or an ignored cancel).
    pub fn kill(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
        self.stop.take();
        if let Ok(mut g) = self.group.try_lock() {
            g.kill();
        }
    }

    async fn stop_now(&mut self, grace: Duration) {
        if let Some(pool) = self.pool.try_lock().ok().and_then(|mut p| p.filling.take()) {
            pool.abort();
        }
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut t) = self.task.take()
            && tokio::time::timeout(grace, &mut t).await.is_err()
        {
            t.abort();
        }
        // The connection is gone (stdin closed): a grace to exit, then the whole group ends.
        self.group.lock().await.stop(grace).await;
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        // The agent's whole process group ends with its handle (SIGKILL).
        self.kill();
    }
}
