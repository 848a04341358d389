//! The in-process mock: auth, 404, validation, recording, faults, streams and tasks.

mod common;

use common::{get, post_json, send};
use gw_mock::MockGateway;
use serde_json::{json, Value};

fn chat_body(text: &str) -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": text}]})
}

#[test]
fn bad_or_missing_key_is_the_documented_401_and_never_echoed() {
    let m = MockGateway::start();
    let expected = json!({"error": {"message": "Invalid API key provided", "type": "authentication_error", "code": "invalid_api_key"}});
    let wrong = post_json(
        m.addr(),
        "/v1/chat/completions",
        "sk-WRONG-secret",
        &chat_body("hi"),
    );
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json(), expected);
    assert!(!wrong.body.contains("sk-WRONG-secret"));
    let missing = send(m.addr(), "POST", "/v1/embeddings", &[], b"{}");
    assert_eq!((missing.status, missing.json()), (401, expected.clone()));

    // The native format takes ?key= and ignores the Authorization header.
    let path = "/v1beta/models/g:generateContent";
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    assert_eq!(post_json(m.addr(), path, "sk-test", &body).status, 401);
    let ok = post_json(m.addr(), &format!("{path}?key=sk-test"), "ignored", &body);
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert_eq!(
        ok.json()["candidates"][0]["content"]["parts"][0]["text"],
        "Echo: hi"
    );
}

#[test]
fn unknown_paths_and_methods_are_404_with_the_error_object() {
    let m = MockGateway::start_with_key("k");
    let r = get(m.addr(), "/v1/nope", "k");
    assert_eq!(r.status, 404);
    assert_eq!(
        r.json(),
        json!({"error": {"message": "Invalid endpoint: GET /v1/nope", "type": "invalid_request_error", "code": "not_found"}})
    );
    assert_eq!(get(m.addr(), "/v1/chat/completions", "k").status, 404);
    assert_eq!(get(m.addr(), "/v1/nope", "wrong").status, 404);
    assert_eq!(m.request_count(), 3, "unknown paths are recorded too");
}

#[test]
fn broken_limits_are_400_naming_the_field() {
    let m = MockGateway::start();
    let cases = [
        (
            "/v1/chat/completions",
            json!({"model": "m", "messages": []}),
            "messages: must have at least 1 item",
        ),
        (
            "/v1/chat/completions",
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "stop": ["a","b","c","d","e"]}),
            "stop: at most 4 sequences",
        ),
        (
            "/v1/chat/completions",
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "top_p": 1.5}),
            "top_p: must be between 0 and 1",
        ),
        (
            "/v1/chat/completions",
            json!({"messages": [{"role": "user", "content": "x"}]}),
            "model: is required",
        ),
        (
            "/v1/responses",
            json!({"model": "m", "input": "x", "reasoning": {"effort": "ultra"}}),
            "reasoning.effort: must be one of none, minimal, low, medium, high, xhigh, max",
        ),
        (
            "/v1/images/generations",
            json!({"model": "i", "prompt": "p", "seed": -2}),
            "seed: must be between -1 and 2147483647",
        ),
        (
            "/v1/embeddings",
            json!({"model": "e", "input": "x", "encoding_format": "int8"}),
            "encoding_format: must be one of float, base64",
        ),
    ];
    for (path, body, message) in cases {
        let r = post_json(m.addr(), path, "sk-test", &body);
        assert_eq!(r.status, 400, "{path} {body}");
        assert_eq!(r.json()["error"]["message"], message);
        assert_eq!(r.json()["error"]["code"], "invalid_parameter");
    }
}

#[test]
fn faults_are_consumed_in_order_and_requests_recorded_before_them() {
    let m = MockGateway::start();
    m.push_fault(json!([
        {"match": "/v1/chat/completions", "action": "status", "status": 503},
        {"match": "/v1/chat/completions", "action": "status", "status": 429, "headers": {"retry-after-ms": "10"}},
        {"match": "/v1/chat/completions", "action": "garbage"},
    ]));
    // A path the faults don't match is untouched and leaves the queue alone.
    assert_eq!(
        post_json(
            m.addr(),
            "/v1/embeddings",
            "sk-test",
            &json!({"model": "e", "input": "x"})
        )
        .status,
        200
    );

    let send_chat = || {
        post_json(
            m.addr(),
            "/v1/chat/completions",
            "sk-test",
            &chat_body("hi"),
        )
    };
    let first = send_chat();
    assert_eq!(first.status, 503);
    assert_eq!(first.json()["error"]["type"], "server_error");
    let second = send_chat();
    assert_eq!(second.status, 429);
    assert_eq!(second.header("retry-after-ms"), Some("10"));
    assert_eq!(second.json()["error"]["type"], "rate_limit_error");
    let third = send_chat();
    assert_eq!(
        (third.status, third.body.as_str()),
        (200, "{\"id\": \"broken")
    );
    assert_eq!(
        send_chat().json()["choices"][0]["message"]["content"],
        "Echo: hi"
    );

    assert_eq!(m.request_count(), 5);
    assert_eq!(m.pending_faults(), 0);
    m.push_fault(json!({"action": "status", "status": 500, "times": 2}));
    m.reset();
    assert_eq!((m.request_count(), m.pending_faults()), (0, 0));
}

#[test]
fn control_endpoints_queue_faults_and_list_requests_without_recording_themselves() {
    let m = MockGateway::start();
    let q = send(
        m.addr(),
        "POST",
        "/__mock/faults",
        &[],
        br#"{"action":"wrong_shape"}"#,
    );
    assert_eq!(q.json()["queued"], 1);
    let r = post_json(m.addr(), "/v1/chat/completions", "sk-test", &chat_body("x"));
    assert_eq!(r.body, "{\"unexpected\": true}");
    let list = send(m.addr(), "GET", "/__mock/requests", &[], b"").json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["path"], "/v1/chat/completions");
    assert_eq!(
        send(m.addr(), "POST", "/__mock/faults", &[], b"{\"action\":1}").status,
        400
    );
    send(m.addr(), "POST", "/__mock/reset", &[], b"");
    assert_eq!(m.request_count(), 0);
}

#[test]
fn chat_stream_is_role_then_words_then_stop_then_done() {
    let m = MockGateway::start();
    let mut body = chat_body("one two");
    body["stream"] = json!(true);
    let r = post_json(m.addr(), "/v1/chat/completions", "sk-test", &body);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert!(r.complete);
    let events: Vec<&str> = r.body.split("\n\n").filter(|e| !e.is_empty()).collect();
    assert_eq!(events.last(), Some(&"data: [DONE]"));
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|e| serde_json::from_str(e.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Echo: one two");
    let last = &chunks[chunks.len() - 1]["choices"][0];
    assert_eq!(
        (last["delta"].clone(), last["finish_reason"].clone()),
        (json!({}), json!("stop"))
    );
}

#[test]
fn stream_reset_aborts_mid_body_and_only_matches_streams() {
    let m = MockGateway::start();
    m.push_fault(json!({"action": "reset", "after_events": 2}));
    // Not a stream: the stream fault does not apply and stays queued.
    assert_eq!(
        post_json(
            m.addr(),
            "/v1/chat/completions",
            "sk-test",
            &chat_body("a b c")
        )
        .status,
        200
    );
    assert_eq!(m.pending_faults(), 1);

    let mut body = chat_body("a b c");
    body["stream"] = json!(true);
    let r = post_json(m.addr(), "/v1/chat/completions", "sk-test", &body);
    assert_eq!(r.status, 200);
    assert!(
        !r.complete,
        "the chunked body must end without its final chunk"
    );
    assert_eq!(r.body.matches("data: ").count(), 2, "{}", r.body);
    assert!(!r.body.contains("[DONE]"));
}

#[test]
fn responses_stream_faults_truncate_and_error() {
    let m = MockGateway::start();
    let body = json!({"model": "m", "input": "x y", "stream": true});
    m.push_fault(json!({"action": "truncate", "after_events": 3}));
    let cut = post_json(m.addr(), "/v1/responses", "sk-test", &body);
    assert!(cut.complete);
    assert_eq!(cut.body.matches("event: ").count(), 3);
    assert!(!cut.body.contains("response.completed"));

    m.push_fault(json!({"action": "stream_error", "after_events": 1}));
    let err = post_json(m.addr(), "/v1/responses", "sk-test", &body);
    assert!(err.body.ends_with(
        "event: error\ndata: {\"type\":\"error\",\"code\":\"stream_failure\",\"message\":\"upstream model failed\"}\n\n"
    ), "{}", err.body);

    let whole = post_json(m.addr(), "/v1/responses", "sk-test", &body);
    assert!(whole.body.contains("event: response.completed\n"));
}

#[test]
fn recording_keeps_headers_and_multipart_parts_byte_exact() {
    let m = MockGateway::start();
    let image: &[u8] = b"\x89PNG\r\n\x1a\n\x00\xff\xfe";
    let mut body = Vec::new();
    for (name, file, bytes) in [
        ("model", None, &b"edit-model"[..]),
        ("prompt", None, b"make it red"),
        ("image", Some("in.png"), image),
        ("mask", Some("mask.png"), b"\x00\x01"),
    ] {
        body.extend_from_slice(b"--BOUND\r\n");
        match file {
            Some(f) => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\nContent-Type: image/png\r\n\r\n").as_bytes()),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--BOUND--\r\n");
    let r = send(
        m.addr(),
        "POST",
        "/v1/images/edits?trace=1",
        &[
            ("Authorization", "Bearer sk-test"),
            ("Content-Type", "multipart/form-data; boundary=BOUND"),
            ("X-Custom", "yes"),
        ],
        &body,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"][0]["revised_prompt"], "Edited: make it red");

    let rec = &m.requests()[0];
    assert_eq!(
        (rec.method.as_str(), rec.path.as_str(), rec.query.as_deref()),
        ("POST", "/v1/images/edits", Some("trace=1"))
    );
    assert_eq!(rec.header("x-custom"), Some("yes"));
    assert_eq!(rec.header("AUTHORIZATION"), Some("Bearer sk-test"));
    assert!(rec.json.is_none());
    let parts = rec.multipart.as_ref().unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["model", "prompt", "image", "mask"]);
    assert_eq!(parts[2].filename.as_deref(), Some("in.png"));
    assert_eq!(parts[2].content_type.as_deref(), Some("image/png"));
    assert_eq!(
        (parts[2].size, parts[2].bytes()),
        (image.len(), image.to_vec())
    );
    assert_eq!(parts[1].text.as_deref(), Some("make it red"));
}

#[test]
fn video_tasks_move_on_as_they_are_polled() {
    let m = MockGateway::start();
    let created = post_json(
        m.addr(),
        "/v1/video/create",
        "sk-test",
        &json!({"model": "v", "prompt": "a cat", "duration": 5}),
    )
    .json();
    assert_eq!(created["status"], "processing");
    let path = format!(
        "/v1/video/generations/{}",
        created["task_id"].as_str().unwrap()
    );
    let statuses: Vec<Value> = (0..3)
        .map(|_| get(m.addr(), &path, "sk-test").json()["status"].clone())
        .collect();
    assert_eq!(
        statuses,
        [json!("processing"), json!("processing"), json!("succeeded")]
    );

    let k: Vec<Value> = (0..3)
        .map(|_| get(m.addr(), "/vendorR/task/job-fail-1", "sk-test").json()["status"].clone())
        .collect();
    assert_eq!(k, [json!("PENDING"), json!("RUNNING"), json!("FAILED")]);
    assert_eq!(get(m.addr(), "/v1/videos/video_404", "sk-test").status, 404);
}

/// The stream shapes of issue 9: each is selected per request, waits for its own endpoint,
/// and an unknown name is refused naming the known ones.
#[test]
fn stream_shapes_are_played_on_their_endpoint_only() {
    let m = MockGateway::start();
    let chat =
        json!({"model": "m", "messages": [{"role": "user", "content": "a b"}], "stream": true});
    let responses = json!({"model": "m", "input": "a b", "stream": true});
    m.push_fault(json!({"action": "stream_shape", "shape": "responses_no_event_lines"}));
    // A chat stream leaves a Responses shape queued and streams as usual.
    let plain = post_json(m.addr(), "/v1/chat/completions", "sk-test", &chat);
    assert!(plain.body.ends_with("data: [DONE]\n\n"), "{}", plain.body);
    assert_eq!(m.pending_faults(), 1);
    let bare = post_json(m.addr(), "/v1/responses", "sk-test", &responses);
    assert!(!bare.body.contains("event:"), "{}", bare.body);
    assert!(bare.body.contains("\"type\":\"response.completed\""));
    assert_eq!(m.pending_faults(), 0);

    m.push_fault(json!({"action": "stream_shape", "shape": "n2"}));
    let n2 = post_json(m.addr(), "/v1/chat/completions", "sk-test", &chat);
    assert!(n2.body.contains("\"index\":1"), "{}", n2.body);

    let refused = send(
        m.addr(),
        "POST",
        "/__mock/faults",
        &[],
        br#"{"action":"stream_shape","shape":"n3"}"#,
    );
    assert_eq!(refused.status, 400);
    assert!(refused.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("tool_calls_no_index"));
}

#[test]
fn error_bodies_come_in_the_shapes_real_servers_use() {
    let m = MockGateway::start();
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "a"}]});
    for (shape, ctype, needle) in [
        ("sse", "text/event-stream", "data: {\"error\""),
        ("google", "application/json", "\"INVALID_ARGUMENT\""),
        ("html", "text/html", "<html>"),
        ("plain", "text/plain", "upstream connect error"),
    ] {
        m.push_fault(json!({"action": "error_body", "shape": shape, "status": 503}));
        let r = post_json(m.addr(), "/v1/chat/completions", "sk-test", &chat);
        assert_eq!(r.status, 503, "{shape}");
        assert_eq!(r.header("content-type"), Some(ctype), "{shape}");
        assert!(r.body.contains(needle), "{shape}: {}", r.body);
    }
}

#[test]
fn the_normalising_mode_serves_dot_segments_as_a_proxy_would() {
    let mock = MockGateway::start();
    let auth = [("Authorization", "Bearer sk-test")];
    // Off (the default): the path is taken as sent, and no route has a '..' segment.
    let r = send(mock.addr(), "GET", "/v1/videos/..", &auth, b"");
    assert_eq!(r.status, 404, "{}", r.body);
    // On: /v1/videos/x/../y is /v1/videos/y, and /v1/videos/../remix is /v1/remix.
    mock.set_normalize_paths(true);
    let created = send(
        mock.addr(),
        "POST",
        "/v1/videos",
        &auth,
        br#"{"model":"m","prompt":"p","character_id":"c"}"#,
    )
    .json();
    let id = created["id"].as_str().unwrap().to_string();
    let r = send(
        mock.addr(),
        "GET",
        &format!("/v1/videos/x/%2E%2e/{id}"),
        &auth,
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["id"], id.as_str());
    let recorded = mock.requests();
    assert_eq!(recorded.last().unwrap().path, format!("/v1/videos/{id}"));
    send(
        mock.addr(),
        "POST",
        "/v1/videos/../remix",
        &auth,
        br#"{"prompt":"p"}"#,
    );
    assert_eq!(mock.requests().last().unwrap().path, "/v1/remix");
    // The control endpoint turns it off; reset does too.
    let r = send(
        mock.addr(),
        "POST",
        "/__mock/mode",
        &[],
        br#"{"normalize_paths": false}"#,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    send(mock.addr(), "GET", "/v1/videos/x/../y", &auth, b"");
    assert_eq!(mock.requests().last().unwrap().path, "/v1/videos/x/../y");
    mock.set_normalize_paths(true);
    mock.reset();
    send(mock.addr(), "GET", "/v1/videos/x/../y", &auth, b"");
    assert_eq!(mock.requests().last().unwrap().path, "/v1/videos/x/../y");
}
