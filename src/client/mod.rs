//! The client: one pooled ureq agent, auth placement, the retry loop, redirects
//! that never carry credentials to another origin, and judging answers.
//!
//! A `Client` is a cheap handle (an `Arc`). `derive` makes another handle on the
//! same agent (pool) with per-call overrides and a cancel token of its own.

pub(crate) mod call_options;
pub(crate) mod event_stream;
pub(crate) mod idempotency;
pub(crate) mod meta;
pub(crate) mod options;
pub(crate) mod redirect;
pub(crate) mod retry;
pub(crate) mod tasks;

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;
use ureq::http::{self, HeaderName, HeaderValue, Response};
use ureq::unversioned::transport::{ConnectProxyConnector, Connector, RustlsConnector};
use ureq::{Agent, Body};

use crate::api::multipart::{EncodedForm, Form};
use crate::api::ops::{self, Auth, BodyKind, Method, Operation, Reply};
use crate::api::raw_json::{JsonText, Node, Unscanned};
use crate::api::validate;
use crate::client::call_options::CallOptions;
use crate::client::event_stream::EventStream;
use crate::client::meta::ResponseMeta;
use crate::client::options::{BaseUrl, Options};
use crate::error::{http_error_message, Error};
use crate::log::{self, Level};
use crate::net::cancel::{CallScope, CancelToken};
use crate::net::headers;
use crate::net::route::Route;
use crate::net::tls;
use crate::net::transport::{GwResolver, GwTcpConnector};
use crate::net::transport_error::map_ureq;
use crate::stream::driver::StreamEvent;

const MAX_REDIRECTS: usize = 5;
/// An error body is only read for its message: no need to take a huge one in.
const MAX_ERROR_BODY: u64 = 1024 * 1024;

/// A gateway client. Cheap to clone and to share: every method takes `&self`
/// and the agent's connection pool is thread-safe, so one client serves all
/// threads. Clones share everything, the cancel token included.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

#[doc(hidden)]
pub struct ClientInner {
    options: Options,
    base: BaseUrl,
    api_key: String,
    agent: Agent,
    route: Route,
    extra_headers: Vec<(HeaderName, HeaderValue)>,
    idempotency_key: Option<HeaderValue>,
    cancel: Arc<CancelToken>,
    last_response: Mutex<Option<ResponseMeta>>,
}

impl Deref for Client {
    type Target = ClientInner;
    fn deref(&self) -> &ClientInner {
        &self.inner
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.base.as_str())
            .field("api_key", &"[REDACTED]")
            .field("options", &self.options)
            .finish()
    }
}

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
    Bytes(&'a [u8]),
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

impl Client {
    /// Builds a client; base URL and key fall back to `GW_BASE_URL` / `GW_API_KEY`.
    pub fn new(options: Options) -> Result<Client, Error> {
        let options = options.with_env_fallbacks();
        let raw_base = options.base_url.clone().ok_or_else(|| {
            Error::invalid_param(
                "base_url",
                "base_url is not set: pass it or set GW_BASE_URL",
            )
        })?;
        let base = BaseUrl::parse(&raw_base, options.allow_insecure_http)?;
        let api_key = options
            .api_key
            .clone()
            .filter(|k| !k.is_empty())
            .ok_or_else(|| {
                Error::invalid_param("api_key", "api_key is not set: pass it or set GW_API_KEY")
            })?;
        if HeaderValue::from_str(&format!("Bearer {api_key}")).is_err() || api_key.trim() != api_key
        {
            // Say what is wrong without saying what the key is.
            return Err(Error::invalid_param(
                "api_key",
                "api_key holds whitespace or characters not allowed in an HTTP header",
            ));
        }
        let extra_headers = headers::parse_extra(&options)?;
        let route = Route::new(&options)?;
        route.check_usable(&base.origin)?;
        route.check_plain_http(&base.origin)?;
        let agent = build_agent(&options, &route)?;
        Ok(Client {
            inner: Arc::new(ClientInner {
                options,
                base,
                api_key,
                agent,
                route,
                extra_headers,
                idempotency_key: None,
                cancel: Arc::default(),
                last_response: Mutex::new(None),
            }),
        })
    }

    /// A new handle on the same connection pool and settings, with per-call
    /// overrides and a cancel token and last response of its own. Cheap: no new
    /// pool, no thread.
    pub fn derive(&self, overrides: &CallOptions) -> Result<Client, Error> {
        let mut options = self.options.clone();
        let set = |slot: &mut u64, v: Option<u64>| {
            if let Some(v) = v {
                *slot = v;
            }
        };
        set(&mut options.total_timeout_ms, overrides.total_timeout_ms);
        set(&mut options.read_timeout_ms, overrides.read_timeout_ms);
        set(
            &mut options.connect_timeout_ms,
            overrides.connect_timeout_ms,
        );
        set(
            &mut options.first_byte_timeout_ms,
            overrides.first_byte_timeout_ms,
        );
        if let Some(n) = overrides.max_retries {
            options.max_retries = n;
        }
        if let Some(v) = overrides.validate {
            options.validate = v;
        }
        if let Some(headers) = &overrides.headers {
            for (k, v) in headers {
                // Same name in another case replaces the base's value.
                options
                    .headers
                    .retain(|name, _| !name.eq_ignore_ascii_case(k));
                options.headers.insert(k.clone(), v.clone());
            }
        }
        let extra_headers = headers::parse_extra(&options)?;
        let idempotency_key = match &overrides.idempotency_key {
            None => self.idempotency_key.clone(),
            Some(key) => Some(
                HeaderValue::from_str(key)
                    .ok()
                    .filter(|_| !key.is_empty())
                    .ok_or_else(|| {
                        Error::invalid_param(
                            "idempotency_key",
                            "idempotency_key: must be a non-empty header-safe string",
                        )
                    })?,
            ),
        };
        Ok(Client {
            inner: Arc::new(ClientInner {
                options,
                base: self.base.clone(),
                api_key: self.api_key.clone(),
                agent: self.agent.clone(),
                route: self.route.clone(),
                extra_headers,
                idempotency_key,
                cancel: Arc::default(),
                last_response: Mutex::new(None),
            }),
        })
    }

    /// Cancels every call in flight on this handle (they return
    /// `Error::Cancelled` promptly) and every later one. Other handles derived
    /// from the same base go on working.
    pub fn cancel(&self) {
        log::emit(Level::Debug, "gw: handle cancelled");
        self.cancel.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The last exchange finished on this handle (success, or a failure that
    /// got an HTTP answer). On a shared handle: whichever call finished last.
    pub fn last_response(&self) -> Option<ResponseMeta> {
        self.last_response
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    pub(crate) fn cancel_token(&self) -> &Arc<CancelToken> {
        &self.cancel
    }

    /// Runs one call: refused at once when the handle is cancelled, run inside
    /// the handle's cancel scope, its error redacted (and named `Cancelled` when
    /// a cancel cut it short).
    pub(crate) fn run<T>(
        &self,
        what: &str,
        body: impl FnOnce(&mut Tally) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.cancel.check()?;
        let _scope = CallScope::enter(&self.cancel);
        let mut tally = Tally::new();
        body(&mut tally).map_err(|e| self.failed(what, e))
    }

    /// Every error leaves the client through here.
    pub(crate) fn failed(&self, what: &str, e: Error) -> Error {
        let e = match e {
            Error::InvalidArgument { .. } => e,
            _ if self.cancel.is_cancelled() => Error::Cancelled,
            e => e,
        };
        let e = self.redact(e);
        if log::enabled(Level::Warn) {
            self.log(Level::Warn, &format!("gw: {what} failed: {e}"));
        }
        e
    }

    /// Logs a line with the key removed, whatever built it.
    pub(crate) fn log(&self, level: Level, line: &str) {
        if !log::enabled(level) {
            return;
        }
        // Every spelling of the key (percent-encoded in either case, JSON-escaped).
        let line = crate::redact::text(line.to_string(), &self.api_key);
        log::emit(level, &line);
    }

    /// Calls a JSON operation: checks the body, sends it (retrying as the policy
    /// says) and returns the gateway's answer text once it has been judged.
    pub fn call(
        &self,
        op: &Operation,
        params: &[&str],
        body: Option<&Value>,
    ) -> Result<String, Error> {
        let text = body.map(Value::to_string);
        let parsed = text.as_deref().map(parse_serialised).transpose()?;
        self.call_text(op, params, parsed.as_ref())
    }

    /// `call` with the body as the caller's JSON text: checked on its borrowed
    /// tree and sent byte for byte.
    pub(crate) fn call_text(
        &self,
        op: &Operation,
        params: &[&str],
        body: Option<&JsonText<'_>>,
    ) -> Result<String, Error> {
        self.call_hinted(op, params, body, self.default_deadline())
            .map(|(text, _)| text)
    }

    /// `call_until` that also returns the answer's poll-after hint
    /// (`openai-poll-after-ms`, or `Retry-After` on a success), for task polling.
    pub(crate) fn call_hinted(
        &self,
        op: &Operation,
        params: &[&str],
        body: Option<&JsonText<'_>>,
        deadline: Option<Instant>,
    ) -> Result<(String, Option<Duration>), Error> {
        self.run(op.name, |tally| {
            refuse_stream_flag(op, body.map(JsonText::root))?;
            let path = op.path_with(params)?;
            let bytes = self.json_body(op, body)?;
            let out = Outgoing {
                method: op.method,
                path,
                auth: op.auth,
                body: bytes.map(|b| ("application/json", Payload::Bytes(b))),
                accept: "application/json",
            };
            let text = self.exchange(&out, op.reply, deadline, tally)?;
            Ok((text, tally.poll_after))
        })
    }

    /// When a call started now must end, from `total_timeout_ms`.
    pub(crate) fn default_deadline(&self) -> Option<Instant> {
        // checked: a deadline too far to represent is no deadline, not a panic.
        self.options
            .total_timeout()
            .and_then(|t| Instant::now().checked_add(t))
    }

    /// Sends a multipart form (the image edit with file uploads).
    pub fn call_multipart(
        &self,
        op: &Operation,
        params: &[&str],
        form: &Form,
    ) -> Result<String, Error> {
        self.run(op.name, |tally| {
            if op.body != BodyKind::Multipart {
                return Err(Error::Internal(format!(
                    "{} does not take a multipart body",
                    op.name
                )));
            }
            if self.options.validate {
                validate::check(op.rules, &form.fields_json())?;
            }
            let encoded = form.encode();
            let out = Outgoing {
                method: op.method,
                path: op.path_with(params)?,
                auth: op.auth,
                body: Some((encoded.content_type(), Payload::Form(&encoded))),
                accept: "application/json",
            };
            self.exchange(&out, op.reply, self.default_deadline(), tally)
        })
    }

    /// Any method and path (`/v1/...`, may carry a query). A path that is a row
    /// of the operation table gets that row's checks and answer rules.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<String, Error> {
        let text = body.map(Value::to_string);
        let parsed = text.as_deref().map(parse_serialised).transpose()?;
        self.request_text(method, path, parsed.as_ref())
    }

    /// `request` with the body as the caller's JSON text, sent byte for byte.
    pub(crate) fn request_text(
        &self,
        method: &str,
        path: &str,
        body: Option<&JsonText<'_>>,
    ) -> Result<String, Error> {
        self.run("request", |tally| {
            let method_kind = match method.to_ascii_uppercase().as_str() {
                "GET" => Method::Get,
                "POST" => Method::Post,
                other => {
                    return Err(Error::invalid_param(
                        "method",
                        format!("method: must be GET or POST (got '{other}')"),
                    ))
                }
            };
            ops::check_raw_path(path)?;
            if method_kind == Method::Get && body.is_some() {
                return Err(Error::invalid_param(
                    "body",
                    "body: a GET request takes no body",
                ));
            }
            let row = ops::lookup(method, path);
            if let Some(op) = row {
                refuse_stream_flag(op, body.map(JsonText::root))?;
            }
            if let (Some(op), Some(b)) = (row, body) {
                if self.options.validate {
                    validate::check_node(op.rules, b.root())?;
                }
            }
            let bytes = body.map(|b| b.text().as_bytes());
            let auth = if path.starts_with("/v1beta/") {
                Auth::QueryKey
            } else {
                Auth::Bearer
            };
            let out = Outgoing {
                method: method_kind,
                path: path.to_string(),
                auth,
                body: bytes.map(|b| ("application/json", Payload::Bytes(b))),
                accept: "application/json",
            };
            self.exchange(
                &out,
                row.map_or(Reply::Json(&[]), |op| op.reply),
                self.default_deadline(),
                tally,
            )
        })
    }

    /// Streams an operation: `on_event` sees each event and returns false to
    /// cancel. Returns the assembled final object (see `stream/driver.rs`). Written on
    /// the pull API (`stream_open`): one stream driver, not two.
    pub fn stream(
        &self,
        op: &Operation,
        body: &Value,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<String, Error> {
        let text = body.to_string();
        self.stream_text(op, &parse_serialised(&text)?, on_event)
    }

    /// `stream` with the body as the caller's JSON text.
    pub(crate) fn stream_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<String, Error> {
        let mut stream = EventStream::open(self, op, body, true)?;
        stream.pump(on_event)?;
        stream.finish()
    }

    /// As `stream`, without the final object: for callers that only want the
    /// events, memory stays flat however long the stream runs.
    pub fn stream_events(
        &self,
        op: &Operation,
        body: &Value,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<(), Error> {
        let text = body.to_string();
        self.stream_events_text(op, &parse_serialised(&text)?, on_event)
    }

    /// `stream_events` with the body as the caller's JSON text.
    pub(crate) fn stream_events_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
        on_event: &mut dyn FnMut(&StreamEvent<'_>) -> bool,
    ) -> Result<(), Error> {
        EventStream::open(self, op, body, false)?.pump(on_event)
    }

    /// Sends a streaming request and waits for the answer's headers; the events
    /// are then pulled from the returned stream.
    pub fn stream_open(&self, op: &Operation, body: &Value) -> Result<EventStream, Error> {
        let text = body.to_string();
        self.stream_open_text(op, &parse_serialised(&text)?)
    }

    /// `stream_open` with the body as the caller's JSON text.
    pub(crate) fn stream_open_text(
        &self,
        op: &Operation,
        body: &JsonText<'_>,
    ) -> Result<EventStream, Error> {
        EventStream::open(self, op, body, true)
    }

    /// Checks a JSON body for an operation; the bytes to send are the body's own.
    pub(crate) fn json_body<'t>(
        &self,
        op: &Operation,
        body: Option<&JsonText<'t>>,
    ) -> Result<Option<&'t [u8]>, Error> {
        match (op.body, body) {
            (BodyKind::None, None) => Ok(None),
            (BodyKind::None, Some(_)) => Err(Error::invalid_param(
                "body",
                format!("{}: takes no request body", op.name),
            )),
            (_, None) => Err(Error::invalid_param(
                "request",
                format!("{}: a request body is required", op.name),
            )),
            (_, Some(b)) => {
                if !b.root().is_object() {
                    return Err(Error::invalid_param(
                        "request",
                        "request: must be a JSON object",
                    ));
                }
                if self.options.validate {
                    validate::check_node(op.rules, b.root())?;
                }
                Ok(Some(b.text().as_bytes()))
            }
        }
    }

    /// Sends, then reads and judges a JSON answer.
    fn exchange(
        &self,
        out: &Outgoing<'_>,
        reply: Reply,
        deadline: Option<Instant>,
        tally: &mut Tally,
    ) -> Result<String, Error> {
        loop {
            let response = self.send(out, deadline, tally)?;
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
            let transient = resendable_after_head(&failure, out.method, tally);
            let delay = self.backoff(tally.attempts.saturating_sub(1));
            if !transient
                || tally.attempts > self.options.max_retries
                || deadline
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
    /// response, or the error of the last attempt. `tally` counts attempts
    /// (shared with stream retries) and the answer that ends the loop is
    /// recorded as the handle's last response.
    pub(crate) fn send(
        &self,
        out: &Outgoing<'_>,
        deadline: Option<Instant>,
        tally: &mut Tally,
    ) -> Result<Response<Body>, Error> {
        if tally.key.is_none() && out.method == Method::Post {
            tally.key = match &self.idempotency_key {
                Some(key) => Some(key.clone()),
                None if self.options.idempotency_keys => {
                    HeaderValue::from_str(&crate::client::idempotency::new_key()).ok()
                }
                None => None,
            };
        }
        loop {
            tally.attempts += 1;
            tally.head_timed_out = false;
            let attempt = tally.attempts - 1;
            if log::enabled(Level::Debug) {
                self.log(
                    Level::Debug,
                    &format!(
                        "gw: {} {} (attempt {})",
                        out.method.as_str(),
                        self.base.join(&out.path),
                        tally.attempts
                    ),
                );
            }
            let result = match self.attempt(out, deadline, tally) {
                Attempt::Refused(e) => return Err(e),
                Attempt::Sent(result) => result,
            };
            let (retryable, wait, why) = match &result {
                Ok((r, url)) if r.status().is_success() => {
                    tally.poll_after = retry::poll_after(r.headers(), SystemTime::now());
                    self.record(r, url, tally);
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
                        Error::Timeout(_) if tally.head_timed_out => {
                            out.method == Method::Get || tally.key.is_some()
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
            let within_deadline =
                deadline.is_none_or(|d| Instant::now().checked_add(delay).is_some_and(|t| t < d));
            if !retryable
                || attempt >= self.options.max_retries
                || !within_deadline
                || self.cancel.is_cancelled()
            {
                return match result {
                    Ok((r, url)) => {
                        self.record(&r, &url, tally);
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

    fn record(&self, response: &Response<Body>, url: &str, tally: &Tally) {
        let meta = ResponseMeta::read(
            response.status().as_u16(),
            response.headers(),
            tally.attempts,
            tally.started.elapsed().as_millis() as u64,
            &crate::redact::strip_query_key(url),
            &self.api_key,
        );
        *self.last_response.lock().unwrap_or_else(|p| p.into_inner()) = Some(meta);
    }

    /// The backoff before retry number `attempt` (0-based).
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        retry::backoff(
            attempt,
            Duration::from_millis(self.options.retry_base_delay_ms),
            Duration::from_millis(self.options.retry_max_delay_ms),
        )
    }

    /// One attempt: the request and the redirects it leads to. Credentials go
    /// only to the base URL's origin; once a redirect leaves it they are gone
    /// for the rest of the chain.
    fn attempt(&self, out: &Outgoing<'_>, deadline: Option<Instant>, tally: &mut Tally) -> Attempt {
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
            let sent = self.send_once(&hop, deadline, tally);
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

    fn send_once(
        &self,
        hop: &Hop<'_>,
        deadline: Option<Instant>,
        tally: &mut Tally,
    ) -> Result<Response<Body>, Error> {
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
        let mut builder = http::Request::builder()
            .method(method.as_str())
            .uri(&full_url)
            .header(http::header::ACCEPT, accept);
        if let Some(Auth::Bearer) = auth {
            builder = builder.header(
                http::header::AUTHORIZATION,
                format!("Bearer {}", self.api_key),
            );
        }
        // No auth means a hop off the base origin: none of the caller's headers go there.
        if auth.is_some() {
            for (name, value) in &self.extra_headers {
                builder = builder.header(name, value);
            }
            if let (Method::Post, Some(key)) = (method, &tally.key) {
                builder = builder.header("idempotency-key", key);
            }
        }
        let remaining = match deadline {
            Some(d) => Some(
                d.checked_duration_since(Instant::now())
                    .filter(|r| !r.is_zero())
                    .ok_or_else(|| Error::Timeout("total deadline passed".into()))?,
            ),
            None => None,
        };
        let invalid = |e: http::Error| Error::invalid(format!("request: {e}"));
        // Waiting for the head is bounded by first_byte_timeout_ms, not by the read idle.
        crate::net::cancel::set_read_idle(None);
        let result = match body {
            Some((content_type, payload)) => {
                let builder = builder.header(http::header::CONTENT_TYPE, content_type);
                match payload {
                    Payload::Bytes(bytes) => {
                        self.run_request(builder.body(bytes).map_err(invalid)?, remaining)
                    }
                    Payload::Form(form) => {
                        // A fresh reader per attempt and hop: each sends the whole body.
                        // The Content-Length given here makes ureq send the reader's
                        // bytes length-delimited, not chunked.
                        let mut reader = form.reader();
                        let request = builder
                            .header(http::header::CONTENT_LENGTH, form.len())
                            .body(ureq::SendBody::from_reader(&mut reader))
                            .map_err(invalid)?;
                        self.run_request(request, remaining)
                    }
                }
            }
            None => self.run_request(builder.body(()).map_err(invalid)?, remaining),
        };
        // The head is in (or the attempt is over): from here every read of the body or
        // stream may be silent for read_timeout_ms at most.
        crate::net::cancel::set_read_idle(self.options.read_timeout());
        if let Err(ureq::Error::Timeout(ureq::Timeout::RecvResponse)) = &result {
            tally.head_timed_out = true;
        }
        result.map_err(map_ureq)
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

    /// No error leaves the client with the key in it, however a server spelled
    /// it (plain, percent-encoded in either case, JSON-escaped: `redact`).
    fn redact(&self, e: Error) -> Error {
        e.redact(&self.api_key)
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

/// A plain call cannot read an event stream: `"stream": true` on a streaming
/// operation belongs to `Client::stream` (`gw_chat_stream`, `gw_responses_stream`).
pub(crate) fn refuse_stream_flag(op: &Operation, body: Option<&Node<'_>>) -> Result<(), Error> {
    let wants_stream = body.and_then(|b| b.get("stream")).and_then(Node::as_bool) == Some(true);
    if op.stream.is_some() && wants_stream {
        return Err(Error::invalid_param(
            "stream",
            format!(
                "stream: true needs the streaming call (gw_{}_stream, Client::stream)",
                op.name
            ),
        ));
    }
    Ok(())
}

/// The tree of a body the Rust API serialised from a `Value` (always JSON).
fn parse_serialised(text: &str) -> Result<JsonText<'_>, Error> {
    JsonText::parse(text).map_err(|e| match e {
        Unscanned::Invalid(e) => Error::invalid(format!("request: invalid JSON ({e})")),
        Unscanned::Valid(_) => Error::Internal("request: a serialised body did not scan".into()),
    })
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

fn build_agent(options: &Options, route: &Route) -> Result<Agent, Error> {
    let user_agent = headers::user_agent(options)?;
    let config = Agent::config_builder()
        .http_status_as_error(false)
        // Redirects are followed by hand so credentials stay with their origin.
        .max_redirects(0)
        .max_redirects_will_error(false)
        .timeout_connect(options.connect_timeout())
        .timeout_per_read(options.read_timeout())
        .max_idle_connections(options.max_idle_connections)
        .max_idle_connections_per_host(options.max_idle_connections)
        .user_agent(user_agent)
        // The one route.rs checked (option or environment): never another one.
        .proxy(route.proxy())
        .tls_config(tls::config(options)?);
    // Our TCP layer (cancellable connect and I/O) under ureq's CONNECT proxy and TLS.
    let connector =
        ().chain(ConnectProxyConnector::default())
            .chain(GwTcpConnector)
            .chain(RustlsConnector::default());
    Ok(Agent::with_parts(
        config.build(),
        connector,
        GwResolver::default(),
    ))
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
