//! Helpers for the per-endpoint tests (issue 3): a client on an in-process mock gateway
//! with fast retries, and short ways to look at what the mock received.

#![allow(dead_code)]

use gw::{Client, Error, Options};
use gw_mock::{MockGateway, RecordedRequest};
use serde_json::Value;

/// A mock gateway and a client pointed at it.
pub struct Gateway {
    pub mock: MockGateway,
    pub client: Client,
}

impl Gateway {
    /// A mock accepting `sk-test` and a validating client with fast retries.
    pub fn start() -> Gateway {
        Gateway::start_with(|_| {})
    }

    /// Like `start`, with the client's options adjusted by `tune`.
    pub fn start_with(tune: impl FnOnce(&mut Options)) -> Gateway {
        let mock = MockGateway::start();
        let client = client_for(&mock, tune);
        Gateway { mock, client }
    }

    /// The one request the mock received (fails when it got none or several).
    pub fn only_request(&self) -> RecordedRequest {
        let all = self.mock.requests();
        assert_eq!(all.len(), 1, "expected exactly one request, got {all:#?}");
        all.into_iter().next().unwrap()
    }

    /// The most recent request the mock received.
    pub fn last_request(&self) -> RecordedRequest {
        self.mock
            .requests()
            .pop()
            .expect("the mock received no request")
    }
}

/// A client for `mock` with the test retry timings, adjusted by `tune`.
pub fn client_for(mock: &MockGateway, tune: impl FnOnce(&mut Options)) -> Client {
    let mut options = Options {
        base_url: Some(mock.url()),
        api_key: Some(mock.api_key()),
        retry_base_delay_ms: 5,
        retry_max_delay_ms: 20,
        ..Options::default()
    };
    tune(&mut options);
    Client::new(options).expect("client for the mock builds")
}

/// Parses answer (or error) JSON text.
pub fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The error of a call that must fail.
pub fn failure<T: std::fmt::Debug>(result: Result<T, Error>) -> Error {
    match result {
        Ok(v) => panic!("expected an error, got Ok({v:?})"),
        Err(e) => e,
    }
}

/// The error JSON of `e`, parsed.
pub fn error_json(e: &Error) -> Value {
    parse(&e.to_json())
}

/// Asserts a JSON request with Bearer auth: method, path, no query, content type and body.
pub fn assert_json_request(req: &RecordedRequest, method: &str, path: &str, body: &Value) {
    assert_eq!(req.method, method, "method of {req:#?}");
    assert_eq!(req.path, path);
    assert_eq!(req.query, None, "no query string on {path}");
    assert_bearer(req);
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.json.as_ref(), Some(body), "body sent to {path}");
}

/// Asserts a body-less GET with Bearer auth.
pub fn assert_get(req: &RecordedRequest, path: &str) {
    assert_eq!(req.method, "GET");
    assert_eq!(req.path, path);
    assert_eq!(req.query, None);
    assert_bearer(req);
    assert_eq!(req.body, "", "a GET carries no body");
    assert_eq!(req.header("content-type"), None);
}

/// `Authorization: Bearer sk-test`, as the Authentication section says.
pub fn assert_bearer(req: &RecordedRequest) {
    assert_eq!(
        req.header("authorization"),
        Some(format!("Bearer {}", gw_mock::DEFAULT_API_KEY).as_str()),
        "Bearer auth on {} {}",
        req.method,
        req.path
    );
}
