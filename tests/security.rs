//! Secrets, origins, paths and headers (issue 7): what gw refuses and what it
//! never sends. Environment-driven cases (proxies from the environment,
//! SSL_CERT_FILE) run in child processes: tests/security_env.rs.

mod common;

use std::time::{Duration, Instant};

use common::*;
use gw::{ops, CallOptions, Client, Options, GW_INVALID_ARGUMENT, GW_NETWORK};
use gw_mock::MockGateway;
use serde_json::{json, Value};

const SECRET_HEADERS: [(&str, &str); 3] = [
    ("X-Api-Key", "xk-secret-1"),
    ("Cookie", "session=secret-2"),
    ("OpenAI-Organization", "org-secret-3"),
];

fn with_secret_headers(mock: &MockGateway) -> Client {
    let headers: serde_json::Map<String, Value> = SECRET_HEADERS
        .iter()
        .map(|(k, v)| (k.to_string(), Value::from(*v)))
        .collect();
    client_with(mock, json!({"headers": headers}))
}

// ---- Redirects -------------------------------------------------------------

#[test]
fn a_post_is_never_replayed_to_another_origin() {
    let origin = MockGateway::start();
    let elsewhere = MockGateway::start();
    let location = format!("{}/v1/chat/completions", elsewhere.url());
    origin.push_fault(json!({"action": "redirect", "status": 307, "location": location}));
    let c = with_secret_headers(&origin);
    let e = c
        .call(&ops::CHAT, &[], Some(&chat("my private prompt")))
        .unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains(&location), "names the Location: {e}");
    assert_eq!(
        elsewhere.request_count(),
        0,
        "neither headers nor prompt left"
    );
    assert_eq!(origin.request_count(), 1, "a refusal is not retried");
    // The same holds on a derived handle with an idempotency key (308 too).
    origin.push_fault(json!({"action": "redirect", "status": 308, "location": location}));
    let call = c
        .derive(&CallOptions::from_json(r#"{"idempotency_key":"idem-1"}"#).unwrap())
        .unwrap();
    assert_eq!(
        call.call(&ops::CHAT, &[], Some(&chat("again")))
            .unwrap_err()
            .status(),
        GW_NETWORK
    );
    assert_eq!(elsewhere.request_count(), 0);
}

#[test]
fn a_get_follows_to_another_origin_bare() {
    let origin = MockGateway::start();
    let elsewhere = MockGateway::start();
    let location = format!("{}/v1/videos/v9", elsewhere.url());
    origin.push_fault(json!({"action": "redirect", "status": 302, "location": location}));
    let c = with_secret_headers(&origin);
    let _ = c.call(&ops::VIDEO_CHARACTER_STATUS, &["v9"], None);
    let seen = &elsewhere.requests()[0];
    assert_eq!(seen.method, "GET");
    for (name, value) in SECRET_HEADERS {
        assert_eq!(seen.header(name), None, "{name} crossed the origin");
        assert!(
            !seen.headers.iter().any(|(_, v)| v.contains(value)),
            "{value} crossed the origin"
        );
    }
    assert_eq!(seen.header("authorization"), None);
    assert_eq!(seen.query, None);
    assert!(seen.body.is_empty());
    // On the base origin the headers are sent as asked.
    let first = &origin.requests()[0];
    for (name, value) in SECRET_HEADERS {
        assert_eq!(first.header(name), Some(value));
    }
}

#[test]
fn a_post_is_never_turned_into_another_method() {
    let mock = MockGateway::start();
    for status in [301, 302, 303] {
        mock.reset();
        mock.push_fault(
            json!({"action": "redirect", "status": status, "location": "/v1/chat/completions"}),
        );
        let e = client(&mock)
            .call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_err();
        assert_eq!(e.status(), GW_NETWORK, "{status}: {e}");
        assert!(e.to_string().contains("/v1/chat/completions"), "{e}");
        let reqs = mock.requests();
        assert_eq!(reqs.len(), 1, "{status}: nothing was re-sent");
        assert_eq!(reqs[0].method, "POST");
    }
    // 307 and 308 keep the method and body on the same origin.
    mock.reset();
    mock.push_fault(
        json!({"action": "redirect", "status": 307, "location": "/v1/chat/completions"}),
    );
    client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("kept")))
        .unwrap();
    let reqs = mock.requests();
    assert_eq!(reqs[1].method, "POST");
    assert_eq!(
        reqs[1].json.as_ref().unwrap()["messages"][0]["content"],
        "kept"
    );
}

// ---- Redaction --------------------------------------------------------------

#[test]
fn redaction_keeps_error_bodies_valid_json() {
    // A short key that also occurs in numbers: only strings may be touched.
    let mock = MockGateway::start_with_key("1");
    let c = client(&mock);
    mock.push_fault(
        json!({"action": "status", "status": 200, "match": "/vendorH",
        "body": r#"{"code":21,"message":"key 1 is not allowed","retry":[1,10,100]}"#}),
    );
    let body = json!({"image_url": "https://x.example/a.png", "prompt": "p"});
    let e = c
        .call(&ops::VENDOR_H_IMAGE_TO_VIDEO, &[], Some(&body))
        .unwrap_err();
    let out: Value = serde_json::from_str(&e.to_json()).expect("*out is valid JSON");
    assert_eq!(out["code"], 21);
    assert_eq!(out["retry"], json!([1, 10, 100]));
    assert_eq!(out["message"], "key [REDACTED] is not allowed");

    mock.push_fault(json!({"action": "status", "status": 400,
        "body": r#"{"error":{"message":"bad key 1","type":"invalid_request_error","code":1001}}"#}));
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    let out = error_json(&e);
    // The contract keeps a string code; the server's number is kept beside it, intact.
    assert_eq!(out["error"]["server_code"], 1001);
    assert_eq!(out["error"]["message"], "bad key [REDACTED]");
    assert_eq!(out["error"]["status"], 400);
}

// ---- Plain http and proxies -------------------------------------------------

#[test]
fn loopback_http_through_a_remote_proxy_is_refused() {
    let mock = MockGateway::start();
    let e = Client::new(options_for(
        &mock,
        json!({"proxy": "http://proxy.example:3128"}),
    ))
    .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
    assert!(e.to_string().contains("proxy.example"), "{e}");
    // allow_insecure_http is the explicit way through; a proxy on loopback is fine.
    assert!(Client::new(options_for(
        &mock,
        json!({"proxy": "http://proxy.example:3128", "allow_insecure_http": true})
    ))
    .is_ok());
    assert!(Client::new(options_for(
        &mock,
        json!({"proxy": "http://127.0.0.1:3128"})
    ))
    .is_ok());
}

#[test]
fn a_socks_proxy_option_is_refused_at_creation() {
    let mock = MockGateway::start();
    for proxy in ["socks5://127.0.0.1:1080", "socks4://127.0.0.1:1080"] {
        let e = Client::new(options_for(&mock, json!({ "proxy": proxy }))).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
        assert!(e.to_string().contains("SOCKS"), "{e}");
    }
}

// ---- Paths ------------------------------------------------------------------

#[test]
fn dot_segments_never_reach_a_normalising_proxy() {
    let mock = MockGateway::start();
    mock.set_normalize_paths(true);
    let c = client(&mock);
    let remix = json!({"prompt": "again"});
    for id in [".", "..", ""] {
        for e in [
            c.call(&ops::VIDEO_CHARACTER_STATUS, &[id], None)
                .unwrap_err(),
            c.call(&ops::VIDEO_REMIX, &[id], Some(&remix)).unwrap_err(),
            c.call(&ops::VENDOR_R_TASK, &[id], None).unwrap_err(),
        ] {
            assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{id:?}: {e}");
        }
    }
    for path in [
        "/v1/videos/../remix",
        "/v1/videos/%2e%2e/remix",
        "/v1/videos/x/./y",
        "/v1//videos",
    ] {
        let e = c.request("POST", path, Some(&remix)).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{path}: {e}");
        assert_eq!(error_json(&e)["error"]["param"], "path");
    }
    assert_eq!(mock.request_count(), 0, "nothing was sent");
    // Real ids still work through the normalising mock.
    let created: Value = serde_json::from_str(
        &c.call(
            &ops::VIDEO_CHARACTER,
            &[],
            Some(&json!({"model": "m", "prompt": "p", "character_id": "c"})),
        )
        .unwrap(),
    )
    .unwrap();
    let id = created["id"].as_str().unwrap();
    c.call(&ops::VIDEO_REMIX, &[id], Some(&remix)).unwrap();
    assert_eq!(
        mock.requests().last().unwrap().path,
        format!("/v1/videos/{id}/remix")
    );
}

// ---- Headers and base URLs ----------------------------------------------------

#[test]
fn framing_headers_are_refused_at_creation() {
    let mock = MockGateway::start();
    for name in [
        "Content-Length",
        "Content-Type",
        "Accept",
        "Transfer-Encoding",
        "Connection",
        "Host",
        "Authorization",
    ] {
        let e = Client::new(options_for(&mock, json!({"headers": {name: "1"}}))).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{name}: {e}");
        assert!(e.to_string().contains(name), "{e}");
        // And in per-call headers of a derived handle.
        let base = client(&mock);
        let e = base
            .derive(&CallOptions::from_json(&json!({"headers": {name: "1"}}).to_string()).unwrap())
            .unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{name}: {e}");
    }
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn line_breaks_in_header_values_and_user_agent_are_refused_at_creation() {
    let mock = MockGateway::start();
    let e = Client::new(options_for(
        &mock,
        json!({"user_agent": "app/1.0\r\nX-Injected: 1"}),
    ))
    .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
    assert_eq!(error_json(&e)["error"]["param"], "user_agent");
    let e = Client::new(options_for(
        &mock,
        json!({"headers": {"X-Tag": "a\r\nX-Injected: 1"}}),
    ))
    .unwrap_err();
    assert_eq!(error_json(&e)["error"]["param"], "headers");
    let base = client(&mock);
    let e = base
        .derive(&CallOptions::from_json(r#"{"headers": {"X-Tag": "a\nb"}}"#).unwrap())
        .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
    // A good user agent is sent after gw's own.
    let c = client_with(&mock, json!({"user_agent": "my-app/2.1"}));
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let ua = mock.requests()[0].header("user-agent").unwrap().to_string();
    assert!(ua.starts_with("gw/") && ua.ends_with(" my-app/2.1"), "{ua}");
}

#[test]
fn unusable_base_urls_are_refused_at_creation() {
    for base in [
        "https://gw example.com",
        "https://bücher.example",
        "https:///v2",
        "https://?q=1",
        "http://127.0.0.1:8080/my prefix",
    ] {
        let e = Client::new(Options {
            base_url: Some(base.into()),
            api_key: Some("sk-x".into()),
            ..Options::default()
        })
        .unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{base}: {e}");
        assert_eq!(error_json(&e)["error"]["param"], "base_url", "{base}: {e}");
    }
}

// ---- What a server sends ------------------------------------------------------

#[test]
fn absurd_retry_after_values_never_panic() {
    let mock = MockGateway::start();
    let c = client_with(&mock, json!({"retry_after_cap_ms": 30, "max_retries": 1}));
    for (name, value) in [
        ("retry-after-ms", "1e300"),
        ("retry-after", "99999999999999999999"),
        ("retry-after", "1.7976931348623157e308"),
        ("retry-after-ms", "-5"),
        ("retry-after", "NaN"),
    ] {
        mock.push_fault(json!({"action": "status", "status": 429, "headers": {name: value}}));
        let started = Instant::now();
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_or_else(|e| panic!("{name}: {value}: {e}"));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{name}: {value}"
        );
    }
    assert_eq!(mock.request_count(), 10);
}

#[test]
fn huge_time_options_never_panic() {
    // u64::MAX milliseconds is past what an Instant can hold: "no limit", not a panic.
    let mock = MockGateway::start();
    let max = u64::MAX;
    let c = client_with(
        &mock,
        json!({"total_timeout_ms": max, "retry_max_delay_ms": max, "retry_after_cap_ms": max,
               "retry_base_delay_ms": 1}),
    );
    mock.push_fault(json!({"action": "status", "status": 503}));
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let created: Value = serde_json::from_str(
        &c.call(
            &ops::VIDEO_CHARACTER,
            &[],
            Some(&json!({"model": "m", "prompt": "p", "character_id": "c"})),
        )
        .unwrap(),
    )
    .unwrap();
    let wait = gw::WaitOptions::from_json(Some(&format!(
        r#"{{"interval_ms": 1, "timeout_ms": {max}}}"#
    )))
    .unwrap();
    let record = c
        .wait_for_task(
            gw::TaskFamily::Character,
            created["id"].as_str().unwrap(),
            &wait,
            &mut |_, _| true,
        )
        .unwrap();
    assert!(
        record.contains("completed") || record.contains("succeeded"),
        "{record}"
    );
}

// ---- The key in whatever form a server echoes it (issue 19, item 3) ---------

/// Everything a failed call hands back, as text: `*out`, `gw_last_error`, the error's
/// Debug print (its fields, the server's body among them) and the last response's metadata.
fn everything_shown(c: &Client, e: &gw::Error) -> String {
    format!(
        "{}\n{}\n{:?}\n{}",
        e.to_json(),
        e,
        e,
        c.last_response()
            .map(|m| m.to_json().to_string())
            .unwrap_or_default()
    )
}

#[test]
fn a_key_echoed_with_a_json_escape_is_redacted_in_the_error_body() {
    let mock = MockGateway::start_with_key("sk-secret123");
    // The key as a JSON escape spells it: `\u0073` is `s`.
    let body = r#"{"error":{"message":"Incorrect API key provided: sk-\u0073ecret123","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    mock.push_fault(json!({"action": "status", "status": 401, "body": body}));
    let c = client(&mock);
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), 401);
    let out = e.to_json();
    let decoded = error_json(&e);
    assert!(!out.contains("ecret123"), "{out}");
    assert!(!decoded.to_string().contains("sk-secret123"), "{decoded}");
    assert!(decoded["error"]["message"]
        .as_str()
        .unwrap()
        .contains("[REDACTED]"));
    assert_eq!(decoded["error"]["code"], "invalid_api_key");
}

/// A chat a mock with `key` answers 401 with `body`: the client and the error.
fn chat_answered_401(key: &str, body: &str) -> (Client, gw::Error) {
    let mock = MockGateway::start_with_key(key);
    mock.push_fault(json!({"action": "status", "status": 401, "body": body}));
    let c = client(&mock);
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), 401, "{e}");
    (c, e)
}

/// Found by the `response` fuzzer: a JSON error body naming a member twice, the first
/// time with the key. Parsed, the second value wins, so the key was in no string of the
/// parsed body and the raw body went out unredacted in the error (its Debug print shows
/// `body`). Every JSON string of the raw text is redacted now, duplicates or not.
#[test]
fn a_key_in_a_json_member_named_twice_is_redacted_in_the_error_body() {
    let body = r#"{"error":{"message":"bad key","type":"key sk-secret123","type":"invalid_request_error"}}"#;
    let (c, e) = chat_answered_401("sk-secret123", body);
    let shown = everything_shown(&c, &e);
    assert!(!shown.contains("sk-secret123"), "{shown}");
    let gw::Error::Http {
        body: Some(sent), ..
    } = &e
    else {
        panic!("{e:?}")
    };
    assert_eq!(
        sent,
        r#"{"error":{"message":"bad key","type":"key [REDACTED]","type":"invalid_request_error"}}"#,
        "the body as the server sent it, but for the key"
    );
}

/// An error body that is not JSON gives the message its first 200 characters. Cut from the
/// raw body, the cut could fall inside the key, and the prefix left (`sk-se`) matched no
/// spelling of the key when the message was redacted: the message is cut from the redacted
/// body now.
#[test]
fn a_key_cut_by_the_error_message_leaves_no_prefix_of_it() {
    let body = format!("{} sk-secret123 is not valid here", "x".repeat(195));
    let (c, e) = chat_answered_401("sk-secret123", &body);
    let shown = everything_shown(&c, &e);
    assert!(!shown.contains("sk-se"), "{shown}");
    assert!(e.to_string().ends_with("x [RED"), "{e}");
}

/// The same in a vendor failure, whose body the error JSON (`*out` in C) hands back as
/// the vendor sent it: there the key reached every binding.
#[test]
fn a_key_in_a_json_member_named_twice_is_redacted_in_a_vendor_failure() {
    let mock = MockGateway::start_with_key("sk-secret123");
    let body = r#"{"code":1001,"message":"key sk-secret123","message":"quota","data":null}"#;
    mock.push_fault(json!({"action": "status", "status": 200, "body": body}));
    let c = client(&mock);
    let request = json!({"image_url": "https://img.example/p.png", "prompt": "p",
        "model": "h-model", "duration": 5, "aspect_ratio": "9:16"});
    let e = c
        .call(&ops::VENDOR_H_IMAGE_TO_VIDEO, &[], Some(&request))
        .unwrap_err();
    assert_eq!(e.status(), gw::GW_VENDOR, "{e}");
    let shown = everything_shown(&c, &e);
    assert!(!shown.contains("sk-secret123"), "{shown}");
    assert_eq!(
        e.to_json(),
        r#"{"code":1001,"message":"key [REDACTED]","message":"quota","data":null}"#
    );
}

#[test]
fn a_redirect_that_keeps_the_query_key_is_neither_shown_nor_doubled() {
    let mock = MockGateway::start();
    let key = mock.api_key();
    mock.push_fault(json!({"action": "redirect", "status": 302,
        "location": format!("/v1beta/models/m?alt=json&key={key}")}));
    mock.push_fault(json!({"action": "status", "status": 400,
        "headers": {"x-echo": format!("you sent key={key}"), "x-request-id": format!("req-{key}")},
        "body": "{\"error\":{\"message\":\"no\"}}"}));
    let c = client(&mock);
    let e = c.request("GET", "/v1beta/models/m", None).unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
    let shown = everything_shown(&c, &e);
    assert!(!shown.contains(&key), "{shown}");
    let meta = c.last_response().unwrap();
    assert!(
        meta.url.contains("/v1beta/models/m?alt=json"),
        "{}",
        meta.url
    );
    assert!(meta.headers()["x-echo"].contains("[REDACTED]"));
    let followed = &mock.requests()[1];
    let query = followed.query.as_deref().unwrap();
    assert_eq!(
        query.matches("key=").count(),
        1,
        "one key, not two: {query}"
    );
    assert!(query.contains("alt=json"), "{query}");
}

#[test]
fn a_key_echoed_in_lowercase_percent_encoding_is_redacted_everywhere() {
    let key = "sk/abc123";
    let mock = MockGateway::start_with_key(key);
    let body =
        r#"{"error":{"message":"key sk%2fabc123 is revoked","type":"authentication_error"}}"#;
    mock.push_fault(json!({"action": "status", "status": 401, "body": body}));
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    gw::log::set_logger(
        Some(std::sync::Arc::new(move |_, line: &str| {
            sink.lock().unwrap().push(line.to_string())
        })),
        gw::log::Level::Warn,
    );
    let c = client(&mock);
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    gw::log::set_logger(None, gw::log::Level::Error);
    assert_eq!(e.status(), 401);
    let logged = lines.lock().unwrap().join("\n");
    for shown in [everything_shown(&c, &e), logged] {
        let lower = shown.to_ascii_lowercase();
        assert!(!lower.contains("sk%2fabc123"), "{shown}");
        assert!(!lower.contains("abc123"), "{shown}");
    }
}

/// gw_request with a `key=` of the caller's in its path: gw adds the client's key
/// where the API wants one, so a second key would be sent (two `key=` on
/// `/v1beta`) and a secret gw does not know to redact would reach URLs, errors and
/// logs. Refused before sending, without echoing the path.
#[test]
fn a_request_path_carrying_a_key_is_refused_without_echoing_it() {
    let mock = MockGateway::start();
    let c = client(&mock);
    let body = json!({"contents": [{"parts": [{"text": "hi"}]}]});
    for path in [
        "/v1beta/models/g:generateContent?key=caller-secret-9",
        "/v1beta/models/g:generateContent?alt=json&key=caller-secret-9",
        "/v1/models?KEY=caller-secret-9",
    ] {
        let e = c.request("POST", path, Some(&body)).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{path}: {e}");
        let text = e.to_string();
        assert!(text.contains("key="), "{text}");
        assert!(!text.contains("caller-secret-9"), "{text}");
    }
    assert!(mock.requests().is_empty(), "nothing was sent");
    // A parameter that merely ends in "key" is the caller's own business.
    c.request("GET", "/v1/video/generations/t1?monkey=1", None)
        .map(|_| ())
        .or_else(|e| {
            if e.status() == GW_INVALID_ARGUMENT {
                Err(e)
            } else {
                Ok(())
            }
        })
        .unwrap();
}
