//! The answer fed through the exchange's C ABI, whole or in pieces, with
//! misuse between the feeds and after the end.

use std::ffi::{c_char, CString};
use std::ptr;

use ureq::http::HeaderName;

use crate::error::*;
use crate::ffi::*;

use super::*;

/// Where the answer of the current hop stands (the C ways).
#[derive(Default)]
pub(super) struct Hop {
    pub(super) head_fed: bool,
    pub(super) offset: usize,
    /// The end or the failure was fed: the exchange may want no more input.
    pub(super) ended: bool,
    /// Consecutive feeds that took nothing.
    pub(super) stalls: u8,
    pub(super) piece: usize,
}

/// Drives the exchange through the C ABI: the body whole (`pieces` None) or in
/// the pieces' sizes, with misuse between feeds.
pub(super) fn drive_c(answer: &Answer<'_>, pieces: Option<[u8; 4]>) -> Outcome {
    let client = handle(answer.client);
    let mut flags = 0;
    if answer.call.stream().is_some() {
        flags |= GW_EXCHANGE_STREAM;
        if answer.events_only {
            flags |= GW_EXCHANGE_EVENTS_ONLY;
        }
    }
    let method = CString::new(answer.call.method()).expect("no NUL");
    let path = CString::new(answer.call.path()).expect("no NUL");
    let body = answer.call.body().map(|b| CString::new(b).expect("no NUL"));
    let mut ex: *mut gw_exchange = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    // SAFETY: valid C strings and writable outs.
    let status = unsafe {
        ffi::gw_exchange_new(
            client,
            method.as_ptr(),
            path.as_ptr(),
            body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
            flags,
            &mut ex,
            &mut err,
        )
    };
    assert_eq!(
        status,
        GW_OK,
        "the fuzz request is refused: {}",
        text_of(err)
    );
    let misuse = if pieces.is_some() { answer.misuse } else { 0 };
    // SAFETY: `ex` is a live exchange, freed by `run_c` only.
    unsafe { run_c(ex, answer, pieces, misuse) }
}

/// # Safety
/// `ex` is a live exchange; it is freed here.
pub(super) unsafe fn run_c(
    ex: *mut gw_exchange,
    answer: &Answer<'_>,
    pieces: Option<[u8; 4]>,
    misuse: u8,
) -> Outcome {
    let fed = answer.fed_body();
    let names: Vec<CString> = answer
        .headers
        .iter()
        .map(|(n, _)| CString::new(n.clone()).unwrap_or_default())
        .collect();
    let values: Vec<CString> = answer
        .headers
        .iter()
        .map(|(_, v)| CString::new(v.clone()).unwrap_or_default())
        .collect();
    let all: Vec<gw_header> = names
        .iter()
        .zip(&values)
        .map(|(n, v)| gw_header {
            name: n.as_ptr(),
            value: v.as_ptr(),
        })
        .collect();
    let valid: Vec<gw_header> = answer
        .headers
        .iter()
        .zip(&all)
        .filter(|((n, v), _)| {
            HeaderName::from_bytes(n).is_ok() && valid_value(v).is_some() && !n.contains(&0)
        })
        .map(|(_, h)| gw_header {
            name: h.name,
            value: h.value,
        })
        .collect();
    let mut events = Vec::new();
    let mut requests = 0;
    let mut idempotency = None;
    let mut hop: Option<Hop> = None;
    for steps in 0.. {
        assert!(steps < answer.step_bound(), "the exchange does not end");
        let mut wait_ms = -2i64;
        let want = ffi::gw_exchange_step(ex, &mut wait_ms);
        if misuse != 0 && want != GW_WANT_DONE {
            misuse_between(ex, want, hop.as_ref(), misuse, steps);
        }
        match want {
            GW_WANT_SEND => {
                let mut view: gw_request_view = std::mem::zeroed();
                let status = ffi::gw_exchange_request(ex, &mut view);
                assert_ne!(status, GW_INTERNAL);
                if status != GW_OK {
                    continue; // the exchange is over; the next step says so
                }
                check_request(&view, &mut idempotency);
                requests += 1;
                hop = Some(Hop::default());
            }
            GW_WANT_RECEIVE => {
                let h = hop.as_mut().expect("input wanted before a request went");
                assert!(!h.ended, "input wanted after the answer's end");
                feed_c(ex, answer, h, fed, pieces, &all, &valid);
                if h.ended && misuse != 0 {
                    misuse_after_end(ex);
                }
            }
            GW_WANT_WAIT => assert_eq!(wait_ms, 0, "a wait without backoff or Retry-After"),
            GW_WANT_EVENT => {
                let mut event = gw_event::empty();
                assert_eq!(ffi::gw_exchange_event(ex, &mut event), GW_OK);
                events.push(owned_event(&event));
                if let Some(h) = hop.as_mut() {
                    h.stalls = 0;
                }
            }
            GW_WANT_DONE => {
                let outcome = finish_c(ex, events, requests);
                ffi::gw_exchange_free(ex);
                return outcome;
            }
            other => panic!("gw_exchange_step gave {other}"),
        }
    }
    unreachable!()
}

/// Feeds the next thing the answer has: its head, body bytes, the end or the failure.
pub(super) unsafe fn feed_c(
    ex: *mut gw_exchange,
    answer: &Answer<'_>,
    h: &mut Hop,
    fed: &[u8],
    pieces: Option<[u8; 4]>,
    all: &[gw_header],
    valid: &[gw_header],
) {
    let fail = |request_sent: bool| {
        let f = answer.failure.expect("a failure");
        let message = CString::new("the fuzzer's transport failed").expect("no NUL");
        let status =
            ffi::gw_exchange_feed_error(ex, f.status, i32::from(request_sent), message.as_ptr());
        assert_eq!(status, GW_OK, "a transport failure refused");
    };
    if !h.head_fed {
        h.head_fed = true;
        if matches!(answer.failure, Some(Failure { at: None, .. })) {
            h.ended = true;
            return fail(answer.failure.is_some_and(|f| f.request_sent));
        }
        let status = i32::from(answer.status);
        if all.len() != valid.len() {
            let refused = ffi::gw_exchange_feed_head(ex, status, all.as_ptr(), all.len());
            assert_eq!(refused, GW_INVALID_ARGUMENT, "a bad header taken");
        }
        let taken = ffi::gw_exchange_feed_head(ex, status, valid.as_ptr(), valid.len());
        assert_eq!(taken, GW_OK, "a head refused");
        return;
    }
    if h.offset == fed.len() {
        h.ended = true;
        if answer.failure.is_some() {
            return fail(true);
        }
        assert_eq!(ffi::gw_exchange_feed_end(ex), GW_OK, "the end refused");
        return;
    }
    let left = fed.len() - h.offset;
    let size = match pieces {
        None => left,
        Some(sizes) => {
            h.piece += 1;
            left.min(1 + usize::from(sizes[h.piece % 4]))
        }
    };
    let mut taken = usize::MAX;
    let status = ffi::gw_exchange_feed_body(ex, fed[h.offset..].as_ptr(), size, &mut taken);
    match status {
        GW_OK => assert_eq!(taken, size),
        GW_WOULD_BLOCK => assert!(taken < size),
        other => panic!("body bytes refused while wanted: {other}"),
    }
    if taken == 0 {
        h.stalls += 1;
        assert!(h.stalls < 3, "the exchange wants bytes and takes none");
    } else {
        h.stalls = 0;
    }
    h.offset += taken;
}

/// One call the state does not allow, chosen by `kind` and the step: refused
/// with GW_INVALID_ARGUMENT. That it changed nothing is the outcome's to show.
pub(super) unsafe fn misuse_between(
    ex: *mut gw_exchange,
    want: i32,
    hop: Option<&Hop>,
    kind: u8,
    step: usize,
) {
    let head_fed = hop.is_some_and(|h| h.head_fed);
    let ended = hop.is_some_and(|h| h.ended);
    // Body bytes, the end and a failure are awaited while the answer's body is
    // read (between events too) and before its end came.
    let body_open = head_fed && !ended && (want == GW_WANT_RECEIVE || want == GW_WANT_EVENT);
    let awaits_head = want == GW_WANT_RECEIVE && !head_fed;
    let bytes = b"data: {}\n\n";
    let mut taken = usize::MAX;
    let status = match (usize::from(kind) + step) % 8 {
        0 => ffi::gw_exchange_feed_error(ex, GW_INTERNAL, 1, ptr::null()),
        1 => ffi::gw_exchange_finish(ex, ptr::null_mut()),
        2 if want != GW_WANT_EVENT => {
            let mut event = gw_event::empty();
            ffi::gw_exchange_event(ex, &mut event)
        }
        3 if want != GW_WANT_SEND => {
            let mut view: gw_request_view = std::mem::zeroed();
            ffi::gw_exchange_request(ex, &mut view)
        }
        4 if !body_open => {
            let status = ffi::gw_exchange_feed_body(ex, bytes.as_ptr(), bytes.len(), &mut taken);
            assert_eq!(taken, 0, "misplaced body bytes taken");
            status
        }
        5 if !body_open => ffi::gw_exchange_feed_end(ex),
        6 if !awaits_head => ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 0),
        7 if !body_open && !awaits_head => {
            ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null())
        }
        _ => {
            let bad = CString::new("bad name").expect("no NUL");
            let header = gw_header {
                name: bad.as_ptr(),
                value: bad.as_ptr(),
            };
            ffi::gw_exchange_feed_head(ex, 200, &header, 1)
        }
    };
    assert_eq!(
        status, GW_INVALID_ARGUMENT,
        "misuse {kind} at step {step} (want {want})"
    );
}

/// Right after the end or a failure was fed, before a step: no body, no second
/// end and no failure is taken.
pub(super) unsafe fn misuse_after_end(ex: *mut gw_exchange) {
    let mut taken = usize::MAX;
    let fed = ffi::gw_exchange_feed_body(ex, b"\n\n".as_ptr(), 2, &mut taken);
    assert_eq!(
        (fed, taken),
        (GW_INVALID_ARGUMENT, 0),
        "bytes after the end"
    );
    assert_eq!(
        ffi::gw_exchange_feed_end(ex),
        GW_INVALID_ARGUMENT,
        "a second end"
    );
    let failed = ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null());
    assert_eq!(failed, GW_INVALID_ARGUMENT, "a failure after the end");
}

pub(super) unsafe fn owned_event(event: &gw_event) -> Event {
    let delta = (!event.text_delta.is_null()).then(|| text_of(event.text_delta));
    (
        text_of(event.event),
        text_of(event.data),
        delta,
        event.index,
        event.choice_index,
    )
}

/// The outcome, read twice (the same both times); then every feed is refused.
pub(super) unsafe fn finish_c(
    ex: *mut gw_exchange,
    events: Vec<Event>,
    requests: usize,
) -> Outcome {
    let read = || {
        let mut out: *mut c_char = ptr::null_mut();
        let status = ffi::gw_exchange_finish(ex, &mut out);
        let text = text_of(out);
        ffi::gw_free(out.cast());
        (status, text)
    };
    let (status, out) = read();
    assert_eq!(read(), (status, out.clone()), "a second finish differs");
    assert_ne!(status, GW_INTERNAL, "{out}");
    let mut taken = 0;
    assert_eq!(
        ffi::gw_exchange_feed_body(ex, b"x".as_ptr(), 1, &mut taken),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(ffi::gw_exchange_feed_end(ex), GW_INVALID_ARGUMENT);
    assert_eq!(
        ffi::gw_exchange_feed_head(ex, 200, ptr::null(), 0),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(
        ffi::gw_exchange_feed_error(ex, GW_NETWORK, 0, ptr::null()),
        GW_INVALID_ARGUMENT
    );
    assert_eq!(ffi::gw_exchange_step(ex, ptr::null_mut()), GW_WANT_DONE);
    Outcome {
        status,
        out,
        events,
        requests,
    }
}
