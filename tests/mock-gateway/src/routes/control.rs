//! `/__mock/*`: the test-facing control surface for clients that run the binary. No auth,
//! never recorded, never faulted.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::errors::ApiError;
use crate::faults;
use crate::state::Shared;

/// `POST /__mock/faults`: a fault object or an array of them, appended to the queue.
pub async fn push_faults(State(shared): State<Arc<Shared>>, body: axum::body::Bytes) -> Response {
    let parsed = serde_json::from_slice::<Value>(&body)
        .map_err(|e| e.to_string())
        .and_then(|v| faults::parse(&v));
    match parsed {
        Ok(list) => {
            let added = list.len();
            let pending = shared.push_faults(list);
            Json(json!({"queued": added, "pending": pending})).into_response()
        }
        Err(msg) => ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_fault",
            msg,
        )
        .into_response(),
    }
}

/// `GET /__mock/faults`: the faults still queued, with their remaining `times`.
pub async fn list_faults(State(shared): State<Arc<Shared>>) -> Json<Value> {
    Json(Value::Array(shared.pending_faults()))
}

/// `GET /__mock/requests`: every recorded request, oldest first.
pub async fn requests(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.requests()).into_response()
}

/// `POST /__mock/reset`: forget recordings, faults, tasks and the id counter.
///
/// The body is read (and ignored) so the connection stays reusable: hyper closes a
/// keep-alive connection whose request body is still unread when the answer goes out,
/// and a client that reuses it races that close.
pub async fn reset(State(shared): State<Arc<Shared>>, _body: axum::body::Bytes) -> Json<Value> {
    shared.reset();
    Json(json!({"reset": true}))
}
