//! Image, video and native-format endpoints of the API document: image generation, image
//! edit (JSON and multipart), the unified, character and remix video operations, and
//! `generateContent` with its `?key=` auth and a function-calling round trip.

mod endpoint_support;

use base64::Engine as _;
use endpoint_support::{assert_get, assert_json_request, error_json, failure, parse, Gateway};
use gw::{ops, FilePart, Form};
use gw_mock::{MockGateway, RecordedPart};
use serde_json::{json, Value};

// ---- POST /v1/images/generations ----

#[test]
fn image_generation() {
    let gw = Gateway::start();
    let body = json!({
        "model": "image-model",
        "prompt": "a lighthouse at dusk",
        "response_format": "url",
        "size": "1024x768",
        "seed": 42,
        "guidance_scale": 2.5,
        "watermark": false,
    });
    let answer = parse(
        &gw.client
            .call(&ops::IMAGE_GENERATE, &[], Some(&body))
            .unwrap(),
    );

    assert_json_request(&gw.only_request(), "POST", "/v1/images/generations", &body);
    assert!(answer["created"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(answer["model"], "image-model");
    let data = answer["data"].as_array().unwrap();
    assert_eq!(data.len(), 1);
    let url = data[0]["url"].as_str().unwrap();
    assert!(
        url.starts_with("https://images.example/gen/") && url.ends_with(".png"),
        "{url}"
    );
    assert_eq!(
        answer["usage"],
        json!({"generated_images": 1, "output_tokens": 4096, "total_tokens": 4096})
    );
}

#[test]
fn image_generation_as_b64_json() {
    let gw = Gateway::start();
    let body = json!({"model": "image-model", "prompt": "a dot", "response_format": "b64_json"});
    let answer = parse(
        &gw.client
            .call(&ops::IMAGE_GENERATE, &[], Some(&body))
            .unwrap(),
    );
    let b64 = answer["data"][0]["b64_json"].as_str().unwrap();
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

// ---- POST /v1/images/edits ----

#[test]
fn image_edit_json_with_image_url() {
    let gw = Gateway::start();
    let body = json!({
        "model": "edit-model",
        "prompt": "make the sky purple",
        "image": "https://img.example/in.png",
        "mask": "https://img.example/mask.png",
        "n": 2,
        "size": "512x512",
    });
    let answer = parse(&gw.client.call(&ops::IMAGE_EDIT, &[], Some(&body)).unwrap());

    assert_json_request(&gw.only_request(), "POST", "/v1/images/edits", &body);
    assert!(answer["created"].as_u64().unwrap() > 1_600_000_000);
    let data = answer["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    for item in data {
        assert!(item["url"]
            .as_str()
            .unwrap()
            .starts_with("https://images.example/edit/"));
        assert_eq!(item["revised_prompt"], "Edited: make the sky purple");
    }
    assert_ne!(data[0]["url"], data[1]["url"]);
}

fn part<'a>(parts: &'a [RecordedPart], name: &str) -> &'a RecordedPart {
    let found: Vec<_> = parts.iter().filter(|p| p.name == name).collect();
    assert_eq!(found.len(), 1, "exactly one part named {name}: {parts:#?}");
    found[0]
}

fn assert_text_part(parts: &[RecordedPart], name: &str, text: &str) {
    let p = part(parts, name);
    assert_eq!(p.filename, None, "{name} is a plain field");
    assert_eq!(p.content_type, None, "{name} is a plain field");
    assert_eq!(p.text.as_deref(), Some(text), "{name}");
    assert_eq!(p.size, text.len());
}

fn assert_file_part(parts: &[RecordedPart], name: &str, filename: &str, ctype: &str, bytes: &[u8]) {
    let p = part(parts, name);
    assert_eq!(p.filename.as_deref(), Some(filename));
    assert_eq!(p.content_type.as_deref(), Some(ctype));
    assert_eq!(p.size, bytes.len());
    assert_eq!(
        p.bytes_b64,
        base64::engine::general_purpose::STANDARD.encode(bytes),
        "exact bytes of {name}"
    );
}

#[test]
fn image_edit_multipart_with_image_and_mask_bytes() {
    let gw = Gateway::start();
    // Bytes that would break a careless encoder: CRLFs, NULs, a boundary-like line, 0xFF.
    let image: Vec<u8> = b"\x89PNG\r\n\x1a\n\x00\x00\r\n--gw-boundary-\r\n\xff\xfe"
        .iter()
        .copied()
        .chain((0..=255u8).cycle().take(3000))
        .collect();
    let mask: &[u8] = b"\x89PNG\r\n\x1a\nMASK\x00";
    let mut form = Form::from_fields(&json!({
        "model": "edit-model",
        "prompt": "remove the background",
        "n": 2,
        "size": "256x256",
    }))
    .unwrap();
    form.add_file(FilePart {
        field: "image".into(),
        filename: "photo.png".into(),
        content_type: "image/png".into(),
        bytes: &image,
    })
    .unwrap();
    form.add_file(FilePart {
        field: "mask".into(),
        filename: "mask.png".into(),
        content_type: "image/png".into(),
        bytes: mask,
    })
    .unwrap();
    let answer = parse(
        &gw.client
            .call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
            .unwrap(),
    );

    let req = gw.only_request();
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/images/edits");
    endpoint_support::assert_bearer(&req);
    let ctype = req.header("content-type").unwrap();
    assert!(
        ctype.starts_with("multipart/form-data; boundary="),
        "{ctype}"
    );
    assert_eq!(req.json, None);
    let parts = req.multipart.expect("the mock parsed a multipart body");
    assert_eq!(parts.len(), 6, "{parts:#?}");
    assert_text_part(&parts, "model", "edit-model");
    assert_text_part(&parts, "prompt", "remove the background");
    assert_text_part(&parts, "n", "2");
    assert_text_part(&parts, "size", "256x256");
    assert_file_part(&parts, "image", "photo.png", "image/png", &image);
    assert_file_part(&parts, "mask", "mask.png", "image/png", mask);
    assert_eq!(part(&parts, "image").bytes(), image);
    // Fields first, then the files, image before mask.
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(&names[4..], ["image", "mask"]);

    let data = answer["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert_eq!(data[0]["revised_prompt"], "Edited: remove the background");
}

/// Issue 39: a null member is "not given", so it is left out of the form (as the JSON form
/// leaves it to the gateway), never sent as the text `null`, which the document's integer
/// `n` refuses. Inside an array or object field the part is JSON text, so its nulls keep
/// their JSON meaning and are sent as they are.
#[test]
fn image_edit_multipart_leaves_null_members_out() {
    let gw = Gateway::start();
    let image = b"\x89PNG\r\n\x1a\n".as_slice();
    let file = || FilePart {
        field: "image".into(),
        filename: "in.png".into(),
        content_type: "image/png".into(),
        bytes: image,
    };
    let mut form = Form::from_fields(&json!({
        "model": "edit-model",
        "prompt": "sepia",
        "n": null,
        "background": null,
        "size": null,
        "metadata": {"k": null, "j": 1},
        "stops": ["a", null],
    }))
    .unwrap();
    form.add_file(file()).unwrap();
    let answer = gw
        .client
        .call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
        .expect("the gateway takes the form");
    assert_eq!(parse(&answer)["data"].as_array().unwrap().len(), 1);
    let parts = gw.only_request().multipart.unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["model", "prompt", "metadata", "stops", "image"],
        "{parts:#?}"
    );
    assert!(parts.iter().all(|p| p.text.as_deref() != Some("null")));
    assert_text_part(&parts, "metadata", r#"{"k":null,"j":1}"#);
    assert_text_part(&parts, "stops", r#"["a",null]"#);
    assert_file_part(&parts, "image", "in.png", "image/png", image);

    // `image: null` (and `mask: null`) is not given either: the file takes the name.
    gw.mock.reset();
    let mut form = Form::from_fields(
        &json!({"model": "edit-model", "prompt": "sepia", "image": null, "mask": null}),
    )
    .unwrap();
    form.add_file(file())
        .expect("image: null is not given, so the file may take the name");
    gw.client
        .call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
        .expect("the gateway takes the form");
    let parts = gw.only_request().multipart.unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["model", "prompt", "image"], "{parts:#?}");
}

#[test]
fn image_edit_multipart_without_mask() {
    let gw = Gateway::start();
    let mut form = Form::from_fields(&json!({"model": "edit-model", "prompt": "sepia"})).unwrap();
    form.add_file(FilePart {
        field: "image".into(),
        filename: "in.jpg".into(),
        content_type: "image/jpeg".into(),
        bytes: b"\xff\xd8\xff\xe0JFIF",
    })
    .unwrap();
    let answer = parse(
        &gw.client
            .call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
            .unwrap(),
    );
    let parts = gw.only_request().multipart.unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names.len(), 3);
    assert!(!names.contains(&"mask"));
    assert_file_part(
        &parts,
        "image",
        "in.jpg",
        "image/jpeg",
        b"\xff\xd8\xff\xe0JFIF",
    );
    assert_eq!(answer["data"][0]["revised_prompt"], "Edited: sepia");
}

// ---- Video: unified, character, remix ----

#[test]
fn video_create_unified() {
    let gw = Gateway::start();
    let body = json!({"model": "video-model", "prompt": "waves on a beach", "duration": 5});
    let answer = parse(
        &gw.client
            .call(&ops::VIDEO_CREATE, &[], Some(&body))
            .unwrap(),
    );
    assert_json_request(&gw.only_request(), "POST", "/v1/video/create", &body);
    assert!(answer["task_id"].as_str().unwrap().starts_with("vtask_"));
    assert_eq!(answer["status"], "processing");
}

#[test]
fn video_generations_and_their_status() {
    let gw = Gateway::start();
    let body = json!({"model": "video-model", "prompt": "a paper boat"});
    let answer = parse(
        &gw.client
            .call(&ops::VIDEO_GENERATE, &[], Some(&body))
            .unwrap(),
    );
    assert_json_request(&gw.only_request(), "POST", "/v1/video/generations", &body);
    let id = answer["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("vgen_"));
    assert_eq!(answer["status"], "processing");

    let status = parse(
        &gw.client
            .call(&ops::VIDEO_GENERATION_STATUS, &[&id], None)
            .unwrap(),
    );
    assert_get(&gw.last_request(), &format!("/v1/video/generations/{id}"));
    assert_eq!(status["id"], id.as_str());
    assert_eq!(status["status"], "processing");
    assert_eq!(status["progress"], 30);
}

#[test]
fn video_generations_pass_fields_the_document_does_not_show() {
    // The document shows no body for /v1/video/generations: nothing beyond `model` is
    // judged by the client, so a vendor's own spelling reaches the gateway untouched.
    let gw = Gateway::start();
    let body =
        json!({"model": "video-model", "prompt": "a kite", "duration": "10", "resolution": "720p"});
    gw.client
        .call(&ops::VIDEO_GENERATE, &[], Some(&body))
        .unwrap();
    assert_eq!(gw.only_request().json.as_ref(), Some(&body));
}

#[test]
fn video_with_a_character() {
    let gw = Gateway::start();
    let body =
        json!({"model": "character-model", "prompt": "hero waves", "character_id": "char_42"});
    let answer = parse(
        &gw.client
            .call(&ops::VIDEO_CHARACTER, &[], Some(&body))
            .unwrap(),
    );
    assert_json_request(&gw.only_request(), "POST", "/v1/videos", &body);
    let id = answer["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("video_"));
    assert_eq!(answer["status"], "queued");
    assert_eq!(answer["character_id"], "char_42");

    let status = parse(
        &gw.client
            .call(&ops::VIDEO_CHARACTER_STATUS, &[&id], None)
            .unwrap(),
    );
    assert_get(&gw.last_request(), &format!("/v1/videos/{id}"));
    assert_eq!(status["status"], "queued");
}

#[test]
fn video_remix() {
    let gw = Gateway::start();
    let original = parse(
        &gw.client
            .call(
                &ops::VIDEO_CHARACTER,
                &[],
                Some(&json!({"model": "character-model", "prompt": "a dog runs", "character_id": "c1"})),
            )
            .unwrap(),
    );
    let id = original["id"].as_str().unwrap();
    let body = json!({"prompt": "make it snow", "size": "1280x720"});
    let answer = parse(
        &gw.client
            .call(&ops::VIDEO_REMIX, &[id], Some(&body))
            .unwrap(),
    );

    assert_json_request(
        &gw.last_request(),
        "POST",
        &format!("/v1/videos/{id}/remix"),
        &body,
    );
    assert_eq!(answer["remixed_from_video_id"], id);
    assert_ne!(answer["id"], id);
    assert!(answer["id"].as_str().unwrap().starts_with("video_"));
    assert_eq!(answer["status"], "queued");
    assert_eq!(answer["model"], "character-model");
}

#[test]
fn video_remix_of_an_unknown_video_is_404() {
    let gw = Gateway::start();
    let e = failure(gw.client.call(
        &ops::VIDEO_REMIX,
        &["video_404"],
        Some(&json!({"prompt": "x"})),
    ));
    assert_eq!(e.status(), gw::GW_NOT_FOUND);
    assert_eq!(error_json(&e)["error"]["code"], "not_found");
}

// ---- POST /v1beta/models/{model}:generateContent ----

fn generate_content(gw: &Gateway, model: &str, body: &Value) -> Value {
    parse(
        &gw.client
            .call(&ops::GENERATE_CONTENT, &[model], Some(body))
            .unwrap(),
    )
}

fn only_part(answer: &Value) -> &Value {
    let candidate = &answer["candidates"][0];
    assert_eq!(candidate["content"]["role"], "model");
    assert_eq!(candidate["finishReason"], "STOP");
    let parts = candidate["content"]["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 1, "{answer}");
    &parts[0]
}

#[test]
fn generate_content_takes_the_key_in_the_query_and_no_authorization_header() {
    let gw = Gateway::start();
    let body = json!({
        "contents": [{"role": "user", "parts": [{"text": "Hello native"}]}],
        "generationConfig": {"temperature": 0.3, "topP": 0.9},
    });
    let answer = generate_content(&gw, "native-model", &body);

    let req = gw.only_request();
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1beta/models/native-model:generateContent");
    assert_eq!(req.query.as_deref(), Some("key=sk-test"));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.json.as_ref(), Some(&body));
    assert_eq!(only_part(&answer)["text"], "Echo: Hello native");
    assert_eq!(answer["modelVersion"], "native-model");
}

#[test]
fn generate_content_through_request_keeps_its_query_and_adds_the_key() {
    let gw = Gateway::start();
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "via request"}]}]});
    let answer = parse(
        &gw.client
            .request(
                "POST",
                "/v1beta/models/native-model:generateContent?alt=json",
                Some(&body),
            )
            .unwrap(),
    );
    let req = gw.only_request();
    assert_eq!(req.path, "/v1beta/models/native-model:generateContent");
    assert_eq!(req.query.as_deref(), Some("alt=json&key=sk-test"));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(req.json.as_ref(), Some(&body));
    assert_eq!(only_part(&answer)["text"], "Echo: via request");
}

#[test]
fn generate_content_key_is_percent_encoded() {
    let mock = MockGateway::start_with_key("sk-a+b/c=d&e");
    let client = endpoint_support::client_for(&mock, |_| {});
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    client
        .call(&ops::GENERATE_CONTENT, &["m"], Some(&body))
        .expect("the mock decodes the key and accepts it");
    let req = mock.requests().pop().unwrap();
    assert_eq!(req.query.as_deref(), Some("key=sk-a%2Bb%2Fc%3Dd%26e"));
}

#[test]
fn generate_content_errors_never_carry_the_key() {
    let gw = Gateway::start();
    gw.mock.push_fault(json!({
        "action": "status", "status": 400,
        "body": "{\"error\":{\"message\":\"bad request to /v1beta/models/m:generateContent?key=sk-test\",\"type\":\"invalid_request_error\",\"code\":\"bad\"}}",
    }));
    let e = failure(gw.client.call(
        &ops::GENERATE_CONTENT,
        &["m"],
        Some(&json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})),
    ));
    assert_eq!(e.status(), gw::GW_BAD_REQUEST);
    let text = format!("{e} {e:?} {}", e.to_json());
    assert!(!text.contains("sk-test"), "{text}");
    assert!(text.contains("[REDACTED]"), "{text}");
}

#[test]
fn generate_content_video_understanding_and_image_editing_parts() {
    let gw = Gateway::start();
    let video = json!({"contents": [{"role": "user", "parts": [
        {"file_data": {"mime_type": "video/mp4", "file_uri": "https://files.example/v/123"}},
        {"text": "Summarise this video"}
    ]}]});
    assert_eq!(
        only_part(&generate_content(&gw, "video-model", &video))["text"],
        "Echo: Summarise this video [video]"
    );
    assert_eq!(gw.last_request().json.as_ref(), Some(&video));

    let edit = json!({"contents": [{"role": "user", "parts": [
        {"text": "Add a hat"},
        {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}
    ]}]});
    assert_eq!(
        only_part(&generate_content(&gw, "image-edit-model", &edit))["text"],
        "Echo: Add a hat [image]"
    );
    assert_eq!(gw.last_request().json.as_ref(), Some(&edit));
}

#[test]
fn generate_content_function_calling_round_trip() {
    let gw = Gateway::start();
    let tools = json!([{"functionDeclarations": [{
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }
    }]}]);
    let question = json!({"role": "user", "parts": [{"text": "Paris"}]});

    // 1. The model asks for the function.
    let first = generate_content(
        &gw,
        "fc-model",
        &json!({"contents": [question], "tools": tools}),
    );
    let call = only_part(&first)["functionCall"].clone();
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["args"], json!({"city": "Paris"}));
    assert_eq!(gw.last_request().json.unwrap()["tools"], tools);

    // 2. The client runs it and sends the result back; the model answers in text.
    let second_body = json!({
        "contents": [
            question,
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "get_weather",
                "response": {"temperature_c": 21, "sky": "clear"}
            }}]}
        ],
        "tools": tools,
    });
    let second = generate_content(&gw, "fc-model", &second_body);
    let req = gw.last_request();
    assert_eq!(req.path, "/v1beta/models/fc-model:generateContent");
    assert_eq!(req.json.as_ref(), Some(&second_body));
    let part = only_part(&second);
    assert!(part.get("functionCall").is_none());
    // The caller's key order reached the gateway (and the mock's echo) untouched.
    assert_eq!(
        part["text"],
        "Function get_weather returned: {\"temperature_c\":21,\"sky\":\"clear\"}"
    );
    assert_eq!(gw.mock.request_count(), 2);
}
