//! Issue 39: a string set the upstream extends over time (reasoning effort, an image
//! size keyword, a vendor's aspect ratios) passes a value gw does not know: it reaches
//! the gateway, and a debug line through gw's logger says the value is unknown to gw.
//! The type is still checked, and closed sets (roles, part types, `encoding_format`,
//! `response_format`) still refuse. One test in its own binary: the logger is global to
//! the process.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use gw::log::{set_logger, Level, LogSink};
use gw::ops;
use gw_mock::MockGateway;
use serde_json::{json, Value};

fn with(base: &Value, patch: Value) -> Value {
    let mut out = base.clone();
    for (k, v) in patch.as_object().unwrap() {
        out[k] = v.clone();
    }
    out
}

#[test]
fn values_of_open_sets_reach_the_gateway_and_a_debug_line_names_them() {
    let lines: Arc<Mutex<Vec<(Level, String)>>> = Arc::default();
    let sink: LogSink = {
        let lines = lines.clone();
        Arc::new(move |level, line| lines.lock().unwrap().push((level, line.to_string())))
    };
    set_logger(Some(sink), Level::Debug);
    let unknown_lines = || -> Vec<String> {
        lines
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, l)| l.contains("unknown to gw"))
            .map(|(lvl, l)| {
                assert_eq!(*lvl, Level::Debug, "{l}");
                l.clone()
            })
            .collect()
    };

    let mock = MockGateway::start();
    let key = mock.api_key();
    let c = client_with(&mock, json!({"max_retries": 0}));
    let chat_body = chat("think hard");
    let last_json = || mock.requests().last().unwrap().json.clone().unwrap();

    // OpenAI's `max` (ReasoningEffort, 2026-07): sent on chat and Responses, plain and
    // streamed, and the gateway takes it.
    c.call(
        &ops::CHAT,
        &[],
        Some(&with(&chat_body, json!({"reasoning_effort": "max"}))),
    )
    .expect("reasoning_effort max is sent");
    assert_eq!(last_json()["reasoning_effort"], "max");
    let responses = json!({"model": "m", "input": "hi", "reasoning": {"effort": "max"}});
    c.call(&ops::RESPONSES, &[], Some(&responses))
        .expect("reasoning.effort max is sent");
    assert_eq!(last_json()["reasoning"]["effort"], "max");
    c.stream(
        &ops::CHAT,
        &with(&chat_body, json!({"reasoning_effort": "max"})),
        &mut |_| true,
    )
    .expect("a stream with reasoning_effort max is sent");
    assert_eq!(last_json()["reasoning_effort"], "max");
    assert_eq!(mock.request_count(), 3);
    assert_eq!(unknown_lines(), Vec::<String>::new(), "max is known to gw");

    // Values gw does not know at all are sent too (this mock refuses them, a newer
    // gateway may not), each named in one debug line.
    let sent = [
        (
            &ops::CHAT,
            &[][..],
            with(&chat_body, json!({"reasoning_effort": "ultra"})),
            "reasoning_effort: \"ultra\"",
        ),
        (
            &ops::RESPONSES,
            &[][..],
            json!({"model": "m", "input": "hi", "reasoning": {"effort": "ultra"}}),
            "reasoning.effort: \"ultra\"",
        ),
        (
            &ops::IMAGE_GENERATE,
            &[][..],
            json!({"model": "m", "prompt": "p", "size": "portrait"}),
            "size: \"portrait\"",
        ),
        (
            &ops::VENDOR_I_GENERATE,
            &[][..],
            json!({"prompt": "p", "aspect_ratio": "21:9"}),
            "aspect_ratio: \"21:9\"",
        ),
        (
            &ops::VENDOR_H_IMAGE_TO_VIDEO,
            &[][..],
            json!({"image_url": "u", "prompt": "p", "aspect_ratio": "4:3"}),
            "aspect_ratio: \"4:3\"",
        ),
    ];
    for (i, (op, params, body, named)) in sent.iter().enumerate() {
        if let Err(e) = c.call(op, params, Some(body)) {
            assert_ne!(e.status(), gw::GW_INVALID_ARGUMENT, "{body}: {e}");
        }
        assert_eq!(mock.request_count(), 4 + i, "{body} was sent");
        let noted = unknown_lines();
        assert_eq!(noted.len(), i + 1, "{noted:#?}");
        assert!(noted[i].contains(named), "{}: {named}", noted[i]);
    }
    // The stream's check notes too; the line never holds the key, even as the value.
    let before = mock.request_count();
    let _ = c.stream(
        &ops::CHAT,
        &with(&chat_body, json!({"reasoning_effort": key.clone()})),
        &mut |_| true,
    );
    assert_eq!(mock.request_count(), before + 1);
    let noted = unknown_lines();
    assert_eq!(noted.len(), sent.len() + 1, "{noted:#?}");
    assert!(noted.last().unwrap().contains("reasoning_effort: "));
    for (_, line) in lines.lock().unwrap().iter() {
        assert!(!line.contains(&key), "key in a log line: {line}");
    }

    // The type is still checked, and closed sets still refuse: nothing is sent.
    let refused = [
        (
            &ops::CHAT,
            with(&chat_body, json!({"reasoning_effort": 5})),
            "reasoning_effort: must be a string",
        ),
        (
            &ops::RESPONSES,
            json!({"model": "m", "input": "hi", "reasoning": {"effort": ["max"]}}),
            "reasoning.effort: must be a string",
        ),
        (
            &ops::IMAGE_GENERATE,
            json!({"model": "m", "prompt": "p", "size": 1024}),
            "size: must be <width>x<height> or auto",
        ),
        (
            &ops::CHAT,
            json!({"model": "m", "messages": [{"role": "robot", "content": "x"}]}),
            "messages[0].role: must be one of",
        ),
        (
            &ops::CHAT,
            json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "audio_url"}]}]}),
            "messages[0].content[0].type: must be one of",
        ),
        (
            &ops::EMBEDDINGS,
            json!({"model": "m", "input": "x", "encoding_format": "int8"}),
            "encoding_format: must be one of float, base64",
        ),
        (
            &ops::IMAGE_GENERATE,
            json!({"model": "m", "prompt": "p", "response_format": "png"}),
            "response_format: must be one of url, b64_json",
        ),
    ];
    let before = mock.request_count();
    for (op, body, message) in refused {
        let e = c.call(op, &[], Some(&body)).unwrap_err();
        assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT, "{body}: {e}");
        assert!(e.to_string().contains(message), "{e} vs {message}");
    }
    assert_eq!(mock.request_count(), before, "nothing refused was sent");

    // Without a debug logger no line is built, and the value is sent the same.
    set_logger(None, Level::Debug);
    let quiet = with(&chat_body, json!({"reasoning_effort": "ultra"}));
    let _ = c.call(&ops::CHAT, &[], Some(&quiet));
    assert_eq!(mock.request_count(), before + 1);
}
