//! The Responses event scan (`type` and `delta`), and the serde readers the
//! fast way shares: a borrowed string (`Text`), a value skipped only where a
//! JSON tree would take it too (`Skip`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The `type` and `delta` of a Responses event; other fields are skipped (as
/// `Skip` reads them: what the general way refuses is refused here too).
/// None when the event is not a JSON object with those fields as strings, or
/// names one of them twice.
pub(crate) fn scan_responses(data: &str) -> Option<ResponsesScan<'_>> {
    serde_json::from_str(data).ok()
}

pub(crate) struct ResponsesScan<'a> {
    pub(crate) kind: Option<Text<'a>>,
    pub(crate) delta: Option<Text<'a>>,
}

impl<'de> Deserialize<'de> for ResponsesScan<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScanVisitor;
        impl<'de> Visitor<'de> for ScanVisitor {
            type Value = ResponsesScan<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a Responses event object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                use serde::de::Error as _;
                let mut scan = ResponsesScan {
                    kind: None,
                    delta: None,
                };
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    let slot = match &*key {
                        "type" => &mut scan.kind,
                        "delta" => &mut scan.delta,
                        _ => {
                            map.next_value::<Skip>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(A::Error::custom("a repeated field"));
                    }
                    *slot = map.next_value::<Option<Text<'de>>>()?;
                }
                Ok(scan)
            }
        }
        d.deserialize_map(ScanVisitor)
    }
}

/// A string, borrowed from the event's text unless it holds escapes.
pub(crate) struct Text<'de>(pub(crate) Cow<'de, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for TextVisitor<'a> {
            type Value = Text<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(s)))
            }
        }
        d.deserialize_str(TextVisitor(std::marker::PhantomData))
    }
}

/// A value the fast way skips. Read as raw text (borrowed: nothing allocated),
/// it is accepted only when a JSON tree would surely accept it too; anything else
/// is an error, which leaves the event to the general way, so both ways give one
/// answer. `IgnoredAny` alone would accept what a tree refuses: a lone surrogate
/// (`"\ud800"`, escapes are not decoded when skipped) or nesting past serde_json's
/// recursion limit (skipping does not count it).
struct Skip;

/// The deepest nesting a skipped value may have: the limit (128) less the deepest
/// place the fast way skips a value (inside a delta, four levels down), with room.
const MAX_SKIPPED_DEPTH: usize = 100;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let raw = <&'de RawValue>::deserialize(d)?;
        let text = raw.get();
        // Any \u escape may be half a surrogate pair: rare in skipped fields, so
        // decoding them is left to the general way.
        if text.contains("\\u") || nesting(text) > MAX_SKIPPED_DEPTH {
            return Err(D::Error::custom("left to the general way"));
        }
        Ok(Skip)
    }
}

/// How deep arrays and objects nest in a valid JSON text (brackets inside
/// strings do not count).
fn nesting(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}
