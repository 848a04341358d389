//! Fault injection: the queue's entries, how they are parsed from JSON, and the answers of the
//! non-stream ones (stream faults are played by `stream.rs`). Tests drive every failure path
//! of the client with these.

use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use crate::shapes::Shape;

/// One queued fault.
#[derive(Clone, Debug)]
pub struct Fault {
    /// Path prefix the fault applies to; None matches every path.
    pub matches: Option<String>,
    /// Requests left before the fault is used up.
    pub times: u64,
    pub action: Action,
    /// The JSON it came from, for `GET /__mock/faults`.
    pub source: Value,
}

#[derive(Clone, Debug)]
pub enum Action {
    Status {
        status: StatusCode,
        headers: Vec<(String, String)>,
        body: Option<String>,
        content_type: String,
    },
    Delay {
        ms: u64,
    },
    Garbage,
    WrongShape,
    HugeBody {
        bytes: usize,
    },
    Redirect {
        status: StatusCode,
        location: String,
    },
    /// An error status whose body is shaped as some real servers send it (see `error_body`).
    ErrorBody {
        status: StatusCode,
        shape: ErrorShape,
    },
    // Stream faults: only streaming chat / Responses requests match them.
    Reset {
        after: usize,
    },
    Truncate {
        after: usize,
    },
    StreamError {
        after: usize,
    },
    GarbageEvent {
        after: usize,
    },
    Drip {
        interval_ms: u64,
    },
    /// A gzip-compressed answer: `body`, then `pad_bytes` zeros (a zip bomb when large).
    Gzip {
        body: String,
        pad_bytes: usize,
    },
    /// Bytes written as they are on a fresh connection (see raw.rs), then `end`.
    Raw {
        bytes: String,
        end: RawEnd,
    },
    HugeLine {
        after: usize,
        bytes: usize,
    },
    /// The stream is played in another shape (`shapes.rs`).
    StreamShape {
        shape: Shape,
    },
}

/// Error bodies that are not the OpenAI `{"error":{message,type,code}}` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorShape {
    /// The error object as an event stream: `data: {"error":{...}}` then `data: [DONE]`.
    Sse,
    /// generateContent's `{"error":{"code":400,"message":..,"status":"INVALID_ARGUMENT"}}`.
    Google,
    /// A proxy's HTML page.
    Html,
    /// Plain text.
    Plain,
}

/// How a raw answer ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawEnd {
    /// FIN after the bytes.
    Close,
    /// RST after the bytes (SO_LINGER 0).
    Reset,
    /// Nothing more, connection kept open.
    Hang,
}

impl Action {
    pub fn is_raw(&self) -> bool {
        matches!(self, Action::Raw { .. })
    }

    pub fn is_stream(&self) -> bool {
        matches!(
            self,
            Action::Reset { .. }
                | Action::Truncate { .. }
                | Action::StreamError { .. }
                | Action::GarbageEvent { .. }
                | Action::Drip { .. }
                | Action::HugeLine { .. }
                | Action::StreamShape { .. }
        )
    }
}

impl Fault {
    /// Whether this fault applies to a request for `path`.
    pub fn applies(&self, path: &str, is_stream: bool) -> bool {
        let path_ok = self
            .matches
            .as_deref()
            .map_or(true, |m| path.starts_with(m));
        // A shape waits for a stream of its own endpoint.
        let endpoint_ok = match &self.action {
            Action::StreamShape { shape } => path == shape.path(),
            _ => true,
        };
        // Raw faults are played by raw.rs before hyper sees the request.
        path_ok && endpoint_ok && !self.action.is_raw() && (is_stream || !self.action.is_stream())
    }
}

/// Parses a fault object or an array of them (the body of `POST /__mock/faults`).
pub fn parse(value: &Value) -> Result<Vec<Fault>, String> {
    match value {
        Value::Array(items) => items.iter().map(parse_one).collect(),
        Value::Object(_) => parse_one(value).map(|f| vec![f]),
        _ => Err("fault must be an object or an array of objects".into()),
    }
}

fn parse_one(v: &Value) -> Result<Fault, String> {
    let obj = v.as_object().ok_or("fault must be an object")?;
    let matches = match obj.get("match") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("match: must be a string".into()),
    };
    let times = match obj.get("times") {
        None | Some(Value::Null) => 1,
        Some(t) => t
            .as_u64()
            .filter(|t| *t >= 1)
            .ok_or("times: must be an integer >= 1")?,
    };
    let action = obj
        .get("action")
        .and_then(Value::as_str)
        .ok_or("action: is required")?;
    let uint = |field: &str, default: u64| -> Result<u64, String> {
        match obj.get(field) {
            None | Some(Value::Null) => Ok(default),
            Some(n) => n
                .as_u64()
                .ok_or_else(|| format!("{field}: must be a non-negative integer")),
        }
    };
    let after = || uint("after_events", 2).map(|n| n as usize);
    let action = match action {
        "status" => {
            let code = obj
                .get("status")
                .and_then(Value::as_u64)
                .ok_or("status: is required")?;
            let status = u16::try_from(code)
                .ok()
                .and_then(|c| StatusCode::from_u16(c).ok())
                .ok_or("status: must be an HTTP status code")?;
            let headers = match obj.get("headers") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(h)) => h
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().map_or_else(|| v.to_string(), str::to_string),
                        )
                    })
                    .collect(),
                Some(_) => return Err("headers: must be an object".into()),
            };
            let text = |f: &str| obj.get(f).and_then(Value::as_str).map(str::to_string);
            Action::Status {
                status,
                headers,
                body: text("body"),
                content_type: text("content_type").unwrap_or_else(|| "application/json".into()),
            }
        }
        "delay" => Action::Delay {
            ms: uint("ms", 1000)?,
        },
        "raw" => Action::Raw {
            bytes: obj
                .get("bytes")
                .and_then(Value::as_str)
                .ok_or("bytes: is required (the answer's bytes, as text)")?
                .to_string(),
            end: match obj.get("then").and_then(Value::as_str).unwrap_or("close") {
                "close" => RawEnd::Close,
                "reset" => RawEnd::Reset,
                "hang" => RawEnd::Hang,
                other => {
                    return Err(format!(
                        "then: must be close, reset or hang (got {other:?})"
                    ))
                }
            },
        },
        "gzip" => Action::Gzip {
            body: obj
                .get("body")
                .and_then(Value::as_str)
                .unwrap_or("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"zipped\"},\"finish_reason\":\"stop\"}]}")
                .to_string(),
            pad_bytes: uint("pad_bytes", 0)? as usize,
        },
        "garbage" => Action::Garbage,
        "wrong_shape" => Action::WrongShape,
        "huge_body" => Action::HugeBody {
            bytes: uint("bytes", 1 << 20)? as usize,
        },
        "redirect" => Action::Redirect {
            status: StatusCode::from_u16(uint("status", 307)? as u16)
                .map_err(|_| "status: must be an HTTP status code")?,
            location: obj
                .get("location")
                .and_then(Value::as_str)
                .ok_or("location: is required")?
                .to_string(),
        },
        "reset" => Action::Reset { after: after()? },
        "truncate" => Action::Truncate { after: after()? },
        "stream_error" => Action::StreamError { after: after()? },
        "garbage_event" => Action::GarbageEvent { after: after()? },
        "drip" => Action::Drip {
            interval_ms: uint("interval_ms", 200)?,
        },
        "huge_line" => Action::HugeLine {
            after: after()?,
            bytes: uint("bytes", 1 << 20)? as usize,
        },
        "stream_shape" => Action::StreamShape {
            shape: Shape::parse(
                obj.get("shape")
                    .and_then(Value::as_str)
                    .ok_or("shape: is required")?,
            )?,
        },
        "error_body" => Action::ErrorBody {
            status: StatusCode::from_u16(uint("status", 500)? as u16)
                .map_err(|_| "status: must be an HTTP status code")?,
            shape: match obj.get("shape").and_then(Value::as_str) {
                Some("sse") => ErrorShape::Sse,
                Some("google") => ErrorShape::Google,
                Some("html") => ErrorShape::Html,
                Some("plain") => ErrorShape::Plain,
                _ => return Err("shape: must be one of sse, google, html, plain".into()),
            },
        },
        other => return Err(format!("action: unknown action {other:?}")),
    };
    Ok(Fault {
        matches,
        times,
        action,
        source: v.clone(),
    })
}

/// The answer for a non-stream fault (never called for Delay or stream actions).
pub fn respond(action: &Action) -> Response {
    if let Action::Gzip { body, pad_bytes } = action {
        return gzip_answer(body, *pad_bytes);
    }
    let (status, ctype, body, extra): (StatusCode, &str, String, Vec<(String, String)>) =
        match action {
            Action::Status {
                status,
                headers,
                body,
                content_type,
            } => (
                *status,
                content_type,
                body.clone().unwrap_or_else(|| default_error(*status)),
                headers.clone(),
            ),
            Action::Garbage => (
                StatusCode::OK,
                "application/json",
                "{\"id\": \"broken".into(),
                vec![],
            ),
            Action::WrongShape => (
                StatusCode::OK,
                "application/json",
                "{\"unexpected\": true}".into(),
                vec![],
            ),
            Action::HugeBody { bytes } => {
                let pad = "x".repeat(bytes.saturating_sub(10));
                (
                    StatusCode::OK,
                    "application/json",
                    format!("{{\"pad\":\"{pad}\"}}"),
                    vec![],
                )
            }
            Action::ErrorBody { status, shape } => {
                let (ctype, body) = error_body(*status, *shape);
                (*status, ctype, body, vec![])
            }
            Action::Redirect { status, location } => (
                *status,
                "",
                String::new(),
                vec![("location".into(), location.clone())],
            ),
            _ => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "application/json",
                default_error(StatusCode::INTERNAL_SERVER_ERROR),
                vec![],
            ),
        };
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    // A redirect has no body, so no content type either.
    if let (false, Ok(v)) = (ctype.is_empty(), HeaderValue::from_str(ctype)) {
        h.insert(header::CONTENT_TYPE, v);
    }
    for (k, v) in extra {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::from_str(&v)) {
            h.append(k, v);
        }
    }
    resp
}

/// An `error_body` fault's content type and body.
fn error_body(status: StatusCode, shape: ErrorShape) -> (&'static str, String) {
    let n = status.as_u16();
    match shape {
        ErrorShape::Sse => (
            "text/event-stream",
            format!(
                "data: {}\n\ndata: [DONE]\n\n",
                json!({"error": {"message": format!("Upstream failed with {n}"), "type": "server_error", "code": "upstream_error"}})
            ),
        ),
        ErrorShape::Google => (
            "application/json",
            json!({"error": {
                "code": n,
                "message": "Invalid JSON payload received. Unknown name \"foo\".",
                "status": "INVALID_ARGUMENT",
                "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest"}],
            }})
            .to_string(),
        ),
        ErrorShape::Html => (
            "text/html",
            format!("<html><head><title>{n} Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"),
        ),
        ErrorShape::Plain => ("text/plain", format!("upstream connect error ({n})")),
    }
}

fn gzip_answer(body: &str, pad_bytes: usize) -> Response {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = encoder.write_all(body.as_bytes());
    let zeros = vec![b' '; 1 << 16];
    let mut left = pad_bytes;
    while left > 0 {
        let n = left.min(zeros.len());
        let _ = encoder.write_all(&zeros[..n]);
        left -= n;
    }
    let compressed = encoder.finish().unwrap_or_default();
    let mut resp = Response::new(Body::from(compressed));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    resp
}

/// The error object an injected status carries when the fault gives no body.
fn default_error(status: StatusCode) -> String {
    let kind = match status.as_u16() {
        429 => "rate_limit_error",
        401 => "authentication_error",
        403 => "permission_error",
        400..=499 => "invalid_request_error",
        _ => "server_error",
    };
    json!({"error": {
        "message": format!("Injected fault: status {}", status.as_u16()),
        "type": kind,
        "code": "injected_fault",
    }})
    .to_string()
}
