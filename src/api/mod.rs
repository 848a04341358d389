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

/// A value's compact JSON text, the same as `Value::to_string`, written by serde_json's byte
/// writer: the library then holds no second copy of the serializer (compact and pretty) behind
/// `Value`'s `Display` (about 10 KB). A `Value` always serializes (its keys are strings).
pub(crate) fn json_text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
