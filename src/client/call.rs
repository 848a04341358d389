//! One call's machinery, shared by plain and streamed calls: `Call` (a
//! handle, the call's deadline and its `Tally` of what it has done so far)
//! sends what goes on the wire (`Outgoing`, `Payload`): the attempts with their
//! redirects, the retry loop around them (backoff, the retry policy of
//! `retry.rs`), reading an answer and judging it.

use std::ops::Deref;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use ureq::http::{self, HeaderName, HeaderValue, Response};
use ureq::Body;

use crate::api::multipart::EncodedForm;
use crate::api::ops::{self, Auth, Method, Reply};
use crate::client::meta::ResponseMeta;
use crate::client::observe::Watch;
use crate::client::{redirect, retry, Client};
use crate::error::{http_error_message, Error};
use crate::log::{self, Level};
use crate::net::direct_body::{BodyReader, Lease, DIRECT_MIN};
use crate::net::transport_error::map_ureq;

const MAX_REDIRECTS: usize = 5;
/// An error body is only read for its message: no need to take a huge one in.
const MAX_ERROR_BODY: u64 = 1024 * 1024;

/// How one attempt ended: an answer (with the URL that gave it) or a transport
/// error (both may be retried), or a refusal of ours (a bad redirect) that no
/// retry can change.
enum Attempt {
    Sent(Result<(Response<Body>, String), Error>),
    Refused(Error),
}

/// What goes on the wire for one call, before auth and redirects.
pub(crate) struct Outgoing<'a> {
    pub method: Method,
    pub path: String,
    pub auth: Auth,
    /// The content type and the body.
    pub body: Option<(&'a str, Payload<'a>)>,
    pub accept: &'static str,
}

/// A request body, sent again whole on every attempt and hop.
#[derive(Clone, Copy)]
pub(crate) enum Payload<'a> {
    /// Pieces sent one after another: the caller's JSON text, or that text
    /// around a member gw spliced in (`"stream": true`).
    Pieces(&'a [&'a [u8]]),
    /// Read from the caller's file bytes as it is sent (no copy of the payload).
    Form(&'a EncodedForm<'a>),
}

/// One request of an attempt: the first, or one a redirect leads to.
#[derive(Clone, Copy)]
struct Hop<'a> {
    method: Method,
    url: &'a str,
    /// None once a redirect left the base URL's origin: no credentials.
    auth: Option<Auth>,
    body: Option<(&'a str, Payload<'a>)>,
    accept: &'a str,
}

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

/// One call on a handle: what it has done so far and when it must end. Plain
/// calls and streams both send through one (`send`, `exchange`); it reads the
/// handle's settings through `Deref`.
pub(crate) struct Call<'c, 't> {
    client: &'c Client,
    deadline: Option<Instant>,
    tally: &'t mut Tally,
}

impl<'c, 't> Call<'c, 't> {
    pub(crate) fn new(client: &'c Client, deadline: Option<Instant>, tally: &'t mut Tally) -> Self {
        Call {
            client,
            deadline,
            tally,
        }
    }
}

impl Deref for Call<'_, '_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client
    }
}

impl Call<'_, '_> {
    /// Sends, then reads and judges a JSON answer.
    pub(crate) fn exchange(&mut self, out: &Outgoing<'_>, reply: Reply) -> Result<String, Error> {
        loop {
            let response = self.send(out)?;
            crate::net::cancel::take_reset_seen();
            let failure = match self
                .read_text(response, self.options.max_response_bytes)
                .and_then(|text| judge(reply, text))
            {
                Ok(text) => return Ok(text),
                // ureq ends a body without length at a reset as if the server closed it:
                // what looks like a bad answer is a broken connection.
                Err(Error::Decode(_)) if crate::net::cancel::take_reset_seen() => {
                    Error::Network("connection reset by the server while reading the answer".into())
                }
                Err(e) => {
                    if !matches!(e, Error::Network(_) | Error::Timeout(_)) {
                        return Err(e);
                    }
                    e
                }
            };
            // The head came, the body broke (short, cut, reset, stalled): as retryable as a
            // failure before the head, within the same budget. A stalled body of a POST is
            // retried only when the key tells the gateway it is the same request.
            let transient = resendable_after_head(&failure, out.method, self.tally);
            let delay = self.backoff(self.tally.attempts.saturating_sub(1));
            if !transient
                || self.tally.attempts > self.options.max_retries
                || self
                    .deadline
                    .is_some_and(|d| Instant::now().checked_add(delay).is_none_or(|t| t >= d))
                || self.cancel.is_cancelled()
            {
                return Err(failure);
            }
            self.log(
                Level::Info,
                &format!(
                    "gw: retrying {} after a broken answer body ({failure}) in {} ms",
                    out.path,
                    delay.as_millis()
                ),
            );
            self.cancel.sleep(delay)?;
        }
    }

    /// The retry loop around one attempt (with its redirects). Returns a 2xx
    /// response, or the error of the last attempt. The call's tally counts
    /// attempts (shared with stream retries) and the answer that ends the loop is
    /// recorded as the handle's last response.
    pub(crate) fn send(&mut self, out: &Outgoing<'_>) -> Result<Response<Body>, Error> {
        if self.tally.key.is_none() && out.method == Method::Post {
            self.tally.key = match &self.idempotency_key {
                Some(key) => Some(key.clone()),
                None if self.options.idempotency_keys => {
                    HeaderValue::from_str(&crate::client::idempotency::new_key()).ok()
                }
                None => None,
            };
        }
        loop {
            self.tally.attempts += 1;
            self.tally.head_timed_out = false;
            let attempt = self.tally.attempts - 1;
            if log::enabled(Level::Debug) {
                self.log(
                    Level::Debug,
                    &format!(
                        "gw: {} {} (attempt {})",
                        out.method.as_str(),
                        self.base.join(&out.path),
                        self.tally.attempts
                    ),
                );
            }
            let watch = self.observer.clone().map(|o| {
                Watch::start(
                    o,
                    out.method,
                    &out.path,
                    self.tally.attempts,
                    out.body.map(|(_, p)| p),
                )
            });
            let result = match self.attempt(out) {
                Attempt::Refused(e) => {
                    if let Some(w) = watch {
                        w.end(Err(&e));
                    }
                    return Err(e);
                }
                Attempt::Sent(result) => result,
            };
            if let Some(w) = watch {
                w.end(result.as_ref().map(|(r, _)| r));
            }
            let (retryable, wait, why) = match &result {
                Ok((r, url)) if r.status().is_success() => {
                    self.tally.poll_after = retry::poll_after(r.headers(), SystemTime::now());
                    self.record(r, url);
                    return result.map(|(r, _)| r);
                }
                Ok((r, _)) => {
                    let by_status = retry::status_is_retryable(r.status().as_u16());
                    let said = retry::should_retry_header(r.headers());
                    (
                        said.unwrap_or(by_status),
                        retry::server_delay(r.headers(), SystemTime::now()),
                        format!("HTTP {}", r.status().as_u16()),
                    )
                }
                Err(e) => (
                    match e {
                        Error::Network(_) => true,
                        // Sent and unanswered: without a key a retry could be a second,
                        // billable request, so only a GET or a keyed POST goes again.
                        Error::Timeout(_) if self.tally.head_timed_out => {
                            out.method == Method::Get || self.tally.key.is_some()
                        }
                        Error::Timeout(_) => true,
                        _ => false,
                    },
                    None,
                    e.to_string(),
                ),
            };
            let delay = wait
                .map(|w| w.min(Duration::from_millis(self.options.retry_after_cap_ms)))
                .unwrap_or_else(|| self.backoff(attempt));
            let within_deadline = self
                .deadline
                .is_none_or(|d| Instant::now().checked_add(delay).is_some_and(|t| t < d));
            if !retryable
                || attempt >= self.options.max_retries
                || !within_deadline
                || self.cancel.is_cancelled()
            {
                return match result {
                    Ok((r, url)) => {
                        self.record(&r, &url);
                        Err(self.http_error(r))
                    }
                    Err(e) => Err(e),
                };
            }
            drop(result); // frees the connection before we sleep
            if log::enabled(Level::Info) {
                self.log(
                    Level::Info,
                    &format!(
                        "gw: retrying {} after {why} in {} ms (retry {} of {})",
                        out.path,
                        delay.as_millis(),
                        attempt + 1,
                        self.options.max_retries
                    ),
                );
            }
            self.cancel.sleep(delay)?;
        }
    }

    fn record(&self, response: &Response<Body>, url: &str) {
        let meta = ResponseMeta::read(
            response.status().as_u16(),
            response.headers(),
            self.tally.attempts,
            self.tally.started.elapsed().as_millis() as u64,
            &crate::redact::strip_query_key(url),
            &self.api_key,
        );
        *self.last_response.lock().unwrap_or_else(|p| p.into_inner()) = Some(meta);
    }

    /// One attempt: the request and the redirects it leads to. Credentials go
    /// only to the base URL's origin; once a redirect leaves it they are gone
    /// for the rest of the chain.
    fn attempt(&mut self, out: &Outgoing<'_>) -> Attempt {
        let mut url = self.base.join(&out.path);
        let method = out.method;
        let body = out.body;
        let mut trusted = true;
        for _ in 0..=MAX_REDIRECTS {
            let hop = Hop {
                method,
                url: &url,
                auth: trusted.then_some(out.auth),
                body,
                accept: out.accept,
            };
            let sent = self.send_once(&hop);
            let response = match sent {
                Ok(r) => r,
                Err(e) => return Attempt::Sent(Err(e)),
            };
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            let (true, Some(location)) = (matches!(status, 301 | 302 | 303 | 307 | 308), location)
            else {
                return Attempt::Sent(Ok((response, url)));
            };
            // A Location that keeps `?key=` is neither shown nor sent on: gw adds the
            // key itself (once) where it belongs, and never to another origin.
            let next =
                crate::redact::strip_query_key(&resolve_location(&url, location)).into_owned();
            let verdict = match redirect::judge(
                status,
                method,
                &url,
                location,
                &next,
                &self.base.origin,
                &self.route,
            ) {
                Ok(verdict) => verdict,
                Err(e) => return Attempt::Refused(e),
            };
            // Once the chain leaves the base origin nothing of the caller's follows it.
            trusted &= verdict.same_origin;
            if log::enabled(Level::Info) {
                self.log(
                    Level::Info,
                    &format!(
                        "gw: redirect {status} to {next}{}",
                        if trusted {
                            ""
                        } else {
                            " (credentials and custom headers dropped)"
                        }
                    ),
                );
            }
            url = next;
        }
        Attempt::Refused(Error::Network(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    fn send_once(&mut self, hop: &Hop<'_>) -> Result<Response<Body>, Error> {
        let Hop {
            method,
            url,
            auth,
            body,
            accept,
        } = *hop;
        let full_url = match auth {
            Some(Auth::QueryKey) => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}key={}", ops::percent_encode_query(&self.api_key))
            }
            _ => url.to_string(),
        };
        // The head is built in place: the builder moves the whole request through
        // each header it adds, which cost more than the rest of the head together.
        let invalid = |e: http::Error| Error::invalid(format!("request: {e}"));
        let mut head = http::Request::new(());
        *head.method_mut() =
            http::Method::from_bytes(method.as_str().as_bytes()).map_err(|e| invalid(e.into()))?;
        *head.uri_mut() = full_url
            .parse::<http::Uri>()
            .map_err(|e| invalid(e.into()))?;
        let headers = head.headers_mut();
        let value = |text: &str| HeaderValue::from_str(text).map_err(|e| invalid(e.into()));
        headers.append(http::header::ACCEPT, value(accept)?);
        if let Some(Auth::Bearer) = auth {
            let bearer = match &self.bearer {
                Some(bearer) => bearer.clone(),
                None => value(&format!("Bearer {}", self.api_key))?,
            };
            headers.append(http::header::AUTHORIZATION, bearer);
        }
        // No auth means a hop off the base origin: none of the caller's headers go there.
        if auth.is_some() {
            for (name, value) in &self.extra_headers {
                headers.append(name.clone(), value.clone());
            }
            if let (Method::Post, Some(key)) = (method, &self.tally.key) {
                headers.append(HeaderName::from_static("idempotency-key"), key.clone());
            }
        }
        let remaining = match self.deadline {
            Some(d) => Some(
                d.checked_duration_since(Instant::now())
                    .filter(|r| !r.is_zero())
                    .ok_or_else(|| Error::Timeout("total deadline passed".into()))?,
            ),
            None => None,
        };
        // Waiting for the head is bounded by first_byte_timeout_ms, not by the read idle.
        crate::net::cancel::set_read_idle(None);
        let result = match body {
            Some((content_type, payload)) => {
                head.headers_mut()
                    .append(http::header::CONTENT_TYPE, value(content_type)?);
                match payload {
                    Payload::Pieces(&[bytes]) if bytes.len() < DIRECT_MIN => {
                        self.run_request(head.map(|()| bytes), remaining)
                    }
                    Payload::Pieces(pieces) => {
                        // Written to the socket from where the pieces are (net/direct_body.rs),
                        // or copied where TLS must encrypt them.
                        let _lease = Lease::new(pieces);
                        let mut reader = BodyReader::new(pieces);
                        head.headers_mut().append(
                            http::header::CONTENT_LENGTH,
                            HeaderValue::from(reader.len()),
                        );
                        self.run_request(
                            head.map(|()| ureq::SendBody::from_reader(&mut reader)),
                            remaining,
                        )
                    }
                    Payload::Form(form) => {
                        // A fresh reader per attempt and hop: each sends the whole body.
                        // The Content-Length given here makes ureq send the reader's
                        // bytes length-delimited, not chunked.
                        let mut reader = form.reader();
                        head.headers_mut()
                            .append(http::header::CONTENT_LENGTH, HeaderValue::from(form.len()));
                        self.run_request(
                            head.map(|()| ureq::SendBody::from_reader(&mut reader)),
                            remaining,
                        )
                    }
                }
            }
            None => self.run_request(head, remaining),
        };
        // The head is in (or the attempt is over): from here every read of the body or
        // stream may be silent for read_timeout_ms at most.
        crate::net::cancel::set_read_idle(self.options.read_timeout());
        if let Err(ureq::Error::Timeout(ureq::Timeout::RecvResponse)) = &result {
            self.tally.head_timed_out = true;
        }
        let response = result.map_err(map_ureq)?;
        // The http crate takes any three digits; 600-999 is no HTTP status (nor a GW_*
        // code), so it is the protocol error that 000-099 already is.
        let status = response.status().as_u16();
        if !(100..=599).contains(&status) {
            return Err(Error::Network(format!(
                "HTTP protocol error: status {status} is not an HTTP status (100-599)"
            )));
        }
        Ok(response)
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

    /// Runs one request with the call's timeouts.
    fn run_request(
        &self,
        request: http::Request<impl ureq::AsSendBody>,
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

    pub(crate) fn read_text(&self, response: Response<Body>, limit: u64) -> Result<String, Error> {
        use std::io::Read;
        let too_large =
            || Error::TooLarge(format!("answer is over max_response_bytes ({limit} bytes)"));
        // ureq's limit counts the bytes on the wire; `take` counts what they decode to,
        // so a small gzip bomb cannot fill memory either.
        // Sized from Content-Length (within the cap): the body is read without regrowing.
        let expected = response
            .headers()
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .map_or(0, |n| n.min(limit.min(1 << 20)) as usize);
        let mut reader = response
            .into_body()
            .into_with_config()
            .limit(limit)
            .reader()
            .take(limit.saturating_add(1));
        let mut bytes = Vec::with_capacity(expected);
        reader.read_to_end(&mut bytes).map_err(|e| {
            if e.get_ref()
                .and_then(|i| i.downcast_ref::<ureq::Error>())
                .is_some_and(|u| matches!(u, ureq::Error::BodyExceedsLimit(_)))
            {
                too_large()
            } else {
                crate::net::transport_error::map_io(e)
            }
        })?;
        if bytes.len() as u64 > limit {
            return Err(too_large());
        }
        String::from_utf8(bytes).map_err(|_| Error::Decode("answer is not valid UTF-8".into()))
    }

    fn http_error(&self, response: Response<Body>) -> Error {
        let status = response.status().as_u16();
        match self.read_text(
            response,
            MAX_ERROR_BODY.min(self.options.max_response_bytes),
        ) {
            Ok(body) => Error::Http {
                status,
                message: http_error_message(status, &body),
                body: (!body.trim().is_empty()).then_some(body),
            },
            Err(e) => Error::Http {
                status,
                message: format!("the gateway answered {status}; its body could not be read: {e}"),
                body: None,
            },
        }
    }
}

/// Whether a request whose answer's head came but whose body then failed
/// (`failure`) may be sent again: a broken connection may; a stalled body of a
/// POST only when the key tells the gateway it is the same request (else a
/// retry could be a second, billable generation). For plain calls and streams.
pub(crate) fn resendable_after_head(failure: &Error, method: Method, tally: &Tally) -> bool {
    match failure {
        Error::Network(_) => true,
        Error::Timeout(_) => method == Method::Get || tally.key.is_some(),
        _ => false,
    }
}

/// Checks a 2xx answer against what the operation promises.
fn judge(reply: Reply, text: String) -> Result<String, Error> {
    if let Reply::Json(fields) = reply {
        if crate::stream::chunk_scan::object_has_fields(&text, fields) {
            return Ok(text);
        }
        // Not JSON, not an object, a field missing: the general way below says which.
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Decode(format!("answer is not valid JSON ({e})")))?;
    match reply {
        // An operation with no promised fields (or a path outside the table) takes any JSON.
        Reply::Json([]) => {}
        Reply::Json(fields) => {
            let obj = value
                .as_object()
                .ok_or_else(|| Error::Decode("answer is not a JSON object".into()))?;
            if let Some(missing) = fields.iter().find(|f| !obj.contains_key(**f)) {
                return Err(Error::Decode(format!("answer lacks the field '{missing}'")));
            }
        }
        Reply::VendorCode { ok } => {
            let code = value
                .get("code")
                .and_then(Value::as_i64)
                .ok_or_else(|| Error::Decode("vendor answer lacks an integer 'code'".into()))?;
            if code != ok {
                let said = ["message", "description"]
                    .iter()
                    .find_map(|k| value.get(*k).and_then(Value::as_str))
                    .unwrap_or("no message");
                return Err(Error::Vendor {
                    message: format!("code {code}: {said}"),
                    body: text,
                });
            }
        }
    }
    Ok(text)
}

/// An absolute URL for a `Location` header, relative to the URL that answered.
fn resolve_location(current: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme_end = current.find("://").map_or(0, |i| i + 3);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}{rest}", &current[..scheme_end]);
    }
    let authority_end = current[scheme_end..]
        .find('/')
        .map_or(current.len(), |i| scheme_end + i);
    if location.starts_with('/') {
        return format!("{}{location}", &current[..authority_end]);
    }
    let path = current[..current.find('?').unwrap_or(current.len())].to_string();
    let dir_end = path
        .rfind('/')
        .filter(|&i| i >= authority_end)
        .map_or(path.len(), |i| i + 1);
    format!("{}{location}", &path[..dir_end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_resolve_against_the_answering_url() {
        let cur = "http://127.0.0.1:9/v1/chat/completions?x=1";
        assert_eq!(
            resolve_location(cur, "https://o.example/p"),
            "https://o.example/p"
        );
        assert_eq!(resolve_location(cur, "//o.example/p"), "http://o.example/p");
        assert_eq!(resolve_location(cur, "/v2/x"), "http://127.0.0.1:9/v2/x");
        assert_eq!(
            resolve_location(cur, "other"),
            "http://127.0.0.1:9/v1/chat/other"
        );
    }

    #[test]
    fn judge_checks_shape_and_vendor_codes() {
        assert!(judge(Reply::Json(&["choices"]), r#"{"choices":[]}"#.into()).is_ok());
        assert!(matches!(
            judge(Reply::Json(&["choices"]), "{}".into()),
            Err(Error::Decode(_))
        ));
        assert!(matches!(
            judge(Reply::Json(&[]), "{oops".into()),
            Err(Error::Decode(_))
        ));
        let e = judge(
            Reply::VendorCode { ok: 1 },
            r#"{"code":4,"description":"banned"}"#.into(),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "vendor reported failure: code 4: banned");
        assert!(judge(Reply::VendorCode { ok: 0 }, r#"{"code":0}"#.into()).is_ok());
    }
}
