//! The fast reading of a stream event: the few fields gw needs, read typed
//! and borrowed from the event's text, with no `serde_json::Value` tree and no
//! allocation once the buffers are warm.
//!
//! A scan either understands the whole event ("simple") or gives up, and then
//! the caller reads the event the general way (`Value` + `ChatAssembler`), so
//! every error and every rare shape keeps exactly one implementation. Most
//! events of a long answer are simple: a chunk whose only news is some text.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The texts one event carries, per choice, in choice order. The strings are
/// kept from event to event so their capacity is reused.
#[derive(Default)]
pub(crate) struct TextSlots {
    slots: Vec<(usize, String)>,
    len: usize,
}

impl TextSlots {
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn get(&self, i: usize) -> (usize, &str) {
        let (choice, text) = &self.slots[i];
        (*choice, text)
    }

    /// Adds `piece` to the text of `choice`. Two pieces for one choice next to
    /// each other are joined here; apart, by `sort`. Constant time: a chunk may
    /// name 100,000 choices, so no search over the ones added.
    pub(crate) fn add(&mut self, choice: usize, piece: &str) {
        if let Some((c, text)) = self.len.checked_sub(1).map(|i| &mut self.slots[i]) {
            if *c == choice {
                text.push_str(piece);
                return;
            }
        }
        if self.len == self.slots.len() {
            self.slots.push((choice, String::new()));
        }
        let (c, text) = &mut self.slots[self.len];
        *c = choice;
        text.clear();
        text.push_str(piece);
        self.len += 1;
    }

    /// Puts the texts in choice order and joins the pieces of one choice (in the
    /// order they were added): O(n log n), and O(n) when already in order.
    pub(crate) fn sort(&mut self) {
        let slots = &mut self.slots[..self.len];
        if slots.windows(2).all(|w| w[0].0 < w[1].0) {
            return;
        }
        // Stable: the pieces of one choice keep their order.
        slots.sort_by_key(|(c, _)| *c);
        let mut kept = 0;
        for i in 1..slots.len() {
            if slots[i].0 == slots[kept].0 {
                let piece = std::mem::take(&mut slots[i].1);
                slots[kept].1.push_str(&piece);
                // The emptied slot keeps its buffer for a later event.
                slots[i].1 = piece;
            } else {
                kept += 1;
                slots.swap(kept, i);
            }
        }
        self.len = kept + 1;
    }
}

/// What a chat chunk scan found, besides its texts.
#[derive(Default)]
pub(crate) struct ChatScan {
    pub(crate) texts: TextSlots,
    /// The choice indexes the chunk names, texts or not.
    pub(crate) choices: Vec<u64>,
    /// What the chunk adds to the assembled answer's size (as `text_bytes`).
    pub(crate) retained: usize,
}

/// How strict a chat scan is.
pub(crate) enum ChatMode<'a> {
    /// Only the texts matter (no answer is assembled): other fields are skipped.
    TextsOnly,
    /// The answer is assembled: the chunk is simple only when it changes nothing
    /// but text. `top` holds the raw JSON of the top-level fields merged so far;
    /// a field with another value (or a new field) is news, so not simple.
    Assembling { top: &'a [(String, String)] },
}

/// Scans a `chat.completion.chunk`. True when the chunk was understood; then
/// `out` holds its texts. False: read it the general way.
pub(crate) fn scan_chat(data: &str, mode: &ChatMode<'_>, out: &mut ChatScan) -> bool {
    out.texts.clear();
    out.choices.clear();
    out.retained = 0;
    let mut de = serde_json::Deserializer::from_str(data);
    let seed = ChunkSeed { mode, out };
    matches!(seed.deserialize(&mut de), Ok(true)) && de.end().is_ok()
}

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
/// and for what only the full parse can judge (a `\u` escape in a value, deep
/// nesting: see `Skip`), so the caller's full parse gives the one answer.
pub(crate) fn object_has_fields(text: &str, fields: &[&str]) -> bool {
    // Under arbitrary_precision a bare number reads as a map: only objects come here.
    if !text.trim_start().starts_with('{') || fields.len() > 64 {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let found = FieldsSeed { fields }.deserialize(&mut de);
    matches!(found, Ok(seen) if seen.count_ones() as usize == fields.len()) && de.end().is_ok()
}

/// Finds which of `fields` an object has: bit i set for `fields[i]`.
struct FieldsSeed<'f> {
    fields: &'f [&'f str],
}

impl<'de> DeserializeSeed<'de> for FieldsSeed<'_> {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FieldsSeed<'_> {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let mut seen = 0u64;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            if let Some(i) = self.fields.iter().position(|f| *f == key) {
                seen |= 1 << i;
            }
            map.next_value::<Skip>()?;
        }
        Ok(seen)
    }
}

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

/// Whether a field's value is JSON `null` (which merges as nothing).
struct IsNull(bool);

impl<'de> Deserialize<'de> for IsNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Option::<Skip>::deserialize(d).map(|v| IsNull(v.is_none()))
    }
}

/// The chunk object. Ok(false): understood, but not simple.
struct ChunkSeed<'m, 'o> {
    mode: &'m ChatMode<'m>,
    out: &'o mut ChatScan,
}

impl<'de> DeserializeSeed<'de> for ChunkSeed<'_, '_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChunkSeed<'_, '_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chat.completion.chunk object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut has_choices = false;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match (&*key, self.mode) {
                // A repeated `choices`: a JSON tree keeps the last one; the general
                // way says what that means.
                ("choices", _) if has_choices => return Ok(false),
                ("choices", _) => {
                    has_choices = true;
                    let seed = ChoicesSeed {
                        strict: matches!(self.mode, ChatMode::Assembling { .. }),
                        out: &mut *self.out,
                    };
                    if !map.next_value_seed(seed)? {
                        return Ok(false);
                    }
                }
                // An error object, or a chunk to assemble the general way.
                ("error", _) => return Ok(false),
                ("object", _) | (_, ChatMode::TextsOnly) => {
                    map.next_value::<Skip>()?;
                }
                (key, ChatMode::Assembling { top }) => {
                    let raw: &RawValue = map.next_value()?;
                    let same = top.iter().any(|(k, v)| k == key && v == raw.get());
                    if !same && raw.get() != "null" {
                        return Ok(false);
                    }
                }
            }
        }
        // A chunk without choices (usage only, keep-alive objects) is rare: general way.
        Ok(has_choices)
    }
}

struct ChoicesSeed<'o> {
    strict: bool,
    out: &'o mut ChatScan,
}

impl<'de> DeserializeSeed<'de> for ChoicesSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChoicesSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of choices")
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<bool, S::Error> {
        loop {
            let seed = ChoiceSeed {
                strict: self.strict,
                out: &mut *self.out,
            };
            match seq.next_element_seed(seed)? {
                None => break,
                Some(false) => return Ok(false),
                Some(true) => {}
            }
        }
        self.out.texts.sort();
        Ok(true)
    }
}

struct ChoiceSeed<'o> {
    strict: bool,
    out: &'o mut ChatScan,
}

impl<'de> DeserializeSeed<'de> for ChoiceSeed<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChoiceSeed<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a choice object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut index = 0u64;
        let mut content: Option<Text<'de>> = None;
        // The fields read, each once: a repeated one (a tree keeps the last) is
        // left to the general way.
        let mut seen = 0u8;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            let bit = match &*key {
                "index" => 1,
                "delta" => 2,
                "finish_reason" => 4,
                "logprobs" => 8,
                _ => 0,
            };
            if seen & bit != 0 {
                return Ok(false);
            }
            seen |= bit;
            match &*key {
                "index" => index = map.next_value()?,
                "delta" => {
                    let delta: DeltaScan<'de> = map.next_value_seed(DeltaSeed {
                        strict: self.strict,
                    })?;
                    match delta {
                        DeltaScan::NotSimple => return Ok(false),
                        DeltaScan::Simple { text, retained } => {
                            self.out.retained += retained;
                            content = text;
                        }
                    }
                }
                // As the general way counts them (`text_bytes` of null).
                "finish_reason" | "logprobs" if self.strict => {
                    if !map.next_value::<IsNull>()?.0 {
                        return Ok(false);
                    }
                    if &*key == "logprobs" {
                        self.out.retained += 8;
                    }
                }
                _ if self.strict => return Ok(false),
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        self.out.choices.push(index);
        if let Some(Text(piece)) = content.filter(|t| !t.0.is_empty()) {
            let Ok(choice) = usize::try_from(index) else {
                return Ok(false);
            };
            self.out.texts.add(choice, &piece);
        }
        Ok(true)
    }
}

enum DeltaScan<'de> {
    Simple {
        text: Option<Text<'de>>,
        retained: usize,
    },
    NotSimple,
}

struct DeltaSeed {
    strict: bool,
}

impl<'de> DeserializeSeed<'de> for DeltaSeed {
    type Value = DeltaScan<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DeltaSeed {
    type Value = DeltaScan<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a delta object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut text = None;
        let mut retained = 0;
        let mut has_content = false;
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match &*key {
                "content" if has_content => return Ok(DeltaScan::NotSimple),
                "content" => {
                    has_content = true;
                    let value: Option<Text<'de>> = map.next_value()?;
                    // As `text_bytes` counts the delta: key, then the string (null: 8).
                    retained += key.len() + value.as_ref().map_or(8, |t| t.0.len());
                    text = value;
                }
                _ if self.strict => return Ok(DeltaScan::NotSimple),
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(DeltaScan::Simple { text, retained })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(scan: &ChatScan) -> Vec<(usize, String)> {
        (0..scan.texts.len())
            .map(|i| {
                let (c, t) = scan.texts.get(i);
                (c, t.to_string())
            })
            .collect()
    }

    const CHUNK: &str = r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel\nlo"},"finish_reason":null,"logprobs":null}]}"#;

    #[test]
    fn texts_only_reads_the_content_of_each_choice() {
        let mut scan = ChatScan::default();
        assert!(scan_chat(CHUNK, &ChatMode::TextsOnly, &mut scan));
        assert_eq!(texts(&scan), [(0, "Hel\nlo".to_string())]);
        let two = r#"{"choices":[{"index":1,"delta":{"content":"b","role":"assistant"}},{"index":0,"delta":{"content":"a"}}]}"#;
        assert!(scan_chat(two, &ChatMode::TextsOnly, &mut scan));
        assert_eq!(texts(&scan), [(0, "a".into()), (1, "b".into())]);
    }

    #[test]
    fn assembling_is_simple_only_when_nothing_but_text_changes() {
        let top: Vec<(String, String)> = [("id", "\"c1\""), ("created", "1"), ("model", "\"m\"")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mode = ChatMode::Assembling { top: &top };
        let mut scan = ChatScan::default();
        assert!(scan_chat(CHUNK, &mode, &mut scan));
        assert_eq!(scan.choices, [0]);
        assert_eq!(scan.retained, "content".len() + "Hel\nlo".len() + 8);
        for news in [
            CHUNK.replace("\"m\"", "\"m2\""),
            CHUNK.replace("\"finish_reason\":null", "\"finish_reason\":\"stop\""),
            CHUNK.replace("{\"content\"", "{\"role\":\"assistant\",\"content\""),
            CHUNK.replace("\"created\":1", "\"created\":1,\"usage\":{}"),
            r#"{"error":{"message":"x"}}"#.to_string(),
            r#"{"usage":{"total_tokens":1}}"#.to_string(),
        ] {
            assert!(!scan_chat(&news, &mode, &mut scan), "{news}");
        }
    }

    #[test]
    fn broken_json_is_not_simple() {
        let mut scan = ChatScan::default();
        for bad in [
            "{\"choices\":[",
            "[1]",
            "{\"choices\":[]} x",
            "{\"choices\":{}}",
        ] {
            assert!(!scan_chat(bad, &ChatMode::TextsOnly, &mut scan), "{bad}");
        }
    }

    #[test]
    fn object_fields_are_found_without_a_tree() {
        let fields = ["id", "choices"];
        assert!(object_has_fields(
            r#" {"id":"x","n":[1,{"a":2}],"choices":[]}"#,
            &fields
        ));
        assert!(object_has_fields(
            r#"{"choices":null,"i\u0064":1}"#,
            &fields
        ));
        for no in [
            r#"{"id":"x"}"#,
            r#"{"id":"x","choices":[]"#,
            r#"{"id":"x","choices":[]} {}"#,
            "42",
            "[]",
            "",
        ] {
            assert!(!object_has_fields(no, &fields), "{no}");
        }
        assert!(object_has_fields("{}", &[]));
    }

    #[test]
    fn responses_fields_are_read_borrowed() {
        let scan = scan_responses(r#"{"type":"response.output_text.delta","delta":"Hi","x":[1]}"#)
            .unwrap();
        assert_eq!(scan.kind.unwrap().0, "response.output_text.delta");
        assert!(matches!(scan.delta.unwrap().0, Cow::Borrowed("Hi")));
    }
}
