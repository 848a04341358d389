//! API-key check for every served endpoint: `?key=` on `/v1beta/...`, `Authorization: Bearer`
//! everywhere else, as the API document's Authentication section says.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::errors::ApiError;
use crate::state::Shared;

/// Route layer: rejects the request with the spec's 401 unless it carries the right key.
pub async fn require_key(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let presented = if req.uri().path().starts_with("/v1beta/") {
        // The native format ignores the Authorization header on purpose.
        req.uri().query().and_then(query_key)
    } else {
        req.headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer)
            .map(str::to_string)
    };
    match presented {
        Some(k) if k == shared.api_key => next.run(req).await,
        // Never echo what was presented.
        _ => ApiError::unauthorized().into_response(),
    }
}

fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The `key` parameter of a raw query string, percent-decoded.
fn query_key(query: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == "key").then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_key() {
        assert_eq!(
            query_key("alt=sse&key=sk%2Dtest").as_deref(),
            Some("sk-test")
        );
        assert_eq!(query_key("key=a%zz").as_deref(), Some("a%zz"));
        assert_eq!(query_key("keys=x"), None);
        assert_eq!(bearer("Bearer  sk-1 "), Some("sk-1"));
        assert_eq!(bearer("Basic sk-1"), None);
    }
}
