//! UTF-8 checked 16 bytes a step where the CPU has SSSE3 (the "lookup"
//! algorithm of Keiser and Lemire, "Validating UTF-8 in less than one
//! instruction per byte", 2021, as simdjson and simdutf use it); std's checker
//! elsewhere. std walks text past ASCII one character at a time: 1 MiB of
//! Chinese costs it about 1.8 ms, seven times the time to send it on loopback.

/// Whether `bytes` are UTF-8, as `std::str::from_utf8(bytes).is_ok()`.
pub(crate) fn is_valid(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("ssse3") {
        // SAFETY: the CPU has SSSE3 (checked just now).
        return unsafe { ssse3::is_valid(bytes) };
    }
    std::str::from_utf8(bytes).is_ok()
}

#[cfg(target_arch = "x86_64")]
mod ssse3 {
    use std::arch::x86_64::{
        __m128i, _mm_alignr_epi8, _mm_and_si128, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8, _mm_setr_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_srli_epi16,
        _mm_subs_epu8, _mm_testz_si128, _mm_xor_si128,
    };

    // What a pair of bytes (the one before, then this one) can get wrong: each
    // table below gives, for a nibble of the pair, the errors it allows; an error
    // is the AND of the three.
    const TOO_SHORT: u8 = 1 << 0; // a lead byte, then ASCII or another lead
    const TOO_LONG: u8 = 1 << 1; // ASCII, then a continuation
    const OVERLONG_3: u8 = 1 << 2; // E0 80..9F
    const TOO_LARGE: u8 = 1 << 3; // F4 90..BF, F5..FF
    const SURROGATE: u8 = 1 << 4; // ED A0..BF
    const OVERLONG_2: u8 = 1 << 5; // C0..C1
    const TOO_LARGE_1000: u8 = 1 << 6; // F5..FF 80..8F
    const OVERLONG_4: u8 = 1 << 6; // F0 80..8F
    const TWO_CONTS: u8 = 1 << 7; // a continuation after a continuation (valid only
                                  // inside a 3- or 4-byte character: see `check`)
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

    #[inline(always)]
    unsafe fn table(t: [u8; 16]) -> __m128i {
        _mm_loadu_si128(t.as_ptr().cast())
    }

    /// The high nibble of each byte.
    #[inline(always)]
    unsafe fn high_nibbles(v: __m128i) -> __m128i {
        _mm_and_si128(_mm_srli_epi16::<4>(v), _mm_set1_epi8(0x0F))
    }

    /// Nonzero bytes where `input` (after `prev`, the 16 bytes before it) is not UTF-8.
    #[inline]
    #[target_feature(enable = "ssse3")]
    unsafe fn check(input: __m128i, prev: __m128i) -> __m128i {
        let prev1 = _mm_alignr_epi8::<15>(input, prev);
        let byte_1_high = _mm_shuffle_epi8(
            table([
                // 0___: ASCII first
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                TOO_LONG,
                // 10__: a continuation first
                TWO_CONTS,
                TWO_CONTS,
                TWO_CONTS,
                TWO_CONTS,
                // 1100, 1101: a two-byte lead
                TOO_SHORT | OVERLONG_2,
                TOO_SHORT,
                // 1110: a three-byte lead
                TOO_SHORT | OVERLONG_3 | SURROGATE,
                // 1111: a four-byte lead (or worse)
                TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
            ]),
            high_nibbles(prev1),
        );
        let byte_1_low = _mm_shuffle_epi8(
            table([
                CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, // ____0000
                CARRY | OVERLONG_2,                           // ____0001
                CARRY,                                        // ____0010
                CARRY,                                        // ____0011
                CARRY | TOO_LARGE,                            // ____0100
                CARRY | TOO_LARGE | TOO_LARGE_1000,           // ____0101
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000, // ____1___
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, // ____1101
                CARRY | TOO_LARGE | TOO_LARGE_1000,
                CARRY | TOO_LARGE | TOO_LARGE_1000,
            ]),
            _mm_and_si128(prev1, _mm_set1_epi8(0x0F)),
        );
        let byte_2_high = _mm_shuffle_epi8(
            table([
                // 0___: ASCII second
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                // 1000, 1001, 101_: a continuation second
                TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
                TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
                // 11__: a lead second
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
                TOO_SHORT,
            ]),
            high_nibbles(input),
        );
        let special = _mm_and_si128(_mm_and_si128(byte_1_high, byte_1_low), byte_2_high);
        // Two continuations in a row are right exactly where a three- or four-byte
        // lead two or three bytes back asks for them.
        let prev2 = _mm_alignr_epi8::<14>(input, prev);
        let prev3 = _mm_alignr_epi8::<13>(input, prev);
        let third = _mm_subs_epu8(prev2, _mm_set1_epi8((0xE0u8 - 0x80) as i8));
        let fourth = _mm_subs_epu8(prev3, _mm_set1_epi8((0xF0u8 - 0x80) as i8));
        let must_continue = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8(-0x80));
        _mm_xor_si128(must_continue, special)
    }

    /// Nonzero where the last bytes of `v` begin a character it does not finish.
    #[inline]
    #[target_feature(enable = "ssse3")]
    unsafe fn incomplete(v: __m128i) -> __m128i {
        let max = _mm_setr_epi8(
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            -1,
            (0xF0u8 - 1) as i8,
            (0xE0u8 - 1) as i8,
            (0xC0u8 - 1) as i8,
        );
        _mm_subs_epu8(v, max)
    }

    /// # Safety
    /// The CPU has SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn is_valid(bytes: &[u8]) -> bool {
        let mut prev = _mm_setzero_si128();
        let mut error = _mm_setzero_si128();
        let mut blocks = bytes.chunks_exact(16);
        for block in &mut blocks {
            let input = _mm_loadu_si128(block.as_ptr().cast());
            error = if _mm_movemask_epi8(input) == 0 {
                // ASCII: wrong only if `prev` ended inside a character.
                _mm_or_si128(error, incomplete(prev))
            } else {
                _mm_or_si128(error, check(input, prev))
            };
            prev = input;
        }
        // The rest, padded with NULs (ASCII): a character cut at the end shows as
        // too short, or as unfinished at the end of the padded block.
        let rest = blocks.remainder();
        let mut last = [0u8; 16];
        last[..rest.len()].copy_from_slice(rest);
        let input = _mm_loadu_si128(last.as_ptr().cast());
        error = _mm_or_si128(error, check(input, prev));
        error = _mm_or_si128(error, incomplete(input));
        _mm_testz_si128(error, error) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::is_valid;

    fn agrees(bytes: &[u8]) {
        assert_eq!(
            is_valid(bytes),
            std::str::from_utf8(bytes).is_ok(),
            "{bytes:02x?}"
        );
    }

    /// Every one- and two-byte text, and every three-byte one that begins past
    /// ASCII (in a debug build, with a third byte from each class only: 17
    /// million checks take 20 s there), at the edges of a 16-byte block.
    #[test]
    fn short_texts_agree_with_std_everywhere_in_a_block() {
        let thirds: Vec<u8> = if cfg!(debug_assertions) {
            vec![
                0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
                0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
            ]
        } else {
            (0..=255).collect()
        };
        for a in 0..=255u8 {
            agrees(&[a]);
            for b in 0..=255u8 {
                agrees(&[a, b]);
                for pad in [0usize, 13, 14, 15, 16, 29, 30, 31] {
                    let mut t = vec![b'x'; pad];
                    t.extend_from_slice(&[a, b]);
                    agrees(&t);
                }
                if a >= 0x80 {
                    for &c in &thirds {
                        agrees(&[a, b, c]);
                        let mut t = vec![b'x'; 14];
                        t.extend_from_slice(&[a, b, c]);
                        agrees(&t);
                    }
                }
            }
        }
    }

    #[test]
    fn four_byte_characters_and_their_edges_agree_with_std() {
        for lead in [0xEFu8, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFF] {
            for second in [0x7Fu8, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0] {
                for third in [0x41u8, 0x80, 0xBF, 0xC0] {
                    for fourth in [0x41u8, 0x80, 0xBF, 0xC0] {
                        for pad in 0..20 {
                            let mut t = vec![b'x'; pad];
                            t.extend_from_slice(&[lead, second, third, fourth]);
                            agrees(&t);
                            // Cut short at the end of the text.
                            agrees(&t[..t.len() - 1]);
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn texts_of_characters_and_stray_bytes_agree_with_std(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::any().prop_map(|c| c.to_string().into_bytes()),
                    proptest::collection::vec(proptest::num::u8::ANY, 1..3),
                    proptest::strategy::Just(b"plain ascii text ".to_vec()),
                ],
                0..40,
            )
        ) {
            let bytes = parts.concat();
            proptest::prop_assert_eq!(is_valid(&bytes), std::str::from_utf8(&bytes).is_ok());
        }
    }

    use proptest::strategy::Strategy as _;
}
