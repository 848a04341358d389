//! What the gateway offers, as data: the operation table (`ops`), the
//! documented limits (`rules`) and the checks that apply them (`validate`) to a
//! request body read on a borrowed scan (`raw_json`), and multipart forms
//! (`multipart`). Knows nothing of the client, the network or ureq.

pub(crate) mod multipart;
pub mod ops;
pub(crate) mod raw_json;
pub(crate) mod rules;
pub(crate) mod utf8_check;
pub mod validate;
