//! Per-call `api_key` and `base_url` on a derived handle (a service serving several
//! tenants from one client): where each goes, the pool they share, their checks.

mod common;

use common::*;
use gw::{ops, CallOptions, GW_INVALID_ARGUMENT};
use gw_mock::MockGateway;
use serde_json::json;

fn overrides(v: serde_json::Value) -> CallOptions {
    CallOptions::from_json(&v.to_string()).expect("overrides parse")
}

#[test]
fn a_per_call_key_is_sent_instead_of_the_clients_on_the_same_pool() {
    let mock = MockGateway::start_with_key("sk-tenant-b");
    // The client's own key is another tenant's: the gateway refuses it.
    let base = client_with(&mock, json!({"api_key": "sk-tenant-a", "max_retries": 0}));
    assert_eq!(
        base.call(&ops::CHAT, &[], Some(&chat("hi")))
            .unwrap_err()
            .status(),
        401
    );
    let tenant = base
        .derive(&overrides(json!({"api_key": "sk-tenant-b"})))
        .unwrap();
    let connections = mock.connection_count();
    for _ in 0..3 {
        tenant.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    }
    let reqs = mock.requests();
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-tenant-a"));
    for r in &reqs[1..] {
        assert_eq!(r.header("authorization"), Some("Bearer sk-tenant-b"));
    }
    assert_eq!(
        mock.connection_count(),
        connections,
        "the derived handle reuses the client's pooled connection"
    );
    // The key stays out of every print.
    for printed in [
        format!("{tenant:?}"),
        format!("{:?}", overrides(json!({"api_key": "sk-tenant-b"}))),
    ] {
        assert!(!printed.contains("sk-tenant-b"), "{printed}");
    }
}

#[test]
fn a_per_call_base_url_goes_to_its_own_origin_with_its_own_connections() {
    let home = MockGateway::start();
    let other = MockGateway::start_with_key("sk-other");
    let base = client(&home);
    base.call(&ops::CHAT, &[], Some(&chat("home"))).unwrap();
    let home_connections = home.connection_count();
    let tenant = base
        .derive(&overrides(
            json!({"base_url": format!("{}/v1/", other.url()), "api_key": "sk-other"}),
        ))
        .unwrap();
    assert_eq!(tenant.base_url(), other.url());
    for _ in 0..2 {
        tenant.call(&ops::CHAT, &[], Some(&chat("other"))).unwrap();
    }
    base.call(&ops::CHAT, &[], Some(&chat("home"))).unwrap();
    assert_eq!(other.request_count(), 2);
    assert_eq!(
        other.requests()[0].header("authorization"),
        Some("Bearer sk-other")
    );
    assert_eq!(
        other.connection_count(),
        1,
        "one pooled connection to the other origin"
    );
    assert_eq!(
        home.request_count(),
        2,
        "the tenant's calls never went home"
    );
    assert_eq!(
        home.connection_count(),
        home_connections,
        "home's connection still pooled"
    );
    for r in home.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer sk-test"));
    }
    // A base_url alone keeps the client's key.
    let same_key = base
        .derive(&overrides(json!({"base_url": home.url()})))
        .unwrap();
    same_key.call(&ops::CHAT, &[], Some(&chat("x"))).unwrap();
    assert_eq!(
        home.requests()[2].header("authorization"),
        Some("Bearer sk-test")
    );
}

#[test]
fn a_per_call_key_never_follows_a_redirect_to_another_origin() {
    let origin = MockGateway::start_with_key("sk-call");
    let elsewhere = MockGateway::start();
    let base = client(&elsewhere);
    let call = base
        .derive(&overrides(
            json!({"base_url": origin.url(), "api_key": "sk-call"}),
        ))
        .unwrap();
    origin.push_fault(json!({"action": "redirect", "status": 302,
        "location": format!("{}/v1beta/models/m?x=1", elsewhere.url())}));
    let e = call.request("GET", "/v1beta/models/m", None).unwrap_err();
    assert_eq!(e.status(), 401, "{e}");
    assert!(!e.to_string().contains("sk-call"), "{e}");
    // This path takes the key in the query (`?key=`), as the native format does.
    let sent = origin.requests()[0].query.clone().unwrap_or_default();
    assert!(sent.contains("key=sk-call"), "{sent}");
    let seen = &elsewhere.requests()[0];
    assert_eq!(seen.header("authorization"), None);
    assert!(!seen.query.as_deref().unwrap_or("").contains("sk-call"));
}

#[test]
fn per_call_base_urls_and_keys_are_checked_like_the_client_options() {
    let mock = MockGateway::start();
    let base = client(&mock);
    for (bad, says) in [
        (
            json!({"base_url": "http://gateway.example.com"}),
            "allow_insecure_http",
        ),
        (json!({"base_url": "ftp://gateway.example.com"}), "scheme"),
        (json!({"base_url": ""}), "base_url"),
        (json!({"base_url": "https://gw example.com"}), "space"),
        (json!({"api_key": ""}), "api_key"),
        (json!({"api_key": " sk-secret"}), "api_key"),
        (json!({"api_key": "sk-secret\n"}), "api_key"),
    ] {
        let e = base.derive(&overrides(bad.clone())).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{bad}: {e}");
        assert!(e.to_string().contains(says), "{bad}: {e}");
        assert!(
            !e.to_string().contains("sk-secret"),
            "the key is printed: {e}"
        );
    }
    // Plain http elsewhere needs the client to allow it; a call cannot allow it itself.
    let e = CallOptions::from_json(r#"{"allow_insecure_http": true}"#).unwrap_err();
    assert!(e.to_string().contains("allow_insecure_http"), "{e}");
    let lax = client_with(&mock, json!({"allow_insecure_http": true}));
    assert!(lax
        .derive(&overrides(
            json!({"base_url": "http://gateway.example.com"})
        ))
        .is_ok());
}
