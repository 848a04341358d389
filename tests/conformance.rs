//! The conformance corpus (`conformance/`) run through gw's Rust API against the in-process
//! mock: every case file is a test here, as in every other binding's runner. Prints
//! `conformance rust: P passed, F failed, S skipped` and writes one line a case to
//! `build/conformance/rust.tsv` for the table `make conformance` prints. A second
//! pass runs every case through the exchange's C ABI and the plain-HTTP test
//! driver (`conformance_support/exchange.rs`, language `rust-exchange`).

mod common;
mod conformance_support;

use std::time::{Duration, Instant};

use conformance_support::{Case, Outcome, Ran, Runner};
use gw::{ops, CallOptions, Client, Error, Options, TaskFamily, WaitOptions};
use gw_mock::MockGateway;
use serde_json::{json, Value};

fn family(name: &str) -> Result<TaskFamily, String> {
    match name {
        "unified" => Ok(TaskFamily::Unified),
        "character" => Ok(TaskFamily::Character),
        "vendor_k" => Ok(TaskFamily::VendorK),
        "vendor_r" => Ok(TaskFamily::VendorR),
        other => Err(format!("unknown family {other:?}")),
    }
}

fn json_op(verb: &str) -> Option<&'static gw::ops::Operation> {
    Some(match verb {
        "chat" | "chatStream" => &ops::CHAT,
        "responses" | "responsesStream" => &ops::RESPONSES,
        "embeddings" => &ops::EMBEDDINGS,
        "imageGenerate" => &ops::IMAGE_GENERATE,
        "imageEdit" => &ops::IMAGE_EDIT,
        "videoCreate" => &ops::VIDEO_CREATE,
        "videoGenerate" => &ops::VIDEO_GENERATE,
        "videoCharacter" => &ops::VIDEO_CHARACTER,
        "videoRemix" => &ops::VIDEO_REMIX,
        "generateContent" => &ops::GENERATE_CONTENT,
        _ => return None,
    })
}

/// One call of `verb` on `client`, the way a Rust user makes it.
fn call(
    client: &Client,
    verb: &str,
    request: Option<&Value>,
    args: &Value,
    events: &mut Vec<(String, Option<String>, usize)>,
) -> Result<Result<String, Error>, String> {
    let arg = |name: &str| args.get(name).and_then(Value::as_str).unwrap_or("");
    let body = request.cloned().unwrap_or(Value::Null);
    Ok(match verb {
        "chatStream" | "responsesStream" => {
            let op = json_op(verb).expect("stream verbs have an operation");
            client.stream(op, &body, &mut |ev| {
                events.push((
                    ev.event.to_string(),
                    ev.text_delta.map(str::to_string),
                    ev.choice_index,
                ));
                true
            })
        }
        "videoRemix" => client.call(&ops::VIDEO_REMIX, &[arg("id")], request),
        "generateContent" => client.call(&ops::GENERATE_CONTENT, &[arg("model")], request),
        "videoStatus" => {
            let fam = family(arg("family"))?;
            client.call(fam.status_op(), &[arg("id")], None)
        }
        "videoWait" => {
            let fam = family(arg("family"))?;
            let wait = args.get("wait").map(Value::to_string);
            match WaitOptions::from_json(wait.as_deref()) {
                Ok(options) => client.wait_for_task(fam, arg("id"), &options, &mut |_, _| true),
                Err(e) => Err(e),
            }
        }
        "request" => client.request(arg("method"), arg("path"), request),
        _ => match json_op(verb) {
            Some(op) => client.call(op, &[], request),
            None => return Err(format!("the Rust runner does not know the verb {verb:?}")),
        },
    })
}

fn run_case(mock: &MockGateway, case: &Case) -> Result<Ran, String> {
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
    let options = match Options::from_json(&options.to_string()) {
        Ok(o) => o,
        Err(e) => return Ok(failed_before_call(&e)),
    };
    let base = match Client::new(options) {
        Ok(c) => c,
        Err(e) => return Ok(failed_before_call(&e)),
    };
    let mut args = case.args.clone();
    if let Some(setup) = &case.setup {
        let mut ignored = Vec::new();
        let made = call(
            &base,
            &setup.operation,
            Some(&setup.request),
            &Value::Null,
            &mut ignored,
        )?
        .map_err(|e| format!("setup {} failed: {}", setup.operation, e.to_json()))?;
        let made: Value = serde_json::from_str(&made).map_err(|e| e.to_string())?;
        let id = conformance_support::value_at(&made, &setup.id_path)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("setup answer has no string at {}", setup.id_path))?
            .to_string();
        args["id"] = Value::String(id);
    }
    let setup_requests = mock.request_count();
    if let Some(faults) = &case.faults {
        mock.push_fault(faults.clone());
    }
    // A handle of its own, as bindings derive one per call: its metadata is this call's.
    let handle = base
        .derive(&CallOptions::default())
        .map_err(|e| e.to_json())?;
    let mut events = Vec::new();
    let (result, cancelled_at) = std::thread::scope(|scope| {
        let canceller = case.cancel.as_ref().map(|c| {
            let after = Duration::from_millis(c.after_ms);
            let handle = &handle;
            scope.spawn(move || {
                std::thread::sleep(after);
                handle.cancel();
                Instant::now()
            })
        });
        let result = call(
            &handle,
            &case.operation,
            case.request.as_ref(),
            &args,
            &mut events,
        );
        let returned = Instant::now();
        let cancelled_at = canceller.map(|t| (t.join().expect("canceller"), returned));
        (result, cancelled_at)
    });
    let result = result?;
    let meta = handle.last_response();
    let (status, out) = match result {
        Ok(text) => (
            0,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        ),
        Err(e) => (
            e.status(),
            serde_json::from_str(&e.to_json()).map_err(|e| e.to_string())?,
        ),
    };
    Ok(Ran {
        status,
        out,
        events,
        attempts: meta.as_ref().map(|m| u64::from(m.attempts)),
        request_id: meta.as_ref().is_some_and(|m| m.request_id.is_some()),
        meta_text: meta.map(|m| m.to_json().to_string()).unwrap_or_default(),
        cancel_to_return_ms: cancelled_at
            .map(|(cancel, ret)| ret.saturating_duration_since(cancel).as_millis() as u64),
        setup_requests,
    })
}

fn failed_before_call(e: &Error) -> Ran {
    Ran {
        status: e.status(),
        out: serde_json::from_str(&e.to_json()).unwrap_or(Value::Null),
        events: Vec::new(),
        attempts: None,
        request_id: false,
        meta_text: String::new(),
        cancel_to_return_ms: None,
        setup_requests: 0,
    }
}

#[test]
fn conformance_corpus() {
    let mut runner = Runner::load("rust");
    let mock = MockGateway::start();
    for case in runner.cases() {
        let outcome = if case.request_text.is_some() {
            Outcome::Fail(
                "request_text cases need a skip.json entry for rust (the API takes a Value)".into(),
            )
        } else {
            match run_case(&mock, &case) {
                Err(why) => Outcome::Fail(why),
                Ok(ran) => conformance_support::judge(&case, &ran, &mock.requests()),
            }
        };
        runner.record(&case, outcome);
    }
    runner.finish();
}

#[test]
fn conformance_corpus_through_the_exchange() {
    let mut runner = Runner::load("rust-exchange");
    let mock = MockGateway::start();
    for case in runner.cases() {
        let outcome = match conformance_support::exchange::run_case(&mock, &case) {
            Err(why) => Outcome::Fail(why),
            Ok(ran) => conformance_support::judge(&case, &ran, &mock.requests()),
        };
        runner.record(&case, outcome);
    }
    runner.finish();
}
