//! Any method and path, for what has no named function.

use std::ffi::c_char;
use std::os::raw::c_int;

use super::args;
use super::guard::call;
use super::handle::gw_client;

/// Sends `method` ("GET" or "POST") to `path` (starting with "/", e.g.
/// "/v1/chat/completions" or "/vendorR/task/abc"; it may carry a query).
/// `body_json` is the JSON body for POST, NULL for GET. Auth is placed as the
/// API document says (`?key=` for `/v1beta/...`, Bearer elsewhere), so a path
/// carrying a `key` parameter of its own, in any spelling (`KEY`, `%6bey`), is
/// GW_INVALID_ARGUMENT; a path of a documented operation gets that operation's
/// limit checks and answer rules (vendor codes included), and a POST to it with
/// a NULL body is GW_INVALID_ARGUMENT (nothing sent). Spaces, control
/// characters and `#` are refused; bytes past ASCII are sent percent-encoded
/// (UTF-8), `%` escapes as written. Ownership, errors and threads as `gw_chat`.
#[no_mangle]
pub unsafe extern "C" fn gw_request(
    client: *const gw_client,
    method: *const c_char,
    path: *const c_char,
    body_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        let method = args::text(method, "method")?;
        let path = args::text(path, "path")?;
        let mut spare = String::new();
        let body = if body_json.is_null() {
            None
        } else {
            Some(args::json_object(body_json, "body_json", &mut spare)?)
        };
        client.request_text(method, path, body.as_ref())
    })
}
