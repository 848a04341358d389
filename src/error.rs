//! Errors and the status codes that the C ABI returns.
//!
//! Every failure maps to one status (`Error::status`) and one error-JSON object
//! (`Error::to_json`), so each binding reports the same thing the same way.

use serde_json::{json, Map, Value};

/// Success.
pub const GW_OK: i32 = 0;
/// `gw_stream_next`: the stream ended after its terminal event (not an error).
pub const GW_DONE: i32 = 1;
/// `gw_json_get`: the document is JSON but holds no value (or `null`) at the
/// path (not an error).
pub const GW_ABSENT: i32 = 2;
/// `gw_stream_next_buffered`: no event can be made from the bytes already read;
/// `gw_stream_next` (which may read) gives the next one (not an error).
pub const GW_WOULD_BLOCK: i32 = 3;
/// The gateway answered 400.
pub const GW_BAD_REQUEST: i32 = 400;
/// The gateway answered 401 (missing or invalid API key).
pub const GW_UNAUTHORIZED: i32 = 401;
/// The gateway answered 403.
pub const GW_FORBIDDEN: i32 = 403;
/// The gateway answered 404.
pub const GW_NOT_FOUND: i32 = 404;
/// The gateway answered 429 (after the retries ran out).
pub const GW_RATE_LIMITED: i32 = 429;
/// The gateway answered 500 (after the retries ran out).
pub const GW_SERVER_ERROR: i32 = 500;
/// NULL pointer, invalid UTF-8 or JSON, bad option, or a documented limit broken (nothing was sent).
pub const GW_INVALID_ARGUMENT: i32 = -1;
/// DNS, connect, reset or TLS failure.
pub const GW_NETWORK: i32 = -2;
/// The connect, read-idle or total deadline passed.
pub const GW_TIMEOUT: i32 = -3;
/// The gateway's answer is not what the API promises (bad JSON, wrong shape).
pub const GW_DECODE: i32 = -4;
/// Cancelled: `gw_client_cancel` on the handle, or a callback returned non-zero.
pub const GW_CANCELLED: i32 = -5;
/// A vendor-style body reports failure (vendor H `code` != 0, vendor M `code` != 1).
pub const GW_VENDOR: i32 = -6;
/// An error event inside a stream, or a stream that ended before its terminal event.
pub const GW_STREAM: i32 = -7;
/// An answer or a stream line over the configured size cap.
pub const GW_TOO_LARGE: i32 = -8;
/// A bug in gw (a caught panic).
pub const GW_INTERNAL: i32 = -99;

/// Everything that can go wrong in a gw call.
///
/// Messages never contain the API key: the client redacts it before an error
/// leaves `Client` (see `Client::redact`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Bad input: `param` names the field or argument when there is one.
    #[error("{message}")]
    InvalidArgument {
        message: String,
        param: Option<String>,
    },
    #[error("network error: {0}")]
    Network(String),
    #[error("timeout: {0}")]
    Timeout(String),
    #[error("unexpected answer from the gateway: {0}")]
    Decode(String),
    #[error("cancelled")]
    Cancelled,
    /// `body` is the vendor's whole answer, handed to the caller as is.
    #[error("vendor reported failure: {message}")]
    Vendor { message: String, body: String },
    /// `body` is the in-stream error object when the stream carried one.
    #[error("stream error: {message}")]
    Stream {
        message: String,
        body: Option<Value>,
    },
    #[error("too large: {0}")]
    TooLarge(String),
    /// A non-2xx answer; `body` is the server's own body when it sent one.
    #[error("HTTP {status}: {message}")]
    Http {
        status: u16,
        message: String,
        body: Option<String>,
    },
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            message: message.into(),
            param: None,
        }
    }

    pub fn invalid_param(param: &str, message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            message: message.into(),
            param: Some(param.to_string()),
        }
    }

    /// The status code the C ABI returns for this error.
    pub fn status(&self) -> i32 {
        match self {
            Error::InvalidArgument { .. } => GW_INVALID_ARGUMENT,
            Error::Network(_) => GW_NETWORK,
            Error::Timeout(_) => GW_TIMEOUT,
            Error::Decode(_) => GW_DECODE,
            Error::Cancelled => GW_CANCELLED,
            Error::Vendor { .. } => GW_VENDOR,
            Error::Stream { .. } => GW_STREAM,
            Error::TooLarge(_) => GW_TOO_LARGE,
            Error::Http { status, .. } => i32::from(*status),
            Error::Internal(_) => GW_INTERNAL,
        }
    }

    fn type_and_code(&self) -> (&'static str, String) {
        match self {
            Error::InvalidArgument { .. } => ("invalid_request_error", "invalid_argument".into()),
            Error::Network(_) => ("network_error", "network".into()),
            Error::Timeout(_) => ("timeout_error", "timeout".into()),
            Error::Decode(_) => ("decode_error", "decode".into()),
            Error::Cancelled => ("cancelled", "cancelled".into()),
            Error::Vendor { .. } => ("vendor_error", "vendor_failure".into()),
            Error::Stream { .. } => ("stream_error", "stream".into()),
            Error::TooLarge(_) => ("too_large", "too_large".into()),
            Error::Http { status, .. } => ("http_error", format!("http_{status}")),
            Error::Internal(_) => ("internal_error", "internal".into()),
        }
    }

    /// The error-JSON contract: `{"error":{"message","type","code","status"}}`,
    /// `message`, `type` and `code` strings and `status` a number.
    ///
    /// A server's error body keeps its own fields, with the contract's filled in
    /// (see `fill_contract`); a vendor failure returns the vendor's own body.
    pub fn to_json(&self) -> String {
        let status = self.status();
        match self {
            Error::Vendor { body, .. } => return body.clone(),
            Error::Http {
                body: Some(body), ..
            } => {
                if let Some((mut outer, mut inner)) = server_error(body) {
                    let (kind, code) = self.type_and_code();
                    fill_contract(&mut inner, &self.to_string(), kind, &code, status);
                    outer.insert("error".into(), Value::Object(inner));
                    return crate::api::json_text(&Value::Object(outer));
                }
            }
            Error::Stream {
                body: Some(Value::Object(obj)),
                message,
            } => {
                // In-stream errors come as {"error":{...}} (chat) or {"type":"error",...}
                // (Responses); normalise both to the contract, keeping the server's fields.
                let mut inner = match obj.get("error") {
                    Some(Value::Object(e)) => e.clone(),
                    _ => obj.clone(),
                };
                fill_contract(&mut inner, message, "stream_error", "stream", status);
                return crate::api::json_text(&json!({ "error": inner }));
            }
            _ => {}
        }
        let (kind, code) = self.type_and_code();
        let mut inner = Map::new();
        inner.insert("message".into(), self.to_string().into());
        inner.insert("type".into(), kind.into());
        inner.insert("code".into(), code.into());
        inner.insert("status".into(), status.into());
        if let Error::InvalidArgument { param: Some(p), .. } = self {
            inner.insert("param".into(), p.as_str().into());
        }
        crate::api::json_text(&json!({ "error": inner }))
    }

    /// Replaces every occurrence of `secret` with `[REDACTED]`: in messages as
    /// text, in bodies only inside JSON strings so they stay valid JSON
    /// (`redact.rs`).
    pub(crate) fn redact(self, secret: &str) -> Self {
        use crate::redact;
        if secret.is_empty() {
            return self;
        }
        let r = |s: String| redact::text(s, secret);
        let b = |s: String| redact::body(s, secret);
        match self {
            Error::InvalidArgument { message, param } => Error::InvalidArgument {
                message: r(message),
                param,
            },
            Error::Network(m) => Error::Network(r(m)),
            Error::Timeout(m) => Error::Timeout(r(m)),
            Error::Decode(m) => Error::Decode(r(m)),
            Error::Vendor { message, body } => Error::Vendor {
                message: r(message),
                body: b(body),
            },
            Error::Stream { message, body } => Error::Stream {
                message: r(message),
                body: body.map(|v| redact::value(v, secret)),
            },
            Error::TooLarge(m) => Error::TooLarge(r(m)),
            Error::Http {
                status,
                message,
                body,
            } => {
                // A message taken from the body (its first 200 characters, say) is taken
                // again from the redacted body: cut from the raw one, it could end inside
                // the key, and a prefix matches no spelling of it.
                let from_body = body
                    .as_deref()
                    .is_some_and(|raw| http_error_message(status, raw) == message);
                let body = body.map(b);
                let message = match &body {
                    Some(redacted) if from_body => http_error_message(status, redacted),
                    _ => r(message),
                };
                Error::Http {
                    status,
                    message,
                    body,
                }
            }
            Error::Internal(m) => Error::Internal(r(m)),
            Error::Cancelled => Error::Cancelled,
        }
    }
}

/// The server's error body as JSON: the body itself, or, for an event-stream body
/// (some servers answer an error status with `data: {"error":{...}}` and
/// `data: [DONE]`), the first `data:` line holding an error.
fn error_body_json(body: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        return Some(v);
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|v| v.get("error").is_some())
}

/// A JSON error body split into (its other top-level fields, its error object):
/// `{"error":{...}}`, `{"error":"text"}`, or a bare object (`{"message":..}`,
/// FastAPI's `{"detail":..}`). None for a body that is not JSON (HTML, text).
fn server_error(body: &str) -> Option<(Map<String, Value>, Map<String, Value>)> {
    let Value::Object(mut outer) = error_body_json(body)? else {
        return None;
    };
    let inner = match outer.shift_remove("error") {
        Some(Value::Object(e)) => e,
        Some(Value::String(s)) => Map::from_iter([("message".to_string(), Value::from(s))]),
        Some(other) => {
            outer.insert("error".into(), other);
            std::mem::take(&mut outer)
        }
        None => std::mem::take(&mut outer),
    };
    Some((outer, inner))
}

/// Makes `inner` hold the contract's four fields whatever the server sent: a field
/// of the right type is kept (the server's own `type`, `code`, `message`); one of
/// another type (generateContent's numeric `code`, its `status` word) moves to
/// `server_<name>` and gw's value takes its place; `status` is always the status gw
/// returns.
fn fill_contract(
    inner: &mut Map<String, Value>,
    message: &str,
    kind: &str,
    code: &str,
    status: i32,
) {
    let detail = inner
        .get("detail")
        .and_then(Value::as_str)
        .map(String::from);
    let defaults = [
        ("message", Value::from(detail.as_deref().unwrap_or(message))),
        ("type", Value::from(kind)),
        ("code", Value::from(code)),
    ];
    for (key, default) in defaults {
        match inner.get(key) {
            Some(Value::String(_)) => {}
            Some(_) => {
                let theirs = inner.insert(key.into(), default).unwrap_or_default();
                inner.insert(format!("server_{key}"), theirs);
            }
            None => {
                inner.insert(key.into(), default);
            }
        }
    }
    let status = Value::from(status);
    match inner.insert("status".into(), status.clone()) {
        Some(theirs) if theirs != status => {
            inner.insert("server_status".into(), theirs);
        }
        _ => {}
    }
}

/// A short human message for an HTTP error body: the server's error message
/// when it has one (in a JSON or an event-stream body), else the start of the body.
pub(crate) fn http_error_message(status: u16, body: &str) -> String {
    let from_json = server_error(body).and_then(|(_, inner)| {
        ["message", "detail"]
            .iter()
            .find_map(|k| inner.get(*k).and_then(Value::as_str).map(String::from))
    });
    from_json.unwrap_or_else(|| {
        let snippet: String = body.trim().chars().take(200).collect();
        if snippet.is_empty() {
            format!("the gateway answered {status} with an empty body")
        } else {
            snippet
        }
    })
}

/// The static name of a status code (`gw_status_str`).
pub fn status_str(status: i32) -> &'static str {
    match status {
        GW_OK => "GW_OK",
        GW_DONE => "GW_DONE",
        GW_ABSENT => "GW_ABSENT",
        GW_WOULD_BLOCK => "GW_WOULD_BLOCK",
        GW_BAD_REQUEST => "GW_BAD_REQUEST",
        GW_UNAUTHORIZED => "GW_UNAUTHORIZED",
        GW_FORBIDDEN => "GW_FORBIDDEN",
        GW_NOT_FOUND => "GW_NOT_FOUND",
        GW_RATE_LIMITED => "GW_RATE_LIMITED",
        GW_SERVER_ERROR => "GW_SERVER_ERROR",
        GW_INVALID_ARGUMENT => "GW_INVALID_ARGUMENT",
        GW_NETWORK => "GW_NETWORK",
        GW_TIMEOUT => "GW_TIMEOUT",
        GW_DECODE => "GW_DECODE",
        GW_CANCELLED => "GW_CANCELLED",
        GW_VENDOR => "GW_VENDOR",
        GW_STREAM => "GW_STREAM",
        GW_TOO_LARGE => "GW_TOO_LARGE",
        GW_INTERNAL => "GW_INTERNAL",
        100..=599 => "GW_HTTP_STATUS",
        _ => "GW_UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_error_body_passes_through_with_status() {
        let body = r#"{"error":{"message":"bad key","type":"authentication_error","code":"invalid_api_key"}}"#;
        let e = Error::Http {
            status: 401,
            message: "bad key".into(),
            body: Some(body.into()),
        };
        let v: Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["error"]["code"], "invalid_api_key");
        assert_eq!(v["error"]["status"], 401);
    }

    #[test]
    fn non_json_http_body_is_wrapped() {
        let e = Error::Http {
            status: 502,
            message: http_error_message(502, "<html>bad gateway</html>"),
            body: Some("<html>bad gateway</html>".into()),
        };
        let v: Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["error"]["code"], "http_502");
        assert_eq!(v["error"]["status"], 502);
        assert!(v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bad gateway"));
    }

    fn http(status: u16, body: &str) -> Value {
        let e = Error::Http {
            status,
            message: http_error_message(status, body),
            body: Some(body.into()),
        };
        serde_json::from_str::<Value>(&e.to_json()).unwrap()["error"].clone()
    }

    #[test]
    fn odd_error_bodies_fill_the_contract_and_keep_their_fields() {
        let google = http(
            400,
            r#"{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}"#,
        );
        assert_eq!(
            google,
            json!({"code": "http_400", "server_code": 400, "message": "bad", "status": 400,
                   "server_status": "INVALID_ARGUMENT", "type": "http_error"})
        );
        let fastapi = http(422, r#"{"detail":"Field required"}"#);
        assert_eq!(fastapi["message"], "Field required");
        assert_eq!(fastapi["code"], "http_422");
        let text = http(429, r#"{"error":"slow down"}"#);
        assert_eq!(text["message"], "slow down");
        let sse = http(
            500,
            "data: {\"error\":{\"message\":\"boom\",\"code\":\"x\"}}\n\ndata: [DONE]\n\n",
        );
        assert_eq!(
            (sse["message"].as_str(), sse["code"].as_str()),
            (Some("boom"), Some("x"))
        );
        assert_eq!(
            http_error_message(500, "data: {\"error\":{\"message\":\"boom\"}}"),
            "boom"
        );
    }

    #[test]
    fn redact_removes_secret_everywhere() {
        let e = Error::Network("GET https://h/v1beta/x?key=sk-secret failed".into())
            .redact("sk-secret");
        assert!(!e.to_json().contains("sk-secret"));
        assert!(e.to_string().contains("[REDACTED]"));
    }

    #[test]
    fn invalid_argument_names_param() {
        let v: Value =
            serde_json::from_str(&Error::invalid_param("stop", "stop: at most 4 items").to_json())
                .unwrap();
        assert_eq!(v["error"]["param"], "stop");
        assert_eq!(v["error"]["status"], -1);
    }
}
