//! Builds the `chat.completion` a streamed chat answer stands for, from its
//! `chat.completion.chunk`s, holding what a non-streamed answer would hold.
//!
//! Real servers send more than the API document shows, so nothing is dropped:
//! - top-level fields (`id`, `model`, `system_fingerprint`, `service_tier`, `usage`,
//!   unknown ones): the latest non-null value, objects merged key by key;
//! - `delta` fields become the message: strings are joined (`content`, `refusal`,
//!   `reasoning_content`, unknown text), objects merged the same way, arrays appended;
//!   `role` is set, not joined; `tool_calls` are merged call by call (`ToolCalls`);
//! - choice fields: `logprobs` appended chunk after chunk (each chunk carries its
//!   tokens'), the others (`finish_reason`, unknown ones) the latest non-null value.
//!
//! Chunks without `choices` (a usage-only last chunk, keep-alive objects) are fine:
//! only their `usage` is taken, so a `{"type":"ping"}` leaves no trace in the answer.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use crate::error::Error;
use crate::stream::chunk_scan::{ChatScan, News};

/// What a choice costs before it holds anything: in memory (its box, counted
/// with its slot in the tree's node) or in the answer (`{"index":0,"message":
/// {"role":"assistant","content":""},"finish_reason":null}`), the larger.
const CHOICE_COST: usize = {
    let in_memory =
        std::mem::size_of::<(u64, Box<ChoiceSoFar>)>() + std::mem::size_of::<ChoiceSoFar>() + 32;
    if in_memory > 80 {
        in_memory
    } else {
        80
    }
};

/// What one JSON value or map entry costs in memory beyond its text: a field
/// merged is counted with it, so a million tiny fields cannot pass for a few
/// bytes each.
const NODE_COST: usize = 32;

/// Asked now and then inside long loops over one chunk: Err ends the stream
/// (a cancel, the total deadline). A chunk may name 100,000 choices.
pub(crate) type Interrupt = std::sync::Arc<dyn Fn() -> Result<(), Error> + Send + Sync>;

/// How many choices of one chunk are merged between two `Interrupt` checks.
pub(crate) const CHECK_EVERY: usize = 4096;

#[derive(Default)]
pub(crate) struct ChatAssembler {
    /// See `Interrupt`; None: never interrupted.
    interrupt: Option<Interrupt>,
    top: Map<String, Value>,
    /// Boxed: a B-tree leaf has room for 11 entries, so 11 unboxed choices
    /// (3 KiB) would be allocated for the one nearly every stream has.
    choices: BTreeMap<u64, Box<ChoiceSoFar>>,
    /// Bytes the assembled answer holds so far (an upper bound): the joined
    /// deltas and logprobs, every field merged (keys and values, less what a new
    /// value replaced) and a fixed cost per choice. The answer grows with the
    /// stream, so it has a cap of its own, which nothing merged may get around.
    retained: usize,
    /// The raw JSON of each top-level field as last merged: a chunk repeating
    /// them changes nothing but text, and takes the fast way (`absorb_simple`).
    top_raw: Vec<(String, String)>,
    /// Text the fast way took for one choice (`hot_choice`) and not yet joined
    /// into its content (`join_hot`, before anything else reads or changes the
    /// choices): a chunk after chunk of one choice's text touches this string
    /// only, not the tree of choices and the message's map.
    hot_text: String,
    /// The choice `hot_text` belongs to; its content is text or absent.
    hot_choice: Option<u64>,
}

#[derive(Default)]
struct ChoiceSoFar {
    /// Choice-level fields besides `index` and `delta`.
    fields: Map<String, Value>,
    /// The `delta`s merged, `tool_calls` aside.
    message: Map<String, Value>,
    tool_calls: ToolCalls,
}

impl ChatAssembler {
    /// Folds a chunk in; returns the text each choice carries, in choice order.
    pub(crate) fn absorb(&mut self, chunk: &Value) -> Result<Vec<(usize, String)>, Error> {
        self.join_hot();
        if let Some(err) = chunk.get("error") {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the stream reported an error")
                .to_string();
            return Err(Error::Stream {
                message,
                body: Some(chunk.clone()),
            });
        }
        let chunk = chunk
            .as_object()
            .ok_or_else(|| Error::Decode("stream chunk is not a JSON object".into()))?;
        let choices = match chunk.get("choices") {
            None | Some(Value::Null) => {
                if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
                    merge_latest(&mut self.top, "usage", usage, &mut self.retained);
                }
                return Ok(Vec::new());
            }
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(Error::Decode(
                    "stream chunk's 'choices' is not an array".into(),
                ))
            }
        };
        for (key, value) in chunk {
            if key != "choices" && key != "object" {
                merge_latest(&mut self.top, key, value, &mut self.retained);
            }
        }
        let mut texts: Vec<(usize, String)> = Vec::new();
        for (n, choice) in choices.iter().filter_map(Value::as_object).enumerate() {
            if n % CHECK_EVERY == CHECK_EVERY - 1 {
                if let Some(interrupt) = &self.interrupt {
                    interrupt()?;
                }
            }
            let index = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let acc = match self.choices.entry(index) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    self.retained += CHOICE_COST;
                    e.insert(Box::default())
                }
            };
            for (key, value) in choice {
                match key.as_str() {
                    "index" => {}
                    "delta" => {
                        self.retained += text_bytes(value);
                        if let Some(piece) = acc.absorb_delta(value).filter(|p| !p.is_empty()) {
                            texts.push((index as usize, piece));
                        }
                    }
                    "logprobs" => {
                        self.retained += text_bytes(value);
                        merge_joining(&mut acc.fields, key, value)
                    }
                    _ => merge_latest(&mut acc.fields, key, value, &mut self.retained),
                }
            }
        }
        Ok(join_by_choice(texts))
    }

    /// Folds in a chunk read the general way, `data` being its text.
    pub(crate) fn absorb_text(
        &mut self,
        chunk: &Value,
        data: &str,
    ) -> Result<Vec<(usize, String)>, Error> {
        let texts = self.absorb(chunk)?;
        if chunk.get("choices").is_some_and(Value::is_array) {
            crate::stream::chunk_scan::record_top_fields(data, &mut self.top_raw);
        } else {
            // Only `usage` was merged; its last raw value no longer says what it holds.
            self.top_raw.retain(|(k, _)| k != "usage");
        }
        Ok(texts)
    }

    /// Sets the check made inside long loops (see `Interrupt`).
    pub(crate) fn set_interrupt(&mut self, interrupt: Option<Interrupt>) {
        self.interrupt = interrupt;
    }

    /// The raw top-level fields merged so far (`ChatMode::Assembling`).
    pub(crate) fn top_raw(&self) -> &[(String, String)] {
        &self.top_raw
    }

    /// Folds in a chunk that `scan_chat` found simple: its texts join their
    /// choices' content, and what else it sets (a new choice, its role, an empty
    /// content, a finish_reason, the first chunk's top-level fields) is merged as
    /// `absorb_text` merges it. False (nothing changed) when a choice's content
    /// is not text so far, or serde_json refuses a top-level field: then read it
    /// the general way.
    pub(crate) fn absorb_simple(&mut self, scan: &ChatScan) -> bool {
        let news = scan.news();
        if let (([only], 1), None) = ((scan.choices.as_slice(), scan.texts.len()), news) {
            // Nearly every chunk: one choice, one piece of text. It goes to the
            // text of the choice the last one went to (see `hot_text`).
            let (index, piece) = scan.texts.get(0);
            if index as u64 == *only {
                if self.hot_choice != Some(*only) {
                    let joinable = match self.choices.get(only) {
                        Some(choice) => joinable(choice),
                        None => false,
                    };
                    if !joinable {
                        return false;
                    }
                    self.join_hot();
                    self.hot_choice = Some(*only);
                }
                self.hot_text.push_str(piece);
                self.retained += scan.retained;
                return true;
            }
        }
        self.join_hot();
        // A choice named is new, or its content is text so far.
        if !scan
            .choices
            .iter()
            .all(|i| self.choices.get(i).is_none_or(|c| joinable(c)))
        {
            return false;
        }
        let empty = News::default();
        let news = news.unwrap_or(&empty);
        // The first chunk's fields, read before anything changes: one serde_json
        // refuses leaves the chunk to the general way, which says why.
        let mut top_values = Vec::new();
        for (_, raw) in &news.new_top {
            match serde_json::from_str::<Value>(raw) {
                Ok(value) => top_values.push(value),
                Err(_) => return false,
            }
        }
        // As `absorb` merges them, then `absorb_text` records them.
        for ((key, raw), value) in news.new_top.iter().zip(&top_values) {
            merge_latest(&mut self.top, key, value, &mut self.retained);
            if !value.is_null() {
                self.top_raw.push((key.clone(), raw.clone()));
            }
        }
        for &index in &scan.choices {
            if let std::collections::btree_map::Entry::Vacant(e) = self.choices.entry(index) {
                self.retained += CHOICE_COST;
                e.insert(Box::default());
            }
        }
        if let Some(choice) = news.role_of.and_then(|i| self.choices.get_mut(&i)) {
            choice
                .message
                .insert("role".into(), Value::String(news.role.clone()));
        }
        if let Some(choice) = news.empty_content.and_then(|i| self.choices.get_mut(&i)) {
            if !choice.message.contains_key("content") {
                choice
                    .message
                    .insert("content".into(), Value::String(String::new()));
            }
        }
        for n in 0..scan.texts.len() {
            let (index, piece) = scan.texts.get(n);
            if let Some(choice) = self.choices.get_mut(&(index as u64)) {
                match choice.message.get_mut("content") {
                    Some(Value::String(s)) => s.push_str(piece),
                    _ => {
                        choice
                            .message
                            .insert("content".into(), Value::String(piece.into()));
                    }
                }
            }
        }
        if let Some(index) = news.finish {
            if let Some(choice) = self.choices.get_mut(&index) {
                let reason = Value::String(news.finish_reason.clone());
                merge_latest(
                    &mut choice.fields,
                    "finish_reason",
                    &reason,
                    &mut self.retained,
                );
            }
        }
        self.retained += scan.retained;
        true
    }

    /// Joins the text the fast way took (`hot_text`) into its choice's content.
    fn join_hot(&mut self) {
        let Some(index) = self.hot_choice.take() else {
            return;
        };
        if self.hot_text.is_empty() {
            return;
        }
        let Some(choice) = self.choices.get_mut(&index) else {
            self.hot_text.clear();
            return;
        };
        match choice.message.get_mut("content") {
            Some(Value::String(s)) if s.is_empty() => std::mem::swap(s, &mut self.hot_text),
            Some(Value::String(s)) => s.push_str(&self.hot_text),
            _ => {
                let text = std::mem::take(&mut self.hot_text);
                choice.message.insert("content".into(), Value::String(text));
            }
        }
        self.hot_text.clear();
    }

    /// Bytes the assembled answer holds so far (an upper bound).
    pub(crate) fn retained(&self) -> usize {
        self.retained
    }

    /// The assembled `chat.completion` text.
    pub(crate) fn finish(mut self) -> String {
        self.join_hot();
        match self.write_answer() {
            Some(text) => text,
            None => self.finish_general(),
        }
    }

    /// `finish` the general way: the answer built as a JSON tree, then written.
    fn finish_general(self) -> String {
        let mut top = self.top;
        let mut out = Map::new();
        out.insert("id".into(), top.shift_remove("id").unwrap_or(Value::Null));
        out.insert("object".into(), "chat.completion".into());
        for key in ["created", "model"] {
            out.insert(key.into(), top.shift_remove(key).unwrap_or(Value::Null));
        }
        let usage = top.shift_remove("usage");
        out.extend(top);
        let choices: Vec<Value> = self
            .choices
            .into_iter()
            .map(|(index, c)| c.finish(index))
            .collect();
        out.insert("choices".into(), choices.into());
        if let Some(u) = usage {
            out.insert("usage".into(), u);
        }
        crate::api::json_text(&Value::Object(out))
    }
}

impl ChatAssembler {
    /// The text `finish` makes, written straight from what was merged (no map
    /// built, no field moved): nearly every answer. None where a field's name
    /// meets one `finish` places itself (`choices` at the top, `index` or
    /// `message` among a choice's fields) or a choice has tool calls: the
    /// general way then says what that gives.
    fn write_answer(&self) -> Option<String> {
        let top = &self.top;
        let mut out = Vec::with_capacity(256 + self.retained.min(1 << 20));
        out.extend_from_slice(b"{\"id\":");
        write_json(&mut out, top.get("id").unwrap_or(&Value::Null));
        out.extend_from_slice(b",\"object\":\"chat.completion\"");
        for key in ["created", "model"] {
            write_member(&mut out, key, top.get(key).unwrap_or(&Value::Null));
        }
        for (key, value) in top {
            match key.as_str() {
                "id" | "created" | "model" | "usage" => {}
                "object" | "choices" => return None,
                _ => write_member(&mut out, key, value),
            }
        }
        out.extend_from_slice(b",\"choices\":[");
        for (n, (index, choice)) in self.choices.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            choice.write_answer(*index, &mut out)?;
        }
        out.push(b']');
        if let Some(usage) = top.get("usage") {
            write_member(&mut out, "usage", usage);
        }
        out.push(b'}');
        String::from_utf8(out).ok()
    }
}

/// `value` as serde_json writes it (`Value::to_string`).
fn write_json(out: &mut Vec<u8>, value: &Value) {
    // Writing into a Vec fails only for what a Value cannot hold.
    let _ = serde_json::to_writer(&mut *out, value);
}

/// `,"key":value` as serde_json writes an object's member after the first.
fn write_member(out: &mut Vec<u8>, key: &str, value: &Value) {
    out.push(b',');
    let _ = serde_json::to_writer(&mut *out, key);
    out.push(b':');
    write_json(out, value);
}

/// Whether a choice's content takes text joined to it (text so far, or none).
fn joinable(choice: &ChoiceSoFar) -> bool {
    matches!(choice.message.get("content"), None | Some(Value::String(_)))
}

/// Texts in choice order, the pieces of one choice joined in the order they
/// came: a sort, not a search per piece (a chunk may name 100,000 choices).
fn join_by_choice(mut texts: Vec<(usize, String)>) -> Vec<(usize, String)> {
    texts.sort_by_key(|(i, _)| *i); // stable
    let mut out: Vec<(usize, String)> = Vec::with_capacity(texts.len());
    for (index, piece) in texts {
        match out.last_mut() {
            Some((last, text)) if *last == index => text.push_str(&piece),
            _ => out.push((index, piece)),
        }
    }
    out
}

/// What `v` holds in memory, roughly: its text and `NODE_COST` per value and
/// per key (the cap's measure of a merged field).
fn held_bytes(v: &Value) -> usize {
    NODE_COST
        + match v {
            Value::String(s) => s.len(),
            Value::Array(items) => items.iter().map(held_bytes).sum(),
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| NODE_COST + k.len() + held_bytes(v))
                .sum(),
            _ => 8,
        }
}

/// The bytes of the strings in `v` (keys included): what merging it keeps.
fn text_bytes(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + text_bytes(v)).sum(),
        _ => 8,
    }
}

impl ChoiceSoFar {
    /// Merges a `delta`; returns its `content` text.
    fn absorb_delta(&mut self, delta: &Value) -> Option<String> {
        let delta = delta.as_object()?;
        let mut text = None;
        for (key, value) in delta {
            match (key.as_str(), value) {
                ("role", Value::String(_)) => {
                    self.message.insert(key.clone(), value.clone());
                }
                ("tool_calls", Value::Array(calls)) => self.tool_calls.merge(calls),
                // The legacy single call: its function merges as a tool call's does.
                ("function_call", Value::Object(f)) => merge_function(&mut self.message, key, f),
                ("content", Value::String(piece)) => {
                    merge_joining(&mut self.message, key, value);
                    text = Some(piece.clone());
                }
                _ => merge_joining(&mut self.message, key, value),
            }
        }
        text
    }

    /// What `finish` gives as text, written into `out` (see
    /// `ChatAssembler::write_answer`); None, with `out` half written, where
    /// the general way must say it.
    fn write_answer(&self, index: u64, out: &mut Vec<u8>) -> Option<()> {
        if !self.tool_calls.is_empty() {
            return None;
        }
        let source = &self.message;
        out.extend_from_slice(b"{\"index\":");
        out.extend_from_slice(index.to_string().as_bytes());
        out.extend_from_slice(b",\"message\":{\"role\":");
        write_json(
            out,
            source
                .get("role")
                .unwrap_or(&Value::String("assistant".into())),
        );
        let refused = matches!(source.get("refusal"), Some(Value::String(r)) if !r.is_empty());
        out.extend_from_slice(b",\"content\":");
        match source.get("content") {
            Some(Value::String(text)) if text.is_empty() && refused => {
                write_json(out, &Value::Null)
            }
            Some(content) => write_json(out, content),
            None if refused => write_json(out, &Value::Null),
            None => out.extend_from_slice(b"\"\""),
        }
        for (key, value) in source {
            if !matches!(key.as_str(), "role" | "content") {
                write_member(out, key, value);
            }
        }
        out.push(b'}');
        if let Some(logprobs) = self.fields.get("logprobs") {
            write_member(out, "logprobs", logprobs);
        }
        write_member(
            out,
            "finish_reason",
            self.fields.get("finish_reason").unwrap_or(&Value::Null),
        );
        for (key, value) in &self.fields {
            match key.as_str() {
                "logprobs" | "finish_reason" => {}
                "index" | "message" => return None,
                _ => write_member(out, key, value),
            }
        }
        out.push(b'}');
        Some(())
    }

    fn finish(self, index: u64) -> Value {
        let mut source = self.message;
        let mut message = Map::new();
        message.insert(
            "role".into(),
            source
                .shift_remove("role")
                .unwrap_or_else(|| "assistant".into()),
        );
        // As in a non-streamed answer: no text beside tool calls or a refusal is a
        // null content (a refusal stream's deltas carry "content": null, or "").
        let refused = matches!(source.get("refusal"), Some(Value::String(r)) if !r.is_empty());
        let no_text = if self.tool_calls.is_empty() && !refused {
            Value::from("")
        } else {
            Value::Null
        };
        let content = match source.shift_remove("content") {
            Some(Value::String(text)) if text.is_empty() && refused => Value::Null,
            Some(content) => content,
            None => no_text,
        };
        message.insert("content".into(), content);
        message.extend(source);
        if !self.tool_calls.is_empty() {
            message.insert("tool_calls".into(), self.tool_calls.finish());
        }
        let mut fields = self.fields;
        let mut out = Map::new();
        out.insert("index".into(), index.into());
        out.insert("message".into(), Value::Object(message));
        if let Some(lp) = fields.shift_remove("logprobs") {
            out.insert("logprobs".into(), lp);
        }
        out.insert(
            "finish_reason".into(),
            fields.shift_remove("finish_reason").unwrap_or(Value::Null),
        );
        out.extend(fields);
        Value::Object(out)
    }
}

/// Tool calls told apart by `index` when the deltas carry one, else by `id`, else a
/// delta that names a function while the last call already has a name starts a new
/// call (some backends send neither); anything else continues the last call.
#[derive(Default)]
struct ToolCalls {
    calls: Vec<Map<String, Value>>,
    by_index: HashMap<u64, usize>,
    by_id: HashMap<String, usize>,
}

impl ToolCalls {
    fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    fn merge(&mut self, deltas: &[Value]) {
        for d in deltas.iter().filter_map(Value::as_object) {
            let slot = self.slot_for(d);
            merge_call(&mut self.calls[slot], d);
        }
    }

    fn slot_for(&mut self, d: &Map<String, Value>) -> usize {
        let id = d
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let found = match d.get("index").and_then(Value::as_u64) {
            Some(index) => {
                let slot = self.by_index.get(&index).copied();
                let slot = slot.unwrap_or_else(|| self.push());
                self.by_index.insert(index, slot);
                Some(slot)
            }
            None => id.map(|id| self.by_id.get(id).copied().unwrap_or_else(|| self.push())),
        };
        if let Some(slot) = found {
            if let Some(id) = id {
                self.by_id.entry(id.to_string()).or_insert(slot);
            }
            return slot;
        }
        // A new function name while the last call already has one: a new call.
        let new_name = !function_name(d).is_empty();
        match self.calls.last() {
            Some(last) if !new_name || function_name(last).is_empty() => self.calls.len() - 1,
            _ => self.push(),
        }
    }

    fn push(&mut self) -> usize {
        self.calls.push(Map::new());
        self.calls.len() - 1
    }

    fn finish(self) -> Value {
        self.calls
            .into_iter()
            .map(|mut call| {
                if let Some(Value::Object(f)) = call.get_mut("function") {
                    for key in ["name", "arguments"] {
                        f.entry(key).or_insert_with(|| "".into());
                    }
                }
                Value::Object(call)
            })
            .collect()
    }
}

fn function_name(call: &Map<String, Value>) -> &str {
    call.get("function")
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// One tool-call delta into its call: `id` and `type` set, `function.name` set once
/// (a server that repeats it is not doubled), `function.arguments` and the rest joined.
fn merge_call(call: &mut Map<String, Value>, d: &Map<String, Value>) {
    for (key, value) in d {
        match (key.as_str(), value) {
            ("index", _) | (_, Value::Null) => {}
            ("id" | "type", Value::String(s)) if s.is_empty() => {}
            ("id" | "type", _) => {
                call.insert(key.clone(), value.clone());
            }
            ("function", Value::Object(f)) => merge_function(call, key, f),
            _ => merge_joining(call, key, value),
        }
    }
}

/// A function delta (`tool_calls[].function`, the legacy `function_call`) into
/// `into[key]`: `name` set once (servers that repeat it in every chunk are not
/// doubled), `arguments` and the rest joined.
fn merge_function(into: &mut Map<String, Value>, key: &str, f: &Map<String, Value>) {
    let slot = into.entry(key).or_insert_with(|| Value::Object(Map::new()));
    let Some(func) = slot.as_object_mut() else {
        *slot = Value::Object(f.clone());
        return;
    };
    for (fk, fv) in f {
        let same_name = fk == "name" && func.get("name") == Some(fv);
        if !same_name {
            merge_joining(func, fk, fv);
        }
    }
}

/// Delta semantics: strings joined, objects merged recursively, arrays appended,
/// other values replaced; null adds nothing.
fn merge_joining(into: &mut Map<String, Value>, key: &str, value: &Value) {
    if value.is_null() {
        return;
    }
    let Some(slot) = into.get_mut(key) else {
        into.insert(key.to_string(), value.clone());
        return;
    };
    match (slot, value) {
        (Value::String(s), Value::String(piece)) => s.push_str(piece),
        (Value::Object(o), Value::Object(more)) => {
            for (k, v) in more {
                merge_joining(o, k, v);
            }
        }
        (Value::Array(a), Value::Array(more)) => a.extend(more.iter().cloned()),
        (slot, _) => *slot = value.clone(),
    }
}

/// Field semantics: the latest non-null value, objects merged key by key.
/// `retained` grows by what the merge adds (a new key and its value; a new value
/// less the one it replaces): a field repeated chunk after chunk counts once.
fn merge_latest(into: &mut Map<String, Value>, key: &str, value: &Value, retained: &mut usize) {
    if value.is_null() {
        return;
    }
    match (into.get_mut(key), value) {
        (Some(Value::Object(o)), Value::Object(more)) => {
            for (k, v) in more {
                merge_latest(o, k, v, retained);
            }
        }
        (Some(old), _) => {
            *retained = retained.saturating_sub(held_bytes(old)) + held_bytes(value);
            *old = value.clone();
        }
        (None, _) => {
            *retained += NODE_COST + key.len() + held_bytes(value);
            into.insert(key.to_string(), value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn assemble(chunks: &[Value]) -> Value {
        let mut a = ChatAssembler::default();
        for c in chunks {
            a.absorb(c).unwrap();
        }
        serde_json::from_str(&a.finish()).unwrap()
    }

    fn calls(deltas: &[Value]) -> Value {
        let chunks: Vec<Value> = deltas
            .iter()
            .map(|d| json!({"choices": [{"index": 0, "delta": {"tool_calls": [d]}}]}))
            .collect();
        assemble(&chunks)["choices"][0]["message"]["tool_calls"].clone()
    }

    #[test]
    fn indexed_tool_calls_merge_by_index_even_without_ids() {
        let v = calls(&[
            json!({"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\""}}),
            json!({"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": ""}}),
            json!({"index": 0, "function": {"arguments": ":1}"}}),
            json!({"index": 1, "function": {"arguments": "{}"}}),
        ]);
        assert_eq!(
            v[0]["function"],
            json!({"name": "f", "arguments": "{\"x\":1}"})
        );
        assert_eq!(v[1]["id"], "b");
        assert_eq!(v[1]["function"]["arguments"], "{}");
        assert!(v[0].get("index").is_none(), "as in a non-streamed answer");
    }

    #[test]
    fn a_repeated_name_is_not_doubled_and_a_whole_call_per_chunk_works() {
        let v = calls(&[
            json!({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{"}}),
            json!({"index": 0, "function": {"name": "f", "arguments": "}"}}),
            json!({"id": "c", "type": "function", "function": {"name": "h", "arguments": "{}"}}),
        ]);
        assert_eq!(v[0]["function"], json!({"name": "f", "arguments": "{}"}));
        assert_eq!(v[1]["function"], json!({"name": "h", "arguments": "{}"}));
        assert_eq!(v.as_array().unwrap().len(), 2);
    }

    #[test]
    fn chunks_without_choices_and_null_fields_add_nothing_wrong() {
        let v = assemble(&[
            json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}}], "usage": null}),
            json!({}),
            json!({"type": "ping"}),
            json!({"id": "c", "choices": null, "usage": {"total_tokens": 3}}),
            json!({"id": "c", "choices": [], "system_fingerprint": "fp"}),
        ]);
        assert_eq!(
            v["choices"][0]["message"],
            json!({"role": "assistant", "content": "Hi"})
        );
        assert_eq!(v["usage"]["total_tokens"], 3);
        assert!(v.get("type").is_none(), "a keep-alive leaves no trace");
        assert_eq!(v["system_fingerprint"], "fp", "fields of chunks are kept");
        assert_eq!(v["model"], "m");
    }

    #[test]
    fn the_answer_written_straight_is_the_one_the_tree_gives() {
        let cases: Vec<Vec<Value>> = vec![
            vec![],
            vec![json!({"choices": []})],
            vec![
                json!({"id": "c\u{e9}\"", "model": "m", "created": 5, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
                json!({"id": "c\u{e9}\"", "choices": [{"index": 0, "delta": {"content": "a\n\u{1}"}, "logprobs": {"content": [1]}}], "system_fingerprint": "fp"}),
                json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop", "extra": [1, {"x": null}]}], "usage": {"total_tokens": 3}}),
                json!({"choices": null, "usage": {"prompt_tokens": 1}}),
            ],
            vec![
                json!({"choices": [{"index": 1, "delta": {"refusal": "no"}}, {"index": 0, "delta": {"content": ""}}]}),
                json!({"choices": [{"index": 1, "delta": {"content": ""}}, {"index": 2, "delta": {"reasoning_content": "r", "role": 7}}]}),
            ],
            vec![json!({"choices": [{"index": 0, "delta": {"content": null, "refusal": "x"}}]})],
            vec![
                json!({"z": 1, "choices": [{"index": 0, "message": {"a": 1}, "delta": {"content": "t"}}]}),
            ],
            vec![
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"name": "f"}}]}}]}),
            ],
        ];
        for chunks in cases {
            let assemble = || {
                let mut a = ChatAssembler::default();
                for c in &chunks {
                    a.absorb(c).unwrap();
                }
                a
            };
            let general = assemble().finish_general();
            if let Some(text) = assemble().write_answer() {
                assert_eq!(text, general, "{chunks:?}");
            }
            assert_eq!(assemble().finish(), general, "{chunks:?}");
        }
    }

    #[test]
    fn a_non_object_chunk_is_a_decode_error() {
        let mut a = ChatAssembler::default();
        assert!(matches!(a.absorb(&json!([1])), Err(Error::Decode(_))));
        assert!(matches!(
            a.absorb(&json!({"choices": "x"})),
            Err(Error::Decode(_))
        ));
    }
}
