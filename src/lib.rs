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

mod call_options;
mod cancel;
mod chat_assembly;
mod chunk_scan;
mod client;
mod error;
mod event_stream;
pub mod ffi;
mod headers;
mod idempotency;
pub mod log;
mod meta;
mod multipart;
pub mod ops;
mod options;
mod pid;
pub(crate) mod raw_json;
mod redact;
mod redirect;
mod retry;
mod route;
mod rules;
pub mod sse;
mod stream;
mod tasks;
mod tls;
mod transport;
mod transport_error;
pub mod validate;

pub use call_options::CallOptions;
pub use client::Client;
pub use error::*;
pub use event_stream::EventStream;
pub use meta::ResponseMeta;
pub use multipart::{EncodedForm, FilePart, Form, FormReader};
pub use options::{BaseUrl, Options};
pub use stream::StreamEvent;
pub use tasks::{phase_of, Phase, TaskFamily, WaitOptions, MIN_POLL_INTERVAL};

/// The library version (`gw_version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
