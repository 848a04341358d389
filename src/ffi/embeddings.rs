//! Embeddings, and decoding the base64 form into floats.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::api::ops;
use crate::error::Error;

use super::args;
use super::guard::report;
use super::handle::gw_client;
use super::op::json_op;

/// POST /v1/embeddings: `{"model","input","encoding_format","dimensions"}`.
/// `*out`: the embedding list. Ownership, errors and threads as `gw_chat`.
#[no_mangle]
pub unsafe extern "C" fn gw_embeddings(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::EMBEDDINGS, &[], request_json, out)
}

/// Decodes an embedding returned with `"encoding_format": "base64"` (little-endian
/// float32s) into `*out_floats` (`*out_len` values), freed with `gw_free`.
///
/// Returns `GW_OK`, or `GW_INVALID_ARGUMENT` for NULL pointers, invalid base64 or
/// a byte count that is not a multiple of 4 (`gw_last_error()` says which).
/// Bindings use `gw_embedding_decode_err`, which returns the error as JSON.
#[no_mangle]
pub unsafe extern "C" fn gw_embedding_decode(
    base64: *const c_char,
    out_floats: *mut *mut f32,
    out_len: *mut usize,
) -> c_int {
    gw_embedding_decode_err(base64, out_floats, out_len, std::ptr::null_mut())
}

/// `gw_embedding_decode` reporting through out-parameters only (see
/// `gw_client_create`), for bindings whose calls may change OS threads.
///
/// Returns `GW_OK` with `*out_floats` (`*out_len` values, freed with `gw_free`;
/// an empty embedding still gives a non-NULL pointer) and `*err_json` NULL, or
/// a status with `*out_floats` NULL, `*out_len` 0 and the error JSON
/// `{"error":{"message","type","code","status","param"}}` in `*err_json`:
/// `GW_INVALID_ARGUMENT` for a NULL `base64`, `out_floats` or `out_len`,
/// invalid base64 or a byte count that is not a multiple of 4. `*err_json` is
/// freed with `gw_free`; `err_json` may be NULL. Safe from any thread.
#[no_mangle]
pub unsafe extern "C" fn gw_embedding_decode_err(
    base64: *const c_char,
    out_floats: *mut *mut f32,
    out_len: *mut usize,
    err_json: *mut *mut c_char,
) -> c_int {
    args::put(out_floats, std::ptr::null_mut());
    args::put(out_len, 0);
    report(err_json, || {
        if out_floats.is_null() || out_len.is_null() {
            let name = if out_floats.is_null() {
                "out_floats"
            } else {
                "out_len"
            };
            return Err(Error::invalid_param(
                name,
                "out_floats and out_len must not be NULL",
            ));
        }
        let floats = decode_floats(args::text(base64, "base64")?)?;
        let bytes = floats.len().max(1) * std::mem::size_of::<f32>();
        let p = libc::malloc(bytes) as *mut f32;
        if p.is_null() {
            return Err(Error::Internal("out of memory".into()));
        }
        std::ptr::copy_nonoverlapping(floats.as_ptr(), p, floats.len());
        *out_floats = p;
        *out_len = floats.len();
        Ok(())
    })
}

pub(crate) fn decode_floats(text: &str) -> Result<Vec<f32>, Error> {
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| Error::invalid_param("base64", format!("base64: not valid base64 ({e})")))?;
    if bytes.len() % 4 != 0 {
        return Err(Error::invalid_param(
            "base64",
            format!(
                "base64: {} bytes is not a whole number of float32 values",
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_little_endian_floats() {
        // 1.0f32 = 00 00 80 3f, -2.0f32 = 00 00 00 c0
        assert_eq!(decode_floats("AACAPwAAAMA=").unwrap(), vec![1.0, -2.0]);
        assert!(decode_floats("AACA").is_err());
        assert!(decode_floats("!!").is_err());
    }
}
