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

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::stream::json_cursor::{decode_into, Cursor, RawStr};

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
    /// The decoded text of a content string with escapes (kept: its capacity
    /// is reused from event to event).
    decoded: String,
    /// Where the content string of the chunk being scanned is (its text between
    /// the quotes, as byte offsets), while there is exactly one.
    content_span: ContentSpan,
    /// The last simple chunk with one choice and one content string, when the
    /// chunks since were all read the fast way (`Shape`).
    shape: Option<Shape>,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum ContentSpan {
    #[default]
    None,
    One(usize, usize),
    Several,
}

/// A chunk's bytes around its content string. Within a stream the chunks of a
/// long answer differ only in that string (same id, model, index, nulls), so a
/// chunk with the same bytes before and after a valid string reads exactly as
/// the last one did but for its text: the reader's state after the same bytes
/// is the same, and `Cursor::string` ending right where the same suffix starts
/// shows the middle is one string token. Checking that is two compares and one
/// string scan, against a full scan of every field.
struct Shape {
    /// The whole text of the chunk the shape was taken from.
    text: String,
    /// `text[..prefix]` ends with the content string's opening quote.
    prefix: usize,
    /// `text[suffix..]` starts with its closing quote.
    suffix: usize,
    choice: u64,
    /// `retained` less what the content string adds.
    retained_rest: usize,
    /// Taken in `ChatMode::Assembling`: its verdict on the other fields holds for
    /// the same `top` only, so the driver drops the shape whenever a chunk is
    /// read the general way (the only way `top` changes).
    assembling: bool,
}

impl ChatScan {
    /// Forgets the last chunk's shape: the driver read a chunk the general way.
    pub(crate) fn forget_shape(&mut self) {
        self.shape = None;
    }

    /// Reads `data` through the last shape. False: it does not fit (nothing set).
    fn scan_by_shape(&mut self, data: &str, assembling: bool) -> bool {
        let Some(shape) = &self.shape else {
            return false;
        };
        let (before, after) = (&shape.text[..shape.prefix], &shape.text[shape.suffix..]);
        if shape.assembling != assembling
            || data.len() < before.len() + after.len()
            || !data.starts_with(before)
            || !data.ends_with(after)
        {
            return false;
        }
        let mut cursor = Cursor::at(data, before.len() - 1);
        let Some(raw) = cursor.string() else {
            return false;
        };
        if cursor.offset() != data.len() - after.len() + 1 {
            return false;
        }
        let len = if raw.escaped {
            self.decoded.clear();
            if decode_into(&raw, &mut self.decoded).is_none() {
                return false;
            }
            self.decoded.len()
        } else {
            raw.inner.len()
        };
        let (choice, retained_rest) = (shape.choice, shape.retained_rest);
        self.retained = retained_rest + "content".len() + len;
        self.choices.push(choice);
        if len > 0 {
            let Ok(index) = usize::try_from(choice) else {
                return false;
            };
            let text = if raw.escaped {
                &self.decoded
            } else {
                raw.inner
            };
            self.texts.add(index, text);
        }
        true
    }

    /// Keeps the shape of a chunk the full scan found simple, when it has one
    /// choice and one content string.
    fn keep_shape(&mut self, data: &str, assembling: bool) {
        let ContentSpan::One(start, end) = self.content_span else {
            return;
        };
        if self.choices.len() != 1 {
            return;
        }
        let text_len = self
            .texts
            .len()
            .checked_sub(1)
            .map_or(0, |i| self.texts.get(i).1.len());
        let mut text = self.shape.take().map(|s| s.text).unwrap_or_default();
        text.clear();
        text.push_str(data);
        self.shape = Some(Shape {
            text,
            prefix: start,
            suffix: end,
            choice: self.choices[0],
            retained_rest: self.retained - "content".len() - text_len,
            assembling,
        });
    }
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
    let assembling = matches!(mode, ChatMode::Assembling { .. });
    if out.scan_by_shape(data, assembling) {
        return true;
    }
    out.texts.clear();
    out.choices.clear();
    out.retained = 0;
    out.content_span = ContentSpan::None;
    let mut cursor = Cursor::new(data);
    let simple = matches!(scan_chunk(&mut cursor, mode, out), Some(true)) && cursor.at_end();
    if simple {
        out.keep_shape(data, assembling);
    } else {
        out.shape = None;
    }
    simple
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

/// The chunk object. Some(false): understood, but not simple; None: not read
/// (what serde_json refuses, or what the general way must judge).
fn scan_chunk(cursor: &mut Cursor<'_>, mode: &ChatMode<'_>, out: &mut ChatScan) -> Option<bool> {
    cursor.expect(b'{')?;
    let mut has_choices = false;
    let mut more = cursor.opens_members(b'}');
    while more {
        let key = cursor.key()?;
        match (key, mode) {
            // A repeated `choices`: a JSON tree keeps the last one; the general
            // way says what that means.
            ("choices", _) if has_choices => return Some(false),
            ("choices", _) => {
                has_choices = true;
                let strict = matches!(mode, ChatMode::Assembling { .. });
                if !scan_choices(cursor, strict, out)? {
                    return Some(false);
                }
            }
            // An error object, or a chunk to assemble the general way.
            ("error", _) => return Some(false),
            ("object", _) | (_, ChatMode::TextsOnly) => {
                cursor.skip_value()?;
            }
            (key, ChatMode::Assembling { top }) => {
                // Compared as written: the same text as a value merged before
                // changes nothing (so a `\u` in it is no news either).
                let raw = cursor.skip_raw()?;
                let same = top.iter().any(|(k, v)| k == key && v == raw);
                if !same && raw != "null" {
                    return Some(false);
                }
            }
        }
        more = cursor.after_member(b'}')?;
    }
    // A chunk without choices (usage only, keep-alive objects) is rare: general way.
    Some(has_choices)
}

fn scan_choices(cursor: &mut Cursor<'_>, strict: bool, out: &mut ChatScan) -> Option<bool> {
    cursor.expect(b'[')?;
    let mut more = cursor.opens_members(b']');
    while more {
        if !scan_choice(cursor, strict, out)? {
            return Some(false);
        }
        more = cursor.after_member(b']')?;
    }
    out.texts.sort();
    Some(true)
}

fn scan_choice(cursor: &mut Cursor<'_>, strict: bool, out: &mut ChatScan) -> Option<bool> {
    cursor.expect(b'{')?;
    let mut index = 0u64;
    let mut content: Option<RawStr<'_>> = None;
    // The fields read, each once: a repeated one (a tree keeps the last) is
    // left to the general way.
    let mut seen = 0u8;
    let mut more = cursor.opens_members(b'}');
    while more {
        let key = cursor.key()?;
        let bit = match key {
            "index" => 1,
            "delta" => 2,
            "finish_reason" => 4,
            "logprobs" => 8,
            _ => 0,
        };
        if seen & bit != 0 {
            return Some(false);
        }
        seen |= bit;
        match key {
            "index" => index = cursor.index()?,
            "delta" => match scan_delta(cursor, strict, out)? {
                DeltaScan::NotSimple => return Some(false),
                DeltaScan::Simple(text) => content = text,
            },
            // As the general way counts them (`text_bytes` of null).
            "finish_reason" | "logprobs" if strict => {
                if !cursor.null() {
                    return Some(false);
                }
                if key == "logprobs" {
                    out.retained += 8;
                }
            }
            _ if strict => return Some(false),
            _ => {
                cursor.skip_value()?;
            }
        }
        more = cursor.after_member(b'}')?;
    }
    out.choices.push(index);
    if let Some(raw) = content.filter(|raw| !raw.inner.is_empty()) {
        let choice = usize::try_from(index).ok()?;
        // scan_delta decoded an escaped text into `decoded`.
        let text = if raw.escaped { &out.decoded } else { raw.inner };
        out.texts.add(choice, text);
    }
    Some(true)
}

enum DeltaScan<'a> {
    /// Its content: None when absent or null.
    Simple(Option<RawStr<'a>>),
    NotSimple,
}

fn scan_delta<'a>(
    cursor: &mut Cursor<'a>,
    strict: bool,
    out: &mut ChatScan,
) -> Option<DeltaScan<'a>> {
    cursor.expect(b'{')?;
    let mut text = None;
    let mut has_content = false;
    let mut more = cursor.opens_members(b'}');
    while more {
        let key = cursor.key()?;
        match key {
            "content" if has_content => return Some(DeltaScan::NotSimple),
            "content" => {
                has_content = true;
                // As `text_bytes` counts the delta: key, then the string (null: 8).
                let len = if cursor.null() {
                    8
                } else {
                    let start = cursor.offset_of_next() + 1;
                    let raw = cursor.string()?;
                    out.content_span = match out.content_span {
                        ContentSpan::None => ContentSpan::One(start, cursor.offset() - 1),
                        _ => ContentSpan::Several,
                    };
                    let len = if raw.escaped {
                        out.decoded.clear();
                        decode_into(&raw, &mut out.decoded)?;
                        out.decoded.len()
                    } else {
                        raw.inner.len()
                    };
                    text = Some(raw);
                    len
                };
                out.retained += key.len() + len;
            }
            _ if strict => return Some(DeltaScan::NotSimple),
            _ => {
                cursor.skip_value()?;
            }
        }
        more = cursor.after_member(b'}')?;
    }
    Some(DeltaScan::Simple(text))
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

    /// What one scan of `data` gives: (simple, texts, choices, retained).
    type Scanned = (bool, Vec<(usize, String)>, Vec<u64>, usize);

    fn scanned(scan: &mut ChatScan, data: &str, mode: &ChatMode<'_>) -> Scanned {
        let simple = scan_chat(data, mode, scan);
        (simple, texts(scan), scan.choices.clone(), scan.retained)
    }

    /// `data` read after `before` (so through its shape when it fits) gives what a
    /// fresh scan of `data` gives.
    fn same_as_fresh(before: &str, data: &str, mode: &ChatMode<'_>) -> Scanned {
        let mut warm = ChatScan::default();
        scan_chat(before, mode, &mut warm);
        let got = scanned(&mut warm, data, mode);
        assert_eq!(got, scanned(&mut ChatScan::default(), data, mode), "{data}");
        got
    }

    fn merged(model: &str) -> Vec<(String, String)> {
        [("id", "\"c1\""), ("created", "1"), ("model", model)]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_chunk_of_the_last_shape_reads_as_a_full_scan_would() {
        let top = merged("\"m\"");
        let assembling = ChatMode::Assembling { top: &top };
        let with = |text: &str| CHUNK.replace(r"Hel\nlo", text);
        for mode in [&ChatMode::TextsOnly, &assembling] {
            for text in [
                "word ",
                "",
                r#"a\"b\\c\n"#,
                r"\u00e9\ud83d\ude00",
                "\u{e9}t\u{e9}",
            ] {
                let (simple, ..) = same_as_fresh(CHUNK, &with(text), mode);
                assert!(simple, "{text}");
            }
            // A quote in the middle makes another structure with the same ends.
            let two = with(r#"a"}},{"index":1,"delta":{"content":"b"#);
            let (simple, texts, ..) = same_as_fresh(CHUNK, &two, mode);
            if simple {
                assert_eq!(texts, [(0, "a".into()), (1, "b".into())]);
            }
            // What serde_json refuses is refused through a shape too.
            for bad in [r"\ud800", "a\u{1}b", r"\x"] {
                let (simple, ..) = same_as_fresh(CHUNK, &with(bad), mode);
                assert!(!simple, "{bad}");
            }
        }
        // A shape taken while only texts mattered says nothing of the other fields.
        let mut scan = ChatScan::default();
        assert!(scan_chat(CHUNK, &ChatMode::TextsOnly, &mut scan));
        let renamed = CHUNK.replace("\"m\"", "\"m2\"");
        assert!(!scan_chat(&renamed, &assembling, &mut scan));
    }

    #[test]
    fn a_forgotten_shape_is_not_used() {
        let top = merged("\"m\"");
        let mut scan = ChatScan::default();
        assert!(scan_chat(
            CHUNK,
            &ChatMode::Assembling { top: &top },
            &mut scan
        ));
        assert!(scan.shape.is_some());
        scan.forget_shape();
        assert!(scan.shape.is_none());
        // With `model` merged as "m2" since, the same bytes are news.
        let changed = merged("\"m2\"");
        assert!(!scan_chat(
            CHUNK,
            &ChatMode::Assembling { top: &changed },
            &mut scan
        ));
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
        // An escaped key is left to the full parse.
        assert!(!object_has_fields(
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
