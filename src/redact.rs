//! Taking the API key out of what gw hands back on failure, without breaking
//! it: inside JSON only string values (and keys) are rewritten, so a body stays
//! valid JSON whatever the key looks like (a key `1` must not turn
//! `{"code":21}` into `{"code":2[REDACTED]}`). Text that is not JSON is
//! redacted as text.
//!
//! The key is found however a server wrote it: each of its bytes as itself,
//! percent-encoded in either case (`%2f`, `%2F`) or JSON-escaped (`\u0073`,
//! `\/`), so an echo that decodes to the key is caught before anyone decodes it.
//! Letters match in either case: header names arrive lower-cased, and a server
//! may echo a key upper-cased. JSON strings are matched after JSON decoding as well.

use serde_json::Value;

const MARK: &str = "[REDACTED]";

/// Plain text (a message, a header value): every spelling of `secret` replaced.
pub(crate) fn text(s: String, secret: &str) -> String {
    if secret.is_empty() || !may_hold(&s, secret) {
        return s;
    }
    let spans = find(s.as_bytes(), secret.as_bytes());
    if spans.is_empty() {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (start, end) in spans {
        out.push_str(&s[at..start]);
        out.push_str(MARK);
        at = end;
    }
    out.push_str(&s[at..]);
    out
}

/// Whether `s` holds `secret` in any spelling `text` replaces.
pub(crate) fn holds(s: &str, secret: &str) -> bool {
    !secret.is_empty() && may_hold(s, secret) && !find(s.as_bytes(), secret.as_bytes()).is_empty()
}

/// A body that may be JSON: JSON stays JSON, byte for byte the same but for the
/// strings that held the secret; anything else is redacted as text.
pub(crate) fn body(s: String, secret: &str) -> String {
    if secret.is_empty() || !may_hold(&s, secret) {
        return s;
    }
    if serde_json::from_str::<serde::de::IgnoredAny>(&s).is_err() {
        return text(s, secret);
    }
    json_strings(s, secret)
}

/// Valid JSON with every string literal in it (member names and values) decoded,
/// redacted and written back in place. The raw text, not a parsed value: parsing
/// keeps the last of a member named twice, so a key in the first one was in no
/// string of the value and went out unredacted (found by the `response` fuzzer).
fn json_strings(s: String, secret: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'"', &bytes[at..]).map(|i| at + i) {
        // The closing quote: the first one no backslash escapes (valid JSON: a
        // backslash is followed by one ASCII byte, `\uXXXX`'s digits hold no quote).
        let mut end = open + 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &bytes[end..]) {
                Some(i) if bytes[end + i] == b'\\' => end += i + 2,
                Some(i) => break end += i + 1,
                None => return text(s, secret), // not reached for valid JSON
            }
        }
        let literal = &s[open..end];
        if may_hold(literal, secret) {
            let Ok(decoded) = serde_json::from_str::<String>(literal) else {
                return text(s, secret); // not reached for valid JSON
            };
            if holds(&decoded, secret) {
                out.push_str(&s[copied..open]);
                out.push_str(&crate::api::json_text(&Value::String(text(
                    decoded, secret,
                ))));
                copied = end;
            }
        }
        at = end;
    }
    if copied == 0 {
        return s;
    }
    out.push_str(&s[copied..]);
    out
}

/// A JSON value with the secret removed from every string in it.
pub(crate) fn value(v: Value, secret: &str) -> Value {
    if secret.is_empty() {
        return v;
    }
    walk(v, secret)
}

/// A cheap first look: the secret in plain (any case), or something encoded that may spell it.
/// Runs on every header and URL of every call: one SIMD search for `%` or `\\`, then one
/// for the secret's first byte in either case, each hit compared in place.
fn may_hold(s: &str, secret: &str) -> bool {
    may_hold_bytes(s.as_bytes(), secret)
}

/// `may_hold` on bytes that need not be UTF-8 (a header value as it came): for an
/// ASCII secret (every API key is: it must make a valid header), bytes for which
/// this is false do not hold it, read as text in any way.
fn may_hold_bytes(s: &[u8], secret: &str) -> bool {
    let secret = secret.as_bytes();
    let Some(&first) = secret.first() else {
        return true;
    };
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let spelled_at = |start: usize| {
        s.get(start..start + secret.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(secret))
    };
    if memchr::memchr2(b'%', b'\\', s).is_some() {
        return true;
    }
    let mut from = 0;
    while let Some(i) = memchr::memchr2(lower, upper, &s[from..]) {
        let start = from + i;
        if spelled_at(start) {
            return true;
        }
        from = start + 1;
    }
    false
}

/// `may_hold_bytes` for many short texts (an answer's header names and values):
/// a table of the bytes that may start a spelling, made once, then one plain pass
/// per text, which costs less than two vector searches' set-up on a short one.
pub(crate) struct Screen<'s> {
    secret: &'s [u8],
    starts: [bool; 256],
}

impl<'s> Screen<'s> {
    pub(crate) fn new(secret: &'s str) -> Screen<'s> {
        let secret = secret.as_bytes();
        let mut starts = [false; 256];
        match secret.first() {
            // An empty secret may be anywhere (as may_hold_bytes says).
            None => starts = [true; 256],
            Some(first) => {
                for b in [
                    b'%',
                    b'\\',
                    first.to_ascii_lowercase(),
                    first.to_ascii_uppercase(),
                ] {
                    starts[usize::from(b)] = true;
                }
            }
        }
        Screen { secret, starts }
    }

    /// As `may_hold_bytes(s, secret)`.
    pub(crate) fn may_hold(&self, s: &[u8]) -> bool {
        if self.secret.is_empty() {
            return true;
        }
        let mut spelled = false;
        for (i, &b) in s.iter().enumerate() {
            if !self.starts[usize::from(b)] {
                continue;
            }
            if b == b'%' || b == b'\\' {
                return true;
            }
            spelled = spelled
                || s.get(i..i + self.secret.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(self.secret));
        }
        spelled
    }
}

/// The byte ranges of `s` that spell `secret` (see the module's doc), in order,
/// not overlapping. Each range starts and ends on a char boundary: it begins at
/// the secret's first byte, `%` or `\` and ends after a whole spelling.
fn find(s: &[u8], secret: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match spelled_at(s, i, secret) {
            Some(end) => {
                spans.push((i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    spans
}

/// Where a spelling of `secret` starting at `s[i]` ends, if one does.
fn spelled_at(s: &[u8], mut i: usize, secret: &[u8]) -> Option<usize> {
    for &want in secret {
        i += one_byte_at(s, i, want)?;
    }
    Some(i)
}

/// How many bytes of `s` at `i` spell the byte `want` (ASCII letters in either case).
fn one_byte_at(s: &[u8], i: usize, want: u8) -> Option<usize> {
    let rest = s.get(i..)?;
    let is_want = |code: Option<u32>| {
        code.and_then(|c| u8::try_from(c).ok())
            .is_some_and(|b| b.eq_ignore_ascii_case(&want))
    };
    match rest {
        [b, ..] if b.eq_ignore_ascii_case(&want) => Some(1),
        [b'%', h, l, ..] if is_want(hex(&[*h, *l])) => Some(3),
        [b'\\', b'/', ..] if want == b'/' => Some(2),
        [b'\\', b'u', a, b, c, d, ..] if want.is_ascii() && is_want(hex(&[*a, *b, *c, *d])) => {
            Some(6)
        }
        _ => None,
    }
}

/// Whether a query parameter's name is `key` in any spelling (`KEY`, `%6bey`): the
/// one test `gw_request` refuses with and URLs shown or followed are stripped by.
pub(crate) fn names_key(name: &str) -> bool {
    spelled_at(name.as_bytes(), 0, b"key") == Some(name.len())
}

fn hex(digits: &[u8]) -> Option<u32> {
    digits
        .iter()
        .try_fold(0u32, |n, d| Some(n * 16 + char::from(*d).to_digit(16)?))
}

fn walk(v: Value, secret: &str) -> Value {
    match v {
        Value::String(s) => Value::String(fix(s, secret)),
        Value::Array(items) => Value::Array(items.into_iter().map(|i| walk(i, secret)).collect()),
        Value::Object(map) => {
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, item) in map {
                let k = fix(k, secret);
                let item = walk(item, secret);
                out.insert(k, item);
            }
            Value::Object(out)
        }
        other => other,
    }
}

/// One decoded JSON string (a value or a key) with the secret taken out.
fn fix(s: String, secret: &str) -> String {
    if holds(&s, secret) {
        text(s, secret)
    } else {
        s
    }
}

/// `url` without its `key` query parameters (the native format's credential),
/// whatever their value or spelling of the name (`key`, `%6By`): for URLs a
/// redirect leads to (gw adds its own key, once) and for URLs gw shows.
pub(crate) fn strip_query_key(url: &str) -> std::borrow::Cow<'_, str> {
    // memchr: str::find's char search costs more on a short URL.
    let Some(q) = memchr::memchr(b'?', url.as_bytes()) else {
        return url.into();
    };
    let (base, rest) = url.split_at(q);
    let (query, fragment) = match rest[1..].find('#') {
        Some(h) => (&rest[1..1 + h], &rest[1 + h..]),
        None => (&rest[1..], ""),
    };
    // "key" spelled in any mix of plain and percent-encoded bytes, in any case.
    let is_key = |pair: &&str| names_key(pair.split('=').next().unwrap_or(""));
    if !query.split('&').any(|p| is_key(&p)) {
        return url.into();
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !is_key(p))
        .collect();
    let mut out = base.to_string();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.push_str(fragment);
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first look as it was written before it was made fast: both must agree.
    fn may_hold_plainly(s: &str, secret: &str) -> bool {
        s.contains(secret)
            || s.contains('%')
            || s.contains('\\')
            || s.as_bytes()
                .windows(secret.len().max(1))
                .any(|w| w.eq_ignore_ascii_case(secret.as_bytes()))
    }

    #[test]
    fn the_first_look_agrees_with_its_plain_definition() {
        let alphabet = ['s', 'S', 'k', 'K', '-', '1', '%', '\\', ' ', '\u{e9}'];
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1du64);
        let mut next = |n: usize| rng.below(n);
        for _ in 0..20_000 {
            let text: String = (0..next(24))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let secret: String = (0..1 + next(4)).map(|_| alphabet[next(6)]).collect();
            assert_eq!(
                may_hold(&text, &secret),
                may_hold_plainly(&text, &secret),
                "{text:?} {secret:?}"
            );
            assert_eq!(
                Screen::new(&secret).may_hold(text.as_bytes()),
                may_hold_plainly(&text, &secret),
                "{text:?} {secret:?}"
            );
        }
    }

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
        assert_eq!(out, r#"{"[REDACTED]": "x"}"#);
        let raw = "{ \"a\" : 1 }".to_string();
        assert_eq!(
            body(raw.clone(), "1"),
            raw,
            "only numbers hold it: left alone"
        );
    }

    #[test]
    fn every_spelling_of_the_key_is_found() {
        let key = "sk/ab1";
        for spelled in [
            "sk/ab1",
            "sk%2fab1",
            "sk%2Fab1",
            "%73k%2Fab%31",
            "sk\\/ab1",
            "\\u0073k\\u002Fab1",
        ] {
            let s = format!("x {spelled} y");
            assert_eq!(text(s.clone(), key), "x [REDACTED] y", "{s}");
            assert!(holds(&s, key), "{s}");
        }
        assert_eq!(text("sk%2gab1 sk/ab".into(), key), "sk%2gab1 sk/ab");
        // A JSON escape inside a JSON string: decoded, then redacted; JSON stays JSON.
        let out = body(r#"{"m":"k: sk\u002fab1","n":1}"#.into(), key);
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["m"], "k: [REDACTED]");
    }

    #[test]
    fn the_query_key_is_stripped_from_urls() {
        let cases = [
            ("https://h/p?key=s", "https://h/p"),
            ("https://h/p?alt=json&key=s&x=1", "https://h/p?alt=json&x=1"),
            // Any case, as gw_request refuses it (ops::check_raw_path): the two agree.
            ("https://h/p?KEY=s&k%45y=t", "https://h/p"),
            ("https://h/p?%6Bey=s&key=t#f", "https://h/p#f"),
            ("https://h/p?keys=1&monkey=2", "https://h/p?keys=1&monkey=2"),
            ("https://h/p", "https://h/p"),
        ];
        for (url, want) in cases {
            assert_eq!(strip_query_key(url), want, "{url}");
        }
    }

    #[test]
    fn a_member_named_twice_is_redacted_in_each_and_the_rest_kept_byte_for_byte() {
        let raw = r#"{"e": {"type": "k sk-1", "type": "x", "l": ["sk-1", {"sk-1": 1, "sk-1": 2}]}, "n": 1.50 }"#;
        let out = body(raw.to_string(), "sk-1");
        assert_eq!(
            out,
            r#"{"e": {"type": "k [REDACTED]", "type": "x", "l": ["[REDACTED]", {"[REDACTED]": 1, "[REDACTED]": 2}]}, "n": 1.50 }"#
        );
        // Escapes inside and around: a quote, a backslash before the closing quote.
        let raw = r#"{"a":"q\"sk-1\\","b":"\\","c":"s\u006b-1"}"#;
        let out = body(raw.to_string(), "sk-1");
        assert!(!holds(&out, "sk-1"), "{out}");
        let v: Value = serde_json::from_str(&out).expect("still JSON");
        assert_eq!(v["a"], "q\"[REDACTED]\\");
        assert_eq!(v["b"], "\\");
        assert_eq!(v["c"], "[REDACTED]");
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
