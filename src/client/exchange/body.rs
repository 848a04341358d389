//! Body bytes, the body's end and the transport's failure, as the driver
//! feeds them.

use std::io::{self, Read};
use std::time::Instant;

use crate::error::Error;

use super::answer::{Gathered, Purpose};
use super::{Exchange, State};

impl Exchange<'_> {
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
                let taken = bytes.len().min(driver.reader_mut().room());
                let bytes = &bytes[..taken];
                // The field lines of an event fed whole go from the caller's bytes
                // into the event as the parser reads them; only the rest (the blank
                // line that ends the event, what follows) is copied to the buffer.
                let in_place = driver.parser_mut().take_lines_in_place(bytes);
                let fed = driver.reader_mut();
                fed.took_in_place(in_place);
                fed.push(&bytes[in_place..]);
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
    pub(super) fn check_line_cap(&mut self) {
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
    #[inline(never)]
    pub(super) fn end_gather(&mut self, reset: bool) {
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
}
