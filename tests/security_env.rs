//! What gw reads from the environment about proxies and TLS trust. Each case
//! runs in a child process (this test binary again, with the variables set on
//! the command), so no test calls set_var while other threads run; the mock
//! lives in the parent and the child reaches it over loopback.

use std::ffi::OsStr;
use std::net::TcpListener;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use gw::{ops, Client, Options, GW_INVALID_ARGUMENT};
use gw_mock::{MockGateway, TestCa};
use serde_json::json;

/// Set in the child: run the case's body instead of spawning.
const CHILD: &str = "GW_SECURITY_ENV_CHILD";

const CLEARED: &[&str] = &[
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GW_BASE_URL",
    "GW_API_KEY",
];

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs test `name` again in a child with exactly `env` (on top of a
/// cleaned environment) and asserts it passed. Values may be any OS string
/// (a variable that is not UTF-8).
fn run_in_child<V: AsRef<OsStr>>(name: &str, env: &[(&str, V)]) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"]);
    for var in CLEARED {
        cmd.env_remove(var);
    }
    cmd.env(CHILD, "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n{stdout}\n{stderr}"
    );
}

/// The child's side of a refusal: creating the client fails as bad input,
/// and the message names each of `names`.
fn client_is_refused_naming(names: &[&str]) {
    let e = Client::new(options(json!({}))).unwrap_err();
    assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
    for name in names {
        assert!(e.to_string().contains(name), "names {name}: {e}");
    }
}

/// The child's side of a call that must work: the client builds and chats.
fn client_chats(why: &str) {
    let c = Client::new(options(json!({}))).expect(why);
    c.call(&ops::CHAT, &[], Some(&chat())).unwrap();
}

/// A call that NO_PROXY sends past `proxy_var` (a proxy that counts
/// connections, of `scheme`), straight to the mock.
fn no_proxy_goes_direct(test: &str, proxy_var: &str, scheme: &str, no_proxy: &str) {
    let mock = MockGateway::start();
    let (proxy, connections) = counting_listener();
    run_in_child(
        test,
        &[
            ("GW_BASE_URL", mock.url()),
            (proxy_var, format!("{scheme}://{proxy}")),
            ("NO_PROXY", no_proxy.into()),
        ],
    );
    assert_eq!(mock.request_count(), 1, "NO_PROXY's 127.0.0.1 went direct");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is set for the child"))
}

fn options(extra: serde_json::Value) -> Options {
    let mut o = json!({"base_url": var("GW_BASE_URL"), "api_key": "sk-test", "max_retries": 0});
    for (k, v) in extra.as_object().unwrap() {
        o[k] = v.clone();
    }
    Options::from_json(&o.to_string()).unwrap()
}

fn chat() -> serde_json::Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
}

/// A listener that counts connections: a SOCKS or HTTP proxy that must not be used.
fn counting_listener() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(conn);
        }
    });
    (addr.to_string(), count)
}

#[test]
fn a_socks_proxy_from_the_environment_is_refused_never_bypassed() {
    if is_child() {
        // ALL_PROXY=socks5://... : creating the client fails, naming the variable.
        client_is_refused_naming(&["ALL_PROXY", "SOCKS"]);
        return;
    }
    let mock = MockGateway::start();
    let (socks, connections) = counting_listener();
    run_in_child(
        "a_socks_proxy_from_the_environment_is_refused_never_bypassed",
        &[
            ("GW_BASE_URL", mock.url()),
            ("ALL_PROXY", format!("socks5://{socks}")),
        ],
    );
    assert_eq!(mock.request_count(), 0, "nothing went direct");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

/// Set in the child: the variable its refusal must name.
const EXPECT_VAR: &str = "GW_SECURITY_ENV_EXPECT_VAR";

#[test]
fn an_unparsable_proxy_variable_is_refused_naming_it_never_bypassed() {
    if is_child() {
        client_is_refused_naming(&[&var(EXPECT_VAR)]);
        return;
    }
    let mock = MockGateway::start();
    let (proxy, connections) = counting_listener();
    let spellings = [
        format!("http://{proxy}\n"),
        format!("http://{proxy} x"),
        format!("http://[{proxy}"),
        format!("http://{proxy}\t"),
        format!("ftp://{proxy}"),
    ];
    let vars = [
        "ALL_PROXY",
        "all_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
    ];
    for (n, var) in vars.iter().enumerate() {
        let value = spellings[n % spellings.len()].clone();
        run_in_child(
            "an_unparsable_proxy_variable_is_refused_naming_it_never_bypassed",
            &[
                ("GW_BASE_URL", mock.url()),
                (EXPECT_VAR, var.to_string()),
                (*var, value),
            ],
        );
    }
    // A later variable that does not parse is refused even when an earlier one does.
    run_in_child(
        "an_unparsable_proxy_variable_is_refused_naming_it_never_bypassed",
        &[
            ("GW_BASE_URL", mock.url()),
            (EXPECT_VAR, "HTTP_PROXY".into()),
            ("HTTPS_PROXY", format!("http://{proxy}")),
            ("HTTP_PROXY", format!("http://[{proxy}")),
        ],
    );
    assert_eq!(mock.request_count(), 0, "nothing went direct");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

#[test]
fn proxy_and_no_proxy_variables_that_are_not_utf8_are_refused_naming_them() {
    use std::os::unix::ffi::OsStrExt;
    if is_child() {
        client_is_refused_naming(&[&var(EXPECT_VAR)]);
        return;
    }
    let mock = MockGateway::start();
    let (proxy, connections) = counting_listener();
    let bad = |text: String| {
        let mut bytes = text.into_bytes();
        bytes.push(0xff);
        std::ffi::OsStr::from_bytes(&bytes).to_owned()
    };
    for (var, value, proxy_var) in [
        ("HTTPS_PROXY", bad(format!("http://{proxy}")), None),
        (
            "NO_PROXY",
            bad("127.0.0.1".into()),
            Some(format!("http://{proxy}")),
        ),
    ] {
        let mut env = vec![
            ("GW_BASE_URL", mock.url().into()),
            (EXPECT_VAR, var.into()),
            (var, value),
        ];
        if let Some(p) = proxy_var {
            env.push(("HTTP_PROXY", p.into()));
        }
        run_in_child::<std::ffi::OsString>(
            "proxy_and_no_proxy_variables_that_are_not_utf8_are_refused_naming_them",
            &env,
        );
    }
    assert_eq!(mock.request_count(), 0, "nothing went direct");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

#[test]
fn no_proxy_entries_are_trimmed_as_curl_reads_them() {
    if is_child() {
        return client_chats("the proxy and NO_PROXY parse");
    }
    no_proxy_goes_direct(
        "no_proxy_entries_are_trimmed_as_curl_reads_them",
        "HTTP_PROXY",
        "http",
        "example.com, 127.0.0.1 ,",
    );
}

#[test]
fn no_proxy_lets_a_host_bypass_a_socks_proxy_on_purpose() {
    if is_child() {
        return client_chats("NO_PROXY covers the gateway");
    }
    no_proxy_goes_direct(
        "no_proxy_lets_a_host_bypass_a_socks_proxy_on_purpose",
        "ALL_PROXY",
        "socks5",
        "127.0.0.1",
    );
}

#[test]
fn plain_http_to_loopback_through_a_remote_env_proxy_is_refused() {
    if is_child() {
        let e = Client::new(options(json!({}))).unwrap_err();
        assert_eq!(e.status(), GW_INVALID_ARGUMENT, "{e}");
        assert!(e.to_string().contains("proxy.example"), "{e}");
        assert!(
            !e.to_string().contains("secret"),
            "no proxy credentials: {e}"
        );
        return;
    }
    let mock = MockGateway::start();
    run_in_child(
        "plain_http_to_loopback_through_a_remote_env_proxy_is_refused",
        &[
            ("GW_BASE_URL", mock.url()),
            ("HTTP_PROXY", "http://user:secret@proxy.example:3128".into()),
        ],
    );
    assert_eq!(mock.request_count(), 0);
}

#[test]
fn ssl_cert_file_adds_a_trust_anchor() {
    if is_child() {
        return client_chats("SSL_CERT_FILE is readable");
    }
    let ca = TestCa::new("gw test CA (SSL_CERT_FILE)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let dir = TempDir::new("file");
    let file = dir.write("bundle.pem", &ca.cert_pem());
    run_in_child(
        "ssl_cert_file_adds_a_trust_anchor",
        &[("GW_BASE_URL", mock.url()), ("SSL_CERT_FILE", file)],
    );
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn ssl_cert_dir_adds_trust_anchors() {
    if is_child() {
        return client_chats("SSL_CERT_DIR is readable");
    }
    let ca = TestCa::new("gw test CA (SSL_CERT_DIR)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let dir = TempDir::new("dir");
    dir.write("README", "not a certificate");
    dir.write("5a1b2c3d.0", &ca.cert_pem());
    let empty = TempDir::new("empty-but-listed");
    empty.write("other.0", &TestCa::new("unrelated").cert_pem());
    let dirs = std::env::join_paths([&empty.0, &dir.0]).unwrap();
    run_in_child(
        "ssl_cert_dir_adds_trust_anchors",
        &[
            ("GW_BASE_URL", mock.url()),
            ("SSL_CERT_DIR", dirs.to_string_lossy().into_owned()),
        ],
    );
    assert_eq!(mock.request_count(), 1);
}

#[test]
fn an_unreadable_ssl_cert_file_is_named_and_an_option_wins_over_it() {
    if is_child() {
        client_is_refused_naming(&["SSL_CERT_FILE"]);
        // ca_pem given: the environment is not consulted.
        let c = Client::new(options(json!({"ca_pem": var("GW_TEST_CA_PEM")}))).unwrap();
        c.call(&ops::CHAT, &[], Some(&chat())).unwrap();
        return;
    }
    let ca = TestCa::new("gw test CA (option wins)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    run_in_child(
        "an_unreadable_ssl_cert_file_is_named_and_an_option_wins_over_it",
        &[
            ("GW_BASE_URL", mock.url()),
            ("SSL_CERT_FILE", "/nonexistent/gw-bundle.pem".into()),
            ("GW_TEST_CA_PEM", ca.cert_pem()),
        ],
    );
    assert_eq!(mock.request_count(), 1);
}

/// A directory removed (with its files) when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("gw-env-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
