//! The vendor-style endpoints (neutral names K, H, M, I, R, F). Their bodies carry their own
//! result codes, so failures the client must map to GW_VENDOR come back as HTTP 200 here.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::Method;
use axum::Extension;
use serde_json::{json, Value};

use crate::clock::{iso8601, now_millis, now_secs};
use crate::errors::{ok, ApiError, Reply};
use crate::intake::Ctx;
use crate::state::{Shared, Task};
use crate::validate as v;

// ---- vendor K: video tasks in a {code, message, request_id, data} wrapper ----

/// Which vendor K submit operation a request is; decides the required field.
#[derive(Clone, Copy)]
pub enum KOp {
    Text2Video,
    Image2Video,
    MultiImage2Video,
    Effects,
    Extend,
}

/// One axum handler per vendor K submit path, all sharing `k_submit`.
macro_rules! k_handlers {
    ($($name:ident => $op:expr),* $(,)?) => {$(
        pub async fn $name(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
            k_submit(&shared, &ctx, $op)
        }
    )*};
}

k_handlers! {
    k_text2video => KOp::Text2Video,
    k_image2video => KOp::Image2Video,
    k_multi_image2video => KOp::MultiImage2Video,
    k_effects => KOp::Effects,
    k_extend => KOp::Extend,
}

fn k_submit(shared: &Shared, ctx: &Ctx, op: KOp) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::opt_str(body, "model_name")?
        .or(v::opt_str(body, "model")?)
        .unwrap_or("");
    let prompt = v::opt_str(body, "prompt")?.unwrap_or("");
    let probe = match op {
        KOp::Text2Video => v::req_str(body, "prompt")?,
        KOp::Image2Video => {
            v::req_str(body, "image")?;
            prompt
        }
        KOp::MultiImage2Video => {
            v::req_array(body, "image_list")?;
            prompt
        }
        KOp::Effects => {
            v::req_str(body, "video")?;
            v::req_str(body, "effect")?
        }
        KOp::Extend => v::req_str(body, "video_id")?,
    };
    let n = shared.next_id();
    let id = format!("k_{n}");
    let task = Task::new(model, prompt, v::wants_failure(probe));
    let created = task.created * 1000;
    shared.insert_task(&id, task);
    ok(json!({
        "code": 0, "message": "SUCCEED", "request_id": format!("req_{n}"),
        "data": {"task_id": id, "task_status": "submitted", "created_at": created, "updated_at": now_millis()},
    }))
}

/// `GET /vendorK/v1/videos/{id}`: submitted -> processing -> succeed | failed.
pub async fn k_status(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let task = id
        .starts_with("k_")
        .then(|| shared.poll_task(&id))
        .flatten()
        .ok_or_else(|| ApiError::no_such("task", &id))?;
    let created = task.created * 1000;
    let mut data = json!({"task_id": id, "created_at": created, "updated_at": now_millis()});
    match task.stage() {
        0 | 1 => data["task_status"] = json!("submitted"),
        2 => data["task_status"] = json!("processing"),
        _ if task.fails => {
            data["task_status"] = json!("failed");
            data["task_status_msg"] = json!("video generation failed");
        }
        _ => {
            data["task_status"] = json!("succeed");
            data["task_result"] = json!({"videos": [{
                "id": format!("{id}_v0"),
                "url": format!("https://videos.example/{id}.mp4"),
                "duration": "5",
            }]});
        }
    }
    ok(
        json!({"code": 0, "message": "SUCCEED", "request_id": format!("req_{}", shared.next_id()), "data": data}),
    )
}

// ---- vendor H: image to video, {code, message, data}, code 0 = success ----

pub async fn h_image_to_video(
    State(shared): State<Arc<Shared>>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    v::req_str(body, "image_url")?;
    let prompt = v::req_str(body, "prompt")?;
    v::opt_str(body, "model")?;
    v::opt_int(body, "duration", 1, 60)?;
    v::opt_enum(body, "aspect_ratio", &["16:9", "9:16", "1:1"])?;
    if prompt.contains("vendor-fail") {
        return ok(json!({"code": 1001, "message": "insufficient quota", "data": null}));
    }
    let id = format!("h_{}", shared.next_id());
    ok(json!({
        "code": 0, "message": "success",
        "data": {"task_id": id, "status": "pending", "created_at": iso8601(now_secs())},
    }))
}

// ---- vendor M: imagine, {code, description, result, properties}, code 1 = success ----

pub async fn m_imagine(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let prompt = v::req_str(body, "prompt")?;
    v::opt_str(body, "botType")?;
    v::opt_str(body, "notifyHook")?;
    v::opt_str(body, "state")?;
    if let Some(images) = v::opt_array(body, "base64Array")? {
        if !images.iter().all(Value::is_string) {
            return Err(ApiError::invalid(
                "base64Array: must be an array of strings",
            ));
        }
    }
    if prompt.contains("vendor-fail") {
        return ok(
            json!({"code": 4, "description": "banned prompt", "result": null, "properties": {}}),
        );
    }
    ok(json!({
        "code": 1,
        "description": "Submit success",
        "result": format!("m_{}", shared.next_id()),
        "properties": {"channelId": "ch_1", "instanceId": "inst_1"},
    }))
}

// ---- vendor I: describe, generate, text-to-image ----

pub async fn i_describe(Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let image = v::req_str(body, "image")?;
    let name = image.rsplit('/').next().unwrap_or(image);
    let descriptions: Vec<String> = (1..=4)
        .map(|i| format!("Description {i} of 4 for {name}"))
        .collect();
    ok(json!({"descriptions": descriptions}))
}

pub async fn i_generate(
    State(shared): State<Arc<Shared>>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    let prompt = v::req_str(body, "prompt")?;
    v::opt_enum(body, "aspect_ratio", &["1:1", "16:9", "9:16", "4:3", "3:4"])?;
    // Seed derived from the prompt: same prompt, same seed.
    let seed = prompt
        .bytes()
        .fold(17u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)))
        % 2_147_483_647;
    let url = format!("https://images.example/vendorI/{}.png", shared.next_id());
    ok(json!({"created": now_secs(), "data": [{"url": url, "seed": seed}]}))
}

pub async fn i_text_to_image(
    State(shared): State<Arc<Shared>>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    v::req_str(body, "prompt")?;
    let url = format!("https://images.example/vendorI/{}.png", shared.next_id());
    ok(json!({"created": now_secs(), "data": [{"url": url}]}))
}

// ---- vendor R: task status, PENDING -> RUNNING -> SUCCEEDED | FAILED ----

/// Any id is accepted and gets a record on its first poll; ids containing "fail" fail.
pub async fn r_task(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let task = shared.poll_or_create(&id, || Task::new("", "", v::wants_failure(&id)));
    let mut out = json!({"id": id, "createdAt": iso8601(task.created)});
    match task.stage() {
        0 | 1 => out["status"] = json!("PENDING"),
        2 => {
            out["status"] = json!("RUNNING");
            out["progress"] = json!(0.5);
        }
        _ if task.fails => {
            out["status"] = json!("FAILED");
            out["failure"] = json!("video generation failed");
            out["failureCode"] = json!("INTERNAL");
        }
        _ => {
            out["status"] = json!("SUCCEEDED");
            out["progress"] = json!(1.0);
            out["output"] = json!([format!("https://videos.example/{id}.mp4")]);
        }
    }
    ok(out)
}

// ---- vendor F: POST /vendorF/{model_slug}/edit (the slug may contain slashes) ----

pub async fn f_dispatch(
    State(shared): State<Arc<Shared>>,
    method: Method,
    Path(rest): Path<String>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let slug = rest.strip_suffix("/edit").filter(|s| !s.is_empty());
    if method != Method::POST || slug.is_none() {
        return Err(ApiError::no_endpoint(method.as_str(), &ctx.rec.path));
    }
    let body = v::body(&ctx.rec)?;
    v::req_str(body, "image")?;
    let prompt = v::req_str(body, "prompt")?;
    let n = shared.next_id();
    ok(json!({
        "images": [{
            "url": format!("https://images.example/vendorF/{n}.png"),
            "content_type": "image/png",
            "width": 1024,
            "height": 1024,
        }],
        "prompt": prompt,
        "seed": n,
    }))
}
