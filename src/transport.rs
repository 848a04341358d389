//! gw's own TCP layer under ureq: connects and reads in a way `gw_client_cancel`
//! can interrupt, and resolves names without a thread per call.
//!
//! ureq's stock TCP connector blocks in `connect` and its resolver spawns a
//! thread for every lookup once a timeout is set (even for `127.0.0.1`). Here:
//! IP literals need no lookup, names are cached for a short while, a lookup
//! that must run does so on a helper thread the caller waits for in short
//! slices, the connect is non-blocking and polled in slices, and every socket is
//! registered with the current call's cancel token before it is read or written.
//!
//! This uses ureq's `unversioned` transport API, which is why ureq is pinned to
//! an exact version in Cargo.toml.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, LazyBuffers, NextTimeout, Transport,
};
use ureq::{Error, Timeout};

use crate::cancel::{attach_current, current_cancelled, note_reset, read_idle, POLL_SLICE};

/// How long a resolved name is reused. The system resolver gives no TTL; a short
/// fixed one keeps repeated calls off the resolver without pinning stale addresses.
const NAME_TTL: Duration = Duration::from_secs(30);

/// Not `Interrupted`: readers up the stack (std's `BufRead`, rustls) retry that
/// kind, which would spin on a socket a cancel has shut down.
fn cancelled_io() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "cancelled by gw_client_cancel",
    )
}

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
fn is_localhost_name(host: &str) -> bool {
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

fn lookup_with(
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

/// How long a sliced wait may block before it looks at the cancel flag again;
/// None once `deadline` has passed.
fn next_slice(deadline: Option<Instant>) -> Option<Duration> {
    match deadline {
        Some(d) => {
            let left = d.saturating_duration_since(Instant::now());
            (!left.is_zero()).then(|| left.min(POLL_SLICE))
        }
        None => Some(POLL_SLICE),
    }
}

/// Opens TCP connections that a cancel can interrupt.
#[derive(Debug, Default)]
pub(crate) struct GwTcpConnector;

impl<In: Transport> Connector<In> for GwTcpConnector {
    type Out = Box<dyn Transport>;

    fn connect(
        &self,
        details: &ConnectionDetails,
        chained: Option<In>,
    ) -> Result<Option<Self::Out>, Error> {
        if let Some(transport) = chained {
            return Ok(Some(Box::new(transport)));
        }
        if details.addrs.is_empty() {
            // A proxy we cannot speak (SOCKS) leaves no address: never go direct instead.
            return Err(Error::ConnectionFailed);
        }
        let deadline = details.timeout.not_zero().map(|t| Instant::now() + *t);
        let mut last_err = None;
        for addr in details.addrs.iter() {
            match connect_cancellable(*addr, deadline) {
                Ok(stream) => {
                    if details.config.no_delay() {
                        stream.set_nodelay(true)?;
                    }
                    let buffers = LazyBuffers::new(
                        details.config.input_buffer_size(),
                        details.config.output_buffer_size(),
                    );
                    return Ok(Some(Box::new(GwTransport::new(stream, buffers))));
                }
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                    return Err(Error::Timeout(Timeout::Connect))
                }
                Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => return Err(Error::Io(e)),
                Err(e) => last_err = Some(e),
            }
        }
        Err(Error::Io(last_err.unwrap_or_else(|| {
            io::Error::new(io::ErrorKind::ConnectionRefused, "connection refused")
        })))
    }
}

/// A non-blocking connect polled in slices: a cancel ends it within one slice.
#[cfg(unix)]
fn connect_cancellable(addr: SocketAddr, deadline: Option<Instant>) -> io::Result<TcpStream> {
    use std::os::fd::{FromRawFd, OwnedFd};

    let family = match addr {
        SocketAddr::V4(_) => libc::AF_INET,
        SocketAddr::V6(_) => libc::AF_INET6,
    };
    // SAFETY: plain socket(2); the fd is owned by `fd` from here on.
    let raw = unsafe { libc::socket(family, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a fresh, open descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    let stream = TcpStream::from(fd);
    stream.set_nonblocking(true)?;
    let (storage, len) = sockaddr_of(&addr);
    // SAFETY: storage holds a valid sockaddr of `len` bytes.
    let rc = unsafe {
        libc::connect(
            raw,
            &storage as *const libc::sockaddr_storage as *const libc::sockaddr,
            len,
        )
    };
    if rc != 0 {
        let err = io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINPROGRESS) && err.kind() != io::ErrorKind::Interrupted
        {
            return Err(err);
        }
        loop {
            if current_cancelled() {
                return Err(cancelled_io());
            }
            let Some(slice) = next_slice(deadline) else {
                return Err(io::ErrorKind::TimedOut.into());
            };
            let mut pfd = libc::pollfd {
                fd: raw,
                events: libc::POLLOUT,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut pfd, 1, slice.as_millis().max(1) as libc::c_int) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            if n > 0 {
                break;
            }
        }
        if let Some(e) = stream.take_error()? {
            return Err(e);
        }
        // Connected only if the peer address is known (take_error may race on some kernels).
        stream.peer_addr()?;
    }
    stream.set_nonblocking(false)?;
    Ok(stream)
}

#[cfg(unix)]
fn sockaddr_of(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: all-zero is a valid sockaddr_storage.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    // Filled field by field from zeroed structs: some platforms add fields (sin_len).
    let len = match addr {
        SocketAddr::V4(a) => {
            // SAFETY: all-zero is a valid sockaddr_in.
            let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = a.port().to_be();
            sin.sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
            // SAFETY: sockaddr_in fits in sockaddr_storage.
            unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in, sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            // SAFETY: all-zero is a valid sockaddr_in6.
            let mut sin6: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
            sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            sin6.sin6_port = a.port().to_be();
            sin6.sin6_flowinfo = a.flowinfo();
            sin6.sin6_addr.s6_addr = a.ip().octets();
            sin6.sin6_scope_id = a.scope_id();
            // SAFETY: sockaddr_in6 fits in sockaddr_storage.
            unsafe { std::ptr::write(&mut storage as *mut _ as *mut libc::sockaddr_in6, sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, len as libc::socklen_t)
}

#[cfg(not(unix))]
fn connect_cancellable(addr: SocketAddr, deadline: Option<Instant>) -> io::Result<TcpStream> {
    match deadline {
        Some(d) => TcpStream::connect_timeout(&addr, d.saturating_duration_since(Instant::now())),
        None => TcpStream::connect(addr),
    }
}

/// A TCP connection whose reads and writes a cancel can interrupt.
pub(crate) struct GwTransport {
    /// Shared (weakly) with the cancel token of the call using it, which shuts it down.
    stream: Arc<TcpStream>,
    buffers: LazyBuffers,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// The call this socket was last registered for (0: none yet).
    attached_call: u64,
    /// The process that opened it: after fork() a child must never use its
    /// parent's connections (both would write requests on one socket).
    pid: u32,
}

impl GwTransport {
    fn new(stream: TcpStream, buffers: LazyBuffers) -> GwTransport {
        GwTransport {
            stream: Arc::new(stream),
            buffers,
            read_timeout: None,
            write_timeout: None,
            attached_call: 0,
            pid: std::process::id(),
        }
    }

    fn check_cancel(&mut self) -> Result<(), Error> {
        if attach_current(&self.stream, &mut self.attached_call) {
            return Err(Error::Io(cancelled_io()));
        }
        Ok(())
    }
}

impl fmt::Debug for GwTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GwTransport")
            .field("peer", &self.stream.peer_addr().ok())
            .finish()
    }
}

/// The timeout for the next I/O, or the expired error.
fn io_timeout(timeout: NextTimeout) -> Result<Option<Duration>, Error> {
    if timeout.after.is_zero() {
        return Err(Error::Timeout(timeout.reason));
    }
    Ok(timeout.not_zero().map(|t| *t))
}

impl Transport for GwTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), Error> {
        self.check_cancel()?;
        let timeout = timeout.for_write();
        let limit = io_timeout(timeout)?;
        if limit != self.write_timeout {
            self.stream.set_write_timeout(limit)?;
            self.write_timeout = limit;
        }
        let stream = &self.stream;
        let attached = &mut self.attached_call;
        let cancelled = |attached: &mut u64| {
            if attach_current(stream, attached) {
                Err(Error::Io(cancelled_io()))
            } else {
                Ok(())
            }
        };
        let output = &self.buffers.output()[..amount];
        let mut written = 0;
        while written < output.len() {
            match (&**stream).write(&output[written..]) {
                Ok(0) => return Err(Error::Io(io::ErrorKind::WriteZero.into())),
                Ok(n) => written += n,
                // EINTR is retried here, never turned into a new request.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(Error::Timeout(timeout.reason))
                }
                Err(e) => {
                    cancelled(attached)?;
                    return Err(e.into());
                }
            }
            cancelled(attached)?;
        }
        Ok(())
    }

    fn await_input(&mut self, timeout: NextTimeout) -> Result<bool, Error> {
        self.check_cancel()?;
        let mut timeout = timeout.for_read();
        let mut limit = io_timeout(timeout)?;
        // After the answer's head, a silence longer than read_timeout_ms ends the read.
        if let Some(idle) = read_idle() {
            if limit.is_none_or(|l| idle < l) {
                limit = Some(idle);
                timeout.reason = Timeout::PerRead;
            }
        }
        let started = Instant::now();
        loop {
            // After an EINTR only the rest of the budget is left.
            let left = limit.map(|l| l.saturating_sub(started.elapsed()));
            if left.is_some_and(|l| l.is_zero()) {
                return Err(Error::Timeout(timeout.reason));
            }
            if left != self.read_timeout {
                self.stream.set_read_timeout(left)?;
                self.read_timeout = left;
            }
            let input = self.buffers.input_append_buf();
            match (&*self.stream).read(input) {
                Ok(n) => {
                    // A shutdown by cancel reads as EOF: report it as what it is.
                    self.check_cancel()?;
                    self.buffers.input_appended(n);
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => self.check_cancel()?,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(Error::Timeout(timeout.reason))
                }
                Err(e) => {
                    self.check_cancel()?;
                    if e.kind() == io::ErrorKind::ConnectionReset {
                        note_reset();
                    }
                    return Err(e.into());
                }
            }
        }
    }

    fn is_open(&mut self) -> bool {
        // In a forked child a pooled connection is the parent's: drop it
        // unread (only this process's descriptor closes) and connect anew.
        self.pid == std::process::id() && probe(&self.stream)
    }
}

/// An idle pooled connection is usable when reading would block: no EOF, no stray bytes.
fn probe(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut buf = [0u8; 1];
    let open = matches!((&*stream).read(&mut buf), Err(e) if e.kind() == io::ErrorKind::WouldBlock);
    open && stream.set_nonblocking(false).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn ip_literals_and_names_resolve() {
        let r = GwResolver::default();
        let cfg = Config::default();
        let t = NextTimeout::default();
        let uri: Uri = "http://127.0.0.1:9/x".parse().unwrap();
        assert_eq!(
            r.resolve(&uri, &cfg, t).unwrap()[0],
            "127.0.0.1:9".parse().unwrap()
        );
        let uri: Uri = "https://[::1]/x".parse().unwrap();
        assert_eq!(
            r.resolve(&uri, &cfg, t).unwrap()[0],
            "[::1]:443".parse().unwrap()
        );
        let uri: Uri = "http://localhost:7/x".parse().unwrap();
        assert!(r
            .resolve(&uri, &cfg, t)
            .unwrap()
            .iter()
            .all(|a| a.port() == 7 && a.ip().is_loopback()));
    }

    #[test]
    fn localhost_names_are_loopback_without_a_lookup() {
        let r = GwResolver::default();
        let cfg = Config::default();
        for url in [
            "http://localhost:7/x",
            "http://LOCALHOST.:7/x",
            "http://gw.localhost:7/x",
        ] {
            let uri: Uri = url.parse().unwrap();
            let addrs = r.resolve(&uri, &cfg, NextTimeout::default()).unwrap();
            assert_eq!(addrs.len(), 2, "{url}");
            assert!(
                addrs.iter().all(|a| a.ip().is_loopback() && a.port() == 7),
                "{url}"
            );
        }
        assert!(!is_localhost_name("localhost.example"));
        assert!(!is_localhost_name("notlocalhost"));
    }

    #[test]
    fn a_slow_lookup_ends_at_cancel() {
        use crate::cancel::{CallScope, CancelToken};
        let token = Arc::new(CancelToken::default());
        let _scope = CallScope::enter(&token);
        let canceller = {
            let token = token.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                token.cancel();
                Instant::now()
            })
        };
        let result = lookup_with(NextTimeout::default(), || {
            std::thread::sleep(Duration::from_secs(3));
            Ok(vec![])
        });
        let returned = Instant::now();
        let cancelled_at = canceller.join().unwrap();
        let e = result.unwrap_err();
        assert!(
            matches!(&e, Error::Io(io) if io.kind() == io::ErrorKind::ConnectionAborted),
            "{e}"
        );
        let latency = returned.saturating_duration_since(cancelled_at);
        assert!(latency < Duration::from_millis(500), "{latency:?}");
    }

    #[test]
    fn a_slow_lookup_ends_at_the_deadline() {
        let t = NextTimeout {
            after: ureq::unversioned::transport::time::Duration::from_millis(50),
            ..NextTimeout::default()
        };
        let started = Instant::now();
        let e = lookup_with(t, || {
            std::thread::sleep(Duration::from_secs(3));
            Ok(vec![])
        })
        .unwrap_err();
        assert!(matches!(e, Error::Timeout(Timeout::Resolve)), "{e}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn connect_reaches_a_listener_and_reports_refusal() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let deadline = Some(Instant::now() + Duration::from_secs(5));
        let stream = connect_cancellable(addr, deadline).unwrap();
        assert_eq!(stream.peer_addr().unwrap(), addr);
        drop(listener);
        let e = connect_cancellable(addr, deadline).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::ConnectionRefused);
    }
}
