//! `POST /v1/responses`: the Responses format, plain or streamed with `event:` lines, with an
//! optional `web_search_call` output item when the web-search tool is declared.

use std::sync::Arc;

use axum::extract::State;
use axum::Extension;
use serde_json::{json, Value};

use crate::clock::now_secs;
use crate::errors::{ok, ApiError, Reply};
use crate::faults::Action;
use crate::intake::Ctx;
use crate::shapes;
use crate::state::Shared;
use crate::stream::{plan_stream, stream_response, StreamKind};
use crate::validate as v;
use crate::words;

use super::chat::EFFORTS;

pub async fn create(State(shared): State<Arc<Shared>>, Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let input = match body.get("input") {
        None | Some(Value::Null) => return Err(ApiError::invalid("input: is required")),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) if !items.is_empty() => items_text(items)?,
        Some(Value::Array(_)) => return Err(ApiError::invalid("input: must have at least 1 item")),
        Some(_) => return Err(ApiError::invalid("input: must be a string or an array")),
    };
    let effort = match body.get("reasoning") {
        None | Some(Value::Null) => None,
        Some(Value::Object(r)) => v::opt_enum(r, "effort", EFFORTS)
            .map_err(|e| ApiError::invalid(format!("reasoning.{}", e.message)))?,
        Some(_) => return Err(ApiError::invalid("reasoning: must be an object")),
    };
    let web_search = match v::opt_array(body, "tools")? {
        None => false,
        Some(tools) => {
            for (i, t) in tools.iter().enumerate() {
                if t.get("type").and_then(Value::as_str).is_none() {
                    return Err(ApiError::invalid(format!("tools[{i}].type: is required")));
                }
            }
            tools
                .iter()
                .any(|t| t["type"] == "web_search_preview" || t["type"] == "web_search")
        }
    };
    let stream = v::opt_bool(body, "stream")?.unwrap_or(false);

    let text = words::words(&format!("Echo: {input}")).join(" ");
    let n = shared.next_id();
    let id = format!("resp_{n}");
    let created_at = now_secs();
    let mut output = Vec::new();
    if web_search {
        output.push(
            json!({"type": "web_search_call", "id": format!("ws_{n}"), "status": "completed"}),
        );
    }
    output.push(json!({
        "type": "message",
        "id": format!("msg_{n}"),
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }));
    let (input_tokens, output_tokens) = (words::count(&input), words::count(&text));
    let mut response = json!({
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        },
    });
    if let Some(e) = effort {
        response["reasoning"] = json!({"effort": e});
    }
    if !stream {
        return ok(response);
    }

    let mut events: Vec<(String, Value)> = vec![(
        "response.created".into(),
        json!({"type": "response.created", "response": {
            "id": id, "object": "response", "created_at": created_at,
            "status": "in_progress", "model": model, "output": [],
        }}),
    )];
    let all = words::words(&text);
    for frag in words::fragments(&all) {
        events.push((
            "response.output_text.delta".into(),
            json!({"type": "response.output_text.delta", "item_id": format!("msg_{n}"),
                   "output_index": 0, "content_index": 0, "delta": frag}),
        ));
    }
    events.push((
        "response.output_text.done".into(),
        json!({"type": "response.output_text.done", "item_id": format!("msg_{n}"),
               "output_index": 0, "content_index": 0, "text": text}),
    ));
    events.push((
        "response.completed".into(),
        json!({"type": "response.completed", "response": response}),
    ));
    if let Some(Action::StreamShape { shape }) = &ctx.stream_fault {
        let events = shapes::responses_events(*shape, events);
        return Ok(stream_response(plan_stream(
            events,
            StreamKind::Responses,
            None,
        )));
    }
    let events: Vec<String> = events
        .into_iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    let steps = plan_stream(events, StreamKind::Responses, ctx.stream_fault.as_ref());
    Ok(stream_response(steps))
}

/// Text of the last user item of an input array (string content or its text parts).
fn items_text(items: &[Value]) -> Result<String, ApiError> {
    for (i, item) in items.iter().enumerate() {
        if !item.is_object() {
            return Err(ApiError::invalid(format!("input[{i}]: must be an object")));
        }
    }
    let last = items
        .iter()
        .rev()
        .find(|it| it.get("role").and_then(Value::as_str).unwrap_or("user") == "user");
    Ok(match last.and_then(|it| it.get("content")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    })
}
