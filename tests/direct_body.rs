//! A big body is written to the socket from the caller's memory, not copied
//! through ureq's buffer (src/net/direct_body.rs). What arrives is the caller's
//! text byte for byte: over plain TCP and over TLS (where rustls must copy it),
//! on every retry and redirect hop, in a stream (with only its `"stream": true`
//! added), and when a pulled stream is sent again after the caller freed its
//! text. A send the server never takes ends at the deadline.

mod common;

use std::ffi::{c_int, CString};
use std::io::Read;
use std::net::TcpListener;
use std::ptr;
use std::thread;
use std::time::{Duration, Instant};

use common::c_client::{take, CClient};
use gw::ffi;
use gw::{GW_OK, GW_TIMEOUT};
use gw_mock::{MockGateway, TestCa};
use serde_json::json;

/// A chat carrying a data-URI image of `bytes` base64 characters that change at
/// every position, so a chunk sent twice, skipped or out of place shows.
fn image_chat(bytes: usize) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let data: String = (0..bytes)
        .map(|i| B64[(i * 31 + (i >> 7) + (i >> 17)) % 64] as char)
        .collect();
    format!(
        concat!(
            r#"{{"model":"chat-model","messages":[{{"role":"user","content":["#,
            r#"{{"type":"text","text":"What is in this photo?"}},"#,
            r#"{{"type":"image_url","image_url":{{"url":"data:image/jpeg;base64,{}"}}}}]}}],"#,
            r#""max_tokens":64}}"#
        ),
        data
    )
}

/// `body` as a stream sends it: `"stream":true` added after the last member.
fn streamed(body: &str) -> String {
    format!("{},\"stream\":true}}", body.strip_suffix('}').unwrap())
}

/// Every recorded body equals `expected` (compared whole, reported by length).
fn assert_all_sent(mock: &MockGateway, expected: &str, count: usize) {
    let sent = mock.requests();
    assert_eq!(sent.len(), count, "requests recorded");
    for (i, request) in sent.iter().enumerate() {
        assert_eq!(request.body.len(), expected.len(), "request {i}: length");
        assert!(
            request.body == expected,
            "request {i}: the body arrived changed"
        );
    }
}

#[test]
fn a_big_body_arrives_as_written_in_every_size_around_the_buffer() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    // Around the direct path's threshold (64 KiB) and ureq's 128 KiB window.
    let sizes = [60_000, 65_536, 131_072, 131_073, 400_000, 3 << 20];
    for size in sizes {
        let body = image_chat(size);
        let (status, out) = c.run(ffi::gw_chat, &body);
        assert_eq!(status, GW_OK, "{size}: {out}");
        let sent = mock.requests();
        let last = sent.last().unwrap();
        assert_eq!(last.body.len(), body.len(), "{size}");
        assert!(last.body == body, "{size}: the body arrived changed");
        assert_eq!(
            last.header("content-length"),
            Some(body.len().to_string().as_str())
        );
    }
    assert_eq!(mock.request_count(), sizes.len());
}

#[test]
fn a_big_body_over_tls_is_copied_through_rustls_and_arrives_whole() {
    let ca = TestCa::new("gw test CA (direct body)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1", "localhost"]));
    let options = json!({
        "base_url": mock.url(),
        "api_key": mock.api_key(),
        "max_retries": 0,
        "ca_pem": ca.cert_pem(),
    });
    let c = CClient::with_options(&options.to_string());
    let body = image_chat(3 << 20);
    let (status, out) = c.run(ffi::gw_chat, &body);
    assert_eq!(status, GW_OK, "{out}");
    // A stream's body (pieces around the edit) through TLS as well.
    let (status, out) = stream(&c, &body);
    assert_eq!(status, GW_OK, "{out}");
    let sent = mock.requests();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].body == body, "the plain body arrived changed");
    assert!(
        sent[1].body == streamed(&body),
        "the stream body arrived changed"
    );
}

/// A C client on the mock that retries twice, quickly, plus `extra` options.
fn retrying(mock: &MockGateway, extra: serde_json::Value) -> CClient {
    let mut options = json!({
        "base_url": mock.url(),
        "api_key": mock.api_key(),
        "max_retries": 2,
        "retry_base_delay_ms": 5,
    });
    for (k, v) in extra.as_object().unwrap() {
        options[k] = v.clone();
    }
    CClient::with_options(&options.to_string())
}

#[test]
fn a_retried_big_body_is_sent_whole_again() {
    let mock = MockGateway::start();
    mock.push_fault(
        json!({"match": "/v1/chat/completions", "times": 2, "action": "status", "status": 503}),
    );
    let c = retrying(&mock, json!({}));
    let body = image_chat((1 << 20) + 12_345);
    let (status, out) = c.run(ffi::gw_chat, &body);
    assert_eq!(status, GW_OK, "{out}");
    assert_all_sent(&mock, &body, 3);
}

#[test]
fn a_redirected_big_body_is_sent_whole_to_the_new_place() {
    let mock = MockGateway::start();
    mock.push_fault(json!({
        "match": "/v1/chat/completions", "times": 1, "action": "redirect",
        "status": 307, "location": "/v1/chat/completions",
    }));
    let c = CClient::new(&mock, "");
    let body = image_chat(700_001);
    let (status, out) = c.run(ffi::gw_chat, &body);
    assert_eq!(status, GW_OK, "{out}");
    assert_all_sent(&mock, &body, 2);
}

/// `gw_chat_stream` of `body`: the status and the final object or error.
fn stream(c: &CClient, body: &str) -> (c_int, String) {
    let (status, out, events) = c.stream(body);
    if status == GW_OK {
        assert!(events > 0, "no events");
    }
    (status, out)
}

#[test]
fn a_big_stream_body_is_the_callers_text_with_only_stream_added() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let body = image_chat(5 << 20);
    let (status, out) = stream(&c, &body);
    assert_eq!(status, GW_OK, "{out}");
    // Already saying so: sent as it is.
    let already = streamed(&body);
    let (status, out) = stream(&c, &already);
    assert_eq!(status, GW_OK, "{out}");
    let sent = mock.requests();
    assert_eq!(sent.len(), 2);
    assert!(sent[0].body == streamed(&body), "the edited body differs");
    assert!(sent[1].body == already, "the unedited body differs");
}

#[test]
fn a_pulled_stream_sent_again_after_its_text_was_freed_sends_the_same_bytes() {
    let mock = MockGateway::start();
    // The first answer's events come 800 ms apart: the 200 ms read timeout ends it
    // before its first event, and the (keyed) request is sent again.
    mock.push_fault(json!({"action": "drip", "interval_ms": 800, "times": 1}));
    let c = retrying(&mock, json!({"read_timeout_ms": 200}));
    let body = image_chat(2 << 20);
    let mut s = ptr::null_mut();
    let mut out = ptr::null_mut();
    {
        let json = CString::new(body.as_str()).unwrap();
        let status = unsafe { ffi::gw_chat_stream_open(c.0, json.as_ptr(), &mut s, &mut out) };
        assert_eq!(status, GW_OK, "{}", take(out));
        // The caller's text is gone (and its memory overwritten) before the resend.
        let mut bytes = json.into_bytes();
        bytes.iter_mut().for_each(|b| *b = b'#');
    }
    let status = unsafe { ffi::gw_stream_finish(s, &mut out) };
    let answer = take(out);
    unsafe { ffi::gw_stream_free(s) };
    assert_eq!(status, GW_OK, "{answer}");
    assert_all_sent(&mock, &streamed(&body), 2);
}

#[test]
fn a_big_body_the_server_never_reads_ends_at_the_deadline() {
    // Accepts, then never reads: once the socket buffers fill, the write blocks.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        thread::sleep(Duration::from_millis(3000));
        let mut sink = vec![0u8; 1 << 20];
        while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
    });
    let c = CClient::with_options(
        &json!({
            "base_url": format!("http://127.0.0.1:{port}"),
            "api_key": "sk-test",
            "max_retries": 0,
            "total_timeout_ms": 300,
        })
        .to_string(),
    );
    // Past what loopback's socket buffers hold (a few MiB each way).
    let body = image_chat(24 << 20);
    let started = Instant::now();
    let (status, out) = c.run(ffi::gw_chat, &body);
    let took = started.elapsed();
    assert_eq!(status, GW_TIMEOUT, "{out}");
    // Well before the server would read (3 s), with room for a debug build's scan.
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    server.join().unwrap();
}
