//! A small driver of the exchange's C ABI for the tests: plain HTTP/1.1 over a
//! blocking `TcpStream` per request (`Connection: close`), body bytes fed in
//! pieces of a chosen size. What a C event loop or a platform stack does, in
//! the fewest lines: it speaks the C ABI exactly as they do.

use std::ffi::{c_char, c_int, CStr, CString};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::ptr;
use std::time::Duration;

use gw::ffi::{self, gw_exchange, gw_header, gw_request_view};
use gw::{GW_CANCELLED, GW_NETWORK, GW_OK, GW_WOULD_BLOCK};

/// What one driven exchange gave.
#[derive(Debug, Default)]
pub struct Driven {
    pub status: c_int,
    pub out: String,
    /// The text deltas of choice 0, joined.
    pub text: String,
    pub events: usize,
    pub requests: usize,
}

/// The body of the answer being read.
struct Body {
    reader: BufReader<TcpStream>,
    chunked: bool,
    /// Bytes left in the current chunk (chunked) or the body (a length).
    left: Option<u64>,
    done: bool,
}

impl Body {
    /// Up to `max` bytes of the body, decoded; empty at its end.
    fn read_some(&mut self, max: usize) -> std::io::Result<Vec<u8>> {
        if self.done {
            return Ok(Vec::new());
        }
        if self.chunked && self.left.unwrap_or(0) == 0 {
            let mut line = String::new();
            if self.left.is_some() {
                self.reader.read_line(&mut line)?; // the CRLF after a chunk
                line.clear();
            }
            self.reader.read_line(&mut line)?;
            let size = u64::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| std::io::Error::other(format!("bad chunk size {line:?}")))?;
            if size == 0 {
                self.done = true;
                return Ok(Vec::new());
            }
            self.left = Some(size);
        }
        let cap = match self.left {
            Some(left) => (max as u64).min(left) as usize,
            None => max,
        };
        let mut buf = vec![0; cap];
        let n = self.reader.read(&mut buf)?;
        buf.truncate(n);
        if n == 0 {
            if self.left.is_some_and(|l| l > 0) {
                return Err(std::io::Error::other("connection closed inside the body"));
            }
            self.done = true;
        }
        if let Some(left) = &mut self.left {
            *left -= n as u64;
            if *left == 0 && !self.chunked {
                self.done = true;
            }
        }
        Ok(buf)
    }
}

unsafe fn text(p: *const c_char) -> String {
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// An answer's status, its headers and its body still to read.
type Answer = (u16, Vec<(String, String)>, Body);

/// Sends the request of `view` and reads the answer's head.
unsafe fn send(view: &gw_request_view) -> std::io::Result<Answer> {
    let url = text(view.url);
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| std::io::Error::other("this test driver speaks plain http only"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(authority)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n",
        text(view.method),
        if path.is_empty() { "/" } else { path }
    );
    for i in 0..view.header_count {
        let h = &*view.headers.add(i);
        head.push_str(&format!("{}: {}\r\n", text(h.name), text(h.value)));
    }
    if view.body_count > 0 {
        head.push_str(&format!("Content-Length: {}\r\n", view.body_len));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    for i in 0..view.body_count {
        let piece = &*view.body.add(i);
        stream.write_all(std::slice::from_raw_parts(piece.data, piece.len))?;
    }
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {status_line:?}")))?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    let find = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(n))
            .map(|(_, v)| v.clone())
    };
    let chunked = find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let left = if chunked {
        None
    } else {
        find("content-length").and_then(|v| v.parse().ok())
    };
    let body = Body {
        reader,
        chunked,
        left,
        done: left == Some(0),
    };
    Ok((status, headers, body))
}

/// Drives `ex` to its end, feeding body bytes `split` at a time; frees it.
pub unsafe fn drive(ex: *mut gw_exchange, split: usize) -> Driven {
    let mut driven = Driven::default();
    let mut body: Option<Body> = None;
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let mut wait_ms = 0i64;
        match ffi::gw_exchange_step(ex, &mut wait_ms) {
            ffi::GW_WANT_SEND => {
                body = None;
                pending.clear();
                let mut view: gw_request_view = std::mem::zeroed();
                if ffi::gw_exchange_request(ex, &mut view) != GW_OK {
                    continue;
                }
                driven.requests += 1;
                match send(&view) {
                    Ok((status, headers, b)) => {
                        let owned: Vec<(CString, CString)> = headers
                            .iter()
                            .map(|(k, v)| {
                                (
                                    CString::new(k.as_str()).unwrap(),
                                    CString::new(v.as_str()).unwrap(),
                                )
                            })
                            .collect();
                        let c: Vec<gw_header> = owned
                            .iter()
                            .map(|(k, v)| gw_header {
                                name: k.as_ptr(),
                                value: v.as_ptr(),
                            })
                            .collect();
                        assert_eq!(
                            ffi::gw_exchange_feed_head(
                                ex,
                                c_int::from(status),
                                c.as_ptr(),
                                c.len()
                            ),
                            GW_OK
                        );
                        body = Some(b);
                    }
                    Err(e) => {
                        let message = CString::new(e.to_string()).unwrap();
                        assert_eq!(
                            ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, message.as_ptr()),
                            GW_OK
                        );
                    }
                }
            }
            ffi::GW_WANT_RECEIVE => {
                let Some(b) = body.as_mut() else {
                    let m = CString::new("no connection").unwrap();
                    ffi::gw_exchange_feed_error(ex, GW_CANCELLED, 0, m.as_ptr());
                    continue;
                };
                if pending.is_empty() {
                    match b.read_some(split.max(1)) {
                        Ok(bytes) if bytes.is_empty() => {
                            assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK);
                            continue;
                        }
                        Ok(bytes) => pending = bytes,
                        Err(e) => {
                            let message = CString::new(e.to_string()).unwrap();
                            ffi::gw_exchange_feed_error(ex, GW_NETWORK, 1, message.as_ptr());
                            continue;
                        }
                    }
                }
                let mut taken = 0usize;
                let status =
                    ffi::gw_exchange_feed_body(ex, pending.as_ptr(), pending.len(), &mut taken);
                assert!(
                    status == GW_OK || status == GW_WOULD_BLOCK,
                    "feed: {status}"
                );
                pending.drain(..taken);
            }
            ffi::GW_WANT_WAIT => std::thread::sleep(Duration::from_millis(wait_ms as u64)),
            ffi::GW_WANT_EVENT => {
                let mut event: gw::ffi::gw_event = std::mem::zeroed();
                assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
                driven.events += 1;
                if !event.text_delta.is_null() && event.choice_index == 0 {
                    driven.text.push_str(&text(event.text_delta));
                }
            }
            ffi::GW_WANT_DONE => {
                let mut out: *mut c_char = ptr::null_mut();
                driven.status = ffi::gw_exchange_finish(ex, &mut out);
                if !out.is_null() {
                    driven.out = text(out);
                    ffi::gw_free(out.cast());
                }
                ffi::gw_exchange_free(ex);
                return driven;
            }
            other => panic!("gw_exchange_step gave {other}"),
        }
    }
}
