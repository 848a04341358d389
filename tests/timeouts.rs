//! Read-idle and total deadlines against a slow mock.

mod common;

use std::time::{Duration, Instant};

use common::*;
use gw::{ops, GW_TIMEOUT};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn a_silent_server_hits_the_first_byte_timeout() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 3000}));
    let c = client_with(
        &mock,
        json!({"first_byte_timeout_ms": 200, "max_retries": 0}),
    );
    let started = Instant::now();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert!(e.to_string().contains("first_byte_timeout_ms"), "{e}");
    assert!(started.elapsed() < Duration::from_millis(2500));
}

/// A reasoning model that thinks longer than read_timeout_ms before its first byte
/// is waited for: the read idle only bounds gaps once the answer has begun.
#[test]
fn a_slow_first_byte_is_not_a_read_timeout() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 700}));
    let c = client_with(&mock, json!({"read_timeout_ms": 200, "max_retries": 0}));
    let answer = c.call(&ops::CHAT, &[], Some(&chat("think"))).unwrap();
    assert!(answer.contains("Echo: think"), "{answer}");
    assert_eq!(mock.request_count(), 1, "generated once, not again");
}

#[test]
fn the_total_deadline_covers_retries() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 3000, "times": 5}));
    let c = client_with(
        &mock,
        json!({"total_timeout_ms": 400, "read_timeout_ms": 10000, "max_retries": 5}),
    );
    let started = Instant::now();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert!(
        started.elapsed() < Duration::from_millis(2500),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_timed_out_attempt_is_retried_and_can_succeed() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 1500}));
    let c = client_with(
        &mock,
        json!({"first_byte_timeout_ms": 200, "max_retries": 1}),
    );
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(mock.request_count(), 2);
}

#[test]
fn a_stalled_stream_hits_the_read_timeout() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 1500}));
    let c = client_with(&mock, json!({"read_timeout_ms": 300, "max_retries": 0}));
    let e = c
        .stream(&ops::CHAT, &chat("one two three"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
}

#[test]
fn a_slow_but_steady_stream_is_not_cut() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 100}));
    let c = client_with(&mock, json!({"read_timeout_ms": 1000}));
    let mut seen = 0;
    c.stream(&ops::CHAT, &chat("one two three"), &mut |_| {
        seen += 1;
        true
    })
    .unwrap();
    assert!(seen >= 4, "{seen}");
}

/// A listener whose accept queue is full: the kernel drops further SYNs, so a
/// connect hangs until the connect deadline (all on loopback).
#[test]
fn a_connect_that_never_completes_hits_the_connect_timeout() {
    use std::os::fd::AsRawFd;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: listen(2) on a socket we own, only shrinking its backlog.
    assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
    let addr = listener.local_addr().unwrap();
    let fillers: Vec<_> = (0..4)
        .filter_map(|_| {
            std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok()
        })
        .collect();
    assert!(
        !fillers.is_empty(),
        "the queue takes at least one connection"
    );
    let c = gw::Client::new(gw::Options {
        base_url: Some(format!("http://{addr}")),
        api_key: Some("sk-test".into()),
        connect_timeout_ms: 300,
        max_retries: 0,
        ..gw::Options::default()
    })
    .unwrap();
    let started = Instant::now();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert!(e.to_string().contains("connect_timeout_ms"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A stream whose head came but whose first event is late was sent and is being
/// answered: as for a plain call, a POST goes again only with an idempotency key
/// (issue 19, item 6).
#[test]
fn a_stream_timed_out_before_its_first_event_is_resent_only_with_a_key() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 800}));
    let c = client_with(
        &mock,
        json!({"read_timeout_ms": 200, "max_retries": 2, "idempotency_keys": false}),
    );
    let e = c
        .stream(&ops::CHAT, &chat("one two"), &mut |_| true)
        .unwrap_err();
    assert_eq!(e.status(), GW_TIMEOUT, "{e}");
    assert_eq!(mock.request_count(), 1, "an unkeyed POST is sent once");

    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 800}));
    let c = client_with(&mock, json!({"read_timeout_ms": 200, "max_retries": 2}));
    let answer = c
        .stream(&ops::CHAT, &chat("one two"), &mut |_| true)
        .unwrap();
    assert!(answer.contains("Echo: one two"), "{answer}");
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "a keyed POST is retried");
}

/// What follows `[DONE]` is read only briefly to keep the connection: a server that
/// trickles a byte every 2 ms after it does not hold the call (issue 19, item 9).
#[test]
fn the_read_after_done_is_bounded_in_time() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        // The request's head and its (small) JSON body.
        while !got.ends_with(b"}") {
            let n = s.read(&mut buf).unwrap();
            assert!(n > 0, "the request arrived");
            got.extend_from_slice(&buf[..n]);
        }
        let events = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n";
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{events}\r\n",
            events.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(10) {
            if s.write_all(b"1\r\n:\r\n").is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    });
    let c = gw::Client::new(gw::Options {
        base_url: Some(format!("http://{addr}")),
        api_key: Some("sk-test".into()),
        max_retries: 0,
        ..gw::Options::default()
    })
    .unwrap();
    let started = Instant::now();
    let answer = c.stream(&ops::CHAT, &chat("hi"), &mut |_| true).unwrap();
    let took = started.elapsed();
    assert!(answer.contains("\"Hi\""), "{answer}");
    assert!(took < Duration::from_millis(500), "{took:?}");
    drop(c);
    server.join().unwrap();
}
