//! An origin (scheme, host, port), read off an absolute URL: what "same
//! origin" means for redirects and where a connection goes.

use crate::error::Error;

/// scheme, host, port: what "same origin" means for redirects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    pub scheme: String,
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// Reads scheme, host and port off an absolute URL.
    pub(crate) fn parse(url: &str) -> Result<Origin, String> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| "must start with http:// or https://".to_string())?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => 443,
            "http" => 80,
            other => return Err(format!("has unsupported scheme '{other}'")),
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return Err("must not carry credentials (use api_key)".into());
        }
        let (host, port) = split_host_port(authority)?;
        if host.is_empty() {
            return Err("has no host".into());
        }
        Ok(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            port: port.unwrap_or(default_port),
        })
    }

    pub(crate) fn is_loopback(&self) -> bool {
        let h = self.host.trim_start_matches('[').trim_end_matches(']');
        h == "localhost"
            || h.ends_with(".localhost")
            || h == "::1"
            || h.parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// Plain http leaks the key to anyone on the path, so only loopback gets it by default.
    pub(crate) fn check_secure(&self, allow_insecure_http: bool) -> Result<(), Error> {
        if self.scheme == "http" && !allow_insecure_http && !self.is_loopback() {
            return Err(Error::invalid_param(
                "base_url",
                format!(
                    "refusing plain http:// to non-loopback host '{}': use https:// or set allow_insecure_http",
                    self.host
                ),
            ));
        }
        Ok(())
    }
}

fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), String> {
    let (host, port) = if let Some(end) = authority
        .strip_prefix('[')
        .and_then(|_| authority.find(']'))
    {
        let host = &authority[..=end];
        match &authority[end + 1..] {
            "" => (host, None),
            p => (
                host,
                Some(p.strip_prefix(':').ok_or("has a malformed IPv6 host")?),
            ),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .map_err(|_| format!("has an invalid port '{p}'"))?,
        ),
    };
    Ok((host, port))
}
