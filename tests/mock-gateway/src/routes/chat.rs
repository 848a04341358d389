//! `POST /v1/chat/completions`: validates like the gateway, answers "Echo: <last user text>",
//! plain or as `data:` chunks ending in `[DONE]`.

use std::sync::Arc;

use axum::extract::State;
use axum::Extension;
use serde_json::{json, Value};

use crate::clock::now_secs;
use crate::errors::{ok, ApiError, Reply};
use crate::faults::Action;
use crate::intake::Ctx;
use crate::shapes::{self, ChatAnswer};
use crate::state::Shared;
use crate::stream::{plan_stream, stream_response, StreamKind};
use crate::validate::{self as v, Obj};
use crate::words;

/// The document's roles plus OpenAI's `developer` and `function`, which real gateways take.
const ROLES: &[&str] = &[
    "system",
    "user",
    "assistant",
    "tool",
    "developer",
    "function",
];
/// The document's efforts plus the ones OpenAI's API defines (`max` since 2026-07).
pub const EFFORTS: &[&str] = &["none", "minimal", "low", "medium", "high", "xhigh", "max"];
/// 50 MB, the documented cap on a `video_url` data URI's video.
const VIDEO_MAX: usize = 50 * 1024 * 1024;

pub async fn completions(
    State(shared): State<Arc<Shared>>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let messages = v::req_array(body, "messages")?;
    for (i, m) in messages.iter().enumerate() {
        check_message(m, i)?;
    }
    let max_tokens = v::opt_int(body, "max_tokens", 1, i64::MAX)?;
    v::opt_range(body, "temperature", 0.0, 2.0)?;
    v::opt_range(body, "top_p", 0.0, 1.0)?;
    v::opt_range(body, "frequency_penalty", -2.0, 2.0)?;
    v::opt_range(body, "presence_penalty", -2.0, 2.0)?;
    check_stop(body)?;
    let effort = v::opt_enum(body, "reasoning_effort", EFFORTS)?;
    let stream = v::opt_bool(body, "stream")?.unwrap_or(false);

    // The answer: the echo, cut to max_tokens words.
    let echo = echo_text(messages);
    let all = words::words(&echo);
    let limit = max_tokens.map_or(all.len(), |n| (n as usize).min(all.len()));
    let finish = if limit < all.len() { "length" } else { "stop" };
    let kept = &all[..limit];
    let reasoning = effort.map(|e| format!("Thinking at {e} effort."));

    let prompt_tokens: u64 = messages
        .iter()
        .map(|m| words::count(&message_text(m)))
        .sum();
    let reasoning_tokens = reasoning.as_deref().map_or(0, words::count);
    let completion_tokens = kept.len() as u64 + reasoning_tokens;
    let mut usage = json!({
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    });
    if effort.is_some() {
        usage["completion_tokens_details"] = json!({"reasoning_tokens": reasoning_tokens});
    }

    let id = format!("chatcmpl-{}", shared.next_id());
    let created = now_secs();
    if let (true, Some(Action::StreamShape { shape })) = (stream, &ctx.stream_fault) {
        let answer = ChatAnswer {
            id: &id,
            created,
            model,
            fragments: words::fragments(kept),
            finish,
            usage,
        };
        let events = shapes::chat_events(*shape, &answer);
        return Ok(stream_response(plan_stream(events, StreamKind::Chat, None)));
    }
    if stream {
        let include_usage = body
            .get("stream_options")
            .and_then(|o| o.get("include_usage"))
            == Some(&Value::Bool(true));
        let chunk = |delta: Value, finish: Value| {
            json!({
                "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            })
        };
        let mut chunks = vec![chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        )];
        if let Some(r) = &reasoning {
            chunks.push(chunk(json!({"reasoning_content": r}), Value::Null));
        }
        for frag in words::fragments(kept) {
            chunks.push(chunk(json!({"content": frag}), Value::Null));
        }
        chunks.push(chunk(json!({}), json!(finish)));
        if include_usage {
            let mut last = chunk(json!({}), Value::Null);
            last["choices"] = json!([]);
            last["usage"] = usage;
            chunks.push(last);
        }
        let mut events: Vec<String> = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        events.push("data: [DONE]\n\n".into());
        let steps = plan_stream(events, StreamKind::Chat, ctx.stream_fault.as_ref());
        return Ok(stream_response(steps));
    }

    let mut message = json!({"role": "assistant", "content": kept.join(" ")});
    if let Some(r) = reasoning {
        message["reasoning_content"] = json!(r);
    }
    ok(json!({
        "id": id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }))
}

fn check_message(m: &Value, i: usize) -> Result<(), ApiError> {
    let at = format!("messages[{i}]");
    let m = m
        .as_object()
        .ok_or_else(|| ApiError::invalid(format!("{at}: must be an object")))?;
    match m.get("role").and_then(Value::as_str) {
        Some(r) if ROLES.contains(&r) => {}
        Some(_) => {
            return Err(ApiError::invalid(format!(
                "{at}.role: must be one of {}",
                ROLES.join(", ")
            )))
        }
        None => return Err(ApiError::invalid(format!("{at}.role: is required"))),
    }
    match m.get("content") {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .try_for_each(|(j, p)| check_part(p, &format!("{at}.content[{j}]"))),
        // An assistant turn that only carries tool calls has no content.
        None | Some(Value::Null) if m.get("tool_calls").is_some() => Ok(()),
        None | Some(Value::Null) => Err(ApiError::invalid(format!("{at}.content: is required"))),
        Some(_) => Err(ApiError::invalid(format!(
            "{at}.content: must be a string or an array of content parts"
        ))),
    }
}

fn check_part(p: &Value, at: &str) -> Result<(), ApiError> {
    let p = p
        .as_object()
        .ok_or_else(|| ApiError::invalid(format!("{at}: must be an object")))?;
    let url_of = |key: &str| -> Result<&str, ApiError> {
        p.get(key)
            .and_then(|o| o.get("url"))
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::invalid(format!("{at}.{key}.url: is required")))
    };
    match p.get("type").and_then(Value::as_str) {
        Some("text") => v::req_str(p, "text")
            .map(|_| ())
            .map_err(|e| ApiError::invalid(format!("{at}.{}", e.message))),
        Some("image_url") => url_of("image_url").map(|_| ()),
        // OpenAI's other part types: each must carry its object (or text).
        Some(kind @ ("input_audio" | "file")) => match p.get(kind) {
            Some(Value::Object(_)) => Ok(()),
            _ => Err(ApiError::invalid(format!("{at}.{kind}: is required"))),
        },
        Some("refusal") => v::req_str(p, "refusal")
            .map(|_| ())
            .map_err(|e| ApiError::invalid(format!("{at}.{}", e.message))),
        Some("video_url") => {
            let url = url_of("video_url")?;
            check_video_uri(url, &format!("{at}.video_url.url"))?;
            match p["video_url"].get("fps") {
                None | Some(Value::Null) => Ok(()),
                Some(fps) => {
                    v::number_in(fps, &format!("{at}.video_url.fps"), 0.2, 5.0).map(|_| ())
                }
            }
        }
        _ => Err(ApiError::invalid(format!(
            "{at}.type: must be one of text, image_url, video_url, input_audio, file, refusal"
        ))),
    }
}

/// A Base64 data URI must be mp4 or mov and at most 50 MB once decoded; plain URLs pass.
fn check_video_uri(url: &str, at: &str) -> Result<(), ApiError> {
    let Some(rest) = url.strip_prefix("data:") else {
        return Ok(());
    };
    let (meta, data) = rest.split_once(',').unwrap_or((rest, ""));
    let mime = meta.split(';').next().unwrap_or("").to_ascii_lowercase();
    if mime != "video/mp4" && mime != "video/quicktime" && mime != "video/mov" {
        return Err(ApiError::invalid(format!("{at}: video must be mp4 or mov")));
    }
    if data.len() / 4 * 3 > VIDEO_MAX {
        return Err(ApiError::invalid(format!(
            "{at}: video must be at most 50 MB"
        )));
    }
    Ok(())
}

fn check_stop(body: &Obj) -> Result<(), ApiError> {
    match body.get("stop") {
        None | Some(Value::Null) | Some(Value::String(_)) => Ok(()),
        Some(Value::Array(a)) if a.len() > 4 => Err(ApiError::invalid("stop: at most 4 sequences")),
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => Ok(()),
        Some(_) => Err(ApiError::invalid("stop: must be an array of strings")),
    }
}

/// "Echo: " + the last user message's text, plus a note of any media parts.
fn echo_text(messages: &[Value]) -> String {
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    let Some(m) = last_user else {
        return "Echo:".into();
    };
    let mut text = format!("Echo: {}", message_text(m));
    let count = |t: &str| match m.get("content") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some(t))
            .count(),
        _ => 0,
    };
    let (images, videos) = (count("image_url"), count("video_url"));
    if images > 0 {
        text.push_str(&format!(" [{}]", words::plural(images, "image")));
    }
    if videos > 0 {
        text.push_str(&format!(" [{}]", words::plural(videos, "video")));
    }
    text
}

/// A message's text: the string content, or its `text` parts joined with a space.
fn message_text(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}
