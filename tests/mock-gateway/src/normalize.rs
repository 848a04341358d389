//! A mode in which the mock treats request paths as a normalising reverse
//! proxy does before it forwards them: `%2e` decoded to `.`, then `.` and `..`
//! segments removed (RFC 3986 remove_dot_segments). `/v1/videos/../remix`
//! becomes `/v1/remix`. Tests turn it on to show what such a path would reach.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Uri;

use crate::state::Shared;

/// Runs before routing (it wraps the whole router): rewrites the path when the mode is on.
pub async fn rewrite(State(shared): State<Arc<Shared>>, mut req: Request) -> Request {
    if !shared.normalize_paths() || req.uri().path().starts_with("/__mock/") {
        return req;
    }
    let path = remove_dot_segments(req.uri().path());
    let path_and_query = match req.uri().query() {
        Some(q) => format!("{path}?{q}"),
        None => path,
    };
    let mut parts = req.uri().clone().into_parts();
    if let Ok(pq) = path_and_query.parse() {
        parts.path_and_query = Some(pq);
        if let Ok(uri) = Uri::from_parts(parts) {
            *req.uri_mut() = uri;
        }
    }
    req
}

/// `/a/b/../c/./d` -> `/a/c/d`; `%2e` counts as `.`.
pub fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let n = segments.len();
    for (i, raw) in segments.iter().enumerate() {
        let decoded = raw.to_ascii_lowercase().replace("%2e", ".");
        match decoded.as_str() {
            "." => {
                if i + 1 == n {
                    out.push("");
                }
            }
            ".." => {
                out.pop();
                if i + 1 == n {
                    out.push("");
                }
            }
            _ => out.push(raw),
        }
    }
    format!("/{}", out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_segments_go_as_a_proxy_would_take_them() {
        assert_eq!(remove_dot_segments("/v1/videos/../remix"), "/v1/remix");
        assert_eq!(remove_dot_segments("/v1/videos/%2E%2e/remix"), "/v1/remix");
        assert_eq!(remove_dot_segments("/v1/videos/.."), "/v1/");
        assert_eq!(remove_dot_segments("/v1/./videos/x"), "/v1/videos/x");
        assert_eq!(remove_dot_segments("/v1/videos/abc"), "/v1/videos/abc");
        assert_eq!(remove_dot_segments("/../../x"), "/x");
    }
}
