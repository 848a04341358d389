//! Taking the API key out of what gw hands back on failure, without breaking
//! it: inside JSON only string values (and keys) are rewritten, so a body stays
//! valid JSON whatever the key looks like (a key `1` must not turn
//! `{"code":21}` into `{"code":2[REDACTED]}`). Text that is not JSON is
//! redacted as text.

use serde_json::Value;

const MARK: &str = "[REDACTED]";

/// Plain text (a message): every occurrence of `secret` replaced.
pub(crate) fn text(s: String, secret: &str) -> String {
    if secret.is_empty() || !s.contains(secret) {
        return s;
    }
    s.replace(secret, MARK)
}

/// A body that may be JSON: JSON stays JSON (and byte for byte the same when
/// no string held the secret); anything else is redacted as text.
pub(crate) fn body(s: String, secret: &str) -> String {
    if secret.is_empty() || !s.contains(secret) {
        return s;
    }
    match serde_json::from_str::<Value>(&s) {
        Ok(v) => {
            let mut changed = false;
            let v = walk(v, secret, &mut changed);
            if changed {
                v.to_string()
            } else {
                s
            }
        }
        Err(_) => text(s, secret),
    }
}

/// A JSON value with the secret removed from every string in it.
pub(crate) fn value(v: Value, secret: &str) -> Value {
    if secret.is_empty() {
        return v;
    }
    walk(v, secret, &mut false)
}

fn walk(v: Value, secret: &str, changed: &mut bool) -> Value {
    let mut fix = |s: String| {
        if s.contains(secret) {
            *changed = true;
            s.replace(secret, MARK)
        } else {
            s
        }
    };
    match v {
        Value::String(s) => Value::String(fix(s)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|i| walk(i, secret, changed))
                .collect(),
        ),
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, item) in map {
                let k = if k.contains(secret) {
                    *changed = true;
                    k.replace(secret, MARK)
                } else {
                    k
                };
                out.insert(k, walk(item, secret, changed));
            }
            Value::Object(out)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_structure_are_never_touched() {
        let raw = r#"{"code":21,"message":"key 1 is bad","n":[1,11]}"#;
        let out = body(raw.to_string(), "1");
        let v: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(v["code"], 21);
        assert_eq!(v["n"][1], 11);
        assert_eq!(v["message"], "key [REDACTED] is bad");
    }

    #[test]
    fn keys_are_redacted_too_and_untouched_json_is_kept_as_is() {
        let out = body(r#"{"sk-1": "x"}"#.to_string(), "sk-1");
        assert_eq!(out, r#"{"[REDACTED]":"x"}"#);
        let raw = "{ \"a\" : 1 }".to_string();
        assert_eq!(
            body(raw.clone(), "1"),
            raw,
            "only numbers hold it: left alone"
        );
    }

    #[test]
    fn text_that_is_not_json_is_redacted_as_text() {
        assert_eq!(
            body("<html>sk-9</html>".into(), "sk-9"),
            "<html>[REDACTED]</html>"
        );
        assert_eq!(text("a sk-9 b".into(), "sk-9"), "a [REDACTED] b");
        assert_eq!(text("abc".into(), ""), "abc");
    }
}
