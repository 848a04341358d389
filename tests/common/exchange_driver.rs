//! A small driver of the exchange's C ABI for the tests: plain HTTP/1.1 over a
//! `TcpStream` per request (`Connection: close`), body bytes fed in pieces of
//! a chosen size. What a C event loop or a platform stack does, in the fewest
//! lines: it speaks the C ABI exactly as they do, and reads the socket only as
//! long as `GW_WANT_RECEIVE`'s `wait_ms` allows (the exchange times the head,
//! the silences and the deadline; the driver only steps again in time).

use std::ffi::{c_char, c_int, CStr, CString};
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::ptr;
use std::time::Duration;

use gw::ffi::{self, gw_exchange, gw_header, gw_request_view};
use gw::{GW_NETWORK, GW_OK, GW_WOULD_BLOCK};

/// Header (name, value) pairs in order.
pub type Headers = Vec<(String, String)>;

/// (event name, text delta, choice index) of one event.
pub type Seen = (String, Option<String>, usize);

/// One request as the exchange gave it (the view copied).
#[derive(Clone, Debug, Default)]
pub struct Sent {
    pub method: String,
    pub url: String,
    pub headers: Headers,
    pub body_len: u64,
}

impl Sent {
    /// The value of the first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What one driven exchange gave.
#[derive(Debug, Default)]
pub struct Driven {
    pub status: c_int,
    pub out: String,
    /// The text deltas of choice 0, joined.
    pub text: String,
    /// In order.
    pub events: Vec<Seen>,
    pub requests: Vec<Sent>,
    /// `wait_ms` of every `GW_WANT_RECEIVE`, and of every `GW_WANT_WAIT`.
    pub receive_waits: Vec<i64>,
    pub waits: Vec<i64>,
}

/// Where the driver stands when a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase {
    /// What the last step said (0 right after a feed of the end or a failure).
    pub want: c_int,
    /// The answer's head of the current request was fed.
    pub head_fed: bool,
    /// The end of its body, or a failure, was fed.
    pub ended: bool,
}

/// How to drive: the feed size, how long a read blocks at most before the
/// exchange is stepped again (so a cancel or a timer is seen in time), and a
/// hook run after every step and after the end is fed (misuse tests).
pub struct Driver<'h> {
    pub split: usize,
    pub tick: Duration,
    pub hook: Option<&'h mut dyn FnMut(*mut gw_exchange, Phase)>,
}

impl Default for Driver<'_> {
    fn default() -> Self {
        Driver {
            split: 64 * 1024,
            tick: Duration::from_millis(20),
            hook: None,
        }
    }
}

/// How an answer's body is framed.
enum Framing {
    Length(u64),
    Chunked(Chunk),
    Close,
}

enum Chunk {
    Size,
    Data(u64),
    /// The CRLF after a chunk's data.
    DataEnd,
    Done,
}

/// One body piece, decoded.
enum Piece {
    Bytes(Vec<u8>),
    NeedMore,
    End,
    Broken(String),
}

/// What one read of the socket gave.
enum Filled {
    Got,
    Idle,
    Eof,
}

/// One request's connection: the bytes read and not yet decoded.
struct Conn {
    stream: TcpStream,
    raw: Vec<u8>,
    framing: Framing,
    eof: bool,
}

unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    CStr::from_ptr(p).to_string_lossy().into_owned()
}

/// The view copied.
pub unsafe fn sent_of(view: &gw_request_view) -> Sent {
    let headers = (0..view.header_count)
        .map(|i| {
            let h = &*view.headers.add(i);
            (text(h.name), text(h.value))
        })
        .collect();
    Sent {
        method: text(view.method),
        url: text(view.url),
        headers,
        body_len: view.body_len,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl Conn {
    /// Connects and writes the request of `view`.
    unsafe fn open(view: &gw_request_view) -> std::io::Result<Conn> {
        let url = text(view.url);
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| std::io::Error::other("this test driver speaks plain http only"))?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let addr = authority
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other("no address"))?;
        let connect = match view.connect_timeout_ms {
            0 => Duration::from_secs(30),
            ms => Duration::from_millis(ms),
        };
        let mut stream = TcpStream::connect_timeout(&addr, connect)?;
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
        Ok(Conn {
            stream,
            raw: Vec::new(),
            framing: Framing::Close,
            eof: false,
        })
    }

    /// One read, blocking `wait` at most.
    fn fill(&mut self, wait: Duration) -> std::io::Result<Filled> {
        if self.eof {
            return Ok(Filled::Eof);
        }
        self.stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        let mut buf = [0u8; 16 * 1024];
        match self.stream.read(&mut buf) {
            Ok(0) => {
                self.eof = true;
                Ok(Filled::Eof)
            }
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                Ok(Filled::Got)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Ok(Filled::Idle)
            }
            Err(e) => Err(e),
        }
    }

    /// The answer's head once it is whole: status and headers.
    fn take_head(&mut self) -> Option<Result<(u16, Headers), String>> {
        let end = find(&self.raw, b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&self.raw[..end]).into_owned();
        self.raw.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or("");
        let Some(status) = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
        else {
            return Some(Err(format!("bad status line {status_line:?}")));
        };
        let headers: Headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let value = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        self.framing =
            if value("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
                Framing::Chunked(Chunk::Size)
            } else if let Some(length) = value("content-length").and_then(|v| v.parse().ok()) {
                Framing::Length(length)
            } else {
                Framing::Close
            };
        Some(Ok((status, headers)))
    }

    /// Up to `max` decoded body bytes from what was read.
    fn take_body(&mut self, max: usize) -> Piece {
        loop {
            match &mut self.framing {
                Framing::Length(0) | Framing::Chunked(Chunk::Done) => return Piece::End,
                Framing::Length(left) => {
                    if self.raw.is_empty() {
                        return self.more("connection closed inside the body");
                    }
                    let n = self.raw.len().min(max).min(*left as usize);
                    *left -= n as u64;
                    return Piece::Bytes(self.raw.drain(..n).collect());
                }
                Framing::Close => {
                    if self.raw.is_empty() {
                        return if self.eof {
                            Piece::End
                        } else {
                            Piece::NeedMore
                        };
                    }
                    let n = self.raw.len().min(max);
                    return Piece::Bytes(self.raw.drain(..n).collect());
                }
                Framing::Chunked(chunk) => match chunk {
                    Chunk::Size => {
                        let Some(end) = find(&self.raw, b"\r\n") else {
                            return self.more("connection closed inside a chunk size");
                        };
                        let line = String::from_utf8_lossy(&self.raw[..end]).into_owned();
                        self.raw.drain(..end + 2);
                        let size = line.split(';').next().unwrap_or("").trim();
                        match u64::from_str_radix(size, 16) {
                            Ok(0) => *chunk = Chunk::Done,
                            Ok(n) => *chunk = Chunk::Data(n),
                            Err(_) => return Piece::Broken(format!("bad chunk size {line:?}")),
                        }
                    }
                    Chunk::Data(left) => {
                        if self.raw.is_empty() {
                            return self.more("connection closed inside a chunk");
                        }
                        let n = self.raw.len().min(max).min(*left as usize);
                        *left -= n as u64;
                        if *left == 0 {
                            *chunk = Chunk::DataEnd;
                        }
                        return Piece::Bytes(self.raw.drain(..n).collect());
                    }
                    Chunk::DataEnd => {
                        if self.raw.len() < 2 {
                            return self.more("connection closed after a chunk");
                        }
                        self.raw.drain(..2);
                        *chunk = Chunk::Size;
                    }
                    Chunk::Done => return Piece::End,
                },
            }
        }
    }

    /// More bytes are needed: a read, or the body broke at the connection's end.
    fn more(&self, broken: &str) -> Piece {
        if self.eof {
            Piece::Broken(broken.into())
        } else {
            Piece::NeedMore
        }
    }
}

/// Drives `ex` to its end, feeding body bytes `split` at a time; frees it.
pub unsafe fn drive(ex: *mut gw_exchange, split: usize) -> Driven {
    drive_with(
        ex,
        &mut Driver {
            split,
            ..Driver::default()
        },
    )
}

unsafe fn feed_error(ex: *mut gw_exchange, request_sent: bool, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap();
    let status =
        ffi::gw_exchange_feed_error(ex, GW_NETWORK, c_int::from(request_sent), message.as_ptr());
    assert_eq!(status, GW_OK, "a transport failure refused");
}

/// Drives `ex` to its end as `driver` says; frees it.
pub unsafe fn drive_with(ex: *mut gw_exchange, driver: &mut Driver<'_>) -> Driven {
    let mut driven = Driven::default();
    let mut conn: Option<Conn> = None;
    let mut pending: Vec<u8> = Vec::new();
    let mut phase = Phase {
        want: 0,
        head_fed: false,
        ended: false,
    };
    loop {
        let mut wait_ms = 0i64;
        phase.want = ffi::gw_exchange_step(ex, &mut wait_ms);
        if let Some(hook) = driver.hook.as_mut() {
            hook(ex, phase);
        }
        match phase.want {
            ffi::GW_WANT_SEND => {
                conn = None;
                pending.clear();
                phase.head_fed = false;
                phase.ended = false;
                let mut view: gw_request_view = std::mem::zeroed();
                if ffi::gw_exchange_request(ex, &mut view) != GW_OK {
                    continue;
                }
                driven.requests.push(sent_of(&view));
                match Conn::open(&view) {
                    Ok(c) => conn = Some(c),
                    Err(e) => {
                        phase.ended = true;
                        feed_error(ex, false, &e.to_string());
                    }
                }
            }
            ffi::GW_WANT_RECEIVE => {
                driven.receive_waits.push(wait_ms);
                assert!(!phase.ended, "input wanted after the answer's end");
                let c = conn.as_mut().expect("input wanted before a request went");
                let budget = match u64::try_from(wait_ms) {
                    Ok(ms) => driver.tick.min(Duration::from_millis(ms)),
                    Err(_) => driver.tick,
                };
                if let Some(ended) = receive(ex, c, &mut pending, &mut phase, driver.split, budget)
                {
                    phase.ended = ended;
                    if ended {
                        if let Some(hook) = driver.hook.as_mut() {
                            phase.want = 0;
                            hook(ex, phase);
                        }
                    }
                }
            }
            ffi::GW_WANT_WAIT => {
                driven.waits.push(wait_ms);
                conn = None;
                let ms = u64::try_from(wait_ms).unwrap_or(0);
                std::thread::sleep(driver.tick.min(Duration::from_millis(ms)));
            }
            ffi::GW_WANT_EVENT => {
                let mut event: gw::ffi::gw_event = std::mem::zeroed();
                assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
                let delta = (!event.text_delta.is_null()).then(|| text(event.text_delta));
                if event.choice_index == 0 {
                    driven.text.push_str(delta.as_deref().unwrap_or(""));
                }
                driven
                    .events
                    .push((text(event.event), delta, event.choice_index));
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

/// One `GW_WANT_RECEIVE`: feeds the head, body bytes, the end or the failure
/// when the connection has them, else reads for `budget` at most. Some(true):
/// the end or a failure was fed.
unsafe fn receive(
    ex: *mut gw_exchange,
    c: &mut Conn,
    pending: &mut Vec<u8>,
    phase: &mut Phase,
    split: usize,
    budget: Duration,
) -> Option<bool> {
    if !phase.head_fed {
        match c.take_head() {
            Some(Ok((status, headers))) => {
                let owned: Vec<(CString, CString)> = headers
                    .iter()
                    .map(|(k, v)| {
                        (
                            CString::new(k.as_str()).unwrap(),
                            CString::new(v.as_str()).unwrap(),
                        )
                    })
                    .collect();
                let list: Vec<gw_header> = owned
                    .iter()
                    .map(|(k, v)| gw_header {
                        name: k.as_ptr(),
                        value: v.as_ptr(),
                    })
                    .collect();
                let fed =
                    ffi::gw_exchange_feed_head(ex, c_int::from(status), list.as_ptr(), list.len());
                assert_eq!(fed, GW_OK, "a head refused");
                phase.head_fed = true;
                return Some(false);
            }
            Some(Err(e)) => {
                feed_error(ex, true, &e);
                return Some(true);
            }
            None => {}
        }
        return match c.fill(budget) {
            Ok(Filled::Eof) if find(&c.raw, b"\r\n\r\n").is_none() => {
                feed_error(ex, true, "connection closed before the answer's head");
                Some(true)
            }
            Ok(_) => None,
            Err(e) => {
                feed_error(ex, true, &e.to_string());
                Some(true)
            }
        };
    }
    if pending.is_empty() {
        match c.take_body(split.max(1)) {
            Piece::Bytes(bytes) => *pending = bytes,
            Piece::End => {
                assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK, "the end refused");
                return Some(true);
            }
            Piece::Broken(why) => {
                feed_error(ex, true, &why);
                return Some(true);
            }
            Piece::NeedMore => {
                return match c.fill(budget) {
                    Ok(_) => None,
                    Err(e) => {
                        feed_error(ex, true, &e.to_string());
                        Some(true)
                    }
                };
            }
        }
    }
    let mut taken = 0usize;
    let status = ffi::gw_exchange_feed_body(ex, pending.as_ptr(), pending.len(), &mut taken);
    assert!(
        status == GW_OK || status == GW_WOULD_BLOCK,
        "feed: {status}"
    );
    pending.drain(..taken);
    Some(false)
}

/// Sends the request of `view` and reads its whole answer (no exchange is fed):
/// the status, the headers and the decoded body.
pub unsafe fn fetch(view: &gw_request_view) -> (u16, Headers, Vec<u8>) {
    let wait = Duration::from_secs(10);
    let mut c = Conn::open(view).expect("the request goes");
    let (status, headers) = loop {
        if let Some(head) = c.take_head() {
            break head.expect("a well-formed head");
        }
        if let Filled::Eof = c.fill(wait).expect("a read") {
            panic!("the connection closed before the head");
        }
    };
    let mut body = Vec::new();
    loop {
        match c.take_body(usize::MAX) {
            Piece::Bytes(bytes) => body.extend_from_slice(&bytes),
            Piece::End => return (status, headers, body),
            Piece::Broken(why) => panic!("the body broke: {why}"),
            Piece::NeedMore => {
                c.fill(wait).expect("a read");
            }
        }
    }
}
