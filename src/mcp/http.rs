//! The vault MCP over Streamable HTTP (rmcp's service on hyper), on 127.0.0.1 only.
//!
//! Every request passes three gates before rmcp sees it: the `Host` header must name this
//! loopback server and an `Origin` header, when present, one of its own origins (or one the
//! user allowed) — else 403, against DNS rebinding; the path must be `/mcp` — else 404; and it
//! must carry `Authorization: Bearer <token>` with the vault's token — else 401. The token lives
//! in `{vault}/.agentero/serve-token` (mode 0600) and is re-read when that file changes, so a
//! rotated token takes effect at once.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::guard::{self, Connections, Guarded, Refusal, ServeLimits};
use super::sessions::{CALLER, CappedSessions};
use super::vault::{Transport, VaultServer};
use crate::context::tools::vault::Limits;
use crate::vault::Vault;

pub const DEFAULT_PORT: u16 = 8765;
pub const TOKEN_FILE: &str = "serve-token";
pub const ENDPOINT: &str = "/mcp";

type Body = BoxBody<Bytes, Infallible>;

pub fn token_path(vault: &Vault) -> PathBuf {
    vault.state_dir().join(TOKEN_FILE)
}

const TOKEN_PREFIX: &str = "agt_";
/// Hex digits after the prefix: 32 bytes.
const TOKEN_HEX_LEN: usize = 64;

/// 256 bits from the system's generator (two v4 UUIDs, 244 of them random), as hex.
fn new_token() -> String {
    let a = uuid::Uuid::new_v4();
    let b = uuid::Uuid::new_v4();
    let mut bytes = a.as_bytes().to_vec();
    bytes.extend_from_slice(b.as_bytes());
    format!("{TOKEN_PREFIX}{}", crate::vault::fsutil::to_hex(&bytes))
}

/// Whether `t` has the shape of a token [`new_token`] made (a planted `hunter2` has not).
fn generated_token(t: &str) -> bool {
    t.strip_prefix(TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == TOKEN_HEX_LEN
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Writes the token readable by the owner only (a new 0600 file, then a rename; a token file
/// that is not agentero's own is refused, not replaced).
fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    Ok(crate::vault::statefs::atomic_write(
        path,
        format!("{token}\n").as_bytes(),
    )?)
}

/// The stored token; `None` when there is none. A token file that is a link, another user's,
/// hard-linked, readable by others, or holding a token agentero did not generate is refused
/// with the way to repair it (nothing is chmod'ed or followed).
fn read_token(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let mut f = match crate::vault::statefs::open_read(path) {
        Ok(f) => f,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let rotate = "run `agentero serve --rotate-token` to replace it with a new one";
    let shown = crate::vault::visible::visible(&path.to_string_lossy()).into_owned();
    let mode = std::os::unix::fs::PermissionsExt::mode(&f.metadata()?.permissions());
    if mode & 0o077 != 0 {
        return Err(std::io::Error::other(format!(
            "{shown} is readable by other users (mode {:o}), so the token may be known; {rotate}",
            mode & 0o777
        )));
    }
    let mut text = String::new();
    (&mut f).take(4096).read_to_string(&mut text).map_err(|_| {
        std::io::Error::other(format!(
            "{shown} does not hold a token agentero generated; {rotate}"
        ))
    })?;
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if !generated_token(t) {
        return Err(std::io::Error::other(format!(
            "{shown} does not hold a token agentero generated ({TOKEN_PREFIX} and {TOKEN_HEX_LEN} \
             hex digits); {rotate}"
        )));
    }
    Ok(Some(t.to_string()))
}

/// The vault's token, generated on first use.
pub fn ensure_token(vault: &Vault) -> anyhow::Result<String> {
    let path = token_path(vault);
    if let Some(t) = read_token(&path)? {
        return Ok(t);
    }
    rotate_token(vault)
}

/// A new token for the vault; a running server accepts only the new one from its next request.
pub fn rotate_token(vault: &Vault) -> anyhow::Result<String> {
    let path = token_path(vault);
    let token = new_token();
    write_token(&path, &token).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(token)
}

/// The token file as last read, re-read when it changes (or fails closed when it is gone).
struct TokenFile {
    path: PathBuf,
    cache: Mutex<Option<(FileStamp, String)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp(u64, Option<SystemTime>, u64);

fn file_stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some(FileStamp(m.len(), m.modified().ok(), ino))
}

impl TokenFile {
    fn current(&self) -> Option<String> {
        let st = file_stamp(&self.path)?;
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((s, t)) = &*cache
            && *s == st
        {
            return Some(t.clone());
        }
        match read_token(&self.path) {
            Ok(Some(t)) => {
                *cache = Some((st, t.clone()));
                Some(t)
            }
            Err(e) => {
                tracing::warn!(error = %e, "the vault MCP token is refused; every request gets 401");
                *cache = None;
                None
            }
            Ok(None) => {
                *cache = None;
                None
            }
        }
    }
}

/// Compares without an early exit, so timing does not tell how much of a guess was right.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// 0 picks a free port.
    pub port: u16,
    pub limits: Limits,
    /// Browser origins allowed besides the server's own (`http://127.0.0.1:PORT` and
    /// `http://localhost:PORT`), e.g. a web-based MCP client.
    pub extra_origins: Vec<String>,
    /// Connection, time and session limits.
    pub guard: ServeLimits,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            port: DEFAULT_PORT,
            limits: Limits::default(),
            extra_origins: Vec::new(),
            guard: ServeLimits::default(),
        }
    }
}

/// What every request is checked against.
struct Gate {
    port: u16,
    origins: Vec<String>,
    token: TokenFile,
}

impl Gate {
    fn host_ok(&self, host: Option<&str>) -> bool {
        let Some(host) = host else { return false };
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = match host.rsplit_once(':') {
            Some((n, p)) if !n.ends_with(':') && !p.contains(']') => (n.to_string(), Some(p)),
            _ => (host.clone(), None),
        };
        let port_ok = port.is_none_or(|p| p.parse::<u16>() == Ok(self.port));
        port_ok && matches!(name.as_str(), "127.0.0.1" | "localhost" | "[::1]")
    }

    fn origin_ok(&self, origin: Option<&str>) -> bool {
        // Clients that are not browsers send no Origin; a browser page always does.
        let Some(o) = origin else { return true };
        let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
        self.origins.contains(&o)
    }

    /// The response refusing `req`, or `None` when it may pass to rmcp.
    fn refusal(&self, req: &Request<Incoming>) -> Option<Response<Body>> {
        let h = req.headers();
        let text = |name: header::HeaderName| h.get(name).and_then(|v| v.to_str().ok());
        if !self.host_ok(text(header::HOST)) {
            return Some(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: Host header is not allowed",
            ));
        }
        if !self.origin_ok(text(header::ORIGIN)) {
            return Some(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin is not allowed",
            ));
        }
        if req.uri().path().trim_end_matches('/') != ENDPOINT {
            return Some(plain(
                StatusCode::NOT_FOUND,
                "Not Found: the MCP endpoint is /mcp",
            ));
        }
        let given = text(header::AUTHORIZATION)
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            })
            .map(str::trim);
        let ok = match (given, self.token.current()) {
            (Some(g), Some(t)) => same_secret(g.as_bytes(), t.as_bytes()),
            _ => false,
        };
        if !ok {
            let mut r = plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer <token> (`agentero serve --token` prints it)",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer realm=\"agentero\""),
            );
            return Some(r);
        }
        None
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

/// A running vault MCP on 127.0.0.1: its address, whether it still runs, and how to stop it.
/// Start it on any tokio runtime (the TUI's included); dropping it does not stop it.
pub struct VaultMcp {
    addr: SocketAddr,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl VaultMcp {
    /// Binds 127.0.0.1:`opts.port` (the token is created if the vault has none) and serves
    /// until [`VaultMcp::stop`].
    pub async fn start(vault: Vault, opts: HttpOptions) -> anyhow::Result<VaultMcp> {
        opts.guard.check()?;
        ensure_token(&vault)?;
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, opts.port))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{}", opts.port))?;
        let addr = listener.local_addr()?;
        let port = addr.port();
        let mut origins = vec![
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ];
        origins.extend(
            opts.extra_origins
                .iter()
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()),
        );
        let gate = Arc::new(Gate {
            port,
            origins: origins.clone(),
            token: TokenFile {
                path: token_path(&vault),
                cache: Mutex::new(None),
            },
        });
        let cancel = CancellationToken::new();
        // The first SSE event is the first message: rmcp's priming event (an empty `data:`)
        // breaks clients that parse every event as JSON (Gemini CLI).
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts([
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ])
            .with_allowed_origins(origins)
            .with_sse_retry(None)
            .with_max_request_body_bytes(MAX_BODY_BYTES)
            .with_cancellation_token(cancel.child_token());
        let g = &opts.guard;
        let sessions = Arc::new(CappedSessions::new(
            g.max_sessions_per_token,
            g.max_sessions,
            g.session_idle(),
        ));
        let server = VaultServer::new(vault, opts.limits, Transport::Http);
        let service =
            StreamableHttpService::new(move || Ok(server.clone()), sessions.clone(), config);
        let fd_limit = guard::raise_fd_limit();
        let total = guard::fitted_cap(g.max_connections, fd_limit);
        let shared = Arc::new(Shared {
            gate,
            service,
            sessions,
            conns: Connections::new(total, g.max_connections_per_source.min(total)),
            limits: g.clone(),
        });
        tracing::info!(
            %addr,
            connections = total,
            fd_limit = fd_limit.unwrap_or(0),
            "the vault MCP is listening"
        );
        let task = tokio::spawn(accept_loop(listener, shared, cancel.clone()));
        Ok(VaultMcp { addr, cancel, task })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint clients connect to, e.g. `http://127.0.0.1:8765/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{ENDPOINT}", self.addr)
    }

    pub fn is_running(&self) -> bool {
        !self.task.is_finished()
    }

    /// A handle that stops the server when cancelled (for signal handlers).
    pub fn stopper(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Stops accepting, ends the sessions, lets requests in flight finish (at most a few
    /// seconds) and returns when the server is down.
    pub async fn stop(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }

    /// Waits until the server stops (after [`VaultMcp::stopper`] was cancelled).
    pub async fn wait(self) {
        let _ = self.task.await;
    }
}

type Service = StreamableHttpService<VaultServer, CappedSessions>;

/// A request body is read whole before rmcp sees it, up to this size.
pub const MAX_BODY_BYTES: usize = 4 << 20;

/// What every connection's handler shares.
struct Shared {
    gate: Arc<Gate>,
    service: Service,
    sessions: Arc<CappedSessions>,
    conns: Arc<Connections>,
    limits: ServeLimits,
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    cancel: CancellationToken,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let sweeper = tokio::spawn(sweep_loop(shared.clone(), cancel.clone()));
    loop {
        let (stream, peer) = tokio::select! {
            _ = cancel.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(s) => s,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little instead of spinning.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let ticket = match shared.conns.admit(peer.ip()) {
            Ok(t) => t,
            Err(why) => {
                refuse_connection(&shared, stream, why);
                continue;
            }
        };
        let conn_handle = ticket.handle();
        let shared2 = shared.clone();
        let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
            let shared = shared2.clone();
            let busy = conn_handle.begin();
            async move {
                let (parts, body) = respond(&shared, req).await.into_parts();
                Ok::<_, Infallible>(Response::from_parts(
                    parts,
                    Guarded::new(body, busy).boxed(),
                ))
            }
        });
        let conn = http1_builder(shared.limits.header_timeout())
            .serve_connection(TokioIo::new(stream), handler);
        let conn = graceful.watch(conn);
        let killed = ticket.killed();
        tokio::spawn(async move {
            tokio::select! {
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "a vault MCP connection ended with an error");
                    }
                }
                _ = killed.cancelled() => {
                    tracing::debug!("a vault MCP connection was closed (idle, slow or evicted)");
                }
            }
            drop(ticket);
        });
    }
    drop(listener);
    sweeper.abort();
    if tokio::time::timeout(Duration::from_secs(3), graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after 3 s were dropped");
    }
    tracing::info!("the vault MCP stopped");
}

fn http1_builder(header_timeout: Duration) -> hyper::server::conn::http1::Builder {
    let mut b = hyper::server::conn::http1::Builder::new();
    b.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .max_buf_size(64 << 10);
    b
}

/// Closes connections that are slow to send their headers or idle for too long.
async fn sweep_loop(shared: Arc<Shared>, cancel: CancellationToken) {
    let t = shared.limits.header_timeout();
    let mut tick =
        tokio::time::interval((t / 4).clamp(Duration::from_millis(100), Duration::from_secs(1)));
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tick.tick() => {
                let n = shared.conns.sweep(t, t);
                if n > 0 {
                    tracing::debug!(closed = n, "vault MCP: slow or idle connections closed");
                }
            }
        }
    }
}

/// Answers a connection over a cap (`503`/`429` with `Retry-After`) and closes it; when many
/// refusals are under way already, closes it unanswered.
fn refuse_connection(shared: &Arc<Shared>, stream: tokio::net::TcpStream, why: Refusal) {
    let Some(slot) = shared.conns.refusal_slot() else {
        return;
    };
    let (status, text) = match why {
        Refusal::Busy => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: every connection is busy; retry shortly",
        ),
        Refusal::TooManyFromSource => (
            StatusCode::TOO_MANY_REQUESTS,
            "Too Many Requests: too many connections from this address; retry shortly",
        ),
    };
    tracing::debug!(?why, "vault MCP: a connection over the cap was refused");
    let handler = hyper::service::service_fn(move |_req: Request<Incoming>| async move {
        let mut r = plain(status, text);
        let h = r.headers_mut();
        h.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        h.insert(
            header::CONNECTION,
            header::HeaderValue::from_static("close"),
        );
        Ok::<_, Infallible>(r)
    });
    let mut b = http1_builder(Duration::from_secs(2));
    b.keep_alive(false);
    let conn = b.serve_connection(TokioIo::new(stream), handler);
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(3), conn).await;
        drop(slot);
    });
}

/// One request through the gates, its body read within the time limit, then rmcp.
async fn respond(shared: &Shared, req: Request<Incoming>) -> Response<Body> {
    if let Some(refusal) = shared.gate.refusal(&req) {
        return refusal;
    }
    let caller = caller_of(&req);
    let (parts, body) = req.into_parts();
    let limited = http_body_util::Limited::new(body, MAX_BODY_BYTES);
    let bytes = match tokio::time::timeout(shared.limits.body_timeout(), limited.collect()).await {
        Ok(Ok(c)) => c.to_bytes(),
        Ok(Err(e))
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: a request body is at most 4 MiB",
            );
        }
        Ok(Err(_)) => return plain(StatusCode::BAD_REQUEST, "Bad Request: the body was cut off"),
        Err(_) => {
            let mut r = plain(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the body did not arrive in time",
            );
            r.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            return r;
        }
    };
    if parts.method == http::Method::POST
        && !parts.headers.contains_key("mcp-session-id")
        && shared.sessions.full_for(&caller)
        && is_initialize(&bytes)
    {
        let mut r = plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "Service Unavailable: every MCP session is busy; retry shortly",
        );
        r.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
        return r;
    }
    let req = Request::from_parts(parts, Full::new(bytes));
    CALLER.scope(caller, shared.service.handle(req)).await
}

/// A digest of the request's bearer token: whose sessions these are.
fn caller_of(req: &Request<Incoming>) -> Arc<str> {
    let token = req
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    Arc::from(&crate::vault::fsutil::sha256_hex(token)[..16])
}

fn is_initialize(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("initialize"))
}

/// Serves the vault over stdin/stdout until the client disconnects (no token: the client
/// launched this process itself). Lines go through the same checks as the context server's
/// ([`super::wire`]): a line that is not JSON-RPC gets an error reply, never silence.
pub async fn serve_stdio(vault: Vault, limits: Limits) -> anyhow::Result<()> {
    use rmcp::ServiceExt;
    let server = VaultServer::new(vault, limits, Transport::Stdio);
    let running = server.serve(super::wire::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(port: u16) -> Gate {
        Gate {
            port,
            origins: vec![
                format!("http://127.0.0.1:{port}"),
                "http://localhost:6274".into(),
            ],
            token: TokenFile {
                path: PathBuf::from("/nonexistent"),
                cache: Mutex::new(None),
            },
        }
    }

    #[test]
    fn hosts_and_origins_against_dns_rebinding() {
        let g = gate(8765);
        for ok in [
            "127.0.0.1:8765",
            "localhost:8765",
            "LOCALHOST",
            "[::1]:8765",
            "127.0.0.1",
        ] {
            assert!(g.host_ok(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example:8765",
            "127.0.0.1:8766",
            "localhost.evil.example",
            "",
            "10.0.0.1:8765",
        ] {
            assert!(!g.host_ok(Some(bad)), "{bad}");
        }
        assert!(!g.host_ok(None));
        assert!(g.origin_ok(None));
        assert!(g.origin_ok(Some("http://127.0.0.1:8765")));
        assert!(g.origin_ok(Some("http://localhost:6274/")));
        assert!(!g.origin_ok(Some("http://evil.example")));
        assert!(!g.origin_ok(Some("http://127.0.0.1:9999")));
        assert!(!g.origin_ok(Some("null")));
    }

    #[test]
    fn tokens_are_private_and_rotate() {
        let dir = tempfile::tempdir().unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let a = ensure_token(&vault).unwrap();
        assert_eq!(ensure_token(&vault).unwrap(), a, "kept across calls");
        assert!(a.starts_with("agt_") && a.len() == 68, "{a}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(token_path(&vault))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let file = TokenFile {
            path: token_path(&vault),
            cache: Mutex::new(None),
        };
        assert_eq!(file.current().as_deref(), Some(a.as_str()));
        let b = rotate_token(&vault).unwrap();
        assert_ne!(a, b);
        assert_eq!(
            file.current().as_deref(),
            Some(b.as_str()),
            "re-read after a rotation"
        );
        std::fs::remove_file(token_path(&vault)).unwrap();
        assert_eq!(file.current(), None, "fails closed without a token file");
        assert!(
            same_secret(b"abc", b"abc")
                && !same_secret(b"abc", b"abd")
                && !same_secret(b"ab", b"abc")
        );
    }
}
