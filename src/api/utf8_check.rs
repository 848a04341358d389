//! UTF-8 checked by simdutf8: the "lookup" algorithm of Keiser and Lemire
//! ("Validating UTF-8 in less than one instruction per byte", 2021), with AVX2
//! or SSE4.2 picked at run time on x86_64 and NEON on arm64; std's checker for
//! short texts and elsewhere. std walks text past ASCII one character at a
//! time: 1 MiB of Chinese costs it about 1.6 ms, simdutf8 about 0.11 ms (our
//! own SSSE3 version of the same algorithm took 0.26-0.30 ms).

/// Whether `bytes` are UTF-8, as `std::str::from_utf8(bytes).is_ok()`.
pub(crate) fn is_valid(bytes: &[u8]) -> bool {
    as_str(bytes).is_some()
}

/// `bytes` as text when they are UTF-8, as `std::str::from_utf8(bytes).ok()`.
pub(crate) fn as_str(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::{as_str, is_valid};

    fn agrees(bytes: &[u8]) {
        assert_eq!(
            is_valid(bytes),
            std::str::from_utf8(bytes).is_ok(),
            "{bytes:02x?}"
        );
        assert_eq!(as_str(bytes), std::str::from_utf8(bytes).ok());
    }

    /// Every one- and two-byte text, and every three-byte one that begins past
    /// ASCII (in a debug build, with a third byte from each class only: 17
    /// million checks take 20 s there), alone (std's way: simdutf8 takes texts
    /// under 64 bytes so) and at the edges of simdutf8's 64-byte blocks.
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
                for pad in [0usize, 14, 62, 63, 64, 126, 127] {
                    let mut t = vec![b'x'; pad];
                    t.extend_from_slice(&[a, b]);
                    agrees(&t);
                    t.extend_from_slice(&[b'x'; 70]);
                    agrees(&t);
                }
                if a >= 0x80 {
                    for &c in &thirds {
                        agrees(&[a, b, c]);
                        let mut t = vec![b'x'; 62];
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
                        for pad in (0..4).chain(58..68) {
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
