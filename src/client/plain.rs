//! Plain calls: a JSON operation (`call`), a multipart upload
//! (`call_multipart`) and any method and path (`request`), each checked
//! (`exchange/spec.rs`), run through an exchange by the built-in driver
//! (`blocking.rs`) and answered as a whole.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::api::multipart::Form;
use crate::api::ops::Operation;
use crate::api::raw_json::{JsonText, Unscanned};
use crate::client::blocking;
use crate::client::exchange::{Exchange, Spec};
use crate::client::Client;
use crate::error::Error;
use crate::net::cancel::CallScope;

impl Client {
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

    /// `call_text` until `deadline`, also returning the answer's poll-after hint
    /// (`openai-poll-after-ms`, or `Retry-After` on a success), for task polling.
    pub(crate) fn call_hinted(
        &self,
        op: &Operation,
        params: &[&str],
        body: Option<&JsonText<'_>>,
        deadline: Option<Instant>,
    ) -> Result<(String, Option<Duration>), Error> {
        self.run_blocking(op.name, deadline, || Spec::plain(self, op, params, body))
    }

    /// Sends a multipart form (the image edit with file uploads).
    pub fn call_multipart(
        &self,
        op: &Operation,
        params: &[&str],
        form: &Form,
    ) -> Result<String, Error> {
        self.run_blocking(op.name, self.default_deadline(), || {
            Spec::multipart(self, op, params, form)
        })
        .map(|(text, _)| text)
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
        self.run_blocking("request", self.default_deadline(), || {
            Spec::request(self, method, path, body, None)
        })
        .map(|(text, _)| text)
    }

    /// Runs one plain call on the calling thread: refused at once when the
    /// handle is cancelled, run inside the handle's cancel scope, every error
    /// redacted (and named `Cancelled` when a cancel cut it short).
    fn run_blocking<'b>(
        &self,
        name: &str,
        deadline: Option<Instant>,
        spec: impl FnOnce() -> Result<Spec<'b>, Error>,
    ) -> Result<(String, Option<Duration>), Error> {
        self.cancel_token().check()?;
        let _scope = CallScope::enter(self.cancel_token());
        let mut exchange = spec()
            .and_then(|spec| Exchange::new(self, spec))
            .map_err(|e| self.failed(name, e))?
            .until(deadline)
            .sockets_time_reads();
        let text = blocking::run(&mut exchange)?;
        Ok((text, exchange.poll_after()))
    }
}

/// The tree of a body the Rust API serialised from a `Value` (always JSON).
pub(super) fn parse_serialised(text: &str) -> Result<JsonText<'_>, Error> {
    JsonText::parse(text).map_err(|e| match e {
        Unscanned::Invalid(e) => Error::invalid(format!("request: invalid JSON ({e})")),
        Unscanned::Valid(_) => Error::Internal("request: a serialised body did not scan".into()),
    })
}
