//! One client shared by many threads.

mod common;

use std::sync::Arc;

use common::*;
use gw::ops;
use gw_mock::MockGateway;

#[test]
fn one_client_serves_many_threads() {
    let mock = MockGateway::start();
    let c = Arc::new(client(&mock));
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let c = Arc::clone(&c);
            std::thread::spawn(move || {
                for i in 0..10 {
                    let text = format!("thread {t} call {i}");
                    let answer = c.call(&ops::CHAT, &[], Some(&chat(&text))).unwrap();
                    assert_eq!(
                        parse(&answer)["choices"][0]["message"]["content"],
                        format!("Echo: {text}")
                    );
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(mock.request_count(), 80);
}

#[test]
fn client_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<gw::Client>();
}
