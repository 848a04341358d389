//! Waiting for a video task as an exchange: the poll loop of
//! `Client::wait_for_task` (status polls, the interval and the server's poll
//! hint, the wait's deadline, gw's terminal statuses) as a state machine that
//! does no I/O, so any driver can run it as it runs one call.
//!
//! Each poll is a fresh single-call `Exchange` (its retries, redirects and
//! deadlines stay its own): while one is in flight its `Send` / `Receive` /
//! `Wait` steps are the wait's. When its record comes the wait says `Event`
//! (the task's status word, the whole record), then either `Done` at a
//! terminal status or `Wait` for the pause before the next poll.
//!
//! The built-in driver runs it for `gw_video_wait` (`Client::wait_for_task`);
//! the C ABI's exchange (`gw_exchange_new_video_wait`) hands it to any other.

use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::http::HeaderMap;

use crate::client::exchange::{Exchange, Spec, Want};
use crate::client::tasks::{phase_of, Phase, TaskFamily, WaitOptions, MIN_POLL_INTERVAL};
use crate::client::Client;
use crate::error::Error;
use crate::stream::driver::{CurrentMut, StreamEvent};

/// The name a wait's failures are logged under (as `gw_video_wait`'s).
const WHAT: &str = "video wait";

/// Where a wait stands.
enum Stage {
    /// A poll is in flight: its exchange's steps are the wait's.
    Poll,
    /// The poll's record came: its event is the current one until the next step.
    Record {
        record: String,
        status: String,
        hint: Option<Duration>,
    },
    /// Pausing until then before the next poll.
    Pause(Instant),
    Done(Result<String, Error>),
}

/// A video task's wait. See the module documentation.
pub struct TaskWait {
    client: Client,
    family: TaskFamily,
    task_id: String,
    interval: Duration,
    started: Instant,
    /// The wait's own deadline (`timeout_ms`); each poll also ends by it.
    deadline: Option<Instant>,
    /// The built-in driver's sockets time each poll's reads.
    sockets_time_reads: bool,
    /// The poll in flight, or the last one.
    poll: Exchange<'static>,
    /// Polls whose record came so far (the event's index).
    polls: usize,
    stage: Stage,
    /// The last step gave the record's event.
    has_event: bool,
}

impl TaskWait {
    /// A wait for `task_id` of `family`, its first poll ready to send. Refused
    /// (nothing sent) on a cancelled handle or a task id no path can hold.
    pub(crate) fn new(
        client: &Client,
        family: TaskFamily,
        task_id: &str,
        options: &WaitOptions,
    ) -> Result<TaskWait, Error> {
        let started = Instant::now();
        // checked: a timeout too far to represent is no timeout, not a panic.
        let deadline = (options.timeout_ms > 0)
            .then(|| started.checked_add(Duration::from_millis(options.timeout_ms)))
            .flatten();
        let poll = new_poll(client, family, task_id, deadline, false)?;
        Ok(TaskWait {
            client: client.clone(),
            family,
            task_id: task_id.to_string(),
            interval: Duration::from_millis(options.interval_ms),
            started,
            deadline,
            sockets_time_reads: false,
            poll,
            polls: 0,
            stage: Stage::Poll,
            has_event: false,
        })
    }

    /// For the built-in driver, whose sockets bound each poll's reads.
    pub(crate) fn sockets_time_reads(mut self) -> Self {
        self.sockets_time_reads = true;
        self.poll = self.poll.sockets_time_reads();
        self
    }

    /// The exchange of the poll in flight (or of the last poll).
    pub(crate) fn poll(&self) -> &Exchange<'static> {
        &self.poll
    }

    /// The same, for a driver that runs it (the built-in one).
    pub(crate) fn poll_mut(&mut self) -> &mut Exchange<'static> {
        &mut self.poll
    }

    /// What the driver is to do next: the poll's `Send`, `Receive` and `Wait`
    /// while one is in flight; `Event` once per poll (its record, `current`);
    /// `Wait` for the pause before the next poll; `Done` at the end (`outcome`).
    pub fn step(&mut self) -> Want {
        self.has_event = false;
        loop {
            match &self.stage {
                Stage::Done(_) => return Want::Done,
                Stage::Poll => match self.poll.step() {
                    // A plain poll gives no events: step it on.
                    Want::Event => continue,
                    Want::Done => {
                        if let Some(want) = self.poll_over() {
                            return want;
                        }
                    }
                    want => return want,
                },
                Stage::Record { .. } => self.record_seen(),
                Stage::Pause(until) => {
                    let until = *until;
                    if self.client.cancel_token().is_cancelled() {
                        self.fail(Error::Cancelled);
                        continue;
                    }
                    let now = Instant::now();
                    if now < until {
                        return Want::Wait(until - now);
                    }
                    match new_poll(
                        &self.client,
                        self.family,
                        &self.task_id,
                        self.deadline,
                        self.sockets_time_reads,
                    ) {
                        Ok(poll) => {
                            self.poll = poll;
                            self.stage = Stage::Poll;
                        }
                        Err(e) => self.fail(e),
                    }
                }
            }
        }
    }

    /// The poll ended: its record's event (`Want::Event`), or the wait's end
    /// (`Want::Done`). None while the poll is not over.
    fn poll_over(&mut self) -> Option<Want> {
        let outcome = self.poll.outcome()?.clone();
        let record = match outcome {
            Ok(record) => record,
            Err(e) => {
                let e = match e {
                    Error::Timeout(_) if self.deadline.is_some_and(|d| Instant::now() >= d) => {
                        Error::Timeout(format!(
                            "task {} not done after {} ms (timeout_ms)",
                            self.task_id,
                            self.started.elapsed().as_millis()
                        ))
                    }
                    other => other,
                };
                self.fail(e);
                return Some(Want::Done);
            }
        };
        match status_of(self.family, &record) {
            Ok(status) => {
                self.stage = Stage::Record {
                    record,
                    status,
                    hint: self.poll.poll_after(),
                };
                self.polls += 1;
                self.has_event = true;
                Some(Want::Event)
            }
            Err(e) => {
                self.fail(e);
                Some(Want::Done)
            }
        }
    }

    /// After the record's event: the end at a terminal status, else the pause
    /// before the next poll (or the timeout, when the pause would pass it).
    fn record_seen(&mut self) {
        let Stage::Record {
            record,
            status,
            hint,
        } = std::mem::replace(&mut self.stage, Stage::Poll)
        else {
            return;
        };
        match phase_of(&status) {
            Phase::Succeeded => {
                self.stage = Stage::Done(Ok(record));
                return;
            }
            Phase::Failed => {
                self.fail(Error::Vendor {
                    message: format!("task {} ended with status '{status}'", self.task_id),
                    body: record,
                });
                return;
            }
            Phase::Running => {}
        }
        // The task's own hint wins over the interval; never a tight loop, never
        // longer than a server may ask a retry to wait.
        let cap = Duration::from_millis(self.client.options().retry_after_cap_ms);
        let interval = match hint {
            Some(h) => h.min(cap),
            None => self.interval,
        }
        .max(MIN_POLL_INTERVAL);
        let now = Instant::now();
        let until = now.checked_add(interval);
        if self.deadline.is_some_and(|d| until.is_none_or(|t| t >= d)) {
            self.fail(Error::Timeout(format!(
                "task {} still '{status}' after {} ms (timeout_ms)",
                self.task_id,
                self.started.elapsed().as_millis()
            )));
            return;
        }
        // A pause too long to represent lasts until a cancel.
        self.stage = Stage::Pause(until.unwrap_or(now + Duration::from_secs(3600 * 24 * 365)));
    }

    /// Ends the wait with `e`: redacted, named `Cancelled` when a cancel cut it
    /// short, and logged, as every failure of a call.
    fn fail(&mut self, e: Error) {
        self.stage = Stage::Done(Err(self.client.failed(WHAT, e)));
    }

    /// The event of the last step that gave `Want::Event`: the task's status
    /// word as its name, the whole record as its data.
    pub fn current(&self) -> Option<StreamEvent<'_>> {
        match (&self.stage, self.has_event) {
            (Stage::Record { record, status, .. }, true) => Some(StreamEvent {
                event: status,
                data: record,
                text_delta: None,
                index: self.polls - 1,
                choice_index: 0,
            }),
            _ => None,
        }
    }

    /// As `current`, as the strings that hold the event (the C ABI reads them
    /// in place).
    pub(crate) fn current_mut(&mut self) -> Option<CurrentMut<'_>> {
        let index = self.polls.saturating_sub(1);
        match (&mut self.stage, self.has_event) {
            (Stage::Record { record, status, .. }, true) => Some(CurrentMut {
                name: status,
                data: record,
                text: None,
                index,
                choice_index: 0,
            }),
            _ => None,
        }
    }

    /// The outcome once `step` said `Done`: the final record, or the error (a
    /// failed task's is `Error::Vendor` with its record).
    pub fn outcome(&self) -> Option<&Result<String, Error>> {
        match &self.stage {
            Stage::Done(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Takes the outcome (a second take gives an internal error).
    pub(crate) fn take_outcome(&mut self) -> Result<String, Error> {
        match std::mem::replace(
            &mut self.stage,
            Stage::Done(Err(Error::Internal("the outcome was taken".into()))),
        ) {
            Stage::Done(outcome) => outcome,
            other => {
                self.stage = other;
                Err(Error::Internal("the wait is not over".into()))
            }
        }
    }

    /// The poll's `start_request`; when starting failed (the deadline
    /// passed, a cancel) the wait is over with that failure.
    pub(crate) fn start_request(&mut self) -> bool {
        if !matches!(self.stage, Stage::Poll) {
            return false;
        }
        if self.poll.start_request() {
            return true;
        }
        if self.poll.outcome().is_some() {
            let _ = self.poll_over();
        }
        false
    }

    /// The poll in flight, or the error a feed between polls is.
    fn polling(&mut self, what: &str) -> Result<&mut Exchange<'static>, Error> {
        let stage = match self.stage {
            Stage::Poll => return Ok(&mut self.poll),
            Stage::Record { .. } => "has a poll's record to hand out",
            Stage::Pause(_) => "is pausing before its next poll",
            Stage::Done(_) => "is over",
        };
        Err(Error::invalid(format!(
            "exchange: {what} was fed while the video wait {stage}"
        )))
    }

    pub(crate) fn feed_head(&mut self, status: u16, headers: HeaderMap) -> Result<(), Error> {
        self.polling("a head")?.feed_head(status, headers)
    }

    pub(crate) fn feed_body(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        self.polling("a body")?.feed_body(bytes)
    }

    pub(crate) fn feed_end(&mut self) -> Result<(), Error> {
        self.polling("the end of a body")?.feed_end()
    }

    /// A failure of the poll's transport; between polls, a driver's cancel
    /// (`Error::Cancelled`, as a progress callback's stop) ends the wait.
    pub(crate) fn feed_error(&mut self, e: Error, request_sent: bool) -> Result<(), Error> {
        if e == Error::Cancelled && matches!(self.stage, Stage::Record { .. } | Stage::Pause(_)) {
            self.fail(e);
            return Ok(());
        }
        self.polling("a failure")?.feed_error(e, request_sent)
    }
}

/// One status poll, ending by the wait's deadline and the handle's
/// total_timeout_ms, whichever comes first: a stalled gateway cannot hold the
/// wait longer.
fn new_poll(
    client: &Client,
    family: TaskFamily,
    task_id: &str,
    deadline: Option<Instant>,
    sockets_time_reads: bool,
) -> Result<Exchange<'static>, Error> {
    let op = family.status_op();
    let poll_deadline = match (deadline, client.default_deadline()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let exchange = Spec::plain(client, op, &[task_id], None)
        .and_then(|spec| Exchange::new(client, spec.into_owned()))
        .map_err(|e| client.failed(op.name, e))?
        .until(poll_deadline);
    Ok(if sockets_time_reads {
        exchange.sockets_time_reads()
    } else {
        exchange
    })
}

/// The status word of a task record, where its family keeps it.
fn status_of(family: TaskFamily, record: &str) -> Result<String, Error> {
    let value: Value = serde_json::from_str(record)
        .map_err(|e| Error::Decode(format!("task record is not JSON ({e})")))?;
    let pointer = family.status_pointer();
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::Decode(format!("task record lacks a status at {pointer}")))
}

/// What a `gw_exchange` drives: one call's exchange, or a video task's wait.
/// It derefs to the exchange of the call in flight (a wait's poll), whose
/// request the driver sends; every step, feed, event and outcome goes through
/// the methods below, which a wait answers itself.
// A call's exchange stays inline (no allocation more per call than before);
// the rarer wait is boxed.
#[allow(clippy::large_enum_variant)]
pub enum Driven {
    Call(Exchange<'static>),
    Wait(Box<TaskWait>),
}

impl From<Exchange<'static>> for Driven {
    fn from(exchange: Exchange<'static>) -> Driven {
        Driven::Call(exchange)
    }
}

impl From<TaskWait> for Driven {
    fn from(wait: TaskWait) -> Driven {
        Driven::Wait(Box::new(wait))
    }
}

impl std::ops::Deref for Driven {
    type Target = Exchange<'static>;

    fn deref(&self) -> &Exchange<'static> {
        match self {
            Driven::Call(exchange) => exchange,
            Driven::Wait(wait) => wait.poll(),
        }
    }
}

impl Driven {
    pub fn step(&mut self) -> Want {
        match self {
            Driven::Call(exchange) => exchange.step(),
            Driven::Wait(wait) => wait.step(),
        }
    }

    pub(crate) fn current_mut(&mut self) -> Option<CurrentMut<'_>> {
        match self {
            Driven::Call(exchange) => exchange.current_mut(),
            Driven::Wait(wait) => wait.current_mut(),
        }
    }

    pub fn outcome(&self) -> Option<&Result<String, Error>> {
        match self {
            Driven::Call(exchange) => exchange.outcome(),
            Driven::Wait(wait) => wait.outcome(),
        }
    }

    pub(crate) fn start_request(&mut self) -> bool {
        match self {
            Driven::Call(exchange) => exchange.start_request(),
            Driven::Wait(wait) => wait.start_request(),
        }
    }

    pub(crate) fn feed_head(&mut self, status: u16, headers: HeaderMap) -> Result<(), Error> {
        match self {
            Driven::Call(exchange) => exchange.feed_head(status, headers),
            Driven::Wait(wait) => wait.feed_head(status, headers),
        }
    }

    pub(crate) fn feed_body(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        match self {
            Driven::Call(exchange) => exchange.feed_body(bytes),
            Driven::Wait(wait) => wait.feed_body(bytes),
        }
    }

    pub(crate) fn feed_end(&mut self) -> Result<(), Error> {
        match self {
            Driven::Call(exchange) => exchange.feed_end(),
            Driven::Wait(wait) => wait.feed_end(),
        }
    }

    pub(crate) fn feed_error(&mut self, e: Error, request_sent: bool) -> Result<(), Error> {
        match self {
            Driven::Call(exchange) => exchange.feed_error(e, request_sent),
            Driven::Wait(wait) => wait.feed_error(e, request_sent),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The wait driven in memory: heads and bodies fed by hand, no socket.
    use super::*;
    use crate::client::options::Options;
    use ureq::http::HeaderValue;

    fn client(extra: &str) -> Client {
        let options = Options::from_json(&format!(
            r#"{{"base_url":"http://127.0.0.1:9","api_key":"sk-test-wait","max_retries":0{extra}}}"#
        ))
        .unwrap();
        Client::new(options).unwrap()
    }

    fn options(interval_ms: u64, timeout_ms: u64) -> WaitOptions {
        WaitOptions {
            interval_ms,
            timeout_ms,
        }
    }

    /// Sends the poll due and answers it with `status` and `body`.
    fn answer(wait: &mut TaskWait, status: u16, headers: HeaderMap, body: &str) {
        assert_eq!(wait.step(), Want::Send);
        assert!(wait.start_request());
        let url = wait.poll().request_url().unwrap();
        assert!(url.ends_with("/vendorR/task/t-1"), "{url}");
        assert!(matches!(wait.step(), Want::Receive { .. }));
        wait.feed_head(status, headers).unwrap();
        assert!(matches!(wait.step(), Want::Receive { .. }));
        assert_eq!(wait.feed_body(body.as_bytes()).unwrap(), body.len());
        wait.feed_end().unwrap();
    }

    fn record(status: &str) -> String {
        format!(r#"{{"id":"t-1","status":"{status}"}}"#)
    }

    #[test]
    fn polls_until_a_terminal_status_with_an_event_each() {
        let mut wait =
            TaskWait::new(&client(""), TaskFamily::VendorR, "t-1", &options(150, 0)).unwrap();
        for (i, status) in ["PENDING", "RUNNING"].into_iter().enumerate() {
            answer(&mut wait, 200, HeaderMap::new(), &record(status));
            assert_eq!(wait.step(), Want::Event);
            let event = wait.current().unwrap();
            assert_eq!((event.event, event.index), (status, i));
            assert_eq!(event.data, record(status));
            match wait.step() {
                Want::Wait(d) => assert!(d <= Duration::from_millis(150) && d > Duration::ZERO),
                other => panic!("{other:?}"),
            }
            assert!(wait.current().is_none());
            // Still pausing: nothing is due, nothing may be fed.
            assert!(!wait.start_request());
            assert!(wait.feed_end().is_err());
            std::thread::sleep(Duration::from_millis(150));
        }
        answer(&mut wait, 200, HeaderMap::new(), &record("SUCCEEDED"));
        assert_eq!(wait.step(), Want::Event);
        assert_eq!(wait.step(), Want::Done);
        assert_eq!(wait.outcome(), Some(&Ok(record("SUCCEEDED"))));
    }

    #[test]
    fn a_failed_task_is_vendor_with_the_record() {
        let mut wait =
            TaskWait::new(&client(""), TaskFamily::VendorR, "t-1", &options(10, 0)).unwrap();
        answer(&mut wait, 200, HeaderMap::new(), &record("FAILED"));
        assert_eq!(wait.step(), Want::Event);
        assert_eq!(wait.step(), Want::Done);
        match wait.take_outcome() {
            Err(Error::Vendor { message, body }) => {
                assert_eq!(message, "task t-1 ended with status 'FAILED'");
                assert_eq!(body, record("FAILED"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_hint_wins_capped_and_floored() {
        let mut wait = TaskWait::new(
            &client(r#","retry_after_cap_ms":400"#),
            TaskFamily::VendorR,
            "t-1",
            &options(20_000, 0),
        )
        .unwrap();
        let mut headers = HeaderMap::new();
        headers.insert("openai-poll-after-ms", HeaderValue::from_static("60000"));
        answer(&mut wait, 200, headers, &record("RUNNING"));
        assert_eq!(wait.step(), Want::Event);
        match wait.step() {
            Want::Wait(d) => assert!(d <= Duration::from_millis(400) && d > MIN_POLL_INTERVAL),
            other => panic!("{other:?}"),
        }
        let mut wait =
            TaskWait::new(&client(""), TaskFamily::VendorR, "t-1", &options(1, 0)).unwrap();
        answer(&mut wait, 200, HeaderMap::new(), &record("RUNNING"));
        assert_eq!(wait.step(), Want::Event);
        match wait.step() {
            Want::Wait(d) => assert!(d > MIN_POLL_INTERVAL - Duration::from_millis(10)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_record_without_a_status_is_a_decode_error() {
        let mut wait =
            TaskWait::new(&client(""), TaskFamily::VendorR, "t-1", &options(10, 0)).unwrap();
        answer(&mut wait, 200, HeaderMap::new(), r#"{"id":"t-1"}"#);
        assert_eq!(wait.step(), Want::Done);
        let e = wait.take_outcome().unwrap_err();
        assert_eq!(
            e,
            Error::Decode("task record lacks a status at /status".into())
        );
    }

    #[test]
    fn a_failed_poll_ends_the_wait() {
        let mut wait =
            TaskWait::new(&client(""), TaskFamily::VendorR, "t-1", &options(10, 0)).unwrap();
        assert_eq!(wait.step(), Want::Send);
        assert!(wait.start_request());
        wait.feed_error(Error::Network("refused".into()), false)
            .unwrap();
        assert_eq!(wait.step(), Want::Done);
        assert_eq!(wait.take_outcome(), Err(Error::Network("refused".into())));
    }

    #[test]
    fn a_cancel_in_the_pause_ends_the_wait() {
        let c = client("");
        let mut wait = TaskWait::new(&c, TaskFamily::VendorR, "t-1", &options(10_000, 0)).unwrap();
        answer(&mut wait, 200, HeaderMap::new(), &record("RUNNING"));
        assert_eq!(wait.step(), Want::Event);
        assert!(matches!(wait.step(), Want::Wait(_)));
        c.cancel_token().cancel();
        assert_eq!(wait.step(), Want::Done);
        assert_eq!(wait.take_outcome(), Err(Error::Cancelled));
    }

    #[test]
    fn a_drivers_cancel_between_polls_ends_the_wait() {
        let c = client("");
        let mut wait = TaskWait::new(&c, TaskFamily::VendorR, "t-1", &options(10, 0)).unwrap();
        answer(&mut wait, 200, HeaderMap::new(), &record("RUNNING"));
        assert_eq!(wait.step(), Want::Event);
        assert!(wait.feed_error(Error::Network("x".into()), false).is_err());
        wait.feed_error(Error::Cancelled, false).unwrap();
        assert_eq!(wait.step(), Want::Done);
        assert_eq!(wait.take_outcome(), Err(Error::Cancelled));
        assert!(wait.feed_error(Error::Cancelled, false).is_err(), "over");
    }
}
