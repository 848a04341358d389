//! JSON help for C callers: quoting text into a request, reading a value out of
//! an answer by a path. Every request and answer is JSON text, and a C program
//! should not need a JSON parser of its own (nor build requests with printf
//! around unquoted user text).

use std::ffi::c_char;
use std::os::raw::c_int;

use serde_json::Value;

use crate::error::Error;

use super::args;
use super::guard::{call, call_or_absent};

/// Quotes `text` (NUL-terminated UTF-8) as a JSON string literal, the quotes
/// included: `say "hi"` gives `"say \"hi\""`. `"`, `\` and control characters
/// are escaped; other characters are copied as they are. Splice the result
/// into a request instead of the raw text, so user text can never add fields:
///
/// ```c
/// char *model_json = NULL;
/// if (gw_json_quote(model, &model_json) == GW_OK)
///     snprintf(request, size, "{\"model\": %s, ...}", model_json);
/// gw_free(model_json);
/// ```
///
/// Returns `GW_OK` with the literal in `*out`, or `GW_INVALID_ARGUMENT` (`text`
/// NULL or not valid UTF-8) with the error JSON in `*out`, like every call.
/// `*out` is freed with `gw_free`; `out` may be NULL. Needs no client, does no
/// I/O; safe from any thread.
#[no_mangle]
pub unsafe extern "C" fn gw_json_quote(text: *const c_char, out: *mut *mut c_char) -> c_int {
    call(out, || {
        let text = args::text(text, "text")?;
        serde_json::to_string(text).map_err(|e| Error::Internal(format!("quoting: {e}")))
    })
}

/// Reads the value at `path` in the JSON document `json` (e.g. an answer in
/// `*out`) into a newly allocated string: a JSON string's text, unescaped
/// (`\u0000` inside it comes out as a space); a number, `true`, `false`, an
/// object or an array as compact JSON text, numbers exactly as written.
///
/// `path` is object keys and array indexes joined by dots, an index also
/// written `[N]`: `"choices.0.message.content"`, `"choices[0].delta"`,
/// `"data.0.url"`, `"error.message"`, `"usage.total_tokens"`. A path that
/// starts with `/` is a JSON Pointer (RFC 6901: `"/headers/x-request-id"`,
/// `~1` for `/` and `~0` for `~` in a key), for keys that hold `.` or `[`.
/// `""` is the whole document.
///
/// Returns:
/// - `GW_OK` with the value in `*out`;
/// - `GW_ABSENT` (2, not an error) when `json` is JSON but holds nothing at
///   `path` (a key missing, an index past the end, a step into a string or
///   number) or holds `null` there (`message.content` beside tool calls):
///   `*out` is NULL;
/// - `GW_DECODE` when `json` is not one well-formed JSON value;
/// - `GW_INVALID_ARGUMENT` when `json` or `path` is NULL or not UTF-8, or
///   `path` is malformed (an empty step as in `"a..b"`, `[x]`, a bad `~` escape).
///
/// On a failure `*out` holds the error JSON, as for every call. `*out` is freed
/// with `gw_free`; `out` may be NULL. `json` is only read during the call.
/// Needs no client, does no I/O; safe from any thread.
#[no_mangle]
pub unsafe extern "C" fn gw_json_get(
    json: *const c_char,
    path: *const c_char,
    out: *mut *mut c_char,
) -> c_int {
    call_or_absent(out, || {
        let text = args::text(json, "json")?;
        let path = args::text(path, "path")?;
        let steps = parse_path(path)?;
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| Error::Decode(format!("json: not valid JSON ({e})")))?;
        Ok(value_at(&doc, &steps).map(value_text))
    })
}

/// The steps of a path: object keys or array indexes (an index is a key made of
/// digits; which it is depends on the value met there).
pub(crate) fn parse_path(path: &str) -> Result<Vec<String>, Error> {
    let bad = |why: &str| Error::invalid_param("path", format!("path: {why} in {path:?}"));
    if path.is_empty() {
        return Ok(Vec::new());
    }
    if let Some(pointer) = path.strip_prefix('/') {
        return pointer
            .split('/')
            .map(|step| unescape_pointer(step).ok_or_else(|| bad("a `~` not followed by 0 or 1")))
            .collect();
    }
    let mut steps = Vec::new();
    let mut rest = path;
    loop {
        // A key runs to the next `.` or `[`; it may be empty only before `[`
        // at the start (`[0].url` on a top-level array).
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let key = &rest[..end];
        let at_start = steps.is_empty() && rest.len() == path.len();
        if !key.is_empty() {
            steps.push(key.to_string());
        } else if !(at_start && rest.starts_with('[')) {
            return Err(bad("an empty step"));
        }
        rest = &rest[end..];
        while let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']').ok_or_else(|| bad("a `[` without `]`"))?;
            let index = &after[..close];
            if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("an index that is not a decimal number"));
            }
            steps.push(index.to_string());
            rest = &after[close + 1..];
        }
        match rest.strip_prefix('.') {
            Some(after) => rest = after,
            None if rest.is_empty() => return Ok(steps),
            None => return Err(bad("`]` followed by neither `.` nor `[`")),
        }
    }
}

fn unescape_pointer(step: &str) -> Option<String> {
    let mut out = String::with_capacity(step.len());
    let mut chars = step.chars();
    while let Some(c) = chars.next() {
        match c {
            '~' => match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

/// The value the steps lead to; None when one is missing, or the value is null.
pub(crate) fn value_at<'a>(doc: &'a Value, steps: &[String]) -> Option<&'a Value> {
    let mut at = doc;
    for step in steps {
        at = match at {
            Value::Object(map) => map.get(step.as_str())?,
            Value::Array(items) => {
                // "0" and "12", not "+1", "01" or "-1".
                let canonical = !step.is_empty()
                    && step.bytes().all(|b| b.is_ascii_digit())
                    && (step == "0" || !step.starts_with('0'));
                if !canonical {
                    return None;
                }
                items.get(step.parse::<usize>().ok()?)?
            }
            _ => return None,
        };
    }
    (!at.is_null()).then_some(at)
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => crate::api::json_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(doc: &str, path: &str) -> Option<String> {
        let doc: Value = serde_json::from_str(doc).unwrap();
        value_at(&doc, &parse_path(path).unwrap()).map(value_text)
    }

    #[test]
    fn paths_in_dot_bracket_and_pointer_forms() {
        let answer = r#"{"choices":[{"message":{"content":"Hi \"there\"\n","tool_calls":null}}],
                        "usage":{"total_tokens":12},"n":1.50,"a.b":{"c/d":true},"":"e"}"#;
        assert_eq!(
            get(answer, "choices.0.message.content").unwrap(),
            "Hi \"there\"\n"
        );
        assert_eq!(
            get(answer, "choices[0].message.content").unwrap(),
            "Hi \"there\"\n"
        );
        assert_eq!(
            get(answer, "/choices/0/message/content").unwrap(),
            "Hi \"there\"\n"
        );
        assert_eq!(get(answer, "usage").unwrap(), r#"{"total_tokens":12}"#);
        assert_eq!(get(answer, "n").unwrap(), "1.50", "numbers as written");
        assert_eq!(get(answer, "/a.b/c~1d").unwrap(), "true");
        assert_eq!(get(answer, "/").unwrap(), "e", "the empty key");
        assert!(get(answer, "").unwrap().starts_with(r#"{"choices":"#));
        assert_eq!(get("[1,[2,3]]", "[1][0]").unwrap(), "2");
        assert_eq!(get("[1,[2,3]]", "1.1").unwrap(), "3");
        for absent in [
            "choices.1",
            "choices.01",
            "choices.-1",
            "choices.x",
            "choices.0.message.tool_calls",
            "usage.total_tokens.x",
            "missing",
        ] {
            assert_eq!(get(answer, absent), None, "{absent}");
        }
        assert_eq!(
            get(r#"{"0":"key"}"#, "[0]").unwrap(),
            "key",
            "an index on an object is a key"
        );
    }

    #[test]
    fn malformed_paths_are_refused() {
        for bad in [
            "a..b", ".a", "a.", "a[", "a[]", "a[x]", "a[0]b", "/a~2", "/a~",
        ] {
            let e = parse_path(bad).unwrap_err();
            assert_eq!(e.status(), crate::error::GW_INVALID_ARGUMENT, "{bad}");
        }
    }
}
