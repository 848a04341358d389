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

use std::borrow::Cow;

use serde_json::Value;

/// serde_json refuses a 128th level of nesting (its recursion limit).
const MAX_DEPTH: usize = 127;

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

/// Where the scan reads: a Rust string, or (on x86_64) a C string whose end is
/// its NUL. `byte` gives 0 at the end; the scan never reads past a byte it has
/// not checked, so a C string is never read past its NUL (bar the aligned runs
/// of `run_bits_c`).
trait Source<'a> {
    fn byte(&self, i: usize) -> u8;
    /// Whether the text ends at `i`.
    fn end(&self, i: usize) -> bool;
    /// The text from `start` to `end`, all of it checked by the scan.
    fn str(&self, start: usize, end: usize) -> &'a str;
    /// The string whose opening quote is at `i`: the index after its closing
    /// quote and whether it holds escapes; None when it is not a valid string.
    fn string_end(&self, i: usize) -> Option<(usize, bool)>;
}

struct SliceSource<'a>(&'a str);

impl<'a> Source<'a> for SliceSource<'a> {
    fn byte(&self, i: usize) -> u8 {
        self.0.as_bytes().get(i).copied().unwrap_or(0)
    }

    fn end(&self, i: usize) -> bool {
        i == self.0.len()
    }

    fn str(&self, start: usize, end: usize) -> &'a str {
        &self.0[start..end]
    }

    /// A `str` is UTF-8 already: only quotes, backslashes and control characters
    /// (the end reads as NUL) stop the plain run.
    fn string_end(&self, i: usize) -> Option<(usize, bool)> {
        let mut i = i + 1;
        let mut escaped = false;
        loop {
            i = next_special(self.0.as_bytes(), i);
            match self.byte(i) {
                b'"' => return Some((i + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    i = escape(self, i)?;
                }
                _ => return None,
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
struct CSource<'a> {
    start: *const u8,
    /// Whether whole 64-byte blocks are tried first with AVX2 (`string_end`).
    wide: bool,
    _text: std::marker::PhantomData<&'a u8>,
}

/// A plain run longer than this has its UTF-8 checked as it goes, while its bytes
/// are still in the cache, not once at its end.
#[cfg(target_arch = "x86_64")]
const UTF8_CHUNK: usize = 64 * 1024;

/// How far ahead of the 64-byte blocks their lines are asked for: 1 MiB of cold
/// prose scanned in 159-168 us with 512-2048, 186 us without (`string_end_wide`).
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: usize = 1024;

#[cfg(target_arch = "x86_64")]
impl<'a> CSource<'a> {
    /// Walks the special bytes of each 32-byte run from one mask (an escape every
    /// line costs no new load and no new entry) from `from`, a position inside a
    /// string between characters. A byte past ASCII hands over to `rest_of_run`,
    /// which checks the UTF-8 of the whole plain run it starts. Ends with the
    /// string, or at the first position between characters at or past `until`.
    #[inline(always)]
    fn walk<const VEX: bool>(&self, from: usize, until: usize, escaped: &mut bool) -> Walk {
        let p = self.start as usize;
        // SAFETY: as `run_bits_c`: a run is read only once a byte in it is known
        // to lie at or before the NUL.
        let mut run = (p + from) & !31;
        let mut mask =
            unsafe { run_bits_c::<true, VEX>(run, p + from - run) } & !0u32 << (p + from - run);
        loop {
            while mask != 0 {
                let at = run + mask.trailing_zeros() as usize - p;
                let next = match self.byte(at) {
                    b'"' => return Walk::Done(Some((at + 1, *escaped))),
                    b'\\' => {
                        *escaped = true;
                        escape(self, at)
                    }
                    b if b >= 0x80 => self.rest_of_run::<VEX>(at).map(|(end, with_escapes)| {
                        *escaped |= with_escapes;
                        end
                    }),
                    // A control character (or the NUL): not allowed in a JSON string.
                    _ => None,
                };
                let Some(next) = next else {
                    return Walk::Done(None);
                };
                let past = p + next - run;
                if past >= 32 {
                    if next >= until {
                        return Walk::Reached(next);
                    }
                    run = (p + next) & !31;
                    mask = unsafe { run_bits_c::<true, VEX>(run, p + next - run) }
                        & !0u32 << (p + next - run);
                } else {
                    mask &= !0u32 << past;
                }
            }
            run += 32;
            if run - p >= until {
                return Walk::Reached(run - p);
            }
            mask = unsafe { run_bits_c::<true, VEX>(run, 0) };
        }
    }

    /// `string_end` from `from` with AVX2: whole 64-byte blocks that are plain
    /// text or hold only two-byte escapes (prose with line breaks and quotes) are
    /// passed in one step each, with no branch on where their escapes are; any
    /// other block (the string's end, `\\`, `\u`, bytes past ASCII, an escape
    /// across the block's end) is walked the general way.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn string_end_wide(&self, from: usize, escaped: &mut bool) -> Option<(usize, bool)> {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = self.start as usize;
        let mut pos = from;
        loop {
            // SAFETY: `pos` is between characters of the string, so its byte lies at
            // or before the NUL (`wide_block` reads as `run_bits_c` does).
            while (p + pos) & 63 == 0 {
                // A big body is often cold by now (the caller wrote it a while ago, or
                // the last send's copies evicted it): asking for the lines ahead keeps
                // the scan from waiting on each one. Past the NUL it asks for nothing
                // that faults.
                _mm_prefetch::<_MM_HINT_T0>((p + pos + PREFETCH_AHEAD) as *const i8);
                match wide_block(p + pos) {
                    Some(with_escapes) => {
                        *escaped |= with_escapes;
                        pos += 64;
                    }
                    None => break,
                }
            }
            let until = ((p + pos) & !63) + 64 - p;
            match self.walk::<true>(pos, until, escaped) {
                Walk::Done(end) => return end,
                Walk::Reached(at) => pos = at,
            }
        }
    }

    /// Whether bytes `start..end`, all read and before the NUL, are UTF-8.
    fn utf8(&self, start: usize, end: usize) -> bool {
        // SAFETY: as `str`: bytes the scan read, before the NUL.
        let bytes = unsafe { std::slice::from_raw_parts(self.start.add(start), end - start) };
        crate::api::utf8_check::is_valid(bytes)
    }

    /// From `at`, a byte past ASCII inside a string: the index of the quote or
    /// control character that ends the text from there, and whether escapes were
    /// passed on the way (each checked by `escape`). The UTF-8 of the whole span
    /// is checked (`utf8_check`, vectorised) in one go, or in chunks of
    /// `UTF8_CHUNK` bytes while they are still in the cache: escapes, quotes and
    /// backslashes are ASCII, so never inside a character. None when the span is
    /// not UTF-8 or holds a bad escape.
    fn rest_of_run<const VEX: bool>(&self, at: usize) -> Option<(usize, bool)> {
        let p = self.start as usize;
        let mut unchecked = at;
        let mut escaped = false;
        // SAFETY: as in `walk`.
        let mut run = (p + at) & !31;
        let mut special =
            unsafe { run_bits_c::<false, VEX>(run, p + at - run) } & !0u32 << (p + at - run);
        loop {
            while special != 0 {
                let pos = run + special.trailing_zeros() as usize - p;
                if self.byte(pos) != b'\\' {
                    return self.utf8(unchecked, pos).then_some((pos, escaped));
                }
                escaped = true;
                let next = escape(self, pos)?;
                let past = p + next - run;
                if past >= 32 {
                    run = (p + next) & !31;
                    special = unsafe { run_bits_c::<false, VEX>(run, p + next - run) }
                        & !0u32 << (p + next - run);
                } else {
                    special &= !0u32 << past;
                }
            }
            run += 32;
            let done = run - p;
            if done - unchecked >= UTF8_CHUNK {
                // Every byte up to `done` is the string's. Checked up to the last lead
                // byte among the last three: a character that may go on past `done`
                // is checked with the next chunk.
                let cut = (done - 3..done)
                    .rev()
                    .find(|&k| self.byte(k) >= 0xC0)
                    .unwrap_or(done);
                if !self.utf8(unchecked, cut) {
                    return None;
                }
                unchecked = cut;
            }
            special = unsafe { run_bits_c::<false, VEX>(run, 0) };
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl<'a> Source<'a> for CSource<'a> {
    fn byte(&self, i: usize) -> u8 {
        // SAFETY: every byte before `i` was read and is not NUL (see the trait).
        unsafe { *self.start.add(i) }
    }

    fn end(&self, i: usize) -> bool {
        self.byte(i) == 0
    }

    fn string_end(&self, i: usize) -> Option<(usize, bool)> {
        let mut escaped = false;
        if self.wide {
            // SAFETY: `wide` is set only where the CPU has AVX2.
            return unsafe { self.string_end_wide(i + 1, &mut escaped) };
        }
        match self.walk::<false>(i + 1, usize::MAX, &mut escaped) {
            Walk::Done(end) => end,
            Walk::Reached(_) => unreachable!("a walk without a limit ends with the string"),
        }
    }

    fn str(&self, start: usize, end: usize) -> &'a str {
        // SAFETY: the scan read these bytes, all before the NUL, and checked them:
        // ASCII outside strings, UTF-8 inside (`string_end`).
        unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                self.start.add(start),
                end - start,
            ))
        }
    }
}

struct Scanner<S> {
    src: S,
    pos: usize,
}

impl<'a, S: Source<'a>> Scanner<S> {
    fn document(&mut self) -> Option<Node<'a>> {
        let root = self.value(0)?;
        self.skip_ws();
        self.src.end(self.pos).then_some(root)
    }

    fn skip_ws(&mut self) {
        while let b' ' | b'\n' | b'\t' | b'\r' = self.src.byte(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> u8 {
        self.src.byte(self.pos)
    }

    fn node(&self, start: usize, kind: Kind<'a>) -> Node<'a> {
        Node {
            raw: self.src.str(start, self.pos),
            kind,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        // One byte at a time, stopping at the first that differs (a C string's NUL).
        let matches = word
            .iter()
            .enumerate()
            .all(|(k, &w)| self.src.byte(self.pos + k) == w);
        if matches {
            self.pos += word.len();
            Some(())
        } else {
            None
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node<'a>> {
        self.skip_ws();
        let start = self.pos;
        let kind = match self.peek() {
            b'"' => Kind::Str {
                escaped: self.string()?,
            },
            b'{' => self.object(depth + 1)?,
            b'[' => self.array(depth + 1)?,
            b't' => self.literal(b"true").map(|_| Kind::Bool(true))?,
            b'f' => self.literal(b"false").map(|_| Kind::Bool(false))?,
            b'n' => self.literal(b"null").map(|_| Kind::Null)?,
            b'-' | b'0'..=b'9' => {
                self.number()?;
                Kind::Number
            }
            _ => return None,
        };
        Some(self.node(start, kind))
    }

    fn array(&mut self, depth: usize) -> Option<Kind<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == b']' {
            self.pos += 1;
            return Some(Kind::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(Kind::Array(items));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Kind<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == b'}' {
            self.pos += 1;
            return Some(Kind::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != b'"' {
                return None;
            }
            let start = self.pos;
            let escaped = self.string()?;
            let raw = self.src.str(start, self.pos);
            let key = if escaped {
                Cow::Owned(serde_json::from_str::<String>(raw).ok()?)
            } else {
                Cow::Borrowed(&raw[1..raw.len() - 1])
            };
            self.skip_ws();
            if self.peek() != b':' {
                return None;
            }
            self.pos += 1;
            let value = self.value(depth)?;
            members.push((key, value));
            self.skip_ws();
            match self.peek() {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(Kind::Object(members));
                }
                _ => return None,
            }
        }
    }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    fn number(&mut self) -> Option<()> {
        if self.peek() == b'-' {
            self.pos += 1;
        }
        match self.peek() {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == b'.' {
            self.pos += 1;
            if !self.peek().is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        if let b'e' | b'E' = self.peek() {
            self.pos += 1;
            if let b'+' | b'-' = self.peek() {
                self.pos += 1;
            }
            if !self.peek().is_ascii_digit() {
                return None;
            }
            self.digits();
        }
        // "01", "1.5.2", "-x": what follows must end the number.
        match self.peek() {
            b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' => None,
            _ => Some(()),
        }
    }

    fn digits(&mut self) {
        while self.peek().is_ascii_digit() {
            self.pos += 1;
        }
    }

    /// A string from its opening quote; whether it holds escapes.
    fn string(&mut self) -> Option<bool> {
        let (end, escaped) = self.src.string_end(self.pos)?;
        self.pos = end;
        Some(escaped)
    }
}

/// Whether a string byte ends the plain run: a quote, a backslash or a control character.
fn special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The index of the first special byte at or after `i` (`bytes.len()` when none):
/// 16 bytes a step with SSE2, which every x86_64 CPU has.
#[cfg(target_arch = "x86_64")]
fn next_special(bytes: &[u8], mut i: usize) -> usize {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
    // SAFETY: SSE2 is part of x86_64; every load reads 16 bytes inside `bytes`.
    unsafe {
        while i + 16 <= bytes.len() {
            let v = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
            let mask = _mm_movemask_epi8(specials16(v));
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
    }
    while i < bytes.len() && !special(bytes[i]) {
        i += 1;
    }
    i
}

/// Bytes that are a quote, a backslash or a control character, as 0xFF.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn specials16(v: std::arch::x86_64::__m128i) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_max_epu8, _mm_or_si128, _mm_set1_epi8};
    let quote = _mm_set1_epi8(b'"' as i8);
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let control = _mm_set1_epi8(0x1F);
    _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
        // max(b, 0x1F) == 0x1F: b <= 0x1F, unsigned.
        _mm_cmpeq_epi8(_mm_max_epu8(v, control), control),
    )
}

/// One bit per byte of the 32-byte-aligned run at `at`: a quote, a backslash, a
/// control character (the NUL included) and, `WITH_HIGH`, a byte past ASCII.
/// The loads are aligned as C's own `strlen` reads: a run never crosses a page,
/// so when one of its bytes lies at or before the string's NUL the whole run is
/// readable; bytes past the NUL are never used (the NUL is special and comes
/// first). The loads are an `asm!` block, outside what Rust's memory model sees,
/// as a call to `strlen` would be. `VEX` where the caller uses AVX registers:
/// the compiler encodes its own SSE instructions there the AVX way, but not the
/// `asm!`, and a legacy SSE load after an AVX instruction left the registers'
/// upper halves in use costs a state transition (a 1 MiB text scan ran 4.5x
/// slower for it).
///
/// # Safety
/// `at` is 32-aligned and its byte `skip` (< 32) is a byte of a NUL-terminated
/// string at or before its NUL.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn run_bits_c<const WITH_HIGH: bool, const VEX: bool>(at: usize, skip: usize) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_setzero_si128,
    };
    #[inline(always)]
    unsafe fn load16<const VEX: bool>(at: usize) -> __m128i {
        let v: __m128i;
        if VEX {
            std::arch::asm!(
                "vmovdqa {v}, [{at}]",
                at = in(reg) at,
                v = out(xmm_reg) v,
                options(pure, readonly, nostack, preserves_flags)
            );
        } else {
            std::arch::asm!(
                "movdqa {v}, [{at}]",
                at = in(reg) at,
                v = out(xmm_reg) v,
                options(pure, readonly, nostack, preserves_flags)
            );
        }
        v
    }
    // High bits: bytes past ASCII.
    let bits = |v: __m128i| {
        let special = specials16(v);
        _mm_movemask_epi8(if WITH_HIGH {
            _mm_or_si128(special, v)
        } else {
            special
        }) as u32
    };
    // Nor a first half wholly before the string: only bytes the caller skips.
    if skip >= 16 {
        return bits(load16::<VEX>(at + 16)) << 16;
    }
    let lo = load16::<VEX>(at);
    // The second half only while the first holds no NUL from byte `skip` on (the
    // bytes before are not the string's): each 16-byte load then holds a byte of
    // the string, the one way of reading past its end that valgrind's
    // partial-loads-ok takes as well.
    let nul = (_mm_movemask_epi8(_mm_cmpeq_epi8(lo, _mm_setzero_si128())) as u32) >> skip;
    if nul != 0 {
        return bits(lo);
    }
    bits(lo) | bits(load16::<VEX>(at + 16)) << 16
}

/// Where a walk through a string stopped.
#[cfg(target_arch = "x86_64")]
enum Walk {
    /// The string ended: after its closing quote and whether it holds escapes,
    /// or None when it is not a valid string.
    Done(Option<(usize, bool)>),
    /// At this position, between characters, at or past the limit.
    Reached(usize),
}

/// Whether the 64-byte block at the 64-aligned address `at` is string text
/// whose only special bytes are two-byte escapes (`\n`, `\"`, `\/`, `\b`, `\f`,
/// `\r`, `\t`) that end inside it: Some(whether it holds one). None for
/// anything else (a NUL, a control character, a byte past ASCII, an unescaped
/// quote, `\\`, `\u`, an escape across the block's end).
///
/// # Safety
/// The CPU has AVX2; the block's first byte lies at or before the string's NUL.
/// Read as `run_bits_c` reads: the second half only when the first holds no NUL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn wide_block(at: usize) -> Option<bool> {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_max_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256,
        _mm256_shuffle_epi8, _mm256_srli_epi16,
    };
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load32(at: usize) -> __m256i {
        let v: __m256i;
        std::arch::asm!(
            "vmovdqa {v}, [{at}]",
            at = in(reg) at,
            v = out(ymm_reg) v,
            options(pure, readonly, nostack, preserves_flags)
        );
        v
    }
    // Per 32 bytes: quotes, backslashes, and bytes that stop the block (control,
    // past ASCII).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn classes(v: __m256i) -> (u32, u32, u32) {
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let control = _mm256_set1_epi8(0x1F);
        let control = _mm256_cmpeq_epi8(_mm256_max_epu8(v, control), control);
        (
            _mm256_movemask_epi8(quote) as u32,
            _mm256_movemask_epi8(backslash) as u32,
            _mm256_movemask_epi8(_mm256_or_si256(control, v)) as u32,
        )
    }
    // The bytes a two-byte escape may end with, found by their two nibbles: a
    // bit per high nibble (2, 6, 7) in one table, the low nibbles that go with
    // it in the other.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn simple_escapes(v: __m256i) -> u32 {
        let nibble = _mm256_set1_epi8(0x0F);
        #[rustfmt::skip]
        let by_low = _mm256_setr_epi8(
            0, 0, 7, 0, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 1,
            0, 0, 7, 0, 4, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 1,
        );
        #[rustfmt::skip]
        let by_high = _mm256_setr_epi8(
            0, 0, 1, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 1, 0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let low = _mm256_shuffle_epi8(by_low, _mm256_and_si256(v, nibble));
        let high =
            _mm256_shuffle_epi8(by_high, _mm256_and_si256(_mm256_srli_epi16::<4>(v), nibble));
        let not_simple = _mm256_cmpeq_epi8(_mm256_and_si256(low, high), _mm256_setzero_si256());
        !(_mm256_movemask_epi8(not_simple) as u32)
    }
    let first = load32(at);
    if _mm256_movemask_epi8(_mm256_cmpeq_epi8(first, _mm256_setzero_si256())) != 0 {
        return None;
    }
    let second = load32(at + 32);
    let (q0, b0, s0) = classes(first);
    let (q1, b1, s1) = classes(second);
    let join = |lo: u32, hi: u32| lo as u64 | (hi as u64) << 32;
    let (quote, backslash, stop) = (join(q0, q1), join(b0, b1), join(s0, s1));
    if quote | backslash | stop == 0 {
        return Some(false);
    }
    let simple = join(simple_escapes(first), simple_escapes(second));
    // A backslash is not among the simple ends: `\\` goes the general way too.
    let escaped = backslash << 1;
    let wrong = stop | (quote & !escaped) | (escaped & !simple) | backslash >> 63;
    (wrong == 0).then_some(backslash != 0)
}

/// The same, 8 bytes a step (SWAR) elsewhere.
#[cfg(not(target_arch = "x86_64"))]
fn next_special(bytes: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    while i + 8 <= bytes.len() {
        let w = u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or([0; 8]));
        let q = w ^ (LO * b'"' as u64);
        let s = w ^ (LO * b'\\' as u64);
        let hit = ((q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (w.wrapping_sub(LO * 0x20) & !w))
            & HI;
        if hit != 0 {
            break;
        }
        i += 8;
    }
    while i < bytes.len() && !special(bytes[i]) {
        i += 1;
    }
    i
}

/// Checks the escape at `i` (a backslash); the index after it. A `\u` high
/// surrogate must be followed by a `\u` low surrogate, and a low one may not
/// stand alone (serde_json's rules for a string).
fn escape<'a>(src: &impl Source<'a>, i: usize) -> Option<usize> {
    match src.byte(i + 1) {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' => {
            let n = hex4(src, i + 2)?;
            match n {
                0xDC00..=0xDFFF => None,
                0xD800..=0xDBFF => {
                    if src.byte(i + 6) != b'\\' || src.byte(i + 7) != b'u' {
                        return None;
                    }
                    let low = hex4(src, i + 8)?;
                    (0xDC00..=0xDFFF).contains(&low).then_some(i + 12)
                }
                _ => Some(i + 6),
            }
        }
        _ => None,
    }
}

/// Four hex digits at `at`, read one at a time (stopping at the first that is not one).
fn hex4<'a>(src: &impl Source<'a>, at: usize) -> Option<u16> {
    let mut n = 0u16;
    for k in 0..4 {
        n = n * 16 + (src.byte(at + k) as char).to_digit(16)? as u16;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parse_c` both ways where the CPU has AVX2 (with and without the 64-byte
    /// blocks), which must agree; the one way elsewhere.
    unsafe fn parse_c_both<'a>(p: *const u8) -> Option<JsonText<'a>> {
        #[cfg(target_arch = "x86_64")]
        {
            let narrow = JsonText::parse_c_as(p, false);
            if std::is_x86_feature_detected!("avx2") {
                let wide = JsonText::parse_c_as(p, true);
                assert_eq!(
                    format!("{narrow:?}"),
                    format!("{wide:?}"),
                    "the AVX2 and SSE2 scans differ"
                );
            }
            narrow
        }
        #[cfg(not(target_arch = "x86_64"))]
        JsonText::parse_c(p)
    }

    fn same_verdict(text: &str) {
        let ours = JsonText::parse(text);
        let serde = serde_json::from_str::<Value>(text);
        match (&ours, &serde) {
            (Ok(_), Ok(_)) => {}
            (Err(Unscanned::Invalid(a)), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{text:?}")
            }
            _ => panic!("{text:?}: ours {ours:?}, serde {serde:?}"),
        }
    }

    #[test]
    fn serde_jsons_private_number_token_is_an_ordinary_key_to_gw() {
        // Found by the request_body fuzz target: valid JSON that serde_json's
        // arbitrary_precision refuses. gw sends it as written.
        let text = r#"{ "$serde_json::private::Number":1812}"#;
        assert!(serde_json::from_str::<Value>(text).is_err());
        let parsed = JsonText::parse(text).expect("valid JSON");
        assert!(parsed.root().is_object());
        assert!(parsed.root().get("$serde_json::private::Number").is_some());
    }

    #[test]
    fn accepts_and_refuses_as_serde_json_does() {
        for text in [
            r#"{"a":1}"#,
            r#" { "a" : [ 1 , -0.5e+3 , true , false , null , "x" ] } "#,
            r#"{}"#,
            r#"[]"#,
            r#""s""#,
            r#"12345678901234567890123456789012345678901234567890"#,
            r#"{"a":"\ud83d\ude00 \" \\ \/ \b \f \n \r \t \u00e9"}"#,
            r#"{"a":"\ud800"}"#,
            r#"{"a":"\udc00"}"#,
            r#"{"a":"\ud800\u0041"}"#,
            r#"{"a":"\ud800x"}"#,
            r#"{"\ud800":1}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":-}"#,
            r#"{"a":1e}"#,
            r#"{"a":+1}"#,
            r#"{"a":1,}"#,
            r#"[1,]"#,
            r#"{"a" 1}"#,
            r#"{"a":1} x"#,
            r#"{"a":tru}"#,
            r#"{"a":nul}"#,
            "",
            "   ",
            r#"{"a":"unterminated"#,
            r#"{"a":1"#,
            r#"{"a":NaN}"#,
            "{\"a\":\"\u{7f}\u{e9}\"}",
        ] {
            same_verdict(text);
        }
        for depth in [126, 127, 128, 129] {
            same_verdict(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
            let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            same_verdict(&objects);
        }
    }

    #[test]
    fn the_plain_run_ends_at_the_first_special_byte() {
        let mut text = vec![b'a'; 100];
        assert_eq!(next_special(&text, 0), 100);
        for (at, b) in [
            (0, b'"'),
            (15, b'\\'),
            (16, 0x1F),
            (17, 0x00),
            (63, b'\n'),
            (99, b'"'),
        ] {
            text[at] = b;
            assert_eq!(next_special(&text, 0), at, "{b:#x} at {at}");
            assert_eq!(next_special(&text, at + 1), 100, "after {at}");
            text[at] = b'a';
        }
        for b in [0x20, 0x7F, 0x80, 0xFF, b'\''] {
            text[40] = b;
            assert_eq!(next_special(&text, 0), 100, "{b:#x}");
        }
    }

    /// The C-string scan takes what the slice scan takes, and gives up (for the
    /// long way to report) on whatever is not UTF-8 and JSON.
    #[test]
    fn a_c_string_scans_as_its_text_does() {
        let mut texts: Vec<Vec<u8>> = [
            r#"{"a":"caf\u00e9 é 中文 😀 \ud83d\ude00","b":[1,-2.5e3,true,null]}"#,
            r#"  {"k" : "v"}  "#,
            r#"{"a":1} x"#,
            r#"{"a":"\ud800"}"#,
            "{\"a\":\"tab\there\"}",
            r#"{"a":"unterminated"#,
            r#"{"a":tru"#,
            r#"{"a":1"#,
            "",
        ]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
        // Invalid UTF-8 inside and outside a string, and a cut character.
        texts.push(b"{\"a\":\"\xff\"}".to_vec());
        texts.push(b"{\"a\":\"\xe4\xb8\"}".to_vec());
        texts.push(b"{\"a\":\"\xed\xa0\x80\"}".to_vec());
        texts.push(b"{\"a\":\"\xc0\xaf\"}".to_vec());
        texts.push(b"{\xc3\xa9:1}".to_vec());
        // Strings long enough for several blocks, specials at every offset.
        for at in 0..160 {
            let mut long = vec![b'x'; 200];
            long[at] = b'\n';
            let mut t = b"{\"a\":\"".to_vec();
            t.extend_from_slice(&long);
            t.extend_from_slice(b"\"}");
            texts.push(t.clone());
            long[at] = b'"';
            let mut t = b"{\"a\":\"".to_vec();
            t.extend_from_slice(&long);
            t.extend_from_slice(b"\"}");
            texts.push(t);
        }
        for text in texts {
            let c = std::ffi::CString::new(text.clone()).unwrap();
            let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
            let in_passes = unsafe { parse_c_in_passes(c.as_ptr().cast()) };
            assert_eq!(
                format!("{ours:?}"),
                format!("{in_passes:?}"),
                "{:?}: the one-pass and three-pass C scans differ",
                String::from_utf8_lossy(&text)
            );
            let expected = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| JsonText::parse(t).ok());
            match (ours, expected) {
                (Some(a), Some(b)) => {
                    assert_eq!(a.text(), b.text());
                    assert_eq!(format!("{:?}", a.root()), format!("{:?}", b.root()));
                }
                (None, None) => {}
                (a, b) => panic!(
                    "{:?}: C scan {a:?}, text scan {b:?}",
                    String::from_utf8_lossy(&text)
                ),
            }
        }
    }

    /// Strings past ASCII longer than a UTF-8 chunk (64 KiB), with escapes or
    /// without, a character across every chunk edge, and one bad byte anywhere:
    /// the C scan takes and refuses what std's UTF-8 check and the text scan do.
    #[test]
    fn long_strings_past_ascii_are_checked_whole() {
        let line = "网关回答每一个请求 é 😀 ";
        let mut long = String::new();
        while long.len() < 3 * UTF8_CHUNK + 100 {
            long.push_str(line);
        }
        let escaped = long.replace(' ', "\\n");
        for body in [&long, &escaped] {
            for shift in 0..4 {
                let text = format!("{{\"a\":\"{}{body}\",\"b\":1}}", "x".repeat(shift));
                let c = std::ffi::CString::new(text.clone()).unwrap();
                let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
                assert_eq!(
                    ours.map(|t| t.text().len()),
                    Some(text.len()),
                    "shift {shift}"
                );
                // One byte broken: a continuation made ASCII, a lead made a stray
                // continuation, a byte past any character.
                for at in [
                    7,
                    1000,
                    UTF8_CHUNK - 1,
                    UTF8_CHUNK,
                    UTF8_CHUNK + 2,
                    text.len() - 12,
                ] {
                    for bad in [b'A', 0x80, 0xFF] {
                        let mut bytes = text.clone().into_bytes();
                        if bytes[at] < 0x80 {
                            continue;
                        }
                        bytes[at] = bad;
                        let expected = std::str::from_utf8(&bytes)
                            .ok()
                            .and_then(|t| JsonText::parse(t).ok())
                            .map(|t| t.text().len());
                        let c = std::ffi::CString::new(bytes).unwrap();
                        let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
                        assert_eq!(ours.map(|t| t.text().len()), expected, "{at} {bad:#x}");
                    }
                }
            }
        }
    }

    /// A character left unfinished right where the first UTF-8 chunk ends (the
    /// scan reads 32-byte blocks from a 32-aligned address, so the text is placed
    /// on one), then the closing quote: refused, as std refuses it.
    #[test]
    fn a_character_cut_at_a_chunk_edge_is_refused() {
        // The string's bytes start at 6; the first chunk ends at the first block
        // end at least UTF8_CHUNK bytes later.
        let edge = (6 + UTF8_CHUNK).div_ceil(32) * 32;
        for cut in [&[0xC3u8][..], &[0xE4], &[0xE4, 0xB8], &[0xF0, 0x9F, 0x98]] {
            for complete in [false, true] {
                let mut text = b"{\"a\":\"".to_vec();
                while text.len() + 3 <= edge - cut.len() {
                    text.extend_from_slice("网".as_bytes());
                }
                text.resize(edge - cut.len(), b'x');
                text.extend_from_slice(cut);
                if complete {
                    // The rest of the character after the edge: valid.
                    let whole: &[u8] = match cut[0] {
                        0xC3 => "é".as_bytes(),
                        0xE4 => "丸".as_bytes(),
                        _ => "😘".as_bytes(),
                    };
                    text.extend_from_slice(&whole[cut.len()..]);
                }
                text.extend_from_slice(b"\"}\0");
                let mut block = vec![0u8; text.len() + 32];
                let at = block.as_ptr().align_offset(32);
                block[at..at + text.len()].copy_from_slice(&text);
                let ours = unsafe { parse_c_both(block[at..].as_ptr()) };
                let body = &text[..text.len() - 1];
                assert_eq!(
                    ours.is_some(),
                    std::str::from_utf8(body).is_ok(),
                    "{cut:02x?} complete: {complete}"
                );
                assert_eq!(ours.is_some(), complete);
            }
        }
    }

    /// Every kind of special byte at every position of two 64-byte blocks, the
    /// text at every offset from a 64-aligned address: the C scan (both ways)
    /// takes and refuses what the text scan does.
    #[test]
    fn specials_anywhere_in_a_block_scan_as_the_text_does() {
        let specials: [&[u8]; 12] = [
            b"\\n",
            b"\\\"",
            b"\\\\",
            b"\\u00e9",
            b"\\x",
            b"\\/",
            b"\"",
            b"\x01",
            "é".as_bytes(),
            b"\\n\\t\\\"",
            b"\\",
            b"\\\\\\\"",
        ];
        let mut buffer = vec![0u8; 512];
        let base = buffer.as_ptr().align_offset(64);
        for special in specials {
            for at in 0..130 {
                let mut text = b"{\"a\":\"".to_vec();
                text.extend(std::iter::repeat_n(b'x', at));
                text.extend_from_slice(special);
                text.extend(std::iter::repeat_n(b'y', 150 - at));
                text.extend_from_slice(b"\"}");
                let expected = std::str::from_utf8(&text)
                    .ok()
                    .and_then(|t| JsonText::parse(t).ok())
                    .map(|t| format!("{:?}", t.root()));
                for shift in [0, 1, 7, 31, 32, 57, 63] {
                    let start = base + shift;
                    buffer[start..start + text.len()].copy_from_slice(&text);
                    buffer[start + text.len()] = 0;
                    let ours = unsafe { parse_c_both(buffer[start..].as_ptr()) };
                    assert_eq!(
                        ours.map(|t| format!("{:?}", t.root())),
                        expected,
                        "{:?} at {at}, shift {shift}",
                        String::from_utf8_lossy(special)
                    );
                }
            }
        }
    }

    /// A backslash followed by every printable ASCII byte, in the first block,
    /// the second, and at a block's end: only `"\\/bfnrt` (and `u` with four hex
    /// digits) make an escape, both ways of the C scan.
    #[test]
    fn every_escape_byte_is_judged_as_the_text_scan_judges_it() {
        let mut buffer = vec![0u8; 512];
        let base = buffer.as_ptr().align_offset(64);
        for byte in 0x20u8..0x80 {
            for at in [6, 40, 61, 62, 63, 100] {
                let mut text = b"{\"a\":\"".to_vec();
                text.extend(std::iter::repeat_n(b'x', at - 6));
                text.extend_from_slice(&[b'\\', byte]);
                text.extend_from_slice(b"0041 and more text after it\"}");
                let expected = JsonText::parse(std::str::from_utf8(&text).unwrap())
                    .ok()
                    .map(|t| format!("{:?}", t.root()));
                buffer[base..base + text.len()].copy_from_slice(&text);
                buffer[base + text.len()] = 0;
                let ours = unsafe { parse_c_both(buffer[base..].as_ptr()) };
                assert_eq!(
                    ours.map(|t| format!("{:?}", t.root())),
                    expected,
                    "\\{} at {at}",
                    byte as char
                );
            }
        }
    }

    /// Texts made of JSON's own pieces (and some that break it): the scan takes
    /// what serde_json takes and refuses the rest with serde_json's words, and the
    /// C-string scan agrees with both.
    fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
        const PIECES: &[&str] = &[
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"",
            "\"k\"",
            "\"v\"",
            "1",
            "-",
            "0",
            "01",
            ".5",
            "e3",
            "E-2",
            "true",
            "false",
            "null",
            "tru",
            "\\",
            "\\n",
            "\\u00e9",
            "\\ud83d",
            "\\ude00",
            "\\ud800\\u0041",
            "\\x",
            "\\u12",
            "é",
            "中",
            "😀",
            "\u{1}",
            "\t",
            "\u{7f}",
            "123456789012345678901234567890",
        ];
        proptest::collection::vec(proptest::sample::select(PIECES), 0..24)
            .prop_map(|parts| parts.concat())
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn arbitrary_texts_scan_as_serde_json_reads_them(text in pieces()) {
            same_verdict(&text);
            // Wrapped in an object, so most texts reach the string and number rules.
            same_verdict(&format!("{{\"a\":{text}}}"));
            same_verdict(&format!("{{\"a\":\"{text}\"}}"));
            for t in [text.clone(), format!("{{\"a\":\"{text}\"}}")] {
                if t.contains('\0') {
                    continue;
                }
                let c = std::ffi::CString::new(t.clone()).unwrap();
                let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
                let theirs = JsonText::parse(&t).ok();
                proptest::prop_assert_eq!(
                    ours.as_ref().map(|j| format!("{:?}", j.root())),
                    theirs.as_ref().map(|j| format!("{:?}", j.root()))
                );
            }
        }
    }

    #[test]
    fn strings_are_borrowed_and_decoded_on_demand() {
        let t = JsonText::parse(r#"{"a":"plain","b":"x\u0041","a\u0062c":1}"#).unwrap();
        let root = t.root();
        assert!(matches!(
            root.get("a").unwrap().as_str(),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(root.get("b").unwrap().as_str().unwrap(), "xA");
        assert_eq!(root.get("abc").unwrap().raw, "1");
    }

    #[test]
    fn repeated_keys_read_the_last() {
        let t = JsonText::parse(r#"{"a":1,"a":2}"#).unwrap();
        assert_eq!(t.root().get("a").unwrap().raw, "2");
    }

    #[test]
    fn integers_read_as_serde_json_reads_them() {
        for n in [
            "0",
            "-0",
            "12",
            "-12",
            "1.0",
            "1e3",
            "9223372036854775807",
            "9223372036854775808",
        ] {
            let t = JsonText::parse(n).unwrap();
            let v: Value = serde_json::from_str(n).unwrap();
            assert_eq!(t.root().as_i64(), v.as_i64(), "{n}");
        }
    }

    #[test]
    fn a_member_is_set_in_place_or_appended() {
        let set = |text: &str| {
            JsonText::parse(text)
                .unwrap()
                .with_member("stream", "true")
                .map(|pieces| String::from_utf8(pieces.concat()).unwrap())
        };
        assert_eq!(set(r#"{"a":1}"#).unwrap(), r#"{"a":1,"stream":true}"#);
        assert_eq!(set(r#" { } "#).unwrap(), r#" {"stream":true } "#);
        assert_eq!(set("{\"a\":1 }").unwrap(), "{\"a\":1,\"stream\":true }");
        assert_eq!(
            set(r#"{"stream": false, "a":1}"#).unwrap(),
            r#"{"stream": true, "a":1}"#
        );
        assert_eq!(
            set(r#"{"stream":1,"stream":null}"#).unwrap(),
            r#"{"stream":true,"stream":true}"#
        );
        assert_eq!(set(r#"{"stream":true}"#), None);
        assert_eq!(
            set(r#"{"a":{"stream":false}}"#).unwrap(),
            r#"{"a":{"stream":false},"stream":true}"#
        );
    }
}
