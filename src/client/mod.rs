//! The client: one pooled ureq agent shared by every handle, auth, the
//! handle's cancel token and last response, and the door every error and log
//! line leaves by (redacted). The life of one call is in the files below.
//!
//! A `Client` is a cheap handle (an `Arc`). `derive` makes another handle on the
//! same agent (pool) with per-call overrides and a cancel token of its own.

pub(crate) mod blocking;
pub(crate) mod call;
pub(crate) mod call_options;
pub(crate) mod event_stream;
pub mod exchange;
pub(crate) mod idempotency;
pub(crate) mod meta;
pub(crate) mod observe;
pub(crate) mod options;
pub(crate) mod plain;
pub(crate) mod redirect;
pub(crate) mod retry;
pub(crate) mod streamed;
pub(crate) mod task_wait;
pub(crate) mod tasks;

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ureq::http::{HeaderName, HeaderValue};
use ureq::unversioned::transport::{ConnectProxyConnector, Connector, RustlsConnector};
use ureq::Agent;

use crate::client::call_options::CallOptions;
use crate::client::meta::{LastResponse, ResponseMeta};
use crate::client::observe::Observer;
use crate::client::options::{BaseUrl, Options};
use crate::error::Error;
use crate::log::{self, Level};
use crate::net::cancel::CancelToken;
use crate::net::headers;
use crate::net::route::Route;
use crate::net::tls;
use crate::net::transport::{GwResolver, GwTcpConnector};

/// A gateway client. Cheap to clone and to share: every method takes `&self`
/// and the agent's connection pool is thread-safe, so one client serves all
/// threads. Clones share everything, the cancel token included.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

#[doc(hidden)]
pub struct ClientInner {
    /// Shared by handles derived without overrides of their own.
    options: Arc<Options>,
    /// These three too, unless an override brings its own.
    base: Arc<BaseUrl>,
    api_key: Arc<str>,
    /// `Bearer <api_key>`, made once (marked sensitive, so http never shows it);
    /// None when the key is not header-safe, which the call then reports.
    bearer: Option<HeaderValue>,
    agent: Agent,
    /// The User-Agent text (the agent sends it; other drivers are given it).
    user_agent: Arc<str>,
    route: Route,
    extra_headers: Vec<(HeaderName, HeaderValue)>,
    idempotency_key: Option<HeaderValue>,
    cancel: Arc<CancelToken>,
    last_response: Mutex<Option<LastResponse>>,
    /// Told of each attempt's start and end (`observed`); derived handles keep it.
    observer: Option<Observer>,
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
        check_api_key(&api_key)?;
        let extra_headers = headers::parse_extra(&options)?;
        let route = Route::new(&options)?;
        route.check_usable(&base.origin)?;
        route.check_plain_http(&base.origin)?;
        let agent = build_agent(&options, &route)?;
        Ok(Client {
            inner: Arc::new(ClientInner {
                user_agent: headers::user_agent(&options)?.into(),
                options: Arc::new(options),
                base: Arc::new(base),
                bearer: bearer_header(&api_key),
                api_key: api_key.into(),
                agent,
                route,
                extra_headers,
                idempotency_key: None,
                cancel: Arc::default(),
                last_response: Mutex::new(None),
                observer: None,
            }),
        })
    }

    /// A new handle on the same connection pool and settings, with per-call
    /// overrides and a cancel token and last response of its own. Cheap: no new
    /// pool, no thread.
    pub fn derive(&self, overrides: &CallOptions) -> Result<Client, Error> {
        // Shared with the base until an override changes them (then copied once).
        let mut options = Arc::clone(&self.options);
        let set = |options: &mut Arc<Options>, slot: fn(&mut Options) -> &mut u64, v| {
            if let Some(v) = v {
                *slot(Arc::make_mut(options)) = v;
            }
        };
        set(
            &mut options,
            |o| &mut o.total_timeout_ms,
            overrides.total_timeout_ms,
        );
        set(
            &mut options,
            |o| &mut o.read_timeout_ms,
            overrides.read_timeout_ms,
        );
        set(
            &mut options,
            |o| &mut o.connect_timeout_ms,
            overrides.connect_timeout_ms,
        );
        set(
            &mut options,
            |o| &mut o.first_byte_timeout_ms,
            overrides.first_byte_timeout_ms,
        );
        if let Some(n) = overrides.max_retries {
            Arc::make_mut(&mut options).max_retries = n;
        }
        if let Some(v) = overrides.validate {
            Arc::make_mut(&mut options).validate = v;
        }
        if let Some(headers) = &overrides.headers {
            let options = Arc::make_mut(&mut options);
            for (k, v) in headers {
                // Same name in another case replaces the base's value.
                options
                    .headers
                    .retain(|name, _| !name.eq_ignore_ascii_case(k));
                options.headers.insert(k.clone(), v.clone());
            }
        }
        let base = match &overrides.base_url {
            None => self.base.clone(),
            // The client's rules, with the client's allow_insecure_http and proxy: a
            // call cannot loosen what the client was created with.
            Some(raw) => {
                let base = BaseUrl::parse(raw, options.allow_insecure_http)?;
                self.route.check_usable(&base.origin)?;
                self.route.check_plain_http(&base.origin)?;
                Arc::make_mut(&mut options).base_url = Some(base.as_str().to_string());
                Arc::new(base)
            }
        };
        // The base's key and its Authorization value, unless the call brings its own.
        let (api_key, bearer) = match &overrides.api_key {
            None => (self.api_key.clone(), self.bearer.clone()),
            Some(key) => {
                check_api_key(key)?;
                Arc::make_mut(&mut options).api_key = Some(key.clone());
                (Arc::from(key.as_str()), bearer_header(key))
            }
        };
        // The base's headers were parsed when it was made: only new ones are parsed again.
        let extra_headers = match overrides.headers {
            None => self.extra_headers.clone(),
            Some(_) => headers::parse_extra(&*options)?,
        };
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
                base,
                bearer,
                api_key,
                // One pool for every handle: ureq keys pooled connections by origin (and
                // proxy), so another base_url's calls get connections of their own.
                agent: self.agent.clone(),
                user_agent: self.user_agent.clone(),
                route: self.route.clone(),
                extra_headers,
                idempotency_key,
                cancel: Arc::default(),
                last_response: Mutex::new(None),
                observer: self.observer.clone(),
            }),
        })
    }

    /// `derive`, with `observer` told of every attempt made on the new handle.
    pub fn observed(&self, overrides: &CallOptions, observer: Observer) -> Result<Client, Error> {
        let mut client = self.derive(overrides)?;
        Arc::get_mut(&mut client.inner)
            .expect("a handle just derived is not shared")
            .observer = Some(observer);
        Ok(client)
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
            .as_mut()
            .map(|last| last.meta().clone())
    }

    /// `last_response` as `gw_client_last_response`'s JSON text (`null` when
    /// none), written under the lock: no copy of the metadata.
    pub(crate) fn last_response_json(&self) -> String {
        self.last_response
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .map_or_else(|| "null".to_string(), |last| last.meta().to_json_text())
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

    /// When a call started now must end, from `total_timeout_ms`.
    pub(crate) fn default_deadline(&self) -> Option<Instant> {
        self.default_deadline_from(Instant::now())
    }

    /// `default_deadline` for a call that starts at `now`.
    pub(crate) fn default_deadline_from(&self, now: Instant) -> Option<Instant> {
        // checked: a deadline too far to represent is no deadline, not a panic.
        self.options
            .total_timeout()
            .and_then(|t| now.checked_add(t))
    }

    /// No error leaves the client with the key in it, however a server spelled
    /// it (plain, percent-encoded in either case, JSON-escaped: `redact`).
    fn redact(&self, e: Error) -> Error {
        e.redact(&self.api_key)
    }
}

/// A key gw can send: non-empty, no surrounding whitespace, header-safe. The error
/// says what is wrong without saying what the key is.
fn bearer_header(api_key: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(&format!("Bearer {api_key}")).ok()?;
    value.set_sensitive(true);
    Some(value)
}

fn check_api_key(api_key: &str) -> Result<(), Error> {
    if api_key.is_empty() {
        return Err(Error::invalid_param("api_key", "api_key is empty"));
    }
    if HeaderValue::from_str(&format!("Bearer {api_key}")).is_err() || api_key.trim() != api_key {
        return Err(Error::invalid_param(
            "api_key",
            "api_key holds whitespace or characters not allowed in an HTTP header",
        ));
    }
    Ok(())
}

/// ureq's input buffer per connection: it must hold an answer's whole head
/// (ureq's cap on a head, max_response_header_size, is 64 KiB; a gateway's is
/// under 2 KiB) and is what one read of the socket takes in.
pub(crate) const CONNECTION_INPUT_BYTES: usize = 16 * 1024;
/// ureq's output buffer per connection: the request head and, under TLS, the
/// window a body is encrypted from (plain TCP writes the caller's bytes
/// directly: net/direct_body.rs).
pub(crate) const CONNECTION_OUTPUT_BYTES: usize = 64 * 1024;

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
        // Sized for what the gateway sends (a head of a few KiB, stream chunks of
        // hundreds of bytes) rather than ureq's 128 KiB each way: a connection
        // costs CONNECTION_INPUT_BYTES + CONNECTION_OUTPUT_BYTES, not 256 KiB.
        .input_buffer_size(CONNECTION_INPUT_BYTES)
        .output_buffer_size(CONNECTION_OUTPUT_BYTES)
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
