//! Events without HTTP: the SSE parser (`sse`), the fast reading of a chunk
//! (`chunk_scan`), the chat completion a streamed answer stands for
//! (`chat_assembly`) and the driver that turns events into callbacks and a
//! final object (`driver`). Reads any `BufRead`; knows nothing of the client,
//! the network or ureq.

pub(crate) mod chat_assembly;
pub(crate) mod chunk_scan;
pub(crate) mod driver;
pub(crate) mod json_cursor;
pub mod sse;
