//! The exchange: one call's protocol as a state machine that does no I/O.
//!
//! A driver asks it what to do (`step`): send a request (`take_request`, with
//! the body in `body`), wait for bytes, wait a while (backoff), take an event
//! (`current`), or read the outcome (`outcome`). It feeds back what the
//! transport gave: the answer's head (`feed_head`), body bytes in any split
//! (`feed_body`, `fill_from`), the end (`feed_end`) or a failure
//! (`feed_error`). Everything gw decides lives here, once: validation (in
//! `spec.rs`), auth, retries and backoff, idempotency keys, redirects and the
//! cross-origin rule, the total deadline, the SSE parser, chunk assembly, the
//! size caps, the response metadata and the attempt observer.
//!
//! No method blocks, sleeps or reads a socket. The handle's logger and
//! attempt observer (both set by the caller) are the only functions it calls.
//! The built-in driver (ureq, blocking) is `client/blocking.rs`; the C ABI's
//! is `ffi/exchange.rs`.

mod answer;
pub(crate) mod fed;
mod request;
pub(crate) mod spec;

use std::borrow::Cow;
use std::io::{self, Read};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use ureq::http::{self, HeaderMap, HeaderValue};

use crate::api::ops::Method;
use crate::client::call::Tally;
use crate::client::meta::ResponseMeta;
use crate::client::observe::Watch;
use crate::client::{redirect, retry, Client};
use crate::error::Error;
use crate::log::{self, Level};
use crate::stream::driver::{Step, StreamDriver, StreamEvent};
use crate::stream::sse::SseParser;

use answer::{Gathered, Purpose, MAX_ERROR_BODY};
use fed::Fed;
pub use request::Request;
pub(crate) use spec::Spec;

const MAX_REDIRECTS: usize = 5;

/// What the driver is to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Send the request `take_request` gives, then feed its answer.
    Send,
    /// Feed what the transport gives: the head, body bytes, the end or a
    /// failure. `wait`: step again after this long at the latest, with or
    /// without input (the deadline or a read timer falls due then).
    Receive { wait: Option<Duration> },
    /// Step again after this long (a backoff before the next attempt).
    Wait(Duration),
    /// An event is ready (`current`).
    Event,
    /// The call is over (`outcome`).
    Done,
}

/// Where the exchange stands.
enum State {
    /// A request is ready to go (`take_request`).
    Send,
    /// The request went: its answer's head is awaited.
    AwaitHead,
    /// A whole answer is being gathered.
    Gather(Gathered),
    Stream(Box<StreamDriver<Fed>>),
    /// Waiting until then before the next attempt.
    Backoff(Instant),
    Done(Result<String, Error>),
}

/// One call's protocol. See the module documentation.
pub struct Exchange<'b> {
    client: Client,
    spec: Spec<'b>,
    deadline: Option<Instant>,
    tally: Tally,
    /// Whether the exchange itself times the wait for the head and the silences
    /// of the body (first_byte_timeout_ms, read_timeout_ms): not when the driver's
    /// sockets do (the built-in driver).
    times_reads: bool,
    /// The URL of the hop (never with the key), whether the chain is still on the
    /// base URL's origin, and the redirects followed in this attempt.
    url: String,
    trusted: bool,
    redirects: usize,
    /// The next `Send` starts an attempt (not a redirect hop).
    new_attempt: bool,
    request: Option<Request>,
    watch: Option<Watch>,
    state: State,
    /// When the request went or bytes last came (the read timers).
    last_input: Instant,
    /// The last step gave an event.
    has_event: bool,
    /// The body ended at a connection reset (the built-in driver's reading).
    reset_at_end: bool,
}

impl<'b> Exchange<'b> {
    /// An exchange for `spec` on `client`, with the handle's total deadline.
    /// Refused (Cancelled) on a cancelled handle.
    pub(crate) fn new(client: &Client, spec: Spec<'b>) -> Result<Exchange<'b>, Error> {
        client.cancel_token().check()?;
        Ok(Exchange {
            deadline: client.default_deadline(),
            client: client.clone(),
            spec,
            tally: Tally::new(),
            times_reads: true,
            url: String::new(),
            trusted: true,
            redirects: 0,
            new_attempt: true,
            request: None,
            watch: None,
            state: State::Send,
            last_input: Instant::now(),
            has_event: false,
            reset_at_end: false,
        })
    }

    /// With the total deadline given (task polling shares one across calls).
    pub(crate) fn until(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// For a driver whose sockets bound the wait for the head and the silences
    /// of the body (the built-in one): the exchange then times only the total.
    pub(crate) fn sockets_time_reads(mut self) -> Self {
        self.times_reads = false;
        self
    }

    /// The request body copied: free of the caller's text, for an exchange
    /// that outlives the call that made it.
    pub(crate) fn into_owned(self) -> Exchange<'static> {
        let Exchange {
            client,
            spec,
            deadline,
            tally,
            times_reads,
            url,
            trusted,
            redirects,
            new_attempt,
            request,
            watch,
            state,
            last_input,
            has_event,
            reset_at_end,
        } = self;
        Exchange {
            client,
            spec: spec.into_owned(),
            deadline,
            tally,
            times_reads,
            url,
            trusted,
            redirects,
            new_attempt,
            request,
            watch,
            state,
            last_input,
            has_event,
            reset_at_end,
        }
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The operation's name (`chat`, `request`, ...), for messages.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// The request body's pieces, sent one after the other (the same on every
    /// attempt and hop); empty without a body.
    pub fn body(&self) -> &[Cow<'b, [u8]>] {
        self.spec.body_pieces()
    }

    pub fn body_len(&self) -> u64 {
        self.body().iter().map(|p| p.len() as u64).sum()
    }

    /// The User-Agent gw sends (a driver sets it as its stack allows).
    pub fn user_agent(&self) -> &str {
        &self.client.user_agent
    }

    /// Whether the answer's body is being read as a stream of events.
    pub(crate) fn reads_stream(&self) -> bool {
        matches!(self.state, State::Stream(_))
    }

    /// The answer's `poll-after` hint (task polling).
    pub(crate) fn poll_after(&self) -> Option<Duration> {
        self.tally.poll_after
    }

    /// What the driver is to do next. Cheap where an event is already read:
    /// no clock, no allocation.
    #[inline(always)]
    pub fn step(&mut self) -> Want {
        self.has_event = false;
        // The way nearly every step of a stream goes: the next event lies in the
        // bytes already fed.
        if let State::Stream(driver) = &mut self.state {
            if !driver.reader().ended() && !self.client.cancel_token().is_cancelled() {
                // A line still unfinished since the parser last looked is not looked
                // at again whole: only what was fed since is searched for its end.
                let step = if driver.reader_mut().still_no_line_end() {
                    driver.step_without_read()
                } else {
                    driver.step_buffered()
                };
                match step {
                    Ok(Some(Step::Event)) => {
                        self.has_event = true;
                        return Want::Event;
                    }
                    other => return self.stream_stepped(other),
                }
            }
        }
        self.step_general()
    }

    /// What a stream's step that gave no event leads to.
    #[inline(never)]
    fn stream_stepped(&mut self, step: Result<Option<Step>, Error>) -> Want {
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
    fn stream_done(&mut self) {
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
    fn step_general(&mut self) -> Want {
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
    fn receive(&mut self) -> Want {
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
                self.end_watch(Err(&e));
                self.finish(Err(e));
                None
            }
        }
    }

    /// As `take_request`, keeping the request in the exchange (`request`): for a
    /// driver that reads it in place (the C ABI).
    pub(crate) fn start_request(&mut self) -> bool {
        self.request = self.take_request();
        self.request.is_some()
    }

    /// The request `start_request` kept.
    pub(crate) fn request(&self) -> Option<&Request> {
        self.request.as_ref()
    }

    fn start_hop(&mut self) -> Result<Request, Error> {
        if self.new_attempt {
            self.new_attempt = false;
            self.redirects = 0;
            self.trusted = true;
            if self.tally.key.is_none() && self.spec.method == Method::Post {
                self.tally.key = match &self.client.idempotency_key {
                    Some(key) => Some(key.clone()),
                    None if self.client.options().idempotency_keys => {
                        HeaderValue::from_str(&crate::client::idempotency::new_key()).ok()
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
        let request = request::build(
            &self.client,
            &request::Hop {
                method: self.spec.method,
                url: &self.url,
                auth: self.trusted.then_some(self.spec.auth),
                content_type: self.spec.content_type(),
                accept: self.spec.accept,
                idempotency_key: self.tally.key.as_ref(),
            },
        )?;
        self.state = State::AwaitHead;
        self.last_input = Instant::now();
        Ok(request)
    }

    /// The answer's head: a redirect is followed (or refused), a status worth
    /// another try is retried, anything else is read. Err only for a head the
    /// exchange was not waiting for.
    pub fn feed_head(&mut self, status: u16, headers: HeaderMap) -> Result<(), Error> {
        if !matches!(self.state, State::AwaitHead) {
            return Err(self.misuse("a response head"));
        }
        self.request = None;
        if self.times_reads {
            self.last_input = Instant::now();
        }
        // The http crate takes any three digits; 600-999 is no HTTP status (nor a GW_*
        // code), so it is the protocol error that 000-099 already is.
        if !(100..=599).contains(&status) {
            let e = Error::Network(format!(
                "HTTP protocol error: status {status} is not an HTTP status (100-599)"
            ));
            return self.failed_transport(e, false);
        }
        let location = headers
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok());
        if let (true, Some(location)) = (matches!(status, 301 | 302 | 303 | 307 | 308), location) {
            self.redirect(status, location.to_string());
            return Ok(());
        }
        self.end_watch(Ok((status, &headers)));
        if (200..300).contains(&status) {
            self.tally.poll_after = retry::poll_after(&headers, SystemTime::now());
            self.record(status, &headers);
            self.state = self.answer_state(&headers);
            return Ok(());
        }
        let attempt = self.tally.attempts - 1;
        let retryable =
            retry::should_retry_header(&headers).unwrap_or(retry::status_is_retryable(status));
        let delay = retry::server_delay(&headers, SystemTime::now())
            .map(|w| {
                w.min(Duration::from_millis(
                    self.client.options().retry_after_cap_ms,
                ))
            })
            .unwrap_or_else(|| self.client.backoff(attempt));
        if retryable && attempt < self.client.options().max_retries && self.within_deadline(delay) {
            self.retry_in(delay, &format!("HTTP {status}"), attempt);
            return Ok(());
        }
        self.record(status, &headers);
        let limit = MAX_ERROR_BODY.min(self.client.options().max_response_bytes);
        self.state = State::Gather(Gathered::new(
            Purpose::Failure { status },
            limit,
            content_length(&headers),
        ));
        Ok(())
    }

    /// What reads a 2xx answer: a stream's events, or the whole body.
    fn answer_state(&self, headers: &HeaderMap) -> State {
        let options = self.client.options();
        let limit = options.max_response_bytes;
        let Some((kind, assemble)) = self.spec.stream else {
            return State::Gather(Gathered::new(
                Purpose::Answer,
                limit,
                content_length(headers),
            ));
        };
        let is_sse = headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
        if !is_sse {
            return State::Gather(Gathered::new(
                Purpose::NotAStream,
                limit,
                content_length(headers),
            ));
        }
        let parser = SseParser::new(Fed::new(options.max_line_bytes), options.max_line_bytes)
            .max_event_bytes(options.max_event_bytes);
        let (token, deadline) = (self.client.cancel_token().clone(), self.deadline);
        let interrupt = move || {
            token.check()?;
            match deadline {
                Some(d) if Instant::now() >= d => Err(Error::Timeout(
                    "total deadline (total_timeout_ms) passed".into(),
                )),
                _ => Ok(()),
            }
        };
        State::Stream(Box::new(
            StreamDriver::new(kind, parser)
                .assembly_limit(usize::try_from(limit).unwrap_or(usize::MAX))
                .assemble(assemble)
                .interrupt(Arc::new(interrupt)),
        ))
    }

    /// A redirect's head: the next hop, or the refusal that ends the call.
    fn redirect(&mut self, status: u16, location: String) {
        // A Location that keeps `?key=` is neither shown nor sent on: gw adds the
        // key itself (once) where it belongs, and never to another origin.
        let next = crate::redact::strip_query_key(&request::resolve_location(&self.url, &location))
            .into_owned();
        let verdict = redirect::judge(
            status,
            self.spec.method,
            &self.url,
            &location,
            &next,
            &self.client.base.origin,
            &self.client.route,
        );
        let refusal = match verdict {
            Err(e) => Some(e),
            // Anywhere else (a path, another parameter) the key would go into a URL.
            Ok(_) if crate::redact::holds(&next, &self.client.api_key) => Some(Error::Network(
                "redirect refused: the Location holds the API key".into(),
            )),
            Ok(_) if self.redirects >= MAX_REDIRECTS => Some(Error::Network(format!(
                "more than {MAX_REDIRECTS} redirects"
            ))),
            Ok(verdict) => {
                // Once the chain leaves the base origin nothing of the caller's follows it.
                self.trusted &= verdict.same_origin;
                None
            }
        };
        if let Some(e) = refusal {
            self.end_watch(Err(&e));
            self.finish(Err(e));
            return;
        }
        if log::enabled(Level::Info) {
            let dropped = if self.trusted {
                ""
            } else {
                " (credentials and custom headers dropped)"
            };
            self.client.log(
                Level::Info,
                &format!("gw: redirect {status} to {next}{dropped}"),
            );
        }
        self.redirects += 1;
        self.url = next;
        self.state = State::Send;
    }

    /// Body bytes as they came, in any split. Returns how many were taken: all
    /// of them, except from a stream whose buffer holds `fed::SOFT_LIMIT` bytes
    /// of whole lines not yet taken as events (step, take the events, feed the
    /// rest). Err for bytes the exchange was not waiting for.
    pub fn feed_body(&mut self, bytes: &[u8]) -> Result<usize, Error> {
        if self.times_reads {
            self.last_input = Instant::now();
        }
        match &mut self.state {
            State::Gather(body) => {
                let taken = bytes.len().min(body.room());
                body.bytes.extend_from_slice(&bytes[..taken]);
                if body.over_limit() {
                    self.end_gather(false);
                }
                Ok(taken)
            }
            // After its end a body takes nothing more.
            State::Stream(driver) if !driver.reader().ended() => {
                let fed = driver.reader_mut();
                let taken = bytes.len().min(fed.room());
                fed.push(&bytes[..taken]);
                self.check_line_cap();
                Ok(taken)
            }
            _ => Err(self.misuse("body bytes")),
        }
    }

    /// Reads body bytes from `reader` straight into the exchange (the built-in
    /// driver: no copy between the transport's reader and gw's buffers). A whole
    /// answer is read to its end (then `feed_end` is due, at Ok(0)); a stream one
    /// read at a time. Ok(0) is the body's end.
    pub(crate) fn fill_from(&mut self, reader: &mut dyn Read) -> io::Result<usize> {
        match &mut self.state {
            State::Gather(body) => {
                let room = body.room() as u64;
                let n = reader.take(room).read_to_end(&mut body.bytes)?;
                if body.over_limit() {
                    self.end_gather(false);
                    return Ok(n.max(1));
                }
                Ok(0)
            }
            State::Stream(driver) => {
                let n = driver.reader_mut().read_from(reader)?;
                self.check_line_cap();
                Ok(n)
            }
            _ => Err(io::Error::other("the exchange awaits no body bytes")),
        }
    }

    /// A stream line with no end in sight over max_line_bytes ends the stream.
    fn check_line_cap(&mut self) {
        if let State::Stream(driver) = &mut self.state {
            if driver.reader_mut().line_over_cap() {
                let limit = self.client.options().max_line_bytes;
                self.stream_failed(Error::TooLarge(format!(
                    "a stream line is over max_line_bytes ({limit} bytes)"
                )));
            }
        }
    }

    /// The body ended (the connection closed it, or its length was reached).
    pub fn feed_end(&mut self) -> Result<(), Error> {
        self.feed_end_at(false)
    }

    /// `feed_end`; `reset`: the transport saw a reset where it reported the end
    /// (ureq ends a body without a length at a reset as if it were closed).
    pub(crate) fn feed_end_at(&mut self, reset: bool) -> Result<(), Error> {
        match &mut self.state {
            State::Gather(_) => {
                self.end_gather(reset);
                Ok(())
            }
            State::Stream(driver) if !driver.reader().ended() => {
                driver.reader_mut().end();
                self.reset_at_end = reset;
                Ok(())
            }
            _ => Err(self.misuse("the end of a body")),
        }
    }

    /// The outcome of a whole answer.
    fn end_gather(&mut self, reset: bool) {
        let State::Gather(body) = std::mem::replace(&mut self.state, State::AwaitHead) else {
            return;
        };
        let purpose = body.purpose;
        match body.outcome(self.spec.reply) {
            // What looks like a bad answer is a broken connection.
            Err(Error::Decode(_)) if reset && purpose == Purpose::Answer => {
                let e = Error::Network(
                    "connection reset by the server while reading the answer".into(),
                );
                self.state = State::Gather(Gathered::new(purpose, 0, None));
                let _ = self.failed_transport(e, true);
            }
            outcome => self.finish(outcome),
        }
    }

    /// The transport failed: `e` is a Network, Timeout or Cancelled error.
    /// `request_sent`: the request went whole and its answer's head did not
    /// come (a POST without an idempotency key is then not sent again: it may
    /// have been taken). Err only where no transport was in use.
    pub fn feed_error(&mut self, e: Error, request_sent: bool) -> Result<(), Error> {
        let body_ended = matches!(&self.state, State::Stream(d) if d.reader().ended());
        if body_ended || matches!(self.state, State::Send | State::Backoff(_) | State::Done(_)) {
            return Err(self.misuse("a transport failure"));
        }
        if matches!(self.state, State::AwaitHead) {
            self.tally.head_timed_out = request_sent && matches!(e, Error::Timeout(_));
        }
        self.failed_transport(e, request_sent)
    }

    fn failed_transport(&mut self, e: Error, request_sent: bool) -> Result<(), Error> {
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
    fn body_broke(&mut self, e: Error) {
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
    fn stream_failed(&mut self, e: Error) {
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
    fn resendable_after_head(&self, failure: &Error) -> bool {
        match failure {
            Error::Network(_) => true,
            Error::Timeout(_) => self.spec.method == Method::Get || self.tally.key.is_some(),
            _ => false,
        }
    }

    fn within_deadline(&self, delay: Duration) -> bool {
        !self.client.cancel_token().is_cancelled()
            && self
                .deadline
                .is_none_or(|d| Instant::now().checked_add(delay).is_some_and(|t| t < d))
    }

    fn retry_in(&mut self, delay: Duration, why: &str, attempt: u32) {
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

    fn backoff(&mut self, delay: Duration) {
        self.new_attempt = true;
        self.reset_at_end = false;
        self.state = State::Backoff(Instant::now() + delay);
    }

    fn end_watch(&mut self, result: Result<(u16, &HeaderMap), &Error>) {
        if let Some(watch) = self.watch.take() {
            watch.end(result);
        }
    }

    fn record(&self, status: u16, headers: &HeaderMap) {
        let meta = ResponseMeta::read(
            status,
            headers,
            self.tally.attempts,
            self.tally.started.elapsed().as_millis() as u64,
            &crate::redact::strip_query_key(&self.url),
            &self.client.api_key,
        );
        *self
            .client
            .last_response
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(meta);
    }

    /// Ends the call: an error is redacted, named `Cancelled` when a cancel cut
    /// the call short, and logged.
    fn finish(&mut self, outcome: Result<String, Error>) {
        self.request = None;
        let outcome = outcome.map_err(|e| self.client.failed(self.spec.name, e));
        self.state = State::Done(outcome);
    }

    fn misuse(&self, what: &str) -> Error {
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

    /// Ends the call with `e` (as any failure: redacted, logged) and returns
    /// that error; every later step says `Done`.
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        self.finish(Err(e));
        match &self.state {
            State::Done(Err(e)) => e.clone(),
            _ => Error::Internal("a failed exchange is not over".into()),
        }
    }

    /// The event of the last step that gave `Want::Event`.
    pub fn current(&self) -> Option<StreamEvent<'_>> {
        match (&self.state, self.has_event) {
            (State::Stream(driver), true) => Some(driver.current()),
            _ => None,
        }
    }

    /// Events handed out so far.
    pub fn delivered(&self) -> usize {
        match &self.state {
            State::Stream(driver) => driver.delivered(),
            _ => 0,
        }
    }

    /// The outcome once `step` said `Done`: the answer (a stream's assembled
    /// final object) or the error.
    pub fn outcome(&self) -> Option<&Result<String, Error>> {
        match &self.state {
            State::Done(outcome) => Some(outcome),
            _ => None,
        }
    }

    /// Takes the outcome (a second take gives an internal error).
    pub(crate) fn take_outcome(&mut self) -> Result<String, Error> {
        match std::mem::replace(
            &mut self.state,
            State::Done(Err(Error::Internal("the outcome was taken".into()))),
        ) {
            State::Done(outcome) => outcome,
            other => {
                self.state = other;
                Err(Error::Internal("the exchange is not over".into()))
            }
        }
    }
}

impl std::fmt::Debug for Exchange<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange")
            .field("operation", &self.spec.name)
            .field("attempts", &self.tally.attempts)
            .field("delivered", &self.delivered())
            .finish_non_exhaustive()
    }
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
}
