//! Plain calls: a JSON operation (`call`), a multipart upload
//! (`call_multipart`) and any method and path (`request`), each checked, sent
//! through one call's machinery (`call.rs`) and answered as a whole.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::api::multipart::Form;
use crate::api::ops::{self, Auth, BodyKind, Method, Operation, Reply};
use crate::api::raw_json::{JsonText, Node, Unscanned};
use crate::api::validate;
use crate::client::call::{Call, Outgoing, Payload};
use crate::client::Client;
use crate::error::Error;
use crate::log::Level;

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
            let pieces = self.json_body(op, body)?.map(|b| [b]);
            let out = Outgoing {
                method: op.method,
                path,
                auth: op.auth,
                body: pieces
                    .as_ref()
                    .map(|p| ("application/json", Payload::Pieces(p))),
                accept: "application/json",
            };
            let text = Call::new(self, deadline, tally).exchange(&out, op.reply)?;
            Ok((text, tally.poll_after))
        })
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
                validate::check_noting(op.rules, &form.fields_json(), &mut |line| {
                    self.log(Level::Debug, line)
                })?;
            }
            let encoded = form.encode();
            let out = Outgoing {
                method: op.method,
                path: op.path_with(params)?,
                auth: op.auth,
                body: Some((encoded.content_type(), Payload::Form(&encoded))),
                accept: "application/json",
            };
            Call::new(self, self.default_deadline(), tally).exchange(&out, op.reply)
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
            let encoded = ops::encode_past_ascii(path);
            let path: &str = &encoded;
            if method_kind == Method::Get && body.is_some() {
                return Err(Error::invalid_param(
                    "body",
                    "body: a GET request takes no body",
                ));
            }
            let row = ops::lookup(method, path);
            if let Some(op) = row {
                refuse_stream_flag(op, body.map(JsonText::root))?;
                // As the named function with a NULL request: nothing is sent, and the
                // operation's limit checks are never skipped.
                if body.is_none() && op.body != BodyKind::None {
                    return Err(Error::invalid_param(
                        "body",
                        format!(
                            "body: {} {} needs a JSON request body ({} takes one)",
                            op.method.as_str(),
                            op.path,
                            op.name
                        ),
                    ));
                }
            }
            if let (Some(op), Some(b)) = (row, body) {
                if self.options.validate {
                    validate::check_node_noting(op.rules, b.root(), &mut |line| {
                        self.log(Level::Debug, line)
                    })?;
                }
            }
            let pieces = body.map(|b| [b.text().as_bytes()]);
            let auth = if path.starts_with("/v1beta/") {
                Auth::QueryKey
            } else {
                Auth::Bearer
            };
            let out = Outgoing {
                method: method_kind,
                path: path.to_string(),
                auth,
                body: pieces
                    .as_ref()
                    .map(|p| ("application/json", Payload::Pieces(p))),
                accept: "application/json",
            };
            Call::new(self, self.default_deadline(), tally)
                .exchange(&out, row.map_or(Reply::Json(&[]), |op| op.reply))
        })
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
                    validate::check_node_noting(op.rules, b.root(), &mut |line| {
                        self.log(Level::Debug, line)
                    })?;
                }
                Ok(Some(b.text().as_bytes()))
            }
        }
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
pub(super) fn parse_serialised(text: &str) -> Result<JsonText<'_>, Error> {
    JsonText::parse(text).map_err(|e| match e {
        Unscanned::Invalid(e) => Error::invalid(format!("request: invalid JSON ({e})")),
        Unscanned::Valid(_) => Error::Internal("request: a serialised body did not scan".into()),
    })
}
