//! Base URL forms and where the key goes, as seen by the mock gateway.

mod common;

use common::*;
use gw::{ops, Client, Options, GW_INVALID_ARGUMENT, GW_UNAUTHORIZED};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn every_base_url_form_reaches_the_same_path() {
    let mock = MockGateway::start();
    let url = mock.url();
    for form in [
        url.clone(),
        format!("{url}/"),
        format!("{url}/v1"),
        format!("{url}/v1/"),
        format!("{url}//v1//"),
    ] {
        let c = client_with(&mock, json!({ "base_url": form }));
        c.call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_or_else(|e| panic!("{form}: {e}"));
    }
    let paths: Vec<String> = mock.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, vec!["/v1/chat/completions"; 5]);
}

#[test]
fn bearer_auth_on_openai_style_paths() {
    let mock = MockGateway::start();
    client(&mock)
        .call(&ops::CHAT, &[], Some(&chat("hi")))
        .unwrap();
    let req = &mock.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(req.query, None);
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert!(req.header("user-agent").unwrap().starts_with("gw/"));
}

#[test]
fn native_format_takes_the_key_as_query_and_no_header() {
    let mock = MockGateway::start();
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let answer = client(&mock)
        .call(&ops::GENERATE_CONTENT, &["model-n"], Some(&body))
        .unwrap();
    assert!(parse(&answer)["candidates"].is_array());
    let req = &mock.requests()[0];
    assert_eq!(req.path, "/v1beta/models/model-n:generateContent");
    assert_eq!(req.query.as_deref(), Some("key=sk-test"));
    assert_eq!(req.header("authorization"), None);
}

#[test]
fn key_with_url_special_characters_is_encoded_in_the_query() {
    let mock = MockGateway::start_with_key("sk+a/b=c&d");
    let c = client_with(&mock, json!({}));
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    c.call(&ops::GENERATE_CONTENT, &["m"], Some(&body)).unwrap();
    assert_eq!(
        mock.requests()[0].query.as_deref(),
        Some("key=sk%2Ba%2Fb%3Dc%26d")
    );
}

#[test]
fn extra_headers_are_sent() {
    let mock = MockGateway::start();
    let c = client_with(
        &mock,
        json!({"headers": {"X-Trace": "t-1"}, "user_agent": "myapp/2"}),
    );
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    let req = &mock.requests()[0];
    assert_eq!(req.header("x-trace"), Some("t-1"));
    assert!(req.header("user-agent").unwrap().ends_with("myapp/2"));
}

#[test]
fn wrong_key_is_401_with_the_gateway_error_body() {
    let mock = MockGateway::start();
    let c = client_with(&mock, json!({"api_key": "sk-wrong-secret-123"}));
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_UNAUTHORIZED);
    let v = error_json(&e);
    assert_eq!(v["error"]["type"], "authentication_error");
    assert_eq!(v["error"]["code"], "invalid_api_key");
    assert_eq!(v["error"]["status"], 401);
    assert_eq!(mock.request_count(), 1, "401 is not retried");
    for text in [
        e.to_json(),
        e.to_string(),
        format!("{e:?}"),
        format!("{c:?}"),
    ] {
        assert!(!text.contains("sk-wrong-secret-123"), "key leaked: {text}");
    }
}

#[test]
fn missing_base_url_or_key_is_named() {
    // No env fallback: set neither variable in this test binary (see env_fallback.rs).
    let e = Client::new(Options {
        api_key: Some("k".into()),
        base_url: Some(" ".into()),
        ..Options::default()
    })
    .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert!(e.to_string().contains("base_url"), "{e}");
    let e = Client::new(Options {
        base_url: Some("http://127.0.0.1:1".into()),
        api_key: Some(String::new()),
        ..Options::default()
    });
    if std::env::var("GW_API_KEY").is_err() {
        assert!(e.unwrap_err().to_string().contains("api_key"));
    }
}

#[test]
fn plain_http_to_a_remote_host_is_refused_unless_allowed() {
    let opts = |allow| Options {
        base_url: Some("http://gateway.example.com/v1".into()),
        api_key: Some("sk-x".into()),
        allow_insecure_http: allow,
        ..Options::default()
    };
    let e = Client::new(opts(false)).unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert!(e.to_string().contains("refusing plain http://"), "{e}");
    assert!(Client::new(opts(true)).is_ok());
}

#[test]
fn key_with_a_line_break_is_refused_without_echoing_it() {
    let e = Client::new(Options {
        base_url: Some("http://127.0.0.1:1".into()),
        api_key: Some("sk-abc\r\nX-Evil: 1".into()),
        ..Options::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("api_key"));
    assert!(!e.to_string().contains("sk-abc"));
}

#[test]
fn a_bad_proxy_url_is_named() {
    let e = Client::new(Options {
        base_url: Some("http://127.0.0.1:1".into()),
        api_key: Some("sk-x".into()),
        proxy: Some("not a proxy url".into()),
        ..Options::default()
    })
    .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT);
    assert_eq!(error_json(&e)["error"]["param"], "proxy");
}

/// A minimal CONNECT proxy on loopback: records the CONNECT target, connects to
/// it and pipes both ways.
fn connect_proxy() -> (String, std::thread::JoinHandle<String>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let h = std::thread::spawn(move || {
        let (client, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(client.try_clone().unwrap());
        let mut request_line = String::new();
        reader.read_line(&mut request_line).unwrap();
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap() > 2 {
            line.clear();
        }
        let target = request_line.split(' ').nth(1).unwrap_or("").to_string();
        let upstream = std::net::TcpStream::connect(&target).unwrap();
        let mut client_w = client.try_clone().unwrap();
        client_w
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .unwrap();
        let mut up_r = upstream.try_clone().unwrap();
        let mut up_w = upstream;
        let down = std::thread::spawn(move || {
            let _ = std::io::copy(&mut up_r, &mut client_w);
        });
        let _ = std::io::copy(&mut reader, &mut up_w);
        let _ = up_w.shutdown(std::net::Shutdown::Both);
        let _ = down.join();
        request_line
    });
    (url, h)
}

#[test]
fn requests_go_through_a_configured_proxy() {
    let mock = MockGateway::start();
    let (proxy_url, proxy) = connect_proxy();
    let c = Client::new(Options {
        base_url: Some(mock.url()),
        api_key: Some(mock.api_key()),
        proxy: Some(proxy_url),
        max_retries: 0,
        ..Options::default()
    })
    .unwrap();
    let answer = c.call(&ops::CHAT, &[], Some(&chat("via proxy"))).unwrap();
    assert!(answer.contains("Echo: via proxy"), "{answer}");
    assert_eq!(mock.request_count(), 1);
    drop(c); // closes the pooled connection, so the proxy's pipe ends
    let request_line = proxy.join().unwrap();
    assert_eq!(
        request_line.trim(),
        format!("CONNECT {} HTTP/1.1", mock.addr()),
        "the call went through the proxy"
    );
}
