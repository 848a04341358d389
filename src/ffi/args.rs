//! Reading C arguments: NULL checks, UTF-8 and JSON, each failure naming the argument.

use std::ffi::{c_char, CStr, CString};
use std::sync::Arc;

use serde_json::Value;

use crate::api::raw_json::{JsonText, Unscanned};
use crate::error::Error;

use super::handle::gw_client;

/// A C copy of `text` for a callback or `gw_last_error`. An interior NUL (JSON
/// text has none) becomes a space rather than cutting the text short.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// A required string argument.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string that outlives the call.
pub(crate) unsafe fn text<'a>(p: *const c_char, name: &str) -> Result<&'a str, Error> {
    optional_text(p, name)?
        .ok_or_else(|| Error::invalid_param(name, format!("{name}: must not be NULL")))
}

/// # Safety
/// As `text`.
pub(crate) unsafe fn optional_text<'a>(
    p: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    CStr::from_ptr(p).to_str().map(Some).map_err(|e| {
        Error::invalid_param(
            name,
            format!("{name}: is not valid UTF-8 (byte {})", e.valid_up_to()),
        )
    })
}

/// A required JSON-object argument as the caller wrote it, for a request body:
/// its borrowed tree is checked and its bytes are sent unchanged. Errors word for
/// word as `json_value`'s. `spare` holds serde_json's rewriting of a text the scan
/// could not read (a bug in the scan: the body is then sent the old way).
///
/// # Safety
/// As `text`.
pub(crate) unsafe fn json_object<'a>(
    p: *const c_char,
    name: &str,
    spare: &'a mut String,
) -> Result<JsonText<'a>, Error> {
    // One pass over the C string for its length, UTF-8 and JSON; anything it does
    // not take is read again the long way, whose errors are the ones reported.
    if !p.is_null() {
        if let Some(parsed) = JsonText::parse_c(p.cast()) {
            if parsed.root().is_object() {
                return Ok(parsed);
            }
        }
    }
    let s: &'a str = text(p, name)?;
    let parsed = match JsonText::parse(s) {
        Ok(parsed) => parsed,
        Err(Unscanned::Invalid(e)) => {
            return Err(Error::invalid_param(
                name,
                format!("{name}: invalid JSON ({e})"),
            ))
        }
        Err(Unscanned::Valid(v)) => {
            *spare = crate::api::json_text(&v);
            let spare: &'a String = spare;
            JsonText::parse(spare).map_err(|_| {
                Error::Internal(format!("{name}: the JSON text could not be scanned"))
            })?
        }
    };
    if !parsed.root().is_object() {
        return Err(Error::invalid_param(
            name,
            format!("{name}: must be a JSON object"),
        ));
    }
    Ok(parsed)
}

/// A required JSON-object argument as a tree (the fields of a multipart form).
///
/// # Safety
/// As `text`.
pub(crate) unsafe fn json_value(p: *const c_char, name: &str) -> Result<Value, Error> {
    let s = text(p, name)?;
    let v: Value = serde_json::from_str(s)
        .map_err(|e| Error::invalid_param(name, format!("{name}: invalid JSON ({e})")))?;
    if !v.is_object() {
        return Err(Error::invalid_param(
            name,
            format!("{name}: must be a JSON object"),
        ));
    }
    Ok(v)
}

/// The handle for the length of one call: a counted reference, so that a
/// `gw_client_free` during the call (from a callback, a finalizer) takes effect
/// when the call returns instead of freeing what it uses.
///
/// # Safety
/// `c` is NULL or a pointer from `gw_client_new*`/`gw_client_create*`/
/// `gw_client_derive` not yet freed.
pub(crate) unsafe fn client(c: *const gw_client) -> Result<Arc<gw_client>, Error> {
    if c.is_null() {
        return Err(Error::invalid_param("client", "client: must not be NULL"));
    }
    // SAFETY: `c` came from Arc::into_raw (gw_client::into_raw) and is still counted.
    Arc::increment_strong_count(c);
    Ok(Arc::from_raw(c))
}

/// Writes `value` to `*slot` when `slot` is not NULL.
///
/// # Safety
/// `slot` is NULL or writable.
pub(crate) unsafe fn put<T>(slot: *mut T, value: T) {
    if !slot.is_null() {
        *slot = value;
    }
}
