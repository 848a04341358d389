//! Like every Rust staticlib, this one carries its own copy of std and of the allocator
//! shims: the symbols that clash with a libgw.a exporting more than `gw_*`.

use std::ffi::{c_char, CStr};

/// Number of whitespace-separated words in `text` (0 for NULL or invalid UTF-8). Allocates,
/// so the program really runs this library's allocator shim beside gw's.
///
/// # Safety
/// `text` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn neighbour_word_count(text: *const c_char) -> usize {
    if text.is_null() {
        return 0;
    }
    match CStr::from_ptr(text).to_str() {
        Ok(s) => s.split_whitespace().map(str::to_owned).collect::<Vec<_>>().len(),
        Err(_) => 0,
    }
}
