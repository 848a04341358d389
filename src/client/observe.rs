//! Attempt observers: a function told when each attempt of a call starts and ends
//! (`gw_client_create_observed`), so a binding can feed tracing or metrics without
//! parsing log lines. Set on a derived handle only: handles without one pay one
//! `Option` check per attempt.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::http::{header, HeaderMap};

use crate::api::ops::Method;
use crate::error::Error;

/// Which end of an attempt an event reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptPhase {
    Start,
    End,
}

/// One attempt's start or end. The path never carries the key (gw adds `?key=` to
/// the URL, not to the path).
#[derive(Clone, Debug)]
pub struct AttemptEvent<'a> {
    pub phase: AttemptPhase,
    pub method: &'a str,
    pub path: &'a str,
    /// 1-based, counting every attempt of the call (stream reopenings included).
    pub attempt: u32,
    /// End only: the HTTP status, or a negative gw status (no answer); 0 at the start.
    pub status: i32,
    /// End only: how long the attempt (with its redirects) took to the answer's head.
    pub elapsed: Duration,
    /// End only: the answer's request id header, when it has one.
    pub request_id: Option<&'a str>,
    /// The request body's size (0 without a body).
    pub request_bytes: u64,
    /// End only: the answer's Content-Length, when it says one.
    pub response_bytes: Option<u64>,
}

/// What an observed handle calls; it runs on the thread of the call.
#[derive(Clone)]
pub struct Observer(pub Arc<dyn Fn(&AttemptEvent<'_>) + Send + Sync>);

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}

/// An attempt being observed: `start` told the observer, `end` tells it how it ended.
pub(crate) struct Watch {
    observer: Observer,
    method: Method,
    path: String,
    attempt: u32,
    request_bytes: u64,
    started: Instant,
}

impl Watch {
    pub(crate) fn start(
        observer: Observer,
        method: Method,
        path: &str,
        attempt: u32,
        request_bytes: u64,
    ) -> Watch {
        let watch = Watch {
            observer,
            method,
            path: path.to_string(),
            attempt,
            request_bytes,
            started: Instant::now(),
        };
        (watch.observer.0)(&watch.event(AttemptPhase::Start, 0, None, None));
        watch
    }

    pub(crate) fn end(self, result: Result<(u16, &HeaderMap), &Error>) {
        let (status, request_id, response_bytes) = match result {
            Ok((status, headers)) => {
                let request_id = ["x-request-id", "request-id", "openai-request-id"]
                    .iter()
                    .find_map(|k| headers.get(*k).and_then(|v| v.to_str().ok()));
                let length = headers
                    .get(header::CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok());
                (i32::from(status), request_id, length)
            }
            Err(e) => (e.status(), None, None),
        };
        (self.observer.0)(&self.event(AttemptPhase::End, status, request_id, response_bytes));
    }

    fn event<'e>(
        &'e self,
        phase: AttemptPhase,
        status: i32,
        request_id: Option<&'e str>,
        response_bytes: Option<u64>,
    ) -> AttemptEvent<'e> {
        AttemptEvent {
            phase,
            method: self.method.as_str(),
            path: &self.path,
            attempt: self.attempt,
            status,
            elapsed: match phase {
                AttemptPhase::Start => Duration::ZERO,
                AttemptPhase::End => self.started.elapsed(),
            },
            request_id,
            request_bytes: self.request_bytes,
            response_bytes,
        }
    }
}
