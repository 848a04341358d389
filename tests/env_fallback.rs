//! GW_BASE_URL / GW_API_KEY fallbacks. The environment is set for a child run of
//! this test binary (never with set_var while the mock's threads run: that is
//! undefined behaviour); the mocks live in the parent and count what arrives.

use std::process::Command;

use gw::{ops, Client, Options};
use gw_mock::MockGateway;
use serde_json::json;

const ROLE: &str = "GW_ENV_TEST_ROLE";

/// Runs `test` of this binary in a child process with `env` set (and the gw
/// variables removed unless given); returns whether it passed.
fn child(test: &str, env: &[(&str, String)]) -> bool {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env_remove("GW_BASE_URL")
        .env_remove("GW_API_KEY")
        .env(ROLE, "child");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.status().unwrap().success()
}

fn in_child() -> bool {
    std::env::var(ROLE).is_ok()
}

fn chat() -> serde_json::Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
}

#[test]
fn base_url_and_key_come_from_the_environment_when_unset() {
    if in_child() {
        let client = Client::new(Options::default()).expect("env gives base URL and key");
        client.call(&ops::CHAT, &[], Some(&chat())).unwrap();
        // Explicit values win over the environment.
        let explicit = Client::new(Options {
            base_url: Some(std::env::var("OTHER_URL").unwrap()),
            api_key: Some("sk-other".into()),
            ..Options::default()
        })
        .unwrap();
        explicit.call(&ops::CHAT, &[], Some(&chat())).unwrap();
        return;
    }
    let mock = MockGateway::start();
    let other = MockGateway::start_with_key("sk-other");
    assert!(child(
        "base_url_and_key_come_from_the_environment_when_unset",
        &[
            ("GW_BASE_URL", format!("{}/v1/", mock.url())),
            ("GW_API_KEY", mock.api_key()),
            ("OTHER_URL", other.url()),
        ],
    ));
    assert_eq!(mock.requests()[0].path, "/v1/chat/completions");
    assert_eq!(mock.request_count(), 1);
    assert_eq!(other.request_count(), 1);
}

#[test]
fn without_the_environment_the_missing_setting_is_named() {
    if in_child() {
        let e = Client::new(Options::default()).unwrap_err();
        assert!(e.to_string().contains("GW_BASE_URL"), "{e}");
        let e = Client::new(Options {
            base_url: Some("https://gw.example".into()),
            ..Options::default()
        })
        .unwrap_err();
        assert!(e.to_string().contains("GW_API_KEY"), "{e}");
        return;
    }
    assert!(child(
        "without_the_environment_the_missing_setting_is_named",
        &[]
    ));
}
