//! Image generation and editing.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::api::multipart::{FilePart, Form};
use crate::api::ops;
use crate::error::Error;

use super::args;
use super::guard::call;
use super::handle::gw_client;
use super::op::json_op;

/// A file given from memory for a multipart upload. gw reads it during the
/// call only and never frees it.
///
/// Set `struct_size` to `sizeof(gw_file)` before the other fields: it tells gw
/// which version of the struct the caller was built with, so fields can be
/// added at the end later. A size gw does not know is `GW_INVALID_ARGUMENT`.
#[repr(C)]
pub struct gw_file {
    /// Must be `sizeof(gw_file)`.
    pub struct_size: usize,
    /// The bytes; must not be NULL.
    pub data: *const u8,
    pub len: usize,
    /// File name sent in the form, e.g. "photo.png"; NULL gives "image.png".
    pub filename: *const c_char,
    /// MIME type, e.g. "image/png"; NULL gives "application/octet-stream".
    pub content_type: *const c_char,
}

/// POST /v1/images/generations: `{"model","prompt","size","seed","guidance_scale",...}`.
/// `*out`: the image result (`created`, `data[].url`, `model`, `usage`).
/// Ownership, errors and threads as `gw_chat`.
#[no_mangle]
pub unsafe extern "C" fn gw_image_generate(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::IMAGE_GENERATE, &[], request_json, out)
}

/// POST /v1/images/edits in its JSON form, `image` (and `mask`) given as URLs.
/// `*out`: the image result (`data[].url`, `data[].revised_prompt`).
#[no_mangle]
pub unsafe extern "C" fn gw_image_edit(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::IMAGE_EDIT, &[], request_json, out)
}

/// POST /v1/images/edits as multipart/form-data: the fields of `request_json`
/// (`model`, `prompt`, `n`, `size`, ...) as text parts, then `image` and, when
/// not NULL, `mask` as file parts. `image` must not be NULL.
#[no_mangle]
pub unsafe extern "C" fn gw_image_edit_upload(
    client: *const gw_client,
    request_json: *const c_char,
    image: *const gw_file,
    mask: *const gw_file,
    out: *mut *mut c_char,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        let form = upload_form(request_json, image, mask)?;
        client.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
    })
}

/// The image edit's multipart form: the fields of `request_json` as text parts,
/// then `image` (required) and `mask` (NULL: none) as file parts. Shared by the
/// blocking call and the exchange's constructor.
pub(crate) unsafe fn upload_form<'a>(
    request_json: *const c_char,
    image: *const gw_file,
    mask: *const gw_file,
) -> Result<Form<'a>, Error> {
    let fields = args::json_value(request_json, "request_json")?;
    let mut form = Form::from_fields(&fields)?;
    let image = image
        .as_ref()
        .ok_or_else(|| Error::invalid_param("image", "image: must not be NULL"))?;
    form.add_file(file_part(image, "image")?)?;
    if let Some(mask) = mask.as_ref() {
        form.add_file(file_part(mask, "mask")?)?;
    }
    Ok(form)
}

unsafe fn file_part<'a>(file: &'a gw_file, field: &str) -> Result<FilePart<'a>, Error> {
    // struct_size is the first field, so reading it is safe whatever version the
    // caller has; the other fields are read only once the size is known.
    let known = std::mem::size_of::<gw_file>();
    if file.struct_size != known {
        let name = format!("{field}.struct_size");
        return Err(Error::invalid_param(
            &name,
            format!(
                "{name}: is {}, expected sizeof(gw_file) = {known}",
                file.struct_size
            ),
        ));
    }
    if file.data.is_null() {
        return Err(Error::invalid_param(
            field,
            format!("{field}.data: must not be NULL"),
        ));
    }
    let filename = args::optional_text(file.filename, &format!("{field}.filename"))?;
    let content_type = args::optional_text(file.content_type, &format!("{field}.content_type"))?;
    Ok(FilePart {
        field: field.to_string(),
        filename: filename
            .unwrap_or(if field == "mask" {
                "mask.png"
            } else {
                "image.png"
            })
            .to_string(),
        content_type: content_type
            .unwrap_or("application/octet-stream")
            .to_string(),
        bytes: std::slice::from_raw_parts(file.data, file.len),
    })
}
