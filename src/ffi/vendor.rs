//! Vendor operations (neutral names as in the API document) and the native
//! `generateContent` format. Ownership, errors and threads as `gw_chat`.
//! Vendor H and vendor M report failure in a 200 body: their `code` other than
//! success (H: 0, M: 1) is `GW_VENDOR`, with the vendor's body in `*out`.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::api::ops;

use super::handle::gw_client;
use super::op::json_op;

/// POST /vendorK/v1/videos/text2video. Poll with `GW_VIDEO_VENDOR_K`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_k_text2video(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_K_TEXT2VIDEO, &[], request_json, out)
}

/// POST /vendorK/v1/videos/image2video. Poll with `GW_VIDEO_VENDOR_K`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_k_image2video(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_K_IMAGE2VIDEO, &[], request_json, out)
}

/// POST /vendorK/v1/videos/multi-image2video. Poll with `GW_VIDEO_VENDOR_K`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_k_multi_image2video(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(
        client,
        &ops::VENDOR_K_MULTI_IMAGE2VIDEO,
        &[],
        request_json,
        out,
    )
}

/// POST /vendorK/video/effects: `{"video": URL, "effect"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_k_effects(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_K_EFFECTS, &[], request_json, out)
}

/// POST /vendorK/video/extend: `{"video_id"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_k_extend(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_K_EXTEND, &[], request_json, out)
}

/// POST /vendorH/image-to-video: `{"image_url","prompt","model","duration","aspect_ratio"}`.
/// `code` != 0 in the answer is `GW_VENDOR`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_h_image_to_video(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(
        client,
        &ops::VENDOR_H_IMAGE_TO_VIDEO,
        &[],
        request_json,
        out,
    )
}

/// POST /vendorM/submit/imagine: `{"prompt","botType","base64Array","notifyHook","state"}`.
/// `code` != 1 in the answer is `GW_VENDOR`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_m_imagine(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_M_IMAGINE, &[], request_json, out)
}

/// POST /vendorI/describe: `{"image": URL}`. `*out`: `{"descriptions": [...]}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_i_describe(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_I_DESCRIBE, &[], request_json, out)
}

/// POST /vendorI/generate: `{"prompt","aspect_ratio"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_i_generate(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_I_GENERATE, &[], request_json, out)
}

/// POST /vendorI/text-to-image: `{"prompt"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_i_text_to_image(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VENDOR_I_TEXT_TO_IMAGE, &[], request_json, out)
}

/// POST /vendorF/{model_slug}/edit: `{"image": URL, "prompt"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_vendor_f_edit(
    client: *const gw_client,
    model_slug: *const c_char,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(
        client,
        &ops::VENDOR_F_EDIT,
        &[(model_slug, "model_slug")],
        request_json,
        out,
    )
}

/// POST /v1beta/models/{model}:generateContent (native format):
/// `{"contents","tools","generationConfig"}`. The key goes in `?key=`, never
/// in a header, and never appears in an error or `gw_last_error()`.
/// `*out`: `{"candidates": [...]}`; a `functionCall` part asks the caller to
/// run the function and send its result back in a later call.
#[no_mangle]
pub unsafe extern "C" fn gw_generate_content(
    client: *const gw_client,
    model: *const c_char,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(
        client,
        &ops::GENERATE_CONTENT,
        &[(model, "model")],
        request_json,
        out,
    )
}
