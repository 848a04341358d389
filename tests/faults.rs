//! Faults measured from outside (issue "no lost or doubled work"): a billable
//! POST is never sent twice without a key, broken bodies are retried like
//! broken heads, a reset is a network failure, and no server can make one SSE
//! event grow without bound.

mod common;

use common::*;
use gw::{ops, GW_NETWORK, GW_STREAM, GW_TIMEOUT, GW_TOO_LARGE};
use gw_mock::MockGateway;
use serde_json::json;

const JSON_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n";

fn raw(bytes: &str, then: &str, times: u64) -> serde_json::Value {
    json!({"action": "raw", "bytes": bytes, "then": then, "times": times})
}

fn video() -> serde_json::Value {
    json!({"model": "v", "prompt": "a cat", "duration": 5})
}

#[test]
fn retries_of_one_post_carry_one_key_and_calls_differ() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 1000, "times": 3}));
    let c = client_with(
        &mock,
        json!({"first_byte_timeout_ms": 300, "max_retries": 2}),
    );
    let e = c.call(&ops::VIDEO_CREATE, &[], Some(&video())).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    let keys: Vec<String> = mock
        .requests()
        .iter()
        .map(|r| {
            r.header("idempotency-key")
                .expect("every POST has a key")
                .to_string()
        })
        .collect();
    assert_eq!(keys.len(), 3, "three attempts of one call");
    assert!(keys.iter().all(|k| k == &keys[0]), "{keys:?}");
    // The next call gets a key of its own.
    c.call(&ops::VIDEO_CREATE, &[], Some(&video())).unwrap();
    let next = mock.requests()[3]
        .header("idempotency-key")
        .unwrap()
        .to_string();
    assert_ne!(next, keys[0]);
}

#[test]
fn without_keys_a_sent_post_is_not_sent_again_after_a_timeout() {
    let mock = MockGateway::start();
    let c = client_with(
        &mock,
        json!({"first_byte_timeout_ms": 300, "max_retries": 2, "idempotency_keys": false}),
    );
    let created = parse(&c.call(&ops::VIDEO_CREATE, &[], Some(&video())).unwrap());
    let id = created["task_id"].as_str().unwrap().to_string();
    assert_eq!(mock.requests()[0].header("idempotency-key"), None);
    let before = mock.request_count();
    mock.push_fault(json!({"action": "delay", "ms": 1000}));
    let e = c.call(&ops::VIDEO_CREATE, &[], Some(&video())).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert_eq!(mock.request_count() - before, 1, "one paid task, not three");
    // A GET is still retried: it creates nothing.
    mock.push_fault(json!({"action": "delay", "ms": 1000}));
    c.call(&ops::VIDEO_GENERATION_STATUS, &[&id], None).unwrap();
    assert_eq!(mock.request_count() - before, 3);
}

/// Each broken body, once, then a good answer: retried within the budget.
#[test]
fn broken_bodies_after_the_head_are_retried() {
    let cases = [
        (
            "a Content-Length longer than the body",
            format!("{JSON_HEAD}content-length: 500\r\n\r\n{{\"choices\":"),
            "close",
        ),
        (
            "a chunked body cut mid-chunk",
            format!("{JSON_HEAD}transfer-encoding: chunked\r\n\r\n40\r\n{{\"choices\":"),
            "close",
        ),
        (
            "a chunk size that is not hex",
            format!("{JSON_HEAD}transfer-encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n"),
            "close",
        ),
        (
            "a reset half-way",
            format!("{JSON_HEAD}content-length: 500\r\n\r\n{{\"choices\":"),
            "reset",
        ),
    ];
    for (what, bytes, then) in cases {
        let mock = MockGateway::start();
        mock.push_fault(raw(&bytes, then, 1));
        let c = client_with(&mock, json!({"max_retries": 2}));
        let answer = c
            .call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(answer.contains("Echo: hi"), "{what}: {answer}");
        assert_eq!(mock.request_count(), 2, "{what}: one retry");
        // When every attempt breaks, the last failure is a network error, after 3 attempts.
        let mock = MockGateway::start();
        mock.push_fault(raw(&bytes, then, 3));
        let c = client_with(&mock, json!({"max_retries": 2}));
        let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
        assert_eq!(e.status(), GW_NETWORK, "{what}: {e}");
        assert_eq!(mock.request_count(), 3, "{what}");
    }
}

#[test]
fn a_reset_during_a_body_without_length_is_a_network_error() {
    let mock = MockGateway::start();
    let bytes = format!("{JSON_HEAD}connection: close\r\n\r\n{{\"choices\": [");
    mock.push_fault(raw(&bytes, "reset", 1));
    let c = client_with(&mock, json!({"max_retries": 0}));
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("reset"), "{e}");
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n";

#[test]
fn a_reset_mid_stream_names_the_broken_connection() {
    let mock = MockGateway::start();
    let bytes = format!(
        "{SSE_HEAD}connection: close\r\n\r\ndata: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"Hel\"}}}}]}}\n\n"
    );
    mock.push_fault(raw(&bytes, "reset", 1));
    let c = client_with(&mock, json!({"max_retries": 0}));
    let mut seen = 0;
    let e = c
        .stream(&ops::CHAT, &chat("hi"), &mut |_| {
            seen += 1;
            true
        })
        .unwrap_err();
    assert_eq!(seen, 1);
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("connection reset"), "{e}");
}

#[test]
fn a_stream_cut_mid_line_is_gw_stream() {
    let mock = MockGateway::start();
    let bytes = format!(
        "{SSE_HEAD}connection: close\r\n\r\ndata: {{\"id\":\"c\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"Hel\"}}}}]}}\n\ndata: {{\"id\":\"c\",\"cho"
    );
    mock.push_fault(raw(&bytes, "close", 1));
    let c = client_with(&mock, json!({"max_retries": 0}));
    let e = c
        .stream(&ops::CHAT, &chat("hi"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), GW_STREAM, "{e}");
    assert!(e.to_string().contains("unfinished event"), "{e}");
}

#[test]
fn one_event_cannot_grow_without_bound() {
    let mock = MockGateway::start();
    // 4,000 short data lines and no blank line: each line is tiny, the event is not.
    let lines: String = (0..4000)
        .map(|_| "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n")
        .collect();
    let bytes = format!("{SSE_HEAD}connection: close\r\n\r\n{lines}");
    mock.push_fault(raw(&bytes, "close", 1));
    let c = client_with(&mock, json!({"max_retries": 0, "max_event_bytes": 65536}));
    let e = c
        .stream(&ops::CHAT, &chat("hi"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), GW_TOO_LARGE, "{e}");
    assert!(e.to_string().contains("max_event_bytes"), "{e}");
}

fn new_task(c: &gw::Client) -> String {
    let created = parse(&c.call(&ops::VIDEO_CREATE, &[], Some(&video())).unwrap());
    created["task_id"].as_str().unwrap().to_string()
}

#[test]
fn a_zero_poll_interval_is_not_a_tight_loop() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let id = new_task(&c);
    let started = std::time::Instant::now();
    let wait = gw::WaitOptions {
        interval_ms: 0,
        timeout_ms: 30_000,
    };
    c.wait_for_task(gw::TaskFamily::Unified, &id, &wait, &mut |_, _| true)
        .unwrap();
    // The mock's task ends on its third poll: two pauses of at least the floor.
    let floor = gw::MIN_POLL_INTERVAL;
    assert!(started.elapsed() >= floor * 2, "{:?}", started.elapsed());
    assert_eq!(mock.request_count(), 4, "create + 3 polls, no more");
}

#[test]
fn a_poll_after_hint_wins_over_the_interval() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let id = new_task(&c);
    // Two answers that say "still running, ask again in 150 ms", then a finished task.
    mock.push_fault(json!([{
        "action": "status", "status": 200, "times": 2,
        "match": "/v1/video/generations/",
        "headers": {"openai-poll-after-ms": "150"},
        "body": format!("{{\"task_id\":\"{id}\",\"status\":\"processing\"}}")
    }, {
        "action": "status", "status": 200,
        "match": "/v1/video/generations/",
        "body": format!("{{\"task_id\":\"{id}\",\"status\":\"succeeded\"}}")
    }]));
    let started = std::time::Instant::now();
    let wait = gw::WaitOptions {
        interval_ms: 20_000,
        timeout_ms: 60_000,
    };
    c.wait_for_task(gw::TaskFamily::Unified, &id, &wait, &mut |_, _| true)
        .unwrap();
    let took = started.elapsed();
    // Not 20 s per poll: the hint (150 ms) paced both pauses.
    assert!(took >= std::time::Duration::from_millis(300), "{took:?}");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert_eq!(mock.request_count(), 4, "create + 3 polls");
}

#[test]
fn a_gzip_answer_is_decoded() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "gzip"}));
    let c = client(&mock);
    let answer = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert!(answer.contains("zipped"), "{answer}");
    assert_eq!(
        mock.requests()[0].header("accept-encoding"),
        Some("gzip"),
        "gw asks for what it can decode"
    );
}

#[test]
fn a_zip_bomb_is_too_large_not_out_of_memory() {
    let mock = MockGateway::start();
    // ~64 MiB of padding compresses to well under 1 MiB; the cap counts decoded bytes.
    mock.push_fault(json!({"action": "gzip", "pad_bytes": 64 << 20}));
    let c = client_with(
        &mock,
        json!({"max_response_bytes": 1 << 20, "max_retries": 0}),
    );
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TOO_LARGE, "{e}");
}

/// Many events, each small (2,000 x 40 bytes of text): no line or event cap applies,
/// the assembled answer keeps growing.
fn long_stream() -> serde_json::Value {
    let chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"0123456789012345678901234567890123456789\"}}]}\n\n";
    let body: String = std::iter::repeat_n(chunk, 2000).collect();
    let bytes = format!("{SSE_HEAD}connection: close\r\n\r\n{body}data: [DONE]\n\n");
    raw(&bytes, "close", 1)
}

#[test]
fn the_assembled_answer_of_a_long_stream_has_a_cap() {
    let mock = MockGateway::start();
    mock.push_fault(long_stream());
    let c = client_with(
        &mock,
        json!({"max_retries": 0, "max_response_bytes": 32768}),
    );
    let e = c
        .stream(&ops::CHAT, &chat("hi"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), GW_TOO_LARGE, "{e}");
    assert!(e.to_string().contains("assembled answer"), "{e}");
}

#[test]
fn a_stream_whose_answer_nobody_takes_is_not_assembled_so_its_cap_does_not_apply() {
    let mock = MockGateway::start();
    // The same long stream: 80 KB of text over a 32 KB answer cap.
    mock.push_fault(long_stream());
    let c = client_with(
        &mock,
        json!({"max_retries": 0, "max_response_bytes": 32768}),
    );
    let mut text_bytes = 0;
    c.stream_events(&ops::CHAT, &chat("hi"), &mut |ev| {
        text_bytes += ev.text_delta.map_or(0, str::len);
        true
    })
    .expect("nothing is kept, so nothing is over the cap");
    assert_eq!(text_bytes, 2000 * 40);
}

#[test]
fn a_pooled_connection_the_server_closed_while_idle_is_not_reused() {
    let mock = MockGateway::start();
    // A whole answer that promises keep-alive, then the server closes the connection.
    let body = r#"{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[]}"#;
    let bytes = format!("{JSON_HEAD}content-length: {}\r\n\r\n{body}", body.len());
    mock.push_fault(raw(&bytes, "close", 1));
    let c = client_with(&mock, json!({"max_retries": 0}));
    c.call(&ops::CHAT, &[], Some(&chat("first"))).unwrap();
    // Let the server's FIN arrive: the connection sits in the pool, dead.
    std::thread::sleep(std::time::Duration::from_millis(50));
    // Without a probe before reuse the request would go out on the dead connection and
    // fail (no retries allowed here); with it, gw connects anew.
    let v = parse(&c.call(&ops::CHAT, &[], Some(&chat("second"))).unwrap());
    assert!(v["choices"][0]["message"]["content"]
        .as_str()
        .is_some_and(|t| t.contains("second")));
    assert_eq!(c.last_response().unwrap().attempts, 1);
}

/// llama-cpp-python, when another request interrupts a running stream, sends `[DONE]`
/// with no `finish_reason` and cuts the chunked body: the terminal event arrived, so
/// GW_OK, and the caller tells it by the null `finish_reason` (README, streams).
#[test]
fn done_without_a_finish_reason_then_a_cut_body_is_ok_with_a_null_finish_reason() {
    let mock = MockGateway::start();
    let events = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hal\"},\"finish_reason\":null}]}\n\ndata: [DONE]\n\n";
    let bytes = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{events}\r\n",
        events.len()
    );
    mock.push_fault(raw(&bytes, "close", 1));
    let c = client_with(&mock, json!({"max_retries": 0}));
    let v = parse(&c.stream(&ops::CHAT, &chat("hi"), &mut |_| true).unwrap());
    assert_eq!(v["choices"][0]["message"]["content"], "Hal");
    assert!(v["choices"][0]["finish_reason"].is_null(), "{v}");
}

/// A stream of `n` chunks made by `chunk(i)`, then `[DONE]`, as one raw answer.
fn stream_of(n: usize, chunk: impl Fn(usize) -> String) -> serde_json::Value {
    let mut body = String::new();
    for i in 0..n {
        body.push_str("data: ");
        body.push_str(&chunk(i));
        body.push_str("\n\n");
    }
    raw(
        &format!("{SSE_HEAD}connection: close\r\n\r\n{body}data: [DONE]\n\n"),
        "close",
        1,
    )
}

/// Everything merged into the answer counts against max_response_bytes, not only
/// the text: new top-level keys and choices that carry nothing (issue 19, item 4).
#[test]
fn the_assembled_answer_cap_counts_every_field_and_choice_merged() {
    let cap = 64 * 1024;
    let fat = "x".repeat(1000);
    let streams = [
        // 200 new keys of 1 KB each: 200 KB of fields, no text.
        stream_of(200, |i| {
            format!("{{\"choices\":[],\"meta\":{{\"k{i}\":\"{fat}\"}}}}")
        }),
        // 20,000 choices that only name their index.
        stream_of(20_000, |i| format!("{{\"choices\":[{{\"index\":{i}}}]}}")),
    ];
    for stream in streams {
        let mock = MockGateway::start();
        mock.push_fault(stream);
        let c = client_with(&mock, json!({"max_retries": 0, "max_response_bytes": cap}));
        match c.stream(&ops::CHAT, &chat("hi"), &mut |_| true) {
            Err(e) => {
                assert_eq!(e.status(), GW_TOO_LARGE, "{e}");
                assert!(e.to_string().contains("assembled answer"), "{e}");
            }
            Ok(answer) => panic!(
                "GW_OK with a {} byte answer over a {cap} byte cap",
                answer.len()
            ),
        }
    }
}

/// What does not grow the answer does not count: a long stream repeating the same
/// fields (id, model, usage) in every chunk stays under a small cap.
#[test]
fn fields_repeated_in_every_chunk_count_once() {
    let mock = MockGateway::start();
    mock.push_fault(stream_of(5_000, |i| {
        format!("{{\"id\":\"c\",\"model\":\"m\",\"usage\":{{\"total_tokens\":{}}},\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":null}}]}}", i % 10)
    }));
    let c = client_with(&mock, json!({"max_retries": 0, "max_response_bytes": 4096}));
    let v = parse(&c.stream(&ops::CHAT, &chat("hi"), &mut |_| true).unwrap());
    assert_eq!(v["model"], "m");
}

/// CPU time of the calling thread (where gw works through a stream): unlike the
/// wall clock, other load on the machine does not inflate it.
fn thread_cpu_time() -> std::time::Duration {
    // SAFETY: clock_gettime fills the timespec we own.
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    assert_eq!(
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) },
        0
    );
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One chunk naming many distinct choices costs O(n log n), not O(n²): 50,000 choices
/// (2 MB, under the caps) take a few seconds of CPU in a debug build, not a minute
/// (issue 19, item 5).
#[test]
fn one_chunk_with_many_choices_is_not_quadratic() {
    let n = 50_000;
    let mock = MockGateway::start();
    mock.push_fault(stream_of(1, |_| {
        let choices: Vec<String> = (0..n)
            .map(|i| format!("{{\"index\":{i},\"delta\":{{\"content\":\"t{i}\"}}}}"))
            .collect();
        format!("{{\"choices\":[{}]}}", choices.join(","))
    }));
    let c = client_with(
        &mock,
        json!({"max_retries": 0, "max_line_bytes": 16_777_216, "max_event_bytes": 16_777_216}),
    );
    let started = thread_cpu_time();
    let mut events = 0;
    let answer = c
        .stream(&ops::CHAT, &chat("hi"), &mut |ev| {
            assert_eq!(
                ev.text_delta,
                Some(format!("t{}", ev.choice_index).as_str())
            );
            events += 1;
            true
        })
        .unwrap();
    let cpu = thread_cpu_time() - started;
    assert_eq!(events, n);
    let v = parse(&answer);
    assert_eq!(
        v["choices"][n - 1]["message"]["content"],
        format!("t{}", n - 1)
    );
    assert!(cpu < std::time::Duration::from_secs(15), "{cpu:?} of CPU");
}
