//! The one path every JSON operation export takes.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::api::ops::{BodyKind, Operation};
use crate::error::Error;

use super::args;
use super::guard::call;
use super::handle::gw_client;

/// Reads the client, the path parameters (each named for its error) and the
/// request JSON, then runs the operation row.
pub(crate) unsafe fn json_op(
    client: *const gw_client,
    op: &Operation,
    params: &[(*const c_char, &str)],
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        let mut values = Vec::with_capacity(params.len());
        for (p, name) in params {
            let value = args::text(*p, name)?;
            // Named after the C argument here; below, only the template's name is known.
            if value.is_empty() {
                return Err(Error::invalid_param(
                    name,
                    format!("{name}: must be a non-empty string"),
                ));
            }
            values.push(value);
        }
        let mut spare = String::new();
        let body = match op.body {
            BodyKind::None => None,
            _ => Some(args::json_object(request_json, "request_json", &mut spare)?),
        };
        client.call_text(op, &values, body.as_ref())
    })
}
