//! `POST /v1/images/generations` and `POST /v1/images/edits` (JSON with an image URL, or
//! multipart with `image` and optional `mask` uploads).

use std::sync::Arc;

use axum::extract::State;
use axum::Extension;
use serde_json::{json, Map, Value};

use crate::clock::now_secs;
use crate::errors::{ok, ApiError, Reply};
use crate::intake::Ctx;
use crate::record::RecordedPart;
use crate::state::Shared;
use crate::validate as v;

/// A 1x1 PNG, returned for `response_format: b64_json`.
const TINY_PNG_B64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// Tokens the mock bills per generated image.
const TOKENS_PER_IMAGE: u64 = 4096;

pub async fn generate(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    v::req_str(body, "prompt")?;
    let format = v::opt_enum(body, "response_format", &["url", "b64_json"])?.unwrap_or("url");
    v::opt_image_size(body, "size")?;
    v::opt_int(body, "seed", -1, 2_147_483_647)?;
    v::opt_range(body, "guidance_scale", 1.0, 10.0)?;
    v::opt_bool(body, "watermark")?;
    let n = v::opt_int(body, "n", 1, 10)?.unwrap_or(1) as u64;

    let data: Vec<Value> = (0..n)
        .map(|_| {
            let id = shared.next_id();
            if format == "b64_json" {
                json!({"b64_json": TINY_PNG_B64})
            } else {
                json!({"url": format!("https://images.example/gen/{id}.png")})
            }
        })
        .collect();
    ok(json!({
        "created": now_secs(),
        "data": data,
        "model": model,
        "usage": {
            "generated_images": n,
            "output_tokens": n * TOKENS_PER_IMAGE,
            "total_tokens": n * TOKENS_PER_IMAGE,
        },
    }))
}

pub async fn edit(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let fields = match &ctx.rec.multipart {
        Some(parts) => form_fields(parts)?,
        None if content_type_is_multipart(&ctx) => {
            return Err(ApiError::bad_body("body: malformed multipart/form-data"))
        }
        None => {
            let body = v::body(&ctx.rec)?;
            check_json_images(body)?;
            body.clone()
        }
    };
    v::req_str(&fields, "model")?;
    let prompt = v::req_str(&fields, "prompt")?;
    v::opt_image_size(&fields, "size")?;
    let n = v::opt_int(&fields, "n", 1, 10)?.unwrap_or(1);
    let data: Vec<Value> = (0..n)
        .map(|_| {
            json!({
                "url": format!("https://images.example/edit/{}.png", shared.next_id()),
                "revised_prompt": format!("Edited: {prompt}"),
            })
        })
        .collect();
    ok(json!({"created": now_secs(), "data": data}))
}

/// The JSON edit's image: the document's `image` URL string, or OpenAI's
/// `images: [{"image_url": ..} | {"file_id": ..}]` (at least one; its `mask` then an object
/// too). gw's own checks (its `IMAGE_EDIT` rules) take the same.
fn check_json_images(body: &Map<String, Value>) -> Result<(), ApiError> {
    let images = v::opt_array(body, "images")?;
    if let Some(items) = images {
        if items.is_empty() {
            return Err(ApiError::invalid("images: must have at least 1 item"));
        }
        for (i, item) in items.iter().enumerate() {
            let Some(item) = item.as_object() else {
                return Err(ApiError::invalid(format!("images[{i}]: must be an object")));
            };
            let named = |k: &str| item.get(k).filter(|x| !x.is_null());
            for k in ["image_url", "file_id"] {
                if named(k).is_some_and(|x| !x.is_string()) {
                    return Err(ApiError::invalid(format!(
                        "images[{i}].{k}: must be a string"
                    )));
                }
            }
            if named("image_url").or(named("file_id")).is_none() {
                return Err(ApiError::invalid(format!(
                    "images[{i}]: must hold image_url or file_id"
                )));
            }
        }
    }
    match body.get("image").filter(|i| !i.is_null()) {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(_) => return Err(ApiError::invalid("image: must be a URL string")),
        None if images.is_some() => {}
        None => return Err(ApiError::invalid("image: is required")),
    }
    match body.get("mask") {
        None | Some(Value::Null) | Some(Value::String(_)) | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(ApiError::invalid("mask: must be a string or an object")),
    }
}

fn content_type_is_multipart(ctx: &Ctx) -> bool {
    ctx.rec
        .header("content-type")
        .is_some_and(|c| c.to_ascii_lowercase().starts_with("multipart/"))
}

/// Multipart parts as a JSON object so the JSON form's checks apply: text parts become
/// strings (`n` a number), and `image` must be present (file or URL text).
fn form_fields(parts: &[RecordedPart]) -> Result<Map<String, Value>, ApiError> {
    let mut fields = Map::new();
    for p in parts {
        let name = p.name.trim_end_matches("[]");
        if p.filename.is_some() {
            fields.insert(name.to_string(), json!(format!("<file {} bytes>", p.size)));
            continue;
        }
        let text = p.text.clone().unwrap_or_default();
        let value = if name == "n" {
            text.trim()
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| ApiError::invalid("n: must be an integer"))?
        } else {
            json!(text)
        };
        fields.insert(name.to_string(), value);
    }
    if !fields.contains_key("image") {
        return Err(ApiError::invalid("image: is required"));
    }
    Ok(fields)
}
