//! The calling thread's last error message (as libgit2 and sqlite keep it): set
//! by every failed call (`set_last_error`), handed out by `gw_last_error`
//! (last_error.rs).
//!
//! Reached with `try_with` only: gw may be called from a thread-key destructor
//! after this thread's Rust thread-locals are gone, and `with` would panic
//! there (an abort at the C boundary). Then the message is simply not kept.

use std::cell::RefCell;
use std::ffi::CString;

use super::args;

thread_local! {
    pub(super) static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Keeps `message` as this thread's last error; does nothing (never panics)
/// when the thread-local is already destroyed.
pub(crate) fn set_last_error(message: &str) {
    let text = args::c_string(message);
    let _ = LAST_ERROR.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            *slot = text;
        }
    });
}
