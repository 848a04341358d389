//! An object's top-level fields: recorded as raw JSON for the chat scan to
//! compare (`record_top_fields`), or checked for presence (`object_has_fields`).

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::responses::Text;
use crate::stream::json_cursor::Cursor;

/// Records the raw JSON of `data`'s non-null top-level fields (but `choices`
/// and `object`) into `top`, replacing what it held for the same keys.
pub(crate) fn record_top_fields(data: &str, top: &mut Vec<(String, String)>) {
    let Ok(TopFields(fields)) = serde_json::from_str::<TopFields<'_>>(data) else {
        return;
    };
    for (Text(key), raw) in fields {
        if key == "choices" || key == "object" || raw.get() == "null" {
            continue;
        }
        match top.iter_mut().find(|(k, _)| *k == key) {
            Some((_, value)) => raw.get().clone_into(value),
            None => top.push((key.into_owned(), raw.get().to_owned())),
        }
    }
}

/// An object's fields in order, each value as its raw JSON.
struct TopFields<'de>(Vec<(Text<'de>, &'de RawValue)>);

impl<'de> Deserialize<'de> for TopFields<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldsVisitor;
        impl<'de> Visitor<'de> for FieldsVisitor {
            type Value = TopFields<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(TopFields(fields))
            }
        }
        d.deserialize_map(FieldsVisitor)
    }
}

/// Whether `text` is one JSON object holding every field of `fields` (checked
/// in one pass, values skipped, nothing allocated). False also for invalid JSON,
/// and for what only the full parse can judge (a `\u` escape, an escaped key,
/// deep nesting: see `Cursor`), so the caller's full parse gives the one answer.
pub(crate) fn object_has_fields(text: &str, fields: &[&str]) -> bool {
    if fields.len() > 64 {
        return false;
    }
    let mut cursor = Cursor::new(text);
    matches!(fields_seen(&mut cursor, fields), Some(seen) if seen.count_ones() as usize == fields.len())
        && cursor.at_end()
}

/// Which of `fields` the object at the cursor has: bit i set for `fields[i]`.
fn fields_seen(cursor: &mut Cursor<'_>, fields: &[&str]) -> Option<u64> {
    cursor.expect(b'{')?;
    let mut seen = 0u64;
    let mut more = cursor.opens_members(b'}');
    while more {
        let key = cursor.key()?;
        if let Some(i) = fields.iter().position(|f| *f == key) {
            seen |= 1 << i;
        }
        cursor.skip_value()?;
        more = cursor.after_member(b'}')?;
    }
    Some(seen)
}
