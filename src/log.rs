//! The process-wide logger (`gw_set_logger`, `gw::set_logger`): one line per
//! request attempt, retry, redirect, stream end and failure.
//!
//! Lines are built only when a logger wants their level, never hold the API
//! key (the client redacts each line before it leaves), and the logger is
//! called with no gw lock held: the sink is cloned out of its slot first.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, RwLock};

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

static SINK: RwLock<Option<LogSink>> = RwLock::new(None);
/// 0 when no logger is set, so the common case costs one atomic load.
static MAX_LEVEL: AtomicI32 = AtomicI32::new(0);

/// Sets (or with `None` removes) the process-wide logger.
pub fn set_logger(sink: Option<LogSink>, max_level: Level) {
    let mut slot = SINK.write().unwrap_or_else(|p| p.into_inner());
    let level = if sink.is_some() { max_level as i32 } else { 0 };
    *slot = sink;
    MAX_LEVEL.store(level, Ordering::Release);
}

pub(crate) fn enabled(level: Level) -> bool {
    (level as i32) <= MAX_LEVEL.load(Ordering::Acquire)
}

/// Emits a line already free of secrets.
pub(crate) fn emit(level: Level, line: &str) {
    if !enabled(level) {
        return;
    }
    let sink = SINK.read().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(sink) = sink {
        sink(level, line);
    }
}
