//! The upload body on the wire (issue 10): the form is read from the caller's
//! file as it is sent, with a Content-Length (never chunked), and every attempt
//! or redirect hop sends the whole body again from its first byte.

mod common;

use base64::Engine as _;
use common::*;
use gw::{ops, FilePart, Form};
use gw_mock::{MockGateway, RecordedRequest};
use serde_json::json;

/// Bytes that change at every position, so a body cut or shifted anywhere differs.
fn file_bytes(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 + (i >> 11)) as u8).collect()
}

fn upload(mock: &MockGateway, bytes: &[u8]) -> Result<String, gw::Error> {
    let c = client(mock);
    let mut form = Form::from_fields(&json!({"model": "m", "prompt": "p"})).unwrap();
    form.add_file(FilePart {
        field: "image".into(),
        filename: "big.png".into(),
        content_type: "image/png".into(),
        bytes,
    })
    .unwrap();
    c.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
}

/// The request carried the whole form, length-delimited.
fn assert_whole(req: &RecordedRequest, bytes: &[u8]) {
    assert_eq!(req.path, "/v1/images/edits");
    assert_eq!(req.header("transfer-encoding"), None, "{:?}", req.headers);
    let length: usize = req
        .header("content-length")
        .expect("a Content-Length")
        .parse()
        .unwrap();
    // The recorded body is lossy text; the file part alone must fit the length.
    assert!(length > bytes.len(), "{length}");
    let parts = req
        .multipart
        .as_ref()
        .expect("a well-formed multipart body");
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["model", "prompt", "image"]);
    let image = &parts[2];
    assert_eq!(image.size, bytes.len());
    let got = base64::engine::general_purpose::STANDARD
        .decode(&image.bytes_b64)
        .unwrap();
    assert!(got == bytes, "the file arrived changed");
}

#[test]
fn an_upload_is_sent_length_delimited() {
    let mock = MockGateway::start();
    let bytes = file_bytes(3 << 20);
    parse(&upload(&mock, &bytes).unwrap());
    let all = mock.requests();
    assert_eq!(all.len(), 1);
    assert_whole(&all[0], &bytes);
}

#[test]
fn a_retried_upload_sends_the_whole_body_again() {
    let mock = MockGateway::start();
    mock.push_fault(
        json!({"match": "/v1/images/edits", "times": 2, "action": "status", "status": 503}),
    );
    let bytes = file_bytes((1 << 20) + 12_345);
    parse(&upload(&mock, &bytes).unwrap());
    let all = mock.requests();
    assert_eq!(all.len(), 3, "two refusals, then the answer");
    for req in &all {
        assert_whole(req, &bytes);
    }
    // The same request each time, as far as the gateway can tell.
    let key = all[0].header("idempotency-key").expect("a key");
    assert!(all.iter().all(|r| r.header("idempotency-key") == Some(key)));
}

#[test]
fn a_redirected_upload_sends_the_whole_body_to_the_new_place() {
    let mock = MockGateway::start();
    mock.push_fault(json!({
        "match": "/v1/images/edits", "times": 1, "action": "redirect",
        "status": 307, "location": "/v1/images/edits",
    }));
    let bytes = file_bytes(700_001);
    parse(&upload(&mock, &bytes).unwrap());
    let all = mock.requests();
    assert_eq!(all.len(), 2, "the redirected request and its hop");
    for req in &all {
        assert_whole(req, &bytes);
    }
}
