//! The resolver: IP literals and localhost names without a lookup, other names
//! cached for a while, a lookup that must run waited for in slices a cancel ends.

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;
use ureq::{Error, Timeout};

use super::{cancelled_io, next_slice};
use crate::net::cancel::current_cancelled;

/// How long a resolved name is reused. The system resolver gives no TTL; a short
/// fixed one keeps repeated calls off the resolver without pinning stale addresses.
const NAME_TTL: Duration = Duration::from_secs(30);

/// Resolves without a thread for IP literals and cached names.
#[derive(Default)]
pub(crate) struct GwResolver {
    cache: Mutex<HashMap<String, (Instant, Vec<SocketAddr>)>>,
}

impl fmt::Debug for GwResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GwResolver").finish()
    }
}

impl Resolver for GwResolver {
    fn resolve(
        &self,
        uri: &Uri,
        _config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, Error> {
        let scheme_port = match uri.scheme_str() {
            Some("https") => 443,
            Some("http") => 80,
            other => {
                return Err(Error::BadUri(format!(
                    "unknown scheme: {}",
                    other.unwrap_or("none")
                )))
            }
        };
        let host = uri.host().ok_or_else(|| Error::BadUri("no host".into()))?;
        let port = uri.port_u16().unwrap_or(scheme_port);
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let mut result = self.empty();
        if let Ok(ip) = bare.parse::<IpAddr>() {
            result.push(SocketAddr::new(ip, port));
            return Ok(result);
        }
        if is_localhost_name(bare) {
            // RFC 6761: localhost names are loopback, never what a hosts file or DNS
            // says. Plain http to them is allowed as loopback, so it must stay loopback.
            result.push(SocketAddr::new(IpAddr::from([127, 0, 0, 1]), port));
            result.push(SocketAddr::new(
                IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]),
                port,
            ));
            return Ok(result);
        }
        let key = format!("{bare}:{port}");
        let cached = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .get(&key)
                .filter(|(at, _)| at.elapsed() < NAME_TTL)
                .map(|(_, addrs)| addrs.clone())
        };
        let addrs = match cached {
            Some(addrs) => addrs,
            None => {
                let addrs = lookup(key.clone(), timeout)?;
                let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
                cache.retain(|_, (at, _)| at.elapsed() < NAME_TTL);
                cache.insert(key, (Instant::now(), addrs.clone()));
                addrs
            }
        };
        for addr in addrs.into_iter().take(16) {
            result.push(addr);
        }
        if result.is_empty() {
            return Err(Error::HostNotFound);
        }
        Ok(result)
    }
}

/// `localhost` and `*.localhost` (any case, with or without the final dot).
pub(super) fn is_localhost_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost")
}

/// A system lookup on a helper thread, waited for in slices so a cancel or the
/// deadline ends the wait (the thread finishes on its own).
fn lookup(host_port: String, timeout: NextTimeout) -> Result<Vec<SocketAddr>, Error> {
    lookup_with(timeout, move || {
        host_port.to_socket_addrs().map(|a| a.collect::<Vec<_>>())
    })
}

pub(super) fn lookup_with(
    timeout: NextTimeout,
    resolve: impl FnOnce() -> io::Result<Vec<SocketAddr>> + Send + 'static,
) -> Result<Vec<SocketAddr>, Error> {
    let deadline = timeout.not_zero().map(|t| Instant::now() + *t);
    let (tx, rx) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("gw-resolve".into())
        .spawn(move || {
            let _ = tx.send(resolve());
        })
        .map_err(Error::Io)?;
    loop {
        if current_cancelled() {
            return Err(Error::Io(cancelled_io()));
        }
        let Some(slice) = next_slice(deadline) else {
            return Err(Error::Timeout(Timeout::Resolve));
        };
        match rx.recv_timeout(slice) {
            Ok(Ok(addrs)) => return Ok(addrs),
            Ok(Err(_)) => return Err(Error::HostNotFound),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Err(Error::HostNotFound),
        }
    }
}
