//! Creating and freeing clients.

use std::ffi::c_char;

use crate::error::Error;
use crate::{Client, Options};

use super::args;
use super::guard::catch;
use super::last_error::set_last_error;

/// An opaque gateway client.
///
/// Thread rules: a client may be used from many threads at once; calls on it
/// are independent and share one connection pool. Free it once, after every
/// call on it has returned.
pub struct gw_client {
    pub(crate) client: Client,
}

fn boxed(result: Result<Client, Error>) -> *mut gw_client {
    match result {
        Ok(client) => Box::into_raw(Box::new(gw_client { client })),
        Err(e) => {
            set_last_error(&e.to_string());
            std::ptr::null_mut()
        }
    }
}

/// Creates a client with default options.
///
/// `base_url` and `api_key` may be NULL: they then come from the environment
/// variables `GW_BASE_URL` and `GW_API_KEY`. The base URL may end in `/` or
/// `/v1`. Plain `http://` is refused unless the host is loopback (see
/// `gw_client_new_with_options` for `allow_insecure_http`).
///
/// Returns a client to free with `gw_client_free`, or NULL when the arguments
/// are unusable; `gw_last_error()` then says why (never with the key in it).
/// The strings are copied: they need not outlive the call.
#[no_mangle]
pub unsafe extern "C" fn gw_client_new(
    base_url: *const c_char,
    api_key: *const c_char,
) -> *mut gw_client {
    catch(std::ptr::null_mut(), || {
        let made = (|| {
            let options = Options {
                base_url: args::optional_text(base_url, "base_url")?.map(String::from),
                api_key: args::optional_text(api_key, "api_key")?.map(String::from),
                ..Options::default()
            };
            Client::new(options)
        })();
        boxed(made)
    })
}

/// Creates a client from options JSON (NULL or "" for all defaults):
///
/// `{"base_url", "api_key", "connect_timeout_ms": 10000, "read_timeout_ms": 60000,
///   "total_timeout_ms": 600000, "max_retries": 2, "retry_base_delay_ms": 500,
///   "retry_max_delay_ms": 8000, "retry_after_cap_ms": 60000, "proxy": null,
///   "headers": {}, "validate": true, "allow_insecure_http": false,
///   "max_response_bytes": 67108864, "max_line_bytes": 4194304, "user_agent": null}`
///
/// A timeout of 0 means none. Unknown keys are an error (a typo is not
/// ignored). Returns NULL on bad options; `gw_last_error()` says which.
#[no_mangle]
pub unsafe extern "C" fn gw_client_new_with_options(options_json: *const c_char) -> *mut gw_client {
    catch(std::ptr::null_mut(), || {
        let made = (|| {
            let json = args::optional_text(options_json, "options_json")?.unwrap_or("");
            Client::new(Options::from_json(json)?)
        })();
        boxed(made)
    })
}

/// Frees a client. Calling with NULL is fine. Must not be called twice with
/// the same pointer, nor while another thread is inside a call on it.
#[no_mangle]
pub unsafe extern "C" fn gw_client_free(client: *mut gw_client) {
    catch((), || {
        if !client.is_null() {
            drop(Box::from_raw(client));
        }
    })
}
