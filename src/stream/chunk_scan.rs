//! The fast reading of a stream event: the few fields gw needs, read typed
//! and borrowed from the event's text, with no `serde_json::Value` tree and no
//! allocation once the buffers are warm.
//!
//! A scan either understands the whole event ("simple") or gives up, and then
//! the caller reads the event the general way (`Value` + `ChatAssembler`), so
//! every error and every rare shape keeps exactly one implementation. Most
//! events of a long answer are simple: a chunk whose only news is some text.
//!
//! Here the chat chunk scan (`scan_chat`), with the shape a long answer's chunks
//! share; the texts it collects are `text_slots.rs`, the Responses event scan and
//! its serde readers `responses.rs`, an object's top-level fields `top_fields.rs`.

use crate::stream::json_cursor::{decode_into, Cursor, RawStr};

mod responses;
#[cfg(test)]
mod tests;
mod text_slots;
mod top_fields;

pub(crate) use responses::scan_responses;
use text_slots::TextSlots;
pub(crate) use top_fields::{object_has_fields, record_top_fields};

/// What a chat chunk scan found, besides its texts.
#[derive(Default)]
pub(crate) struct ChatScan {
    pub(crate) texts: TextSlots,
    /// The choice indexes the chunk names, texts or not.
    pub(crate) choices: Vec<u64>,
    /// What the chunk adds to the assembled answer's size (as `text_bytes`).
    pub(crate) retained: usize,
    /// What the chunk sets besides text, when `news_set` (nearly no chunk sets
    /// any: kept out of the way of the fields every chunk reads).
    news: Option<Box<News>>,
    news_set: bool,
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

/// What a chunk sets besides text, merged by `ChatAssembler::absorb_simple`.
#[derive(Default)]
pub(crate) struct News {
    /// The choice whose `finish_reason` the chunk sets to a text (one per
    /// chunk: a choice's last chunk), the text in `finish_reason`.
    pub(crate) finish: Option<u64>,
    pub(crate) finish_reason: String,
    /// The choice whose delta sets `role` (a text, one per chunk: a choice's
    /// first chunk), the text in `role`.
    pub(crate) role_of: Option<u64>,
    pub(crate) role: String,
    /// The choice whose delta carries an empty content text (one per chunk):
    /// it sets a content the choice may not have had.
    pub(crate) empty_content: Option<u64>,
    /// The top-level fields of the first chunk (no field merged before), each
    /// once, as written: scalars, nulls among them.
    pub(crate) new_top: Vec<(String, String)>,
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
    /// What the chunk sets besides text (a role, an empty content, a
    /// finish_reason, the first top fields), which `absorb_simple` merges.
    pub(crate) fn news(&self) -> Option<&News> {
        self.news.as_deref().filter(|_| self.news_set)
    }

    fn news_mut(&mut self) -> &mut News {
        self.news_set = true;
        self.news.get_or_insert_with(Default::default)
    }

    fn forget_news(&mut self) {
        if std::mem::take(&mut self.news_set) {
            if let Some(news) = &mut self.news {
                news.finish = None;
                news.role_of = None;
                news.empty_content = None;
                news.new_top.clear();
            }
        }
    }

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
        // As `scan_choice`: an empty text is the general way's to merge.
        if assembling && len == 0 {
            return false;
        }
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
    out.forget_news();
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
    // A shape stands for chunks that change nothing but text: not one that sets
    // more (nor one taken before it, whose fields it may no longer say).
    if simple && !out.news_set {
        out.keep_shape(data, assembling);
    } else {
        out.shape = None;
    }
    simple
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
                if top.is_empty() {
                    // The first chunk: its fields are all news, merged by
                    // absorb_simple when they are scalars named once each.
                    let scalar = matches!(
                        raw.as_bytes()[0],
                        b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
                    );
                    let news = out.news_mut();
                    if !scalar || news.new_top.iter().any(|(k, _)| k == key) {
                        return Some(false);
                    }
                    news.new_top.push((key.to_owned(), raw.to_owned()));
                } else {
                    let same = top.iter().any(|(k, v)| k == key && v == raw);
                    if !same && raw != "null" {
                        return Some(false);
                    }
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
    let mut finishes = false;
    let mut has_role = false;
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
                DeltaScan::Simple(text, role) => (content, has_role) = (text, role),
            },
            // A choice's last chunk: its finish_reason, a text, is merged as the
            // general way merges it (`absorb_simple`); one per chunk. Null adds
            // nothing (as `text_bytes` of null, nothing is counted).
            "finish_reason" if strict => {
                if !cursor.null() {
                    let raw = cursor.string()?;
                    let news = out.news_mut();
                    if news.finish.is_some() {
                        return Some(false);
                    }
                    news.finish_reason.clear();
                    decode_into(&raw, &mut news.finish_reason)?;
                    finishes = true;
                }
            }
            // As the general way counts it (`text_bytes` of null).
            "logprobs" if strict => {
                if !cursor.null() {
                    return Some(false);
                }
                out.retained += 8;
            }
            _ if strict => return Some(false),
            _ => {
                cursor.skip_value()?;
            }
        }
        more = cursor.after_member(b'}')?;
    }
    // An empty text adds no text, yet sets a content the choice may not have
    // had (`""` where a null would be, beside tool calls): absorb_simple sets it.
    if strict && content.as_ref().is_some_and(|raw| raw.inner.is_empty()) {
        let news = out.news_mut();
        if news.empty_content.is_some() {
            return Some(false);
        }
        news.empty_content = Some(index);
    }
    out.choices.push(index);
    if finishes {
        out.news_mut().finish = Some(index);
    }
    if has_role {
        let news = out.news_mut();
        if news.role_of.is_some() {
            return Some(false);
        }
        news.role_of = Some(index);
    }
    if let Some(raw) = content.filter(|raw| !raw.inner.is_empty()) {
        let choice = usize::try_from(index).ok()?;
        // scan_delta decoded an escaped text into `decoded`.
        let text = if raw.escaped { &out.decoded } else { raw.inner };
        out.texts.add(choice, text);
    }
    Some(true)
}

enum DeltaScan<'a> {
    /// Its content (None when absent or null), and whether it sets a role
    /// (`News::role`).
    Simple(Option<RawStr<'a>>, bool),
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
    let mut has_role = false;
    let mut more = cursor.opens_members(b'}');
    while more {
        let key = cursor.key()?;
        match key {
            "content" if has_content => return Some(DeltaScan::NotSimple),
            // A choice's first chunk names its role: set by absorb_simple.
            "role" if strict => {
                if has_role {
                    return Some(DeltaScan::NotSimple);
                }
                let raw = cursor.string()?;
                let news = out.news_mut();
                news.role.clear();
                decode_into(&raw, &mut news.role)?;
                has_role = true;
                // As `text_bytes` counts the delta: key, then the string.
                let len = news.role.len();
                out.retained += key.len() + len;
            }
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
    Some(DeltaScan::Simple(text, has_role))
}
