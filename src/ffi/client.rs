//! Creating, deriving, cancelling and freeing clients, and their last response.

use std::ffi::c_char;
use std::os::raw::c_int;
use std::sync::Arc;

use crate::error::Error;
use crate::{CallOptions, Client, Options};

use super::args;
use super::error_slot::set_last_error;
use super::guard::{call, catch, report};
use super::handle::gw_client;

fn handed_out(result: Result<Client, Error>) -> *mut gw_client {
    match result {
        Ok(client) => gw_client::into_raw(client),
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
/// Bindings use `gw_client_create`, which returns the error as JSON instead.
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
        handed_out(made)
    })
}

/// Creates a client from options JSON (NULL or "" for all defaults):
///
/// `{"base_url", "api_key", "connect_timeout_ms": 10000, "read_timeout_ms": 60000,
///   "total_timeout_ms": 600000, "max_retries": 2, "retry_base_delay_ms": 500,
///   "retry_max_delay_ms": 8000, "retry_after_cap_ms": 60000, "proxy": null,
///   "headers": {}, "validate": true, "allow_insecure_http": false,
///   "max_response_bytes": 67108864, "max_line_bytes": 4194304, "user_agent": null,
///   "max_idle_connections": 16, "first_byte_timeout_ms": 600000,
///   "max_event_bytes": 8388608, "idempotency_keys": true,
///   "ca_file": null, "ca_pem": null, "tls_verifier": "webpki"}`
///
/// `headers` may not set what gw sets or what frames the message
/// (Authorization, Host, Content-Length, Content-Type, Accept,
/// Transfer-Encoding, Connection, User-Agent, ...); a header value or
/// `user_agent` with CR, LF or another control character is refused here, as
/// is a base URL with a space, a non-ASCII host or no host. `user_agent` is
/// appended to gw's own (`gw/<version> <user_agent>`). `ca_file` (a PEM
/// path) and `ca_pem` (PEM text) add CA certificates to the built-in roots;
/// with neither, `SSL_CERT_FILE` / `SSL_CERT_DIR` are read. `tls_verifier`
/// `"platform"` uses the OS trust store (needs the cargo feature
/// `platform-verifier`). A `socks5://` proxy, from the option or the
/// environment, is refused: gw never goes around a proxy. Plain `http://` is
/// allowed to loopback only when the connection stays on loopback (no remote
/// proxy in between), or with `allow_insecure_http`.
///
/// A timeout of 0 means none. Unknown keys are an error (a typo is not
/// ignored). Returns NULL on bad options; `gw_last_error()` says which.
/// Bindings use `gw_client_create`.
#[no_mangle]
pub unsafe extern "C" fn gw_client_new_with_options(options_json: *const c_char) -> *mut gw_client {
    catch(std::ptr::null_mut(), || {
        let made = (|| {
            let json = args::optional_text(options_json, "options_json")?.unwrap_or("");
            Client::new(Options::from_json(json)?)
        })();
        handed_out(made)
    })
}

/// Creates a client from options JSON (as `gw_client_new_with_options`),
/// reporting through out-parameters only: the form for bindings, whose calls
/// may change OS threads between two native calls (so `gw_last_error` could
/// belong to another call).
///
/// Returns `GW_OK` with the new client in `*client` (free it with
/// `gw_client_free`), or a status with `*client` NULL and the error JSON in
/// `*err_json` (free it with `gw_free`; `err_json` may be NULL). `client` must
/// not be NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_client_create(
    options_json: *const c_char,
    client: *mut *mut gw_client,
    err_json: *mut *mut c_char,
) -> c_int {
    hand_out_into(client, err_json, || {
        let json = args::optional_text(options_json, "options_json")?.unwrap_or("");
        Client::new(Options::from_json(json)?)
    })
}

/// The out-parameter forms' shared path: `*client` NULL unless `make` succeeds,
/// the error JSON in `*err_json` otherwise.
pub(super) unsafe fn hand_out_into(
    client: *mut *mut gw_client,
    err_json: *mut *mut c_char,
    make: impl FnOnce() -> Result<Client, Error>,
) -> c_int {
    report(err_json, || {
        args::put(client, std::ptr::null_mut());
        if client.is_null() {
            return Err(Error::invalid_param("client", "client: must not be NULL"));
        }
        *client = gw_client::into_raw(make()?);
        Ok(())
    })
}

/// A new handle that shares `base`'s connection pool and settings, with
/// per-call overrides in `options_json` (NULL or "" for none):
///
/// `{"total_timeout_ms", "first_byte_timeout_ms", "read_timeout_ms",
///   "connect_timeout_ms", "max_retries", "headers": {...} (merged over the base's),
///   "idempotency_key" (sent as Idempotency-Key on POSTs), "validate",
///   "api_key" (this handle's key instead of the base's), "base_url" (this
///   handle's gateway address instead of the base's)}`
///
/// `api_key` and `base_url` are checked as the client options are (plain
/// http:// only to loopback unless the base allows it, through the base's
/// proxy rules); the key is never printed and, as the base's, goes only to the
/// handle's own origin (a redirect elsewhere is followed without it). The same
/// origin reuses the base's pooled connections; another origin gets its own in
/// the same pool. Unknown keys are refused. The new handle has its own cancel state
/// (`gw_client_cancel`) and last response (`gw_client_last_response`); it is
/// cheap (no new pool, no thread) and is freed with `gw_client_free`, before or
/// after `base`. Derive one per call to cancel it or read its metadata.
/// Returns NULL on bad options (`gw_last_error()` says why); bindings use
/// `gw_client_create_derived`.
#[no_mangle]
pub unsafe extern "C" fn gw_client_derive(
    base: *const gw_client,
    options_json: *const c_char,
) -> *mut gw_client {
    catch(std::ptr::null_mut(), || {
        handed_out(derive(base, options_json))
    })
}

/// `gw_client_derive` reporting through out-parameters only (see
/// `gw_client_create`): `GW_OK` with the handle in `*client`, or a status with
/// `*client` NULL and the error JSON in `*err_json` (may be NULL).
#[no_mangle]
pub unsafe extern "C" fn gw_client_create_derived(
    base: *const gw_client,
    options_json: *const c_char,
    client: *mut *mut gw_client,
    err_json: *mut *mut c_char,
) -> c_int {
    hand_out_into(client, err_json, || derive(base, options_json))
}

unsafe fn derive(base: *const gw_client, options_json: *const c_char) -> Result<Client, Error> {
    let base =
        args::client(base).map_err(|_| Error::invalid_param("base", "base: must not be NULL"))?;
    let json = args::optional_text(options_json, "options_json")?.unwrap_or("");
    base.derive(&CallOptions::from_json(json)?)
}

/// Cancels every call in flight on this handle, from any thread, at any time;
/// idempotent. Each returns `GW_CANCELLED` promptly (within tens of
/// milliseconds, whatever it is doing: resolving, connecting, TLS, sending,
/// waiting for the answer, reading a body or stream, sleeping before a retry or
/// between `gw_video_wait` polls); its connection is closed, never pooled.
/// Every later call on the handle returns `GW_CANCELLED` at once, and so does
/// `gw_stream_next` on a stream opened on it. The base handle and other
/// derived handles are not affected. NULL is fine (nothing happens).
///
/// The handle is `const` like in every other call: cancelling is a
/// thread-safe operation on a shared handle, not a change of its settings.
#[no_mangle]
pub unsafe extern "C" fn gw_client_cancel(client: *const gw_client) {
    catch((), || {
        if let Ok(client) = args::client(client) {
            client.cancel();
        }
    })
}

/// JSON about the last exchange finished on this handle, success or a failure
/// that got an HTTP answer:
/// `{"status":429,"request_id":"req_1"|null,"headers":{"x-ratelimit-remaining":"0",...},
///   "attempts":3,"elapsed_ms":812,"url":"https://gw.example/v1/chat/completions"}`
/// (header names in lower case; the URL never carries the key). `*out` is
/// `null` when no exchange has finished on it yet (or the last call got no
/// answer, e.g. a connection failure, before any other did).
///
/// On a handle shared by concurrent calls it describes whichever call
/// finished last: derive a handle per call (`gw_client_derive`) to read a
/// given call's metadata. Returns `GW_OK`; `*out` is freed with `gw_free`.
#[no_mangle]
pub unsafe extern "C" fn gw_client_last_response(
    client: *const gw_client,
    out: *mut *mut c_char,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        Ok(client.last_response_json())
    })
}

/// Frees a client handle. Calling with NULL is fine. Must not be called twice
/// with the same pointer. A call still running on it (on another thread, or
/// the call whose callback frees it) keeps it alive until it returns; streams
/// opened on it keep what they need, so they may outlive it.
#[no_mangle]
pub unsafe extern "C" fn gw_client_free(client: *mut gw_client) {
    catch((), || {
        if !client.is_null() {
            // SAFETY: from Arc::into_raw; this gives back the caller's reference.
            drop(Arc::from_raw(client as *const gw_client));
        }
    })
}
