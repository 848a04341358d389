//! No key in any line of the `log` crate, at any level: ureq logs through it,
//! and at trace level it would write `?key=<key>` URIs and hex dumps of the
//! `Authorization` header. A Rust program with a trace-level `log` logger must
//! see nothing of the key. One test in its own binary: the logger is global.

mod common;

use std::sync::Mutex;

use common::*;
use gw::ops;
use gw_mock::MockGateway;
use serde_json::json;

const KEY: &str = "sk-logtest-7Hq9ZpX3";

/// Keeps every record: target and message.
struct Capture(Mutex<Vec<(String, String)>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let line = record.args().to_string();
        self.0
            .lock()
            .unwrap()
            .push((record.target().to_string(), line));
    }
    fn flush(&self) {}
}

static CAPTURE: Capture = Capture(Mutex::new(Vec::new()));

/// The ASCII column of ureq's hex-dump rows, joined: a key split over two
/// rows is whole again here.
fn hex_dump_text(lines: &[(String, String)]) -> String {
    lines
        .iter()
        .filter(|(_, l)| {
            l.len() > 17
                && l.as_bytes()[..4]
                    .iter()
                    .all(|b| b.is_ascii_hexdigit() || *b == b'-')
        })
        .map(|(_, l)| l[l.len() - 16..].to_string())
        .collect()
}

#[test]
fn a_trace_level_log_logger_never_sees_the_key() {
    log::set_logger(&CAPTURE).unwrap();
    log::set_max_level(log::LevelFilter::Trace);

    let mock = MockGateway::start_with_key(KEY);
    let c = client(&mock);
    // Bearer, in a plain call and a stream; ?key= in the native format.
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let mut events = 0;
    c.stream(&ops::CHAT, &chat("stream me"), &mut |_| {
        events += 1;
        true
    })
    .unwrap();
    assert!(events > 0);
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    c.call(&ops::GENERATE_CONTENT, &["m"], Some(&body)).unwrap();
    // And a failure, whose error passes the key-bearing URL around.
    mock.push_fault(json!({"action": "status", "status": 500, "times": 3}));
    assert!(c.call(&ops::GENERATE_CONTENT, &["m"], Some(&body)).is_err());

    let lines = CAPTURE.0.lock().unwrap().clone();
    log::set_max_level(log::LevelFilter::Off);
    // The capture works: ureq's own records arrived.
    assert!(
        lines.iter().any(|(target, _)| target.starts_with("ureq")),
        "no record from ureq was captured: {lines:#?}"
    );
    for (target, line) in &lines {
        assert!(!line.contains(KEY), "key in a {target} log line: {line}");
        assert!(
            !line.contains("key="),
            "?key= in a {target} log line: {line}"
        );
        assert!(
            !line.contains("Bearer"),
            "a Bearer header in a {target} log line: {line}"
        );
    }
    let dumped = hex_dump_text(&lines);
    assert!(!dumped.contains(&KEY[3..]), "key in a hex dump: {dumped}");
}
