//! Interrupted system calls: with every timeout off (0 = none), a SIGALRM
//! handler installed without SA_RESTART interrupts gw's reads and writes. Each
//! is retried where it happened; none becomes a failed call or a second request.
//! Its own test binary: signal dispositions are process-wide.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use gw::ops;
use gw_mock::MockGateway;
use serde_json::json;

static ALARMS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

extern "C" fn on_alarm(_: libc::c_int) {
    ALARMS.fetch_add(1, Ordering::Relaxed);
}

#[test]
fn interrupted_reads_are_retried_in_place_not_resent() {
    let mock = MockGateway::start();
    // SAFETY: a handler that only counts, installed without SA_RESTART.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = 0;
        libc::sigemptyset(&mut action.sa_mask);
        assert_eq!(
            libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()),
            0
        );
    }
    let c = client_with(
        &mock,
        json!({"connect_timeout_ms": 0, "read_timeout_ms": 0, "first_byte_timeout_ms": 0,
               "total_timeout_ms": 0, "max_retries": 2}),
    );
    // An answer that takes 400 ms, and a SIGALRM at this very thread every 5 ms meanwhile.
    mock.push_fault(json!({"action": "delay", "ms": 400}));
    // SAFETY: pthread_self of the calling thread, which outlives the signaller (joined below).
    let target = unsafe { libc::pthread_self() };
    let stop = Arc::new(AtomicBool::new(false));
    let signaller = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                // SAFETY: the target thread is alive until `stop` is set and this is joined.
                unsafe { libc::pthread_kill(target, libc::SIGALRM) };
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let result = c.call(&ops::CHAT, &[], Some(&chat("through the alarms")));
    let streamed = c.stream(&ops::CHAT, &chat("one two three"), &mut |_| true);
    stop.store(true, Ordering::Relaxed);
    signaller.join().unwrap();
    let answer = result.expect("an interrupted read is not a failure");
    assert!(answer.contains("Echo: through the alarms"), "{answer}");
    assert!(streamed.is_ok(), "{streamed:?}");
    assert_eq!(mock.request_count(), 2, "each call sent once");
    assert!(ALARMS.load(Ordering::Relaxed) > 20, "the alarms fired");
}
