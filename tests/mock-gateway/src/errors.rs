//! The gateway's error object, `{"error":{"message","type","code"}}`, as an axum response.
//! Every error the mock sends goes through here so the shape can never drift.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error answer: HTTP status plus the three documented fields.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub code: &'static str,
    pub message: String,
}

/// What every handler returns: a finished response or an error object.
pub type Reply = Result<Response, ApiError>;

impl ApiError {
    pub fn new(
        status: StatusCode,
        kind: &'static str,
        code: &'static str,
        message: String,
    ) -> Self {
        ApiError {
            status,
            kind,
            code,
            message,
        }
    }

    /// 400 for a broken documented limit or a missing field; `message` is "<field>: <rule>".
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_parameter",
            message.into(),
        )
    }

    /// 400 for a body that is not the JSON (or multipart) the endpoint takes.
    pub fn bad_body(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            "invalid_json",
            message.into(),
        )
    }

    /// 401 with the spec's exact body. Deliberately says nothing about the key that was sent.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "authentication_error",
            "invalid_api_key",
            "Invalid API key provided".into(),
        )
    }

    /// 404 for a path the gateway does not serve.
    pub fn no_endpoint(method: &str, path: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            format!("Invalid endpoint: {method} {path}"),
        )
    }

    /// 404 for an unknown task or video id on a known path.
    pub fn no_such(what: &str, id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            "not_found",
            format!("{what} not found: {id}"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body =
            json!({"error": {"message": self.message, "type": self.kind, "code": self.code}});
        (self.status, Json(body)).into_response()
    }
}

/// A 200 JSON answer.
pub fn ok(value: serde_json::Value) -> Reply {
    Ok(Json(value).into_response())
}
