//! The scan itself: a JSON text read from a `Source` into the borrowed tree.

use std::borrow::Cow;

use super::source::Source;
use super::{Kind, Node};

/// serde_json refuses a 128th level of nesting (its recursion limit).
const MAX_DEPTH: usize = 127;

pub(super) struct Scanner<S> {
    pub(super) src: S,
    pub(super) pos: usize,
}

impl<'a, S: Source<'a>> Scanner<S> {
    pub(super) fn document(&mut self) -> Option<Node<'a>> {
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
        self.skip_ws();
        if self.peek() == b']' {
            self.pos += 1;
            return Some(Kind::Array(Vec::new()));
        }
        // The capacity a first push would give, without its growth path.
        let mut items = Vec::with_capacity(4);
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
        self.skip_ws();
        if self.peek() == b'}' {
            self.pos += 1;
            return Some(Kind::Object(Vec::new()));
        }
        let mut members = Vec::with_capacity(4);
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
