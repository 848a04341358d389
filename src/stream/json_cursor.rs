//! A forward-only reader over one JSON text, for the stream's fast path
//! (`chunk_scan`). It reads plain JSON byte by byte, with no visitor machinery,
//! and gives up (`None`) on whatever it cannot judge exactly as serde_json would:
//! a `\u` escape in a skipped string, a key with escapes, nesting past
//! `MAX_SKIPPED_DEPTH`, an index that is not a plain integer. Giving up is always
//! safe (the caller reads the event the general way, whose answer is the one
//! answer); accepting what serde_json refuses, or reading it otherwise, is not.

/// The deepest nesting a skipped value may have: serde_json's recursion limit
/// (128) less the deepest place the fast way skips a value, with room.
const MAX_SKIPPED_DEPTH: usize = 100;

pub(crate) struct Cursor<'a> {
    text: &'a str,
    at: usize,
    /// `skip` takes `\u` escapes (`skip_raw`).
    allow_unicode: bool,
}

/// A string's text between its quotes, as written, and whether it holds escapes.
pub(crate) struct RawStr<'a> {
    pub(crate) inner: &'a str,
    pub(crate) escaped: bool,
    /// It holds a `\u` escape (only `decode_into` can judge its surrogates).
    unicode: bool,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            text,
            at: 0,
            allow_unicode: false,
        }
    }

    /// A reader of `text` from byte `at` on.
    pub(crate) fn at(text: &'a str, at: usize) -> Self {
        Cursor {
            text,
            at,
            allow_unicode: false,
        }
    }

    /// The byte offset read up to.
    pub(crate) fn offset(&self) -> usize {
        self.at
    }

    /// The offset of the next byte after whitespace.
    pub(crate) fn offset_of_next(&mut self) -> usize {
        self.peek();
        self.at
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after JSON whitespace, not consumed.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `b` (after whitespace) when it is next.
    pub(crate) fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.at += 1;
            return true;
        }
        false
    }

    /// `Some` when `b` comes next (consumed): for `?` in the scan.
    pub(crate) fn expect(&mut self, b: u8) -> Option<()> {
        self.eat(b).then_some(())
    }

    /// Nothing but whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// After the `{` or `[` of an object or array: true when a member follows,
    /// false when `close` (consumed) ends it at once.
    pub(crate) fn opens_members(&mut self, close: u8) -> bool {
        !self.eat(close)
    }

    /// After a member: true when another follows (`,` consumed), false at `close`.
    pub(crate) fn after_member(&mut self, close: u8) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.at += 1;
                // `{"a":1,}` is refused by serde_json: a member must follow.
                match self.peek()? {
                    c if c == close => None,
                    _ => Some(true),
                }
            }
            c if c == close => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// A key and its colon. None for a key with escapes (its decoded form would
    /// have to be compared; rare, left to the general way).
    pub(crate) fn key(&mut self) -> Option<&'a str> {
        let raw = self.string()?;
        if raw.escaped {
            return None;
        }
        self.expect(b':')?;
        Some(raw.inner)
    }

    /// A string as written. Its escapes are checked (serde_json refuses `\x`,
    /// and a raw control character); a `\u` is checked for its four hex digits.
    pub(crate) fn string(&mut self) -> Option<RawStr<'a>> {
        if !self.eat(b'"') {
            return None;
        }
        let bytes = self.bytes();
        let start = self.at;
        let (mut escaped, mut unicode) = (false, false);
        let mut i = start;
        loop {
            i = plain_run(bytes, i);
            let b = *bytes.get(i)?;
            match b {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    match *bytes.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                        b'u' => {
                            let hex = bytes.get(i + 2..i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            unicode = true;
                            i += 6;
                        }
                        _ => return None,
                    }
                }
                0..=0x1f => return None,
                _ => i += 1,
            }
        }
        self.at = i + 1;
        Some(RawStr {
            inner: &self.text[start..i],
            escaped,
            unicode,
        })
    }

    /// Consumes `null` when it is next.
    pub(crate) fn null(&mut self) -> bool {
        if self.peek() == Some(b'n') && self.bytes()[self.at..].starts_with(b"null") {
            self.at += 4;
            return true;
        }
        false
    }

    /// A plain non-negative integer that fits u64 (`0`, `17`); None for any
    /// other number (a sign, a fraction, an exponent: the general way reads them).
    pub(crate) fn index(&mut self) -> Option<u64> {
        self.peek()?;
        let bytes = self.bytes();
        let start = self.at;
        let mut n: u64 = 0;
        let mut i = start;
        while let Some(&b) = bytes.get(i) {
            if !b.is_ascii_digit() {
                break;
            }
            n = n.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || (digits > 1 && bytes[start] == b'0') {
            return None;
        }
        if matches!(bytes.get(i), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at = i;
        Some(n)
    }

    /// Skips one value as `skip_value` does, but takes `\u` escapes (checked for
    /// their four hex digits only): for a text compared as written with one
    /// serde_json already accepted.
    pub(crate) fn skip_raw(&mut self) -> Option<&'a str> {
        self.skipped(true)
    }

    /// Skips one value, checked as serde_json checks it, and gives its text as
    /// written (a `RawValue`'s text). None for what serde_json refuses, and for
    /// what only a full parse can judge: a `\u` escape (half a surrogate pair?)
    /// or nesting past `MAX_SKIPPED_DEPTH`.
    pub(crate) fn skip_value(&mut self) -> Option<&'a str> {
        self.skipped(false)
    }

    fn skipped(&mut self, allow_unicode: bool) -> Option<&'a str> {
        self.peek()?;
        let start = self.at;
        self.allow_unicode = allow_unicode;
        let skipped = self.skip(0);
        self.allow_unicode = false;
        skipped?;
        Some(&self.text[start..self.at])
    }

    fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => {
                let s = self.string()?;
                (!s.unicode || self.allow_unicode).then_some(())
            }
            open @ (b'{' | b'[') => {
                if depth >= MAX_SKIPPED_DEPTH {
                    return None;
                }
                self.at += 1;
                let close = if open == b'{' { b'}' } else { b']' };
                let mut more = self.opens_members(close);
                while more {
                    if open == b'{' {
                        let key = self.string()?;
                        if key.unicode && !self.allow_unicode {
                            return None;
                        }
                        self.expect(b':')?;
                    }
                    self.skip(depth + 1)?;
                    more = self.after_member(close)?;
                }
                Some(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.bytes()[self.at..].starts_with(word) {
            return None;
        }
        self.at += word.len();
        Some(())
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, JSON's number.
    fn number(&mut self) -> Option<()> {
        let bytes = self.bytes();
        let mut i = self.at;
        let digits_from = |mut i: usize| {
            let from = i;
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            (i, i - from)
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits_from(i).0,
            _ => return None,
        }
        if bytes.get(i) == Some(&b'.') {
            let (end, n) = digits_from(i + 1);
            if n == 0 {
                return None;
            }
            i = end;
        }
        if matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let (end, n) = digits_from(i);
            if n == 0 {
                return None;
            }
            i = end;
        }
        self.at = i;
        Some(())
    }
}

/// The end of the run of bytes from `i` that need no attention inside a string:
/// the index of the first `"`, `\\` or control character (or the end). Eight
/// bytes a step (SWAR, exact, so the first hit's place comes from the mask),
/// then byte by byte for the last few: strings in chunks are short and many,
/// where a SIMD search's set-up would cost more than it saves.
pub(crate) fn plain_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // 0x80 in each byte of `v` that is zero, and nothing else (no carries).
    let zero_bytes = |v: u64| !(((v & LOW7).wrapping_add(LOW7)) | v | LOW7);
    while let Some(word) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let found = zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')))
            // Below 0x20: the top three bits are zero.
            | zero_bytes(x & (ONES * 0xe0));
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// Appends the decoded text of a string read by `Cursor::string` to `out`. None
/// for a lone surrogate (`"\ud800"`), which serde_json refuses.
pub(crate) fn decode_into(raw: &RawStr<'_>, out: &mut String) -> Option<()> {
    let text = raw.inner;
    if !raw.escaped {
        out.push_str(text);
        return Some(());
    }
    let bytes = text.as_bytes();
    let (mut from, mut i) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&text[from..i]);
        let unescaped = match bytes[i + 1] {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            _ => {
                // `\u`: the cursor checked the four hex digits.
                let high = hex4(&bytes[i + 2..i + 6]);
                i += 6;
                let code = match high {
                    0xD800..=0xDBFF => {
                        if bytes.get(i..i + 2) != Some(b"\\u") {
                            return None;
                        }
                        let low = hex4(bytes.get(i + 2..i + 6)?);
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        i += 6;
                        0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => high,
                };
                out.push(char::from_u32(code)?);
                from = i;
                continue;
            }
        };
        out.push(unescaped);
        i += 2;
        from = i;
    }
    out.push_str(&text[from..]);
    Some(())
}

fn hex4(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0, |n, d| n * 16 + char::from(*d).to_digit(16).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(text: &str) -> Option<&str> {
        let mut c = Cursor::new(text);
        let raw = c.skip_value()?;
        c.at_end().then_some(raw)
    }

    #[test]
    fn skips_what_serde_json_accepts_and_gives_its_text() {
        for ok in [
            "0",
            "-0",
            "12.5e+3",
            "1E9",
            "true",
            "null",
            r#""a\"\\\/\b\f\n\r\t""#,
            r#"{"a":[1,{"b":null}],"c":{}}"#,
            "[]",
            " [ 1 , 2 ] ",
        ] {
            serde_json::from_str::<serde_json::Value>(ok).unwrap();
            assert_eq!(skipped(ok), Some(ok.trim()), "{ok}");
        }
    }

    #[test]
    fn gives_up_on_what_serde_json_refuses_or_only_it_can_judge() {
        let deep = "[".repeat(MAX_SKIPPED_DEPTH + 1) + &"]".repeat(MAX_SKIPPED_DEPTH + 1);
        for bad in [
            "01",
            "1.",
            "-",
            ".5",
            "1e",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\"}",
            "{1:2}",
            "\"\\x\"",
            "\"a\u{1}\"",
            "\"\\u12\"",
            "\"\\u0041\"",
            "[1 2]",
            "\"open",
            &deep,
        ] {
            assert_eq!(skipped(bad), None, "{bad}");
        }
    }

    #[test]
    fn decodes_escapes_and_surrogate_pairs_as_serde_json() {
        for text in [
            r#""plain é""#,
            r#""a\nb\"c\\d\/e\tf""#,
            r#""\u00e9\u4e2d\ud83d\ude00!""#,
        ] {
            let mut c = Cursor::new(text);
            let raw = c.string().unwrap();
            let mut out = String::new();
            decode_into(&raw, &mut out).unwrap();
            assert_eq!(out, serde_json::from_str::<String>(text).unwrap(), "{text}");
        }
        for lone in [r#""\ud800""#, r#""\ude00x""#, r#""\ud800\u0041""#] {
            let mut c = Cursor::new(lone);
            let raw = c.string().unwrap();
            assert!(decode_into(&raw, &mut String::new()).is_none(), "{lone}");
            assert!(serde_json::from_str::<String>(lone).is_err());
        }
    }

    #[test]
    fn a_plain_run_stops_at_the_first_quote_backslash_or_control_byte() {
        for stop in [b'"', b'\\', 0x00, 0x1f] {
            for at in 0..20 {
                let mut bytes = "é中x ~\u{7f}".repeat(4).into_bytes();
                bytes.truncate(20);
                bytes[at] = stop;
                assert_eq!(plain_run(&bytes, 0), at, "{stop:#x} at {at}");
            }
        }
        // Bytes past ASCII, DEL, space and tilde need no attention.
        let plain = "é中x ~\u{7f}".repeat(5);
        assert_eq!(plain_run(plain.as_bytes(), 0), plain.len());
        assert_eq!(plain_run(b"ab\"", 3), 3);
    }

    #[test]
    fn reads_only_plain_indexes() {
        for (text, want) in [
            ("0", Some(0)),
            ("42,", Some(42)),
            ("007", None),
            ("1.0", None),
        ] {
            assert_eq!(Cursor::new(text).index(), want, "{text}");
        }
        assert_eq!(Cursor::new("18446744073709551616").index(), None);
        assert_eq!(Cursor::new("-1").index(), None);
    }
}
