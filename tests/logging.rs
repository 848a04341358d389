//! The process-wide logger sees attempts, retries and failures, and never the
//! key. One test in its own binary: the logger is global to the process.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use gw::log::{set_logger, Level, LogSink};
use gw::ops;
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn the_logger_sees_retries_and_failures_but_never_the_key() {
    let lines: Arc<Mutex<Vec<(Level, String)>>> = Arc::default();
    let sink: LogSink = {
        let lines = lines.clone();
        Arc::new(move |level, line| lines.lock().unwrap().push((level, line.to_string())))
    };
    set_logger(Some(sink), Level::Trace);

    let mock = MockGateway::start();
    let key = mock.api_key();
    let c = client_with(&mock, json!({"max_retries": 1}));
    mock.push_fault(json!({"action": "status", "status": 503}));
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    // The native format carries the key in the query: it must not show either.
    mock.push_fault(json!({"action": "status", "status": 500, "times": 2}));
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    assert!(c.call(&ops::GENERATE_CONTENT, &["m"], Some(&body)).is_err());

    let seen = lines.lock().unwrap().clone();
    let text: Vec<&str> = seen.iter().map(|(_, l)| l.as_str()).collect();
    assert!(
        seen.iter().any(|(lvl, l)| *lvl == Level::Info
            && l.contains("retrying")
            && l.contains("HTTP 503")),
        "{text:#?}"
    );
    assert!(text.iter().any(|l| l.contains("(attempt 2)")), "{text:#?}");
    assert!(
        seen.iter()
            .any(|(lvl, l)| *lvl == Level::Warn && l.contains("failed") && l.contains("500")),
        "{text:#?}"
    );
    for line in &text {
        assert!(!line.contains(&key), "key in a log line: {line}");
    }

    // Off means off; a lower level filters.
    set_logger(None, Level::Trace);
    let before = lines.lock().unwrap().len();
    c.call(&ops::CHAT, &[], Some(&chat("quiet"))).unwrap();
    assert_eq!(lines.lock().unwrap().len(), before);
    let errors_only: LogSink = {
        let lines = lines.clone();
        Arc::new(move |level, line| lines.lock().unwrap().push((level, line.to_string())))
    };
    set_logger(Some(errors_only), Level::Error);
    mock.push_fault(json!({"action": "status", "status": 503}));
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(
        lines.lock().unwrap().len(),
        before,
        "no info line at level error"
    );
    set_logger(None, Level::Error);
}
