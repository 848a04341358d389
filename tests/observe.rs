//! Attempt observers (`Client::observed`, `gw_client_create_observed`): each attempt's
//! start and end, in order, with what it sent and what came back; never the key.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use gw::{ops, AttemptPhase, CallOptions, Observer};
use gw_mock::MockGateway;
use serde_json::json;

/// (phase, method, path, attempt, status, request id, request bytes) of each event.
type Seen = Arc<Mutex<Vec<(AttemptPhase, String, String, u32, i32, Option<String>, u64)>>>;

fn recorder() -> (Observer, Seen) {
    let seen: Seen = Arc::default();
    let sink = seen.clone();
    let observer = Observer(Arc::new(move |ev: &gw::AttemptEvent<'_>| {
        sink.lock().unwrap().push((
            ev.phase,
            ev.method.to_string(),
            ev.path.to_string(),
            ev.attempt,
            ev.status,
            ev.request_id.map(str::to_string),
            ev.request_bytes,
        ));
    }));
    (observer, seen)
}

#[test]
fn each_attempt_starts_and_ends_in_order() {
    let mock = MockGateway::start();
    let base = client(&mock);
    let (observer, seen) = recorder();
    let observed = base.observed(&CallOptions::default(), observer).unwrap();
    mock.push_fault(json!({"action": "status", "status": 503}));
    observed.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let events = seen.lock().unwrap().clone();
    assert_eq!(events.len(), 4, "{events:?}");
    let phases: Vec<_> = events.iter().map(|e| (e.0, e.3, e.4)).collect();
    assert_eq!(
        phases,
        [
            (AttemptPhase::Start, 1, 0),
            (AttemptPhase::End, 1, 503),
            (AttemptPhase::Start, 2, 0),
            (AttemptPhase::End, 2, 200),
        ]
    );
    for e in &events {
        assert_eq!(
            (e.1.as_str(), e.2.as_str()),
            ("POST", "/v1/chat/completions")
        );
        assert_eq!(e.6, chat("hi").to_string().len() as u64);
    }
    assert!(events[3]
        .5
        .as_deref()
        .is_some_and(|id| id.starts_with("req_")));
    // The base and its other handles are not observed.
    base.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 4);
}

#[test]
fn the_path_never_carries_the_query_key() {
    let mock = MockGateway::start();
    let (observer, seen) = recorder();
    let observed = client(&mock)
        .observed(&CallOptions::default(), observer)
        .unwrap();
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    observed
        .call(&ops::GENERATE_CONTENT, &["m"], Some(&body))
        .unwrap();
    let events = seen.lock().unwrap().clone();
    assert_eq!(events.len(), 2);
    for e in &events {
        assert!(!e.2.contains(&mock.api_key()), "{}", e.2);
        assert!(e.2.starts_with("/v1beta/models/m"), "{}", e.2);
        assert_eq!(e.1, "POST");
    }
}
