//! Helpers shared by the integration tests: a client pointed at an in-process mock.

#![allow(dead_code)]

pub mod c_client;
pub mod exchange_driver;

use gw::{Client, Error, Options};
use gw_mock::MockGateway;
use serde_json::{json, Value};

/// Options for a mock with fast retries, merged with `extra` (JSON object).
pub fn options_for(mock: &MockGateway, extra: Value) -> Options {
    let mut base = json!({
        "base_url": mock.url(),
        "api_key": mock.api_key(),
        "retry_base_delay_ms": 5,
        "retry_max_delay_ms": 20,
    });
    for (k, v) in extra.as_object().expect("extra options are an object") {
        base[k] = v.clone();
    }
    Options::from_json(&base.to_string()).expect("test options are valid")
}

pub fn client(mock: &MockGateway) -> Client {
    client_with(mock, json!({}))
}

pub fn client_with(mock: &MockGateway, extra: Value) -> Client {
    Client::new(options_for(mock, extra)).expect("client builds")
}

pub fn chat(text: &str) -> Value {
    json!({"model": "chat-model", "messages": [{"role": "user", "content": text}]})
}

/// The error JSON of a failed call, parsed.
pub fn error_json(e: &Error) -> Value {
    serde_json::from_str(&e.to_json()).expect("error JSON parses")
}

pub fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("answer parses")
}
