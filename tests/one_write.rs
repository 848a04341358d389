//! A small request leaves in one write (issue 10): the transport holds the head
//! back until the body is behind it, so a server's first read finds both. Two
//! writes cost a second segment, a second wake-up of the server and, against a
//! server that answers from the head, a delayed ACK.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread;

use common::*;
use gw::{ops, Client, Options};

/// Serves `calls` requests on one connection; returns what each first read held.
fn serve(listener: TcpListener, calls: usize) -> thread::JoinHandle<Vec<Vec<u8>>> {
    thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut firsts = Vec::new();
        for _ in 0..calls {
            let mut buf = vec![0u8; 1 << 16];
            let n = s.read(&mut buf).unwrap();
            buf.truncate(n);
            firsts.push(buf);
            // The rest, if the request came in pieces.
            let mut request = firsts.last().unwrap().clone();
            while !complete(&request) {
                let mut more = vec![0u8; 1 << 16];
                let n = s.read(&mut more).unwrap();
                assert!(n > 0, "the client closed mid-request");
                request.extend_from_slice(&more[..n]);
            }
            let body = br#"{"choices":[]}"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            s.write_all(&[head.as_bytes(), body].concat()).unwrap();
        }
        firsts
    })
}

/// Whether `request` holds a whole head and the body its Content-Length announces.
fn complete(request: &[u8]) -> bool {
    let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    request.len() >= end + 4 + length
}

#[test]
fn a_small_request_leaves_in_one_write() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let calls = 5;
    let server = serve(listener, calls);
    let client = Client::new(Options {
        base_url: Some(url),
        api_key: Some("k".into()),
        max_retries: 0,
        ..Options::default()
    })
    .unwrap();
    for i in 0..calls {
        client
            .call(&ops::CHAT, &[], Some(&chat(&format!("call {i}"))))
            .unwrap();
    }
    for (i, first) in server.join().unwrap().iter().enumerate() {
        assert!(
            complete(first),
            "call {i}: the first read held only {} bytes: {:?}",
            first.len(),
            String::from_utf8_lossy(first)
        );
        assert!(first.starts_with(b"POST /v1/chat/completions "));
    }
}
