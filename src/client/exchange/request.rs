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

/// Whether `each_borrowed` gives the head `build` makes, in its map's order:
/// where `build` only copies values the client or the hop hold. Not on a
/// `?key=` URL, for a bearer the client could not make a header value of, for
/// a media type not gw's own, or when the caller's headers repeat a name (the
/// map puts a repeated name's values together).
pub(super) fn borrowable(client: &Client, hop: &Hop<'_>) -> bool {
    let own = |text: &str| matches!(text, "application/json" | "text/event-stream");
    let extras = &client.extra_headers;
    let repeated = || {
        let key_sent = hop.method == Method::Post && hop.idempotency_key.is_some();
        extras.iter().enumerate().any(|(i, (name, _))| {
            (key_sent && name.as_str() == "idempotency-key")
                || extras[i + 1..].iter().any(|(other, _)| other == name)
        })
    };
    match hop.auth {
        Some(Auth::QueryKey) => false,
        Some(Auth::Bearer) if client.bearer.is_none() => false,
        _ => own(hop.accept) && hop.content_type.is_none_or(own) && !repeated(),
    }
}

/// The head `build` makes, as borrowed (name, value) texts in its order, where
/// `borrowable` says so.
pub(super) fn each_borrowed(client: &Client, hop: &Hop<'_>, mut f: impl FnMut(&str, &[u8])) {
    f("accept", hop.accept.as_bytes());
    if let (Some(Auth::Bearer), Some(bearer)) = (hop.auth, &client.bearer) {
        f("authorization", bearer.as_bytes());
    }
    if hop.auth.is_some() {
        for (name, value) in &client.extra_headers {
            f(name.as_str(), value.as_bytes());
        }
        if let (Method::Post, Some(key)) = (hop.method, hop.idempotency_key) {
            f("idempotency-key", key.as_bytes());
        }
    }
    if let Some(content_type) = hop.content_type {
        f("content-type", content_type.as_bytes());
    }
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
    use crate::client::options::Options;

    /// `each_borrowed` gives what `build`'s map gives, name for name, in order,
    /// wherever `borrowable` says so; and `borrowable` says so for a plain call.
    #[test]
    fn borrowed_heads_are_the_built_ones() {
        let extras = [
            r#"{}"#,
            r#"{"X-One":"1"}"#,
            r#"{"X-One":"1","x-one":"2","X-Two":"3"}"#,
            r#"{"Idempotency-Key":"mine","X-B":"b","X-A":"a"}"#,
        ];
        let key = HeaderValue::from_static("gw-key");
        let mut borrowed_seen = 0;
        for extra in extras {
            let options = Options::from_json(&format!(
                r#"{{"base_url":"http://127.0.0.1:9","api_key":"sk-test","headers":{extra}}}"#
            ))
            .unwrap();
            let client = Client::new(options).unwrap();
            for method in [Method::Get, Method::Post] {
                for auth in [None, Some(Auth::Bearer), Some(Auth::QueryKey)] {
                    for content_type in [None, Some("application/json")] {
                        for accept in ["application/json", "text/event-stream"] {
                            let hop = Hop {
                                method,
                                url: "http://127.0.0.1:9/v1/chat/completions",
                                auth,
                                content_type,
                                accept,
                                idempotency_key: Some(&key),
                            };
                            if !borrowable(&client, &hop) {
                                continue;
                            }
                            borrowed_seen += 1;
                            let built: Vec<(String, Vec<u8>)> = build(&client, &hop)
                                .unwrap()
                                .head
                                .iter()
                                .map(|(n, v)| (n.as_str().to_string(), v.as_bytes().to_vec()))
                                .collect();
                            let mut borrowed = Vec::new();
                            each_borrowed(&client, &hop, |n, v| {
                                borrowed.push((n.to_string(), v.to_vec()))
                            });
                            assert_eq!(borrowed, built, "{extra} {auth:?} {method:?}");
                        }
                    }
                }
            }
        }
        assert!(borrowed_seen > 20, "{borrowed_seen}");
    }

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
