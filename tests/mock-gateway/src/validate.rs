//! Field checks shaped like the API document's limits. Each failure is a 400 whose message is
//! "<field>: <rule>", the same wording style the client library uses, so tests can match on it.

use serde_json::{Map, Value};

use crate::errors::ApiError;
use crate::record::RecordedRequest;

pub type Obj = Map<String, Value>;

/// The request body as a JSON object, or 400.
pub fn body(rec: &RecordedRequest) -> Result<&Obj, ApiError> {
    match &rec.json {
        Some(Value::Object(map)) => Ok(map),
        Some(_) => Err(ApiError::bad_body("body: must be a JSON object")),
        None => Err(ApiError::bad_body("body: must be valid JSON")),
    }
}

/// A required, non-empty string.
pub fn req_str<'a>(obj: &'a Obj, field: &str) -> Result<&'a str, ApiError> {
    match opt_str(obj, field)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        Some(_) => Err(ApiError::invalid(format!("{field}: must not be empty"))),
        None => Err(ApiError::invalid(format!("{field}: is required"))),
    }
}

/// An optional string (null counts as absent).
pub fn opt_str<'a>(obj: &'a Obj, field: &str) -> Result<Option<&'a str>, ApiError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::invalid(format!("{field}: must be a string"))),
    }
}

/// An optional boolean.
pub fn opt_bool(obj: &Obj, field: &str) -> Result<Option<bool>, ApiError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::invalid(format!("{field}: must be a boolean"))),
    }
}

/// An optional number within `lo..=hi`.
pub fn opt_range(obj: &Obj, field: &str, lo: f64, hi: f64) -> Result<Option<f64>, ApiError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => number_in(v, field, lo, hi).map(Some),
    }
}

/// A number within `lo..=hi`; `field` names it in the message.
pub fn number_in(v: &Value, field: &str, lo: f64, hi: f64) -> Result<f64, ApiError> {
    let n = v
        .as_f64()
        .ok_or_else(|| ApiError::invalid(format!("{field}: must be a number")))?;
    if n < lo || n > hi {
        return Err(ApiError::invalid(format!(
            "{field}: must be between {lo} and {hi}"
        )));
    }
    Ok(n)
}

/// An optional integer within `lo..=hi`.
pub fn opt_int(obj: &Obj, field: &str, lo: i64, hi: i64) -> Result<Option<i64>, ApiError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => int_in(v, field, lo, hi).map(Some),
    }
}

/// An integer within `lo..=hi`.
pub fn int_in(v: &Value, field: &str, lo: i64, hi: i64) -> Result<i64, ApiError> {
    let n = v
        .as_i64()
        .ok_or_else(|| ApiError::invalid(format!("{field}: must be an integer")))?;
    if n < lo || n > hi {
        return Err(ApiError::invalid(if hi == i64::MAX {
            format!("{field}: must be at least {lo}")
        } else {
            format!("{field}: must be between {lo} and {hi}")
        }));
    }
    Ok(n)
}

/// An optional string from a closed set.
pub fn opt_enum<'a>(
    obj: &'a Obj,
    field: &str,
    allowed: &[&str],
) -> Result<Option<&'a str>, ApiError> {
    match opt_str(obj, field)? {
        Some(s) if !allowed.contains(&s) => Err(ApiError::invalid(format!(
            "{field}: must be one of {}",
            allowed.join(", ")
        ))),
        other => Ok(other),
    }
}

/// An optional image size: `<width>x<height>` or OpenAI's `auto`.
pub fn opt_image_size(obj: &Obj, field: &str) -> Result<(), ApiError> {
    match opt_str(obj, field)? {
        Some("auto") => Ok(()),
        _ => opt_size(obj, field).map(|_| ()),
    }
}

/// An optional `<width>x<height>` size string.
pub fn opt_size(obj: &Obj, field: &str) -> Result<Option<(u32, u32)>, ApiError> {
    match opt_str(obj, field)? {
        None => Ok(None),
        Some(s) => parse_size(s)
            .map(Some)
            .ok_or_else(|| ApiError::invalid(format!("{field}: must be <width>x<height>"))),
    }
}

/// `"1024x768"` -> (1024, 768); both sides positive integers.
pub fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once('x')?;
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !digits(w) || !digits(h) {
        return None;
    }
    let (w, h) = (w.parse().ok()?, h.parse().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// An optional array; anything else is 400.
pub fn opt_array<'a>(obj: &'a Obj, field: &str) -> Result<Option<&'a Vec<Value>>, ApiError> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(_) => Err(ApiError::invalid(format!("{field}: must be an array"))),
    }
}

/// A required, non-empty array.
pub fn req_array<'a>(obj: &'a Obj, field: &str) -> Result<&'a Vec<Value>, ApiError> {
    match opt_array(obj, field)? {
        Some(a) if !a.is_empty() => Ok(a),
        Some(_) => Err(ApiError::invalid(format!(
            "{field}: must have at least 1 item"
        ))),
        None => Err(ApiError::invalid(format!("{field}: is required"))),
    }
}

/// Whether a prompt asks the mock to simulate a failing task ("fail" anywhere, any case).
pub fn wants_failure(text: &str) -> bool {
    text.to_ascii_lowercase().contains("fail")
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1024x768"), Some((1024, 768)));
        for bad in ["1024", "x1", "1x", "0x5", "10X10", "a x b", "-1x2"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
