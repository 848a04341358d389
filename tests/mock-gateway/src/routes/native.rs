//! `POST /v1beta/models/{model}:generateContent`, the native format: echo, media notes, and
//! function calling (a `functionCall` when tools are declared, text once a result comes back).

use axum::extract::Path;
use axum::http::Method;
use axum::Extension;
use serde_json::{json, Map, Value};

use crate::errors::{ok, ApiError, Reply};
use crate::intake::Ctx;
use crate::validate as v;
use crate::words;

/// The last path segment is `<model>:<action>`; only `generateContent` is served.
pub async fn dispatch(
    method: Method,
    Path(model_action): Path<String>,
    Extension(ctx): Extension<Ctx>,
) -> Reply {
    match model_action.rsplit_once(':') {
        Some((model, "generateContent")) if !model.is_empty() && method == Method::POST => {
            generate_content(model, &ctx)
        }
        _ => Err(ApiError::no_endpoint(method.as_str(), &ctx.rec.path)),
    }
}

fn generate_content(model: &str, ctx: &Ctx) -> Reply {
    let body = v::body(&ctx.rec)?;
    let contents = v::req_array(body, "contents")?;
    for (i, c) in contents.iter().enumerate() {
        match c.get("parts") {
            Some(Value::Array(p)) if !p.is_empty() => {}
            _ => {
                return Err(ApiError::invalid(format!(
                    "contents[{i}].parts: must be a non-empty array"
                )))
            }
        }
    }
    if let Some(cfg) = body.get("generationConfig").and_then(Value::as_object) {
        v::opt_range(cfg, "temperature", 0.0, 2.0).map_err(prefix("generationConfig"))?;
        v::opt_range(cfg, "topP", 0.0, 1.0).map_err(prefix("generationConfig"))?;
    }

    let last_parts = contents
        .last()
        .and_then(|c| c["parts"].as_array())
        .cloned()
        .unwrap_or_default();
    let user_text = last_user_text(contents);
    let function_response = last_parts
        .iter()
        .find_map(|p| field(p, "functionResponse", "function_response"));
    let declared = first_declared_function(body.get("tools"));

    let part = match (function_response, declared) {
        (Some(fr), _) => {
            let name = fr.get("name").and_then(Value::as_str).unwrap_or("function");
            let result = fr.get("response").cloned().unwrap_or(Value::Null);
            json!({"text": format!("Function {name} returned: {result}")})
        }
        (None, Some(decl)) => {
            let name = decl
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("function");
            // Every required parameter gets the user's text, so the round trip is checkable.
            let args: Map<String, Value> = decl
                .pointer("/parameters/required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|p| (p.to_string(), json!(user_text)))
                .collect();
            json!({"functionCall": {"name": name, "args": args}})
        }
        (None, None) => {
            let mut text = format!("Echo: {user_text}");
            let has = |snake: &str, camel: &str| {
                last_parts.iter().any(|p| field(p, snake, camel).is_some())
            };
            if has("file_data", "fileData") {
                text.push_str(" [video]");
            }
            if has("inline_data", "inlineData") {
                text.push_str(" [image]");
            }
            json!({"text": text})
        }
    };

    let prompt_tokens: u64 = contents
        .iter()
        .flat_map(|c| c["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .map(words::count)
        .sum();
    let answer_tokens = part
        .get("text")
        .and_then(Value::as_str)
        .map_or(1, words::count);
    ok(json!({
        "candidates": [{
            "content": {"role": "model", "parts": [part]},
            "finishReason": "STOP",
            "index": 0,
        }],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": answer_tokens,
            "totalTokenCount": prompt_tokens + answer_tokens,
        },
        "modelVersion": model,
    }))
}

/// A part's field under either JSON spelling the native format accepts.
fn field<'a>(part: &'a Value, snake: &str, camel: &str) -> Option<&'a Value> {
    part.get(camel).or_else(|| part.get(snake))
}

fn prefix(at: &'static str) -> impl Fn(ApiError) -> ApiError {
    move |e| ApiError::invalid(format!("{at}.{}", e.message))
}

/// Text parts of the last user turn (a content without a role counts as the user's).
fn last_user_text(contents: &[Value]) -> String {
    contents
        .iter()
        .rev()
        .find(|c| c.get("role").and_then(Value::as_str).unwrap_or("user") == "user")
        .and_then(|c| c["parts"].as_array())
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn first_declared_function(tools: Option<&Value>) -> Option<&Value> {
    tools?.as_array()?.iter().find_map(|t| {
        field(t, "function_declarations", "functionDeclarations")
            .and_then(Value::as_array)
            .and_then(|d| d.first())
    })
}
