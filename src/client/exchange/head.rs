//! The answer's head: a redirect followed or refused, a status retried or
//! read, and what reads a 2xx answer (a stream's events or the whole body).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use ureq::http::{self, HeaderMap};

use crate::client::{redirect, retry};
use crate::error::Error;
use crate::log::{self, Level};
use crate::stream::driver::StreamDriver;
use crate::stream::sse::SseParser;

use super::answer::{Gathered, Purpose, MAX_ERROR_BODY};
use super::fed::Fed;
use super::request::{self};
use super::{Exchange, State, MAX_REDIRECTS};

impl Exchange<'_> {
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
        // Location is looked up only where it may lead somewhere.
        let location = matches!(status, 301 | 302 | 303 | 307 | 308)
            .then(|| headers.get(http::header::LOCATION)?.to_str().ok())
            .flatten();
        if let Some(location) = location {
            self.redirect(status, location.to_string());
            return Ok(());
        }
        self.end_watch(Ok((status, &headers)));
        if (200..300).contains(&status) {
            self.tally.poll_after = retry::poll_after(&headers, SystemTime::now);
            let state = self.answer_state(&headers);
            // The map itself goes into the metadata: no copy of it per call.
            self.record(status, headers);
            self.state = state;
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
        let expected = content_length(&headers);
        self.record(status, headers);
        let limit = MAX_ERROR_BODY.min(self.client.options().max_response_bytes);
        self.state = State::Gather(Gathered::new(Purpose::Failure { status }, limit, expected));
        Ok(())
    }

    /// What reads a 2xx answer: a stream's events, or the whole body.
    #[inline(never)]
    pub(super) fn answer_state(&self, headers: &HeaderMap) -> State {
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
    #[inline(never)]
    pub(super) fn redirect(&mut self, status: u16, location: String) {
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
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
}
