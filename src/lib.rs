//! `gw`: an embeddable client for the Unified Generative-Model Gateway.
//!
//! A blocking Rust core (ureq + rustls) with a C ABI (`gw_*`, see
//! `include/gw.h`). The Rust API is the same machinery without the C
//! marshalling:
//!
//! ```no_run
//! use gw::{Client, Options, ops};
//! let client = Client::new(Options {
//!     base_url: Some("https://gateway.example".into()),
//!     api_key: Some("sk-...".into()),
//!     ..Options::default()
//! })?;
//! let body = serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}]});
//! let completion = client.call(&ops::CHAT, &[], Some(&body))?;
//! # Ok::<(), gw::Error>(())
//! ```

// The JNI entry point of GwAndroid.init (Kotlin binding): Android builds only.
#[cfg(target_os = "android")]
mod android;
mod api;
mod client;
mod error;
pub mod ffi;
// The bodies of the cargo-fuzz targets (fuzz/), replayed by tests/fuzz_corpus.rs: not API.
#[doc(hidden)]
pub mod fuzzing;
pub mod log;
mod net;
mod redact;
mod stream;

pub use api::{ops, validate};
pub use stream::sse;

pub use api::multipart::{EncodedForm, FilePart, Form, FormReader};
pub use client::call_options::CallOptions;
pub use client::event_stream::EventStream;
pub use client::meta::ResponseMeta;
pub use client::observe::{AttemptEvent, AttemptPhase, Observer};
pub use client::options::{BaseUrl, Options};
pub use client::tasks::{phase_of, Phase, TaskFamily, WaitOptions, MIN_POLL_INTERVAL};
pub use client::Client;
pub use error::*;
pub use stream::driver::StreamEvent;

/// The library version (`gw_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

// Seeded inputs for tests that compare a fast way with its plain definition.
#[cfg(test)]
mod test_rng;
