//! The bodies of the cargo-fuzz targets in `fuzz/` (one function per target).
//! They live in the crate so they reach its internals, and so `make test`
//! replays the committed corpora with stable Rust (`tests/fuzz_corpus.rs`).
//! Not API: hidden from the docs and free to change.
//!
//! Each body panics when an invariant breaks (a differential disagrees, the key
//! shows, an answer is not what was promised); an `Err` from gw is a fine outcome.

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::api::multipart::{FilePart, Form};
use crate::api::raw_json::{JsonText, Unscanned};
use crate::api::{ops, validate};
use crate::client::call_options::CallOptions;
use crate::client::options::Options;
use crate::client::tasks::WaitOptions;
use crate::client::Client;
use crate::error::Error;
use crate::stream::driver::{Step, StreamDriver, StreamKind};
use crate::stream::sse::{SseEvent, SseParser};

mod exchange;
pub use exchange::exchange;

/// The key the in-process gateway's client holds: no answer may show it.
const FUZZ_KEY: &str = "sk-fuzzKey0123456789";

/// A reader handing out at most `step` bytes per read.
struct Steps<'a> {
    rest: &'a [u8],
    step: usize,
}

impl Read for Steps<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.len().min(self.step).min(buf.len());
        buf[..n].copy_from_slice(&self.rest[..n]);
        self.rest = &self.rest[n..];
        Ok(n)
    }
}

fn steps(bytes: &[u8], step: usize) -> BufReader<Steps<'_>> {
    BufReader::with_capacity(step.max(1), Steps { rest: bytes, step })
}

type SseOutcome = (Vec<SseEvent>, Option<String>);

fn sse_events(stream: &[u8], step: usize, max_line: usize) -> SseOutcome {
    let mut parser = SseParser::new(steps(stream, step), max_line).max_event_bytes(2 * max_line);
    let mut events = Vec::new();
    loop {
        match parser.next_event() {
            Ok(Some(ev)) => events.push(ev),
            Ok(None) => return (events, None),
            Err(e) => return (events, Some(format!("{e:?}"))),
        }
    }
}

/// SSE parser: the events do not depend on how reads split the stream, and
/// every event was closed by a blank line (WHATWG: an unfinished one is dropped).
pub fn sse_parser(data: &[u8]) {
    let Some((&knob, stream)) = data.split_first() else {
        return;
    };
    let max_line = 8 + usize::from(knob & 0x3f) * 16;
    let whole = sse_events(stream, stream.len().max(1), max_line);
    let split = sse_events(stream, 1 + usize::from(knob >> 6), max_line);
    assert_eq!(whole, split, "the events depend on the read sizes");
    let blank_lines = stream
        .windows(2)
        .filter(|w| matches!(*w, b"\n\n" | b"\r\r" | b"\n\r"))
        .count();
    assert!(
        whole.0.len() <= blank_lines,
        "an event without its blank line"
    );
    for ev in &whole.0 {
        assert!(!ev.data.contains('\r') && !ev.event.contains(['\r', '\n']));
    }
}

type DriverOutcome = (
    Result<Option<String>, i32>,
    Vec<(String, String, Option<String>)>,
);

fn drive(kind: StreamKind, stream: &[u8], assemble: bool, general_only: bool) -> DriverOutcome {
    let parser = SseParser::new(steps(stream, 7), 1 << 16);
    let mut driver = StreamDriver::new(kind, parser)
        .assemble(assemble)
        .general_only(general_only);
    let mut seen = Vec::new();
    loop {
        match driver.step() {
            Ok(Step::Event) => {
                let ev = driver.current();
                seen.push((
                    ev.event.to_string(),
                    ev.data.to_string(),
                    ev.text_delta.map(str::to_string),
                ));
            }
            Ok(Step::Done) => return (Ok(driver.take_final()), seen),
            Err(e) => return (Err(e.status()), seen),
        }
    }
}

/// The stream driver (chunk scan, chat assembly, Responses events): the fast
/// way of reading a chunk and the general one agree on every event and on the
/// assembled answer, which is JSON.
pub fn event_stream(data: &[u8]) {
    let Some((&knob, stream)) = data.split_first() else {
        return;
    };
    let kind = if knob & 1 == 0 {
        StreamKind::Chat
    } else {
        StreamKind::Responses
    };
    let assemble = knob & 2 == 0;
    let fast = drive(kind, stream, assemble, false);
    let general = drive(kind, stream, assemble, true);
    assert_eq!(fast, general, "the fast and the general reading differ");
    if let (Ok(Some(answer)), true) = (&fast.0, assemble) {
        serde_json::from_str::<Value>(answer).expect("the assembled answer is JSON");
    }
}

/// serde_json's private tokens: with `arbitrary_precision` an object whose key is
/// `$serde_json::private::Number` is read as a number (a string value) or refused
/// (any other value). Such a text is plain JSON to gw and to the gateway, and is
/// sent as written; the differential skips it (found by this target, see
/// fuzz/regressions/request_body and raw_json's test of it).
const SERDE_PRIVATE: &str = "$serde_json::private::";

/// The request-body scanner against serde_json: the same verdict and error on
/// every text, and the C-string scan never accepts what serde_json refuses.
pub fn request_body(data: &[u8]) {
    if memchr::memmem::find(data, SERDE_PRIVATE.as_bytes()).is_some() {
        return;
    }
    let until_nul = data.split(|b| *b == 0).next().unwrap_or(&[]);
    let mut c_text = until_nul.to_vec();
    c_text.push(0);
    // SAFETY: `c_text` is NUL-terminated and outlives the scan.
    let scanned = unsafe { JsonText::parse_c(c_text.as_ptr()) };
    if let Some(scanned) = scanned {
        let text = std::str::from_utf8(until_nul).expect("the C scan accepted bad UTF-8");
        assert_eq!(scanned.text(), text);
        serde_json::from_str::<Value>(text).expect("the C scan accepted what serde refuses");
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = JsonText::parse(text);
    let serde = serde_json::from_str::<Value>(text);
    match (&ours, &serde) {
        (Ok(tree), Ok(value)) => {
            assert_eq!(tree.root().is_object(), value.is_object());
            assert_eq!(tree.root().is_array(), value.is_array());
            if let (Some(a), Some(b)) = (tree.root().as_str(), value.as_str()) {
                assert_eq!(a, b);
            }
        }
        (Err(Unscanned::Invalid(a)), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("{text:?}: ours {ours:?}, serde {serde:?}"),
    }
}

/// The limit rules of every operation over any JSON: an error names what is
/// wrong, never a panic, and it is the error of the first rule that fails on
/// its own (the rule loop skips rules it has seen cannot visit anything; a
/// wrong skip would let a broken rule through).
pub fn validation(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let op = ops::ALL[usize::from(pick) % ops::ALL.len()];
    if let Ok(tree) = JsonText::parse(text) {
        let together = validate::check_node(op.rules, tree.root());
        if let Err(e) = &together {
            assert_eq!(e.status(), crate::error::GW_INVALID_ARGUMENT, "{e}");
        }
        let one_by_one = op
            .rules
            .iter()
            .find_map(|r| validate::check_node(std::slice::from_ref(r), tree.root()).err());
        assert_eq!(
            together.err().map(|e| e.to_string()),
            one_by_one.map(|e| e.to_string()),
            "{}: the rule loop and the rules one by one differ",
            op.name
        );
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        if let Err(e) = validate::check(op.rules, &value) {
            assert_eq!(e.status(), crate::error::GW_INVALID_ARGUMENT, "{e}");
        }
    }
}

/// Run by the fuzz binaries once, before the first input (one thread then).
/// With `SSL_CERT_FILE` / `SSL_CERT_DIR` set (Debian's bundle and its
/// directory of ~150 files), every client the options target builds would
/// read and parse the machine's whole CA store again: three quarters of that
/// target's time, spent on the same files whatever the input. Trust anchors
/// from the input (`ca_pem`) are still parsed.
pub fn forget_machine_ca_store() {
    std::env::remove_var("SSL_CERT_FILE");
    std::env::remove_var("SSL_CERT_DIR");
}

/// A client to derive from (no network is touched).
fn base_client() -> &'static Client {
    static BASE: OnceLock<Client> = OnceLock::new();
    BASE.get_or_init(|| {
        let options = Options {
            base_url: Some("http://127.0.0.1:9".into()),
            api_key: Some(FUZZ_KEY.into()),
            ..Options::default()
        };
        Client::new(options).expect("the base client builds")
    })
}

/// Options, derive options and wait options: only a JSON object is ever
/// taken, and a client built from accepted options never shows its key.
pub fn options(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let is_object = text.trim_start().starts_with('{');
    if WaitOptions::from_json(Some(text)).is_ok() {
        assert!(
            is_object || text.trim().is_empty(),
            "wait options: {text:?}"
        );
    }
    if let Ok(call) = CallOptions::from_json(text) {
        assert!(
            is_object || text.trim().is_empty(),
            "derive options: {text:?}"
        );
        let _ = base_client().derive(&call);
    }
    if let Ok(mut options) = Options::from_json(text) {
        assert!(is_object || text.trim().is_empty(), "options: {text:?}");
        options.ca_file = None; // the fuzzer's paths are not read
        options.api_key = Some(FUZZ_KEY.into());
        if let Ok(client) = Client::new(options) {
            assert!(!format!("{client:?}").contains(FUZZ_KEY));
        }
    }
}

/// The multipart encoder: the body read in small steps is the encoded one, no
/// part holds the boundary (the fuzzer's text is offered as boundary first),
/// and every part comes back whole.
pub fn multipart(data: &[u8]) {
    let mut pieces = data.split(|b| *b == 0xff);
    let first = String::from_utf8_lossy(pieces.next().unwrap_or(&[])).into_owned();
    let fields = match serde_json::from_str::<Value>(&first) {
        Ok(v @ Value::Object(_)) => v,
        _ => serde_json::json!({ "prompt": first }),
    };
    let Ok(mut form) = Form::from_fields(&fields) else {
        return;
    };
    let rest: Vec<&[u8]> = pieces.collect();
    let mut files = Vec::new();
    for group in rest.chunks(4) {
        let text =
            |i: usize| String::from_utf8_lossy(group.get(i).copied().unwrap_or(b"f")).into_owned();
        let file = FilePart {
            field: text(0),
            filename: text(1),
            content_type: text(2),
            bytes: group.get(3).copied().unwrap_or(b"x"),
        };
        if form.add_file(file.clone()).is_ok() {
            files.push(file);
        }
    }
    // Candidates from the input's own bytes force clashes; then random ones.
    let mut offered = rest
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .into_iter();
    let encoded = form.encode_with(|| offered.next().unwrap_or_else(super_random));
    let mut body = Vec::new();
    let mut reader = encoded.reader();
    let mut buf = [0u8; 13];
    loop {
        let n = reader.read(&mut buf).expect("reading a form never fails");
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    assert_eq!(body.len() as u64, encoded.len());
    let boundary = encoded
        .content_type()
        .strip_prefix("multipart/form-data; boundary=")
        .expect("the content type names the boundary");
    let delimiter = format!("\r\n--{boundary}");
    let framed = [b"\r\n".as_slice(), &body].concat();
    let parts: Vec<&[u8]> = split_bytes(&framed, delimiter.as_bytes());
    // parts[0] is empty (before the first delimiter); the last is "--\r\n".
    assert_eq!(parts.first().copied(), Some(&b""[..]));
    assert_eq!(parts.last().copied(), Some(&b"--\r\n"[..]));
    let parts = &parts[1..parts.len() - 1];
    // A null member is left out of the form ("not given").
    let texts = fields
        .as_object()
        .map_or(0, |m| m.values().filter(|v| !v.is_null()).count());
    assert_eq!(parts.len(), texts + files.len(), "every part once");
    let head_end = memchr::memmem::Finder::new(b"\r\n\r\n");
    for (part, file) in parts[texts..].iter().zip(&files) {
        let at = head_end.find(part).expect("a part has a head");
        assert_eq!(
            &part[at + 4..],
            file.bytes,
            "a file's bytes come back whole"
        );
    }
}

fn super_random() -> String {
    crate::api::multipart::random_boundary()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

fn split_bytes<'a>(mut hay: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    // One finder for all the parts: building it per search was an eighth of the target's time.
    let finder = memchr::memmem::Finder::new(sep);
    let mut out = Vec::new();
    while let Some(at) = finder.find(hay) {
        out.push(&hay[..at]);
        hay = &hay[at + sep.len()..];
    }
    out.push(hay);
    out
}

/// A loopback server that answers every connection with the bytes it is given.
struct Gateway {
    url: String,
    answer: std::sync::Arc<Mutex<Vec<u8>>>,
}

fn gateway() -> &'static Gateway {
    static GATEWAY: OnceLock<Gateway> = OnceLock::new();
    GATEWAY.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let answer = std::sync::Arc::new(Mutex::new(Vec::new()));
        let bytes = answer.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let answer = bytes.lock().unwrap_or_else(|p| p.into_inner()).clone();
                serve(conn, &answer);
            }
        });
        Gateway { url, answer }
    })
}

/// Reads the request (head and Content-Length body, so closing sends no reset),
/// writes `answer`, closes.
fn serve(mut conn: TcpStream, answer: &[u8]) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let want = loop {
        if let Some(end) = find(&got, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
            let body = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break end + 4 + body;
        }
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    };
    while got.len() < want {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let _ = conn.write_all(answer);
    let _ = conn.shutdown(std::net::Shutdown::Write);
}

fn fuzz_client() -> &'static Client {
    static CLIENT: OnceLock<Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let options = Options {
            base_url: Some(gateway().url.clone()),
            api_key: Some(FUZZ_KEY.into()),
            max_retries: 0,
            connect_timeout_ms: 2_000,
            read_timeout_ms: 2_000,
            first_byte_timeout_ms: 2_000,
            total_timeout_ms: 10_000,
            max_idle_connections: 0,
            max_response_bytes: 1 << 20,
            max_line_bytes: 1 << 16,
            max_event_bytes: 1 << 17,
            ..Options::default()
        };
        Client::new(options).expect("the fuzz client builds")
    })
}

/// The response path: the input's bytes (after a first byte choosing the call)
/// are the gateway's whole answer, head included: chunked, gzip, error bodies,
/// streams. Whatever comes back, the key is never in it.
pub fn response(data: &[u8]) {
    let Some((&pick, answer)) = data.split_first() else {
        return;
    };
    let gateway = gateway();
    *gateway.answer.lock().unwrap_or_else(|p| p.into_inner()) = answer.to_vec();
    let client = fuzz_client();
    let chat = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let result: Result<String, Error> = match pick % 6 {
        0 => client.call(&ops::CHAT, &[], Some(&chat)),
        1 => client.stream(&ops::CHAT, &chat, &mut |_| true),
        2 => client.stream(
            &ops::RESPONSES,
            &serde_json::json!({"model": "m", "input": "hi"}),
            &mut |_| true,
        ),
        3 => client.request("GET", "/v1beta/models/m", None),
        4 => client.call(
            &ops::EMBEDDINGS,
            &[],
            Some(&serde_json::json!({"model": "m", "input": "hi"})),
        ),
        _ => client.call(&ops::VENDOR_R_TASK, &["t1"], None),
    };
    if let Err(Error::Http { status, .. }) = &result {
        assert!((100..=599).contains(status), "status {status} handed out");
    }
    let mut shown = match &result {
        Ok(text) => {
            // An answer is handed out as the gateway sent it (the caller's to read);
            // only what gw writes itself must never carry the key.
            let _ = text;
            String::new()
        }
        Err(e) => format!("{e} {} {e:?}", e.to_json()),
    };
    if let Some(meta) = client.last_response() {
        shown.push_str(&meta.to_json().to_string());
        shown.push_str(&format!("{meta:?}"));
    }
    assert!(
        !shown
            .to_ascii_lowercase()
            .contains(&FUZZ_KEY.to_ascii_lowercase()),
        "the key shows: {shown}"
    );
}
