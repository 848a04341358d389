//! Special bytes in string text (a quote, a backslash, a control character)
//! found many at a time: SSE2 and AVX2 on x86_64, 8-byte words elsewhere.

/// Whether a string byte ends the plain run: a quote, a backslash or a control character.
fn special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The index of the first special byte at or after `i` (`bytes.len()` when none):
/// 16 bytes a step with SSE2, which every x86_64 CPU has.
#[cfg(target_arch = "x86_64")]
pub(super) fn next_special(bytes: &[u8], mut i: usize) -> usize {
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
pub(super) unsafe fn run_bits_c<const WITH_HIGH: bool, const VEX: bool>(
    at: usize,
    skip: usize,
) -> u32 {
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
pub(super) unsafe fn wide_block(at: usize) -> Option<bool> {
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
pub(super) fn next_special(bytes: &[u8], mut i: usize) -> usize {
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
