//! How a call goes on after a failure (another attempt after a backoff, or
//! the end) and how it ends: the error redacted and logged, the metadata
//! recorded, the attempt observer told.

use std::time::{Duration, Instant};

use ureq::http::HeaderMap;

use crate::api::ops::Method;
use crate::client::meta::LastResponse;
use crate::error::Error;
use crate::log::{self, Level};

use super::answer::{self, Purpose};
use super::{Exchange, State};

impl Exchange<'_> {
    #[inline(never)]
    pub(super) fn failed_transport(&mut self, e: Error, request_sent: bool) -> Result<(), Error> {
        self.request = None;
        match std::mem::replace(&mut self.state, State::AwaitHead) {
            State::AwaitHead => {
                self.end_watch(Err(&e));
                let attempt = self.tally.attempts - 1;
                let retryable = match e {
                    Error::Network(_) => true,
                    // Sent and unanswered: without a key a retry could be a second,
                    // billable request, so only a GET or a keyed POST goes again.
                    Error::Timeout(_) if request_sent => {
                        self.spec.method == Method::Get || self.tally.key.is_some()
                    }
                    Error::Timeout(_) => true,
                    _ => false,
                };
                let delay = self.client.backoff(attempt);
                if retryable
                    && attempt < self.client.options().max_retries
                    && self.within_deadline(delay)
                {
                    self.retry_in(delay, &e.to_string(), attempt);
                } else {
                    self.finish(Err(e));
                }
            }
            State::Gather(body) => match body.purpose {
                Purpose::Answer => self.body_broke(e),
                Purpose::Failure { status } => self.finish(Err(answer::http_error(status, Err(e)))),
                Purpose::NotAStream => self.finish(Err(e)),
            },
            State::Stream(driver) => {
                let e = driver.failed_read(e);
                self.state = State::Stream(driver);
                self.stream_failed(e);
            }
            other => self.state = other,
        }
        Ok(())
    }

    /// A whole answer's body broke after its head came (short, cut, reset,
    /// stalled): as retryable as a failure before the head, within the same
    /// budget. A stalled body of a POST is retried only when the key tells the
    /// gateway it is the same request.
    #[inline(never)]
    pub(super) fn body_broke(&mut self, e: Error) {
        let attempts = self.tally.attempts;
        let delay = self.client.backoff(attempts.saturating_sub(1));
        if !self.resendable_after_head(&e)
            || attempts > self.client.options().max_retries
            || !self.within_deadline(delay)
        {
            self.finish(Err(e));
            return;
        }
        if log::enabled(Level::Info) {
            let line = format!(
                "gw: retrying {} after a broken answer body ({e}) in {} ms",
                self.spec.path,
                delay.as_millis()
            );
            self.client.log(Level::Info, &line);
        }
        self.backoff(delay);
    }

    /// A stream failed: sent again when it broke before its first event reached
    /// the caller (within the call's one retry budget); once one did, never.
    #[inline(never)]
    pub(super) fn stream_failed(&mut self, e: Error) {
        let State::Stream(driver) = &self.state else {
            self.finish(Err(e));
            return;
        };
        let delivered = driver.delivered();
        // A reset reads as the end of the stream (ureq): say what it was.
        let e = match e {
            Error::Stream { body: None, .. } if self.reset_at_end => Error::Network(format!(
                "connection reset by the server after {delivered} stream event(s)"
            )),
            e => e,
        };
        let attempts = self.tally.attempts;
        let delay = self.client.backoff(attempts.saturating_sub(1));
        if !self.resendable_after_head(&e)
            || delivered > 0
            || attempts > self.client.options().max_retries
            || self
                .deadline
                .is_some_and(|d| Instant::now().checked_add(delay).is_none_or(|t| t >= d))
        {
            self.finish(Err(e));
            return;
        }
        if log::enabled(Level::Info) {
            let line = format!(
                "gw: {} stream broke before its first event ({e}); retrying in {} ms",
                self.spec.name,
                delay.as_millis()
            );
            self.client.log(Level::Info, &line);
        }
        self.backoff(delay);
    }

    /// Whether a request whose answer's head came but whose body then failed
    /// may be sent again: a broken connection may; a stalled body of a POST only
    /// when the key tells the gateway it is the same request.
    pub(super) fn resendable_after_head(&self, failure: &Error) -> bool {
        match failure {
            Error::Network(_) => true,
            Error::Timeout(_) => self.spec.method == Method::Get || self.tally.key.is_some(),
            _ => false,
        }
    }

    pub(super) fn within_deadline(&self, delay: Duration) -> bool {
        !self.client.cancel_token().is_cancelled()
            && self
                .deadline
                .is_none_or(|d| Instant::now().checked_add(delay).is_some_and(|t| t < d))
    }

    #[inline(never)]
    pub(super) fn retry_in(&mut self, delay: Duration, why: &str, attempt: u32) {
        if log::enabled(Level::Info) {
            let line = format!(
                "gw: retrying {} after {why} in {} ms (retry {} of {})",
                self.spec.path,
                delay.as_millis(),
                attempt + 1,
                self.client.options().max_retries
            );
            self.client.log(Level::Info, &line);
        }
        self.backoff(delay);
    }

    pub(super) fn backoff(&mut self, delay: Duration) {
        self.new_attempt = true;
        self.reset_at_end = false;
        self.state = State::Backoff(Instant::now() + delay);
    }

    #[inline(never)]
    pub(super) fn end_watch(&mut self, result: Result<(u16, &HeaderMap), &Error>) {
        if let Some(watch) = self.watch.take() {
            watch.end(result);
        }
    }

    #[inline(never)]
    pub(super) fn record(&self, status: u16, headers: HeaderMap) {
        let meta = LastResponse::new(
            status,
            headers,
            self.tally.attempts,
            self.tally.started.elapsed().as_millis() as u64,
            self.url.clone(),
            self.client.api_key.clone(),
        );
        *self
            .client
            .last_response
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(meta);
    }

    /// Ends the call: an error is redacted, named `Cancelled` when a cancel cut
    /// the call short, and logged.
    #[inline(never)]
    pub(super) fn finish(&mut self, outcome: Result<String, Error>) {
        self.request = None;
        let outcome = outcome.map_err(|e| self.client.failed(self.spec.name, e));
        self.state = State::Done(outcome);
    }

    #[cold]
    #[inline(never)]
    pub(super) fn misuse(&self, what: &str) -> Error {
        let state = match self.state {
            State::Send => "has a request to send",
            State::AwaitHead => "awaits the answer's head",
            State::Stream(ref d) if d.reader().ended() => "was fed the end of the answer's body",
            State::Gather(_) | State::Stream(_) => "is reading the answer's body",
            State::Backoff(_) => "is waiting before its next attempt",
            State::Done(_) => "is over",
        };
        Error::invalid(format!(
            "exchange: {what} was fed while the exchange {state}"
        ))
    }
}
