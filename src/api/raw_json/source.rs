//! Where the scan reads (`Source`), and the one for a Rust string
//! (`SliceSource`); the check of an escape both sources use.

use super::simd::next_special;

/// Where the scan reads: a Rust string, or (on x86_64) a C string whose end is
/// its NUL. `byte` gives 0 at the end; the scan never reads past a byte it has
/// not checked, so a C string is never read past its NUL (bar the aligned runs
/// of `run_bits_c`).
pub(super) trait Source<'a> {
    fn byte(&self, i: usize) -> u8;
    /// Whether the text ends at `i`.
    fn end(&self, i: usize) -> bool;
    /// The text from `start` to `end`, all of it checked by the scan.
    fn str(&self, start: usize, end: usize) -> &'a str;
    /// The string whose opening quote is at `i`: the index after its closing
    /// quote and whether it holds escapes; None when it is not a valid string.
    fn string_end(&self, i: usize) -> Option<(usize, bool)>;
}

pub(super) struct SliceSource<'a>(pub(super) &'a str);

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

/// Checks the escape at `i` (a backslash); the index after it. A `\u` high
/// surrogate must be followed by a `\u` low surrogate, and a low one may not
/// stand alone (serde_json's rules for a string).
pub(super) fn escape<'a>(src: &impl Source<'a>, i: usize) -> Option<usize> {
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
