//! The retry policy: which answers are worth another try and how long to wait.
//!
//! As openai-python does it: 408, 409, 429, 5xx and connection failures;
//! `x-should-retry` overrides; `retry-after-ms`, then `Retry-After` (seconds or
//! an HTTP date) are honoured up to a cap; otherwise exponential backoff from
//! `base` doubling to `max`, minus up to 25 % jitter so clients do not retry
//! in lockstep.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use ureq::http::header::RETRY_AFTER;
use ureq::http::{HeaderMap, HeaderName};

/// A task's polling hint, looked up by a name made once (a lookup by text parses
/// the name each time, and this one is looked for on every 2xx answer).
static POLL_AFTER_MS: HeaderName = HeaderName::from_static("openai-poll-after-ms");

/// Whether an HTTP status is worth retrying, before `x-should-retry` is read.
pub fn status_is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The server's explicit word (`x-should-retry: true|false`), when it gave one.
pub fn should_retry_header(headers: &HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The wait the server asked for, if any, read from `retry-after-ms` then
/// `Retry-After`. Negative or unparsable values are ignored.
pub fn server_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if let Some(d) = seconds(ms / 1000.0) {
            return Some(d);
        }
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A server's number of seconds as a wait: negative, NaN and infinite values
/// are ignored, and anything too large for a `Duration` (`1e300`) saturates
/// (the caller caps it); whatever a server sends, this never panics.
fn seconds(secs: f64) -> Option<Duration> {
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    Some(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

/// The wait a successful answer asks for before it is polled again:
/// `openai-poll-after-ms`, else `Retry-After` (as for retries).
/// `now` is read only when a Retry-After date needs it (most answers have none).
pub fn poll_after(headers: &HeaderMap, now: impl FnOnce() -> SystemTime) -> Option<Duration> {
    let hinted = headers
        .get(&POLL_AFTER_MS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis);
    hinted.or_else(|| {
        headers
            .get(RETRY_AFTER)
            .is_some()
            .then(|| server_delay(headers, now()))
            .flatten()
    })
}

/// Backoff for retry number `attempt` (0-based): base * 2^attempt, capped, with jitter.
pub fn backoff(attempt: u32, base: Duration, max: Duration) -> Duration {
    let full = base.saturating_mul(1u32 << attempt.min(20)).min(max);
    let jitter = 1.0 - 0.25 * unit_random();
    // try_: a huge configured maximum must not overflow in the float round trip.
    Duration::try_from_secs_f64(full.as_secs_f64() * jitter).unwrap_or(full)
}

/// A cheap uniform value in [0, 1) for jitter; it needs spread, not secrecy.
fn unit_random() -> f64 {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let mut x = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed) ^ seed;
    // splitmix64 finaliser
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use ureq::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retryable_statuses() {
        for s in [408, 409, 429, 500, 502, 503, 504] {
            assert!(status_is_retryable(s), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!status_is_retryable(s), "{s}");
        }
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(
            server_delay(&headers(&[("retry-after-ms", "250")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            server_delay(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            server_delay(&headers(&[("retry-after", "1.5")]), now),
            Some(Duration::from_millis(1500))
        );
        // 2015-10-21 07:28:00 GMT is now + 0 s; 07:28:30 is now + 30 s.
        assert_eq!(
            server_delay(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:30 GMT")]),
                now
            ),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            server_delay(
                &headers(&[("retry-after", "Wed, 21 Oct 2015 07:00:00 GMT")]),
                now
            ),
            Some(Duration::ZERO)
        );
        assert_eq!(
            server_delay(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(server_delay(&headers(&[("retry-after", "-3")]), now), None);
        // retry-after-ms wins over Retry-After
        assert_eq!(
            server_delay(
                &headers(&[("retry-after-ms", "10"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(10))
        );
    }

    #[test]
    fn absurd_values_saturate_instead_of_panicking() {
        let now = SystemTime::UNIX_EPOCH;
        for (name, value) in [
            ("retry-after-ms", "1e300"),
            ("retry-after-ms", "1.7976931348623157e308"),
            ("retry-after", "99999999999999999999"),
            ("retry-after", "18446744073709551616"),
            ("retry-after", "1e20"),
        ] {
            assert_eq!(
                server_delay(&headers(&[(name, value)]), now),
                Some(Duration::MAX),
                "{name}: {value}"
            );
        }
        for value in ["NaN", "inf", "-inf", "-0.5", "1e-400x"] {
            assert_eq!(server_delay(&headers(&[("retry-after", value)]), now), None);
        }
        let huge = Duration::from_secs(u64::MAX);
        assert!(backoff(40, huge, huge) <= huge);
    }

    proptest::proptest! {
        /// Whatever bytes a server puts in these headers, reading them never
        /// panics and the capped wait stays within the cap.
        #[test]
        fn any_retry_header_value_is_safe(
            ms in proptest::collection::vec(proptest::num::u8::ANY, 0..48),
            after in proptest::collection::vec(proptest::num::u8::ANY, 0..48),
            number in proptest::num::f64::ANY,
            digits in "[-+]?[0-9]{0,30}(\\.[0-9]{0,30})?([eE][-+]?[0-9]{1,4})?",
            should in proptest::collection::vec(proptest::num::u8::ANY, 0..16),
            now_secs in 0u64..8_000_000_000,
        ) {
            let now = SystemTime::UNIX_EPOCH + Duration::from_secs(now_secs);
            let cap = Duration::from_millis(60_000);
            let mut sets: Vec<HeaderMap> = Vec::new();
            for (name, value) in [
                ("retry-after-ms", ms.clone()),
                ("retry-after", after.clone()),
                ("retry-after", number.to_string().into_bytes()),
                ("retry-after-ms", number.to_string().into_bytes()),
                ("retry-after", digits.clone().into_bytes()),
                ("retry-after-ms", digits.clone().into_bytes()),
                ("x-should-retry", should.clone()),
            ] {
                let mut h = HeaderMap::new();
                if let Ok(v) = HeaderValue::from_bytes(&value) {
                    h.insert(name, v);
                }
                sets.push(h);
            }
            let mut both = HeaderMap::new();
            if let (Ok(a), Ok(b)) = (HeaderValue::from_bytes(&ms), HeaderValue::from_bytes(&after)) {
                both.insert("retry-after-ms", a);
                both.insert("retry-after", b);
            }
            sets.push(both);
            for h in &sets {
                let _ = should_retry_header(h);
                if let Some(wait) = server_delay(h, now) {
                    proptest::prop_assert!(wait.min(cap) <= cap);
                    let _ = std::time::Instant::now().checked_add(wait.min(cap));
                }
            }
        }
    }

    #[test]
    fn should_retry_header_values() {
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "true")])),
            Some(true)
        );
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "false")])),
            Some(false)
        );
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "maybe")])),
            None
        );
    }

    #[test]
    fn backoff_doubles_caps_and_jitters() {
        let (base, max) = (Duration::from_millis(100), Duration::from_millis(1000));
        for _ in 0..100 {
            let b0 = backoff(0, base, max);
            assert!(b0 <= base && b0 >= base.mul_f64(0.75), "{b0:?}");
            let b2 = backoff(2, base, max);
            assert!(b2 <= Duration::from_millis(400) && b2 >= Duration::from_millis(300));
            assert!(backoff(30, base, max) <= max);
        }
    }
}
