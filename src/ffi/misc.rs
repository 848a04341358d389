//! Memory release, status names and the version.

use std::ffi::{c_char, c_void};
use std::os::raw::c_int;

use crate::error::status_str;

/// Frees memory gw returned (`*out` strings, decoded embeddings). Calling with
/// NULL is fine. Must not be called twice with the same pointer. Static strings
/// (`gw_status_str`, `gw_version`, `gw_last_error`) are never freed.
#[no_mangle]
pub unsafe extern "C" fn gw_free(ptr: *mut c_void) {
    if !ptr.is_null() {
        libc::free(ptr);
    }
}

/// The name of a status code, e.g. "GW_TIMEOUT"; "GW_HTTP_STATUS" for other
/// HTTP statuses, "GW_UNKNOWN" otherwise. Static: never freed, never NULL.
#[no_mangle]
pub extern "C" fn gw_status_str(status: c_int) -> *const c_char {
    // Each name is a static C string, so the pointer outlives every caller.
    macro_rules! c {
        ($($name:literal),*) => {
            match status_str(status) {
                $($name => concat!($name, "\0").as_ptr() as *const c_char,)*
                _ => "GW_UNKNOWN\0".as_ptr() as *const c_char,
            }
        };
    }
    c!(
        "GW_OK",
        "GW_DONE",
        "GW_ABSENT",
        "GW_WOULD_BLOCK",
        "GW_BAD_REQUEST",
        "GW_UNAUTHORIZED",
        "GW_FORBIDDEN",
        "GW_NOT_FOUND",
        "GW_RATE_LIMITED",
        "GW_SERVER_ERROR",
        "GW_INVALID_ARGUMENT",
        "GW_NETWORK",
        "GW_TIMEOUT",
        "GW_DECODE",
        "GW_CANCELLED",
        "GW_VENDOR",
        "GW_STREAM",
        "GW_TOO_LARGE",
        "GW_INTERNAL",
        "GW_HTTP_STATUS"
    )
}

/// The library version, e.g. "0.1.0". Static: never freed.
#[no_mangle]
pub extern "C" fn gw_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}
