//! Polling an asynchronous video task until it ends: the loop users would
//! otherwise hand-write, for every task family of the API document.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

use crate::api::ops::{self, Operation};
use crate::error::Error;
use crate::Client;

/// The shortest pause between two polls, whatever `interval_ms` or the server says.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_millis(100);

/// The task families whose status can be queried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskFamily {
    /// `/v1/video/create` and `/v1/video/generations` tasks.
    Unified,
    /// `/v1/videos` (character) videos.
    Character,
    VendorK,
    VendorR,
}

impl TaskFamily {
    pub fn status_op(self) -> &'static Operation {
        match self {
            TaskFamily::Unified => &ops::VIDEO_GENERATION_STATUS,
            TaskFamily::Character => &ops::VIDEO_CHARACTER_STATUS,
            TaskFamily::VendorK => &ops::VENDOR_K_STATUS,
            TaskFamily::VendorR => &ops::VENDOR_R_TASK,
        }
    }

    /// Where the family keeps its status (vendor K wraps its record in `data`).
    fn status_pointer(self) -> &'static str {
        match self {
            TaskFamily::VendorK => "/data/task_status",
            _ => "/status",
        }
    }
}

/// How a status reads: still running, done, or failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Running,
    Succeeded,
    Failed,
}

/// The status words the gateway's families use (`succeed`, `SUCCEEDED`,
/// `completed`, `failed`, `FAILED`, ...), case-insensitively.
pub fn phase_of(status: &str) -> Phase {
    match status.to_ascii_lowercase().as_str() {
        "succeeded" | "succeed" | "success" | "completed" | "complete" | "finished" | "done" => {
            Phase::Succeeded
        }
        "failed" | "failure" | "fail" | "error" | "cancelled" | "canceled" | "expired"
        | "rejected" => Phase::Failed,
        _ => Phase::Running,
    }
}

/// Polling settings (`gw_video_wait`'s `wait_options_json`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WaitOptions {
    /// Pause between two polls.
    pub interval_ms: u64,
    /// Give up after this long (0 = no deadline).
    pub timeout_ms: u64,
}

impl Default for WaitOptions {
    fn default() -> Self {
        WaitOptions {
            interval_ms: 2_000,
            timeout_ms: 600_000,
        }
    }
}

impl WaitOptions {
    pub fn from_json(json: Option<&str>) -> Result<WaitOptions, Error> {
        match json.map(str::trim) {
            None | Some("") => Ok(WaitOptions::default()),
            // Not an array either: serde would read [1] as interval_ms = 1.
            Some(text) if !text.starts_with('{') => Err(Error::invalid_param(
                "wait_options_json",
                "wait_options_json: must be a JSON object",
            )),
            Some(text) => serde_json::from_str(text).map_err(|e| {
                Error::invalid_param("wait_options_json", format!("wait_options_json: {e}"))
            }),
        }
    }
}

impl Client {
    /// Polls a task until its status is terminal. `on_status(status, record)`
    /// sees every poll and returns false to cancel. Returns the final record;
    /// a failed task is `Error::Vendor` carrying the record.
    pub fn wait_for_task(
        &self,
        family: TaskFamily,
        task_id: &str,
        options: &WaitOptions,
        on_status: &mut dyn FnMut(&str, &str) -> bool,
    ) -> Result<String, Error> {
        self.run("video wait", |_| {
            self.wait_inner(family, task_id, options, on_status)
        })
    }

    fn wait_inner(
        &self,
        family: TaskFamily,
        task_id: &str,
        options: &WaitOptions,
        on_status: &mut dyn FnMut(&str, &str) -> bool,
    ) -> Result<String, Error> {
        let started = Instant::now();
        // checked: a timeout too far to represent is no timeout, not a panic.
        let deadline = (options.timeout_ms > 0)
            .then(|| started.checked_add(Duration::from_millis(options.timeout_ms)))
            .flatten();
        let interval = Duration::from_millis(options.interval_ms);
        loop {
            // Each poll ends by the wait's deadline too: a stalled gateway cannot hold it longer.
            let poll_deadline = match (deadline, self.default_deadline()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let (record, hint) = self
                .call_hinted(family.status_op(), &[task_id], None, poll_deadline)
                .map_err(|e| match e {
                    Error::Timeout(_) if deadline.is_some_and(|d| Instant::now() >= d) => {
                        Error::Timeout(format!(
                            "task {task_id} not done after {} ms (timeout_ms)",
                            started.elapsed().as_millis()
                        ))
                    }
                    other => other,
                })?;
            let value: Value = serde_json::from_str(&record)
                .map_err(|e| Error::Decode(format!("task record is not JSON ({e})")))?;
            let status = value
                .pointer(family.status_pointer())
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    Error::Decode(format!(
                        "task record lacks a status at {}",
                        family.status_pointer()
                    ))
                })?
                .to_string();
            if !on_status(&status, &record) {
                return Err(Error::Cancelled);
            }
            match phase_of(&status) {
                Phase::Succeeded => return Ok(record),
                Phase::Failed => {
                    return Err(Error::Vendor {
                        message: format!("task {task_id} ended with status '{status}'"),
                        body: record,
                    })
                }
                Phase::Running => {}
            }
            // The task's own hint wins over the interval; never a tight loop, never
            // longer than a server may ask a retry to wait.
            let cap = Duration::from_millis(self.options().retry_after_cap_ms);
            let interval = match hint {
                Some(h) => h.min(cap),
                None => interval,
            }
            .max(MIN_POLL_INTERVAL);
            if deadline.is_some_and(|d| Instant::now().checked_add(interval).is_none_or(|t| t >= d))
            {
                return Err(Error::Timeout(format!(
                    "task {task_id} still '{status}' after {} ms (timeout_ms)",
                    started.elapsed().as_millis()
                )));
            }
            self.cancel_token().sleep(interval)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_of_every_family() {
        for s in ["succeeded", "succeed", "SUCCEEDED", "completed"] {
            assert_eq!(phase_of(s), Phase::Succeeded, "{s}");
        }
        for s in ["failed", "FAILED"] {
            assert_eq!(phase_of(s), Phase::Failed, "{s}");
        }
        for s in [
            "processing",
            "queued",
            "in_progress",
            "submitted",
            "PENDING",
            "RUNNING",
            "pending",
        ] {
            assert_eq!(phase_of(s), Phase::Running, "{s}");
        }
    }

    #[test]
    fn wait_options_defaults_and_typos() {
        assert_eq!(WaitOptions::from_json(None).unwrap().interval_ms, 2_000);
        assert_eq!(
            WaitOptions::from_json(Some(r#"{"interval_ms":5}"#))
                .unwrap()
                .interval_ms,
            5
        );
        assert!(WaitOptions::from_json(Some(r#"{"interval":5}"#)).is_err());
    }
}
