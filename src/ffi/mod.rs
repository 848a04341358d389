//! The `extern "C"` surface only: argument checks, marshalling and the panic
//! guard. Nothing here knows about HTTP; nothing below here knows about C.
//!
//! Every exported function runs its body through `guard::call` (or
//! `guard::catch` for the few that return a pointer), so no panic unwinds into C.

#![allow(non_camel_case_types)]
// The pointer rules (NULL or valid for the call, NUL-terminated UTF-8, `*out`
// freed with gw_free) are stated once in the header preamble and per function
// in plain words for C readers, rather than as rustdoc `# Safety` sections.
#![allow(clippy::missing_safety_doc)]

mod args;
mod chat;
mod client;
mod embeddings;
mod error_slot;
mod event;
mod event_buffers;
mod exchange;
mod exchange_head;
mod exchange_wait;
mod guard;
mod handle;
mod images;
mod json;
mod last_error;
mod log;
mod misc;
mod observe;
mod op;
mod request;
mod stream;
mod user_data;
mod vendor;
mod video;
mod wait;

pub use chat::*;
pub use client::*;
pub use embeddings::*;
pub use event::*;
pub use exchange::*;
pub use exchange_wait::*;
pub use handle::*;
pub use images::*;
pub use json::*;
pub use last_error::*;
pub use log::*;
pub use misc::*;
pub use observe::*;
pub use request::*;
pub use stream::*;
pub use vendor::*;
pub use video::*;
pub use wait::*;
