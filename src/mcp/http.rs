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
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

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
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            port: DEFAULT_PORT,
            limits: Limits::default(),
            extra_origins: Vec::new(),
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
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts([
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ])
            .with_allowed_origins(origins)
            .with_cancellation_token(cancel.child_token());
        let server = VaultServer::new(vault, opts.limits, Transport::Http);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let task = tokio::spawn(accept_loop(listener, gate, service, cancel.clone()));
        tracing::info!(%addr, "the vault MCP is listening");
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

type Service = StreamableHttpService<VaultServer, LocalSessionManager>;

async fn accept_loop(
    listener: tokio::net::TcpListener,
    gate: Arc<Gate>,
    service: Service,
    cancel: CancellationToken,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let (stream, _) = tokio::select! {
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
        let gate = gate.clone();
        let service = service.clone();
        let handler = hyper::service::service_fn(move |req: Request<Incoming>| {
            let gate = gate.clone();
            let service = service.clone();
            async move {
                match gate.refusal(&req) {
                    None => Ok::<_, Infallible>(service.handle(req).await),
                    Some(refusal) => Ok(refusal),
                }
            }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(stream), handler);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "a vault MCP connection ended with an error");
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(Duration::from_secs(3), graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open after 3 s were dropped");
    }
    tracing::info!("the vault MCP stopped");
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
