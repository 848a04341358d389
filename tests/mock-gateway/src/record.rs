//! What the mock remembers about each request, so tests can assert on what the client sent.

use axum::http::request::Parts;
use base64::Engine as _;
use serde::Serialize;

use crate::multipart;

/// One request as received (control endpoints excluded).
#[derive(Clone, Debug, Serialize)]
pub struct RecordedRequest {
    pub method: String,
    /// Path only, exactly as sent (no percent-decoding).
    pub path: String,
    /// Raw query string, without the `?`.
    pub query: Option<String>,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Body as UTF-8 (lossy); for multipart the raw body, lossy.
    pub body: String,
    /// The parsed body when it is JSON.
    pub json: Option<serde_json::Value>,
    /// The parts when the content type is `multipart/form-data`.
    pub multipart: Option<Vec<RecordedPart>>,
}

/// One part of a `multipart/form-data` body.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RecordedPart {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    /// Size of the part's bytes.
    pub size: usize,
    /// The bytes as text, when they are valid UTF-8.
    pub text: Option<String>,
    /// The exact bytes, base64 (standard alphabet, padded).
    pub bytes_b64: String,
}

impl RecordedRequest {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Builds the record from the request head and its whole body.
    pub(crate) fn capture(parts: &Parts, body: &[u8]) -> RecordedRequest {
        let headers: Vec<(String, String)> = parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let content_type = parts
            .headers
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let multipart = multipart::boundary(content_type).and_then(|b| multipart::parse(body, &b));
        // JSON is recognised by content, not by header: a client that forgets the header
        // should still be assertable.
        let json = if multipart::boundary(content_type).is_some() || body.is_empty() {
            None
        } else {
            serde_json::from_slice(body).ok()
        };
        RecordedRequest {
            method: parts.method.as_str().to_string(),
            path: parts.uri.path().to_string(),
            query: parts.uri.query().map(str::to_string),
            headers,
            body: String::from_utf8_lossy(body).into_owned(),
            json,
            multipart,
        }
    }
}

impl RecordedPart {
    pub(crate) fn new(
        name: String,
        filename: Option<String>,
        content_type: Option<String>,
        bytes: &[u8],
    ) -> RecordedPart {
        RecordedPart {
            name,
            filename,
            content_type,
            size: bytes.len(),
            text: std::str::from_utf8(bytes).ok().map(str::to_string),
            bytes_b64: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    /// The part's exact bytes.
    pub fn bytes(&self) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD
            .decode(&self.bytes_b64)
            .unwrap_or_default()
    }
}
