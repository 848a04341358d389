//! `POST /v1/embeddings`: one deterministic vector per input (a hash of the input spread over
//! -1..1), as floats or as base64 of little-endian f32 bytes.

use axum::Extension;
use base64::Engine as _;
use serde_json::{json, Value};

use crate::errors::{ok, ApiError, Reply};
use crate::intake::Ctx;
use crate::validate as v;
use crate::words;

const MAX_INPUT_TOKENS: u64 = 8192;
const DEFAULT_DIMENSIONS: i64 = 8;

pub async fn create(Extension(ctx): Extension<Ctx>) -> Reply {
    let body = v::body(&ctx.rec)?;
    let model = v::req_str(body, "model")?;
    let format = v::opt_enum(body, "encoding_format", &["float", "base64"])?.unwrap_or("float");
    let dims = v::opt_int(body, "dimensions", 1, 4096)?.unwrap_or(DEFAULT_DIMENSIONS) as usize;
    let inputs = inputs(body.get("input"))?;

    let mut data = Vec::new();
    let mut tokens = 0;
    for (i, (key, count)) in inputs.iter().enumerate() {
        if *count > MAX_INPUT_TOKENS {
            return Err(ApiError::invalid(format!(
                "input[{i}]: at most {MAX_INPUT_TOKENS} tokens"
            )));
        }
        tokens += count;
        let vector = vector(key, dims);
        let embedding = if format == "base64" {
            let bytes: Vec<u8> = vector.iter().flat_map(|f| f.to_le_bytes()).collect();
            json!(base64::engine::general_purpose::STANDARD.encode(bytes))
        } else {
            json!(vector)
        };
        data.push(json!({"object": "embedding", "index": i, "embedding": embedding}));
    }
    ok(json!({
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }))
}

/// The inputs as (hash key, token count): a string, an array of strings, one token array or
/// an array of token arrays.
fn inputs(input: Option<&Value>) -> Result<Vec<(String, u64)>, ApiError> {
    let tokens = |a: &[Value], at: &str| -> Result<(String, u64), ApiError> {
        if a.iter().all(|t| t.as_u64().is_some()) {
            Ok((Value::from(a.to_vec()).to_string(), a.len() as u64))
        } else {
            Err(ApiError::invalid(format!(
                "{at}: token arrays must hold non-negative integers"
            )))
        }
    };
    match input {
        None | Some(Value::Null) => Err(ApiError::invalid("input: is required")),
        Some(Value::String(s)) => Ok(vec![(s.clone(), words::count(s))]),
        Some(Value::Array(a)) if a.is_empty() => {
            Err(ApiError::invalid("input: must have at least 1 item"))
        }
        Some(Value::Array(a)) if a[0].is_number() => Ok(vec![tokens(a, "input")?]),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok((s.clone(), words::count(s))),
                Value::Array(t) => tokens(t, &format!("input[{i}]")),
                _ => Err(ApiError::invalid(format!(
                    "input[{i}]: must be a string or a token array"
                ))),
            })
            .collect(),
        Some(_) => Err(ApiError::invalid("input: must be a string or an array")),
    }
}

/// `dims` values in -1..1 from FNV-1a of the input mixed with the component index.
fn vector(key: &str, dims: usize) -> Vec<f32> {
    let base = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (0..dims as u64)
        .map(|d| {
            let mut x = base ^ d.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            // splitmix64 finaliser, so neighbouring components differ.
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^= x >> 31;
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}
