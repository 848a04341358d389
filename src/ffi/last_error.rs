//! The calling thread's last error message (as libgit2 and sqlite keep it).
//!
//! Reached with `try_with` only: gw may be called from a thread-key destructor
//! after this thread's Rust thread-locals are gone, and `with` would panic
//! there (an abort at the C boundary). Then the message is simply not kept.

use std::cell::RefCell;
use std::ffi::{c_char, CString};

use super::guard::catch;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` as this thread's last error; does nothing (never panics)
/// when the thread-local is already destroyed.
pub(crate) fn set_last_error(message: &str) {
    let text = super::args::c_string(message);
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = text;
        }
    });
}

/// The message of the calling thread's most recent failed gw call, or "" when
/// none failed yet. Never NULL.
///
/// The pointer is owned by gw and stays valid until the next gw call on the
/// same thread; copy it to keep it. Do not free it. Each thread has its own.
/// Called while the thread is exiting (from a thread-key destructor) it may
/// return "" (static) instead.
///
/// A C convenience only: bindings whose calls may change OS threads (Go,
/// Kotlin coroutines, Swift tasks) read every failure from out-parameters
/// instead: `*out` of each call, `gw_client_create`, `gw_client_create_derived`,
/// `gw_stream_finish`.
#[no_mangle]
pub extern "C" fn gw_last_error() -> *const c_char {
    const EMPTY: *const c_char = c"".as_ptr();
    catch(EMPTY, || {
        LAST_ERROR
            .try_with(|slot| slot.try_borrow().map(|s| s.as_ptr()).unwrap_or(EMPTY))
            .unwrap_or(EMPTY)
    })
}
