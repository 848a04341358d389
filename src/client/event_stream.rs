//! A stream pulled one event at a time (`gw_chat_stream_open`, `gw_stream_next`):
//! an exchange (`client/exchange`) in stream mode, driven by the built-in
//! driver (`client/blocking.rs`) one event at a time.

use std::sync::Arc;

use crate::api::ops::Operation;
use crate::api::raw_json::JsonText;
use crate::client::blocking::{self, Answer};
use crate::client::exchange::{Exchange, Spec, Want};
use crate::error::Error;
use crate::net::cancel::{CallScope, CancelToken};
use crate::stream::driver::StreamEvent;
use crate::Client;

/// A streaming call whose events the caller pulls. Holds its client (so the
/// handle it was opened on may be freed first) and reads inside that handle's
/// cancel scope, so `Client::cancel` ends a blocked `next_event`.
pub struct EventStream<'b> {
    exchange: Exchange<'b>,
    /// The stream's body, while it is read (dropped, so closed, at a failure).
    answer: Answer,
    token: Arc<CancelToken>,
    /// The call id the stream's socket is registered under (released on drop,
    /// after the connection in `answer` closes).
    call: HeldCall,
    /// The process that opened it: a forked child must not read its parent's stream.
    pid: u32,
}

impl<'b> EventStream<'b> {
    /// `assemble`: whether `finish` is to give the assembled final object
    /// (without it a chat stream's memory stays flat however long it runs).
    /// Returns once the answer's head came (events are read as pulled).
    pub(crate) fn open(
        client: &Client,
        op: &Operation,
        body: &JsonText<'b>,
        assemble: bool,
    ) -> Result<EventStream<'b>, Error> {
        client.cancel_token().check()?;
        let scope = CallScope::enter(client.cancel_token());
        let exchange = Spec::stream(client, op, body, assemble)
            .and_then(|spec| Exchange::new(client, spec))
            .map_err(|e| client.failed(op.name, e))?
            .sockets_time_reads();
        let mut stream = EventStream {
            exchange,
            answer: Answer::None,
            token: client.cancel_token().clone(),
            call: HeldCall {
                token: client.cancel_token().clone(),
                id: scope.keep(),
            },
            pid: crate::net::pid::current(),
        };
        let _scope = CallScope::resume(&stream.token, stream.call.id);
        // Up to the answer's head (retries before it included): a stream that
        // cannot open fails here, as the blocking open always did.
        loop {
            match stream.exchange.step() {
                Want::Send => stream.answer = blocking::send(&mut stream.exchange),
                Want::Wait(delay) => {
                    stream.answer = Answer::None;
                    let _ = stream.token.sleep(delay);
                }
                Want::Receive { .. } if !stream.exchange.reads_stream() => {
                    blocking::receive(&mut stream.exchange, &mut stream.answer)
                }
                Want::Receive { .. } | Want::Event => return Ok(stream),
                Want::Done => {
                    return match stream.exchange.take_outcome() {
                        Err(e) => Err(e),
                        Ok(_) => Ok(stream),
                    }
                }
            }
        }
    }

    /// The stream with a copy of its request body: free of the caller's text, for
    /// a stream handed out past the call that opened it.
    pub(crate) fn into_owned(self) -> EventStream<'static> {
        let EventStream {
            exchange,
            answer,
            token,
            call,
            pid,
        } = self;
        EventStream {
            exchange: exchange.into_owned(),
            answer,
            token,
            call,
            pid,
        }
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
            crate::net::cancel::set_read_idle(self.exchange.client().options().read_timeout());
        }
        loop {
            match self.exchange.step() {
                Want::Event => return Ok(Some(true)),
                Want::Done => {
                    if let Answer::Stream(reader) = &mut self.answer {
                        if self.exchange.outcome().is_some_and(|o| o.is_ok()) {
                            if BUFFERED {
                                return Ok(None); // the drain reads: the next advance's
                            }
                            blocking::drain(reader);
                        }
                    }
                    self.answer = Answer::None;
                    return match self.exchange.outcome() {
                        Some(Ok(_)) => Ok(Some(false)),
                        Some(Err(e)) => Err(e.clone()),
                        None => Err(Error::Internal("stream not over at its end".into())),
                    };
                }
                _ if BUFFERED => return Ok(None),
                Want::Receive { .. } => blocking::receive(&mut self.exchange, &mut self.answer),
                Want::Send => self.answer = blocking::send(&mut self.exchange),
                Want::Wait(delay) => {
                    self.answer = Answer::None;
                    let _ = self.token.sleep(delay);
                }
            }
        }
    }

    /// Ends the stream with `e` (named `Cancelled` when a cancel cut it short,
    /// redacted) and returns that error; every later call returns it again.
    pub(crate) fn fail(&mut self, e: Error) -> Error {
        self.answer = Answer::None;
        self.exchange.fail(e)
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
        self.exchange.current()
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
        match self.exchange.outcome() {
            Some(outcome) => outcome.clone(),
            None => Err(Error::Internal("stream still running".into())),
        }
    }

    /// Events handed out so far.
    pub fn delivered(&self) -> usize {
        self.exchange.delivered()
    }
}

impl std::fmt::Debug for EventStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("operation", &self.exchange.name())
            .field("delivered", &self.delivered())
            .finish_non_exhaustive()
    }
}

/// A call id kept past its `CallScope`: released when the stream is dropped. The
/// connection (`answer`) is dropped with the stream, before this: a stream freed
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
