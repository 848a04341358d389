//! Attempt observers: a function told when each attempt of a call starts and ends
//! (`gw_client_create_observed`), so a binding can feed tracing or metrics without
//! parsing log lines. Set on a derived handle only: handles without one pay one
//! `Option` check per attempt.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::http::{header, Response};
use ureq::Body;

use crate::api::ops::Method;
use crate::client::call::Payload;
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
pub(crate) struct Watch<'a> {
    observer: Observer,
    method: Method,
    path: &'a str,
    attempt: u32,
    request_bytes: u64,
    started: Instant,
}

impl<'a> Watch<'a> {
    pub(crate) fn start(
        observer: Observer,
        method: Method,
        path: &'a str,
        attempt: u32,
        body: Option<Payload<'_>>,
    ) -> Watch<'a> {
        let request_bytes = match body {
            None => 0,
            Some(Payload::Pieces(pieces)) => pieces.iter().map(|p| p.len() as u64).sum(),
            Some(Payload::Form(form)) => form.len(),
        };
        let watch = Watch {
            observer,
            method,
            path,
            attempt,
            request_bytes,
            started: Instant::now(),
        };
        (watch.observer.0)(&watch.event(AttemptPhase::Start, 0, None, None));
        watch
    }

    pub(crate) fn end(self, result: Result<&Response<Body>, &Error>) {
        let (status, request_id, response_bytes) = match result {
            Ok(r) => {
                let headers = r.headers();
                let request_id = ["x-request-id", "request-id", "openai-request-id"]
                    .iter()
                    .find_map(|k| headers.get(*k).and_then(|v| v.to_str().ok()));
                let length = headers
                    .get(header::CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse().ok());
                (i32::from(r.status().as_u16()), request_id, length)
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
            path: self.path,
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
