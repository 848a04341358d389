//! The panic boundary and the `*out` contract shared by every export.

use std::ffi::c_char;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{Error, GW_ABSENT, GW_INTERNAL, GW_OK};

use super::error_slot::set_last_error;

/// Runs an export's body: `*out` gets the answer on success or the error JSON
/// on failure (never a partial result); the status is returned. Everything,
/// the bookkeeping after the body included, runs inside the panic guard.
pub(crate) fn call(out: *mut *mut c_char, body: impl FnOnce() -> Result<String, Error>) -> c_int {
    call_or_absent(out, || body().map(Some))
}

/// As `call`, for an export that may find nothing (`gw_json_get`): `Ok(None)`
/// returns `GW_ABSENT` with `*out` NULL, which is not a failure (the thread's
/// last error is left alone).
pub(crate) fn call_or_absent<T: AsRef<str>>(
    out: *mut *mut c_char,
    body: impl FnOnce() -> Result<Option<T>, Error>,
) -> c_int {
    let guarded = catch_unwind(AssertUnwindSafe(|| {
        if !out.is_null() {
            // SAFETY: the caller passes NULL or a writable `char **` (header contract).
            unsafe { *out = std::ptr::null_mut() };
        }
        let give = |text: &str| {
            if !out.is_null() {
                // SAFETY: as above.
                unsafe { *out = malloc_string(text) };
            }
        };
        let result =
            catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| Err(panic_error(panic)));
        match result {
            Ok(Some(text)) => {
                give(text.as_ref());
                GW_OK
            }
            Ok(None) => GW_ABSENT,
            Err(e) => failed(out, e),
        }
    }));
    guarded.unwrap_or(GW_INTERNAL)
}

/// As `call`, for an answer the export only borrows: written out as it is, with
/// no copy of it made first.
pub(crate) fn call_borrowed<'t>(
    out: *mut *mut c_char,
    body: impl FnOnce() -> Result<&'t str, Error>,
) -> c_int {
    call_or_absent(out, || body().map(Some))
}

/// For exports whose success has no text (creating a handle): on success
/// `*err_out` is NULL, on failure it gets the error JSON; the status is returned.
pub(crate) fn report(err_out: *mut *mut c_char, body: impl FnOnce() -> Result<(), Error>) -> c_int {
    let guarded = catch_unwind(AssertUnwindSafe(|| {
        if !err_out.is_null() {
            // SAFETY: the caller passes NULL or a writable `char **` (header contract).
            unsafe { *err_out = std::ptr::null_mut() };
        }
        let result =
            catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| Err(panic_error(panic)));
        match result {
            Ok(()) => GW_OK,
            Err(e) => failed(err_out, e),
        }
    }));
    guarded.unwrap_or(GW_INTERNAL)
}

/// A failure reported: the thread's last error set, `*out` (unless NULL) given the
/// error JSON, the status returned. One copy for every export, not one per guard's
/// instantiation (the failure path is cold); still called inside the guard.
#[cold]
#[inline(never)]
fn failed(out: *mut *mut c_char, e: Error) -> c_int {
    set_last_error(&e.to_string());
    if !out.is_null() {
        // SAFETY: the caller passes NULL or a writable `char **` (header contract).
        unsafe { *out = malloc_string(&e.to_json()) };
    }
    e.status()
}

/// For exports that return a value instead of a status: a panic becomes `fallback`.
pub(crate) fn catch<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        // Guarded too: a panic while reporting a panic must not unwind into C.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            set_last_error(&panic_error(panic).to_string())
        }));
        fallback
    })
}

#[cold]
#[inline(never)]
pub(crate) fn panic_error(panic: Box<dyn std::any::Any + Send>) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    Error::Internal(format!("panic caught at the C boundary: {what}"))
}

/// A NUL-terminated copy in `malloc`ed memory, released by `gw_free`. An
/// interior NUL (impossible in JSON text) is replaced so C sees the whole text.
/// Not inlined: every export would otherwise carry its own copy of the loop.
#[inline(never)]
pub(crate) fn malloc_string(text: &str) -> *mut c_char {
    let bytes = text.as_bytes();
    // SAFETY: malloc of len + 1; NULL is checked before writing.
    unsafe {
        let p = libc::malloc(bytes.len() + 1) as *mut u8;
        if p.is_null() {
            return std::ptr::null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        for i in 0..bytes.len() {
            if *p.add(i) == 0 {
                *p.add(i) = b' ';
            }
        }
        *p.add(bytes.len()) = 0;
        p as *mut c_char
    }
}
