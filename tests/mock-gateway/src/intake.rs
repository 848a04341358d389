//! The outer middleware every request passes through: control endpoints go straight on; all
//! others are recorded first (so tests can count retries) and then meet the fault queue.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::errors::ApiError;
use crate::faults::{self, Action, Fault};
use crate::record::RecordedRequest;
use crate::state::Shared;

/// Largest body the mock reads: room for a 50 MB video as a base64 data URI, and then some.
const BODY_LIMIT: usize = 256 * 1024 * 1024;

/// Per-request context handed to handlers as an extension.
#[derive(Clone)]
pub struct Ctx {
    pub rec: Arc<RecordedRequest>,
    /// A stream fault taken for this request; the stream builder applies it.
    pub stream_fault: Option<Action>,
}

pub async fn intake(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if req.uri().path().starts_with("/__mock/") {
        return next.run(req).await;
    }
    let raw_pending = shared.raw_pending();
    let mut response = answer(shared, req, next).await;
    if raw_pending {
        // The next (faulted) request must come on a fresh connection: see raw.rs.
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    // Every API answer (faults included) names itself, as gateways do, so clients can
    // show which request failed.
    let n = REQUEST_IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Ok(v) = axum::http::HeaderValue::from_str(&format!("req_mock_{n}")) {
        response.headers_mut().insert("x-request-id", v);
    }
    response
}

static REQUEST_IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

async fn answer(shared: Arc<Shared>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(b) => b,
        Err(_) => return ApiError::bad_body("body: could not be read").into_response(),
    };
    let rec = Arc::new(RecordedRequest::capture(&parts, &bytes));
    shared.record((*rec).clone());

    let mut stream_fault = None;
    if let Some(Fault { action, .. }) = shared.take_fault(&rec.path, is_stream(&rec)) {
        match action {
            Action::Delay { ms } => tokio::time::sleep(Duration::from_millis(ms)).await,
            a if a.is_stream() => stream_fault = Some(a),
            a => return faults::respond(&a),
        }
    }
    parts.extensions.insert(Ctx { rec, stream_fault });
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Stream faults only match requests that will be answered with a stream.
fn is_stream(rec: &RecordedRequest) -> bool {
    let streams = matches!(rec.path.as_str(), "/v1/chat/completions" | "/v1/responses");
    streams
        && rec.method == "POST"
        && rec.json.as_ref().and_then(|j| j.get("stream")) == Some(&Value::Bool(true))
}
