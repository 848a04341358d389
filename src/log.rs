//! The process-wide logger (`gw_set_logger`, `gw::set_logger`): one line per
//! request attempt, retry, redirect, stream end and failure.
//!
//! Lines are built only when a logger wants their level, never hold the API
//! key (the client redacts each line before it leaves), and the logger is
//! called with no gw lock held: the sink is cloned out of its slot first.
//! A logger replaced by `set_logger` is waited for: once that returns, the old
//! one is not running anywhere and is never called again (a C caller frees its
//! `user_data` then).

use std::cell::Cell;
use std::sync::atomic::{fence, AtomicI32, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// How much a line matters; a logger set at `max_level` sees that level and below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(i32)]
pub enum Level {
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
    Trace = 5,
}

/// A logger: gets the level and one line of text.
pub type LogSink = Arc<dyn Fn(Level, &str) + Send + Sync>;

/// The installed logger. Only gw holds counts of this `Arc` (the caller may keep
/// clones of the sink inside): the slot's, and one per call running now.
struct Installed {
    sink: LogSink,
}

static SINK: RwLock<Option<Arc<Installed>>> = RwLock::new(None);
/// 0 when no logger is set, so the common case costs one atomic load.
static MAX_LEVEL: AtomicI32 = AtomicI32::new(0);

thread_local! {
    /// Logger calls running on this thread (a logger may call gw, which logs).
    /// Plain data, no destructor: usable from any thread-exit path.
    static IN_LOGGER: Cell<u32> = const { Cell::new(0) };
}

/// Sets (or with `None` removes) the process-wide logger. Returns once the
/// logger it replaces is not running on any thread, except when called from
/// inside a logger call (that call is the old logger running: waiting for it
/// would never end).
pub fn set_logger(sink: Option<LogSink>, max_level: Level) {
    let old = {
        let mut slot = SINK.write().unwrap_or_else(|p| p.into_inner());
        let level = if sink.is_some() { max_level as i32 } else { 0 };
        let old = std::mem::replace(&mut *slot, sink.map(|sink| Arc::new(Installed { sink })));
        MAX_LEVEL.store(level, Ordering::Release);
        old
    };
    // No new count of `old` can be taken now (they are taken under the lock).
    let Some(old) = old else { return };
    if IN_LOGGER.try_with(Cell::get).unwrap_or(0) > 0 {
        return;
    }
    let mut pause = Duration::from_micros(10);
    while Arc::strong_count(&old) > 1 {
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(1));
    }
    // Pairs with the Release of the counts' drops: what the old logger did is done.
    fence(Ordering::Acquire);
}

pub(crate) fn enabled(level: Level) -> bool {
    (level as i32) <= MAX_LEVEL.load(Ordering::Acquire)
}

/// Emits a line already free of secrets.
pub(crate) fn emit(level: Level, line: &str) {
    if !enabled(level) {
        return;
    }
    let installed = SINK.read().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(installed) = installed {
        let _inside = InLogger::enter();
        (installed.sink)(level, line);
    }
}

/// Counts a logger call on this thread for as long as it lives (a panicking
/// Rust logger unwinds through it too).
struct InLogger;

impl InLogger {
    fn enter() -> InLogger {
        let _ = IN_LOGGER.try_with(|n| n.set(n.get() + 1));
        InLogger
    }
}

impl Drop for InLogger {
    fn drop(&mut self) {
        let _ = IN_LOGGER.try_with(|n| n.set(n.get().saturating_sub(1)));
    }
}
