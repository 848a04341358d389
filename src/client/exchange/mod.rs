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
//!
//! The files: this one holds the state and the step every event takes;
//! `steps.rs` every other step and the start of an attempt; `head.rs` what an
//! answer's head leads to; `body.rs` the body bytes, its end and transport
//! failures as fed; `failure.rs` retries and the end of a call; `spec.rs` what
//! a call sends, checked; `request.rs` one hop's request; `answer.rs` a whole
//! answer judged; `fed.rs` a stream's fed bytes under the SSE parser.

mod answer;
mod body;
mod failure;
pub(crate) mod fed;
mod head;
mod request;
pub(crate) mod spec;
mod steps;

use std::borrow::Cow;
use std::time::{Duration, Instant};

use crate::client::call::Tally;
use crate::client::observe::Watch;
use crate::client::Client;
use crate::error::Error;
use crate::stream::driver::{CurrentMut, Step, StreamDriver, StreamEvent};

use answer::Gathered;
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
    /// The last `start_request` built no request: its head is the hop's parts,
    /// borrowed (`each_header`).
    borrowed: bool,
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
        // One clock read for the deadline and the read timers' start.
        let now = Instant::now();
        Ok(Exchange {
            deadline: client.default_deadline_from(now),
            client: client.clone(),
            spec,
            tally: Tally::new(),
            times_reads: true,
            url: String::new(),
            trusted: true,
            redirects: 0,
            new_attempt: true,
            request: None,
            borrowed: false,
            watch: None,
            state: State::Send,
            last_input: now,
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
            borrowed,
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
            borrowed,
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
    #[inline(never)]
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

    /// As `current`, as the strings that hold the event (the C ABI reads them
    /// in place).
    pub(crate) fn current_mut(&mut self) -> Option<CurrentMut<'_>> {
        match (&mut self.state, self.has_event) {
            (State::Stream(driver), true) => Some(driver.current_mut()),
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
