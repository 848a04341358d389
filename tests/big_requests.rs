//! Big requests go the short way (issue 20): a body is checked on a borrowed
//! parse and the caller's bytes are sent as they are (edited in place only where
//! gw must, a stream's `"stream": true`). Through the C ABI, as C, Go and Kotlin
//! callers send their text, against the mock's request recording.

mod common;

use std::ffi::CString;
use std::ptr;

use common::c_client::{take, CClient};
use gw::ffi;
use gw::{GW_INVALID_ARGUMENT, GW_OK};
use gw_mock::MockGateway;
use serde_json::Value;

fn message(error_json: &str) -> String {
    let v: Value = serde_json::from_str(error_json).unwrap();
    v["error"]["message"].as_str().unwrap().to_string()
}

/// Whitespace, key order, numbers past u64 and f64, unknown fields and every kind
/// of escape, none of which gw may rewrite.
const CHAT: &str = concat!(
    "{ \"zeta\" : 1,\n  \"model\":\"chat-model\",\t\"messages\" : [ {\"role\":\"user\",",
    r#""content":"caf\u00e9 \/ \ud83d\ude00 \"quoted\"\n\\ é"} ],"#,
    r#" "big": 123456789012345678901234567890, "price": 1.10, "e": 1E+2,"#,
    r#" "unknown": {"b": [true, false, null], "a": -0.0}, "temperature": 0.5 }"#
);

#[test]
fn every_json_call_sends_the_callers_bytes() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    assert_eq!(c.run(ffi::gw_chat, CHAT).0, GW_OK);

    let embeddings = r#"{"input" : ["a", "b\n", [1, 2, 3]], "model":"emb-model", "x":1.50}"#;
    assert_eq!(c.run(ffi::gw_embeddings, embeddings).0, GW_OK);

    let edit = r#"{"prompt":"sky","model":"img-model","image":"https:\/\/x.example\/a.png" }"#;
    assert_eq!(c.run(ffi::gw_image_edit, edit).0, GW_OK);

    let native = concat!(
        r#"{"contents":[{"role":"user","parts":[{"text":"what is this?"},"#,
        r#"{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgo="}}]}],"#,
        r#" "generationConfig":{"topP":0.50}}"#
    );
    let model = CString::new("native-model").unwrap();
    let body = CString::new(native).unwrap();
    let mut out = ptr::null_mut();
    let status = unsafe { ffi::gw_generate_content(c.0, model.as_ptr(), body.as_ptr(), &mut out) };
    assert_eq!(status, GW_OK, "{}", take(out));
    take(out);

    let method = CString::new("POST").unwrap();
    let path = CString::new("/v1/chat/completions").unwrap();
    let body = CString::new(CHAT).unwrap();
    let mut out = ptr::null_mut();
    let status =
        unsafe { ffi::gw_request(c.0, method.as_ptr(), path.as_ptr(), body.as_ptr(), &mut out) };
    assert_eq!(status, GW_OK, "{}", take(out));
    take(out);

    let sent: Vec<String> = mock.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(sent, [CHAT, embeddings, edit, native, CHAT]);
}

#[test]
fn a_stream_edits_only_the_stream_member() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let stream = |json: &str| {
        let (status, out, events) = c.stream(json);
        assert_eq!(status, GW_OK, "{out}");
        assert!(events > 0);
    };
    // Appended before the closing brace, whitespace and all kept.
    stream(CHAT);
    // The caller's own member, whatever its value, set where it stands.
    let with_flag = CHAT.replace("\"zeta\" : 1", "\"zeta\" : 1, \"stream\" : \"yes\"");
    stream(&with_flag);
    // Already true: sent untouched.
    let already = CHAT.replace("\"zeta\" : 1", "\"stream\":true");
    stream(&already);

    // The pull API: the same bytes.
    let json = CString::new(CHAT).unwrap();
    let mut s = ptr::null_mut();
    let mut out = ptr::null_mut();
    assert_eq!(
        unsafe { ffi::gw_chat_stream_open(c.0, json.as_ptr(), &mut s, &mut out) },
        GW_OK
    );
    assert_eq!(unsafe { ffi::gw_stream_finish(s, &mut out) }, GW_OK);
    take(out);
    unsafe { ffi::gw_stream_free(s) };

    let appended = format!("{},\"stream\":true }}", CHAT.strip_suffix(" }").unwrap());
    assert!(appended.ends_with(r#""temperature": 0.5,"stream":true }"#));
    let sent: Vec<String> = mock.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(
        sent,
        [
            appended.clone(),
            with_flag.replace("\"yes\"", "true"),
            already,
            appended
        ]
    );
}

#[test]
fn invalid_json_is_refused_word_for_word_as_before() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    for bad in [
        r#"{"model":"m","messages":[{"role":"user","content":"\ud800"}]}"#,
        r#"{"model":"m","messages":[{"role":"user","content":"\udc00 low"}]}"#,
        r#"{"model":"m","messages":[{"role":"user","content":"\ud800\u0041"}]}"#,
        r#"{"model":"m","messages":[],}"#,
        r#"{"model":"m","n":01}"#,
        "{\"model\":\"m\",\"x\":\"tab\there\"}",
        r#"{"model":"m"} trailing"#,
        r#"{"model":"m""#,
        "",
    ] {
        let serde = serde_json::from_str::<Value>(bad).unwrap_err();
        let (status, out) = c.run(ffi::gw_chat, bad);
        assert_eq!(status, GW_INVALID_ARGUMENT, "{bad}");
        assert_eq!(
            message(&out),
            format!("request_json: invalid JSON ({serde})"),
            "{bad}"
        );
    }
    let (status, out) = c.run(ffi::gw_chat, "[1, 2]");
    assert_eq!(status, GW_INVALID_ARGUMENT);
    assert_eq!(message(&out), "request_json: must be a JSON object");
    assert!(mock.requests().is_empty());
}

/// A chat of `text_parts` messages whose first carries a data-URI image of `mib` MiB.
fn image_chat(mib: usize, tail: &str) -> String {
    let data = "A".repeat(mib << 20);
    format!(
        concat!(
            r#"{{"model":"chat-model","messages":[{{"role":"user","content":["#,
            r#"{{"type":"text","text":"What is in this photo?"}},"#,
            r#"{{"type":"image_url","image_url":{{"url":"data:image/jpeg;base64,{}"}}}}]}}{}],"#,
            r#""max_tokens":64}}"#
        ),
        data, tail
    )
}

#[test]
fn a_limit_broken_deep_in_a_big_body_is_refused_before_sending() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let tail = concat!(
        r#",{"role":"assistant","content":"ok"},{"role":"user","content":"more"},"#,
        r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"},"#,
        r#"{"type":"video_url","video_url":{"url":"https://v.example/a.mp4","fps":9}}]}"#
    );
    let body = image_chat(8, tail);
    let (status, out) = c.run(ffi::gw_chat, &body);
    assert_eq!(status, GW_INVALID_ARGUMENT);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["error"]["message"],
        "messages[3].content[2].video_url.fps: must be between 0.2 and 5 (got 9)"
    );
    assert_eq!(v["error"]["param"], "messages[3].content[2].video_url.fps");
    // The same refusal from the stream functions, and nothing was sent.
    let json = CString::new(body.as_str()).unwrap();
    let mut s = ptr::null_mut();
    let mut out = ptr::null_mut();
    let status = unsafe { ffi::gw_chat_stream_open(c.0, json.as_ptr(), &mut s, &mut out) };
    assert_eq!(status, GW_INVALID_ARGUMENT);
    assert!(message(&take(out)).starts_with("messages[3].content[2].video_url.fps"));
    assert!(s.is_null());
    assert!(mock.requests().is_empty());

    // validate: false still skips the checks: the body goes as it is (and the mock,
    // which checks the same limits, answers 400).
    let unchecked = CClient::new(&mock, r#","validate":false"#);
    assert_eq!(unchecked.run(ffi::gw_chat, &body).0, 400);
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert!(
        sent[0].body == body,
        "the unchecked body was not sent as written"
    );
}

#[test]
fn a_20_mib_body_is_sent_whole() {
    let mock = MockGateway::start();
    let c = CClient::new(&mock, "");
    let body = image_chat(20, "");
    let (status, out) = c.run(ffi::gw_chat, &body);
    assert_eq!(status, GW_OK, "{out}");
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].body.len(), body.len());
    assert!(
        sent[0].body == body,
        "the 20 MiB body was changed on the way"
    );
}
