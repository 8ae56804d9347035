//! MCP sessions with a cap per token and in total: rmcp's in-memory session manager, wrapped so
//! that creating a session past a cap first expires the session that has been idle longest
//! (no request in flight, the oldest last request). A client of an expired session gets rmcp's
//! usual `404 Session not found` and initializes again. Sessions without requests for
//! `idle` expire on their own (rmcp's keep-alive).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, RestoreOutcome, ServerSseMessage, SessionId,
};

tokio::task_local! {
    /// Who is making the current request (a digest of its token), for the per-token cap.
    pub static CALLER: Arc<str>;
}

#[derive(Debug, thiserror::Error)]
pub enum SessionsError {
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
    #[error("every MCP session is busy; try again shortly")]
    Full,
}

struct Entry {
    caller: Arc<str>,
    last: Instant,
    /// Requests in flight (their response streams open).
    busy: u32,
}

#[derive(Default)]
struct Book {
    sessions: HashMap<SessionId, Entry>,
}

impl Book {
    fn count(&self, caller: &str) -> usize {
        self.sessions
            .values()
            .filter(|e| &*e.caller == caller)
            .count()
    }

    /// The idle session of `caller` (any caller for `None`) whose last request is oldest.
    fn oldest_idle(&self, caller: Option<&str>) -> Option<SessionId> {
        self.sessions
            .iter()
            .filter(|(_, e)| e.busy == 0 && caller.is_none_or(|c| &*e.caller == c))
            .min_by_key(|(_, e)| e.last)
            .map(|(id, _)| id.clone())
    }

    fn touch(&mut self, id: &SessionId) {
        if let Some(e) = self.sessions.get_mut(id) {
            e.last = Instant::now();
        }
    }

    /// The sessions to expire so that one more of `caller` fits; `Err` when they are busy.
    fn make_room(
        &mut self,
        caller: &str,
        per_caller: usize,
        total: usize,
    ) -> Result<Vec<SessionId>, SessionsError> {
        if self.would_refuse(caller, per_caller, total) {
            return Err(SessionsError::Full);
        }
        let mut out = Vec::new();
        while self.count(caller) >= per_caller {
            let id = self.oldest_idle(Some(caller)).ok_or(SessionsError::Full)?;
            self.sessions.remove(&id);
            out.push(id);
        }
        while self.sessions.len() >= total {
            let id = self.oldest_idle(None).ok_or(SessionsError::Full)?;
            self.sessions.remove(&id);
            out.push(id);
        }
        Ok(out)
    }

    fn would_refuse(&self, caller: &str, per_caller: usize, total: usize) -> bool {
        (self.count(caller) >= per_caller && self.oldest_idle(Some(caller)).is_none())
            || (self.sessions.len() >= total && self.oldest_idle(None).is_none())
    }
}

/// rmcp's [`LocalSessionManager`] with caps and idle expiry.
pub struct CappedSessions {
    inner: LocalSessionManager,
    book: Arc<Mutex<Book>>,
    per_caller: usize,
    total: usize,
}

fn lock(book: &Mutex<Book>) -> MutexGuard<'_, Book> {
    book.lock().unwrap_or_else(|e| e.into_inner())
}

impl CappedSessions {
    /// Sessions expire after `idle` without a request. The streams start with their first
    /// message: no SSE priming event (whose empty `data:` some clients fail to parse).
    pub fn new(per_caller: usize, total: usize, idle: Duration) -> CappedSessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        inner.session_config.sse_retry = None;
        CappedSessions {
            inner,
            book: Arc::default(),
            per_caller: per_caller.max(1),
            total: total.max(1),
        }
    }

    pub fn len(&self) -> usize {
        lock(&self.book).sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a new session for `caller` would be refused now (every one in its way busy).
    pub fn full_for(&self, caller: &str) -> bool {
        lock(&self.book).would_refuse(caller, self.per_caller, self.total)
    }

    fn touch(&self, id: &SessionId) {
        lock(&self.book).touch(id);
    }

    fn busy(&self, id: &SessionId) -> SessionBusy {
        if let Some(e) = lock(&self.book).sessions.get_mut(id) {
            e.busy += 1;
            e.last = Instant::now();
        }
        SessionBusy {
            book: self.book.clone(),
            id: id.clone(),
        }
    }
}

/// A request in flight on a session; the session counts as idle again when it is dropped.
struct SessionBusy {
    book: Arc<Mutex<Book>>,
    id: SessionId,
}

impl Drop for SessionBusy {
    fn drop(&mut self) {
        if let Some(e) = lock(&self.book).sessions.get_mut(&self.id) {
            e.busy = e.busy.saturating_sub(1);
            e.last = Instant::now();
        }
    }
}

type SseStream = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>;

/// A response stream that keeps its session busy while it is open.
pub struct Tracked {
    inner: SseStream,
    _busy: Option<SessionBusy>,
}

impl Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().inner.as_mut().poll_next(cx)
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let caller = CALLER
            .try_with(Arc::clone)
            .unwrap_or_else(|_| Arc::from(""));
        let expired = lock(&self.book).make_room(&caller, self.per_caller, self.total)?;
        for id in expired {
            tracing::info!(session = %id, "vault MCP: the session idle longest expires to make room");
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::debug!(error = %e, "closing an expired session");
            }
        }
        let (id, transport) = self.inner.create_session().await?;
        lock(&self.book).sessions.insert(
            id.clone(),
            Entry {
                caller,
                last: Instant::now(),
                busy: 0,
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _busy = self.busy(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        lock(&self.book).sessions.remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let busy = self.busy(id);
        let stream = self.inner.create_stream(id, message).await?;
        Ok(Tracked {
            inner: Box::pin(stream),
            _busy: Some(busy),
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // A standing GET stream does not keep a session from being idle.
        self.touch(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(Tracked {
            inner: Box::pin(stream),
            _busy: None,
        })
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(Tracked {
            inner: Box::pin(stream),
            _busy: None,
        })
    }

    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        // No external store: an unknown session is not found.
        Ok(RestoreOutcome::NotSupported)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(caller: &str, ago_ms: u64, busy: u32) -> Entry {
        Entry {
            caller: Arc::from(caller),
            last: Instant::now() - Duration::from_millis(ago_ms),
            busy,
        }
    }

    #[test]
    fn the_session_idle_longest_makes_room() {
        let mut book = Book::default();
        book.sessions.insert(Arc::from("a1"), entry("a", 300, 0));
        book.sessions.insert(Arc::from("a2"), entry("a", 500, 1));
        book.sessions.insert(Arc::from("a3"), entry("a", 100, 0));
        book.sessions.insert(Arc::from("b1"), entry("b", 900, 0));
        // Per caller: `a2` is older but busy, so `a1` goes.
        assert_eq!(
            book.make_room("a", 3, 10).unwrap(),
            vec![Arc::<str>::from("a1")]
        );
        // In total: the oldest idle of anyone (`b1`).
        assert_eq!(
            book.make_room("c", 10, 3).unwrap(),
            vec![Arc::<str>::from("b1")]
        );
        assert_eq!(book.sessions.len(), 2);
        // Only busy ones left in the way: refused, nothing removed.
        book.sessions.get_mut("a3").unwrap().busy = 1;
        assert!(book.would_refuse("a", 2, 10));
        assert!(matches!(
            book.make_room("a", 2, 10),
            Err(SessionsError::Full)
        ));
        assert_eq!(book.sessions.len(), 2);
        assert!(!book.would_refuse("b", 2, 10));
    }
}
