//! Idempotency keys: one per call, the same on each of its retries, so a
//! gateway can tell a retry from a new (billable) request.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A fresh key, `gw-` and 32 hex digits. Unique, not secret: time, process,
/// a counter and an address mixed through splitmix64.
pub(crate) fn new_key() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let local = &count as *const u64 as u64;
    let a = mix(nanos ^ (u64::from(crate::net::pid::current()) << 32));
    let b = mix(count.wrapping_add(local).wrapping_add(a));
    let mut key = String::with_capacity(35);
    let _ = write!(key, "gw-{a:016x}{b:016x}");
    key
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_header_safe() {
        let keys: std::collections::HashSet<String> = (0..10_000).map(|_| new_key()).collect();
        assert_eq!(keys.len(), 10_000);
        assert!(keys.iter().all(|k| k.len() == 35
            && k.starts_with("gw-")
            && k[3..].bytes().all(|b| b.is_ascii_hexdigit())));
    }
}
