//! A deliberately tiny blocking HTTP/1.1 client over `TcpStream`, so these tests see exactly
//! what went over the wire, including a chunked body that never got its final chunk.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// False when the body was cut off (missing final chunk or short of Content-Length).
    pub complete: bool,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// Sends one request on a fresh connection (`Connection: close`) and reads the whole answer.
pub fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Resp {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();

    // Read until EOF; an abort (reset) just ends the data early.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    parse(&raw)
}

/// POST a JSON body with the bearer key.
pub fn post_json(addr: SocketAddr, path: &str, key: &str, body: &serde_json::Value) -> Resp {
    let auth = format!("Bearer {key}");
    send(
        addr,
        "POST",
        path,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        body.to_string().as_bytes(),
    )
}

pub fn get(addr: SocketAddr, path: &str, key: &str) -> Resp {
    let auth = format!("Bearer {key}");
    send(addr, "GET", path, &[("Authorization", &auth)], b"")
}

fn parse(raw: &[u8]) -> Resp {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response has a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let rest = &raw[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let find = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let (body, complete) = if find("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        dechunk(rest)
    } else {
        let len = find("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(rest.len());
        (rest[..len.min(rest.len())].to_vec(), rest.len() >= len)
    };
    Resp {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
        complete,
    }
}

/// Decodes a chunked body; `complete` only when the zero-size last chunk arrived.
fn dechunk(mut data: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return (out, false);
        };
        let size_text = String::from_utf8_lossy(&data[..eol]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
        else {
            return (out, false);
        };
        if size == 0 {
            return (out, true);
        }
        let start = eol + 2;
        if data.len() < start + size {
            out.extend_from_slice(&data[start..]);
            return (out, false);
        }
        out.extend_from_slice(&data[start..start + size]);
        data = data.get(start + size + 2..).unwrap_or(&[]);
    }
}
