//! Unified video (`/v1/video/create`, `/v1/video/generations`) and character video
//! (`/v1/videos`, remix). Tasks move on one step per status poll and finish on the third;
//! a prompt containing "fail" makes them end failed.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::Extension;
use serde_json::{json, Value};

use crate::errors::{ok, ApiError, Reply};
use crate::intake::Ctx;
use crate::state::{Shared, Task};
use crate::validate as v;

/// Progress reported on the two in-progress polls of a unified task.
const UNIFIED_PROGRESS: [u32; 3] = [0, 30, 60];

pub async fn create(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let prompt = v::req_str(body, "prompt")?;
    v::opt_int(body, "duration", 1, 60)?;
    let id = format!("vtask_{}", shared.next_id());
    shared.insert_task(&id, Task::new(model, prompt, v::wants_failure(prompt)));
    ok(json!({"task_id": id, "status": "processing"}))
}

pub async fn generations(
    State(shared): State<Arc<Shared>>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let prompt = v::req_str(body, "prompt")?;
    let id = format!("vgen_{}", shared.next_id());
    let task = Task::new(model, prompt, v::wants_failure(prompt));
    let created = task.created;
    shared.insert_task(&id, task);
    ok(json!({
        "id": id, "task_id": id, "object": "video.generation", "model": model,
        "status": "processing", "progress": 0, "created_at": created,
    }))
}

/// `GET /v1/video/generations/{id}` for ids from either unified create operation.
pub async fn generation_status(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let task = (id.starts_with("vtask_") || id.starts_with("vgen_"))
        .then(|| shared.poll_task(&id))
        .flatten()
        .ok_or_else(|| ApiError::no_such("video task", &id))?;
    let mut out = json!({
        "id": id, "task_id": id, "object": "video.generation", "model": task.model,
        "created_at": task.created,
    });
    match task.stage() {
        s @ 0..=2 => {
            out["status"] = json!("processing");
            out["progress"] = json!(UNIFIED_PROGRESS[s as usize]);
        }
        _ if task.fails => {
            out["status"] = json!("failed");
            out["progress"] = json!(100);
            out["error"] = json!({"message": "video generation failed", "type": "server_error", "code": "generation_failed"});
        }
        _ => {
            out["status"] = json!("succeeded");
            out["progress"] = json!(100);
            out["video_url"] = json!(format!("https://videos.example/{id}.mp4"));
        }
    }
    ok(out)
}

pub async fn character(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let prompt = v::req_str(body, "prompt")?;
    v::req_str(body, "character_id")?;
    v::opt_size(body, "size")?;
    let id = format!("video_{}", shared.next_id());
    let mut task = Task::new(model, prompt, v::wants_failure(prompt));
    task.extra = json!({"character_id": body["character_id"]});
    let out = video_json(&id, &task);
    shared.insert_task(&id, task);
    ok(out)
}

pub async fn character_status(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Reply {
    let task = id
        .starts_with("video_")
        .then(|| shared.poll_task(&id))
        .flatten()
        .ok_or_else(|| ApiError::no_such("video", &id))?;
    ok(video_json(&id, &task))
}

pub async fn remix(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    let prompt = v::req_str(body, "prompt")?;
    v::opt_size(body, "size")?;
    let original = id
        .starts_with("video_")
        .then(|| shared.task(&id))
        .flatten()
        .ok_or_else(|| ApiError::no_such("video", &id))?;
    let new_id = format!("video_{}", shared.next_id());
    let mut task = Task::new(&original.model, prompt, v::wants_failure(prompt));
    task.extra = json!({"remixed_from_video_id": id});
    let out = video_json(&new_id, &task);
    shared.insert_task(&new_id, task);
    ok(out)
}

/// A character-video record at the task's current stage:
/// queued -> queued -> in_progress (50) -> completed (with a URL) or failed.
fn video_json(id: &str, task: &Task) -> Value {
    let mut out = json!({
        "id": id, "object": "video", "model": task.model, "prompt": task.prompt,
        "created_at": task.created,
    });
    if let Value::Object(extra) = &task.extra {
        for (k, val) in extra {
            out[k] = val.clone();
        }
    }
    let (status, progress) = match task.stage() {
        0 | 1 => ("queued", 0),
        2 => ("in_progress", 50),
        _ if task.fails => ("failed", 100),
        _ => ("completed", 100),
    };
    out["status"] = json!(status);
    out["progress"] = json!(progress);
    match status {
        "completed" => out["video_url"] = json!(format!("https://videos.example/{id}.mp4")),
        "failed" => {
            out["error"] =
                json!({"message": "video generation failed", "code": "generation_failed"})
        }
        _ => {}
    }
    out
}
