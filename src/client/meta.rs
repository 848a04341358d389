//! What a caller may want to know about the last exchange on a handle
//! (`gw_client_last_response`): status, request id, headers, attempts, time.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};
use ureq::http::{HeaderMap, HeaderName, HeaderValue};

/// The headers that may carry the request id, in the order they are looked for
/// (names made once: a lookup by text would parse the name each time).
static REQUEST_ID_NAMES: [HeaderName; 3] = [
    HeaderName::from_static("x-request-id"),
    HeaderName::from_static("request-id"),
    HeaderName::from_static("openai-request-id"),
];

/// The answer that ended a call (success, or failure with an HTTP answer).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseMeta {
    pub status: u16,
    /// `x-request-id` (or `request-id`) when the gateway sent one.
    pub request_id: Option<String>,
    /// The answer's headers as they came (the exchange's own map, moved here),
    /// put in order only when someone asks (`headers`), since most callers never do.
    raw_headers: HeaderMap,
    /// Attempts the call made, retries included.
    pub attempts: u32,
    pub elapsed_ms: u64,
    /// The URL that answered, never with the key in it.
    pub url: String,
}

/// The metadata as `record` keeps it: the headers redacted at once, the request id
/// found and the URL redacted (and stripped of `?key=`) only when someone asks
/// (`meta`), since most calls never do. The URL kept for that is no part of
/// anything shown: only `meta` reads it, and redacts it first.
pub(crate) struct LastResponse {
    meta: ResponseMeta,
    /// The URL as the exchange had it and the key, while `meta`'s request id and
    /// URL are not made yet.
    pending: Option<(String, Arc<str>)>,
}

impl LastResponse {
    pub(crate) fn new(
        status: u16,
        headers: HeaderMap,
        attempts: u32,
        elapsed_ms: u64,
        url: String,
        secret: Arc<str>,
    ) -> LastResponse {
        let meta = ResponseMeta {
            status,
            request_id: None,
            raw_headers: redacted_headers(headers, &secret),
            attempts,
            elapsed_ms,
            url: String::new(),
        };
        LastResponse {
            meta,
            pending: Some((url, secret)),
        }
    }

    /// The metadata, whole.
    pub(crate) fn meta(&mut self) -> &ResponseMeta {
        if let Some((url, secret)) = self.pending.take() {
            let meta = &mut self.meta;
            meta.request_id = REQUEST_ID_NAMES
                .iter()
                .find_map(|k| joined(&meta.raw_headers, k));
            let url = crate::redact::strip_query_key(&url).into_owned();
            meta.url = crate::redact::text(url, &secret);
        }
        &self.meta
    }
}

impl ResponseMeta {
    /// `secret` (the API key) is taken out of every header name and value and
    /// the URL, in any case: a server may echo it in a header.
    #[cfg(test)]
    pub(crate) fn read(
        status: u16,
        headers: HeaderMap,
        attempts: u32,
        elapsed_ms: u64,
        url: &str,
        secret: &str,
    ) -> ResponseMeta {
        let mut last = LastResponse::new(
            status,
            headers,
            attempts,
            elapsed_ms,
            url.to_string(),
            Arc::from(secret),
        );
        last.meta();
        last.meta
    }

    /// Header names in lower case; repeated headers joined with ", ".
    pub fn headers(&self) -> BTreeMap<String, String> {
        self.raw_headers
            .keys()
            .filter_map(|name| Some((name.as_str().to_string(), joined(&self.raw_headers, name)?)))
            .collect()
    }

    /// `to_json()` as text, byte for byte, written straight from the metadata
    /// (no JSON value, no ordered map of copies): `gw_client_last_response`.
    pub(crate) fn to_json_text(&self) -> String {
        let mut out = Vec::with_capacity(160 + 48 * self.raw_headers.keys_len() + self.url.len());
        let number = |out: &mut Vec<u8>, n: u64| {
            serde_json::to_writer(out, &n).expect("a number is written to memory")
        };
        out.extend_from_slice(b"{\"status\":");
        number(&mut out, u64::from(self.status));
        out.extend_from_slice(b",\"request_id\":");
        match &self.request_id {
            Some(id) => json_string(&mut out, id),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(b",\"headers\":{");
        // Every value once, in the map's order (no lookup by name); the stable sort by
        // name keeps a repeated name's values in the order they came.
        let mut entries: Vec<(&HeaderName, &HeaderValue)> = self.raw_headers.iter().collect();
        entries.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        let mut rest = &entries[..];
        while let Some(((name, first), _)) = rest.split_first() {
            let same = rest.iter().take_while(|(n, _)| n == name).count();
            if rest.len() < entries.len() {
                out.push(b',');
            }
            json_string(&mut out, name.as_str());
            out.push(b':');
            if same == 1 {
                json_string(&mut out, &value_text(first));
            } else {
                let values: Vec<_> = rest[..same].iter().map(|(_, v)| value_text(v)).collect();
                json_string(&mut out, &values.join(", "));
            }
            rest = &rest[same..];
        }
        out.extend_from_slice(b"},\"attempts\":");
        number(&mut out, u64::from(self.attempts));
        out.extend_from_slice(b",\"elapsed_ms\":");
        number(&mut out, self.elapsed_ms);
        out.extend_from_slice(b",\"url\":");
        json_string(&mut out, &self.url);
        out.push(b'}');
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    pub fn to_json(&self) -> Value {
        json!({
            "status": self.status,
            "request_id": self.request_id,
            "headers": self.headers(),
            "attempts": self.attempts,
            "elapsed_ms": self.elapsed_ms,
            "url": self.url,
        })
    }
}

/// `headers` with `secret` taken out of every name and value (given back as they
/// are when none holds it, the common case). A name keeps its place with the key's
/// spelling replaced by `redacted` (a header name cannot hold `[REDACTED]`).
fn redacted_headers(headers: HeaderMap, secret: &str) -> HeaderMap {
    // A first look on the raw bytes (no UTF-8 check, no copy): an API key is ASCII
    // (it must make a valid header), so bytes it rules out do not hold the key.
    let screen = crate::redact::Screen::new(secret);
    let ascii = secret.is_ascii();
    let holds = |bytes: &[u8]| {
        // Every spelling of an ASCII key is ASCII and at least as long as the key, and
        // the lossy reading below makes no ASCII byte: a shorter text cannot hold it
        // (a real key is longer than most header names and values).
        if ascii && bytes.len() < secret.len() {
            return false;
        }
        (!ascii || screen.may_hold(bytes))
            && crate::redact::holds(&String::from_utf8_lossy(bytes), secret)
    };
    if !headers
        .iter()
        .any(|(n, v)| holds(n.as_str().as_bytes()) || holds(v.as_bytes()))
    {
        return headers;
    }
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in &headers {
        let name = if holds(name.as_str().as_bytes()) {
            let text = crate::redact::text(name.as_str().to_string(), secret);
            HeaderName::from_bytes(text.replace("[REDACTED]", "redacted").as_bytes())
                .unwrap_or_else(|_| HeaderName::from_static("x-redacted"))
        } else {
            name.clone()
        };
        let value = if holds(value.as_bytes()) {
            let text = String::from_utf8_lossy(value.as_bytes()).into_owned();
            HeaderValue::from_str(&crate::redact::text(text, secret))
                .unwrap_or_else(|_| HeaderValue::from_static("[REDACTED]"))
        } else {
            value.clone()
        };
        out.append(name, value);
    }
    out
}

/// A header value as text: as it is when it is visible ASCII (most are), else
/// read as UTF-8 with what is not replaced.
fn value_text(value: &HeaderValue) -> Cow<'_, str> {
    match value.to_str() {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(value.as_bytes()),
    }
}

/// `text` as a JSON string, as serde_json writes it: copied as it is between its
/// quotes when nothing in it needs an escape (a control character, `"`, `\\`).
fn json_string(out: &mut Vec<u8>, text: &str) {
    if crate::stream::json_cursor::plain_run(text.as_bytes(), 0) == text.len() {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
    } else {
        serde_json::to_writer(out, text).expect("a string is written to memory");
    }
}

/// The values of header `name` joined with ", " (None when absent).
fn joined<K: ureq::http::header::AsHeaderName>(headers: &HeaderMap, name: K) -> Option<String> {
    let mut values = headers.get_all(name).iter().peekable();
    let first = values.next()?;
    if values.peek().is_none() {
        // One value (the common case): no joining.
        return Some(value_text(first).into_owned());
    }
    let mut text: Option<String> = None;
    for value in std::iter::once(first).chain(values) {
        let value = String::from_utf8_lossy(value.as_bytes());
        match &mut text {
            Some(t) => {
                t.push_str(", ");
                t.push_str(&value);
            }
            None => text = Some(value.into_owned()),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(headers: &[(&str, &[u8])], request_id: bool, secret: &str) -> ResponseMeta {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_bytes(value).unwrap(),
            );
        }
        if request_id {
            map.append("x-request-id", HeaderValue::from_static("req_1"));
        }
        let url = "https://gw.example/v1/chat/completions?a=\"b\"&c=\u{e9}";
        ResponseMeta::read(429, map, 3, 812, url, secret)
    }

    #[test]
    fn the_json_text_is_the_json_value_written_out() {
        let cases = [
            meta(&[], false, "sk-1"),
            meta(&[], true, "sk-1"),
            meta(
                &[
                    ("content-type", b"application/json"),
                    ("x-b", b"1"),
                    ("x-a", b"tab\there \"quoted\" back\\slash"),
                    ("x-b", b"2"),
                    ("x-latin", b"caf\xe9 \xff"),
                    ("x-echo", b"key sk-1 and SK-1 and sk%2d1"),
                    ("x-sk-1-name", b"v"),
                    ("date", b"Fri, 27 Nov 2026 20:34:47 GMT"),
                ],
                true,
                "sk-1",
            ),
        ];
        for m in &cases {
            assert_eq!(m.to_json_text(), m.to_json().to_string());
        }
        assert!(!cases[2]
            .to_json_text()
            .to_ascii_lowercase()
            .contains("sk-1"));
    }
}
