//! Keeping the loopback server serviceable under load: limits on connections (in total and per
//! source address), on the time a client may take to send its headers and its body, and on how
//! long a connection may sit idle. When a limit is reached, the oldest idle connection is
//! closed first (one that never completed a request before one that did); only when every
//! connection is busy is a new one answered `503` (total) or `429` (per source) with
//! `Retry-After`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio_util::sync::CancellationToken;

/// The server's limits (`agentero serve --max-connections …`; the defaults suit one user's
/// clients on one machine).
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ServeLimits {
    /// Open connections at most (lowered to half the process's file-descriptor limit).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_connections: usize,
    /// Open connections from one source address at most.
    #[arg(long, default_value_t = 512, value_name = "N")]
    pub max_connections_per_source: usize,
    /// Seconds a client may take to send a request's headers; also how long a connection may
    /// stay idle between requests.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    pub header_timeout: u64,
    /// Seconds a client may take to send a request's body.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub body_timeout: u64,
    /// MCP sessions at most (all tokens together).
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_sessions: usize,
    /// MCP sessions one token may hold at most.
    #[arg(long, default_value_t = 256, value_name = "N")]
    pub max_sessions_per_token: usize,
    /// Seconds after which a session without requests expires (its client re-initializes).
    #[arg(long, default_value_t = 1800, value_name = "SECS")]
    pub session_idle: u64,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            max_connections: 1024,
            max_connections_per_source: 512,
            header_timeout: 10,
            body_timeout: 30,
            max_sessions: 1024,
            max_sessions_per_token: 256,
            session_idle: 1800,
        }
    }
}

impl ServeLimits {
    /// Every limit is at least 1 (a zero would refuse everything).
    pub fn check(&self) -> anyhow::Result<()> {
        for (name, v) in [
            ("--max-connections", self.max_connections as u64),
            (
                "--max-connections-per-source",
                self.max_connections_per_source as u64,
            ),
            ("--header-timeout", self.header_timeout),
            ("--body-timeout", self.body_timeout),
            ("--max-sessions", self.max_sessions as u64),
            (
                "--max-sessions-per-token",
                self.max_sessions_per_token as u64,
            ),
            ("--session-idle", self.session_idle),
        ] {
            if v == 0 {
                anyhow::bail!("{name} must be at least 1");
            }
        }
        Ok(())
    }

    pub fn header_timeout(&self) -> Duration {
        Duration::from_secs(self.header_timeout.max(1))
    }

    pub fn body_timeout(&self) -> Duration {
        Duration::from_secs(self.body_timeout.max(1))
    }

    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.session_idle.max(1))
    }
}

/// Raises the soft limit on open files to the hard one and returns the soft limit in force
/// (`None` when it is unlimited or cannot be read).
pub fn raise_fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let lim = getrlimit(Resource::Nofile);
        if lim.current != lim.maximum {
            let raised = Rlimit {
                current: lim.maximum,
                maximum: lim.maximum,
            };
            if let Err(e) = setrlimit(Resource::Nofile, raised) {
                tracing::debug!(error = %e, "cannot raise the open-file limit");
            }
        }
        getrlimit(Resource::Nofile).current
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The connection cap that fits under `fd_limit`: at most half of it, so the index, the PDFs
/// being read and the log always have descriptors left.
pub fn fitted_cap(wanted: usize, fd_limit: Option<u64>) -> usize {
    match fd_limit {
        Some(l) => wanted.min((l / 2).saturating_sub(32).max(8) as usize),
        None => wanted,
    }
}

/// Why a new connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The total cap (503).
    Busy,
    /// The per-source cap (429).
    TooManyFromSource,
}

struct Conn {
    ip: IpAddr,
    opened: Instant,
    /// The end of the last request (or the opening).
    last: Instant,
    /// Requests being handled (their responses not fully sent).
    busy: u32,
    /// A request's headers arrived at least once.
    served: bool,
    kill: CancellationToken,
}

impl Conn {
    fn idle(&self) -> bool {
        self.busy == 0
    }

    /// Closed first: never served before served, then the longest idle.
    fn eviction_key(&self) -> (bool, Instant) {
        (
            self.served,
            if self.served { self.last } else { self.opened },
        )
    }
}

#[derive(Default)]
struct Registry {
    next: u64,
    conns: HashMap<u64, Conn>,
    per_ip: HashMap<IpAddr, usize>,
}

impl Registry {
    fn remove(&mut self, id: u64) -> Option<Conn> {
        let c = self.conns.remove(&id)?;
        if let Some(n) = self.per_ip.get_mut(&c.ip) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.per_ip.remove(&c.ip);
            }
        }
        Some(c)
    }

    /// Closes the oldest idle connection that `pick` accepts; false when every one is busy.
    fn evict(&mut self, pick: impl Fn(&Conn) -> bool) -> bool {
        let victim = self
            .conns
            .iter()
            .filter(|(_, c)| c.idle() && pick(c))
            .min_by_key(|(_, c)| c.eviction_key())
            .map(|(id, _)| *id);
        match victim.and_then(|id| self.remove(id)) {
            Some(c) => {
                c.kill.cancel();
                true
            }
            None => false,
        }
    }
}

/// The open connections and their caps.
pub struct Connections {
    reg: Mutex<Registry>,
    max_total: usize,
    max_per_source: usize,
    /// Refusals being answered (each holds a descriptor for a moment).
    refusing: AtomicUsize,
}

/// Refusals answered at once at most; beyond that a new connection is closed unanswered.
pub const MAX_REFUSING: usize = 64;

impl Connections {
    pub fn new(max_total: usize, max_per_source: usize) -> Arc<Connections> {
        Arc::new(Connections {
            reg: Mutex::new(Registry::default()),
            max_total: max_total.max(1),
            max_per_source: max_per_source.max(1),
            refusing: AtomicUsize::new(0),
        })
    }

    fn reg(&self) -> MutexGuard<'_, Registry> {
        self.reg.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn open(&self) -> usize {
        self.reg().conns.len()
    }

    /// Admits a connection from `ip`, closing the oldest idle one when a cap is reached.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Ticket, Refusal> {
        let mut reg = self.reg();
        if reg.per_ip.get(&ip).copied().unwrap_or(0) >= self.max_per_source
            && !reg.evict(|c| c.ip == ip)
        {
            return Err(Refusal::TooManyFromSource);
        }
        if reg.conns.len() >= self.max_total && !reg.evict(|_| true) {
            return Err(Refusal::Busy);
        }
        let id = reg.next;
        reg.next += 1;
        let now = Instant::now();
        let kill = CancellationToken::new();
        reg.conns.insert(
            id,
            Conn {
                ip,
                opened: now,
                last: now,
                busy: 0,
                served: false,
                kill: kill.clone(),
            },
        );
        *reg.per_ip.entry(ip).or_default() += 1;
        Ok(Ticket {
            conns: self.clone(),
            id,
            kill,
        })
    }

    /// Closes connections that sent no complete request headers within `header`, and idle
    /// ones whose last request ended more than `idle` ago.
    pub fn sweep(&self, header: Duration, idle: Duration) -> usize {
        let now = Instant::now();
        let mut reg = self.reg();
        let stale: Vec<u64> = reg
            .conns
            .iter()
            .filter(|(_, c)| {
                c.idle()
                    && if c.served {
                        now.duration_since(c.last) > idle
                    } else {
                        now.duration_since(c.opened) > header
                    }
            })
            .map(|(id, _)| *id)
            .collect();
        for id in &stale {
            if let Some(c) = reg.remove(*id) {
                c.kill.cancel();
            }
        }
        stale.len()
    }

    /// A slot for answering a refusal, or `None` when too many are being answered.
    pub fn refusal_slot(self: &Arc<Self>) -> Option<RefusalSlot> {
        let n = self.refusing.fetch_add(1, Ordering::AcqRel);
        if n >= MAX_REFUSING {
            self.refusing.fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        Some(RefusalSlot(self.clone()))
    }
}

pub struct RefusalSlot(Arc<Connections>);

impl Drop for RefusalSlot {
    fn drop(&mut self) {
        self.0.refusing.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An admitted connection: removed from the registry when dropped.
pub struct Ticket {
    conns: Arc<Connections>,
    id: u64,
    kill: CancellationToken,
}

impl Ticket {
    /// Cancelled when the connection is to be closed (evicted or swept).
    pub fn killed(&self) -> CancellationToken {
        self.kill.clone()
    }

    /// A handle for the connection's requests.
    pub fn handle(&self) -> ConnHandle {
        ConnHandle {
            conns: self.conns.clone(),
            id: self.id,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.conns.reg().remove(self.id);
    }
}

/// Marks requests of one connection busy (cheap to clone into the request handler).
#[derive(Clone)]
pub struct ConnHandle {
    conns: Arc<Connections>,
    id: u64,
}

impl ConnHandle {
    /// The connection is busy until the returned guard is dropped (with the response body).
    pub fn begin(&self) -> Busy {
        if let Some(c) = self.conns.reg().conns.get_mut(&self.id) {
            c.busy += 1;
            c.served = true;
        }
        Busy(self.clone())
    }
}

pub struct Busy(ConnHandle);

impl Drop for Busy {
    fn drop(&mut self) {
        let h = &self.0;
        if let Some(c) = h.conns.reg().conns.get_mut(&h.id) {
            c.busy = c.busy.saturating_sub(1);
            c.last = Instant::now();
        }
    }
}

/// A response body that keeps its connection marked busy until it is sent (or dropped).
pub struct Guarded<B> {
    inner: B,
    _busy: Busy,
}

impl<B> Guarded<B> {
    pub fn new(inner: B, busy: Busy) -> Guarded<B> {
        Guarded { inner, _busy: busy }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Guarded<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn the_oldest_idle_connection_is_closed_first_then_refusals() {
        let conns = Connections::new(3, 2);
        let a = conns.admit(ip(1)).unwrap();
        let b = conns.admit(ip(1)).unwrap();
        // `a` completed a request and is busy with another; `b` never sent one.
        let busy_a = a.handle().begin();
        let c = conns.admit(ip(1)).unwrap();
        assert!(
            b.killed().is_cancelled(),
            "the idle one from the source goes"
        );
        assert!(!a.killed().is_cancelled());
        let _busy_c = c.handle().begin();
        assert_eq!(
            conns.admit(ip(1)).err(),
            Some(Refusal::TooManyFromSource),
            "both from this source are busy"
        );
        let d = conns.admit(ip(2)).unwrap();
        assert_eq!(conns.open(), 3);
        // The total cap: `d` is idle and goes; then everything is busy.
        let e = conns.admit(ip(3)).unwrap();
        assert!(d.killed().is_cancelled());
        let _busy_e = e.handle().begin();
        assert_eq!(conns.admit(ip(4)).err(), Some(Refusal::Busy));
        drop(busy_a);
        let _f = conns.admit(ip(4)).unwrap();
        assert!(a.killed().is_cancelled(), "idle again, so it may go");
        drop((a, b, c, d));
        assert_eq!(conns.open(), 2);
    }

    #[test]
    fn served_connections_outlive_silent_ones() {
        let conns = Connections::new(2, 2);
        let silent = conns.admit(ip(1)).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        let served = conns.admit(ip(1)).unwrap();
        drop(served.handle().begin());
        std::thread::sleep(Duration::from_millis(5));
        let _new = conns.admit(ip(1)).unwrap();
        assert!(silent.killed().is_cancelled() && !served.killed().is_cancelled());
    }

    #[test]
    fn the_sweep_closes_slow_and_idle_connections() {
        let conns = Connections::new(10, 10);
        let slow = conns.admit(ip(1)).unwrap();
        let working = conns.admit(ip(1)).unwrap();
        let _w = working.handle().begin();
        assert_eq!(
            conns.sweep(Duration::from_secs(60), Duration::from_secs(60)),
            0
        );
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            conns.sweep(Duration::from_millis(10), Duration::from_secs(60)),
            1
        );
        assert!(slow.killed().is_cancelled() && !working.killed().is_cancelled());
        let slots: Vec<_> = (0..MAX_REFUSING)
            .filter_map(|_| conns.refusal_slot())
            .collect();
        assert_eq!(slots.len(), MAX_REFUSING);
        assert!(conns.refusal_slot().is_none());
        drop(slots);
        assert!(conns.refusal_slot().is_some());
    }

    #[test]
    fn the_cap_fits_under_the_descriptor_limit() {
        assert_eq!(fitted_cap(1024, Some(1024)), 480);
        assert_eq!(fitted_cap(1024, Some(65536)), 1024);
        assert_eq!(fitted_cap(1024, None), 1024);
        assert_eq!(fitted_cap(1024, Some(10)), 8);
        assert!(ServeLimits::default().check().is_ok());
        let zero = ServeLimits {
            max_sessions: 0,
            ..ServeLimits::default()
        };
        assert!(
            zero.check()
                .unwrap_err()
                .to_string()
                .contains("--max-sessions")
        );
    }
}
