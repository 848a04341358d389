//! Stepping: what the driver is to do next in every state, the timers of a
//! receive, and the start of an attempt or a redirect hop (its request).

use std::time::{Duration, Instant};

use ureq::http::HeaderValue;

use crate::api::ops::Method;
use crate::client::observe::Watch;
use crate::error::Error;
use crate::log::{self, Level};
use crate::stream::driver::Step;

use super::request::{self, Request};
use super::{Exchange, State, Want};

impl Exchange<'_> {
    /// What a stream's step that gave no event leads to.
    #[inline(never)]
    pub(super) fn stream_stepped(&mut self, step: Result<Option<Step>, Error>) -> Want {
        match step {
            Ok(Some(Step::Event)) => {
                self.has_event = true;
                Want::Event
            }
            Ok(Some(Step::Done)) => {
                self.stream_done();
                Want::Done
            }
            Ok(None) => {
                if let State::Stream(driver) = &mut self.state {
                    driver.reader_mut().mark_no_line_end();
                }
                self.receive()
            }
            Err(e) => {
                self.stream_failed(e);
                self.step_general()
            }
        }
    }

    /// The terminal event was read: the final object is the outcome.
    pub(super) fn stream_done(&mut self) {
        let State::Stream(driver) = &mut self.state else {
            return;
        };
        let final_object = driver.take_final().unwrap_or_default();
        if log::enabled(Level::Debug) {
            let line = format!(
                "gw: {} stream ended after {} event(s), {} read the fast way",
                self.spec.name,
                driver.delivered(),
                driver.read_fast()
            );
            self.client.log(Level::Debug, &line);
        }
        self.finish(Ok(final_object));
    }

    /// `step` in every state.
    #[inline(never)]
    pub(super) fn step_general(&mut self) -> Want {
        loop {
            match &mut self.state {
                State::Done(_) => return Want::Done,
                State::Send => {
                    if self.client.cancel_token().is_cancelled() {
                        self.finish(Err(Error::Cancelled));
                        continue;
                    }
                    return Want::Send;
                }
                State::Stream(driver) => {
                    if self.client.cancel_token().is_cancelled() {
                        self.finish(Err(Error::Cancelled));
                        continue;
                    }
                    let step = if driver.reader().ended() {
                        driver.step().map(Some)
                    } else {
                        driver.step_buffered()
                    };
                    match step {
                        Ok(Some(Step::Event)) => {
                            self.has_event = true;
                            return Want::Event;
                        }
                        Ok(Some(Step::Done)) => self.stream_done(),
                        Ok(None) => return self.receive(),
                        Err(e) => self.stream_failed(e),
                    }
                }
                State::AwaitHead | State::Gather(_) => return self.receive(),
                State::Backoff(until) => {
                    let until = *until;
                    if self.client.cancel_token().is_cancelled() {
                        self.finish(Err(Error::Cancelled));
                        continue;
                    }
                    let now = Instant::now();
                    if now < until {
                        return Want::Wait(until - now);
                    }
                    self.state = State::Send;
                }
            }
        }
    }

    /// `Receive`, with the time left before the deadline or a read timer; when
    /// one has passed, the failure it is.
    pub(super) fn receive(&mut self) -> Want {
        if self.client.cancel_token().is_cancelled() {
            self.finish(Err(Error::Cancelled));
            return Want::Done;
        }
        if !self.times_reads {
            // The driver's sockets bound every read by the total deadline too
            // (the built-in one: ureq's global timeout): no clock read per read.
            return Want::Receive { wait: None };
        }
        let now = Instant::now();
        let mut wait = None;
        if let Some(deadline) = self.deadline {
            if now >= deadline {
                let e = Error::Timeout("total deadline (total_timeout_ms) passed".into());
                // An attempt awaiting its head ends here: its observer hears so.
                self.end_watch(Err(&e));
                self.finish(Err(e));
                return Want::Done;
            }
            wait = Some(deadline - now);
        }
        {
            let awaiting_head = matches!(self.state, State::AwaitHead);
            let (limit, what) = if awaiting_head {
                (
                    self.client.options().first_byte_timeout(),
                    "no answer within first_byte_timeout_ms",
                )
            } else {
                (
                    self.client.options().read_timeout(),
                    "no data within read_timeout_ms",
                )
            };
            if let Some(due) = limit.and_then(|l| self.last_input.checked_add(l)) {
                if now >= due {
                    self.tally.head_timed_out = awaiting_head;
                    let _ = self.failed_transport(Error::Timeout(what.into()), awaiting_head);
                    return self.step();
                }
                wait = Some(wait.map_or(due - now, |w: Duration| w.min(due - now)));
            }
        }
        Want::Receive { wait }
    }

    /// The request to send now (after `Want::Send`): it starts the attempt (or
    /// the redirect hop). None when the exchange is not at a `Send`, or when
    /// starting failed (the deadline passed): `step` then says what is next.
    pub fn take_request(&mut self) -> Option<Request> {
        if !matches!(self.state, State::Send) {
            return None;
        }
        match self.start_hop() {
            Ok(request) => Some(request),
            Err(e) => {
                self.hop_refused(e);
                None
            }
        }
    }

    /// A hop that cannot start (the deadline passed, the request cannot be
    /// made) ends the call; its attempt's observer hears so.
    fn hop_refused(&mut self, e: Error) {
        self.end_watch(Err(&e));
        self.finish(Err(e));
    }

    /// As `take_request`, for a driver that reads the request in place (the C
    /// ABI: `request_url`, `each_header`). Where the head is only texts the
    /// client and the exchange already hold, no request (no header map) is
    /// built: the driver copies them out as they are.
    pub(crate) fn start_request(&mut self) -> bool {
        self.request = None;
        self.borrowed = false;
        if !matches!(self.state, State::Send) {
            return false;
        }
        let started = self.begin_hop().and_then(|()| {
            let hop = self.hop();
            if request::borrowable(&self.client, &hop) {
                Ok(None)
            } else {
                request::build(&self.client, &hop).map(Some)
            }
        });
        match started {
            Ok(request) => {
                self.borrowed = request.is_none();
                self.request = request;
                self.sent();
                true
            }
            Err(e) => {
                self.hop_refused(e);
                false
            }
        }
    }

    /// The URL of the request `start_request` started (it holds the key on a
    /// `?key=` operation: never logged).
    pub(crate) fn request_url(&self) -> Option<&str> {
        match &self.request {
            Some(request) => Some(&request.url),
            None if self.borrowed => Some(&self.url),
            None => None,
        }
    }

    /// Each header of the request `start_request` started, in the order sent
    /// (no User-Agent: `user_agent`).
    pub(crate) fn each_header(&self, mut f: impl FnMut(&str, &[u8])) {
        match &self.request {
            Some(request) => {
                for (name, value) in &request.head {
                    f(name.as_str(), value.as_bytes());
                }
            }
            None if self.borrowed => request::each_borrowed(&self.client, &self.hop(), f),
            None => {}
        }
    }

    /// The request's method (every hop's).
    pub(crate) fn method(&self) -> Method {
        self.spec.method
    }

    /// The parts of the hop the last `begin_hop` started.
    fn hop(&self) -> request::Hop<'_> {
        request::Hop {
            method: self.spec.method,
            url: &self.url,
            auth: self.trusted.then_some(self.spec.auth),
            content_type: self.spec.content_type(),
            accept: self.spec.accept,
            idempotency_key: self.tally.key.as_ref(),
        }
    }

    /// The request went: its answer's head is awaited.
    fn sent(&mut self) {
        self.state = State::AwaitHead;
        self.last_input = Instant::now();
    }

    pub(super) fn start_hop(&mut self) -> Result<Request, Error> {
        self.begin_hop()?;
        let request = request::build(&self.client, &self.hop())?;
        self.sent();
        Ok(request)
    }

    /// A hop starts (an attempt's first, or a redirect's): the attempt's count,
    /// URL, key and watch, and the deadline checked.
    fn begin_hop(&mut self) -> Result<(), Error> {
        if self.new_attempt {
            self.new_attempt = false;
            self.redirects = 0;
            self.trusted = true;
            if self.tally.key.is_none() && self.spec.method == Method::Post {
                self.tally.key = match &self.client.idempotency_key {
                    Some(key) => Some(key.clone()),
                    None if self.client.options().idempotency_keys => {
                        HeaderValue::from_bytes(&crate::client::idempotency::new_key_bytes()).ok()
                    }
                    None => None,
                };
            }
            self.tally.attempts += 1;
            self.tally.head_timed_out = false;
            self.url = self.client.base.join(&self.spec.path);
            if log::enabled(Level::Debug) {
                let line = format!(
                    "gw: {} {} (attempt {})",
                    self.spec.method.as_str(),
                    self.url,
                    self.tally.attempts
                );
                self.client.log(Level::Debug, &line);
            }
            self.watch = self.client.observer.clone().map(|o| {
                Watch::start(
                    o,
                    self.spec.method,
                    &self.spec.path,
                    self.tally.attempts,
                    self.body_len(),
                )
            });
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Error::Timeout("total deadline passed".into()));
        }
        Ok(())
    }
}
