//! Errors and the status codes that the C ABI returns.
//!
//! Every failure maps to one status (`Error::status`) and one error-JSON object
//! (`Error::to_json`), so each binding reports the same thing the same way.

use serde_json::{json, Map, Value};

/// Success.
pub const GW_OK: i32 = 0;
/// `gw_stream_next`: the stream ended after its terminal event (not an error).
pub const GW_DONE: i32 = 1;
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

    /// The error-JSON contract: `{"error":{"message","type","code","status"}}`.
    ///
    /// A gateway error body that already has that shape is passed through (with
    /// `status` added); a vendor failure returns the vendor's own body.
    pub fn to_json(&self) -> String {
        let status = self.status();
        match self {
            Error::Vendor { body, .. } => return body.clone(),
            Error::Http {
                body: Some(body), ..
            } => {
                if let Some(passed) = server_error_body(body, status) {
                    return passed;
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
                inner
                    .entry("message")
                    .or_insert_with(|| Value::from(message.as_str()));
                inner.entry("type").or_insert_with(|| "stream_error".into());
                inner.entry("code").or_insert_with(|| "stream".into());
                inner.insert("status".into(), status.into());
                return json!({ "error": inner }).to_string();
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
        json!({ "error": inner }).to_string()
    }

    /// Replaces every occurrence of `secret` in the message (and body) with `[REDACTED]`.
    pub(crate) fn redact(self, secret: &str) -> Self {
        if secret.is_empty() {
            return self;
        }
        let r = |s: String| s.replace(secret, "[REDACTED]");
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
                body: r(body),
            },
            Error::Stream { message, body } => Error::Stream {
                message: r(message),
                body: body.map(|b| serde_json::from_str(&r(b.to_string())).unwrap_or(Value::Null)),
            },
            Error::TooLarge(m) => Error::TooLarge(r(m)),
            Error::Http {
                status,
                message,
                body,
            } => Error::Http {
                status,
                message: r(message),
                body: body.map(r),
            },
            Error::Internal(m) => Error::Internal(r(m)),
            Error::Cancelled => Error::Cancelled,
        }
    }
}

/// The server's `{"error":{...}}` body with `status` added, or None when the body
/// is not of that shape (an HTML page from a proxy, say).
fn server_error_body(body: &str, status: i32) -> Option<String> {
    let mut value: Value = serde_json::from_str(body).ok()?;
    let inner = value.get_mut("error")?.as_object_mut()?;
    inner.entry("status").or_insert(status.into());
    Some(value.to_string())
}

/// A short human message for an HTTP error body: the server's `error.message`
/// when it has one, else the start of the body.
pub(crate) fn http_error_message(status: u16, body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        v.get("error").and_then(|e| match e {
            Value::Object(o) => o.get("message").and_then(Value::as_str).map(String::from),
            Value::String(s) => Some(s.clone()),
            _ => None,
        })
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
