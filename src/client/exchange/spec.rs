//! What a call sends, checked before anything is sent: the operation's row,
//! its path, its auth, its body (checked against the operation's limits) and
//! how its answer is read. One constructor per kind of call.

use std::borrow::Cow;

use crate::api::multipart::Form;
use crate::api::ops::{self, Auth, BodyKind, Method, Operation, Reply};
use crate::api::raw_json::{JsonText, Node};
use crate::api::validate;
use crate::client::Client;
use crate::error::Error;
use crate::log::Level;
use crate::stream::driver::StreamKind;

/// A request body: its content type and its pieces, sent one after the other.
pub(crate) type Body<'b> = (Cow<'b, str>, Vec<Cow<'b, [u8]>>);

/// One call's request and answer rules.
pub(crate) struct Spec<'b> {
    pub name: &'static str,
    pub method: Method,
    pub path: String,
    pub auth: Auth,
    pub body: Option<Body<'b>>,
    pub accept: &'static str,
    pub reply: Reply,
    /// A stream: how its events are framed, and whether its final object is
    /// assembled.
    pub stream: Option<(StreamKind, bool)>,
}

impl<'b> Spec<'b> {
    pub(super) fn body_pieces(&self) -> &[Cow<'b, [u8]>] {
        self.body.as_ref().map_or(&[], |(_, pieces)| pieces)
    }

    pub(super) fn content_type(&self) -> Option<&str> {
        self.body.as_ref().map(|(ct, _)| &**ct)
    }

    pub(crate) fn into_owned(self) -> Spec<'static> {
        Spec {
            name: self.name,
            method: self.method,
            path: self.path,
            auth: self.auth,
            body: self.body.map(|(ct, pieces)| {
                // gw's own content type needs no copy.
                let ct = match &*ct {
                    "application/json" => Cow::Borrowed("application/json"),
                    _ => Cow::Owned(ct.into_owned()),
                };
                // One piece (a plain call's body) is copied into the vector that
                // holds it (an in-place collect); more are joined into one.
                let pieces: Vec<Cow<'static, [u8]>> = if pieces.len() == 1 {
                    pieces
                        .into_iter()
                        .map(|piece| Cow::Owned(piece.into_owned()))
                        .collect()
                } else {
                    vec![Cow::Owned(pieces.concat())]
                };
                (ct, pieces)
            }),
            accept: self.accept,
            reply: self.reply,
            stream: self.stream,
        }
    }

    /// A JSON operation answered as a whole.
    pub(crate) fn plain(
        client: &Client,
        op: &Operation,
        params: &[&str],
        body: Option<&JsonText<'b>>,
    ) -> Result<Spec<'b>, Error> {
        refuse_stream_flag(op, body.map(JsonText::root))?;
        let path = op.path_with(params)?;
        let bytes = json_body(client, op, body)?;
        Ok(Spec {
            name: op.name,
            method: op.method,
            path,
            auth: op.auth,
            body: bytes.map(|b| (Cow::Borrowed("application/json"), vec![Cow::Borrowed(b)])),
            accept: "application/json",
            reply: op.reply,
            stream: None,
        })
    }

    /// A multipart form (the image edit with file uploads).
    pub(crate) fn multipart(
        client: &Client,
        op: &Operation,
        params: &[&str],
        form: &'b Form<'b>,
    ) -> Result<Spec<'b>, Error> {
        if op.body != BodyKind::Multipart {
            return Err(Error::Internal(format!(
                "{} does not take a multipart body",
                op.name
            )));
        }
        if client.options().validate {
            validate::check_noting(op.rules, &form.fields_json(), &mut |line| {
                client.log(Level::Debug, line)
            })?;
        }
        let (content_type, pieces) = form.encode().into_parts();
        Ok(Spec {
            name: op.name,
            method: op.method,
            path: op.path_with(params)?,
            auth: op.auth,
            body: Some((Cow::Owned(content_type), pieces)),
            accept: "application/json",
            reply: op.reply,
            stream: None,
        })
    }

    /// Any method and path (`/v1/...`, may carry a query). A path that is a row
    /// of the operation table gets that row's checks and answer rules; with
    /// `stream`, the row must stream and its events are read.
    pub(crate) fn request(
        client: &Client,
        method: &str,
        path: &str,
        body: Option<&JsonText<'b>>,
        stream: Option<bool>,
    ) -> Result<Spec<'b>, Error> {
        let method_kind = if method.eq_ignore_ascii_case("GET") {
            Method::Get
        } else if method.eq_ignore_ascii_case("POST") {
            Method::Post
        } else {
            let other = method.to_ascii_uppercase();
            return Err(Error::invalid_param(
                "method",
                format!("method: must be GET or POST (got '{other}')"),
            ));
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
        if let Some(assemble) = stream {
            let Some(op) = row.filter(|op| op.stream.is_some()) else {
                return Err(Error::invalid_param(
                    "path",
                    format!("path: {method} {path} is no streaming operation"),
                ));
            };
            let body = body.ok_or_else(|| {
                Error::invalid_param("request", "request: a streaming call needs a JSON body")
            })?;
            return Spec::stream(client, op, body, assemble);
        }
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
            if client.options().validate {
                validate::check_node_noting(op.rules, b.root(), &mut |line| {
                    client.log(Level::Debug, line)
                })?;
            }
        }
        let auth = if path.starts_with("/v1beta/") {
            Auth::QueryKey
        } else {
            Auth::Bearer
        };
        Ok(Spec {
            name: row.map_or("request", |op| op.name),
            method: method_kind,
            path: path.to_string(),
            auth,
            body: body.map(|b| {
                (
                    Cow::Borrowed("application/json"),
                    vec![Cow::Borrowed(b.text().as_bytes())],
                )
            }),
            accept: "application/json",
            reply: row.map_or(Reply::Json(&[]), |op| op.reply),
            stream: None,
        })
    }

    /// A streaming operation; `assemble`: whether the final object is built
    /// (without it a chat stream's memory stays flat however long it runs).
    pub(crate) fn stream(
        client: &Client,
        op: &Operation,
        body: &JsonText<'b>,
        assemble: bool,
    ) -> Result<Spec<'b>, Error> {
        let kind = op
            .stream
            .ok_or_else(|| Error::Internal(format!("{} does not stream", op.name)))?;
        if !body.root().is_object() {
            return Err(Error::invalid_param(
                "request",
                "request: must be a JSON object",
            ));
        }
        // gw sets "stream": true: the rules check the rest (gw's value is a boolean),
        // and the caller's text is sent with that one member edited in place, or as
        // it is when it already says so.
        if client.options().validate {
            validate::check_node_except(op.rules, body.root(), "stream", &mut |line| {
                client.log(Level::Debug, line)
            })?;
        }
        let pieces = body
            .with_member("stream", "true")
            .unwrap_or_else(|| vec![Cow::Borrowed(body.text().as_bytes())]);
        Ok(Spec {
            name: op.name,
            method: op.method,
            path: op.path_with(&[])?,
            auth: op.auth,
            body: Some((Cow::Borrowed("application/json"), pieces)),
            accept: "text/event-stream",
            reply: op.reply,
            stream: Some((kind, assemble)),
        })
    }
}

/// Checks a JSON body for an operation; the bytes to send are the body's own.
fn json_body<'t>(
    client: &Client,
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
            if client.options().validate {
                validate::check_node_noting(op.rules, b.root(), &mut |line| {
                    client.log(Level::Debug, line)
                })?;
            }
            Ok(Some(b.text().as_bytes()))
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
