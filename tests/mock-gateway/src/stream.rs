//! SSE bodies: a handler's events, with any stream fault applied, played out as a chunked
//! `text/event-stream` body (sleeps for drips, an injected error for resets).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use serde_json::json;

use crate::faults::Action;

/// Which stream format is being faulted (the in-stream error differs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    Chat,
    Responses,
}

/// One step of a streamed body.
pub enum Step {
    Send(Bytes),
    Sleep(u64),
    /// Make the body fail so hyper drops the connection without the final chunk.
    Abort,
}

/// Turns a normal stream (complete SSE events, terminal event last) into the steps to send,
/// with `fault` applied.
pub fn plan_stream(events: Vec<String>, kind: StreamKind, fault: Option<&Action>) -> Vec<Step> {
    let send = |e: String| Step::Send(Bytes::from(e));
    // Faults that cut the stream never let the terminal event through.
    let total = events.len();
    let cut = |after: usize| after.min(total.saturating_sub(1));
    let mut steps = Vec::new();
    match fault {
        Some(Action::Reset { after }) => {
            steps.extend(events.into_iter().take(cut(*after)).map(send));
            // Let hyper flush what was sent before the abort.
            steps.push(Step::Sleep(50));
            steps.push(Step::Abort);
        }
        Some(Action::Truncate { after }) => {
            steps.extend(events.into_iter().take(cut(*after)).map(send));
        }
        Some(Action::StreamError { after }) => {
            steps.extend(events.into_iter().take(cut(*after)).map(send));
            steps.push(send(match kind {
                StreamKind::Chat => format!(
                    "data: {}\n\n",
                    json!({"error": {"message": "upstream model failed", "type": "server_error", "code": "stream_failure"}})
                ),
                StreamKind::Responses => format!(
                    "event: error\ndata: {}\n\n",
                    json!({"type": "error", "code": "stream_failure", "message": "upstream model failed"})
                ),
            }));
        }
        Some(Action::GarbageEvent { after }) => {
            let mut it = events.into_iter();
            steps.extend(it.by_ref().take(*after).map(send));
            steps.push(send("data: {not json\n\n".into()));
            steps.extend(it.map(send));
        }
        Some(Action::Drip { interval_ms }) => {
            for e in events {
                steps.push(Step::Sleep(*interval_ms));
                steps.push(send(e));
            }
        }
        Some(Action::HugeLine { after, bytes }) => {
            let mut it = events.into_iter();
            steps.extend(it.by_ref().take(*after).map(send));
            steps.push(send("data: ".into()));
            // Sent in pieces so a client with a line cap can give up before the end.
            let piece = Bytes::from(vec![b'x'; 64 * 1024]);
            let mut left = *bytes;
            while left > 0 {
                let n = left.min(piece.len());
                steps.push(Step::Send(piece.slice(..n)));
                left -= n;
            }
            steps.push(send("\n\n".into()));
            steps.extend(it.map(send));
        }
        _ => steps.extend(events.into_iter().map(send)),
    }
    steps
}

/// A `text/event-stream` response that plays `steps`.
pub fn stream_response(steps: Vec<Step>) -> Response {
    let stream = futures_util::stream::unfold(steps.into_iter(), |mut it| async move {
        loop {
            match it.next()? {
                Step::Sleep(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                Step::Send(b) => return Some((Ok(b), it)),
                Step::Abort => {
                    let err =
                        std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected reset");
                    return Some((Err(err), it));
                }
            }
        }
    });
    let mut resp = Response::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}
