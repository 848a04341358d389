//! A video task's wait as an exchange: `gw_video_wait`'s polls driven by the
//! caller's own I/O through the `gw_exchange_*` functions.

use std::ffi::c_char;
use std::os::raw::c_int;

use crate::client::task_wait::TaskWait;
use crate::client::tasks::WaitOptions;

use super::args;
use super::exchange::{construct, gw_exchange};
use super::handle::gw_client;
use super::video::family_of;

/// Creates an exchange that waits for a video task of `family`
/// (`GW_VIDEO_*`) as `gw_video_wait` does, with the caller's I/O: the same
/// polls, interval and server poll hints, `timeout_ms` and terminal statuses
/// (`wait_options_json` as `gw_video_wait`'s; may be NULL).
///
/// Drive it as any exchange (`gw_exchange_new`): each poll is a
/// `GW_WANT_SEND` and its `GW_WANT_RECEIVE`s (its retries and redirects
/// included: do not retry in the driver); when a poll's record is in, one
/// `GW_WANT_EVENT` whose `event` is the task's status word and `data` the
/// whole record (what `gw_video_wait`'s progress callback sees); then
/// `GW_WANT_WAIT` for the pause before the next poll, or `GW_WANT_DONE` at a
/// terminal status. To stop as a progress callback's non-zero return does,
/// feed `GW_CANCELLED` (`gw_exchange_feed_error`) at the event or in the
/// pause, or call `gw_client_cancel`; freeing the exchange abandons it.
/// `gw_exchange_finish` gives what `gw_video_wait` gives: `GW_OK` with the
/// final record; `GW_VENDOR` with the record when the task failed;
/// `GW_TIMEOUT` past `timeout_ms`; `GW_CANCELLED` when stopped; or the status
/// of a failed poll.
///
/// Returns `GW_OK` with the exchange in `*out_exchange` and `*err_out` NULL,
/// or a failure status (a bad argument: nothing is to be sent) with
/// `*out_exchange` NULL and the error JSON in `*err_out` (freed with
/// `gw_free`; may be NULL). The exchange keeps a counted reference to the
/// handle and a copy of `task_id`. Free it with `gw_exchange_free`. Threads as
/// `gw_exchange_new`.
#[no_mangle]
pub unsafe extern "C" fn gw_exchange_new_video_wait(
    client: *const gw_client,
    family: c_int,
    task_id: *const c_char,
    wait_options_json: *const c_char,
    out_exchange: *mut *mut gw_exchange,
    err_out: *mut *mut c_char,
) -> c_int {
    construct(out_exchange, err_out, || {
        let client = args::client(client)?;
        let family = family_of(family)?;
        let task_id = args::text(task_id, "task_id")?;
        let options =
            WaitOptions::from_json(args::optional_text(wait_options_json, "wait_options_json")?)?;
        TaskWait::new(&client, family, task_id, &options)
            .map_err(|e| client.failed("video wait", e))
    })
}
