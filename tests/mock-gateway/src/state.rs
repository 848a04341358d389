//! Everything the mock remembers between requests: recordings, the fault queue, async task
//! records and the id counter. One mutex, held only for short non-async sections.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use crate::faults::Fault;
use crate::record::RecordedRequest;

/// State shared by the server and the `MockGateway` handle.
pub struct Shared {
    pub api_key: String,
    inner: Mutex<Inner>,
    /// TCP connections accepted since start: how well a client reuses its pool.
    pub connections: std::sync::atomic::AtomicUsize,
}

#[derive(Default)]
struct Inner {
    requests: Vec<RecordedRequest>,
    faults: VecDeque<Fault>,
    tasks: HashMap<String, Task>,
    counter: u64,
    /// Paths are normalised before routing, as a proxy would (`normalize.rs`).
    normalize_paths: bool,
}

/// An asynchronous task (video, vendor job) whose status moves on each time it is polled.
#[derive(Clone, Debug)]
pub struct Task {
    pub model: String,
    pub prompt: String,
    /// Whether the task ends in its family's failed state.
    pub fails: bool,
    pub created: u64,
    /// Status GETs so far, including the current one.
    pub polls: u32,
    /// Family-specific fields echoed in status answers (e.g. `remixed_from_video_id`).
    pub extra: Value,
}

impl Task {
    pub fn new(model: &str, prompt: &str, fails: bool) -> Task {
        Task {
            model: model.to_string(),
            prompt: prompt.to_string(),
            fails,
            created: crate::clock::now_secs(),
            polls: 0,
            extra: Value::Null,
        }
    }

    /// Where the task is: 0 = as created, 1 and 2 = in progress, 3 = terminal.
    /// Every family reaches its terminal state on the third status poll.
    pub fn stage(&self) -> u32 {
        self.polls.min(3)
    }
}

impl Shared {
    pub fn new(api_key: &str) -> Arc<Shared> {
        Arc::new(Shared {
            api_key: api_key.to_string(),
            inner: Mutex::new(Inner::default()),
            connections: Default::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panicking handler must not wedge every later test: ignore poisoning.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Next number for generated ids (`chatcmpl-<n>`, `vtask_<n>`, ...), starting at 1.
    pub fn next_id(&self) -> u64 {
        let mut g = self.lock();
        g.counter += 1;
        g.counter
    }

    pub fn record(&self, req: RecordedRequest) {
        self.lock().requests.push(req);
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// Appends faults; returns how many are now queued.
    pub fn push_faults(&self, faults: Vec<Fault>) -> usize {
        let mut g = self.lock();
        g.faults.extend(faults);
        g.faults.len()
    }

    /// Takes one use of the first fault that applies to this request.
    pub fn take_fault(&self, path: &str, is_stream: bool) -> Option<Fault> {
        self.take_first(|f| f.applies(path, is_stream))
    }

    /// Takes one use of the first queued fault `wanted` accepts.
    fn take_first(&self, wanted: impl Fn(&Fault) -> bool) -> Option<Fault> {
        let mut g = self.lock();
        let i = g.faults.iter().position(wanted)?;
        let f = &mut g.faults[i];
        f.times -= 1;
        let taken = f.clone();
        if taken.times == 0 {
            g.faults.remove(i);
        }
        Some(taken)
    }

    /// Whether a raw fault is queued (raw.rs then peeks at new connections).
    pub fn raw_pending(&self) -> bool {
        self.lock().faults.iter().any(|f| f.action.is_raw())
    }

    /// Takes one use of the first raw fault matching `path`.
    pub fn take_raw_fault(&self, path: &str) -> Option<Fault> {
        self.take_first(|f| {
            f.action.is_raw() && f.matches.as_deref().map_or(true, |m| path.starts_with(m))
        })
    }

    /// The faults still queued, as JSON with their remaining `times`.
    pub fn pending_faults(&self) -> Vec<Value> {
        self.lock()
            .faults
            .iter()
            .map(|f| {
                let mut v = f.source.clone();
                v["times"] = f.times.into();
                v
            })
            .collect()
    }

    pub fn normalize_paths(&self) -> bool {
        self.lock().normalize_paths
    }

    pub fn set_normalize_paths(&self, on: bool) {
        self.lock().normalize_paths = on;
    }

    pub fn reset(&self) {
        *self.lock() = Inner::default();
    }

    pub fn insert_task(&self, id: &str, task: Task) {
        self.lock().tasks.insert(id.to_string(), task);
    }

    pub fn task(&self, id: &str) -> Option<Task> {
        self.lock().tasks.get(id).cloned()
    }

    /// Counts one status poll of task `id` and returns it; None when unknown.
    pub fn poll_task(&self, id: &str) -> Option<Task> {
        let mut g = self.lock();
        let t = g.tasks.get_mut(id)?;
        t.polls += 1;
        Some(t.clone())
    }

    /// Like `poll_task`, but creates the task on its first poll (vendor R accepts any id).
    pub fn poll_or_create(&self, id: &str, make: impl FnOnce() -> Task) -> Task {
        let mut g = self.lock();
        let t = g.tasks.entry(id.to_string()).or_insert_with(make);
        t.polls += 1;
        t.clone()
    }
}
