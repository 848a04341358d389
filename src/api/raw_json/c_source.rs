//! The source for a NUL-terminated C string (x86_64): the string's end, its UTF-8
//! and its JSON found in one pass, 32 bytes a step, or 64 with AVX2.

use super::simd::{run_bits_c, wide_block};
use super::source::{escape, Source};

pub(super) struct CSource<'a> {
    pub(super) start: *const u8,
    /// Whether whole 64-byte blocks are tried first with AVX2 (`string_end`).
    pub(super) wide: bool,
    pub(super) _text: std::marker::PhantomData<&'a u8>,
}

/// A plain run longer than this has its UTF-8 checked as it goes, while its bytes
/// are still in the cache, not once at its end.
pub(super) const UTF8_CHUNK: usize = 64 * 1024;

/// How far ahead of the 64-byte blocks their lines are asked for: 1 MiB of cold
/// prose scanned in 159-168 us with 512-2048, 186 us without (`string_end_wide`).
const PREFETCH_AHEAD: usize = 1024;

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

/// Where a walk through a string stopped.
enum Walk {
    /// The string ended: after its closing quote and whether it holds escapes,
    /// or None when it is not a valid string.
    Done(Option<(usize, bool)>),
    /// At this position, between characters, at or past the limit.
    Reached(usize),
}
