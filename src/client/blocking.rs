//! The built-in driver: runs an exchange (`client/exchange`) on the calling
//! thread with ureq, blocking. Every `gw_*` call but the exchange's own goes
//! through here. What only a socket knows stays here: the connect, first-byte
//! and read timeouts (ureq's and `net/cancel`'s), the request body written from
//! the caller's memory (`net/direct_body`), a reset ureq reads as an end, and
//! the drain that keeps a finished stream's connection for the pool.

use std::io::Read;
use std::time::{Duration, Instant};

use ureq::http::{self, HeaderValue};
use ureq::{AsSendBody, Body, BodyReader as UreqBodyReader};

use crate::client::exchange::{Exchange, Request, Want};
use crate::client::Client;
use crate::error::Error;
use crate::net::direct_body::{BodyReader, Lease, DIRECT_MIN};
use crate::net::transport_error::{map_io, map_ureq};

/// After a stream's terminal event, how much more of its body is read to keep
/// the connection.
const DRAIN_LIMIT: usize = 64 * 1024;
/// ... and how long that read may take in all (a silence included) before the
/// connection is given up: short, because the caller waits too.
const DRAIN_WAIT: Duration = Duration::from_millis(10);

/// The body of the answer being read.
pub(crate) enum Answer {
    None,
    /// A whole answer, read to its end at once (under the exchange's cap).
    Whole(Body),
    /// A stream's body, read as events are wanted.
    Stream(UreqBodyReader<'static>),
}

/// Runs a plain exchange to its end: the answer, or the error.
pub(crate) fn run(exchange: &mut Exchange<'_>) -> Result<String, Error> {
    let mut answer = Answer::None;
    loop {
        match exchange.step() {
            Want::Send => answer = send(exchange),
            Want::Receive { .. } => receive(exchange, &mut answer),
            Want::Wait(delay) => {
                answer = Answer::None; // frees the connection before the wait
                                       // A cancel ends the wait early; the next step says so.
                let _ = exchange.client().cancel_token().sleep(delay);
            }
            // A plain exchange gives no events; a stream's are not wanted here.
            Want::Event => {}
            Want::Done => return exchange.take_outcome(),
        }
    }
}

/// Feeds what the answer's body gives: a whole body to its end, or one read of
/// a stream.
pub(crate) fn receive(exchange: &mut Exchange<'_>, answer: &mut Answer) {
    match answer {
        Answer::None => {
            let _ = exchange.feed_error(
                Error::Internal("the built-in driver has no answer to read".into()),
                false,
            );
        }
        Answer::Whole(_) => {
            let Answer::Whole(body) = std::mem::replace(answer, Answer::None) else {
                return;
            };
            crate::net::cancel::take_reset_seen();
            feed_read(exchange, &mut body.into_reader());
        }
        Answer::Stream(reader) => feed_read(exchange, reader),
    }
}

/// One `fill_from` fed: the end (ureq ends a body without length at a reset as
/// if the server closed it: the exchange weighs that against what it read), a
/// failure, or more bytes.
fn feed_read(exchange: &mut Exchange<'_>, reader: &mut UreqBodyReader<'static>) {
    match exchange.fill_from(reader) {
        Ok(0) => {
            let reset = crate::net::cancel::take_reset_seen();
            let _ = exchange.feed_end_at(reset);
        }
        Ok(_) => {}
        Err(e) => {
            let _ = exchange.feed_error(map_io(e), true);
        }
    }
}

/// Sends the request the exchange has ready and feeds the answer's head (or
/// the failure); the body is returned to be read.
pub(crate) fn send(exchange: &mut Exchange<'_>) -> Answer {
    let Some(request) = exchange.take_request() else {
        return Answer::None;
    };
    let client = exchange.client().clone();
    let remaining = match exchange.deadline() {
        Some(d) => match d
            .checked_duration_since(Instant::now())
            .filter(|r| !r.is_zero())
        {
            Some(r) => Some(r),
            None => {
                let e = Error::Timeout("total deadline passed".into());
                let _ = exchange.feed_error(e, false);
                return Answer::None;
            }
        },
        None => None,
    };
    // Waiting for the head is bounded by first_byte_timeout_ms, not by the read idle.
    crate::net::cancel::set_read_idle(None);
    let pieces: Vec<&[u8]> = exchange.body().iter().map(|p| &**p).collect();
    let result = run_request(&client, request, &pieces, remaining);
    // The head is in (or the attempt is over): from here every read of the body or
    // stream may be silent for read_timeout_ms at most.
    crate::net::cancel::set_read_idle(client.options().read_timeout());
    let response = match result {
        Ok(response) => response,
        Err(e) => {
            let head_timed_out = matches!(e, ureq::Error::Timeout(ureq::Timeout::RecvResponse));
            let _ = exchange.feed_error(map_ureq(e), head_timed_out);
            return Answer::None;
        }
    };
    let (parts, body) = response.into_parts();
    let _ = exchange.feed_head(parts.status.as_u16(), parts.headers);
    if exchange.reads_stream() {
        Answer::Stream(body.into_reader())
    } else {
        Answer::Whole(body)
    }
}

/// Runs one request with the call's timeouts; the body is written from the
/// exchange's pieces.
fn run_request(
    client: &Client,
    request: Request,
    pieces: &[&[u8]],
    remaining: Option<Duration>,
) -> Result<http::Response<Body>, ureq::Error> {
    let Request { method, url, head } = request;
    let mut parts = http::Request::new(());
    *parts.method_mut() = match method {
        crate::api::ops::Method::Get => http::Method::GET,
        crate::api::ops::Method::Post => http::Method::POST,
    };
    *parts.uri_mut() = url
        .parse::<http::Uri>()
        .map_err(|e| ureq::Error::BadUri(e.to_string()))?;
    *parts.headers_mut() = head;
    match pieces {
        [] => client.run_request(parts.map(|()| ureq::SendBody::none()), remaining),
        [bytes] if bytes.len() < DIRECT_MIN => {
            // What ureq makes of a `&[u8]` body: the bytes and their length.
            let mut bytes: &[u8] = bytes;
            client.run_request(parts.map(|()| bytes.as_body()), remaining)
        }
        pieces => {
            // Written to the socket from where the pieces are (net/direct_body.rs),
            // or copied where TLS must encrypt them. The Content-Length given here
            // makes ureq send the reader's bytes length-delimited, not chunked.
            let _lease = Lease::new(pieces);
            let mut reader = BodyReader::new(pieces);
            parts.headers_mut().append(
                http::header::CONTENT_LENGTH,
                HeaderValue::from(reader.len()),
            );
            client.run_request(
                parts.map(|()| ureq::SendBody::from_reader(&mut reader)),
                remaining,
            )
        }
    }
}

/// After a stream's terminal event: what follows it is usually just the
/// chunked body's end: read it (briefly, boundedly) so the connection is pooled
/// rather than closed (a TLS handshake saved on the next stream).
pub(crate) fn drain(reader: &mut UreqBodyReader<'static>) {
    crate::net::cancel::set_read_idle(Some(DRAIN_WAIT));
    let until = Instant::now() + DRAIN_WAIT;
    let mut left = DRAIN_LIMIT;
    let mut scratch = [0u8; 4096];
    while Instant::now() < until {
        match reader.read(&mut scratch) {
            Ok(0) | Err(_) => return,
            Ok(n) if n > left => return,
            Ok(n) => left -= n,
        }
    }
}
