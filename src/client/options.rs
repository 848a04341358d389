//! Client options: what a caller may set, their defaults, env fallbacks and the
//! base-URL rules (trailing slash, trailing `/v1`, plain http only to loopback).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::error::Error;
use crate::net::origin::Origin;
use crate::net::Settings;

/// Options of a client, as given to `gw_client_new_with_options` in JSON.
///
/// Unknown keys are refused so that a typo (`"timout_ms"`) is an error, not a
/// silently ignored setting.
#[derive(Clone)]
pub struct Options {
    /// Gateway address; falls back to `GW_BASE_URL`.
    pub base_url: Option<String>,
    /// API key; falls back to `GW_API_KEY`. Never printed.
    pub api_key: Option<String>,
    /// TCP + TLS connect deadline.
    pub connect_timeout_ms: u64,
    /// Longest wait for the next bytes of an answer (a stalled stream ends here).
    pub read_timeout_ms: u64,
    /// Deadline for a whole call, retries and stream included; 0 = none.
    pub total_timeout_ms: u64,
    /// Retries after the first attempt, for 408/409/429/5xx and connection failures.
    pub max_retries: u32,
    /// First backoff step; doubles per retry up to `retry_max_delay_ms`.
    pub retry_base_delay_ms: u64,
    pub retry_max_delay_ms: u64,
    /// Longest server-requested wait (`Retry-After`, `retry-after-ms`) that is honoured.
    pub retry_after_cap_ms: u64,
    /// `http://`, `https://`, `socks5://` proxy URL.
    pub proxy: Option<String>,
    /// Extra headers sent on every request.
    pub headers: BTreeMap<String, String>,
    /// Check the documented limits before sending.
    pub validate: bool,
    /// Allow plain `http://` to a host that is not loopback.
    pub allow_insecure_http: bool,
    /// Largest answer body read into memory.
    pub max_response_bytes: u64,
    /// Longest single line of a server-sent-events stream.
    pub max_line_bytes: usize,
    /// Largest data of one server-sent event (its `data:` lines together).
    pub max_event_bytes: usize,
    /// Longest wait for the head of an answer once the request is sent (a
    /// reasoning model may think for minutes before its first byte).
    pub first_byte_timeout_ms: u64,
    /// Send an `Idempotency-Key` on every POST, the same on each retry of one call,
    /// so a gateway can tell a retry from a new (billable) request.
    pub idempotency_keys: bool,
    /// Extra `User-Agent` text, appended to `gw/<version>`.
    pub user_agent: Option<String>,
    /// Idle connections kept per host for reuse: size it for the threads that share a client.
    pub max_idle_connections: usize,
    /// A PEM file of CA certificates trusted besides the built-in roots.
    pub ca_file: Option<String>,
    /// PEM text of CA certificates trusted besides the built-in roots.
    pub ca_pem: Option<String>,
    /// `"webpki"` (the built-in roots, the default) or `"platform"` (the OS
    /// trust store; needs the cargo feature `platform-verifier`).
    pub tls_verifier: Option<String>,
}

// As `#[derive(Deserialize)]` with `#[serde(deny_unknown_fields, default)]` (see the macro).
options_deserialize!(
    Options,
    "struct Options",
    Options::default(),
    keep,
    [
        base_url,
        api_key,
        connect_timeout_ms,
        read_timeout_ms,
        total_timeout_ms,
        max_retries,
        retry_base_delay_ms,
        retry_max_delay_ms,
        retry_after_cap_ms,
        proxy,
        headers,
        validate,
        allow_insecure_http,
        max_response_bytes,
        max_line_bytes,
        max_event_bytes,
        first_byte_timeout_ms,
        idempotency_keys,
        user_agent,
        max_idle_connections,
        ca_file,
        ca_pem,
        tls_verifier,
    ]
);

impl Default for Options {
    fn default() -> Self {
        Options {
            base_url: None,
            api_key: None,
            connect_timeout_ms: 10_000,
            read_timeout_ms: 60_000,
            total_timeout_ms: 600_000,
            max_retries: 2,
            retry_base_delay_ms: 500,
            retry_max_delay_ms: 8_000,
            retry_after_cap_ms: 60_000,
            proxy: None,
            headers: BTreeMap::new(),
            validate: true,
            allow_insecure_http: false,
            max_response_bytes: 64 * 1024 * 1024,
            max_line_bytes: 4 * 1024 * 1024,
            max_event_bytes: crate::stream::sse::DEFAULT_MAX_EVENT,
            first_byte_timeout_ms: 600_000,
            idempotency_keys: true,
            user_agent: None,
            max_idle_connections: 16,
            ca_file: None,
            ca_pem: None,
            tls_verifier: None,
        }
    }
}

// Written by hand so that the key never reaches a Debug print.
impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("read_timeout_ms", &self.read_timeout_ms)
            .field("total_timeout_ms", &self.total_timeout_ms)
            .field("max_retries", &self.max_retries)
            .field("proxy", &self.proxy.as_ref().map(|_| "[set]"))
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("validate", &self.validate)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("ca_file", &self.ca_file)
            .field("ca_pem", &self.ca_pem.as_ref().map(|_| "[set]"))
            .field("tls_verifier", &self.tls_verifier)
            .finish_non_exhaustive()
    }
}

impl Options {
    /// Parses options JSON; an empty string or `{}` gives the defaults.
    pub fn from_json(json: &str) -> Result<Options, Error> {
        if json.trim().is_empty() {
            return Ok(Options::default());
        }
        crate::client::options::parse_named(json)
    }

    /// Fills base URL and key from `GW_BASE_URL` / `GW_API_KEY` where unset.
    pub fn with_env_fallbacks(mut self) -> Options {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if self.base_url.as_deref().is_none_or(|s| s.trim().is_empty()) {
            self.base_url = env("GW_BASE_URL");
        }
        if self.api_key.as_deref().is_none_or(str::is_empty) {
            self.api_key = env("GW_API_KEY");
        }
        self
    }

    pub(crate) fn connect_timeout(&self) -> Option<Duration> {
        non_zero_ms(self.connect_timeout_ms)
    }
    pub(crate) fn read_timeout(&self) -> Option<Duration> {
        non_zero_ms(self.read_timeout_ms)
    }
    pub(crate) fn first_byte_timeout(&self) -> Option<Duration> {
        non_zero_ms(self.first_byte_timeout_ms)
    }
    pub(crate) fn total_timeout(&self) -> Option<Duration> {
        non_zero_ms(self.total_timeout_ms)
    }
}

/// Parses options JSON so that an error names the option it is about
/// (`options: max_retries: invalid value: integer -1, expected u32`).
pub(crate) fn parse_named<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, Error> {
    // serde also fills a struct from an array, by field position: ["http://..", "sk-..", 1]
    // would set base_url, api_key and a 1 ms timeout. Options are named, always.
    if !json.trim_start().starts_with('{') {
        return Err(Error::invalid("options: must be a JSON object"));
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let value = serde_path_to_error::deserialize(ObjectOnly(&mut de)).map_err(named_error)?;
    // Trailing text after the object is as wrong as a bad value.
    de.end()
        .map_err(|e| Error::invalid(format!("options: {e}")))?;
    Ok(value)
}

/// `parse_named`'s error, named by its option: one copy for every type parsed.
#[cold]
#[inline(never)]
fn named_error(e: serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = e.path().to_string();
    let inner = e.into_inner();
    match path.as_str() {
        "" | "." => Error::invalid(format!("options: {inner}")),
        p => Error::invalid_param(p, format!("options: {p}: {inner}")),
    }
}

/// serde_json's deserializer reading options, which are a JSON object (`parse_named` checked
/// the `{`): a struct is read as a map, exactly as serde_json reads an object for a struct, so
/// the derived code that fills a struct from an array is never compiled into the library.
pub(crate) struct ObjectOnly<'a, 'de>(
    pub(crate) &'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
);

impl<'de> serde::Deserializer<'de> for ObjectOnly<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        serde::Deserializer::deserialize_any(self.0, v)
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Self::Error> {
        serde::Deserializer::deserialize_map(self.0, v)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

fn non_zero_ms(ms: u64) -> Option<Duration> {
    (ms > 0).then(|| Duration::from_millis(ms))
}

/// A checked, normalised gateway address: scheme://host[:port][/prefix], no
/// trailing slash and no trailing `/v1` (paths are added with their version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    pub(crate) root: String,
    pub(crate) origin: Origin,
}

impl BaseUrl {
    pub fn parse(raw: &str, allow_insecure_http: bool) -> Result<BaseUrl, Error> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(Error::invalid_param("base_url", "base_url is empty"));
        }
        if let Some(c) = trimmed
            .chars()
            .find(|c| c.is_whitespace() || c.is_control())
        {
            return Err(Error::invalid_param(
                "base_url",
                format!("base_url holds a space or control character ({c:?})"),
            ));
        }
        let mut root = trimmed.trim_end_matches('/').to_string();
        // OpenAI-SDK users paste `{base_url}/v1`; every path we send carries its version.
        if root.to_ascii_lowercase().ends_with("/v1") {
            root.truncate(root.len() - 3);
            root = root.trim_end_matches('/').to_string();
        }
        let origin = Origin::parse(&root)
            .map_err(|why| Error::invalid_param("base_url", format!("base_url {why}")))?;
        if root.contains('?') || root.contains('#') {
            return Err(Error::invalid_param(
                "base_url",
                "base_url must not contain a query or fragment",
            ));
        }
        check_host(&origin.host)?;
        // Whatever passed must make a URL every call can use: checked once, here.
        if ureq::http::Uri::try_from(format!("{root}/v1/x")).is_err() {
            return Err(Error::invalid_param(
                "base_url",
                "base_url is not a valid URL (its path holds characters that must be percent-encoded?)",
            ));
        }
        origin.check_secure(allow_insecure_http)?;
        Ok(BaseUrl { root, origin })
    }

    /// The full URL of an API path (which starts with `/`).
    pub fn join(&self, path: &str) -> String {
        let mut url = String::with_capacity(self.root.len() + path.len());
        url.push_str(&self.root);
        url.push_str(path);
        url
    }

    pub fn as_str(&self) -> &str {
        &self.root
    }
}

/// A host gw can connect to as written: an IP literal or an ASCII name
/// (international names in their `xn--` form; gw does no IDNA mapping).
fn check_host(host: &str) -> Result<(), Error> {
    let bad = |why: String| Err(Error::invalid_param("base_url", format!("base_url {why}")));
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return bad(format!("has an invalid IPv6 host '{host}'"));
        }
        return Ok(());
    }
    if !host.is_ascii() {
        return bad(format!(
            "has a non-ASCII host '{host}': write it in its punycode (xn--) form"
        ));
    }
    let name_ok = host.split('.').enumerate().all(|(i, label)| {
        // A trailing dot (fully qualified name) leaves one empty last label.
        (!label.is_empty() || (i > 0 && host.ends_with('.') && i == host.split('.').count() - 1))
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    });
    if !name_ok {
        return bad(format!("has an invalid host '{host}'"));
    }
    Ok(())
}

/// What the network layer reads of the options (`net::Settings`).
impl Settings for Options {
    fn proxy(&self) -> Option<&str> {
        self.proxy.as_deref()
    }
    fn allow_insecure_http(&self) -> bool {
        self.allow_insecure_http
    }
    fn headers(&self) -> &BTreeMap<String, String> {
        &self.headers
    }
    fn user_agent(&self) -> Option<&str> {
        self.user_agent.as_deref()
    }
    fn tls_verifier(&self) -> Option<&str> {
        self.tls_verifier.as_deref()
    }
    fn ca_file(&self) -> Option<&str> {
        self.ca_file.as_deref()
    }
    fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }
}

/// `Deserialize` for an options struct, reading what `#[derive(Deserialize)]` with
/// `#[serde(deny_unknown_fields)]` reads (the same keys, errors and error paths; a sequence
/// fills the fields by position), but each value is written into a struct that starts as
/// `start` as it is read, rather than held apart until the end: the derived code's partial
/// drops and final assembly, large for twenty-odd fields, are not compiled. `short` is what a
/// sequence that ends early gives: `keep` (the start's value stays, as with
/// `#[serde(default)]`) or `refuse` (an invalid-length error).
macro_rules! options_deserialize {
    ($ty:ident, $expecting:literal, $start:expr, $short:ident, [$($field:ident),+ $(,)?]) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                use serde::de::{Error as _, MapAccess, SeqAccess, Unexpected, Visitor};
                #[allow(non_camel_case_types)]
                #[derive(Clone, Copy)]
                enum Field {
                    $($field),+
                }
                const FIELDS: &[&str] = &[$(stringify!($field)),+];
                const ALL: &[Field] = &[$(Field::$field),+];

                struct Key(Field);
                struct KeyVisitor;
                impl<'de> Visitor<'de> for KeyVisitor {
                    type Value = Key;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("field identifier")
                    }
                    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Key, E> {
                        match usize::try_from(v).ok().and_then(|i| ALL.get(i)) {
                            Some(&field) => Ok(Key(field)),
                            None => Err(E::invalid_value(
                                Unexpected::Unsigned(v),
                                &format!("field index 0 <= i < {}", ALL.len()).as_str(),
                            )),
                        }
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key, E> {
                        match FIELDS.iter().position(|f| *f == v) {
                            Some(i) => Ok(Key(ALL[i])),
                            None => Err(E::unknown_field(v, FIELDS)),
                        }
                    }
                    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Key, E> {
                        match FIELDS.iter().position(|f| f.as_bytes() == v) {
                            Some(i) => Ok(Key(ALL[i])),
                            None => Err(E::unknown_field(&String::from_utf8_lossy(v), FIELDS)),
                        }
                    }
                }
                impl<'de> serde::Deserialize<'de> for Key {
                    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
                        d.deserialize_identifier(KeyVisitor)
                    }
                }

                struct StructVisitor;
                impl<'de> Visitor<'de> for StructVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$ty, A::Error> {
                        let mut out: $ty = $start;
                        let mut at = 0usize;
                        $(
                            match seq.next_element()? {
                                Some(v) => out.$field = v,
                                None => $crate::client::options::options_deserialize!(@$short at, $expecting),
                            }
                            at += 1;
                        )+
                        let _ = at;
                        Ok(out)
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$ty, A::Error> {
                        let mut out: $ty = $start;
                        let mut seen = [false; FIELDS.len()];
                        while let Some(Key(field)) = map.next_key()? {
                            if std::mem::replace(&mut seen[field as usize], true) {
                                return Err(A::Error::duplicate_field(FIELDS[field as usize]));
                            }
                            match field {
                                $(Field::$field => out.$field = map.next_value()?,)+
                            }
                        }
                        Ok(out)
                    }
                }
                d.deserialize_struct(stringify!($ty), FIELDS, StructVisitor)
            }
        }
    };
    (@keep $at:ident, $expecting:literal) => {{}};
    (@refuse $at:ident, $expecting:literal) => {
        return Err(serde::de::Error::invalid_length(
            $at,
            &format!("{} with {} elements", $expecting, FIELDS.len()).as_str(),
        ))
    };
}
pub(crate) use options_deserialize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_forms_normalise_to_one_root() {
        for raw in [
            "https://api.example.com",
            "https://api.example.com/",
            "https://api.example.com/v1",
            "https://api.example.com/v1/",
            " https://api.example.com/V1// ",
        ] {
            let b = BaseUrl::parse(raw, false).unwrap();
            assert_eq!(b.as_str(), "https://api.example.com", "{raw}");
            assert_eq!(
                b.join("/v1/chat/completions"),
                "https://api.example.com/v1/chat/completions"
            );
        }
        let www = BaseUrl::parse("https://www.api.example.com/v1", false).unwrap();
        assert_eq!(www.join("/v1/x"), "https://www.api.example.com/v1/x");
    }

    #[test]
    fn prefix_path_is_kept() {
        let b = BaseUrl::parse("https://h.example/gateway/v1", false).unwrap();
        assert_eq!(
            b.join("/v1/embeddings"),
            "https://h.example/gateway/v1/embeddings"
        );
    }

    #[test]
    fn plain_http_only_to_loopback() {
        assert!(BaseUrl::parse("http://127.0.0.1:8080", false).is_ok());
        assert!(BaseUrl::parse("http://localhost:1", false).is_ok());
        assert!(BaseUrl::parse("http://[::1]:1", false).is_ok());
        let e = BaseUrl::parse("http://api.example.com", false).unwrap_err();
        assert!(e.to_string().contains("allow_insecure_http"));
        assert!(BaseUrl::parse("http://api.example.com", true).is_ok());
    }

    #[test]
    fn bad_urls_are_named() {
        assert!(BaseUrl::parse("ftp://x", false)
            .unwrap_err()
            .to_string()
            .contains("scheme"));
        assert!(BaseUrl::parse("api.example.com", false).is_err());
        assert!(BaseUrl::parse("https://:80", false).is_err());
        assert!(BaseUrl::parse("https://h:99999", false)
            .unwrap_err()
            .to_string()
            .contains("port"));
        assert!(BaseUrl::parse("https://u:p@h", false).is_err());
    }

    #[test]
    fn unusable_base_urls_are_refused_at_once() {
        for (raw, says) in [
            ("https://gw example.com", "space"),
            ("https://gw.example.com/my prefix", "space"),
            ("https://bücher.example", "punycode"),
            ("https://", "must start with"),
            ("https:///prefix", "no host"),
            ("https://?x=1", "no host"),
            ("https://a..b", "invalid host"),
            ("https://a%20b", "invalid host"),
            ("https://[zz]:1", "IPv6"),
            ("https://h.example/\u{7f}", "control"),
        ] {
            let e = BaseUrl::parse(raw, false).unwrap_err();
            assert!(e.to_string().contains(says), "{raw}: {e}");
        }
        for ok in [
            "https://xn--bcher-kva.example",
            "https://gw.example.com.",
            "https://[::1]:8443",
            "https://a_b.internal",
        ] {
            assert!(BaseUrl::parse(ok, false).is_ok(), "{ok}");
        }
    }

    #[test]
    fn a_bad_value_names_its_option() {
        let e = Options::from_json(r#"{"max_retries": -1}"#).unwrap_err();
        assert!(e.to_string().contains("max_retries"), "{e}");
        let e = Options::from_json(r#"{"headers": {"x": 1}}"#).unwrap_err();
        assert!(e.to_string().contains("headers.x"), "{e}");
        assert!(Options::from_json(r#"{} x"#).is_err());
    }

    #[test]
    fn unknown_option_is_refused() {
        let e = Options::from_json(r#"{"timout_ms": 5}"#).unwrap_err();
        assert!(e.to_string().contains("timout_ms"), "{e}");
    }

    #[test]
    fn texts_are_serde_derives() {
        // What `#[derive(Deserialize)]` said before options_deserialize! (the same texts).
        let e = Options::from_json(r#"{"max_retries": 1, "max_retries": 2}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "options: duplicate field `max_retries` at line 1 column 32"
        );
        let e = crate::CallOptions::from_json(r#"{"timout_ms": 5}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "options: timout_ms: unknown field `timout_ms`, expected one of `total_timeout_ms`, \
             `read_timeout_ms`, `connect_timeout_ms`, `first_byte_timeout_ms`, `max_retries`, \
             `headers`, `idempotency_key`, `validate`, `api_key`, `base_url` at line 1 column 12"
        );
        // serde's own entry points still fill a struct from an array, by position.
        let o: Options = serde_json::from_str(r#"["http://a", "k", 5]"#).unwrap();
        assert_eq!(o.connect_timeout_ms, 5);
        assert_eq!(o.read_timeout_ms, 60_000);
        let e = serde_json::from_str::<crate::CallOptions>("[1]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid length 1, expected struct CallOptions with 10 elements at line 1 column 3"
        );
    }

    #[test]
    fn debug_hides_key() {
        let o = Options {
            api_key: Some("sk-very-secret".into()),
            ..Options::default()
        };
        assert!(!format!("{o:?}").contains("sk-very-secret"));
    }
}
