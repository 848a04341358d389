//! `Client::wait_for_task` (`gw_video_wait`): a task of each video family polled through its
//! whole life with the status of every poll reported in order, failed tasks as `GW_VENDOR`
//! with the record, cancellation from the callback, the deadline, and unknown ids.

mod endpoint_support;

use std::time::{Duration, Instant};

use endpoint_support::{assert_get, error_json, failure, parse, Gateway};
use gw::{ops, Error, TaskFamily, WaitOptions};
use serde_json::{json, Value};

const FAST: WaitOptions = WaitOptions {
    interval_ms: 5,
    timeout_ms: 10_000,
};

/// Waits for `id`, returning the result and (status, record) of every poll.
fn wait(
    gw: &Gateway,
    family: TaskFamily,
    id: &str,
    options: &WaitOptions,
) -> (Result<String, Error>, Vec<(String, Value)>) {
    let mut seen = Vec::new();
    let result = gw
        .client
        .wait_for_task(family, id, options, &mut |status, record| {
            seen.push((status.to_string(), parse(record)));
            true
        });
    (result, seen)
}

fn statuses(seen: &[(String, Value)]) -> Vec<&str> {
    seen.iter().map(|(s, _)| s.as_str()).collect()
}

/// Every request after the submit is a GET of `path`, one per reported status.
fn assert_polls(gw: &Gateway, path: &str, count: usize) {
    let requests = gw.mock.requests();
    let polls: Vec<_> = requests.iter().filter(|r| r.method == "GET").collect();
    assert_eq!(polls.len(), count, "{requests:#?}");
    for r in polls {
        assert_get(r, path);
    }
}

fn submit(gw: &Gateway, op: &ops::Operation, body: Value) -> Value {
    parse(&gw.client.call(op, &[], Some(&body)).unwrap())
}

// ---- a whole life per family ----

#[test]
fn unified_task_from_create_to_succeeded() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VIDEO_CREATE,
        json!({"model": "video-model", "prompt": "a sunrise", "duration": 5}),
    );
    let id = task["task_id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::Unified, id, &FAST);
    let record = parse(&result.unwrap());

    assert_eq!(statuses(&seen), ["processing", "processing", "succeeded"]);
    let progress: Vec<&Value> = seen.iter().map(|(_, r)| &r["progress"]).collect();
    assert_eq!(progress, [&json!(30), &json!(60), &json!(100)]);
    assert_eq!(record["status"], "succeeded");
    assert_eq!(record["task_id"], id);
    assert_eq!(
        record["video_url"],
        format!("https://videos.example/{id}.mp4")
    );
    assert_eq!(record, seen[2].1, "the result is the last record seen");
    assert_polls(&gw, &format!("/v1/video/generations/{id}"), 3);
}

#[test]
fn unified_task_from_generations_to_succeeded() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VIDEO_GENERATE,
        json!({"model": "video-model", "prompt": "a comet"}),
    );
    let id = task["id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::Unified, id, &FAST);
    assert_eq!(parse(&result.unwrap())["status"], "succeeded");
    assert_eq!(statuses(&seen), ["processing", "processing", "succeeded"]);
}

#[test]
fn character_video_from_queued_to_completed() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VIDEO_CHARACTER,
        json!({"model": "character-model", "prompt": "hero jumps", "character_id": "c7"}),
    );
    assert_eq!(task["status"], "queued");
    let id = task["id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::Character, id, &FAST);
    let record = parse(&result.unwrap());

    assert_eq!(statuses(&seen), ["queued", "in_progress", "completed"]);
    assert_eq!(record["status"], "completed");
    assert_eq!(record["character_id"], "c7");
    assert_eq!(
        record["video_url"],
        format!("https://videos.example/{id}.mp4")
    );
    assert_polls(&gw, &format!("/v1/videos/{id}"), 3);
}

#[test]
fn vendor_k_task_from_submitted_to_succeed() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VENDOR_K_TEXT2VIDEO,
        json!({"model_name": "k-model", "prompt": "a fox"}),
    );
    let id = task["data"]["task_id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::VendorK, id, &FAST);
    let record = parse(&result.unwrap());

    assert_eq!(statuses(&seen), ["submitted", "processing", "succeed"]);
    assert_eq!(record["code"], 0);
    assert_eq!(record["data"]["task_status"], "succeed");
    assert_eq!(
        record["data"]["task_result"]["videos"][0]["url"],
        format!("https://videos.example/{id}.mp4")
    );
    assert_polls(&gw, &format!("/vendorK/v1/videos/{id}"), 3);
}

#[test]
fn vendor_r_task_from_pending_to_succeeded() {
    let gw = Gateway::start();
    let (result, seen) = wait(&gw, TaskFamily::VendorR, "r-job-1", &FAST);
    let record = parse(&result.unwrap());

    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "SUCCEEDED"]);
    assert_eq!(record["id"], "r-job-1");
    assert_eq!(
        record["output"],
        json!(["https://videos.example/r-job-1.mp4"])
    );
    assert_polls(&gw, "/vendorR/task/r-job-1", 3);
}

#[test]
fn polls_are_spaced_by_the_interval() {
    let gw = Gateway::start();
    let started = Instant::now();
    let options = WaitOptions {
        interval_ms: 30,
        timeout_ms: 10_000,
    };
    let (result, seen) = wait(&gw, TaskFamily::VendorR, "r-spaced", &options);
    result.unwrap();
    assert_eq!(seen.len(), 3);
    // Two pauses between three polls, none after the last.
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(60), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

// ---- failed tasks: GW_VENDOR carrying the record ----

fn assert_failed(result: Result<String, Error>, id: &str, status: &str) -> Value {
    let e = failure(result);
    assert_eq!(e.status(), gw::GW_VENDOR);
    assert!(
        e.to_string()
            .contains(&format!("task {id} ended with status '{status}'")),
        "{e}"
    );
    parse(&e.to_json())
}

#[test]
fn unified_task_that_fails() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VIDEO_CREATE,
        json!({"model": "video-model", "prompt": "this will fail"}),
    );
    let id = task["task_id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::Unified, id, &FAST);
    assert_eq!(statuses(&seen), ["processing", "processing", "failed"]);
    let record = assert_failed(result, id, "failed");
    assert_eq!(record["status"], "failed");
    assert_eq!(record["error"]["code"], "generation_failed");
    assert_eq!(record, seen[2].1);
}

#[test]
fn character_video_that_fails() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VIDEO_CHARACTER,
        json!({"model": "character-model", "prompt": "fail please", "character_id": "c"}),
    );
    let id = task["id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::Character, id, &FAST);
    assert_eq!(statuses(&seen), ["queued", "in_progress", "failed"]);
    assert_eq!(
        assert_failed(result, id, "failed")["error"]["code"],
        "generation_failed"
    );
}

#[test]
fn vendor_k_task_that_fails() {
    let gw = Gateway::start();
    let task = submit(
        &gw,
        &ops::VENDOR_K_TEXT2VIDEO,
        json!({"prompt": "a fox that will fail"}),
    );
    let id = task["data"]["task_id"].as_str().unwrap();
    let (result, seen) = wait(&gw, TaskFamily::VendorK, id, &FAST);
    assert_eq!(statuses(&seen), ["submitted", "processing", "failed"]);
    let record = assert_failed(result, id, "failed");
    assert_eq!(record["data"]["task_status_msg"], "video generation failed");
}

#[test]
fn vendor_r_task_that_fails() {
    let gw = Gateway::start();
    let (result, seen) = wait(&gw, TaskFamily::VendorR, "r-fail-2", &FAST);
    assert_eq!(statuses(&seen), ["PENDING", "RUNNING", "FAILED"]);
    let record = assert_failed(result, "r-fail-2", "FAILED");
    assert_eq!(record["failureCode"], "INTERNAL");
}

// ---- cancellation, deadline, unknown ids ----

#[test]
fn the_callback_cancels_the_wait() {
    let gw = Gateway::start();
    let mut calls = 0;
    let result =
        gw.client
            .wait_for_task(TaskFamily::VendorR, "r-cancel", &FAST, &mut |status, _| {
                calls += 1;
                status != "RUNNING"
            });
    assert_eq!(failure(result).status(), gw::GW_CANCELLED);
    assert_eq!(calls, 2, "PENDING, then RUNNING cancels");
    assert_eq!(gw.mock.request_count(), 2, "no poll after the cancel");
}

#[test]
fn the_deadline_ends_the_wait() {
    let gw = Gateway::start();
    let started = Instant::now();
    let options = WaitOptions {
        interval_ms: 200,
        timeout_ms: 50,
    };
    let (result, seen) = wait(&gw, TaskFamily::VendorR, "r-slow", &options);
    let e = failure(result);
    assert_eq!(e.status(), gw::GW_TIMEOUT);
    assert!(e.to_string().contains("still 'PENDING'"), "{e}");
    assert!(e.to_string().contains("timeout_ms"), "{e}");
    // The next poll would land after the deadline, so the wait ends without sleeping.
    assert_eq!(statuses(&seen), ["PENDING"]);
    assert!(started.elapsed() < Duration::from_millis(200));
    assert_eq!(gw.mock.request_count(), 1);
}

#[test]
fn a_slow_poll_does_not_outlive_the_deadline() {
    // timeout_ms bounds the whole wait, including a status request the gateway is slow
    // to answer (read_timeout_ms alone would let it run for a minute).
    let gw = Gateway::start();
    gw.mock
        .push_fault(json!({"match": "/vendorR/", "action": "delay", "ms": 1500}));
    let started = Instant::now();
    let options = WaitOptions {
        interval_ms: 10,
        timeout_ms: 150,
    };
    let (result, _) = wait(&gw, TaskFamily::VendorR, "r-stalled", &options);
    let elapsed = started.elapsed();
    assert_eq!(failure(result).status(), gw::GW_TIMEOUT);
    assert!(
        elapsed < Duration::from_millis(1000),
        "the wait ran {elapsed:?} past a 150 ms deadline"
    );
}

#[test]
fn unknown_task_ids_are_404() {
    let gw = Gateway::start();
    for (family, id) in [
        (TaskFamily::Unified, "vtask_404"),
        (TaskFamily::Character, "video_404"),
        (TaskFamily::VendorK, "k_404"),
    ] {
        let (result, seen) = wait(&gw, family, id, &FAST);
        let e = failure(result);
        assert_eq!(e.status(), gw::GW_NOT_FOUND, "{family:?}");
        assert!(seen.is_empty(), "no status for an unknown task");
        let err = error_json(&e)["error"].clone();
        assert_eq!(err["code"], "not_found");
        assert!(err["message"].as_str().unwrap().ends_with(id), "{err}");
    }
    assert_eq!(gw.mock.request_count(), 3, "a 404 is not retried");
}

#[test]
fn an_empty_task_id_is_refused_before_sending() {
    let gw = Gateway::start();
    let (result, _) = wait(&gw, TaskFamily::Unified, "", &FAST);
    assert_eq!(failure(result).status(), gw::GW_INVALID_ARGUMENT);
    assert_eq!(gw.mock.request_count(), 0);
}
