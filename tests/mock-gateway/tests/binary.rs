//! The `gw-mock` binary: other languages' suites and `make demo` rely on its first stdout line.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};

#[test]
fn first_line_is_the_address_and_it_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gw-mock"))
        .args(["--port", "0", "--api-key", "sk-bin"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn gw-mock");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim_end();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("first line was {url:?}"));
    assert!(port.parse::<u16>().unwrap() > 0);

    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let r = common::post_json(
        addr,
        "/v1/chat/completions",
        "sk-bin",
        &serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["choices"][0]["message"]["content"], "Echo: hi");

    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn exits_when_stdin_closes_if_asked() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gw-mock"))
        .arg("--exit-on-stdin-eof")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn gw-mock");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("http://127.0.0.1:"));
    drop(child.stdin.take());
    let status = child.wait().unwrap();
    assert!(status.success());
}
