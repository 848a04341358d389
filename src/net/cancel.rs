//! Cancelling calls from another thread (`gw_client_cancel`).
//!
//! Each client handle owns a `CancelToken`. A call runs inside a `CallScope`
//! that makes the handle's token the calling thread's current one, so the
//! transport (which ureq drives without telling us which call it serves) can
//! register the socket it is using with the token. `cancel()` sets the flag,
//! shuts those sockets down (which wakes a blocked read or write at once) and
//! wakes any sleeper; resolve and connect poll the flag in short slices.
//!
//! The thread-local here is internal to one blocking call on one thread; no
//! information reaches callers through it.

use std::cell::Cell;
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::error::Error;

/// The longest a cancellable wait blocks before it looks at the flag again.
pub(crate) const POLL_SLICE: Duration = Duration::from_millis(10);

/// The cancellation state of one client handle.
#[derive(Default)]
pub struct CancelToken {
    cancelled: AtomicBool,
    /// Sockets in use by calls on this handle, keyed by the call that uses them,
    /// each with the process that opened it (a forked child's copy of this list
    /// names its parent's sockets: never to be shut down from the child).
    sockets: Mutex<Vec<(u64, Weak<TcpStream>, u32)>>,
    /// Wakes sleepers (retry backoff, poll interval) when cancelled.
    wake: Condvar,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl CancelToken {
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Cancels every call in flight on this handle and every later one.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
        let sockets = lock(&self.sockets);
        let me = crate::net::pid::current();
        for (_, socket, owner) in sockets.iter() {
            if *owner != me {
                // Shared with the parent since fork(): a shutdown would end the parent's call.
                continue;
            }
            if let Some(socket) = socket.upgrade() {
                // Wakes a blocked read/write with EOF or an error; the connection is dead
                // from here on, so the pool's liveness probe will not hand it out again.
                let _ = socket.shutdown(Shutdown::Both);
            }
        }
        drop(sockets);
        self.wake.notify_all();
    }

    /// Records that `call` uses `socket` (opened by process `owner`, which is
    /// this one: the transport refuses I/O on another's); shuts it down at once
    /// when already cancelled.
    fn register(&self, call: u64, socket: &Arc<TcpStream>, owner: u32) {
        let mut sockets = lock(&self.sockets);
        sockets.retain(|(_, s, _)| s.strong_count() > 0);
        sockets.push((call, Arc::downgrade(socket), owner));
        // Checked under the lock `cancel` takes: a socket registered while it runs is
        // either in its list or sees the flag here.
        if self.is_cancelled() {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }

    /// Forgets `socket`, whatever call it served. Under the lock `cancel` takes:
    /// once this returned, no cancel of this token touches it; a cancel that ran
    /// before has shut it down, which the pool's hand-out probe sees.
    fn unregister(&self, socket: &Arc<TcpStream>) {
        let target = Arc::as_ptr(socket);
        lock(&self.sockets).retain(|(_, s, _)| s.strong_count() > 0 && s.as_ptr() != target);
    }

    /// Forgets the sockets of a finished call: a pooled connection must not be shut
    /// down later by a cancel meant for a call that no longer uses it.
    pub(crate) fn release_call(&self, call: u64) {
        lock(&self.sockets).retain(|(c, s, _)| *c != call && s.strong_count() > 0);
    }

    /// `Err(Cancelled)` when cancelled, else Ok.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Sleeps for `duration` unless cancelled first (then `Err(Cancelled)` at once).
    pub fn sleep(&self, duration: Duration) -> Result<(), Error> {
        // A wait too long to represent is a wait until cancelled.
        let until = Instant::now().checked_add(duration);
        let mut guard = lock(&self.sockets);
        loop {
            if self.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let now = Instant::now();
            let until = match until {
                Some(t) if now >= t => return Ok(()),
                Some(t) => t,
                None => now + Duration::from_secs(3600),
            };
            guard = self
                .wake
                .wait_timeout(guard, until - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere cannot leave this list inconsistent: keep going.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The current call of this thread: a token (one strong count of its `Arc`,
/// held as a raw pointer) and the call id. A `Cell` of plain data on purpose:
/// a thread-local with a destructor would register one on first use, and a
/// gw call from a thread-key destructor (after the thread's destructors ran)
/// would leak that registration or find the slot destroyed. This one has no
/// destructor and is always there; scopes restore it to `None` on the way out.
type Slot = Option<(*const CancelToken, u64)>;

thread_local! {
    static CURRENT: Cell<Slot> = const { Cell::new(None) };
    /// The longest silence allowed on a read now: None while waiting for an
    /// answer's head (first_byte_timeout_ms bounds that), read_timeout_ms after.
    static READ_IDLE: std::cell::Cell<Option<Duration>> = const { std::cell::Cell::new(None) };
}

thread_local! {
    /// A read on this thread's call saw ECONNRESET. ureq reads a reset as the end of
    /// a body without length, so the call asks here to name it a network failure.
    static RESET_SEEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(crate) fn note_reset() {
    let _ = RESET_SEEN.try_with(|c| c.set(true));
}

/// Whether a reset was seen since the last call of this; clears it.
pub(crate) fn take_reset_seen() -> bool {
    RESET_SEEN.try_with(|c| c.replace(false)).unwrap_or(false)
}

/// Sets the idle limit for reads on this thread (see `READ_IDLE`).
pub(crate) fn set_read_idle(limit: Option<Duration>) {
    let _ = READ_IDLE.try_with(|c| c.set(limit));
}

pub(crate) fn read_idle() -> Option<Duration> {
    READ_IDLE.try_with(|c| c.get()).ok().flatten()
}

static NEXT_CALL: AtomicU64 = AtomicU64::new(1);

/// Puts `value` in this thread's slot and returns what was there (each side
/// owning one strong count).
fn swap_current(value: Option<(Arc<CancelToken>, u64)>) -> Option<(Arc<CancelToken>, u64)> {
    let raw = value.map(|(token, call)| (Arc::into_raw(token), call));
    let old = CURRENT.try_with(|c| c.replace(raw)).unwrap_or(raw);
    // SAFETY: every pointer in the slot came from Arc::into_raw above and owns one count.
    old.map(|(ptr, call)| (unsafe { Arc::from_raw(ptr) }, call))
}

/// Runs `f` on the current token, if any, without taking its count.
fn with_current<T>(f: impl FnOnce(&CancelToken, u64) -> T) -> Option<T> {
    let (ptr, call) = CURRENT.try_with(Cell::get).ok().flatten()?;
    // SAFETY: the slot owns a strong count of this token while it holds the pointer,
    // and only this thread changes the slot (not while `f` runs: nothing in it does).
    Some(f(unsafe { &*ptr }, call))
}

/// A weak reference to the current token, if any.
fn current_weak() -> Option<Weak<CancelToken>> {
    let (ptr, _) = CURRENT.try_with(Cell::get).ok().flatten()?;
    // SAFETY: the slot owns a strong count while it holds the pointer; the one
    // taken here is given back when `token` drops.
    let token = unsafe {
        Arc::increment_strong_count(ptr);
        Arc::from_raw(ptr)
    };
    Some(Arc::downgrade(&token))
}

/// Makes a token the calling thread's current one for as long as it lives.
/// Scopes nest (a task wait runs polls); the outer one is restored on drop.
pub(crate) struct CallScope {
    call: u64,
    previous: Option<(Arc<CancelToken>, u64)>,
    /// The token whose call leaving the scope ends (None: a pull stream's call
    /// outlives its scopes).
    release: Option<Arc<CancelToken>>,
    /// Entered inside a scope of the same call: leaving it changes nothing.
    nested: bool,
}

impl CallScope {
    pub(crate) fn enter(token: &Arc<CancelToken>) -> CallScope {
        let call = NEXT_CALL.fetch_add(1, Ordering::Relaxed);
        Self::with_call(token, call, true)
    }

    /// Re-enters a call that outlives its scopes (a pull stream between two reads).
    pub(crate) fn resume(token: &Arc<CancelToken>, call: u64) -> CallScope {
        Self::with_call(token, call, false)
    }

    fn with_call(token: &Arc<CancelToken>, call: u64, release: bool) -> CallScope {
        let current = CURRENT.try_with(Cell::get).ok().flatten();
        if !release && current == Some((Arc::as_ptr(token), call)) {
            // Already inside this call (a stream's event loop resumes it per event):
            // nothing to swap, and the outer scope restores the slot.
            return CallScope {
                call,
                previous: None,
                release: None,
                nested: true,
            };
        }
        set_read_idle(None);
        take_reset_seen();
        let previous = swap_current(Some((token.clone(), call)));
        CallScope {
            call,
            previous,
            release: release.then(|| token.clone()),
            nested: false,
        }
    }

    /// Leaves the scope but keeps the call going; the caller releases it later
    /// (`CancelToken::release_call`). Returns the call id.
    pub(crate) fn keep(mut self) -> u64 {
        self.release = None;
        self.call
    }
}

impl Drop for CallScope {
    fn drop(&mut self) {
        if self.nested {
            return;
        }
        if let Some(token) = self.release.take() {
            token.release_call(self.call);
        }
        drop(swap_current(self.previous.take()));
    }
}

/// Which call's cancel scope a socket is in, kept by the transport.
#[derive(Default)]
pub(crate) struct Attachment {
    /// The call it was last registered for (0: none).
    call: u64,
    token: Weak<CancelToken>,
}

impl Attachment {
    /// The transport's view of the current call: registers `socket` (opened by
    /// process `owner`) once per call and tells whether the call was cancelled.
    pub(crate) fn attach_current(&mut self, socket: &Arc<TcpStream>, owner: u32) -> bool {
        let (cancelled, fresh) = with_current(|token, call| {
            let fresh = self.call != call;
            if fresh {
                token.register(call, socket, owner);
                self.call = call;
            }
            (token.is_cancelled(), fresh)
        })
        .unwrap_or((false, false));
        if fresh {
            if let Some(token) = current_weak() {
                self.token = token;
            }
        }
        cancelled
    }

    /// Takes `socket` out of the cancel scope it is in: done before it goes back
    /// to the pool, where another handle's call may get it.
    pub(crate) fn detach(&mut self, socket: &Arc<TcpStream>) {
        if let Some(token) = std::mem::take(&mut self.token).upgrade() {
            token.unregister(socket);
        }
        self.call = 0;
    }
}

/// Whether the current call (if any) was cancelled: for waits that poll.
pub(crate) fn current_cancelled() -> bool {
    with_current(|token, _| token.is_cancelled()).unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_resumed_inside_its_own_call_leaves_the_outer_one_in_place() {
        let token = Arc::new(CancelToken::default());
        let current = || CURRENT.with(Cell::get).map(|(_, call)| call);
        let outer = CallScope::enter(&token);
        let call = outer.call;
        {
            let inner = CallScope::resume(&token, call);
            assert!(inner.nested);
            assert_eq!(current(), Some(call));
        }
        // The inner scope's end did not clear the slot: the outer call is still current.
        assert_eq!(current(), Some(call));
        {
            let other = CallScope::resume(&token, call + 1000);
            assert!(!other.nested);
            assert_eq!(current(), Some(call + 1000));
        }
        assert_eq!(current(), Some(call));
        drop(outer);
        assert_eq!(current(), None);
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "every count the slot took was given back"
        );
    }

    #[test]
    fn sleep_returns_early_when_cancelled() {
        let token = Arc::new(CancelToken::default());
        let t2 = token.clone();
        let started = Instant::now();
        let h = std::thread::spawn(move || t2.sleep(Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(30));
        token.cancel();
        assert_eq!(h.join().unwrap(), Err(Error::Cancelled));
        assert!(started.elapsed() < Duration::from_secs(2));
        // Later sleeps fail at once.
        assert_eq!(token.sleep(Duration::from_secs(10)), Err(Error::Cancelled));
    }

    #[test]
    fn sleep_runs_its_course_when_not_cancelled() {
        let token = CancelToken::default();
        let started = Instant::now();
        assert_eq!(token.sleep(Duration::from_millis(20)), Ok(()));
        assert!(started.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn scopes_nest_and_restore() {
        let a = Arc::new(CancelToken::default());
        let b = Arc::new(CancelToken::default());
        let outer = CallScope::enter(&a);
        {
            let _inner = CallScope::enter(&b);
            b.cancel();
            assert!(current_cancelled());
        }
        assert!(!current_cancelled());
        drop(outer);
        assert!(!current_cancelled());
    }
}
