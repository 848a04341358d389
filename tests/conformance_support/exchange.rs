//! A case run through the exchange's C ABI (`gw_exchange_new` on a derived
//! handle) and the plain-HTTP test driver (`common/exchange_driver.rs`): the
//! way a binding on its platform's HTTP stack runs it. A verb is its method and
//! path; a cancel is `gw_client_cancel` on the call's handle from another thread.

use std::ffi::{c_char, CString};
use std::ptr;
use std::time::{Duration, Instant};

use gw::ffi::{self, gw_client, gw_exchange};
use gw::{ops, Error, TaskFamily};
use gw_mock::MockGateway;
use serde_json::{json, Value};

use super::{Case, Ran};
use crate::common::c_client::take;
use crate::common::exchange_driver::{drive_with, Driver, Seen};

/// Body bytes fed a few at a time: every case also tests the split (not fewer:
/// a line over the cap fed 7 bytes a feed took 7.8 s of this debug build, as each
/// feed searches the whole unfinished line for its end again).
const SPLIT: usize = 61;

/// One call: method, path, request text and `gw_exchange_new` flags; or a
/// video wait (`gw_exchange_new_video_wait`: the family and the wait options).
struct Call {
    method: String,
    path: String,
    body: Option<String>,
    flags: i32,
    wait: Option<(i32, Option<String>)>,
}

/// A handle freed on drop.
struct Handle(*mut gw_client);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { ffi::gw_client_free(self.0) }
    }
}

fn family(name: &str) -> Result<TaskFamily, String> {
    match name {
        "unified" => Ok(TaskFamily::Unified),
        "character" => Ok(TaskFamily::Character),
        "vendor_k" => Ok(TaskFamily::VendorK),
        "vendor_r" => Ok(TaskFamily::VendorR),
        other => Err(format!("unknown family {other:?}")),
    }
}

/// The verb's method and path (its parameters filled in as the named function
/// fills them: `Operation::path_with`). Ok(Err) is gw's refusal of an argument.
fn call_of(
    verb: &str,
    request: Option<String>,
    args: &Value,
) -> Result<Result<Call, Error>, String> {
    let arg = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or("");
    let plain = |op: &ops::Operation, params: &[&str], flags: i32| {
        op.path_with(params).map(|path| Call {
            method: op.method.as_str().to_string(),
            path,
            body: request.clone(),
            flags,
            wait: None,
        })
    };
    let stream = ffi::GW_EXCHANGE_STREAM;
    Ok(match verb {
        "chat" => plain(&ops::CHAT, &[], 0),
        "chatStream" => plain(&ops::CHAT, &[], stream),
        "responses" => plain(&ops::RESPONSES, &[], 0),
        "responsesStream" => plain(&ops::RESPONSES, &[], stream),
        "embeddings" => plain(&ops::EMBEDDINGS, &[], 0),
        "imageGenerate" => plain(&ops::IMAGE_GENERATE, &[], 0),
        "imageEdit" => plain(&ops::IMAGE_EDIT, &[], 0),
        "videoCreate" => plain(&ops::VIDEO_CREATE, &[], 0),
        "videoGenerate" => plain(&ops::VIDEO_GENERATE, &[], 0),
        "videoCharacter" => plain(&ops::VIDEO_CHARACTER, &[], 0),
        "videoRemix" => plain(&ops::VIDEO_REMIX, &[arg("id")], 0),
        "generateContent" => plain(&ops::GENERATE_CONTENT, &[arg("model")], 0),
        "videoStatus" => plain(family(arg("family"))?.status_op(), &[arg("id")], 0),
        "request" => Ok(Call {
            method: arg("method").to_string(),
            path: arg("path").to_string(),
            body: request,
            flags: 0,
            wait: None,
        }),
        "videoWait" => {
            let family = match family(arg("family"))? {
                TaskFamily::Unified => ffi::GW_VIDEO_UNIFIED,
                TaskFamily::Character => ffi::GW_VIDEO_CHARACTER,
                TaskFamily::VendorK => ffi::GW_VIDEO_VENDOR_K,
                TaskFamily::VendorR => ffi::GW_VIDEO_VENDOR_R,
            };
            Ok(Call {
                method: String::new(),
                path: arg("id").to_string(),
                body: None,
                flags: 0,
                wait: Some((family, args.get("wait").map(Value::to_string))),
            })
        }
        other => {
            return Err(format!(
                "the exchange runner does not know the verb {other:?}"
            ))
        }
    })
}

/// A C string of `text` as a C caller passes it: up to its first NUL.
fn c_text(text: &str) -> CString {
    let until_nul = text.split('\0').next().unwrap_or("");
    CString::new(until_nul).expect("no NUL left")
}

/// Runs `call` on `handle` to its end: the status, the answer or error text,
/// and the events (none for a wait: its records are events the blocking
/// runner's `wait_for_task` callback sees and does not report).
fn run(handle: *const gw_client, call: &Call) -> (i32, String, Vec<Seen>) {
    let method = c_text(&call.method);
    let path = c_text(&call.path);
    let body = call.body.as_deref().map(c_text);
    let options = call
        .wait
        .as_ref()
        .and_then(|(_, o)| o.as_deref().map(c_text));
    let mut ex: *mut gw_exchange = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    let status = unsafe {
        match call.wait {
            // The task id rides in `path`.
            Some((family, _)) => ffi::gw_exchange_new_video_wait(
                handle,
                family,
                path.as_ptr(),
                options.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
                &mut ex,
                &mut err,
            ),
            None => ffi::gw_exchange_new(
                handle,
                method.as_ptr(),
                path.as_ptr(),
                body.as_ref().map_or(ptr::null(), |b| b.as_ptr()),
                call.flags,
                &mut ex,
                &mut err,
            ),
        }
    };
    if status != gw::GW_OK {
        return (status, take(err), Vec::new());
    }
    let driven = unsafe {
        drive_with(
            ex,
            &mut Driver {
                split: SPLIT,
                ..Driver::default()
            },
        )
    };
    let events = if call.wait.is_some() {
        Vec::new()
    } else {
        driven.events
    };
    (driven.status, driven.out, events)
}

fn refused_before_call(status: i32, text: &str) -> Ran {
    Ran {
        status,
        out: serde_json::from_str(text).unwrap_or(Value::Null),
        events: Vec::new(),
        attempts: None,
        request_id: false,
        meta_text: String::new(),
        cancel_to_return_ms: None,
        setup_requests: 0,
    }
}

pub fn run_case(mock: &MockGateway, case: &Case) -> Result<Ran, String> {
    mock.reset();
    let mut options = json!({
        "base_url": mock.url(),
        "api_key": mock.api_key(),
        "retry_base_delay_ms": 5,
        "retry_max_delay_ms": 20,
    });
    if let Some(extra) = case.options.as_object() {
        for (k, v) in extra {
            options[k] = v.clone();
        }
    }
    let options = CString::new(options.to_string()).map_err(|e| e.to_string())?;
    let mut base: *mut gw_client = ptr::null_mut();
    let mut err: *mut c_char = ptr::null_mut();
    let status = unsafe { ffi::gw_client_create(options.as_ptr(), &mut base, &mut err) };
    if status != gw::GW_OK {
        return Ok(refused_before_call(status, &take(err)));
    }
    let base = Handle(base);
    let mut args = case.args.clone();
    if let Some(setup) = &case.setup {
        let call = call_of(
            &setup.operation,
            Some(setup.request.to_string()),
            &Value::Null,
        )?
        .map_err(|e| e.to_json())?;
        let (status, made, _) = run(base.0, &call);
        if status != gw::GW_OK {
            return Err(format!("setup {} failed: {made}", setup.operation));
        }
        let made: Value = serde_json::from_str(&made).map_err(|e| e.to_string())?;
        let id = super::value_at(&made, &setup.id_path)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("setup answer has no string at {}", setup.id_path))?
            .to_string();
        args["id"] = Value::String(id);
    }
    let setup_requests = mock.request_count();
    if let Some(faults) = &case.faults {
        mock.push_fault(faults.clone());
    }
    let request = match (&case.request_text, &case.request) {
        (Some(text), _) => Some(text.clone()),
        (None, Some(v)) => Some(v.to_string()),
        (None, None) => None,
    };
    let call = match call_of(&case.operation, request, &args)? {
        Ok(call) => call,
        Err(e) => return Ok(refused_before_call(e.status(), &e.to_json())),
    };
    // A handle of its own, as bindings derive one per call: its metadata is this call's.
    let handle = Handle(unsafe { ffi::gw_client_derive(base.0, ptr::null()) });
    if handle.0.is_null() {
        return Err("gw_client_derive failed".into());
    }
    let address = handle.0 as usize;
    let ((status, out, events), cancelled_at) = std::thread::scope(|scope| {
        let canceller = case.cancel.as_ref().map(|c| {
            let after = Duration::from_millis(c.after_ms);
            scope.spawn(move || {
                std::thread::sleep(after);
                unsafe { ffi::gw_client_cancel(address as *const gw_client) };
                Instant::now()
            })
        });
        let result = run(handle.0, &call);
        let returned = Instant::now();
        let cancelled_at = canceller.map(|t| (t.join().expect("canceller"), returned));
        (result, cancelled_at)
    });
    let mut meta: *mut c_char = ptr::null_mut();
    unsafe { ffi::gw_client_last_response(handle.0, &mut meta) };
    let meta_text = take(meta);
    let meta: Value = serde_json::from_str(&meta_text).unwrap_or(Value::Null);
    let out = if status == gw::GW_OK {
        serde_json::from_str(&out).unwrap_or(Value::String(out))
    } else {
        serde_json::from_str(&out).map_err(|e| format!("error JSON {out:?}: {e}"))?
    };
    Ok(Ran {
        status,
        out,
        events,
        attempts: meta.get("attempts").and_then(Value::as_u64),
        request_id: meta.get("request_id").is_some_and(|v| !v.is_null()),
        meta_text: if meta.is_null() {
            String::new()
        } else {
            meta_text
        },
        cancel_to_return_ms: cancelled_at
            .map(|(cancel, ret)| ret.saturating_duration_since(cancel).as_millis() as u64),
        setup_requests,
    })
}
