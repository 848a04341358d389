//! What every call keeps while it runs (`Tally`) and the two things only the
//! client's agent does for it: the backoff before a retry and one request on
//! the wire (`run_request`, for the built-in driver).

use std::time::{Duration, Instant};

use ureq::http::{self, HeaderValue, Response};
use ureq::Body;

use crate::client::{retry, Client};

/// What a call has done so far: for the retry budget and `last_response`.
pub(crate) struct Tally {
    pub started: Instant,
    pub attempts: u32,
    /// The call's `Idempotency-Key`, chosen at its first POST attempt and sent on each.
    pub key: Option<HeaderValue>,
    /// The last attempt timed out waiting for the answer's head: the request was sent.
    pub head_timed_out: bool,
    /// When the successful answer asks to be polled again (task records).
    pub poll_after: Option<Duration>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            started: Instant::now(),
            attempts: 0,
            key: None,
            head_timed_out: false,
            poll_after: None,
        }
    }
}

impl Client {
    /// The backoff before retry number `attempt` (0-based).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        retry::backoff(
            attempt,
            Duration::from_millis(self.options.retry_base_delay_ms),
            Duration::from_millis(self.options.retry_max_delay_ms),
        )
    }

    /// Runs one request with the call's timeouts. The body is a `SendBody` whatever its
    /// source, so ureq's request code is compiled once, not once per body type.
    pub(crate) fn run_request(
        &self,
        request: http::Request<ureq::SendBody<'_>>,
        remaining: Option<Duration>,
    ) -> Result<Response<Body>, ureq::Error> {
        let request = self
            .agent
            .configure_request(request)
            .timeout_global(remaining)
            .timeout_connect(self.options.connect_timeout())
            .timeout_recv_response(self.options.first_byte_timeout())
            .timeout_per_read(None)
            .build();
        self.agent.run(request)
    }
}
