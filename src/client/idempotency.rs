//! Idempotency keys: one per call, the same on each of its retries, so a
//! gateway can tell a retry from a new (billable) request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh key, `gw-` and 32 hex digits, as the bytes of its header value. Unique,
/// not secret: time, process, a counter and an address mixed through splitmix64.
pub(crate) fn new_key_bytes() -> [u8; 35] {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let local = &count as *const u64 as u64;
    let a = mix(nanos ^ (u64::from(crate::net::pid::current()) << 32));
    let b = mix(count.wrapping_add(local).wrapping_add(a));
    let mut key = *b"gw-00000000000000000000000000000000";
    // A byte's two digits a step, each word's bytes a fixed count (unrolled).
    let (first, second) = key[3..].split_at_mut(16);
    for (digits, word) in [(first, a), (second, b)] {
        for (pair, byte) in digits.chunks_exact_mut(2).zip(word.to_be_bytes()) {
            pair[0] = HEX[usize::from(byte >> 4)];
            pair[1] = HEX[usize::from(byte & 0xf)];
        }
    }
    key
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_key() -> String {
        String::from_utf8(new_key_bytes().to_vec()).unwrap()
    }

    #[test]
    fn keys_spell_their_two_words_in_hex() {
        let key = new_key();
        let (a, b) = (&key[3..19], &key[19..]);
        let again = format!(
            "gw-{:016x}{:016x}",
            u64::from_str_radix(a, 16).unwrap(),
            u64::from_str_radix(b, 16).unwrap()
        );
        assert_eq!(key, again);
    }

    #[test]
    fn keys_are_distinct_and_header_safe() {
        let keys: std::collections::HashSet<String> = (0..10_000).map(|_| new_key()).collect();
        assert_eq!(keys.len(), 10_000);
        assert!(keys.iter().all(|k| k.len() == 35
            && k.starts_with("gw-")
            && k[3..].bytes().all(|b| b.is_ascii_hexdigit())));
    }
}
