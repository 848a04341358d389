//! TLS trust over real TLS: the mock serves HTTPS with certificates from a CA
//! made for this run. Trusted through ca_pem or ca_file it answers; an unknown
//! CA, a certificate for another name or an expired one is GW_NETWORK with a
//! message that names the TLS failure. (SSL_CERT_FILE / SSL_CERT_DIR are read
//! from the environment: tests/security_env.rs.)

mod common;

use common::*;
use gw::{ops, Client, Options, GW_INVALID_ARGUMENT, GW_NETWORK};
use gw_mock::{MockGateway, TestCa};
use serde_json::json;

fn tls_client(mock: &MockGateway, extra: serde_json::Value) -> Result<Client, gw::Error> {
    Client::new(options_for(mock, extra))
}

/// A file that is removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn with(name: &str, text: &str) -> TempFile {
        let path = std::env::temp_dir().join(format!("gw-tls-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_ca_given_as_pem_text_is_trusted() {
    let ca = TestCa::new("gw test CA (ca_pem)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1", "localhost"]));
    assert!(mock.url().starts_with("https://"));
    let c = tls_client(&mock, json!({"ca_pem": ca.cert_pem()})).unwrap();
    let answer = c.call(&ops::CHAT, &[], Some(&chat("over tls"))).unwrap();
    assert!(answer.contains("Echo: over tls"), "{answer}");
    // Streams too.
    let mut text = String::new();
    c.stream(&ops::CHAT, &chat("streamed"), &mut |ev| {
        text.push_str(ev.text_delta.unwrap_or(""));
        true
    })
    .unwrap();
    assert!(text.contains("streamed"), "{text}");
}

#[test]
fn a_ca_file_is_trusted() {
    let ca = TestCa::new("gw test CA (ca_file)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let file = TempFile::with("ca.pem", &ca.cert_pem());
    let c = tls_client(&mock, json!({"ca_file": file.0.to_str().unwrap()})).unwrap();
    c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn an_unknown_ca_is_a_network_error_that_says_so() {
    let ca = TestCa::new("gw test CA (unknown)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let c = tls_client(&mock, json!({"max_retries": 0})).unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    let msg = e.to_string();
    assert!(msg.contains("TLS"), "{msg}");
    assert!(msg.contains("not signed by a trusted CA"), "{msg}");
    assert_eq!(
        mock.request_count(),
        0,
        "nothing was sent over the untrusted connection"
    );
    // Another CA's certificate does not help either.
    let other = TestCa::new("gw test CA (other)");
    let c = tls_client(&mock, json!({"max_retries": 0, "ca_pem": other.cert_pem()})).unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert!(e.to_string().contains("not signed by a trusted CA"), "{e}");
}

#[test]
fn a_certificate_for_another_name_is_refused() {
    let ca = TestCa::new("gw test CA (name)");
    let mock = MockGateway::start_tls(&ca.server(&["gateway.example"]));
    let c = tls_client(&mock, json!({"max_retries": 0, "ca_pem": ca.cert_pem()})).unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("another host name"), "{e}");
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn an_expired_certificate_is_refused() {
    let ca = TestCa::new("gw test CA (expired)");
    let mock = MockGateway::start_tls(&ca.expired_server(&["127.0.0.1"]));
    let c = tls_client(&mock, json!({"max_retries": 0, "ca_pem": ca.cert_pem()})).unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("expired"), "{e}");
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn bad_trust_options_are_refused_at_creation() {
    let opts = |extra: serde_json::Value| {
        let mut o = json!({"base_url": "https://gw.example", "api_key": "sk-x"});
        for (k, v) in extra.as_object().unwrap() {
            o[k] = v.clone();
        }
        Options::from_json(&o.to_string()).unwrap()
    };
    for (extra, names) in [
        (json!({"ca_file": "/nonexistent/gw-ca.pem"}), "ca_file"),
        (json!({"ca_pem": "not pem"}), "ca_pem"),
        (json!({"tls_verifier": "system"}), "tls_verifier"),
    ] {
        let e = Client::new(opts(extra)).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
        assert_eq!(error_json(&e)["error"]["param"], names, "{e}");
    }
    // Without the cargo feature, "platform" says what it needs.
    #[cfg(not(feature = "platform-verifier"))]
    {
        let e = Client::new(opts(json!({"tls_verifier": "platform"}))).unwrap_err();
        assert!(e.to_string().contains("platform-verifier"), "{e}");
    }
}

#[test]
fn https_never_redirects_down_to_http_even_on_loopback() {
    let ca = TestCa::new("gw test CA (downgrade)");
    let secure = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let plain = MockGateway::start();
    let c = tls_client(&secure, json!({"ca_pem": ca.cert_pem()})).unwrap();
    let location = format!("{}/v1/videos/v1", plain.url());
    secure.push_fault(json!({"action": "redirect", "status": 302, "location": location}));
    let e = c
        .call(&ops::VIDEO_CHARACTER_STATUS, &["v1"], None)
        .unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("downgrade"), "{e}");
    assert!(e.to_string().contains(&location), "names the Location: {e}");
    assert_eq!(plain.request_count(), 0);
    assert_eq!(secure.request_count(), 1, "a refusal is not retried");
}

/// The OS trust store (cargo feature `platform-verifier`; `make test` runs this
/// file once more with it): the test CA is not in that store, so the mock's
/// certificate is refused.
#[cfg(feature = "platform-verifier")]
#[test]
fn the_platform_verifier_uses_the_os_trust_store() {
    let ca = TestCa::new("gw test CA (platform)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let c = tls_client(&mock, json!({"max_retries": 0, "tls_verifier": "platform"})).unwrap();
    let e = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap_err();
    assert_eq!(e.status(), GW_NETWORK, "{e}");
    assert!(e.to_string().contains("TLS"), "{e}");
    assert_eq!(mock.request_count(), 0);
    // Extra anchors belong in the OS store with this verifier.
    let e = tls_client(
        &mock,
        json!({"tls_verifier": "platform", "ca_pem": ca.cert_pem()}),
    )
    .unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
}
