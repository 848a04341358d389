//! Text endpoints of the API document: chat completions (plain and multimodal), the
//! Responses format (plain, web search, streamed, in-stream failures) and embeddings
//! (float and base64), each checked on both sides: what the mock received and what the
//! client made of the answer.

mod endpoint_support;

use std::ffi::CString;

use endpoint_support::{assert_json_request, error_json, failure, parse, Gateway};
use gw::ops;
use serde_json::{json, Value};

// ---- POST /v1/chat/completions ----

#[test]
fn chat_completion_plain() {
    let gw = Gateway::start();
    let body = json!({
        "model": "chat-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello there"}
        ],
        "temperature": 0.5,
        "max_tokens": 50,
    });
    let answer = parse(&gw.client.call(&ops::CHAT, &[], Some(&body)).unwrap());

    let req = gw.only_request();
    assert_json_request(&req, "POST", "/v1/chat/completions", &body);
    assert_eq!(req.header("accept"), Some("application/json"));

    assert_eq!(answer["object"], "chat.completion");
    assert!(answer["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert_eq!(answer["model"], "chat-model");
    assert!(answer["created"].as_u64().unwrap() > 1_600_000_000);
    let choice = &answer["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["message"]["content"], "Echo: Hello there");
    assert_eq!(choice["finish_reason"], "stop");
    // The mock counts words: 2 + 2 prompt words, 3 answer words.
    assert_eq!(
        answer["usage"],
        json!({"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7})
    );
}

#[test]
fn chat_completion_multimodal_parts_reach_the_gateway_intact() {
    let gw = Gateway::start();
    let body = json!({
        "model": "vision-model",
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "What happens here?"},
            {"type": "image_url", "image_url": {"url": "https://img.example/cat.png"}},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            {"type": "video_url", "video_url": {"url": "https://vid.example/clip.mp4", "fps": 2}},
            {"type": "video_url", "video_url": {"url": "data:video/mp4;base64,AAAAIGZ0eXA=", "fps": 0.5}}
        ]}],
    });
    let answer = parse(&gw.client.call(&ops::CHAT, &[], Some(&body)).unwrap());

    let req = gw.only_request();
    assert_json_request(&req, "POST", "/v1/chat/completions", &body);
    let parts = &req.json.as_ref().unwrap()["messages"][0]["content"];
    assert_eq!(parts[3]["video_url"]["fps"], 2);
    assert_eq!(parts[4]["video_url"]["fps"], 0.5);
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "Echo: What happens here? [2 images] [2 videos]"
    );
}

#[test]
fn chat_reasoning_effort_reaches_the_gateway_and_its_thinking_comes_back() {
    let gw = Gateway::start();
    let body = json!({
        "model": "reasoning-model",
        "messages": [{"role": "user", "content": "Why?"}],
        "reasoning_effort": "high",
    });
    let answer = parse(&gw.client.call(&ops::CHAT, &[], Some(&body)).unwrap());
    assert_eq!(gw.only_request().json.unwrap()["reasoning_effort"], "high");
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], "Echo: Why?");
    assert_eq!(message["reasoning_content"], "Thinking at high effort.");
    assert_eq!(
        answer["usage"]["completion_tokens_details"]["reasoning_tokens"],
        4
    );
}

// ---- POST /v1/responses ----

fn output_text(response: &Value) -> String {
    let message = response["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "message")
        .expect("a message output item");
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["content"][0]["type"], "output_text");
    message["content"][0]["text"].as_str().unwrap().to_string()
}

#[test]
fn responses_plain() {
    let gw = Gateway::start();
    let body = json!({"model": "resp-model", "input": "Tell me a joke", "reasoning": {"effort": "minimal"}});
    let answer = parse(&gw.client.call(&ops::RESPONSES, &[], Some(&body)).unwrap());

    assert_json_request(&gw.only_request(), "POST", "/v1/responses", &body);
    assert_eq!(answer["object"], "response");
    assert!(answer["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(answer["status"], "completed");
    assert_eq!(answer["model"], "resp-model");
    assert!(answer["created_at"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(answer["output"].as_array().unwrap().len(), 1);
    assert_eq!(output_text(&answer), "Echo: Tell me a joke");
    assert_eq!(
        answer["usage"],
        json!({"input_tokens": 4, "output_tokens": 5, "total_tokens": 9})
    );
}

#[test]
fn responses_input_as_items() {
    let gw = Gateway::start();
    let body = json!({"model": "resp-model", "input": [
        {"role": "user", "content": "First question"},
        {"role": "assistant", "content": "First answer"},
        {"role": "user", "content": "Second question"}
    ]});
    let answer = parse(&gw.client.call(&ops::RESPONSES, &[], Some(&body)).unwrap());
    assert_eq!(gw.only_request().json.as_ref(), Some(&body));
    assert_eq!(output_text(&answer), "Echo: Second question");
}

#[test]
fn responses_with_web_search_returns_a_web_search_call_item() {
    let gw = Gateway::start();
    let body = json!({
        "model": "resp-model",
        "input": "News today?",
        "tools": [{"type": "web_search_preview"}],
    });
    let answer = parse(&gw.client.call(&ops::RESPONSES, &[], Some(&body)).unwrap());

    let req = gw.only_request();
    assert_json_request(&req, "POST", "/v1/responses", &body);
    assert_eq!(
        req.json.unwrap()["tools"],
        json!([{"type": "web_search_preview"}])
    );
    let output = answer["output"].as_array().unwrap();
    assert_eq!(output.len(), 2);
    assert_eq!(output[0]["type"], "web_search_call");
    assert_eq!(output[0]["status"], "completed");
    assert!(output[0]["id"].as_str().unwrap().starts_with("ws_"));
    assert_eq!(output_text(&answer), "Echo: News today?");
}

/// Runs a Responses stream, returning (result, event names, text deltas).
fn stream_responses(
    gw: &Gateway,
    body: &Value,
) -> (Result<String, gw::Error>, Vec<String>, Vec<String>) {
    let mut names = Vec::new();
    let mut deltas = Vec::new();
    let result = gw.client.stream(&ops::RESPONSES, body, &mut |ev| {
        assert_eq!(ev.index, names.len(), "events are numbered in order");
        names.push(ev.event.to_string());
        if let Some(d) = ev.text_delta {
            deltas.push(d.to_string());
        }
        true
    });
    (result, names, deltas)
}

#[test]
fn responses_stream_delivers_deltas_in_order_and_returns_the_completed_response() {
    let gw = Gateway::start();
    let body = json!({"model": "resp-model", "input": "one two three"});
    let (result, names, deltas) = stream_responses(&gw, &body);
    let final_response = parse(&result.unwrap());

    let req = gw.only_request();
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    let sent = req.json.unwrap();
    assert_eq!(sent["stream"], true, "the client asks for a stream");
    assert_eq!(sent["input"], "one two three");

    assert_eq!(deltas, ["Echo: ", "one ", "two ", "three"]);
    let delta = "response.output_text.delta";
    assert_eq!(
        names,
        [
            "response.created",
            delta,
            delta,
            delta,
            delta,
            "response.output_text.done",
            "response.completed"
        ]
    );

    // The final object is the `response` of `response.completed`.
    assert_eq!(final_response["object"], "response");
    assert_eq!(final_response["status"], "completed");
    assert!(final_response["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(output_text(&final_response), deltas.concat());
    assert_eq!(
        final_response["usage"],
        json!({"input_tokens": 3, "output_tokens": 4, "total_tokens": 7})
    );
}

#[test]
fn responses_stream_error_event_is_gw_stream() {
    let gw = Gateway::start();
    gw.mock
        .push_fault(json!({"action": "stream_error", "after_events": 2}));
    let (result, names, deltas) =
        stream_responses(&gw, &json!({"model": "m", "input": "one two three"}));
    let e = failure(result);
    assert_eq!(e.status(), gw::GW_STREAM);
    assert_eq!(names, ["response.created", "response.output_text.delta"]);
    assert_eq!(deltas, ["Echo: "]);
    let err = error_json(&e);
    assert_eq!(err["error"]["message"], "upstream model failed");
    assert_eq!(err["error"]["code"], "stream_failure");
    assert_eq!(
        err["error"]["type"], "stream_error",
        "the event's own type names the event, not the error"
    );
    assert_eq!(err["error"]["status"], gw::GW_STREAM);
}

#[test]
fn responses_failed_event_is_gw_stream() {
    let gw = Gateway::start();
    let events = concat!(
        "event: response.created\n",
        "data: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_9\",\"status\":\"in_progress\"}}\n\n",
        "event: response.failed\n",
        "data: {\"type\":\"response.failed\",\"response\":{\"id\":\"resp_9\",\"status\":\"failed\",",
        "\"error\":{\"code\":\"server_error\",\"message\":\"model overloaded\"}}}\n\n",
    );
    gw.mock.push_fault(json!({
        "match": "/v1/responses", "action": "status", "status": 200,
        "content_type": "text/event-stream", "body": events,
    }));
    let (result, names, _) = stream_responses(&gw, &json!({"model": "m", "input": "hi"}));
    let e = failure(result);
    assert_eq!(e.status(), gw::GW_STREAM);
    assert_eq!(names, ["response.created"]);
    assert!(e.to_string().contains("model overloaded"), "{e}");
    let err = error_json(&e);
    assert_eq!(err["error"]["message"], "model overloaded");
    assert_eq!(err["error"]["code"], "server_error");
    assert_eq!(err["error"]["status"], gw::GW_STREAM);
}

#[test]
fn responses_stream_cut_before_completed_is_gw_stream() {
    let gw = Gateway::start();
    gw.mock
        .push_fault(json!({"action": "truncate", "after_events": 3}));
    let (result, names, deltas) =
        stream_responses(&gw, &json!({"model": "m", "input": "one two three"}));
    let e = failure(result);
    assert_eq!(e.status(), gw::GW_STREAM);
    assert_eq!(names.len(), 3);
    assert_eq!(deltas, ["Echo: ", "one "]);
    assert!(e.to_string().contains("without response.completed"), "{e}");
}

// ---- POST /v1/embeddings ----

/// Decodes a base64 embedding with the library's own C helper.
fn decode_with_gw(base64: &str) -> Vec<f32> {
    let text = CString::new(base64).unwrap();
    let mut floats: *mut f32 = std::ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: valid C string and out pointers; the result is freed with gw_free below.
    unsafe {
        let status = gw::ffi::gw_embedding_decode(text.as_ptr(), &mut floats, &mut len);
        assert_eq!(status, gw::GW_OK);
        assert!(!floats.is_null());
        let out = std::slice::from_raw_parts(floats, len).to_vec();
        gw::ffi::gw_free(floats.cast());
        out
    }
}

fn embeddings(gw: &Gateway, body: &Value) -> Value {
    parse(&gw.client.call(&ops::EMBEDDINGS, &[], Some(body)).unwrap())
}

fn float_vector(item: &Value) -> Vec<f32> {
    item["embedding"]
        .as_array()
        .expect("a float embedding")
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

#[test]
fn embeddings_as_floats() {
    let gw = Gateway::start();
    let body = json!({"model": "embed-model", "input": ["hello world", "good night moon"]});
    let answer = embeddings(&gw, &body);

    assert_json_request(&gw.only_request(), "POST", "/v1/embeddings", &body);
    assert_eq!(answer["object"], "list");
    assert_eq!(answer["model"], "embed-model");
    assert_eq!(
        answer["usage"],
        json!({"prompt_tokens": 5, "total_tokens": 5})
    );
    let data = answer["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    for (i, item) in data.iter().enumerate() {
        assert_eq!(item["object"], "embedding");
        assert_eq!(item["index"], i);
        let v = float_vector(item);
        assert_eq!(v.len(), 8, "the mock's default dimensions");
        assert!(v.iter().all(|x| (-1.0..=1.0).contains(x)));
    }
    assert_ne!(float_vector(&data[0]), float_vector(&data[1]));
}

#[test]
fn embeddings_dimensions_reach_the_gateway() {
    let gw = Gateway::start();
    let answer = embeddings(
        &gw,
        &json!({"model": "embed-model", "input": "hi", "dimensions": 3}),
    );
    assert_eq!(gw.only_request().json.unwrap()["dimensions"], 3);
    assert_eq!(float_vector(&answer["data"][0]).len(), 3);
}

#[test]
fn embeddings_as_base64_decode_to_the_float_form() {
    let gw = Gateway::start();
    let input = json!(["hello world", [101, 102, 103]]);
    let floats = embeddings(&gw, &json!({"model": "embed-model", "input": input}));
    let b64 = embeddings(
        &gw,
        &json!({"model": "embed-model", "input": input, "encoding_format": "base64"}),
    );
    assert_eq!(gw.last_request().json.unwrap()["encoding_format"], "base64");

    let (floats, b64) = (
        floats["data"].as_array().unwrap(),
        b64["data"].as_array().unwrap(),
    );
    assert_eq!(floats.len(), 2);
    assert_eq!(b64.len(), 2);
    for (f, b) in floats.iter().zip(b64) {
        assert_eq!(b["index"], f["index"]);
        let text = b["embedding"].as_str().expect("a base64 string");
        let decoded = decode_with_gw(text);
        assert_eq!(decoded, float_vector(f), "same vector in both encodings");
    }
}

#[test]
fn embedding_decoder_refuses_what_is_not_float32_base64() {
    for bad in ["AACA", "not base64!"] {
        let text = CString::new(bad).unwrap();
        let mut floats: *mut f32 = std::ptr::null_mut();
        let mut len = 7usize;
        // SAFETY: valid C string and out pointers.
        let status = unsafe { gw::ffi::gw_embedding_decode(text.as_ptr(), &mut floats, &mut len) };
        assert_eq!(status, gw::GW_INVALID_ARGUMENT, "{bad}");
        assert!(floats.is_null());
        assert_eq!(len, 0);
    }
}
