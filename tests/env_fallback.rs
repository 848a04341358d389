//! GW_BASE_URL / GW_API_KEY fallbacks. Its own test binary: the environment is
//! process-wide, so no other test may run beside it.

use gw::{ops, Client, Options};
use gw_mock::MockGateway;
use serde_json::json;

#[test]
fn base_url_and_key_come_from_the_environment_when_unset() {
    let mock = MockGateway::start();
    std::env::set_var("GW_BASE_URL", format!("{}/v1/", mock.url()));
    std::env::set_var("GW_API_KEY", mock.api_key());
    let client = Client::new(Options::default()).expect("env gives base URL and key");
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    client.call(&ops::CHAT, &[], Some(&body)).unwrap();
    assert_eq!(mock.requests()[0].path, "/v1/chat/completions");

    // Explicit values win over the environment.
    let other = MockGateway::start_with_key("sk-other");
    let explicit = Client::new(Options {
        base_url: Some(other.url()),
        api_key: Some("sk-other".into()),
        ..Options::default()
    })
    .unwrap();
    explicit.call(&ops::CHAT, &[], Some(&body)).unwrap();
    assert_eq!(other.request_count(), 1);
    assert_eq!(mock.request_count(), 1);

    std::env::remove_var("GW_BASE_URL");
    std::env::remove_var("GW_API_KEY");
    let e = Client::new(Options::default()).unwrap_err();
    assert!(e.to_string().contains("GW_BASE_URL"), "{e}");
}
