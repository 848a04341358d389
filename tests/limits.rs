//! The documented limits (the API document's endpoint tables and its Limits section), each
//! broken once: the call fails with `GW_INVALID_ARGUMENT`, the message names the concrete
//! field and the rule, and nothing reaches the gateway. Edge values inside the limits are
//! accepted, and `"validate": false` lets a broken body through to the gateway.

mod endpoint_support;

use endpoint_support::{client_for, error_json, failure, Gateway};
use gw::ops::{self, Operation};
use gw::validate::Check;
use gw::{Client, Error, FilePart, Form};
use gw_mock::MockGateway;
use serde_json::{json, Map, Value};

/// How a case is sent: a JSON operation with its path parameters, or the multipart edit.
#[derive(Clone, Copy)]
enum Via {
    Json(&'static Operation, &'static [&'static str]),
    Form,
    /// The multipart edit with its text fields only, no image file.
    FormWithoutImage,
}

impl Via {
    fn op(self) -> &'static Operation {
        match self {
            Via::Json(op, _) => op,
            Via::Form | Via::FormWithoutImage => &ops::IMAGE_EDIT_UPLOAD,
        }
    }

    fn send(self, client: &Client, body: &Value) -> Result<String, Error> {
        match self {
            Via::Json(op, params) => client.call(op, params, Some(body)),
            Via::Form => {
                let mut form = Form::from_fields(body)?;
                form.add_file(FilePart {
                    field: "image".into(),
                    filename: "in.png".into(),
                    content_type: "image/png".into(),
                    bytes: b"\x89PNG\r\n\x1a\n",
                })?;
                client.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &form)
            }
            Via::FormWithoutImage => {
                client.call_multipart(&ops::IMAGE_EDIT_UPLOAD, &[], &Form::from_fields(body)?)
            }
        }
    }
}

/// One broken limit: the body and the exact message the client must give.
struct Case {
    via: Via,
    body: Value,
    message: String,
}

/// `base` with `patch` applied: a null in `patch` removes the key.
fn with(base: &Value, patch: Value) -> Value {
    let mut out: Map<String, Value> = base.as_object().unwrap().clone();
    for (k, v) in patch.as_object().unwrap() {
        if v.is_null() {
            out.remove(k);
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

/// A chat body whose second message carries `part` after a text part.
fn chat_part(part: Value) -> Value {
    json!({"model": "m", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "look"}, part]}
    ]})
}

/// Every rule of `src/api/rules.rs` broken once, grouped by endpoint (one line per case).
#[rustfmt::skip]
fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    let mut add = |via: Via, body: Value, message: &str| {
        all.push(Case {
            via,
            body,
            message: message.to_string(),
        })
    };

    // POST /v1/chat/completions
    let chat = Via::Json(&ops::CHAT, &[]);
    let base = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    add(chat, with(&base, json!({"model": null})), "model: is required");
    add(chat, with(&base, json!({"model": 5})), "model: must be a string");
    add(chat, with(&base, json!({"messages": null})), "messages: is required");
    add(chat, with(&base, json!({"messages": []})), "messages: must have at least 1 item(s) (got 0)");
    add(chat, with(&base, json!({"messages": [{"role": "user", "content": "a"}, {"content": "b"}]})), "messages[1].role: is required");
    add(chat, with(&base, json!({"messages": [{"role": "robot", "content": "b"}]})), "messages[0].role: must be one of system, user, assistant, tool, developer, function (got \"robot\")");
    add(chat, with(&base, json!({"messages": [{"role": "user", "content": 5}]})), "messages[0].content: must be a string or an array");
    add(chat, chat_part(json!({"text": "no type"})), "messages[1].content[1].type: is required");
    add(chat, chat_part(json!({"type": "audio_url", "audio_url": {"url": "u"}})), "messages[1].content[1].type: must be one of text, image_url, video_url, input_audio, file, refusal (got \"audio_url\")");
    add(chat, chat_part(json!({"type": "image_url", "image_url": {}})), "messages[1].content[1].image_url.url: is required");
    add(chat, chat_part(json!({"type": "video_url", "video_url": {"fps": 1}})), "messages[1].content[1].video_url.url: is required");
    add(chat, chat_part(json!({"type": "video_url", "video_url": {"url": "data:video/webm;base64,GkXfow=="}})), "messages[1].content[1].video_url.url: data URI must be video/mp4 or video/quicktime (mov) (got 'video/webm')");
    // 72,000,000 base64 characters decode to 54,000,000 bytes (51.5 MiB): over the 50 MB cap.
    let big = format!("data:video/mp4;base64,{}", "A".repeat(72_000_000));
    add(chat, chat_part(json!({"type": "video_url", "video_url": {"url": big}})), "messages[1].content[1].video_url.url: video data must be at most 50 MB (got 51.5 MB)");
    add(chat, chat_part(json!({"type": "image_url"})), "messages[1].content[1].image_url: is required when type is image_url");
    add(chat, chat_part(json!({"type": "video_url"})), "messages[1].content[1].video_url: is required when type is video_url");
    add(chat, chat_part(json!({"type": "text"})), "messages[1].content[1].text: is required when type is text");
    add(chat, chat_part(json!({"type": "input_audio"})), "messages[1].content[1].input_audio: is required when type is input_audio");
    add(chat, chat_part(json!({"type": "file"})), "messages[1].content[1].file: is required when type is file");
    add(chat, chat_part(json!({"type": "refusal"})), "messages[1].content[1].refusal: is required when type is refusal");
    add(chat, chat_part(json!({"type": "video_url", "video_url": {"url": "https://v.example/a.mp4", "fps": 0.1}})), "messages[1].content[1].video_url.fps: must be between 0.2 and 5 (got 0.1)");
    add(chat, chat_part(json!({"type": "video_url", "video_url": {"url": "https://v.example/a.mp4", "fps": 5.5}})), "messages[1].content[1].video_url.fps: must be between 0.2 and 5 (got 5.5)");
    add(chat, with(&base, json!({"max_tokens": 0})), "max_tokens: must be >= 1 (got 0)");
    add(chat, with(&base, json!({"temperature": 2.1})), "temperature: must be between 0 and 2 (got 2.1)");
    add(chat, with(&base, json!({"temperature": -0.1})), "temperature: must be between 0 and 2 (got -0.1)");
    add(chat, with(&base, json!({"top_p": 1.5})), "top_p: must be between 0 and 1 (got 1.5)");
    add(chat, with(&base, json!({"stream": "yes"})), "stream: must be a boolean");
    add(chat, with(&base, json!({"stop": ["a", "b", "c", "d", "e"]})), "stop: must have at most 4 items (got 5)");
    add(chat, with(&base, json!({"stop": ["a", 5]})), "stop[1]: must be a string");
    add(chat, with(&base, json!({"frequency_penalty": -2.5})), "frequency_penalty: must be between -2 and 2 (got -2.5)");
    add(chat, with(&base, json!({"presence_penalty": 2.5})), "presence_penalty: must be between -2 and 2 (got 2.5)");
    // An open set (issue 39): an effort gw does not know is sent; only the type is checked.
    add(chat, with(&base, json!({"reasoning_effort": 5})), "reasoning_effort: must be a string, e.g. one of none, minimal, low, medium, high, xhigh, max (got 5)");

    // POST /v1/responses
    let responses = Via::Json(&ops::RESPONSES, &[]);
    let base = json!({"model": "m", "input": "hi"});
    add(responses, with(&base, json!({"model": null})), "model: is required");
    add(responses, with(&base, json!({"model": ["m"]})), "model: must be a string");
    add(responses, with(&base, json!({"input": null})), "input: is required");
    add(responses, with(&base, json!({"input": 5})), "input: must be a string or an array");
    add(responses, with(&base, json!({"stream": 1})), "stream: must be a boolean");
    add(responses, with(&base, json!({"tools": {"type": "web_search_preview"}})), "tools: must be an array");
    add(responses, with(&base, json!({"tools": [{"type": "web_search_preview"}, {}]})), "tools[1].type: is required");
    add(responses, with(&base, json!({"reasoning": "high"})), "reasoning: must be an object");
    add(responses, with(&base, json!({"reasoning": {"effort": true}})), "reasoning.effort: must be a string, e.g. one of none, minimal, low, medium, high, xhigh, max (got true)");

    // POST /v1/embeddings
    let embeddings = Via::Json(&ops::EMBEDDINGS, &[]);
    let base = json!({"model": "m", "input": "hi"});
    let tokens: Vec<u32> = (0..8193).collect();
    add(embeddings, with(&base, json!({"model": null})), "model: is required");
    add(embeddings, with(&base, json!({"input": null})), "input: is required");
    add(embeddings, with(&base, json!({"input": 5})), "input: must be a string or an array");
    add(embeddings, with(&base, json!({"input": [[1, 2], tokens]})), "input: each input must be at most 8192 tokens (got 8193)");
    add(embeddings, with(&base, json!({"input": tokens})), "input: each input must be at most 8192 tokens (got 8193)");
    add(embeddings, with(&base, json!({"encoding_format": "int8"})), "encoding_format: must be one of float, base64 (got \"int8\")");
    add(embeddings, with(&base, json!({"dimensions": 0})), "dimensions: must be >= 1 (got 0)");

    // POST /v1/images/generations
    let generate = Via::Json(&ops::IMAGE_GENERATE, &[]);
    let base = json!({"model": "m", "prompt": "p"});
    add(generate, with(&base, json!({"model": null})), "model: is required");
    add(generate, with(&base, json!({"prompt": null})), "prompt: is required");
    add(generate, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(generate, with(&base, json!({"response_format": "png"})), "response_format: must be one of url, b64_json (got \"png\")");
    add(generate, with(&base, json!({"size": "1024*1024"})), "size: must be <width>x<height> or auto, e.g. 1024x1024 (got \"1024*1024\")");
    add(generate, with(&base, json!({"seed": -2})), "seed: must be between -1 and 2147483647 (got -2)");
    add(generate, with(&base, json!({"seed": 2_147_483_648_i64})), "seed: must be between -1 and 2147483647 (got 2147483648)");
    add(generate, with(&base, json!({"seed": 1.5})), "seed: must be an integer between -1 and 2147483647");
    add(generate, with(&base, json!({"guidance_scale": 0.5})), "guidance_scale: must be between 1 and 10 (got 0.5)");
    add(generate, with(&base, json!({"guidance_scale": 10.5})), "guidance_scale: must be between 1 and 10 (got 10.5)");
    add(generate, with(&base, json!({"watermark": "no"})), "watermark: must be a boolean");
    add(generate, with(&base, json!({"n": 0})), "n: must be >= 1 (got 0)");

    // POST /v1/images/edits, JSON form
    let edit = Via::Json(&ops::IMAGE_EDIT, &[]);
    let base = json!({"model": "m", "prompt": "p", "image": "https://i.example/a.png"});
    add(edit, with(&base, json!({"model": null})), "model: is required");
    add(edit, with(&base, json!({"prompt": null})), "prompt: is required");
    add(edit, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(edit, with(&base, json!({"image": null})), "image: is required unless images is given");
    add(edit, with(&base, json!({"image": {"url": "u"}})), "image: must be a string");
    add(edit, with(&base, json!({"image": null, "images": {"image_url": "u"}})), "images: must be an array");
    add(edit, with(&base, json!({"image": null, "images": []})), "images: must have at least 1 item(s) (got 0)");
    add(edit, with(&base, json!({"image": null, "images": ["u"]})), "images[0]: must be an object");
    add(edit, with(&base, json!({"image": null, "images": [{"url": "u"}]})), "images[0].image_url: is required unless file_id is given");
    add(edit, with(&base, json!({"image": null, "images": [{"image_url": {"url": "u"}}]})), "images[0].image_url: must be a string");
    add(edit, with(&base, json!({"image": null, "images": [{"file_id": 7}]})), "images[0].file_id: must be a string");
    add(edit, with(&base, json!({"mask": 5})), "mask: must be a string or an object");
    add(edit, with(&base, json!({"n": 0})), "n: must be >= 1 (got 0)");
    // A keyword gw does not know ("big") is sent (issue 39); a digit starts a <width>x<height>.
    add(edit, with(&base, json!({"size": "1024x"})), "size: must be <width>x<height> or auto, e.g. 1024x1024 (got \"1024x\")");

    // POST /v1/images/edits, multipart form
    let base = json!({"model": "m", "prompt": "p"});
    add(Via::FormWithoutImage, base.clone(), "image: is required");
    add(Via::Form, with(&base, json!({"model": null})), "model: is required");
    add(Via::Form, with(&base, json!({"prompt": null})), "prompt: is required");
    add(Via::Form, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(Via::Form, with(&base, json!({"n": 0})), "n: must be >= 1 (got 0)");
    add(Via::Form, with(&base, json!({"size": "0x10"})), "size: must be <width>x<height> or auto, e.g. 1024x1024 (got \"0x10\")");

    // Video: unified, character, remix
    let create = Via::Json(&ops::VIDEO_CREATE, &[]);
    let base = json!({"model": "m", "prompt": "p", "duration": 5});
    add(create, with(&base, json!({"model": null})), "model: is required");
    add(create, with(&base, json!({"prompt": null})), "prompt: is required");
    add(create, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(create, with(&base, json!({"duration": 0})), "duration: must be >= 1 (got 0)");
    let generations = Via::Json(&ops::VIDEO_GENERATE, &[]);
    add(generations, json!({"prompt": "p"}), "model: is required");
    let character = Via::Json(&ops::VIDEO_CHARACTER, &[]);
    let base = json!({"model": "m", "prompt": "p", "character_id": "c"});
    add(character, with(&base, json!({"model": null})), "model: is required");
    add(character, with(&base, json!({"prompt": null})), "prompt: is required");
    add(character, with(&base, json!({"character_id": null})), "character_id: is required");
    add(character, with(&base, json!({"character_id": 7})), "character_id: must be a string");
    let remix = Via::Json(&ops::VIDEO_REMIX, &["video_1"]);
    let base = json!({"prompt": "p"});
    add(remix, with(&base, json!({"prompt": null})), "prompt: is required");
    add(remix, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(remix, with(&base, json!({"size": "1280:720"})), "size: must be <width>x<height>, e.g. 1024x1024 (got \"1280:720\")");

    // Vendor K
    add(Via::Json(&ops::VENDOR_K_TEXT2VIDEO, &[]), json!({"duration": "5"}), "prompt: is required");
    let effects = Via::Json(&ops::VENDOR_K_EFFECTS, &[]);
    let base = json!({"video": "https://v.example/a.mp4", "effect": "squish"});
    add(effects, with(&base, json!({"video": null})), "video: is required");
    add(effects, with(&base, json!({"video": 5})), "video: must be a string");
    add(effects, with(&base, json!({"effect": null})), "effect: is required");
    add(effects, with(&base, json!({"effect": 5})), "effect: must be a string");
    let extend = Via::Json(&ops::VENDOR_K_EXTEND, &[]);
    add(extend, json!({}), "video_id: is required");
    add(extend, json!({"video_id": 77}), "video_id: must be a string");

    // Vendor H
    let h = Via::Json(&ops::VENDOR_H_IMAGE_TO_VIDEO, &[]);
    let base = json!({"image_url": "https://i.example/a.png", "prompt": "p"});
    add(h, with(&base, json!({"image_url": null})), "image_url: is required");
    add(h, with(&base, json!({"image_url": 5})), "image_url: must be a string");
    add(h, with(&base, json!({"prompt": null})), "prompt: is required");
    add(h, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(h, with(&base, json!({"duration": 0})), "duration: must be >= 1 (got 0)");
    add(h, with(&base, json!({"aspect_ratio": 4})), "aspect_ratio: must be a string, e.g. one of 16:9, 9:16, 1:1 (got 4)");

    // Vendor M
    let m = Via::Json(&ops::VENDOR_M_IMAGINE, &[]);
    let base = json!({"prompt": "p", "botType": "BOT_A"});
    add(m, with(&base, json!({"prompt": null})), "prompt: is required");
    add(m, with(&base, json!({"prompt": 5})), "prompt: must be a string");
    add(m, with(&base, json!({"botType": null})), "botType: is required");
    add(m, with(&base, json!({"botType": 1})), "botType: must be a string");
    add(m, with(&base, json!({"base64Array": "aGk="})), "base64Array: must be an array");
    add(m, with(&base, json!({"base64Array": ["aGk=", 5]})), "base64Array[1]: must be a string");
    add(m, with(&base, json!({"notifyHook": 5})), "notifyHook: must be a string");
    add(m, with(&base, json!({"state": {"a": 1}})), "state: must be a string");

    // Vendor I
    let describe = Via::Json(&ops::VENDOR_I_DESCRIBE, &[]);
    add(describe, json!({}), "image: is required");
    add(describe, json!({"image": ["u"]}), "image: must be a string");
    let i_generate = Via::Json(&ops::VENDOR_I_GENERATE, &[]);
    add(i_generate, json!({"aspect_ratio": "1:1"}), "prompt: is required");
    add(i_generate, json!({"prompt": "p", "aspect_ratio": 1.5}), "aspect_ratio: must be a string, e.g. one of 1:1, 16:9, 9:16, 4:3, 3:4 (got 1.5)");
    add(Via::Json(&ops::VENDOR_I_TEXT_TO_IMAGE, &[]), json!({}), "prompt: is required");

    // Vendor F
    let f = Via::Json(&ops::VENDOR_F_EDIT, &["fast-model"]);
    let base = json!({"image": "https://i.example/a.png", "prompt": "p"});
    add(f, with(&base, json!({"image": null})), "image: is required");
    add(f, with(&base, json!({"image": 5})), "image: must be a string");
    add(f, with(&base, json!({"prompt": null})), "prompt: is required");
    add(f, with(&base, json!({"prompt": 5})), "prompt: must be a string");

    // POST /v1beta/models/{model}:generateContent
    let native = Via::Json(&ops::GENERATE_CONTENT, &["native-model"]);
    let base = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    add(native, json!({}), "contents: is required");
    add(native, json!({"contents": []}), "contents: must have at least 1 item(s) (got 0)");
    add(native, json!({"contents": [{"role": "system", "parts": [{"text": "x"}]}]}), "contents[0].role: must be one of user, model, function (got \"system\")");
    add(native, json!({"contents": [{"role": "user"}]}), "contents[0].parts: is required");
    add(native, json!({"contents": [{"role": "user", "parts": "hi"}]}), "contents[0].parts: must be an array");
    add(native, with(&base, json!({"tools": {"functionDeclarations": []}})), "tools: must be an array");
    add(native, with(&base, json!({"generationConfig": [0.5]})), "generationConfig: must be an object");
    add(native, with(&base, json!({"generationConfig": {"temperature": 2.5}})), "generationConfig.temperature: must be between 0 and 2 (got 2.5)");
    add(native, with(&base, json!({"generationConfig": {"topP": 1.5}})), "generationConfig.topP: must be between 0 and 1 (got 1.5)");

    all
}

/// The field a message names: everything before the first ": ".
fn field_of(message: &str) -> &str {
    message.split_once(": ").expect("'<field>: <rule>'").0
}

#[test]
fn every_broken_limit_is_refused_before_sending() {
    let gw = Gateway::start();
    for case in cases() {
        let op = case.via.op().name;
        let e = failure(case.via.send(&gw.client, &case.body));
        assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT, "{op}: {e}");
        assert_eq!(e.to_string(), case.message, "{op}");
        let err = error_json(&e)["error"].clone();
        assert_eq!(err["param"], field_of(&case.message), "{op}: {err}");
        assert_eq!(err["type"], "invalid_request_error");
        assert_eq!(err["code"], "invalid_argument");
        assert_eq!(err["status"], gw::GW_INVALID_ARGUMENT);
        assert_eq!(err["message"], case.message.as_str());
        assert_eq!(
            gw.mock.request_count(),
            0,
            "{op}: {} was sent",
            case.message
        );
    }
}

/// `messages[1].content[0].fps` -> `messages[].content[].fps`, the rule's own spelling.
fn rule_path(concrete: &str) -> String {
    let mut out = String::new();
    let mut in_index = false;
    for c in concrete.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push('[');
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

/// What a message must say to name this rule (its kind and its numbers).
fn rule_words(check: Check) -> String {
    match check {
        Check::Required => "is required".into(),
        Check::String => "must be a string".into(),
        Check::Bool => "must be a boolean".into(),
        Check::Array => "must be an array".into(),
        Check::Object => "must be an object".into(),
        Check::StringOrArray => "must be a string or an array".into(),
        Check::Range(min, max) => format!("must be between {min} and {max}"),
        Check::IntRange(min, i64::MAX) => format!("must be >= {min}"),
        Check::IntRange(min, max) => format!("between {min} and {max}"),
        Check::MinItems(n) => format!("must have at least {n} item"),
        Check::MaxItems(n) => format!("must have at most {n} items"),
        Check::OneOf(allowed) => format!("must be one of {}", allowed.join(", ")),
        Check::Known(known) => format!("must be a string, e.g. one of {}", known.join(", ")),
        Check::Size => "must be <width>x<height>".into(),
        Check::SizeOrAuto => "must be <width>x<height> or auto".into(),
        Check::RequiredUnless(other) => format!("is required unless {other} is given"),
        Check::StringOrObject => "must be a string or an object".into(),
        Check::VideoDataUri { max_bytes } => {
            format!("must be at most {} MB", max_bytes / (1024 * 1024))
        }
        Check::RequiredWhen { field, equals } => format!("is required when {field} is {equals}"),
        Check::MaxTokensPerInput(n) => format!("must be at most {n} tokens"),
    }
}

/// The table above is complete: each rule of every operation is broken by some case
/// whose message names that rule's field and says that rule. A rule added to
/// `src/api/rules.rs` without a case here fails this test.
#[test]
fn the_table_breaks_every_rule_of_every_operation() {
    let cases = cases();
    let mut operations: Vec<&Operation> = ops::ALL.to_vec();
    operations.push(&ops::IMAGE_EDIT_UPLOAD);
    let mut uncovered = Vec::new();
    for op in operations {
        for rule in op.rules {
            let words = rule_words(rule.check);
            let covered = cases.iter().any(|c| {
                c.via.op().name == op.name
                    && rule_path(field_of(&c.message)) == rule.field
                    && c.message.contains(&words)
            });
            if !covered {
                uncovered.push(format!("{}: {} {:?}", op.name, rule.field, rule.check));
            }
        }
    }
    assert!(
        uncovered.is_empty(),
        "rules no case breaks:\n{}",
        uncovered.join("\n")
    );
}

#[test]
fn the_video_data_uri_types_are_named_after_the_document() {
    // "formats mp4 or mov": both MIME spellings of mov pass, anything else is refused.
    let gw = Gateway::start();
    for mime in ["video/mp4", "video/quicktime", "video/mov"] {
        let body = chat_part(
            json!({"type": "video_url", "video_url": {"url": format!("data:{mime};base64,AAAAIGZ0eXA="), "fps": 1}}),
        );
        gw.client.call(&ops::CHAT, &[], Some(&body)).unwrap();
    }
    assert_eq!(gw.mock.request_count(), 3);
}

#[test]
fn content_parts_lacking_their_payload_are_refused_before_sending() {
    // A part of type image_url / video_url / text without its object or text is not a
    // valid content part (API document, "Content part"); the mock answers these 400.
    let gw = Gateway::start();
    for (part, field) in [
        (
            json!({"type": "image_url"}),
            "messages[1].content[1].image_url",
        ),
        (
            json!({"type": "video_url"}),
            "messages[1].content[1].video_url",
        ),
        (json!({"type": "text"}), "messages[1].content[1].text"),
    ] {
        let e = failure(
            gw.client
                .call(&ops::CHAT, &[], Some(&chat_part(part.clone()))),
        );
        assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT, "{part}: {e}");
        assert!(
            e.to_string().starts_with(&format!("{field}: ")),
            "{part}: {e}"
        );
    }
    assert_eq!(gw.mock.request_count(), 0);
}

#[test]
fn a_missing_path_parameter_is_refused_before_sending() {
    let gw = Gateway::start();
    let e = failure(
        gw.client
            .call(&ops::VIDEO_REMIX, &[], Some(&json!({"prompt": "p"}))),
    );
    assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT);
    assert_eq!(error_json(&e)["error"]["param"], "id");
    let e = failure(gw.client.call(&ops::VENDOR_R_TASK, &[""], None));
    assert_eq!(e.status(), gw::GW_INVALID_ARGUMENT);
    assert_eq!(error_json(&e)["error"]["param"], "taskId");
    assert_eq!(gw.mock.request_count(), 0);
}

#[test]
fn request_applies_the_limits_of_the_path_it_reaches() {
    let gw = Gateway::start();
    let body =
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 3});
    let e = failure(
        gw.client
            .request("POST", "/v1/chat/completions", Some(&body)),
    );
    assert_eq!(
        e.to_string(),
        "temperature: must be between 0 and 2 (got 3)"
    );
    let e = failure(gw.client.request(
        "POST",
        "/v1beta/models/x:generateContent",
        Some(&json!({"contents": []})),
    ));
    assert_eq!(
        e.to_string(),
        "contents: must have at least 1 item(s) (got 0)"
    );
    assert_eq!(gw.mock.request_count(), 0);
}

// ---- values inside the limits ----

#[test]
fn edge_values_inside_the_limits_are_accepted() {
    let gw = Gateway::start();
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let mut accepted: Vec<(Via, Value)> = Vec::new();
    let c = Via::Json(&ops::CHAT, &[]);
    for patch in [
        json!({"temperature": 0}),
        json!({"temperature": 2}),
        json!({"top_p": 0}),
        json!({"top_p": 1}),
        json!({"frequency_penalty": -2, "presence_penalty": 2}),
        json!({"frequency_penalty": 2.0, "presence_penalty": -2.0}),
        json!({"stop": ["a", "b", "c", "d"]}),
        json!({"max_tokens": 1}),
        json!({"reasoning_effort": "low"}),
        json!({"reasoning_effort": "medium"}),
        json!({"reasoning_effort": "high"}),
    ] {
        accepted.push((c, with(&chat, patch)));
    }
    for fps in [0.2, 1.0, 5.0] {
        accepted.push((c, chat_part(json!({"type": "video_url", "video_url": {"url": "https://v.example/a.mov", "fps": fps}}))));
    }
    let responses = Via::Json(&ops::RESPONSES, &[]);
    for effort in ["minimal", "low", "medium", "high"] {
        accepted.push((
            responses,
            json!({"model": "m", "input": "hi", "reasoning": {"effort": effort}}),
        ));
    }
    let tokens: Vec<u32> = (0..8192).collect();
    accepted.push((
        Via::Json(&ops::EMBEDDINGS, &[]),
        json!({"model": "m", "input": [tokens], "encoding_format": "float"}),
    ));
    let generate = Via::Json(&ops::IMAGE_GENERATE, &[]);
    for patch in [
        json!({"seed": -1, "guidance_scale": 1}),
        json!({"seed": 2_147_483_647, "guidance_scale": 10}),
        json!({"seed": 0, "guidance_scale": 2.5, "size": "1x1", "n": 1}),
    ] {
        accepted.push((generate, with(&json!({"model": "m", "prompt": "p"}), patch)));
    }
    for ratio in ["16:9", "9:16", "1:1"] {
        accepted.push((
            Via::Json(&ops::VENDOR_H_IMAGE_TO_VIDEO, &[]),
            json!({"image_url": "u", "prompt": "p", "duration": 1, "aspect_ratio": ratio}),
        ));
    }
    for ratio in ["1:1", "16:9", "9:16", "4:3", "3:4"] {
        accepted.push((
            Via::Json(&ops::VENDOR_I_GENERATE, &[]),
            json!({"prompt": "p", "aspect_ratio": ratio}),
        ));
    }
    for cfg in [
        json!({"temperature": 0, "topP": 0}),
        json!({"temperature": 2, "topP": 1}),
    ] {
        accepted.push((Via::Json(&ops::GENERATE_CONTENT, &["m"]), json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": cfg})));
    }

    for (i, (via, body)) in accepted.iter().enumerate() {
        let answer = via.send(&gw.client, body);
        assert!(answer.is_ok(), "{} {body}: {answer:?}", via.op().name);
        let requests = gw.mock.requests();
        assert_eq!(requests.len(), i + 1);
        assert_eq!(requests[i].json.as_ref(), Some(body), "sent as given");
    }
}

/// Values OpenAI's API defines, which real gateways accept, are sent although the API
/// document lists fewer: a value outside the document's list is refused only when OpenAI
/// does not define it either (issue 9).
#[test]
fn values_openai_defines_are_sent() {
    let gw = Gateway::start();
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let c = Via::Json(&ops::CHAT, &[]);
    let mut accepted: Vec<(Via, Value)> = vec![
        (
            c,
            json!({"model": "m", "messages": [{"role": "developer", "content": "be brief"}, {"role": "user", "content": "hi"}]}),
        ),
        (
            c,
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "function", "name": "f", "content": "{}"}]}),
        ),
        (
            c,
            chat_part(
                json!({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}),
            ),
        ),
        (
            c,
            chat_part(json!({"type": "file", "file": {"file_id": "file-1"}})),
        ),
        (
            c,
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}]}),
        ),
    ];
    for effort in ["none", "minimal", "xhigh", "max"] {
        accepted.push((c, with(&chat, json!({"reasoning_effort": effort}))));
        accepted.push((
            Via::Json(&ops::RESPONSES, &[]),
            json!({"model": "m", "input": "hi", "reasoning": {"effort": effort}}),
        ));
    }
    accepted.push((
        Via::Json(&ops::IMAGE_GENERATE, &[]),
        json!({"model": "m", "prompt": "p", "size": "auto"}),
    ));
    let edit = Via::Json(&ops::IMAGE_EDIT, &[]);
    accepted.push((
        edit,
        json!({"model": "m", "prompt": "p", "image": "https://i.example/a.png", "size": "auto"}),
    ));
    // OpenAI's JSON edit form: images as objects, the mask an object too.
    accepted.push((edit, json!({"model": "m", "prompt": "p", "images": [{"image_url": "https://i.example/a.png"}, {"file_id": "file-2"}], "mask": {"image_url": "https://i.example/m.png"}})));
    accepted.push((
        Via::Form,
        json!({"model": "m", "prompt": "p", "size": "auto"}),
    ));

    for (i, (via, body)) in accepted.iter().enumerate() {
        let answer = via.send(&gw.client, body);
        assert!(answer.is_ok(), "{} {body}: {answer:?}", via.op().name);
        assert_eq!(gw.mock.request_count(), i + 1, "{body} was sent");
    }
}

// ---- "validate": false ----

#[test]
fn validate_false_lets_a_broken_body_reach_the_gateway() {
    let gw = Gateway::start_with(|o| o.validate = false);
    let body =
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 3});
    let e = failure(gw.client.call(&ops::CHAT, &[], Some(&body)));
    assert_eq!(e.status(), gw::GW_BAD_REQUEST);
    assert_eq!(gw.only_request().json.as_ref(), Some(&body));
    let err = error_json(&e)["error"].clone();
    assert_eq!(err["message"], "temperature: must be between 0 and 2");
    assert_eq!(err["code"], "invalid_parameter");
    assert_eq!(err["status"], 400);
}

#[test]
fn validate_false_sends_every_broken_case() {
    let mock = MockGateway::start();
    let client = client_for(&mock, |o| o.validate = false);
    let mut sent = 0;
    for case in cases() {
        if case.message.contains("at most 50 MB") {
            continue; // 68 MB of base64 is not worth a round trip here
        }
        let result = case.via.send(&client, &case.body);
        sent += 1;
        assert_eq!(mock.request_count(), sent, "{} was not sent", case.message);
        if let Err(e) = result {
            assert_ne!(e.status(), gw::GW_INVALID_ARGUMENT, "{}: {e}", case.message);
        }
    }
}
