//! What a caller may want to know about the last exchange on a handle
//! (`gw_client_last_response`): status, request id, headers, attempts, time.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use ureq::http::HeaderMap;

/// The answer that ended a call (success, or failure with an HTTP answer).
#[derive(Clone, Debug, PartialEq)]
pub struct ResponseMeta {
    pub status: u16,
    /// `x-request-id` (or `request-id`) when the gateway sent one.
    pub request_id: Option<String>,
    /// Header names in lower case; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// Attempts the call made, retries included.
    pub attempts: u32,
    pub elapsed_ms: u64,
    /// The URL that answered, never with the key in it.
    pub url: String,
}

impl ResponseMeta {
    pub(crate) fn read(
        status: u16,
        headers: &HeaderMap,
        attempts: u32,
        elapsed_ms: u64,
        url: &str,
    ) -> ResponseMeta {
        let mut map: BTreeMap<String, String> = BTreeMap::new();
        for (name, value) in headers {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            map.entry(name.as_str().to_ascii_lowercase())
                .and_modify(|v| {
                    v.push_str(", ");
                    v.push_str(&value);
                })
                .or_insert(value);
        }
        let request_id = ["x-request-id", "request-id", "openai-request-id"]
            .iter()
            .find_map(|k| map.get(*k).cloned());
        ResponseMeta {
            status,
            request_id,
            headers: map,
            attempts,
            elapsed_ms,
            url: url.to_string(),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "status": self.status,
            "request_id": self.request_id,
            "headers": self.headers,
            "attempts": self.attempts,
            "elapsed_ms": self.elapsed_ms,
            "url": self.url,
        })
    }
}
