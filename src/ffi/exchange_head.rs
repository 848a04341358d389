//! The answer's head as `gw_exchange_feed_head` is given it: the C strings of
//! its headers made into http's map, each read once.

use std::ffi::CStr;

use ureq::http::{HeaderMap, HeaderName, HeaderValue};

use crate::error::Error;

use super::args;
use super::exchange::gw_header;

/// The head's headers as a map, or None when one is refused (`refused_head` says
/// why). Each text is read once: http's checks of a name (a token: ASCII) and of a
/// value (no control character) are the only ones, but for the UTF-8 a value
/// past ASCII must be.
///
/// # Safety
/// Each header's pointers are NULL or NUL-terminated strings.
pub(super) unsafe fn head_map(headers: &[gw_header]) -> Option<HeaderMap> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for header in headers {
        if header.name.is_null() || header.value.is_null() {
            return None;
        }
        let name = CStr::from_ptr(header.name).to_bytes();
        let name = match KNOWN_NAMES
            .iter()
            .find(|k| name.eq_ignore_ascii_case(k.as_ref()))
        {
            Some(known) => known.clone(),
            None => HeaderName::from_bytes(name).ok()?,
        };
        let value = CStr::from_ptr(header.value).to_bytes();
        let value = match KNOWN_VALUES.iter().find(|k| k.as_bytes() == value) {
            Some(known) => known.clone(),
            None if !value.is_ascii() && std::str::from_utf8(value).is_err() => return None,
            None => HeaderValue::from_bytes(value).ok()?,
        };
        map.append(name, value);
    }
    Some(map)
}

/// Header names not in http's table that most answers carry: made once, since
/// http copies any other such name to the heap (and frees it with the metadata).
static KNOWN_NAMES: [HeaderName; 3] = [
    HeaderName::from_static("x-request-id"),
    HeaderName::from_static("request-id"),
    HeaderName::from_static("openai-request-id"),
];

/// Values most answers carry, made once for the same reason (a value is matched
/// exactly: its case is the gateway's).
static KNOWN_VALUES: [HeaderValue; 5] = [
    HeaderValue::from_static("application/json"),
    HeaderValue::from_static("application/json; charset=utf-8"),
    HeaderValue::from_static("text/event-stream"),
    HeaderValue::from_static("keep-alive"),
    HeaderValue::from_static("chunked"),
];

/// Why `head_map` refused the head, as the checks one header after another say it.
///
/// # Safety
/// As `head_map`.
#[cold]
pub(super) unsafe fn refused_head(headers: &[gw_header]) -> Result<HeaderMap, Error> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for header in headers {
        let name = args::text(header.name, "headers: name")?;
        let value = args::text(header.value, "headers: value")?;
        let bad = || Error::invalid_param("headers", format!("headers: '{name}' is not valid"));
        map.append(
            HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?,
            HeaderValue::from_str(value).map_err(|_| bad())?,
        );
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use std::ffi::{c_char, CString};

    use super::*;

    /// `head_map`'s answer beside the old way's (`refused_head`'s checks, then
    /// http's copies): the same map, or None where the old way says why.
    fn both(pairs: &[(&[u8], &[u8])]) -> (Option<HeaderMap>, Result<HeaderMap, Error>) {
        let texts: Vec<(CString, CString)> = pairs
            .iter()
            .map(|(n, v)| (CString::new(*n).unwrap(), CString::new(*v).unwrap()))
            .collect();
        let headers: Vec<gw_header> = texts
            .iter()
            .map(|(n, v)| gw_header {
                name: n.as_ptr(),
                value: v.as_ptr(),
            })
            .collect();
        // SAFETY: every pointer is a live NUL-terminated string.
        unsafe { (head_map(&headers), refused_head(&headers)) }
    }

    #[test]
    fn the_map_is_the_one_the_checked_way_makes() {
        let (fast, checked) = both(&[
            (b"Content-Type", b"application/json"),
            (b"X-Request-Id", b"req_1"),
            (b"x-request-id", b"req_2"),
            (b"OpenAI-Request-ID", b"Application/JSON"),
            (b"x-note", "caf\u{e9}\tok".as_bytes()),
            (b"content-length", b""),
        ]);
        let (fast, checked) = (fast.unwrap(), checked.unwrap());
        assert_eq!(fast, checked);
        let ids: Vec<_> = fast.get_all("x-request-id").iter().collect();
        assert_eq!(ids, ["req_1", "req_2"]);
    }

    #[test]
    fn a_refused_header_gets_the_checked_way_s_error() {
        let refused: [(&[u8], &[u8], &str); 4] = [
            (
                b"content type",
                b"x",
                "headers: 'content type' is not valid",
            ),
            (b"x-a", b"a\rb", "headers: 'x-a' is not valid"),
            (
                b"x-a",
                b"caf\xe9",
                "headers: value: is not valid UTF-8 (byte 3)",
            ),
            (
                b"x-\xff",
                b"v",
                "headers: name: is not valid UTF-8 (byte 2)",
            ),
        ];
        for (name, value, said) in refused {
            let (fast, checked) = both(&[(b"date", b"d"), (name, value)]);
            assert!(fast.is_none(), "{said}");
            assert!(checked.unwrap_err().to_string().contains(said), "{said}");
        }
        let null = [gw_header {
            name: std::ptr::null::<c_char>(),
            value: c"v".as_ptr(),
        }];
        // SAFETY: NULL or a live NUL-terminated string.
        let (fast, checked) = unsafe { (head_map(&null), refused_head(&null)) };
        assert!(fast.is_none());
        assert!(checked
            .unwrap_err()
            .to_string()
            .contains("must not be NULL"));
    }
}
