//! The request of one hop: the URL (with `?key=` where the operation takes the
//! key there), the head gw sends, and the body as the pieces it already holds.

use ureq::http::{self, HeaderMap, HeaderName, HeaderValue};

use crate::api::ops::{self, Auth, Method};
use crate::client::Client;
use crate::error::Error;

/// What one hop sends. The body is the exchange's (`Exchange::body`): the same
/// pieces on every attempt and hop.
pub struct Request {
    pub method: Method,
    /// The URL to send to: it holds the key on a `?key=` operation, so it is
    /// never logged or shown (`Exchange::url_shown` is the shown one).
    pub url: String,
    /// Accept, auth, the caller's headers, the idempotency key and the content
    /// type. No Content-Length (the driver frames the body it sends), no
    /// User-Agent (`Exchange::user_agent`) and no Accept-Encoding (the driver
    /// asks for what it can decode).
    pub head: HeaderMap,
}

/// The parts a hop's request is made of.
pub(super) struct Hop<'a> {
    pub method: Method,
    pub url: &'a str,
    /// None once a redirect left the base URL's origin: no credentials.
    pub auth: Option<Auth>,
    pub content_type: Option<&'a str>,
    pub accept: &'a str,
    pub idempotency_key: Option<&'a HeaderValue>,
}

pub(super) fn build(client: &Client, hop: &Hop<'_>) -> Result<Request, Error> {
    let url = match hop.auth {
        Some(Auth::QueryKey) => {
            let sep = if hop.url.contains('?') { '&' } else { '?' };
            format!(
                "{}{sep}key={}",
                hop.url,
                ops::percent_encode_query(&client.api_key)
            )
        }
        _ => hop.url.to_string(),
    };
    let invalid = |e: http::Error| Error::invalid(format!("request: {e}"));
    let value = |text: &str| HeaderValue::from_str(text).map_err(|e| invalid(e.into()));
    let mut head = HeaderMap::with_capacity(6 + client.extra_headers.len());
    head.append(http::header::ACCEPT, known_value(hop.accept, value)?);
    if let Some(Auth::Bearer) = hop.auth {
        let bearer = match &client.bearer {
            Some(bearer) => bearer.clone(),
            None => value(&format!("Bearer {}", client.api_key))?,
        };
        head.append(http::header::AUTHORIZATION, bearer);
    }
    // No auth means a hop off the base origin: none of the caller's headers go there.
    if hop.auth.is_some() {
        for (name, value) in &client.extra_headers {
            head.append(name.clone(), value.clone());
        }
        if let (Method::Post, Some(key)) = (hop.method, hop.idempotency_key) {
            head.append(HeaderName::from_static("idempotency-key"), key.clone());
        }
    }
    if let Some(content_type) = hop.content_type {
        head.append(
            http::header::CONTENT_TYPE,
            known_value(content_type, value)?,
        );
    }
    Ok(Request {
        method: hop.method,
        url,
        head,
    })
}

/// The header value of `text`: gw's own media types without a copy, any other
/// through `value`.
fn known_value(
    text: &str,
    value: impl Fn(&str) -> Result<HeaderValue, Error>,
) -> Result<HeaderValue, Error> {
    match text {
        "application/json" => Ok(HeaderValue::from_static("application/json")),
        "text/event-stream" => Ok(HeaderValue::from_static("text/event-stream")),
        other => value(other),
    }
}

/// An absolute URL for a `Location` header, relative to the URL that answered.
pub(super) fn resolve_location(current: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme_end = current.find("://").map_or(0, |i| i + 3);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{}{rest}", &current[..scheme_end]);
    }
    let authority_end = current[scheme_end..]
        .find('/')
        .map_or(current.len(), |i| scheme_end + i);
    if location.starts_with('/') {
        return format!("{}{location}", &current[..authority_end]);
    }
    let path = current[..current.find('?').unwrap_or(current.len())].to_string();
    let dir_end = path
        .rfind('/')
        .filter(|&i| i >= authority_end)
        .map_or(path.len(), |i| i + 1);
    format!("{}{location}", &path[..dir_end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_resolve_against_the_answering_url() {
        let cur = "http://127.0.0.1:9/v1/chat/completions?x=1";
        assert_eq!(
            resolve_location(cur, "https://o.example/p"),
            "https://o.example/p"
        );
        assert_eq!(resolve_location(cur, "//o.example/p"), "http://o.example/p");
        assert_eq!(resolve_location(cur, "/v2/x"), "http://127.0.0.1:9/v2/x");
        assert_eq!(
            resolve_location(cur, "other"),
            "http://127.0.0.1:9/v1/chat/other"
        );
    }
}
