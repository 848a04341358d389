//! A rustls provider a Rust program installed as the process default (aws-lc-rs for FIPS, say)
//! is the one gw's TLS uses, not gw's own (src/net/crypto_provider.rs). A test binary of its
//! own: a process default is set once and stays, so among the library's unit tests it would
//! change the provider every later TLS test ran with.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use gw::{ops, Client};
use gw_mock::{MockGateway, TestCa};
use rustls::crypto::{CryptoProvider, GetRandomFailed, SecureRandom};
use serde_json::json;

/// Random bytes drawn through the installed provider.
static DRAWS: AtomicUsize = AtomicUsize::new(0);

/// ring's randomness, counted.
#[derive(Debug)]
struct CountingRandom;

impl SecureRandom for CountingRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        DRAWS.fetch_add(1, Ordering::SeqCst);
        rustls::crypto::ring::default_provider()
            .secure_random
            .fill(buf)
    }
}

#[test]
fn a_process_default_provider_is_the_one_used() {
    CryptoProvider {
        secure_random: &CountingRandom,
        ..rustls::crypto::ring::default_provider()
    }
    .install_default()
    .expect("the first process default of this test binary");
    // The mock's server side has a provider of its own (tests/mock-gateway/src/tls.rs).
    let ca = TestCa::new("gw test CA (process provider)");
    let mock = MockGateway::start_tls(&ca.server(&["127.0.0.1"]));
    let c = Client::new(options_for(&mock, json!({"ca_pem": ca.cert_pem()}))).unwrap();
    let before = DRAWS.load(Ordering::SeqCst);
    let answer = c.call(&ops::CHAT, &[], Some(&chat("hi"))).unwrap();
    assert!(answer.contains("Echo: hi"), "{answer}");
    assert!(
        DRAWS.load(Ordering::SeqCst) > before,
        "the handshake drew no random bytes through the installed provider"
    );
}
