//! Every fault mode of gw-mock against every call family (plain, stream,
//! upload, task wait): the status, the number of attempts, the error JSON's
//! contract fields and that the call returns within its deadline.

mod common;

use std::time::{Duration, Instant};

use common::*;
use gw::{
    ops, Client, Error, FilePart, Form, TaskFamily, WaitOptions, GW_DECODE, GW_NETWORK, GW_OK,
    GW_STREAM, GW_TIMEOUT, GW_TOO_LARGE,
};
use gw_mock::MockGateway;
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Family {
    Plain,
    Stream,
    Upload,
    TaskWait,
}

const FAMILIES: [Family; 4] = [
    Family::Plain,
    Family::Stream,
    Family::Upload,
    Family::TaskWait,
];

impl Family {
    /// The path a fault must match to hit this family's request.
    fn path(self) -> &'static str {
        match self {
            Family::Plain | Family::Stream => "/v1/chat/completions",
            Family::Upload => "/v1/images/edits",
            Family::TaskWait => "/v1/video/generations/",
        }
    }
}

/// Runs one call of `family`; for a task wait, the task is created first (not
/// counted: `base` is the request count before the faulted part).
fn run(c: &Client, mock: &MockGateway, family: Family) -> (Result<String, Error>, usize) {
    let mut base = mock.request_count();
    let result = match family {
        Family::Plain => c.call(&ops::CHAT, &[], Some(&chat("matrix"))),
        Family::Stream => c.stream(&ops::CHAT, &chat("matrix"), &mut |_| true),
        Family::Upload => {
            let png = b"\x89PNG\r\n\x1a\n0000";
            let mut form = Form::from_fields(&json!({"model": "m", "prompt": "p"})).unwrap();
            form.add_file(FilePart {
                field: "image".into(),
                filename: "a.png".into(),
                content_type: "image/png".into(),
                bytes: png,
            })
            .unwrap();
            c.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
        }
        Family::TaskWait => {
            let created = c
                .call(
                    &ops::VIDEO_GENERATE,
                    &[],
                    Some(&json!({"model": "v", "prompt": "p"})),
                )
                .unwrap();
            base = mock.request_count();
            let id = parse(&created)["task_id"].as_str().unwrap().to_string();
            let wait = WaitOptions {
                interval_ms: 100,
                timeout_ms: 5_000,
            };
            c.wait_for_task(TaskFamily::Unified, &id, &wait, &mut |_, _| true)
        }
    };
    (result, mock.request_count() - base)
}

struct Case {
    name: &'static str,
    fault: Value,
    /// Families it applies to, with the expected status and attempts (requests).
    expect: &'static [(Family, i32, usize)],
}

const JSON_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";

fn cases() -> Vec<Case> {
    use Family::*;
    let short_body = format!("{JSON_HEAD}content-length: 400\r\n\r\n{{\"choices\":");
    let sse_reset = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n";
    vec![
        Case {
            name: "503 once, then fine",
            fault: json!({"action": "status", "status": 503}),
            // The task wait polls three times; one poll was retried.
            expect: &[
                (Plain, GW_OK, 2),
                (Stream, GW_OK, 2),
                (Upload, GW_OK, 2),
                (TaskWait, GW_OK, 4),
            ],
        },
        Case {
            name: "429 every time",
            fault: json!({"action": "status", "status": 429, "times": 10, "headers": {"retry-after-ms": "5"}}),
            expect: &[
                (Plain, 429, 3),
                (Stream, 429, 3),
                (Upload, 429, 3),
                (TaskWait, 429, 3),
            ],
        },
        Case {
            name: "400, not retried",
            fault: json!({"action": "status", "status": 400}),
            expect: &[
                (Plain, 400, 1),
                (Stream, 400, 1),
                (Upload, 400, 1),
                (TaskWait, 400, 1),
            ],
        },
        Case {
            name: "no first byte in time",
            fault: json!({"action": "delay", "ms": 2500, "times": 10}),
            expect: &[
                (Plain, GW_TIMEOUT, 3),
                (Stream, GW_TIMEOUT, 3),
                (Upload, GW_TIMEOUT, 3),
                (TaskWait, GW_TIMEOUT, 3),
            ],
        },
        Case {
            name: "garbage JSON",
            fault: json!({"action": "garbage"}),
            expect: &[
                (Plain, GW_DECODE, 1),
                (Stream, GW_DECODE, 1),
                (Upload, GW_DECODE, 1),
                (TaskWait, GW_DECODE, 1),
            ],
        },
        Case {
            name: "wrong shape",
            fault: json!({"action": "wrong_shape"}),
            expect: &[
                (Plain, GW_DECODE, 1),
                (Stream, GW_DECODE, 1),
                (Upload, GW_DECODE, 1),
                (TaskWait, GW_DECODE, 1),
            ],
        },
        Case {
            name: "huge body",
            fault: json!({"action": "huge_body", "bytes": 3 << 20}),
            expect: &[
                (Plain, GW_TOO_LARGE, 1),
                (Stream, GW_TOO_LARGE, 1),
                (Upload, GW_TOO_LARGE, 1),
                (TaskWait, GW_TOO_LARGE, 1),
            ],
        },
        Case {
            name: "gzip bomb",
            fault: json!({"action": "gzip", "pad_bytes": 4 << 20}),
            expect: &[
                (Plain, GW_TOO_LARGE, 1),
                (Upload, GW_TOO_LARGE, 1),
                (TaskWait, GW_TOO_LARGE, 1),
            ],
        },
        Case {
            name: "body shorter than its length, once",
            fault: json!({"action": "raw", "bytes": short_body, "then": "close"}),
            expect: &[(Plain, GW_OK, 2), (Upload, GW_OK, 2), (TaskWait, GW_OK, 4)],
        },
        Case {
            name: "body shorter than its length, every time",
            fault: json!({"action": "raw", "bytes": short_body, "then": "reset", "times": 10}),
            expect: &[
                (Plain, GW_NETWORK, 3),
                (Upload, GW_NETWORK, 3),
                (TaskWait, GW_NETWORK, 3),
            ],
        },
        Case {
            name: "stream reset after an event",
            fault: json!({"action": "raw", "bytes": sse_reset, "then": "reset"}),
            expect: &[(Stream, GW_NETWORK, 1)],
        },
        Case {
            name: "stream truncated",
            fault: json!({"action": "truncate", "after_events": 2}),
            expect: &[(Stream, GW_STREAM, 1)],
        },
        Case {
            name: "error inside the stream",
            fault: json!({"action": "stream_error", "after_events": 1}),
            expect: &[(Stream, GW_STREAM, 1)],
        },
        Case {
            name: "stream line over the cap",
            fault: json!({"action": "huge_line", "after_events": 1, "bytes": 3 << 20}),
            expect: &[(Stream, GW_TOO_LARGE, 1)],
        },
        Case {
            name: "stream that stalls before its first event, once",
            fault: json!({"action": "drip", "interval_ms": 1500}),
            // Nothing reached the caller yet: retried within the budget.
            expect: &[(Stream, GW_OK, 2)],
        },
        Case {
            name: "stream that stalls every time",
            fault: json!({"action": "drip", "interval_ms": 1500, "times": 3}),
            expect: &[(Stream, GW_TIMEOUT, 3)],
        },
    ]
}

#[test]
fn every_fault_against_every_family() {
    let deadline = Duration::from_secs(8);
    let mut failures = Vec::new();
    for case in cases() {
        for family in FAMILIES {
            let Some(&(_, status, attempts)) = case.expect.iter().find(|(f, ..)| *f == family)
            else {
                continue;
            };
            let mock = MockGateway::start();
            let c = client_with(
                &mock,
                json!({
                    "max_retries": 2,
                    "first_byte_timeout_ms": 1000,
                    "read_timeout_ms": 300,
                    "total_timeout_ms": deadline.as_millis() as u64,
                    "max_response_bytes": 1 << 20,
                    "max_line_bytes": 1 << 20,
                }),
            );
            let mut fault = case.fault.clone();
            fault["match"] = family.path().into();
            mock.push_fault(fault);
            let started = Instant::now();
            let (result, sent) = run(&c, &mock, family);
            let took = started.elapsed();
            let got = result.as_ref().map_or_else(|e| e.status(), |_| GW_OK);
            let label = format!("{} / {family:?}", case.name);
            println!("{label}: status {got}, {sent} request(s), {took:?}");
            if got != status || sent != attempts {
                failures.push(format!(
                    "{label}: got status {got} after {sent} request(s), expected {status} after {attempts} ({result:?})"
                ));
            }
            if took > deadline + Duration::from_secs(1) {
                failures.push(format!("{label}: took {took:?}, past its deadline"));
            }
            if let Err(e) = &result {
                // The error JSON always holds the contract's four fields.
                let v: Value = serde_json::from_str(&e.to_json()).expect("error JSON parses");
                let err = &v["error"];
                if !(err["message"].is_string()
                    && err.get("type").is_some()
                    && err.get("code").is_some()
                    && err["status"] == status)
                {
                    failures.push(format!("{label}: error JSON lacks the contract: {v}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
