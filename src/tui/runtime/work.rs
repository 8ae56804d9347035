//! Counts the work in flight ([`Busy`]): every task, blocking job and command waiting in a
//! service's channel holds a [`Held`] until it is done, so the headless driver knows when the
//! app has settled.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::task::AbortHandle;

/// The count of work in flight, shared by the runner and its services.
#[derive(Clone, Default)]
pub(super) struct Busy(Arc<AtomicUsize>);

impl Busy {
    pub(super) fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// One more piece of work, counted until the returned guard drops.
    pub(super) fn hold(&self) -> Held {
        self.0.fetch_add(1, Ordering::SeqCst);
        Held(Arc::clone(&self.0))
    }

    /// An async task counted until it ends, however it ends (an aborted task is dropped,
    /// and its guard with it).
    pub(super) fn task(&self, work: impl Future<Output = ()> + Send + 'static) -> AbortHandle {
        let held = self.hold();
        tokio::spawn(async move {
            work.await;
            drop(held);
        })
        .abort_handle()
    }

    /// A job off the async threads, counted until it returns.
    pub(super) fn blocking(&self, work: impl FnOnce() + Send + 'static) {
        let held = self.hold();
        tokio::task::spawn_blocking(move || {
            work();
            drop(held);
        });
    }
}

/// One piece of work in [`Busy`]; dropping it ends it.
pub(super) struct Held(Arc<AtomicUsize>);

impl Held {
    /// Another piece of work on the same count (a task's message still on its way).
    pub(super) fn again(&self) -> Held {
        self.0.fetch_add(1, Ordering::SeqCst);
        Held(Arc::clone(&self.0))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
