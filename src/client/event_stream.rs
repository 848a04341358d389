//! A stream pulled one event at a time (`gw_chat_stream_open`, `gw_stream_next`):
//! the request, the wait for the answer's headers, retries before the first
//! event, and the driver that turns SSE events into gw events.

use std::borrow::Cow;
use std::io::BufReader;
use std::sync::Arc;
use std::time::Instant;

use ureq::http;
use ureq::BodyReader;

use crate::api::ops::{Auth, Method, Operation};
use crate::api::raw_json::JsonText;
use crate::client::call::{Call, Outgoing, Payload, Tally};
use crate::error::Error;
use crate::log::Level;
use crate::net::cancel::{CallScope, CancelToken};
use crate::stream::driver::{self, Step, StreamDriver, StreamEvent, StreamKind};
use crate::stream::sse::SseParser;
use crate::Client;

type Reader = BufReader<BodyReader<'static>>;

/// After the terminal event, how much more of a body is read to keep the connection.
const DRAIN_LIMIT: usize = 64 * 1024;
/// ... and how long that read may take in all (a silence included) before the
/// connection is given up: short, because the caller waits too (a server whose last
/// chunk waits on Nagle and a delayed ACK costs a new connection next time, not
/// 40 ms now; one that trickles bytes after the end cannot hold the call).
const DRAIN_WAIT: std::time::Duration = std::time::Duration::from_millis(10);

/// Where a stream stands.
enum State {
    Running(Box<StreamDriver<Reader>>),
    /// The terminal event was seen by `advance_buffered`: the rest of the body is
    /// still to be read (`end`) before `Done`, by the next `advance`.
    Ending(Box<StreamDriver<Reader>>, String),
    /// The stream broke before its first event (seen by `advance_buffered`) and is
    /// to be sent again, by the next `advance` (`resend`).
    Resend(Error),
    /// The terminal event was seen: the final object (until `finish` takes it).
    Done(String),
    Failed(Error),
}

/// A streaming call whose events the caller pulls. Holds its client (so the
/// handle it was opened on may be freed first) and reads inside that handle's
/// cancel scope, so `Client::cancel` ends a blocked `next_event`.
pub struct EventStream<'b> {
    client: Client,
    token: Arc<CancelToken>,
    /// The call id the stream's socket is registered under (released on drop,
    /// before the connection in `state` closes).
    call: HeldCall,
    kind: StreamKind,
    name: &'static str,
    method: Method,
    path: String,
    auth: Auth,
    /// The request body as sent: the caller's text (borrowed while the stream runs
    /// inside the caller's call, owned by a stream handed out) around gw's edit.
    body: Vec<Cow<'b, [u8]>>,
    deadline: Option<Instant>,
    tally: Tally,
    assemble: bool,
    state: State,
    /// Whether the last step produced an event (`current` is valid).
    has_event: bool,
    /// The process that opened it: a forked child must not read its parent's stream.
    pid: u32,
}

impl<'b> EventStream<'b> {
    /// `assemble`: whether `finish` is to give the assembled final object
    /// (without it a chat stream's memory stays flat however long it runs).
    pub(crate) fn open(
        client: &Client,
        op: &Operation,
        body: &JsonText<'b>,
        assemble: bool,
    ) -> Result<EventStream<'b>, Error> {
        client.cancel_token().check()?;
        let scope = CallScope::enter(client.cancel_token());
        let kind = match op.stream {
            Some(kind) => kind,
            None => {
                return Err(client.failed(
                    op.name,
                    Error::Internal(format!("{} does not stream", op.name)),
                ))
            }
        };
        let prepared = (|| {
            if !body.root().is_object() {
                return Err(Error::invalid_param(
                    "request",
                    "request: must be a JSON object",
                ));
            }
            // gw sets "stream": true: the rules check the rest (gw's value is a boolean),
            // and the caller's text is sent with that one member edited in place, or as
            // it is when it already says so. A stream handed out keeps its own copy
            // (`into_owned`): it may be sent again (a retry before the first event)
            // after the caller's text is gone.
            if client.options().validate {
                crate::api::validate::check_node_except(
                    op.rules,
                    body.root(),
                    "stream",
                    &mut |line| client.log(crate::log::Level::Debug, line),
                )?;
            }
            let bytes = body
                .with_member("stream", "true")
                .unwrap_or_else(|| vec![Cow::Borrowed(body.text().as_bytes())]);
            Ok::<_, Error>((op.path_with(&[])?, bytes))
        })();
        let (path, bytes) = prepared.map_err(|e| client.failed(op.name, e))?;
        let mut stream = EventStream {
            client: client.clone(),
            token: client.cancel_token().clone(),
            call: HeldCall {
                token: client.cancel_token().clone(),
                id: scope.keep(),
            },
            kind,
            name: op.name,
            method: op.method,
            path,
            auth: op.auth,
            body: bytes,
            deadline: client.default_deadline(),
            tally: Tally::new(),
            assemble,
            state: State::Failed(Error::Internal("stream not started".into())),
            has_event: false,
            pid: crate::net::pid::current(),
        };
        let connected = {
            let _scope = CallScope::resume(&stream.token, stream.call.id);
            stream.connect()
        };
        match connected {
            Ok(driver) => {
                stream.state = State::Running(Box::new(driver));
                Ok(stream)
            }
            Err(e) => Err(stream.fail(e)),
        }
    }

    /// The stream with a copy of its request body: free of the caller's text, for
    /// a stream handed out past the call that opened it.
    pub(crate) fn into_owned(self) -> EventStream<'static> {
        let EventStream {
            client,
            token,
            call,
            kind,
            name,
            method,
            path,
            auth,
            body,
            deadline,
            tally,
            assemble,
            state,
            has_event,
            pid,
        } = self;
        EventStream {
            client,
            token,
            call,
            kind,
            name,
            method,
            path,
            auth,
            body: vec![Cow::Owned(body.concat())],
            deadline,
            tally,
            assemble,
            state,
            has_event,
            pid,
        }
    }

    /// Sends the request (retrying as for any call) and checks that the answer is
    /// an event stream.
    fn connect(&mut self) -> Result<StreamDriver<Reader>, Error> {
        let pieces: Vec<&[u8]> = self.body.iter().map(|p| &**p).collect();
        let out = Outgoing {
            method: self.method,
            path: self.path.clone(),
            auth: self.auth,
            body: Some(("application/json", Payload::Pieces(&pieces))),
            accept: "text/event-stream",
        };
        let response = Call::new(&self.client, self.deadline, &mut self.tally).send(&out)?;
        let is_sse = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
        if !is_sse {
            let text = self
                .client
                .read_text(response, self.client.options().max_response_bytes)?;
            return Err(driver::non_stream_answer(&text));
        }
        let reader = BufReader::with_capacity(16 * 1024, response.into_body().into_reader());
        let options = self.client.options();
        let parser =
            SseParser::new(reader, options.max_line_bytes).max_event_bytes(options.max_event_bytes);
        let limit = usize::try_from(options.max_response_bytes).unwrap_or(usize::MAX);
        let (token, deadline) = (self.token.clone(), self.deadline);
        let interrupt = move || {
            token.check()?;
            match deadline {
                Some(d) if Instant::now() >= d => Err(Error::Timeout(
                    "total deadline (total_timeout_ms) passed".into(),
                )),
                _ => Ok(()),
            }
        };
        Ok(StreamDriver::new(self.kind, parser)
            .assembly_limit(limit)
            .assemble(self.assemble)
            .interrupt(Arc::new(interrupt))
            .io_errors(crate::net::transport_error::map_io))
    }

    /// Ends the stream with `e` (named `Cancelled` when a cancel cut it short,
    /// redacted) and returns that error; every later call returns it again.
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        let e = self.client.failed(self.name, e);
        self.state = State::Failed(e.clone());
        self.has_event = false;
        e
    }

    /// Moves to the next event: `Ok(true)` with an event ready (`current`),
    /// `Ok(false)` after the terminal event, or the error that ended the stream.
    pub fn advance(&mut self) -> Result<bool, Error> {
        // Without BUFFERED the step never stops short of a read: never None.
        Ok(self.advance_as::<false>()?.unwrap_or(false))
    }

    /// As `advance`, from the bytes already read only: never reads, sleeps or
    /// connects. `Ok(None)` where `advance` would (the next event is not whole in
    /// the read buffer, the body after the terminal event is still to be read, a
    /// resend is due); else what `advance` would give. Mixed in any order with
    /// `advance`, the events and the final object are those of `advance` alone.
    pub fn advance_buffered(&mut self) -> Result<Option<bool>, Error> {
        self.advance_as::<true>()
    }

    #[inline(always)]
    fn advance_as<const BUFFERED: bool>(&mut self) -> Result<Option<bool>, Error> {
        self.has_event = false;
        if self.pid != crate::net::pid::current() {
            // Its events are the parent's: refused without a read, and without
            // changing what the parent sees (the state here is this process's copy).
            return Err(Error::invalid(
                "this stream was opened by another process: after fork() only the parent reads it",
            ));
        }
        // The cancel scope and the read timeout are for reads: none without them.
        let _scope = (!BUFFERED).then(|| CallScope::resume(&self.token, self.call.id));
        if !BUFFERED {
            crate::net::cancel::set_read_idle(self.client.options().read_timeout());
        }
        loop {
            let driver = match &mut self.state {
                State::Running(d) => d,
                State::Ending(..) | State::Resend(_) if BUFFERED => return Ok(None),
                State::Ending(..) => {
                    let State::Ending(mut driver, final_object) =
                        std::mem::replace(&mut self.state, State::Done(String::new()))
                    else {
                        unreachable!()
                    };
                    self.end(&mut driver, final_object);
                    return Ok(Some(false));
                }
                State::Resend(_) => {
                    let State::Resend(e) =
                        std::mem::replace(&mut self.state, State::Done(String::new()))
                    else {
                        unreachable!()
                    };
                    self.resend(e)?;
                    continue;
                }
                State::Done(_) => return Ok(Some(false)),
                State::Failed(e) => return Err(e.clone()),
            };
            if self.token.is_cancelled() {
                return Err(self.fail(Error::Cancelled));
            }
            let step = if BUFFERED {
                match driver.step_buffered() {
                    Ok(None) => return Ok(None),
                    Ok(Some(step)) => Ok(step),
                    Err(e) => Err(e),
                }
            } else {
                driver.step()
            };
            match step {
                Ok(Step::Event) => {
                    self.has_event = true;
                    return Ok(Some(true));
                }
                Ok(Step::Done) => {
                    let final_object = driver.take_final().unwrap_or_default();
                    if BUFFERED {
                        // The body's end is read by the next `advance`.
                        let State::Running(driver) =
                            std::mem::replace(&mut self.state, State::Done(String::new()))
                        else {
                            unreachable!()
                        };
                        self.state = State::Ending(driver, final_object);
                        return Ok(None);
                    }
                    let State::Running(mut driver) =
                        std::mem::replace(&mut self.state, State::Done(String::new()))
                    else {
                        unreachable!()
                    };
                    self.end(&mut driver, final_object);
                    return Ok(Some(false));
                }
                Err(e) => {
                    // A reset reads as the end of the stream (ureq): say what it was.
                    // (No read, no reset: never so without one.)
                    let e = match e {
                        Error::Stream { body: None, .. }
                            if !BUFFERED && crate::net::cancel::take_reset_seen() =>
                        {
                            Error::Network(format!(
                                "connection reset by the server after {} stream event(s)",
                                driver.delivered()
                            ))
                        }
                        e => e,
                    };
                    // A stream that breaks before its first event reached the caller is
                    // retried within the call's one retry budget; once one did, never.
                    // Its head came, so the request was sent: the plain calls' rule.
                    let transient =
                        crate::client::call::resendable_after_head(&e, self.method, &self.tally);
                    let budget_left = self.tally.attempts <= self.client.options().max_retries;
                    if !transient || driver.delivered() > 0 || !budget_left {
                        return Err(self.fail(e));
                    }
                    if BUFFERED {
                        // The wait and the new connection are the next `advance`'s.
                        self.state = State::Resend(e);
                        return Ok(None);
                    }
                    self.resend(e)?;
                }
            }
        }
    }

    /// After the terminal event: what follows it is usually just the chunked body's
    /// end: read it (briefly, boundedly) so the connection is pooled rather than
    /// closed (a TLS handshake saved on the next stream). Then `Done`.
    fn end(&mut self, driver: &mut StreamDriver<Reader>, final_object: String) {
        crate::net::cancel::set_read_idle(Some(DRAIN_WAIT));
        driver.drain(DRAIN_LIMIT, Instant::now() + DRAIN_WAIT);
        if crate::log::enabled(Level::Debug) {
            self.client.log(
                Level::Debug,
                &format!(
                    "gw: {} stream ended after {} event(s), {} read the fast way",
                    self.name,
                    driver.delivered(),
                    driver.read_fast()
                ),
            );
        }
        self.state = State::Done(final_object);
    }

    /// Sends the request again after the backoff, for a stream `e` broke before its
    /// first event (within the retry budget): the new stream is `Running`, or the
    /// failure ends the stream.
    fn resend(&mut self, e: Error) -> Result<(), Error> {
        let delay = self.client.backoff(self.tally.attempts - 1);
        if self.deadline.is_some_and(|d| Instant::now() + delay >= d) {
            return Err(self.fail(e));
        }
        self.client.log(
            Level::Info,
            &format!(
                "gw: {} stream broke before its first event ({e}); retrying in {} ms",
                self.name,
                delay.as_millis()
            ),
        );
        self.state = State::Failed(e);
        if let Err(e) = self.token.sleep(delay) {
            return Err(self.fail(e));
        }
        match self.connect() {
            Ok(d) => {
                self.state = State::Running(Box::new(d));
                Ok(())
            }
            Err(e) => Err(self.fail(e)),
        }
    }

    /// Hands every event to `on_event` (false cancels) until the terminal one,
    /// inside one cancel scope for the whole loop (not one per event).
    pub(crate) fn pump(
        &mut self,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<(), Error> {
        let _scope = CallScope::resume(&self.token, self.call.id);
        while self.advance()? {
            let go_on = self.current().is_none_or(|event| on_event(&event));
            if !go_on {
                return Err(self.fail(Error::Cancelled));
            }
        }
        Ok(())
    }

    /// The event of the last `advance` that returned `Ok(true)`.
    pub fn current(&self) -> Option<StreamEvent<'_>> {
        match (&self.state, self.has_event) {
            (State::Running(d), true) => Some(d.current()),
            _ => None,
        }
    }

    /// The next event, or `None` after the terminal one.
    pub fn next_event(&mut self) -> Result<Option<StreamEvent<'_>>, Error> {
        if self.advance()? {
            Ok(self.current())
        } else {
            Ok(None)
        }
    }

    /// Reads what is left (events are not handed out) and returns the assembled
    /// final object, or the error that ended the stream. May be called again.
    pub fn finish(&mut self) -> Result<String, Error> {
        while self.advance()? {}
        match &self.state {
            State::Done(text) => Ok(text.clone()),
            State::Failed(e) => Err(e.clone()),
            State::Running(_) | State::Ending(..) | State::Resend(_) => {
                Err(Error::Internal("stream still running".into()))
            }
        }
    }

    /// Events handed out so far.
    pub fn delivered(&self) -> usize {
        match &self.state {
            State::Running(d) | State::Ending(d, _) => d.delivered(),
            _ => 0,
        }
    }
}

impl std::fmt::Debug for EventStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("operation", &self.name)
            .field("delivered", &self.delivered())
            .finish_non_exhaustive()
    }
}

/// A call id kept past its `CallScope`: released when the stream is dropped. The
/// connection (inside the driver) is dropped with the stream: a stream freed
/// mid-way is closed, never pooled half-read.
struct HeldCall {
    token: Arc<CancelToken>,
    id: u64,
}

impl Drop for HeldCall {
    fn drop(&mut self) {
        self.token.release_call(self.id);
    }
}
