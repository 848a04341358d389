//! `gw_last_error`: the calling thread's last error message, kept by
//! error_slot.rs (which says why it is reached with `try_with` only).

use std::ffi::c_char;

use super::error_slot::LAST_ERROR;
use super::guard::catch;

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
