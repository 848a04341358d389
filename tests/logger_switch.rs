//! Switching loggers while other threads log (issue 19, item 7): once `set_logger`
//! returns, the old logger is not running and is never entered again, so a C caller
//! may free its `user_data` then. In its own binary: the logger is global to the process.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use gw::log::{set_logger, Level, LogSink};
use gw::ops;
use gw_mock::MockGateway;

#[test]
fn after_set_logger_returns_the_old_logger_never_runs_again() {
    let mock = MockGateway::start();
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let c = client(&mock);
            let stop = stop.clone();
            let calls = calls.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    // Each call logs its attempt at debug level.
                    c.call(&ops::CHAT, &[], Some(&chat("log me"))).unwrap();
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let late = Arc::new(AtomicUsize::new(0));
    let ran = Arc::new(AtomicUsize::new(0));
    for _ in 0..300 {
        // Stands for a C caller's user_data: "freed" once set_logger has returned.
        let freed = Arc::new(AtomicBool::new(false));
        let sink: LogSink = {
            let (freed, late, ran) = (freed.clone(), late.clone(), ran.clone());
            Arc::new(move |_, _| {
                ran.fetch_add(1, Ordering::Relaxed);
                if freed.load(Ordering::SeqCst) {
                    late.fetch_add(1, Ordering::Relaxed);
                }
                // A callback that takes a moment, as one that writes a file does.
                std::thread::sleep(Duration::from_micros(200));
                if freed.load(Ordering::SeqCst) {
                    late.fetch_add(1, Ordering::Relaxed);
                }
            })
        };
        set_logger(Some(sink), Level::Debug);
        std::thread::sleep(Duration::from_micros(500));
        // The next logger replaces this one; from here its user_data is gone.
        let next: LogSink = Arc::new(|_, _| {});
        set_logger(Some(next), Level::Debug);
        freed.store(true, Ordering::SeqCst);
    }
    set_logger(None, Level::Error);
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    assert!(calls.load(Ordering::Relaxed) > 0);
    assert!(ran.load(Ordering::Relaxed) > 0, "the loggers were used");
    assert_eq!(
        late.load(Ordering::Relaxed),
        0,
        "a logger ran after set_logger replaced it ({} ran in all)",
        ran.load(Ordering::Relaxed)
    );
}
