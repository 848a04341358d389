//! `Client::cancel` from another thread, in every phase a call can block in:
//! connecting, TLS, sending an upload, waiting for the answer, reading a body,
//! reading a stream, sleeping before a retry and between task polls. Each test
//! measures the time from the cancel to the call's return and bounds it.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use gw::{ops, CallOptions, Client, Error, FilePart, Form, TaskFamily, WaitOptions, GW_CANCELLED};
use gw_mock::MockGateway;
use serde_json::json;

/// Generous for a loaded 2-core CI machine; the figures printed are the real ones
/// (the design target is 50 ms).
const BOUND: Duration = Duration::from_millis(400);

/// Runs `call` on a handle derived from `base`, cancels that handle from another
/// thread after `after`, and returns the call's error and the cancel-to-return time.
fn cancel_during<T: std::fmt::Debug>(
    base: &Client,
    after: Duration,
    call: impl FnOnce(&Client) -> Result<T, Error>,
) -> (Error, Duration) {
    let handle = base.derive(&CallOptions::default()).unwrap();
    let (tx, rx) = mpsc::channel();
    let canceller = {
        let handle = handle.clone();
        thread::spawn(move || {
            thread::sleep(after);
            let at = Instant::now();
            handle.cancel();
            tx.send(at).unwrap();
        })
    };
    let result = call(&handle);
    let returned = Instant::now();
    canceller.join().unwrap();
    let cancelled_at = rx.recv().unwrap();
    let e = result.expect_err("the call was cancelled");
    (e, returned.saturating_duration_since(cancelled_at))
}

/// As `cancel_during`, cancelling 200 ms after `ready` fires.
fn cancel_when<T: std::fmt::Debug>(
    base: &Client,
    ready: mpsc::Receiver<()>,
    call: impl FnOnce(&Client) -> Result<T, Error>,
) -> (Error, Duration) {
    let handle = base.derive(&CallOptions::default()).unwrap();
    let canceller = {
        let handle = handle.clone();
        thread::spawn(move || {
            ready.recv().unwrap();
            thread::sleep(Duration::from_millis(200));
            let at = Instant::now();
            handle.cancel();
            at
        })
    };
    let result = call(&handle);
    let returned = Instant::now();
    let cancelled_at = canceller.join().unwrap();
    let e = result.expect_err("the call was cancelled");
    (e, returned.saturating_duration_since(cancelled_at))
}

fn assert_cancelled(phase: &str, e: &Error, latency: Duration) {
    println!("cancel while {phase}: returned {latency:?} after the cancel");
    assert_eq!(e.status(), GW_CANCELLED, "{phase}: {e}");
    assert!(latency < BOUND, "{phase}: took {latency:?}");
}

#[test]
fn cancel_while_waiting_for_the_answer() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "delay", "ms": 5000}));
    let base = client_with(&mock, json!({"max_retries": 0}));
    let (e, t) = cancel_during(&base, Duration::from_millis(150), |c| {
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
    });
    assert_cancelled("waiting for headers", &e, t);
    // The base handle goes on working, on a connection of its own.
    let answer = base.call(&ops::CHAT, &[], Some(&chat("again"))).unwrap();
    assert!(answer.contains("Echo: again"), "{answer}");
}

#[test]
fn cancel_while_reading_a_stream() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 2000}));
    let base = client_with(&mock, json!({"max_retries": 0}));
    let (e, t) = cancel_during(&base, Duration::from_millis(300), |c| {
        c.stream(&ops::CHAT, &chat("one two three"), &mut |_| true)
    });
    assert_cancelled("reading a stream", &e, t);
}

#[test]
fn cancel_while_pulling_a_stream() {
    let mock = MockGateway::start();
    mock.push_fault(json!({"action": "drip", "interval_ms": 2000}));
    let base = client_with(&mock, json!({"max_retries": 0}));
    let handle = base.derive(&CallOptions::default()).unwrap();
    let mut stream = handle
        .stream_open(&ops::CHAT, &chat("one two three"))
        .unwrap();
    let canceller = {
        let handle = handle.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(200));
            let at = Instant::now();
            handle.cancel();
            at
        })
    };
    let e = loop {
        match stream.advance() {
            Ok(true) => continue,
            Ok(false) => panic!("the drip ended before the cancel"),
            Err(e) => break e,
        }
    };
    let latency = Instant::now().saturating_duration_since(canceller.join().unwrap());
    assert_cancelled("pulling a stream", &e, latency);
    // Every later step and the result say the same.
    assert_eq!(stream.advance().unwrap_err().status(), GW_CANCELLED);
    assert_eq!(stream.finish().unwrap_err().status(), GW_CANCELLED);
}

#[test]
fn cancel_while_sleeping_before_a_retry() {
    let mock = MockGateway::start();
    mock.push_fault(
        json!({"action": "status", "status": 503, "headers": {"retry-after-ms": "10000"}}),
    );
    let base = client_with(&mock, json!({"max_retries": 2}));
    // Cancelled once the first attempt was answered (the client is then in its backoff).
    let (ready_tx, ready) = mpsc::channel();
    let (e, t) = thread::scope(|scope| {
        scope.spawn(|| {
            while mock.request_count() == 0 {
                thread::sleep(Duration::from_millis(5));
            }
            ready_tx.send(()).unwrap();
        });
        cancel_when(&base, ready, |c| c.call(&ops::CHAT, &[], Some(&chat("hi"))))
    });
    assert_cancelled("sleeping before a retry", &e, t);
    assert_eq!(mock.request_count(), 1, "no retry after the cancel");
}

#[test]
fn cancel_while_sleeping_between_task_polls() {
    let mock = MockGateway::start();
    let base = client(&mock);
    let created = parse(
        &base
            .call(
                &ops::VIDEO_CREATE,
                &[],
                Some(&json!({"model": "v", "prompt": "a cat", "duration": 5})),
            )
            .unwrap(),
    );
    let id = created["task_id"].as_str().unwrap().to_string();
    let wait = WaitOptions {
        interval_ms: 10_000,
        timeout_ms: 60_000,
    };
    let (e, t) = cancel_during(&base, Duration::from_millis(200), |c| {
        c.wait_for_task(TaskFamily::Unified, &id, &wait, &mut |_, _| true)
    });
    assert_cancelled("sleeping between polls", &e, t);
}

/// A listener whose accept queue is full: the kernel drops further SYNs, so a
/// connect hangs (all on loopback).
fn unanswered_connect_target() -> (TcpListener, Vec<TcpStream>) {
    use std::os::fd::AsRawFd;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    // SAFETY: listen(2) on a socket we own, only shrinking its backlog.
    assert_eq!(unsafe { libc::listen(listener.as_raw_fd(), 0) }, 0);
    let addr = listener.local_addr().unwrap();
    let fillers: Vec<_> = (0..4)
        .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok())
        .collect();
    assert!(
        !fillers.is_empty(),
        "the queue takes at least one connection"
    );
    (listener, fillers)
}

fn client_for(url: String) -> Client {
    Client::new(gw::Options {
        base_url: Some(url),
        api_key: Some("sk-test".into()),
        max_retries: 0,
        ..gw::Options::default()
    })
    .unwrap()
}

#[test]
fn cancel_while_connecting() {
    let (listener, _fillers) = unanswered_connect_target();
    let base = client_for(format!("http://{}", listener.local_addr().unwrap()));
    let (e, t) = cancel_during(&base, Duration::from_millis(200), |c| {
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
    });
    assert_cancelled("connecting", &e, t);
}

/// Accepts connections and holds them open without a byte: a TLS handshake
/// waits for the server hello forever.
fn silent_server() -> (TcpListener, thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let accepting = listener.try_clone().unwrap();
    let h = thread::spawn(move || {
        if let Ok((mut s, _)) = accepting.accept() {
            // Hold the connection until the client closes it.
            let mut sink = [0u8; 4096];
            while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
        }
    });
    (listener, h)
}

#[test]
fn cancel_during_the_tls_handshake() {
    let (listener, server) = silent_server();
    let base = client_for(format!(
        "https://127.0.0.1:{}",
        listener.local_addr().unwrap().port()
    ));
    let (e, t) = cancel_during(&base, Duration::from_millis(200), |c| {
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
    });
    assert_cancelled("in the TLS handshake", &e, t);
    // The socket was closed, so the server sees the end of the connection.
    server.join().unwrap();
}

#[test]
fn cancel_while_sending_an_upload() {
    // Accepts, then never reads: once the socket buffers fill, the client's write blocks.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let accepting = listener.try_clone().unwrap();
    let (held_tx, held_rx) = mpsc::channel();
    let server = thread::spawn(move || {
        let (s, _) = accepting.accept().unwrap();
        held_tx.send(()).unwrap();
        // Keep it unread until the client gives up, then report that it closed.
        thread::sleep(Duration::from_millis(800));
        let mut s = s;
        let mut sink = vec![0u8; 1 << 20];
        while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
    });
    let base = client_for(format!("http://{}", listener.local_addr().unwrap()));
    let bytes = vec![7u8; 64 << 20];
    // Cancelled once the server holds the connection and the client is writing.
    let (e, t) = cancel_when(&base, held_rx, |c| {
        let mut form = Form::from_fields(&json!({"model": "m", "prompt": "p"})).unwrap();
        form.add_file(FilePart {
            field: "image".into(),
            filename: "big.png".into(),
            content_type: "image/png".into(),
            bytes: &bytes,
        })
        .unwrap();
        c.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
    });
    assert_cancelled("sending an upload", &e, t);
    server.join().unwrap();
}

#[test]
fn cancel_while_sending_a_big_json_body() {
    // As the upload above, for a JSON body: it goes to the socket from the caller's
    // memory (src/net/direct_body.rs), in one gathered write the cancel must end.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let accepting = listener.try_clone().unwrap();
    let (held_tx, held_rx) = mpsc::channel();
    let server = thread::spawn(move || {
        let (s, _) = accepting.accept().unwrap();
        held_tx.send(()).unwrap();
        thread::sleep(Duration::from_millis(800));
        let mut s = s;
        let mut sink = vec![0u8; 1 << 20];
        while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
    });
    let base = client_for(format!("http://{}", listener.local_addr().unwrap()));
    let body = json!({
        "model": "m",
        "messages": [{"role": "user", "content": "x".repeat(48 << 20)}],
    });
    let (e, t) = cancel_when(&base, held_rx, |c| c.call(&ops::CHAT, &[], Some(&body)));
    assert_cancelled("sending a big JSON body", &e, t);
    server.join().unwrap();
}

#[test]
fn cancel_while_reading_a_body_closes_the_connection() {
    // Sends the head and part of a body, then stalls until the client closes.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let accepting = listener.try_clone().unwrap();
    let server = thread::spawn(move || {
        let (mut s, _) = accepting.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap() == 1 {
            head.push(byte[0]);
        }
        let text = String::from_utf8_lossy(&head).to_string();
        let length: usize = text
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap())
            })
            .unwrap_or(0);
        let mut body = vec![0u8; length];
        s.read_exact(&mut body).unwrap();
        s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"choices\":")
            .unwrap();
        let started = Instant::now();
        let mut sink = [0u8; 64];
        // Returns 0 (EOF) once the client closed its end.
        let closed = matches!(s.read(&mut sink), Ok(0));
        (closed, started.elapsed())
    });
    let base = client_for(format!("http://{}", listener.local_addr().unwrap()));
    let (e, t) = cancel_during(&base, Duration::from_millis(300), |c| {
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
    });
    assert_cancelled("reading a body", &e, t);
    let (closed, _) = server.join().unwrap();
    assert!(
        closed,
        "the half-read connection was closed, not kept for reuse"
    );
}

#[test]
fn a_cancelled_handle_refuses_later_calls_at_once_and_siblings_work() {
    let mock = MockGateway::start();
    let base = client(&mock);
    let one = base.derive(&CallOptions::default()).unwrap();
    let two = base.derive(&CallOptions::default()).unwrap();
    one.cancel();
    one.cancel(); // idempotent
    let started = Instant::now();
    let e = one.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_CANCELLED, "{e}");
    let e = one.stream_open(&ops::CHAT, &chat("hi")).unwrap_err();
    assert_eq!(e.status(), GW_CANCELLED, "{e}");
    assert!(started.elapsed() < Duration::from_millis(100));
    assert_eq!(mock.request_count(), 0, "nothing was sent");
    assert!(two.call(&ops::CHAT, &[], Some(&chat("two"))).is_ok());
    assert!(base.call(&ops::CHAT, &[], Some(&chat("base"))).is_ok());
    assert!(!base.is_cancelled() && !two.is_cancelled() && one.is_cancelled());
}

/// A stream read to its end gives its connection back to the pool while the stream
/// is still held; a cancel of that handle must not reach the connection once another
/// handle's call has it (issue 19, item 1).
#[test]
fn cancelling_one_handle_never_breaks_another_handles_call_on_a_pooled_connection() {
    let mock = MockGateway::start();
    let base = client(&mock);
    let a = base.derive(&CallOptions::default()).unwrap();
    let b = base.derive(&CallOptions::default()).unwrap();
    let mut done_a = a.stream_open(&ops::CHAT, &chat("one two")).unwrap();
    while done_a.next_event().unwrap().is_some() {}
    // B's events come slowly, so they are read from the socket after the cancel.
    mock.push_fault(json!({"action": "drip", "interval_ms": 50}));
    let mut s = b.stream_open(&ops::CHAT, &chat("three four five")).unwrap();
    assert!(s.next_event().unwrap().is_some());
    assert_eq!(mock.connection_count(), 1, "B got A's pooled connection");
    a.cancel();
    let mut events = 1;
    while s
        .next_event()
        .expect("B's stream is not A's to cancel")
        .is_some()
    {
        events += 1;
    }
    assert!(events >= 4, "{events}");
    let v = parse(&s.finish().unwrap());
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "Echo: three four five"
    );
    drop(done_a);
}
