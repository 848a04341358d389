//! The fuzz input read as a call and the answer every hop of it gets.

use ureq::http::{HeaderMap, HeaderName, HeaderValue};

use crate::error::*;
use crate::stream::driver::StreamKind;

#[derive(Clone, Copy)]
pub(super) enum Call {
    ChatStream,
    ResponsesStream,
    Chat,
    Get,
}

impl Call {
    pub(super) fn method(self) -> &'static str {
        match self {
            Call::Get => "GET",
            _ => "POST",
        }
    }

    pub(super) fn path(self) -> &'static str {
        match self {
            Call::ChatStream | Call::Chat => "/v1/chat/completions",
            Call::ResponsesStream => "/v1/responses",
            Call::Get => "/v1/models",
        }
    }

    pub(super) fn body(self) -> Option<&'static str> {
        match self {
            Call::ChatStream | Call::Chat => {
                Some(r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#)
            }
            Call::ResponsesStream => Some(r#"{"model":"m","input":"hi"}"#),
            Call::Get => None,
        }
    }

    pub(super) fn stream(self) -> Option<StreamKind> {
        match self {
            Call::ChatStream => Some(StreamKind::Chat),
            Call::ResponsesStream => Some(StreamKind::Responses),
            _ => None,
        }
    }
}

/// A transport failure fed at the cut.
#[derive(Clone, Copy)]
pub(super) struct Failure {
    pub(super) status: i32,
    pub(super) request_sent: bool,
    /// None: before the head; else after this many body bytes.
    pub(super) at: Option<usize>,
}

impl Failure {
    pub(super) fn error(self) -> Error {
        let said = "the fuzzer's transport failed".to_string();
        match self.status {
            GW_NETWORK => Error::Network(said),
            GW_TIMEOUT => Error::Timeout(said),
            _ => Error::Cancelled,
        }
    }
}

/// The answer the input describes, and how to feed it.
pub(super) struct Answer<'a> {
    pub(super) call: Call,
    pub(super) events_only: bool,
    pub(super) client: usize,
    pub(super) status: u16,
    /// As given: a name or value may be no valid HTTP header.
    pub(super) headers: Vec<(Vec<u8>, Vec<u8>)>,
    pub(super) body: &'a [u8],
    pub(super) failure: Option<Failure>,
    pub(super) pieces: [u8; 4],
    pub(super) misuse: u8,
}

impl<'a> Answer<'a> {
    pub(super) fn read(data: &'a [u8]) -> Option<Answer<'a>> {
        let (head, rest) = data.split_at_checked(8)?;
        let (call_bits, transport) = (head[0], head[1]);
        let call = match call_bits & 3 {
            0 => Call::ChatStream,
            1 => Call::ResponsesStream,
            2 => Call::Chat,
            _ => Call::Get,
        };
        let mut status = [200, 200, 200, 200, 400, 429, 307, 503][usize::from(call_bits >> 5)];
        let content_type: Option<&[u8]> = match transport & 3 {
            0 => Some(b"text/event-stream"),
            1 => Some(b"application/json"),
            2 => None,
            _ => Some(b"Text/Event-Stream; charset=utf-8"),
        };
        let mut headers: Vec<(Vec<u8>, Vec<u8>)> = content_type
            .map(|ct| (b"content-type".to_vec(), ct.to_vec()))
            .into_iter()
            .collect();
        let (lines, body) = match memchr::memmem::find(rest, b"\0\0") {
            Some(at) => (&rest[..at], &rest[at + 2..]),
            None => (&[][..], rest),
        };
        // A header is C strings: a line ends at its first NUL, as a C caller's would.
        let lines = lines
            .split(|b| *b == b'\n')
            .map(|l| l.split(|b| *b == 0).next().unwrap_or(l));
        for (i, line) in lines.enumerate() {
            let digits = std::str::from_utf8(line).ok().filter(|l| l.len() == 3);
            if let (0, Some(code)) = (i, digits.and_then(|l| l.parse::<u16>().ok())) {
                status = code;
            } else if let Some(colon) = memchr::memchr(b':', line) {
                let value = line[colon + 1..]
                    .strip_prefix(b" ")
                    .unwrap_or(&line[colon + 1..]);
                headers.push((line[..colon].to_vec(), value.to_vec()));
            }
        }
        let cut = u16::from_le_bytes([head[2], head[3]]);
        let failure = match (transport >> 2) & 3 {
            0 => None,
            kind => Some(Failure {
                status: [GW_NETWORK, GW_TIMEOUT, GW_CANCELLED][usize::from(kind - 1)],
                request_sent: transport & 0x10 != 0,
                at: (cut != u16::MAX).then(|| usize::from(cut) % (body.len() + 1)),
            }),
        };
        Some(Answer {
            call,
            events_only: call_bits & 4 != 0,
            client: usize::from((call_bits >> 3) & 3),
            status,
            headers,
            body,
            failure,
            pieces: [head[4], head[5], head[6], head[7]],
            misuse: transport >> 5,
        })
    }

    /// The body bytes fed before the end (or the failure).
    pub(super) fn fed_body(&self) -> &'a [u8] {
        match self.failure {
            Some(Failure { at: Some(at), .. }) => &self.body[..at],
            _ => self.body,
        }
    }

    /// The headers an HTTP stack can carry (the others are refused by the C ABI).
    pub(super) fn valid_headers(&self) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            if let (Ok(name), Some(value)) = (HeaderName::from_bytes(name), valid_value(value)) {
                map.append(name, value);
            }
        }
        map
    }

    /// Whether the exchange reads this answer as an event stream.
    pub(super) fn is_event_stream(&self) -> bool {
        let sse = self
            .valid_headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.to_ascii_lowercase().starts_with("text/event-stream"));
        self.call.stream().is_some() && (200..300).contains(&self.status) && sse
    }

    /// The most steps an exchange of this answer may take: a few per byte fed
    /// and per event, on each of at most (1 + retries) * (1 + redirects) hops.
    pub(super) fn step_bound(&self) -> usize {
        (64 + 8 * self.body.len()) * 2 * 6
    }
}

/// A header value as the C ABI takes it (a C string an HTTP stack can send).
pub(super) fn valid_value(value: &[u8]) -> Option<HeaderValue> {
    let text = std::str::from_utf8(value).ok()?;
    if value.contains(&0) {
        return None;
    }
    HeaderValue::from_str(text).ok()
}
