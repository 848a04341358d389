//! A client through the C ABI, as C, Go, Kotlin and Swift callers hold one: the
//! request goes in as a C string, so gw reads the caller's own bytes.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr;

use gw::ffi::{self, gw_client, gw_event};
use gw_mock::MockGateway;

pub struct CClient(pub *mut gw_client);

impl CClient {
    /// On the mock with no retries, plus `extra` options (`,"validate":false`, ...).
    pub fn new(mock: &MockGateway, extra: &str) -> CClient {
        CClient::with_options(&format!(
            r#"{{"base_url":"{}","api_key":"{}","max_retries":0{extra}}}"#,
            mock.url(),
            mock.api_key()
        ))
    }

    /// From a whole options object.
    pub fn with_options(options: &str) -> CClient {
        let options = CString::new(options).unwrap();
        let c = unsafe { ffi::gw_client_new_with_options(options.as_ptr()) };
        assert!(!c.is_null(), "the options were refused");
        CClient(c)
    }

    /// The status and `*out` of a call taking (client, json, out).
    pub fn run(
        &self,
        f: unsafe extern "C" fn(*const gw_client, *const c_char, *mut *mut c_char) -> c_int,
        json: &str,
    ) -> (c_int, String) {
        let json = CString::new(json).unwrap();
        let mut out: *mut c_char = ptr::null_mut();
        let status = unsafe { f(self.0, json.as_ptr(), &mut out) };
        (status, take(out))
    }

    /// `gw_chat_stream` of `json`, counting events: the status, the final object
    /// (or the error) and how many events the callback saw.
    pub fn stream(&self, json: &str) -> (c_int, String, usize) {
        let json = CString::new(json).unwrap();
        let mut events = 0usize;
        let mut out = ptr::null_mut();
        let status = unsafe {
            ffi::gw_chat_stream(
                self.0,
                json.as_ptr(),
                Some(count),
                &mut events as *mut usize as *mut c_void,
                &mut out,
            )
        };
        (status, take(out), events)
    }
}

unsafe extern "C" fn count(_ev: *const gw_event, user_data: *mut c_void) -> c_int {
    *(user_data as *mut usize) += 1;
    0
}

impl Drop for CClient {
    fn drop(&mut self) {
        unsafe { ffi::gw_client_free(self.0) }
    }
}

/// The text of a string gw returned, freed; empty for NULL.
pub fn take(out: *mut c_char) -> String {
    if out.is_null() {
        return String::new();
    }
    let text = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
    unsafe { ffi::gw_free(out.cast()) };
    text
}
