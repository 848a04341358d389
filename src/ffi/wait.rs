//! Polling a video task until it ends, with progress and cancellation.

use std::ffi::{c_char, c_void};
use std::os::raw::c_int;

use crate::client::tasks::WaitOptions;

use super::args;
use super::guard::call;
use super::handle::gw_client;
use super::video::family_of;

/// Called after each poll of `gw_video_wait` with the task's status word and
/// its whole record (JSON), both valid during the callback only. Return 0 to
/// go on polling, non-zero to stop (the call returns `GW_CANCELLED`).
///
/// The callback must return normally: it must never throw a C++ exception,
/// `longjmp` out, or unwind (a Rust panic, a foreign exception) across gw.
/// gw cannot catch those: an exception reaching gw aborts the process, and a
/// `longjmp` over gw's frames is undefined behaviour (locks, connections and
/// handles it holds are never released).
/// Catch everything inside the callback and return non-zero to stop (the C++
/// wrapper in bindings/cpp does this for its users).
pub type gw_progress_cb = Option<
    unsafe extern "C" fn(
        status: *const c_char,
        task_json: *const c_char,
        user_data: *mut c_void,
    ) -> c_int,
>;

/// Polls a video task of `family` (`GW_VIDEO_*`) until its status is terminal
/// (`succeeded`/`succeed`/`completed`/`SUCCEEDED` or `failed`/`FAILED`, ...).
///
/// `wait_options_json` may be NULL: `{"interval_ms": 2000, "timeout_ms": 600000}`.
/// `progress` (may be NULL) sees every poll. Returns `GW_OK` with the final
/// task record in `*out`; `GW_VENDOR` with the record in `*out` when the task
/// failed; `GW_TIMEOUT` past `timeout_ms`; `GW_CANCELLED` when `progress`
/// stopped it; or the status of a failed poll. Blocks the calling thread: to
/// run the same wait over your own I/O, without a thread, see
/// `gw_exchange_new_video_wait`.
#[no_mangle]
pub unsafe extern "C" fn gw_video_wait(
    client: *const gw_client,
    family: c_int,
    task_id: *const c_char,
    wait_options_json: *const c_char,
    progress: gw_progress_cb,
    user_data: *mut c_void,
    out: *mut *mut c_char,
) -> c_int {
    call(out, || {
        let client = args::client(client)?;
        let family = family_of(family)?;
        let task_id = args::text(task_id, "task_id")?;
        let options =
            WaitOptions::from_json(args::optional_text(wait_options_json, "wait_options_json")?)?;
        let mut on_status = |status: &str, record: &str| match progress {
            None => true,
            Some(cb) => {
                let (status, record) = (args::c_string(status), args::c_string(record));
                cb(status.as_ptr(), record.as_ptr(), user_data) == 0
            }
        };
        client.wait_for_task(family, task_id, &options, &mut on_status)
    })
}
