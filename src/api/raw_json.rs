//! A request body as the caller wrote it: checked on a borrowed parse and sent
//! byte for byte (issue 20).
//!
//! `JsonText::parse` scans the text once and keeps a small tree of borrowed
//! slices: strings are never copied or decoded (a 5 MiB data URI is one slice),
//! numbers stay as written. The limit checks (`validate.rs`) read that tree, and
//! the bytes sent are the caller's own. The scan accepts exactly what
//! `serde_json::from_str::<Value>` accepts (control characters, escapes, a lone
//! surrogate, nesting past 127 levels are refused); whatever it refuses is parsed
//! again by serde_json, so an error message is serde_json's, word for word.
//!
//! A C string is scanned in the same pass that finds its end (x86_64): strings
//! 32 bytes a step with SSE2, whole 64-byte blocks of plain text or two-byte
//! escapes a step with AVX2 where the CPU has it, text past ASCII checked a
//! span at a time (`utf8_check`). Elsewhere: `strlen`, the UTF-8 check, then
//! the scan of the text.
//!
//! Here the tree (`Node`, `Kind`) and `JsonText`; the scan in `scanner.rs`, the
//! bytes it reads in `source.rs` (a Rust string) and `c_source.rs` (a C string),
//! the vector code that finds special bytes in `simd.rs`.

use std::borrow::Cow;

use serde_json::Value;

#[cfg(target_arch = "x86_64")]
mod c_source;
mod scanner;
mod simd;
mod source;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "x86_64")]
use c_source::CSource;
use scanner::Scanner;
use source::SliceSource;
#[cfg(target_arch = "x86_64")]
use source::Source;

/// One value of the body, borrowed from its text.
#[derive(Debug)]
pub struct Node<'a> {
    /// The value's text as written (a string with its quotes).
    pub raw: &'a str,
    pub kind: Kind<'a>,
}

#[derive(Debug)]
pub enum Kind<'a> {
    Null,
    Bool(bool),
    Number,
    /// `escaped`: the text between the quotes holds a backslash.
    Str {
        escaped: bool,
    },
    Array(Vec<Node<'a>>),
    /// Members in the written order; a repeated key is kept (lookups take the last,
    /// as serde_json's map does).
    Object(Vec<(Cow<'a, str>, Node<'a>)>),
}

impl<'a> Node<'a> {
    pub fn is_null(&self) -> bool {
        matches!(self.kind, Kind::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self.kind, Kind::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self.kind, Kind::Array(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self.kind, Kind::Str { .. })
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            Kind::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node<'a>]> {
        match &self.kind {
            Kind::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The member `name` of an object (the last one when the key repeats).
    pub fn get(&self, name: &str) -> Option<&Node<'a>> {
        match &self.kind {
            Kind::Object(members) => members.iter().rev().find(|(k, _)| k == name).map(|m| &m.1),
            _ => None,
        }
    }

    /// A string's value: borrowed unless it holds escapes.
    pub fn as_str(&self) -> Option<Cow<'a, str>> {
        match self.kind {
            Kind::Str { escaped: false } => Some(Cow::Borrowed(&self.raw[1..self.raw.len() - 1])),
            Kind::Str { escaped: true } => serde_json::from_str::<String>(self.raw)
                .ok()
                .map(Cow::Owned),
            _ => None,
        }
    }

    /// The value as serde_json reads it: for numbers, and for error messages.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(self.raw).unwrap_or(Value::Null)
    }

    /// An integer as serde_json's `Value::as_i64` gives it (with
    /// arbitrary_precision, the number's text parsed as an i64).
    pub fn as_i64(&self) -> Option<i64> {
        match self.kind {
            Kind::Number => self.raw.parse().ok(),
            _ => None,
        }
    }
}

/// Why `JsonText::parse` gave no tree.
#[derive(Debug)]
pub enum Unscanned {
    /// Not JSON: serde_json's error for it.
    Invalid(serde_json::Error),
    /// JSON the scan refused although serde_json takes it (a bug in the scan):
    /// serde_json's reading, for the caller to send the old way.
    Valid(Value),
}

/// A JSON text and its borrowed tree.
#[derive(Debug)]
pub struct JsonText<'a> {
    text: &'a str,
    root: Node<'a>,
}

impl<'a> JsonText<'a> {
    /// Parses `text`; the error is serde_json's own for the same text. One known
    /// difference: serde_json (feature `arbitrary_precision`) reads an object whose
    /// key is its private token `$serde_json::private::Number` as a number, or
    /// refuses it; gw reads it as the JSON it is, an object, as the gateway will.
    pub fn parse(text: &'a str) -> Result<JsonText<'a>, Unscanned> {
        match JsonText::scan(text) {
            Some(scanned) => Ok(scanned),
            None => Err(match serde_json::from_str::<Value>(text) {
                Err(e) => Unscanned::Invalid(e),
                Ok(v) => Unscanned::Valid(v),
            }),
        }
    }

    /// Parses a NUL-terminated C string in one pass: its length, its UTF-8 and
    /// its JSON checked together. None when it is not valid UTF-8 and JSON (or
    /// anything else is unusual): the caller then reads it the long way, whose
    /// errors are the ones to report.
    ///
    /// # Safety
    /// `p` is a NUL-terminated string, valid and unchanged for `'a`.
    #[cfg(target_arch = "x86_64")]
    pub unsafe fn parse_c(p: *const u8) -> Option<JsonText<'a>> {
        JsonText::parse_c_as(p, std::is_x86_feature_detected!("avx2"))
    }

    /// `parse_c`, with or without the AVX2 blocks (`wide`; the tests run both).
    ///
    /// # Safety
    /// As `parse_c`; `wide` only where the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    unsafe fn parse_c_as(p: *const u8, wide: bool) -> Option<JsonText<'a>> {
        let mut scanner = Scanner {
            src: CSource {
                start: p,
                wide,
                _text: std::marker::PhantomData,
            },
            pos: 0,
        };
        let root = scanner.document()?;
        let text = scanner.src.str(0, scanner.pos);
        Some(JsonText { text, root })
    }

    /// Elsewhere (arm64 phones among them) in three passes, each vectorised where
    /// it runs: the length by the C library's `strlen`, the UTF-8 by std, then
    /// the scan of the text.
    ///
    /// # Safety
    /// As the x86_64 one.
    #[cfg(not(target_arch = "x86_64"))]
    pub unsafe fn parse_c(p: *const u8) -> Option<JsonText<'a>> {
        parse_c_in_passes(p)
    }

    /// The scan alone: None where `parse` would give an error.
    fn scan(text: &'a str) -> Option<JsonText<'a>> {
        let mut scanner = Scanner {
            src: SliceSource(text),
            pos: 0,
        };
        let root = scanner.document()?;
        Some(JsonText { text, root })
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn root(&self) -> &Node<'a> {
        &self.root
    }

    /// The text with the top-level member `key` set to `value` (a JSON literal),
    /// as pieces to send one after another (the caller's text is not copied):
    /// every `key` member's value replaced where it stands, or `,"key":value`
    /// appended after the last member, as serde_json's map would place it.
    /// None when the text already says exactly that (nothing to edit) or the
    /// root is not an object.
    pub fn with_member(&self, key: &str, value: &str) -> Option<Vec<Cow<'a, [u8]>>> {
        let Kind::Object(members) = &self.root.kind else {
            return None;
        };
        let base = self.text.as_ptr() as usize;
        let spans: Vec<(usize, usize)> = members
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| {
                let start = v.raw.as_ptr() as usize - base;
                (start, start + v.raw.len())
            })
            .collect();
        if !spans.is_empty() && members.iter().all(|(k, v)| k != key || v.raw == value) {
            return None;
        }
        let bytes: &'a [u8] = self.text.as_bytes();
        let mut pieces = Vec::with_capacity(2 * spans.len() + 3);
        if spans.is_empty() {
            // Right after the last member (or the opening brace): the caller's layout
            // around it stays as it was.
            let at = match members.last() {
                Some((_, last)) => last.raw.as_ptr() as usize - base + last.raw.len(),
                None => self.root.raw.as_ptr() as usize - base + 1,
            };
            let comma = if members.is_empty() { "" } else { "," };
            pieces.push(Cow::Borrowed(&bytes[..at]));
            pieces.push(Cow::Owned(format!("{comma}\"{key}\":{value}").into_bytes()));
            pieces.push(Cow::Borrowed(&bytes[at..]));
        } else {
            let mut at = 0;
            for (start, end) in spans {
                pieces.push(Cow::Borrowed(&bytes[at..start]));
                pieces.push(Cow::Owned(value.as_bytes().to_vec()));
                at = end;
            }
            pieces.push(Cow::Borrowed(&bytes[at..]));
        }
        Some(pieces)
    }
}

/// `parse_c` off x86_64 (and, in tests, beside the one-pass scan on it).
///
/// # Safety
/// As `parse_c`.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
unsafe fn parse_c_in_passes<'a>(p: *const u8) -> Option<JsonText<'a>> {
    let bytes = std::slice::from_raw_parts(p, libc::strlen(p.cast()));
    if !crate::api::utf8_check::is_valid(bytes) {
        return None;
    }
    JsonText::scan(std::str::from_utf8_unchecked(bytes))
}
