//! The `user_data` pointer a caller gives with a callback, handed back as given.

use std::ffi::c_void;

/// A caller's `user_data`: gw never reads it, only passes it back to the
/// caller's callback, on whatever thread calls that callback.
pub(crate) struct UserData(pub(crate) *mut c_void);

// SAFETY: gw only hands the pointer back to the caller's callback; what it points
// to and its thread rules are the caller's (as for every callback's user data).
unsafe impl Send for UserData {}
unsafe impl Sync for UserData {}

impl UserData {
    // A method, not `.0`: a closure using `.0` would capture the bare (non-Send) field.
    pub(crate) fn get(&self) -> *mut c_void {
        self.0
    }
}
