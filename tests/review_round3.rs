//! Issue 30's defects, each measured from outside: an answer a hostile or broken
//! server sends (status lines past 599, the key in a header name, event streams
//! cut before their blank line, a refusal streamed), and misuse of the options
//! and `gw_request` (options as an array, a percent-encoded `key`, a POST with
//! no body, bytes past ASCII). The proxy variables are in `security_env.rs`.

mod common;

use std::ffi::{c_char, CString};
use std::ptr;

use common::c_client::{take, CClient};
use common::*;
use gw::{ffi, ops, CallOptions, Options, WaitOptions, GW_INVALID_ARGUMENT, GW_NETWORK, GW_STREAM};
use gw_mock::MockGateway;
use serde_json::{json, Value};

fn raw(bytes: &str) -> Value {
    json!({"action": "raw", "bytes": bytes, "then": "close", "times": 1})
}

fn sse_fault(body: &str) -> Value {
    json!({"action": "status", "status": 200, "content_type": "text/event-stream", "body": body})
}

const CHUNK: &str =
    r#"{"id":"x","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"A"}}]}"#;

// ---- 3: status lines 600-999 --------------------------------------------------------------

#[test]
fn a_status_past_599_is_a_protocol_error_like_one_below_100() {
    let mock = MockGateway::start();
    let c = client_with(&mock, json!({"max_retries": 0}));
    let mut seen = Vec::new();
    for status in ["099", "614", "999", "600"] {
        mock.push_fault(raw(&format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{{}}"
        )));
        let e = c
            .request("GET", "/v1/models", None)
            .expect_err("not an HTTP status");
        seen.push((status, e.status(), e.to_string()));
    }
    for (status, code, message) in &seen {
        assert_eq!(*code, GW_NETWORK, "{status}: {message}");
        assert!(message.contains("protocol"), "{status}: {message}");
    }
}

// ---- 2: the key echoed in a header name, any case -----------------------------------------

#[test]
fn a_key_echoed_in_a_header_name_or_in_another_case_never_reaches_the_metadata() {
    let key = "sk-MixedCase7Q";
    let mock = MockGateway::start_with_key(key);
    let c = client_with(&mock, json!({"max_retries": 0}));
    let body = "{\"object\":\"list\",\"data\":[]}";
    mock.push_fault(raw(&format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nX-Echo-{key}: 1\r\n\
         X-Upper: {}\r\nX-Lower: {}\r\ncontent-length: {}\r\n\r\n{body}",
        key.to_ascii_uppercase(),
        key.to_ascii_lowercase(),
        body.len()
    )));
    c.request("GET", "/v1/models", None).unwrap();
    let meta = c.last_response().expect("an answer was recorded");
    let shown = meta.to_json().to_string().to_ascii_lowercase();
    assert!(!shown.contains("mixedcase7q"), "{shown}");
    assert!(shown.contains("x-upper"), "the other headers stay: {shown}");
}

// ---- 4: options JSON that is not an object -------------------------------------------------

#[test]
fn every_options_json_must_be_an_object() {
    for text in [
        r#"["http://127.0.0.1:1","sk-k",1,2,3]"#,
        "[]",
        "1",
        "\"x\"",
        "null",
    ] {
        let e = Options::from_json(text).expect_err(text);
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{text}: {e}");
        assert!(
            e.to_string().contains("must be a JSON object"),
            "{text}: {e}"
        );
        let e = CallOptions::from_json(text).expect_err(text);
        assert!(
            e.to_string().contains("must be a JSON object"),
            "{text}: {e}"
        );
        let e = WaitOptions::from_json(Some(text)).expect_err(text);
        assert!(
            e.to_string().contains("must be a JSON object"),
            "{text}: {e}"
        );
    }
    // Eight elements used to set the derive options' eighth field, `validate`, to false.
    let eight = "[1,1,1,1,0,null,null,false]";
    assert!(CallOptions::from_json(eight).is_err());
}

#[test]
fn options_arrays_are_refused_through_the_c_abi() {
    let mock = MockGateway::start();
    let array = CString::new(format!(r#"["{}","sk-k",1,2,3]"#, mock.url())).unwrap();
    let mut client = ptr::null_mut();
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe { ffi::gw_client_create(array.as_ptr(), &mut client, &mut out) };
    let error = take(out);
    assert_eq!(status, GW_INVALID_ARGUMENT, "{error}");
    assert!(client.is_null());
    assert!(error.contains("must be a JSON object"), "{error}");

    let base = CClient::new(&mock, "");
    let derive = CString::new("[1,1,1,1,0,null,null,false]").unwrap();
    let mut derived = ptr::null_mut();
    let mut out: *mut c_char = ptr::null_mut();
    let status =
        unsafe { ffi::gw_client_create_derived(base.0, derive.as_ptr(), &mut derived, &mut out) };
    let error = take(out);
    assert_eq!(status, GW_INVALID_ARGUMENT, "{error}");
    assert!(derived.is_null());

    let wait = CString::new("[1]").unwrap();
    let id = CString::new("task-1").unwrap();
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe {
        ffi::gw_video_wait(
            base.0,
            ffi::GW_VIDEO_UNIFIED,
            id.as_ptr(),
            wait.as_ptr(),
            None,
            ptr::null_mut(),
            &mut out,
        )
    };
    let error = take(out);
    assert_eq!(status, GW_INVALID_ARGUMENT, "{error}");
    assert!(error.contains("must be a JSON object"), "{error}");
    assert_eq!(mock.request_count(), 0, "nothing was sent");
}

// ---- 5, 6, 7: gw_request -------------------------------------------------------------------

fn request(c: &CClient, method: &str, path: &[u8], body: Option<&str>) -> (i32, String) {
    let method = CString::new(method).unwrap();
    let path = CString::new(path).unwrap();
    let body = body.map(|b| CString::new(b).unwrap());
    let mut out: *mut c_char = ptr::null_mut();
    let status = unsafe {
        ffi::gw_request(
            c.0,
            method.as_ptr(),
            path.as_ptr(),
            body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
            &mut out,
        )
    };
    (status, take(out))
}

#[test]
fn a_percent_encoded_key_parameter_is_refused_like_a_plain_one() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    for path in [
        "/v1beta/models?%6bey=x",
        "/v1beta/models?%4BEY=x",
        "/v1beta/models?k%65y=x",
        "/v1/models?a=1&%6B%65%79=x",
        "/v1/models?KEY=x",
    ] {
        let (status, error) = request(&c, "GET", path.as_bytes(), None);
        assert_eq!(status, GW_INVALID_ARGUMENT, "{path}: {error}");
        assert!(error.contains("key"), "{path}: {error}");
    }
    assert_eq!(mock.request_count(), 0, "nothing was sent");
    // A parameter that merely starts or ends like it is not the key.
    let (status, error) = request(&c, "GET", b"/v1/models?keys=1&monkey=2", None);
    assert_ne!(status, GW_INVALID_ARGUMENT, "{error}");
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn a_post_to_an_operation_without_a_body_is_refused_and_not_sent() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    for path in ["/v1/chat/completions", "/v1/embeddings", "/v1/responses"] {
        let (status, error) = request(&c, "POST", path.as_bytes(), None);
        assert_eq!(status, GW_INVALID_ARGUMENT, "{path}: {error}");
        assert!(error.contains("body"), "{path}: {error}");
    }
    assert_eq!(mock.request_count(), 0, "nothing was sent");
}

#[test]
fn bytes_past_ascii_in_a_request_path_are_percent_encoded() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    // (The mock has no such route: what matters is what reached it.)
    let (status, error) = request(&c, "GET", "/v1/models?q=\u{e9}t\u{e9}".as_bytes(), None);
    assert_ne!(status, GW_INVALID_ARGUMENT, "{error}");
    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/models");
    assert_eq!(sent.query.as_deref(), Some("q=%C3%A9t%C3%A9"));
    // Percent signs already there are the caller's encoding and stay as they are.
    let (status, error) = request(&c, "GET", "/v1/models/a%20b\u{e9}".as_bytes(), None);
    assert_ne!(status, GW_INVALID_ARGUMENT, "{error}");
    assert_eq!(mock.requests()[1].path, "/v1/models/a%20b%C3%A9");
}

// ---- 8: an unfinished last event is discarded ---------------------------------------------

fn stream_over(mock: &MockGateway, body: &str) -> (Result<String, gw::Error>, Vec<String>) {
    mock.push_fault(sse_fault(body));
    let c = client_with(mock, json!({"max_retries": 0}));
    let mut deltas = Vec::new();
    let result = c.stream(&ops::CHAT, &chat("x"), &mut |ev| {
        deltas.push(ev.data.to_string());
        true
    });
    (result, deltas)
}

#[test]
fn a_stream_ending_inside_its_terminal_event_is_gw_stream() {
    let mock = MockGateway::start();
    for tail in ["data: [DONE]", "data: [DONE]\n", "data: [DONE]\r\n"] {
        let body = format!("data: {CHUNK}\n\n{tail}");
        let (result, deltas) = stream_over(&mock, &body);
        let e = result.expect_err(tail);
        assert_eq!(e.status(), GW_STREAM, "{tail:?}: {e}");
        assert_eq!(deltas.len(), 1, "{tail:?}");
    }
}

#[test]
fn an_event_cut_mid_line_never_reaches_the_callback() {
    let mock = MockGateway::start();
    let cut = &CHUNK[..CHUNK.len() / 2];
    let (result, deltas) = stream_over(&mock, &format!("data: {CHUNK}\n\ndata: {cut}"));
    assert_eq!(result.unwrap_err().status(), GW_STREAM);
    assert_eq!(deltas.len(), 1, "only the finished event: {deltas:?}");
    // A whole JSON object without its blank line is unfinished too.
    let (result, deltas) = stream_over(&mock, &format!("data: {CHUNK}\n\ndata: {CHUNK}\n"));
    assert_eq!(result.unwrap_err().status(), GW_STREAM);
    assert_eq!(deltas.len(), 1);
}

#[test]
fn a_stream_cut_after_many_unfinished_data_lines_is_gw_stream() {
    let mock = MockGateway::start();
    let lines = "data: {\"id\":\"x\",\n".repeat(200);
    let (result, deltas) = stream_over(&mock, &format!("data: {CHUNK}\n\n{lines}"));
    let e = result.unwrap_err();
    assert_eq!(e.status(), GW_STREAM, "{e}");
    assert_eq!(deltas.len(), 1);
}

// ---- 9: a refusal streamed ----------------------------------------------------------------

#[test]
fn a_refusal_only_stream_assembles_null_content_as_the_plain_answer_has() {
    let mock = MockGateway::start();
    let chunk = |delta: Value| {
        json!({"id": "r", "object": "chat.completion.chunk", "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    };
    let body = [
        chunk(json!({"role": "assistant", "content": null, "refusal": ""})),
        chunk(json!({"refusal": "I can't "})),
        chunk(json!({"refusal": "help with that."})),
    ]
    .iter()
    .map(|c| format!("data: {c}\n\n"))
    .collect::<String>()
        + "data: [DONE]\n\n";
    let (result, _) = stream_over(&mock, &body);
    let message = parse(&result.unwrap())["choices"][0]["message"].clone();
    assert_eq!(message["content"], Value::Null, "{message}");
    assert_eq!(message["refusal"], "I can't help with that.", "{message}");
    // Text beside the refusal keeps its text.
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": "Hi"})),
        chunk(json!({"refusal": "no"}))
    );
    let message = parse(&stream_over(&mock, &body).0.unwrap())["choices"][0]["message"].clone();
    assert_eq!(message["content"], "Hi", "{message}");
}
