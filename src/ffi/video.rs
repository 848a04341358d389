//! Video: the unified format, character videos, remix, and task status for
//! every video family.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::api::ops::{self, Operation};
use crate::client::tasks::TaskFamily;
use crate::error::Error;

use super::guard::call;
use super::handle::gw_client;
use super::op::json_op;

/// Unified video tasks: GET /v1/video/generations/{id}.
pub const GW_VIDEO_UNIFIED: c_int = 0;
/// Character videos: GET /v1/videos/{id}.
pub const GW_VIDEO_CHARACTER: c_int = 1;
/// Vendor K videos: GET /vendorK/v1/videos/{id}.
pub const GW_VIDEO_VENDOR_K: c_int = 2;
/// Vendor R tasks: GET /vendorR/task/{taskId}.
pub const GW_VIDEO_VENDOR_R: c_int = 3;

pub(crate) fn family_of(family: c_int) -> Result<TaskFamily, Error> {
    match family {
        GW_VIDEO_UNIFIED => Ok(TaskFamily::Unified),
        GW_VIDEO_CHARACTER => Ok(TaskFamily::Character),
        GW_VIDEO_VENDOR_K => Ok(TaskFamily::VendorK),
        GW_VIDEO_VENDOR_R => Ok(TaskFamily::VendorR),
        other => Err(Error::invalid_param(
            "family",
            format!("family: must be GW_VIDEO_UNIFIED, GW_VIDEO_CHARACTER, GW_VIDEO_VENDOR_K or GW_VIDEO_VENDOR_R (got {other})"),
        )),
    }
}

fn status_op(family: c_int) -> Result<&'static Operation, Error> {
    family_of(family).map(|f| f.status_op())
}

/// Queries a video task once. `family` is one of `GW_VIDEO_*`; `task_id` is
/// the id the create call returned (it is URL-encoded, so any text is safe).
/// `*out`: the task record as the gateway sent it. Ownership, errors and
/// threads as `gw_chat`. To poll until done, use `gw_video_wait`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_status(
    client: *const gw_client,
    family: c_int,
    task_id: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    match status_op(family) {
        Ok(op) => json_op(client, op, &[(task_id, "task_id")], std::ptr::null(), out),
        Err(e) => call(out, || Err(e)),
    }
}

/// POST /v1/video/create: `{"model","prompt","duration"}`. `*out`: `{"task_id","status"}`;
/// poll with `GW_VIDEO_UNIFIED`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_create(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VIDEO_CREATE, &[], request_json, out)
}

/// POST /v1/video/generations (unified format). Poll with `GW_VIDEO_UNIFIED`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_generate(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VIDEO_GENERATE, &[], request_json, out)
}

/// POST /v1/videos (video with a character): `{"model","prompt","character_id"}`.
/// `*out`: `{"id","status"}`; poll with `GW_VIDEO_CHARACTER`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_character(
    client: *const gw_client,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(client, &ops::VIDEO_CHARACTER, &[], request_json, out)
}

/// POST /v1/videos/{video_id}/remix: `{"prompt","size"}`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_remix(
    client: *const gw_client,
    video_id: *const c_char,
    request_json: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    json_op(
        client,
        &ops::VIDEO_REMIX,
        &[(video_id, "video_id")],
        request_json,
        out,
    )
}
