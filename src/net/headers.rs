//! The caller's custom headers and User-Agent text, checked once when a client
//! (or a derived handle) is made, so a bad one is an error naming it there
//! instead of a failure inside every call.

use ureq::http::{HeaderName, HeaderValue};

use crate::error::Error;
use crate::net::Settings;

/// Headers gw sets itself or that frame the message: a custom value would
/// break the body (Content-Length, Transfer-Encoding), be sent twice
/// (Content-Type, Accept), or redirect the request (Host).
const OWNED_BY_GW: &[&str] = &[
    "authorization",
    "host",
    "content-length",
    "content-type",
    "accept",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "expect",
    "proxy-connection",
    "user-agent",
];

/// The `headers` option as header pairs, refusing names gw owns and values
/// that cannot go in a header (CR, LF, NUL, ...).
pub(crate) fn parse_extra(
    options: &impl Settings,
) -> Result<Vec<(HeaderName, HeaderValue)>, Error> {
    options
        .headers()
        .iter()
        .map(|(name, value)| {
            let bad =
                |why: &str| Error::invalid_param("headers", format!("headers: '{name}' {why}"));
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| bad("is not a valid header name"))?;
            if OWNED_BY_GW.contains(&header.as_str()) {
                let hint = match header.as_str() {
                    "user-agent" => "; use the user_agent option",
                    "authorization" => "; use the api_key option",
                    _ => "",
                };
                return Err(bad(&format!("is set by gw and cannot be overridden{hint}")));
            }
            let value = HeaderValue::from_str(value).map_err(|_| {
                bad("has a value not allowed in a header (CR, LF or a control character)")
            })?;
            Ok((header, value))
        })
        .collect()
}

/// The User-Agent gw sends: `gw/<version>` plus the caller's text, which must
/// be a valid header value.
pub(crate) fn user_agent(options: &impl Settings) -> Result<String, Error> {
    let text = match options.user_agent() {
        Some(extra) => format!("gw/{} {extra}", env!("CARGO_PKG_VERSION")),
        None => format!("gw/{}", env!("CARGO_PKG_VERSION")),
    };
    HeaderValue::from_str(&text).map_err(|_| {
        Error::invalid_param(
            "user_agent",
            "user_agent: holds a character not allowed in a header (CR, LF or a control character)",
        )
    })?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::options::Options;

    fn with(name: &str, value: &str) -> Options {
        let mut o = Options::default();
        o.headers.insert(name.into(), value.into());
        o
    }

    #[test]
    fn names_gw_owns_are_refused_in_any_case() {
        for name in [
            "Authorization",
            "Host",
            "Content-Length",
            "content-type",
            "ACCEPT",
            "Transfer-Encoding",
            "Connection",
            "User-Agent",
        ] {
            let e = parse_extra(&with(name, "x")).unwrap_err();
            assert!(e.to_string().contains(name), "{e}");
            assert!(e.to_string().contains("set by gw"), "{e}");
        }
        assert!(parse_extra(&with("X-Api-Key", "k")).is_ok());
        assert!(parse_extra(&with("bad header", "x")).is_err());
    }

    #[test]
    fn values_with_line_breaks_are_refused() {
        for v in ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b"] {
            let e = parse_extra(&with("X-Tag", v)).unwrap_err();
            assert!(e.to_string().contains("X-Tag"), "{e}");
        }
        let o = Options {
            user_agent: Some("app/1\r\nX-Evil: 1".into()),
            ..Options::default()
        };
        assert!(user_agent(&o)
            .unwrap_err()
            .to_string()
            .contains("user_agent"));
        let o = Options {
            user_agent: Some("app/1.2".into()),
            ..Options::default()
        };
        assert!(user_agent(&o).unwrap().ends_with(" app/1.2"));
    }
}
