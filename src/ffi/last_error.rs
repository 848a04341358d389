//! The calling thread's last error message (as libgit2 and sqlite keep it).

use std::cell::RefCell;
use std::ffi::{c_char, CString};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) fn set_last_error(message: &str) {
    let text = super::args::c_string(message);
    LAST_ERROR.with(|slot| *slot.borrow_mut() = text);
}

/// The message of the calling thread's most recent failed gw call, or "" when
/// none failed yet. Never NULL.
///
/// The pointer is owned by gw and stays valid until the next gw call on the
/// same thread; copy it to keep it. Do not free it. Each thread has its own.
///
/// A C convenience only: bindings whose calls may change OS threads (Go,
/// Kotlin coroutines, Swift tasks) read every failure from out-parameters
/// instead: `*out` of each call, `gw_client_create`, `gw_client_create_derived`,
/// `gw_stream_finish`.
#[no_mangle]
pub extern "C" fn gw_last_error() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}
