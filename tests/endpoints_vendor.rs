//! Vendor-style endpoints of the API document (neutral names K, H, M, I, R, F): what each
//! sends (method, path, Bearer auth, body), how its answer parses, and the vendor result
//! codes (H `code` != 0, M `code` != 1) mapped to `GW_VENDOR` with the vendor's own body.

mod endpoint_support;

use endpoint_support::{assert_get, assert_json_request, failure, parse, Gateway};
use gw::ops::{self, Operation};
use serde_json::{json, Value};

fn post(gw: &Gateway, op: &Operation, params: &[&str], body: &Value) -> Value {
    parse(&gw.client.call(op, params, Some(body)).unwrap())
}

// ---- vendor K video operations ----

/// The `{code, message, request_id, data}` wrapper of a freshly submitted vendor K task.
fn assert_k_submitted(answer: &Value) -> String {
    assert_eq!(answer["code"], 0);
    assert_eq!(answer["message"], "SUCCEED");
    assert!(answer["request_id"].as_str().unwrap().starts_with("req_"));
    let data = &answer["data"];
    assert_eq!(data["task_status"], "submitted");
    assert!(
        data["created_at"].as_u64().unwrap() > 1_600_000_000_000,
        "ms"
    );
    let id = data["task_id"].as_str().unwrap();
    assert!(id.starts_with("k_"), "{id}");
    id.to_string()
}

#[test]
fn vendor_k_text2video() {
    let gw = Gateway::start();
    let body = json!({"model_name": "k-model", "prompt": "a fox in snow", "duration": 5, "aspect_ratio": "16:9"});
    let answer = post(&gw, &ops::VENDOR_K_TEXT2VIDEO, &[], &body);
    assert_json_request(
        &gw.only_request(),
        "POST",
        "/vendorK/v1/videos/text2video",
        &body,
    );
    assert_k_submitted(&answer);
}

#[test]
fn vendor_k_fields_beyond_the_document_pass_through_untouched() {
    // The document shows no body for the K submit operations: whatever the caller puts
    // there (vendor K takes `duration` as the string "5" or "10") must reach the gateway.
    let gw = Gateway::start();
    let body = json!({"model_name": "k-model", "prompt": "a fox", "duration": "10", "mode": "pro", "cfg_scale": 0.5});
    for op in [
        &ops::VENDOR_K_TEXT2VIDEO,
        &ops::VENDOR_K_IMAGE2VIDEO,
        &ops::VENDOR_K_MULTI_IMAGE2VIDEO,
    ] {
        let mut body = body.clone();
        body["image"] = json!("https://img.example/a.png");
        body["image_list"] = json!([{"image": "https://img.example/a.png"}]);
        let answer = gw.client.call(op, &[], Some(&body));
        assert!(answer.is_ok(), "{}: {answer:?}", op.name);
        assert_eq!(gw.last_request().json.as_ref(), Some(&body), "{}", op.name);
    }
}

#[test]
fn vendor_k_image2video() {
    let gw = Gateway::start();
    let body = json!({"model_name": "k-model", "image": "https://img.example/cat.png", "prompt": "the cat blinks"});
    let answer = post(&gw, &ops::VENDOR_K_IMAGE2VIDEO, &[], &body);
    assert_json_request(
        &gw.only_request(),
        "POST",
        "/vendorK/v1/videos/image2video",
        &body,
    );
    assert_k_submitted(&answer);
}

#[test]
fn vendor_k_multi_image2video() {
    let gw = Gateway::start();
    let body = json!({
        "model_name": "k-model",
        "image_list": [{"image": "https://img.example/1.png"}, {"image": "https://img.example/2.png"}],
        "prompt": "morph between them",
    });
    let answer = post(&gw, &ops::VENDOR_K_MULTI_IMAGE2VIDEO, &[], &body);
    assert_json_request(
        &gw.only_request(),
        "POST",
        "/vendorK/v1/videos/multi-image2video",
        &body,
    );
    assert_k_submitted(&answer);
}

#[test]
fn vendor_k_task_status() {
    let gw = Gateway::start();
    let submitted = post(
        &gw,
        &ops::VENDOR_K_TEXT2VIDEO,
        &[],
        &json!({"prompt": "rain"}),
    );
    let id = assert_k_submitted(&submitted);
    let answer = parse(&gw.client.call(&ops::VENDOR_K_STATUS, &[&id], None).unwrap());
    assert_get(&gw.last_request(), &format!("/vendorK/v1/videos/{id}"));
    assert_eq!(answer["code"], 0);
    assert_eq!(answer["data"]["task_id"], id.as_str());
    assert_eq!(answer["data"]["task_status"], "submitted");
}

#[test]
fn vendor_k_effects() {
    let gw = Gateway::start();
    let body = json!({"video": "https://vid.example/in.mp4", "effect": "squish"});
    let answer = post(&gw, &ops::VENDOR_K_EFFECTS, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorK/video/effects", &body);
    assert_k_submitted(&answer);
}

#[test]
fn vendor_k_extend() {
    let gw = Gateway::start();
    let body = json!({"video_id": "k_77"});
    let answer = post(&gw, &ops::VENDOR_K_EXTEND, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorK/video/extend", &body);
    assert_k_submitted(&answer);
}

// ---- vendor H image-to-video: code 0 = success ----

fn h_body(prompt: &str) -> Value {
    json!({
        "image_url": "https://img.example/portrait.png",
        "prompt": prompt,
        "model": "h-model",
        "duration": 5,
        "aspect_ratio": "9:16",
    })
}

#[test]
fn vendor_h_image_to_video() {
    let gw = Gateway::start();
    let body = h_body("she smiles");
    let answer = post(&gw, &ops::VENDOR_H_IMAGE_TO_VIDEO, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorH/image-to-video", &body);
    assert_eq!(answer["code"], 0);
    assert_eq!(answer["message"], "success");
    let data = &answer["data"];
    assert!(data["task_id"].as_str().unwrap().starts_with("h_"));
    assert_eq!(data["status"], "pending");
    let created = data["created_at"].as_str().unwrap();
    assert_eq!(created.len(), "2025-01-02T03:04:05Z".len(), "{created}");
    assert_eq!(&created[10..11], "T");
    assert!(created.ends_with('Z'));
}

#[test]
fn vendor_h_nonzero_code_is_gw_vendor_with_the_vendor_body() {
    let gw = Gateway::start();
    let e = failure(gw.client.call(
        &ops::VENDOR_H_IMAGE_TO_VIDEO,
        &[],
        Some(&h_body("vendor-fail")),
    ));
    assert_eq!(e.status(), gw::GW_VENDOR);
    assert_eq!(
        parse(&e.to_json()),
        json!({"code": 1001, "message": "insufficient quota", "data": null})
    );
    assert!(
        e.to_string().contains("code 1001: insufficient quota"),
        "{e}"
    );
    assert_eq!(
        gw.mock.request_count(),
        1,
        "a vendor failure is not retried"
    );
}

// ---- vendor M imagine: code 1 = success ----

#[test]
fn vendor_m_imagine() {
    let gw = Gateway::start();
    let body = json!({
        "prompt": "a castle --ar 16:9",
        "botType": "BOT_A",
        "base64Array": ["data:image/png;base64,iVBORw0KGgo="],
        "notifyHook": "",
        "state": "order-7",
    });
    let answer = post(&gw, &ops::VENDOR_M_IMAGINE, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorM/submit/imagine", &body);
    assert_eq!(answer["code"], 1);
    assert_eq!(answer["description"], "Submit success");
    assert!(answer["result"].as_str().unwrap().starts_with("m_"));
    assert_eq!(
        answer["properties"],
        json!({"channelId": "ch_1", "instanceId": "inst_1"})
    );
}

#[test]
fn vendor_m_code_other_than_1_is_gw_vendor_with_the_vendor_body() {
    let gw = Gateway::start();
    let e = failure(gw.client.call(
        &ops::VENDOR_M_IMAGINE,
        &[],
        Some(&json!({"prompt": "vendor-fail", "botType": "BOT_A"})),
    ));
    assert_eq!(e.status(), gw::GW_VENDOR);
    assert_eq!(
        parse(&e.to_json()),
        json!({"code": 4, "description": "banned prompt", "result": null, "properties": {}})
    );
    assert!(e.to_string().contains("code 4: banned prompt"), "{e}");
}

// ---- vendor I image operations ----

#[test]
fn vendor_i_describe() {
    let gw = Gateway::start();
    let body = json!({"image": "https://img.example/cat.png"});
    let answer = post(&gw, &ops::VENDOR_I_DESCRIBE, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorI/describe", &body);
    let descriptions: Vec<&str> = answer["descriptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert_eq!(descriptions.len(), 4);
    assert_eq!(descriptions[0], "Description 1 of 4 for cat.png");
}

#[test]
fn vendor_i_generate() {
    let gw = Gateway::start();
    let body = json!({"prompt": "a red kite", "aspect_ratio": "4:3"});
    let first = post(&gw, &ops::VENDOR_I_GENERATE, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorI/generate", &body);
    assert!(first["created"].as_u64().unwrap() > 1_600_000_000);
    let item = &first["data"][0];
    assert!(item["url"]
        .as_str()
        .unwrap()
        .starts_with("https://images.example/vendorI/"));
    let seed = item["seed"].as_i64().unwrap();
    assert!((0..=2_147_483_647).contains(&seed));
    // The same prompt gives the same seed.
    let again = post(&gw, &ops::VENDOR_I_GENERATE, &[], &body);
    assert_eq!(again["data"][0]["seed"], seed);
}

#[test]
fn vendor_i_text_to_image() {
    let gw = Gateway::start();
    let body = json!({"prompt": "a green door"});
    let answer = post(&gw, &ops::VENDOR_I_TEXT_TO_IMAGE, &[], &body);
    assert_json_request(&gw.only_request(), "POST", "/vendorI/text-to-image", &body);
    assert!(answer["data"][0]["url"]
        .as_str()
        .unwrap()
        .starts_with("https://images.example/vendorI/"));
}

// ---- vendor R task, vendor F edit ----

#[test]
fn vendor_r_task() {
    let gw = Gateway::start();
    let answer = parse(
        &gw.client
            .call(&ops::VENDOR_R_TASK, &["r-task-1"], None)
            .unwrap(),
    );
    assert_get(&gw.only_request(), "/vendorR/task/r-task-1");
    assert_eq!(answer["id"], "r-task-1");
    assert_eq!(answer["status"], "PENDING");
}

#[test]
fn vendor_f_edit() {
    let gw = Gateway::start();
    let body = json!({"image": "https://img.example/room.png", "prompt": "add a plant"});
    let answer = post(&gw, &ops::VENDOR_F_EDIT, &["fast-edit-model"], &body);
    assert_json_request(
        &gw.only_request(),
        "POST",
        "/vendorF/fast-edit-model/edit",
        &body,
    );
    let image = &answer["images"][0];
    assert!(image["url"]
        .as_str()
        .unwrap()
        .starts_with("https://images.example/vendorF/"));
    assert_eq!(image["content_type"], "image/png");
    assert_eq!(answer["prompt"], "add a plant");
}

#[test]
fn vendor_f_slugs_may_span_segments() {
    let gw = Gateway::start();
    let body = json!({"image": "https://img.example/room.png", "prompt": "add a plant"});
    post(&gw, &ops::VENDOR_F_EDIT, &["org/edit-model"], &body);
    assert_eq!(gw.only_request().path, "/vendorF/org/edit-model/edit");
    let e = gw
        .client
        .call(&ops::VENDOR_F_EDIT, &["org/../v1/chat"], Some(&body))
        .unwrap_err();
    assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT);
    assert_eq!(
        gw.mock.request_count(),
        1,
        "a traversal is refused before sending"
    );
}

// ---- the same operations through Client::request ----

#[test]
fn request_to_a_vendor_h_path_maps_its_code() {
    let gw = Gateway::start();
    let ok = parse(
        &gw.client
            .request("POST", "/vendorH/image-to-video", Some(&h_body("go")))
            .unwrap(),
    );
    assert_eq!(ok["code"], 0);
    assert_json_request(
        &gw.last_request(),
        "POST",
        "/vendorH/image-to-video",
        &h_body("go"),
    );

    let e = failure(gw.client.request(
        "POST",
        "/vendorH/image-to-video",
        Some(&h_body("vendor-fail")),
    ));
    assert_eq!(e.status(), gw::GW_VENDOR);
    assert_eq!(parse(&e.to_json())["code"], 1001);
    assert_eq!(gw.mock.request_count(), 2);
}

#[test]
fn request_to_a_vendor_h_path_checks_its_limits() {
    let gw = Gateway::start();
    let mut body = h_body("go");
    // The ratios are an open set (issue 39): a number where the string belongs is refused.
    body["aspect_ratio"] = json!(4.3);
    let e = failure(
        gw.client
            .request("POST", "/vendorH/image-to-video", Some(&body)),
    );
    assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT);
    assert!(
        e.to_string()
            .starts_with("aspect_ratio: must be a string, e.g. one of 16:9, 9:16, 1:1"),
        "{e}"
    );

    let e = failure(gw.client.request(
        "POST",
        "/vendorH/image-to-video",
        Some(&json!({"prompt": "no image"})),
    ));
    assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT);
    assert_eq!(e.to_string(), "image_url: is required");
    assert_eq!(gw.mock.request_count(), 0, "nothing was sent");
}

#[test]
fn request_to_a_vendor_m_path_maps_its_code() {
    let gw = Gateway::start();
    let e = failure(gw.client.request(
        "POST",
        "/vendorM/submit/imagine",
        Some(&json!({"prompt": "vendor-fail", "botType": "BOT_A"})),
    ));
    assert_eq!(e.status(), gw::GW_VENDOR);
    assert_eq!(parse(&e.to_json())["code"], 4);
}

#[test]
fn request_get_of_vendor_status_paths() {
    let gw = Gateway::start();
    let r = parse(&gw.client.request("GET", "/vendorR/task/abc", None).unwrap());
    assert_eq!(r["status"], "PENDING");
    assert_get(&gw.last_request(), "/vendorR/task/abc");

    let e = failure(gw.client.request("GET", "/vendorK/v1/videos/k_404", None));
    assert_eq!(e.status(), gw::GW_NOT_FOUND);
}
