//! Where a connection really goes: straight to the host, or through a proxy
//! (the `proxy` option, else `ALL_PROXY` / `HTTPS_PROXY` / `HTTP_PROXY` from
//! the environment, minus `NO_PROXY`).
//!
//! Two promises rest on this:
//! - plain `http://` without `allow_insecure_http` is allowed only when the
//!   bytes really stay on this machine: a loopback host reached directly or
//!   through a proxy that is itself on loopback. `http://127.0.0.1` through a
//!   remote proxy would put the key on the wire in clear (and reach the
//!   proxy's own loopback, not ours).
//! - a proxy gw cannot speak (SOCKS) is refused when the client is created,
//!   never bypassed: on a proxy-only network going direct is a privacy leak.
//!   So is a proxy variable that does not parse (ureq skips it and goes direct):
//!   gw reads the variables itself and refuses it, naming it.

use ureq::http::Uri;
use ureq::{Proxy, ProxyProtocol};

use crate::error::Error;
use crate::net::origin::Origin;
use crate::net::Settings;

/// The environment variables a proxy is read from, in ureq's order (the first set wins).
const PROXY_ENV: &[&str] = &[
    "ALL_PROXY",
    "all_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
];

/// The proxy a client uses and what plain http is allowed.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    allow_insecure_http: bool,
    proxy: Option<Proxy>,
}

impl Route {
    /// No proxy at all.
    #[cfg(test)]
    pub(crate) fn direct(allow_insecure_http: bool) -> Route {
        Route {
            allow_insecure_http,
            proxy: None,
        }
    }

    /// The option's proxy, else the environment's (read once, here, so the
    /// checks and the agent see the same one).
    pub(crate) fn new(options: &impl Settings) -> Result<Route, Error> {
        let proxy = match options.proxy() {
            Some(url) => {
                let parsed = Proxy::new(url).map_err(|_| {
                    Error::invalid_param(
                        "proxy",
                        "proxy: not a valid proxy URL (http://, https://)",
                    )
                })?;
                if !speakable(&parsed) {
                    // Refused here rather than failing every call (no SOCKS support is built in).
                    return Err(Error::invalid_param(
                        "proxy",
                        "proxy: SOCKS proxies are not supported; use an http:// or https:// proxy",
                    ));
                }
                Some(parsed)
            }
            None => proxy_from_env()?,
        };
        Ok(Route {
            allow_insecure_http: options.allow_insecure_http(),
            proxy,
        })
    }

    /// The proxy for the agent (None: direct).
    pub(crate) fn proxy(&self) -> Option<Proxy> {
        self.proxy.clone()
    }

    /// The proxy a connection to `origin` goes through, if any (NO_PROXY applied).
    fn proxy_for(&self, origin: &Origin) -> Option<&Proxy> {
        let proxy = self.proxy.as_ref()?;
        let uri: Uri = format!("{}://{}:{}/", origin.scheme, origin.host, origin.port)
            .parse()
            .ok()?;
        (!proxy.is_no_proxy(&uri)).then_some(proxy)
    }

    /// The base URL's route must be usable: a SOCKS proxy from the environment
    /// is refused now, since every call would fail (and must never go direct).
    pub(crate) fn check_usable(&self, base: &Origin) -> Result<(), Error> {
        match self.proxy_for(base) {
            Some(proxy) if !speakable(proxy) => {
                let var = PROXY_ENV
                    .iter()
                    .find(|v| std::env::var(v).is_ok_and(|s| Proxy::new(&s).is_ok()))
                    .unwrap_or(&"the environment");
                Err(Error::invalid_param(
                    "proxy",
                    format!(
                        "proxy: {var} names a SOCKS proxy, which gw does not support; gw never \
                         goes around a proxy, so set the proxy option to an http:// or https:// \
                         proxy, or exclude the gateway's host with NO_PROXY"
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Plain http leaks the key to anyone on the path: allowed only when the
    /// connection stays on loopback, or with `allow_insecure_http`.
    pub(crate) fn check_plain_http(&self, origin: &Origin) -> Result<(), Error> {
        if origin.scheme != "http" || self.allow_insecure_http {
            return Ok(());
        }
        if !origin.is_loopback() {
            return Err(Error::invalid_param(
                "base_url",
                format!(
                    "refusing plain http:// to non-loopback host '{}': use https:// or set \
                     allow_insecure_http",
                    origin.host
                ),
            ));
        }
        match self.proxy_for(origin) {
            Some(proxy) if !is_loopback_host(proxy.host()) => Err(Error::invalid_param(
                "base_url",
                format!(
                    "refusing plain http:// to '{}' through the proxy at '{}': the connection \
                     does not stay on loopback; use https://, exclude the host with NO_PROXY, \
                     or set allow_insecure_http",
                    origin.host,
                    proxy.host()
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The environment's proxy: every variable of `PROXY_ENV` that is set and not empty
/// must parse (a value with a trailing newline, as `$(cat file)` leaves it, is refused
/// as the `proxy` option refuses it), and the first one is used, with `NO_PROXY`'s
/// entries trimmed (`a, b`). None when no variable is set.
fn proxy_from_env() -> Result<Option<Proxy>, Error> {
    let refused = |var: &str, why: &str| {
        Error::invalid_param(
            "proxy",
            format!(
                "proxy: {var} {why}; gw never goes around a proxy the environment names, so \
                 fix or unset it (or set the proxy option)"
            ),
        )
    };
    let mut chosen = None;
    for var in PROXY_ENV {
        let Some(raw) = std::env::var_os(var) else {
            continue;
        };
        let text = raw
            .to_str()
            .ok_or_else(|| refused(var, "is not valid UTF-8"))?;
        if text.is_empty() {
            continue;
        }
        // The value is never quoted: it may hold a password.
        let proxy = Proxy::new(text).map_err(|_| {
            refused(
                var,
                "is not a valid proxy URL (http://host:port or https://host:port, with no \
                 spaces, line breaks or other characters around it)",
            )
        })?;
        chosen.get_or_insert(proxy);
    }
    let Some(proxy) = chosen else {
        return Ok(None);
    };
    let mut no_proxy = None;
    for var in ["NO_PROXY", "no_proxy"] {
        if let Some(raw) = std::env::var_os(var) {
            no_proxy = Some(
                raw.to_str()
                    .ok_or_else(|| refused(var, "is not valid UTF-8"))?
                    .to_string(),
            );
            break;
        }
    }
    let Some(no_proxy) = no_proxy else {
        return Ok(Some(proxy));
    };
    // ureq compares NO_PROXY's entries untrimmed ("a, b" would never match b); the
    // proxy is built again with the trimmed ones.
    let mut builder = Proxy::builder(proxy.protocol())
        .host(proxy.host())
        .port(proxy.port())
        .resolve_target(proxy.resolve_target());
    if let Some(user) = proxy.username() {
        builder = builder.username(user);
    }
    if let Some(password) = proxy.password() {
        builder = builder.password(password);
    }
    for entry in no_proxy.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        builder = builder.no_proxy(entry);
    }
    builder
        .build()
        .map(Some)
        .map_err(|_| refused("the proxy variable", "could not be used with NO_PROXY"))
}

/// The proxies ureq speaks as built here: HTTP CONNECT over http or https.
fn speakable(proxy: &Proxy) -> bool {
    matches!(proxy.protocol(), ProxyProtocol::Http | ProxyProtocol::Https)
}

fn is_loopback_host(host: &str) -> bool {
    Origin {
        scheme: "http".into(),
        host: host.to_ascii_lowercase(),
        port: 0,
    }
    .is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn via(proxy: &str) -> Route {
        Route {
            allow_insecure_http: false,
            proxy: Some(Proxy::new(proxy).unwrap()),
        }
    }

    fn origin(url: &str) -> Origin {
        Origin::parse(url).unwrap()
    }

    #[test]
    fn loopback_http_through_a_remote_proxy_is_refused() {
        let e = via("http://proxy.example:3128")
            .check_plain_http(&origin("http://127.0.0.1:8080"))
            .unwrap_err();
        assert!(e.to_string().contains("proxy.example"), "{e}");
        assert!(via("http://127.0.0.1:3128")
            .check_plain_http(&origin("http://127.0.0.1:8080"))
            .is_ok());
        assert!(Route::direct(false)
            .check_plain_http(&origin("http://localhost:1"))
            .is_ok());
        assert!(via("http://proxy.example:3128")
            .check_plain_http(&origin("https://127.0.0.1:8443"))
            .is_ok());
        let insecure = Route {
            allow_insecure_http: true,
            ..via("http://proxy.example:3128")
        };
        assert!(insecure
            .check_plain_http(&origin("http://127.0.0.1:8080"))
            .is_ok());
    }

    #[test]
    fn socks_is_named_as_unusable() {
        let e = via("socks5://127.0.0.1:1080")
            .check_usable(&origin("https://gw.example"))
            .unwrap_err();
        assert!(e.to_string().contains("SOCKS"), "{e}");
        assert!(via("http://127.0.0.1:1080")
            .check_usable(&origin("https://gw.example"))
            .is_ok());
    }
}
