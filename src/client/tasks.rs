//! Polling an asynchronous video task until it ends: the loop users would
//! otherwise hand-write, for every task family of the API document.

use std::time::Duration;

use serde::Deserialize;

use crate::api::ops::{self, Operation};
use crate::client::blocking::{self, Answer};
use crate::client::exchange::Want;
use crate::client::task_wait::TaskWait;
use crate::error::Error;
use crate::net::cancel::CallScope;
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
    pub(crate) fn status_pointer(self) -> &'static str {
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
            // Read as serde_json::from_str reads it (the object, then nothing but
            // whitespace), a struct as a map: the derived array path is not compiled in.
            Some(text) => {
                let mut de = serde_json::Deserializer::from_str(text);
                serde::Deserialize::deserialize(crate::client::options::ObjectOnly(&mut de))
                    .and_then(|options| de.end().map(|()| options))
                    .map_err(|e| {
                        Error::invalid_param("wait_options_json", format!("wait_options_json: {e}"))
                    })
            }
        }
    }
}

impl Client {
    /// Polls a task until its status is terminal. `on_status(status, record)`
    /// sees every poll and returns false to cancel. Returns the final record;
    /// a failed task is `Error::Vendor` carrying the record.
    ///
    /// The wait is a `TaskWait` (`task_wait.rs`) run by the built-in driver,
    /// the same state machine `gw_exchange_new_video_wait` hands to others.
    pub fn wait_for_task(
        &self,
        family: TaskFamily,
        task_id: &str,
        options: &WaitOptions,
        on_status: &mut dyn FnMut(&str, &str) -> bool,
    ) -> Result<String, Error> {
        self.cancel_token().check()?;
        let _scope = CallScope::enter(self.cancel_token());
        let mut wait = TaskWait::new(self, family, task_id, options)
            .map_err(|e| self.failed("video wait", e))?
            .sockets_time_reads();
        let mut answer = Answer::None;
        loop {
            match wait.step() {
                Want::Send => answer = blocking::send(wait.poll_mut()),
                Want::Receive { .. } => blocking::receive(wait.poll_mut(), &mut answer),
                Want::Wait(delay) => {
                    answer = Answer::None; // frees the connection before the wait
                                           // A cancel ends the wait early; the next step says so.
                    let _ = self.cancel_token().sleep(delay);
                }
                Want::Event => {
                    let go_on = match wait.current() {
                        Some(event) => on_status(event.event, event.data),
                        None => true,
                    };
                    if !go_on {
                        return Err(self.failed("video wait", Error::Cancelled));
                    }
                }
                Want::Done => return wait.take_outcome(),
            }
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
