//! gw's own TCP layer under ureq: connects and reads in a way `gw_client_cancel`
//! can interrupt, and resolves names without a thread per call.
//!
//! ureq's stock TCP connector blocks in `connect` and its resolver spawns a
//! thread for every lookup once a timeout is set (even for `127.0.0.1`). Here:
//! IP literals need no lookup, names are cached for a short while, a lookup
//! that must run does so on a helper thread the caller waits for in short
//! slices, the connect is non-blocking and polled in slices, and every socket is
//! registered with the current call's cancel token before it is read or written.
//! Small output is held until the next read so a request's head and body leave
//! in one write, socket timeouts are set only when the one in place does not fit,
//! and the pool's liveness probe is one non-blocking peek.
//!
//! This uses ureq's `unversioned` transport API, which is why ureq is pinned to
//! an exact version in Cargo.toml.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read};
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

use crate::net::cancel::{current_cancelled, note_reset, read_idle, Attachment, POLL_SLICE};
use crate::net::direct_body;

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
                    let buffers = GwBuffers::new(
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
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let raw = unsafe { libc::socket(family, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    // Where socket(2) takes no SOCK_CLOEXEC (Apple's libc has none), set just after.
    // SAFETY: as above.
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let raw = unsafe { libc::socket(family, libc::SOCK_STREAM, 0) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a fresh, open descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    no_inherit_no_sigpipe(raw)?;
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

/// Close-on-exec, and on Apple SO_NOSIGPIPE: a write to a reset connection there
/// fails with EPIPE instead of raising SIGPIPE (std sets the same on the sockets it
/// makes; this one is made by hand). Not built on the Linux machines gw is tested on.
#[cfg(all(unix, not(any(target_os = "linux", target_os = "android"))))]
fn no_inherit_no_sigpipe(raw: libc::c_int) -> io::Result<()> {
    // SAFETY: fcntl and setsockopt on an open descriptor, with a c_int option value.
    unsafe {
        if libc::fcntl(raw, libc::F_SETFD, libc::FD_CLOEXEC) != 0 {
            return Err(io::Error::last_os_error());
        }
        #[cfg(target_vendor = "apple")]
        {
            let on: libc::c_int = 1;
            if libc::setsockopt(
                raw,
                libc::SOL_SOCKET,
                libc::SO_NOSIGPIPE,
                &on as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            ) != 0
            {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
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

/// Output held back is written at the latest once it reaches this size.
const HOLD_MAX: usize = 16 * 1024;

/// How far below the wanted limit a socket timeout already in place may be and
/// still be kept: a call's limits differ from the last call's by microseconds, so
/// most calls need no `setsockopt`. A timeout that fires early is waited out.
const TIMEOUT_SLACK: Duration = Duration::from_millis(20);

/// ureq's buffers, with output held back: a small output (a request head) stays
/// in the buffer and the next one (its body) is written behind it, so both leave
/// in one write. ureq writes into `output()` in place, so nothing is copied.
struct GwBuffers {
    /// The input side as ureq's own buffers keep it (their output is unused).
    input: LazyBuffers,
    /// Held bytes, then the window ureq writes into; allocated at first use.
    output: Vec<u8>,
    /// The window's size: ureq's output_buffer_size.
    window: usize,
    /// Bytes at the start of `output` not written to the socket yet.
    held: usize,
}

impl GwBuffers {
    fn new(input_size: usize, output_size: usize) -> GwBuffers {
        GwBuffers {
            input: LazyBuffers::new(input_size, 1),
            output: Vec::new(),
            window: output_size,
            held: 0,
        }
    }

    fn window(&mut self) -> &mut [u8] {
        if self.output.is_empty() {
            self.output = vec![0; HOLD_MAX + self.window];
        }
        let window = &mut self.output[self.held..self.held + self.window];
        // A body reader may leave it unwritten and have the caller's bytes sent instead.
        direct_body::note_window(window.as_ptr());
        window
    }

    /// Where the window starts now (null before the first use).
    fn window_start(&self) -> *const u8 {
        self.output
            .get(self.held..)
            .map_or(std::ptr::null(), |w| w.as_ptr())
    }
}

impl Buffers for GwBuffers {
    fn output(&mut self) -> &mut [u8] {
        self.window()
    }

    fn input(&self) -> &[u8] {
        self.input.input()
    }

    fn input_append_buf(&mut self) -> &mut [u8] {
        self.input.input_append_buf()
    }

    fn input_appended(&mut self, amount: usize) {
        self.input.input_appended(amount)
    }

    fn input_consume(&mut self, amount: usize) {
        self.input.input_consume(amount)
    }

    fn tmp_and_output(&mut self) -> (&mut [u8], &mut [u8]) {
        self.window();
        let (tmp, _) = self.input.tmp_and_output();
        (tmp, &mut self.output[self.held..self.held + self.window])
    }

    fn can_use_input(&self) -> bool {
        self.input.can_use_input()
    }
}

/// A TCP connection whose reads and writes a cancel can interrupt.
pub(crate) struct GwTransport {
    /// Shared (weakly) with the cancel token of the call using it, which shuts it down.
    stream: Arc<TcpStream>,
    buffers: GwBuffers,
    /// When the held output must be written by (None: no limit) and the timeout
    /// to report if it is not.
    held_deadline: (Option<Instant>, Timeout),
    /// A write of held output failed.
    broken: bool,
    /// The last thing done on the socket was reading an answer (see `is_open`).
    just_read: bool,
    read_timeout: Option<Duration>,
    write_timeout: Option<Duration>,
    /// The cancel scope (handle and call) this socket is registered in.
    attached: Attachment,
    /// The process that opened it: after fork() a child must never use its
    /// parent's connections (both would write requests on one socket).
    pid: u32,
}

impl GwTransport {
    fn new(stream: TcpStream, buffers: GwBuffers) -> GwTransport {
        GwTransport {
            stream: Arc::new(stream),
            buffers,
            held_deadline: (None, Timeout::Global),
            broken: false,
            just_read: false,
            read_timeout: None,
            write_timeout: None,
            attached: Attachment::default(),
            pid: crate::net::pid::current(),
        }
    }

    /// Checked before every read and write (and after a failed one): the socket
    /// is this process's and its call was not cancelled.
    fn check_cancel(&mut self) -> Result<(), Error> {
        if self.pid != crate::net::pid::current() {
            // A forked child holding its parent's connection (an open stream): reading
            // would take the parent's bytes, writing would mix requests on one socket.
            return Err(Error::Io(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the connection belongs to the process that opened it (before fork())",
            )));
        }
        if self.attached.attach_current(&self.stream, self.pid) {
            return Err(Error::Io(cancelled_io()));
        }
        Ok(())
    }

    /// Writes the held output. A request has left whole only once this returned
    /// Ok: a write timeout here is the send's (never "waiting for the answer"),
    /// so client.rs still knows an unanswered request from an unsent one.
    fn flush(&mut self) -> Result<(), Error> {
        self.flush_with(&[])
    }

    /// Writes the held output followed by `more` (the caller's body bytes, see
    /// `direct_body`), with the held output's deadline.
    fn flush_with(&mut self, more: &[&[u8]]) -> Result<(), Error> {
        if self.buffers.held == 0 && more.iter().all(|m| m.is_empty()) {
            return Ok(());
        }
        // Out of `buffers` while written, so the write may borrow the transport.
        let output = std::mem::take(&mut self.buffers.output);
        let held = &output[..self.buffers.held];
        let result = if more.is_empty() {
            self.write_all(&mut [held])
        } else {
            let mut slices = Vec::with_capacity(1 + more.len());
            slices.push(held);
            slices.extend_from_slice(more);
            self.write_all(&mut slices)
        };
        self.buffers.output = output;
        self.buffers.held = 0;
        // Part of a request may have left: the connection is never used again.
        self.broken |= result.is_err();
        result
    }

    /// Writes every slice, gathered (`writev`), within the held output's deadline.
    fn write_all(&mut self, slices: &mut [&[u8]]) -> Result<(), Error> {
        let (deadline, reason) = self.held_deadline;
        let mut slices = &mut slices[..];
        loop {
            while slices.first().is_some_and(|s| s.is_empty()) {
                slices = &mut slices[1..];
            }
            if slices.is_empty() {
                return Ok(());
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => Some(left),
                    _ => return Err(Error::Timeout(reason)),
                },
                None => None,
            };
            let stream = &self.stream;
            fit_timeout(&mut self.write_timeout, left, |t| {
                stream.set_write_timeout(t)
            })?;
            let mut gathered = [io::IoSlice::new(&[]); 8];
            for (g, s) in gathered.iter_mut().zip(slices.iter()) {
                *g = io::IoSlice::new(s);
            }
            let count = slices.len().min(gathered.len());
            match send_gathered(stream, &gathered[..count]) {
                Ok(0) => return Err(Error::Io(io::ErrorKind::WriteZero.into())),
                Ok(mut n) => {
                    while n > 0 {
                        let first = slices[0].len().min(n);
                        slices[0] = &slices[0][first..];
                        n -= first;
                        if slices[0].is_empty() {
                            slices = &mut slices[1..];
                        }
                    }
                }
                // EINTR is retried here, never turned into a new request.
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // The socket's timeout may fire before the deadline (see fit_timeout).
                Err(e) if is_timeout(&e) && deadline.is_some() => {}
                Err(e) if is_timeout(&e) => return Err(Error::Timeout(reason)),
                Err(e) => {
                    self.check_cancel()?;
                    return Err(e.into());
                }
            }
            self.check_cancel()?;
        }
    }
}

/// A gathered write that never raises SIGPIPE when the peer has reset the
/// connection (SIGPIPE ends a C program that has not ignored it): std's `write`
/// passes MSG_NOSIGNAL, its `write_vectored` (writev) cannot, so `sendmsg` here.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn send_gathered(stream: &TcpStream, slices: &[io::IoSlice<'_>]) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: all-zero is a valid msghdr; IoSlice is ABI-compatible with iovec on
    // unix, and the slices outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = slices.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = slices.len() as _;
    // SAFETY: a valid descriptor and message.
    let sent = unsafe { libc::sendmsg(stream.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
    if sent < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(sent as usize)
    }
}

/// Elsewhere: Apple's sockets carry SO_NOSIGPIPE (`connect_cancellable`); Windows
/// has no SIGPIPE.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn send_gathered(stream: &TcpStream, slices: &[io::IoSlice<'_>]) -> io::Result<usize> {
    use std::io::Write;
    (&*stream).write_vectored(slices)
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

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Gives the socket a timeout for an I/O that may take `want` at most, unless
/// the one in place fits: no longer than `want` and at most TIMEOUT_SLACK
/// shorter. A new one is set a little short of `want` (the I/O waits out the
/// rest if it fires), so that the next calls' limits, a few microseconds
/// either side, find it fitting.
fn fit_timeout(
    current: &mut Option<Duration>,
    want: Option<Duration>,
    set: impl FnOnce(Option<Duration>) -> io::Result<()>,
) -> io::Result<()> {
    let fits = match (*current, want) {
        (None, None) => true,
        (Some(c), Some(w)) => c <= w && w - c <= TIMEOUT_SLACK,
        _ => false,
    };
    if fits {
        return Ok(());
    }
    let new = want.map(|w| {
        if w > 2 * TIMEOUT_SLACK {
            w - TIMEOUT_SLACK / 2
        } else {
            w
        }
    });
    set(new)?;
    *current = new;
    Ok(())
}

impl Transport for GwTransport {
    fn buffers(&mut self) -> &mut dyn Buffers {
        &mut self.buffers
    }

    /// Holds the output back while it is small: ureq sends a request's head and
    /// body in two of these, and the next read (or more output) writes them as one.
    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), Error> {
        self.just_read = false;
        self.check_cancel()?;
        let timeout = timeout.for_write();
        let limit = io_timeout(timeout)?;
        let deadline = limit.and_then(|l| Instant::now().checked_add(l));
        // The earliest limit of what is held applies to all of it.
        if self.buffers.held == 0
            || deadline.is_some_and(|d| self.held_deadline.0.is_none_or(|h| d < h))
        {
            self.held_deadline = (deadline, timeout.reason);
        }
        // A chunk of the body a reader left unwritten: the held output, then the
        // caller's bytes from that chunk on, straight from where they are.
        if let Some(unsent) = direct_body::take_claimed(self.buffers.window_start(), amount)? {
            let rest = unsent.slices();
            self.flush_with(&rest)?;
            unsent.mark_sent();
            return Ok(());
        }
        self.buffers.held += amount;
        if self.buffers.held < HOLD_MAX {
            return Ok(());
        }
        self.flush()
    }

    fn maybe_await_input(&mut self, timeout: NextTimeout) -> Result<bool, Error> {
        // Even when the input at hand will do, what is held goes out now.
        self.flush()?;
        if self.buffers.can_use_input() {
            return Ok(true);
        }
        self.await_input(timeout)
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
        // The request goes out before its answer is awaited; the time this takes
        // counts against the wait (a slow write leaves less of it).
        self.flush()?;
        loop {
            // After an EINTR, or a socket timeout that fired early, only the rest is left.
            let left = limit.map(|l| l.saturating_sub(started.elapsed()));
            if left.is_some_and(|l| l.is_zero()) {
                return Err(Error::Timeout(timeout.reason));
            }
            let stream = &self.stream;
            fit_timeout(&mut self.read_timeout, left, |t| stream.set_read_timeout(t))?;
            let input = self.buffers.input_append_buf();
            match (&*self.stream).read(input) {
                Ok(n) => {
                    // A shutdown by cancel reads as EOF: report it as what it is.
                    self.check_cancel()?;
                    self.buffers.input_appended(n);
                    self.just_read = n > 0;
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => self.check_cancel()?,
                Err(e) if is_timeout(&e) && limit.is_some() => self.check_cancel()?,
                Err(e) if is_timeout(&e) => return Err(Error::Timeout(timeout.reason)),
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
        // Output still held, or a failed write of it, means a request never
        // finished: not reusable.
        // ureq (3.5.1, pool.rs) probes a connection when it goes back to the pool,
        // right after the answer's last read, and again when it hands it out; nothing
        // happens on it in between. The second probe sees any EOF or stray bytes the
        // first would have, so the first one is skipped: one syscall less per call.
        let returning = std::mem::take(&mut self.just_read);
        // Out of the last call's cancel scope before anything else: pooled, it may go
        // to another handle's call, which that handle's cancel must not reach.
        if self.pid == crate::net::pid::current() {
            self.attached.detach(&self.stream);
        }
        self.buffers.held == 0
            && !self.broken
            && self.pid == crate::net::pid::current()
            && (returning || probe(&self.stream))
    }
}

/// An idle pooled connection is usable when reading would block: no EOF, no
/// stray bytes. One peek that does not block, leaving the socket as it is.
#[cfg(unix)]
fn probe(stream: &TcpStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut byte = 0u8;
    loop {
        // SAFETY: a one-byte buffer we own; the descriptor is open while `stream` lives.
        let n = unsafe {
            libc::recv(
                stream.as_raw_fd(),
                &mut byte as *mut u8 as *mut libc::c_void,
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        if n >= 0 {
            return false;
        }
        match io::Error::last_os_error() {
            e if e.kind() == io::ErrorKind::Interrupted => continue,
            e => return e.kind() == io::ErrorKind::WouldBlock,
        }
    }
}

#[cfg(not(unix))]
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
    use std::io::Write;
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
        use crate::net::cancel::{CallScope, CancelToken};
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

    /// A transport on one end of a loopback connection, and the other end.
    fn pair() -> (GwTransport, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (peer, _) = listener.accept().unwrap();
        (GwTransport::new(stream, GwBuffers::new(1024, 4096)), peer)
    }

    fn send(t: &mut GwTransport, bytes: &[u8], timeout: NextTimeout) -> Result<(), Error> {
        t.buffers().output()[..bytes.len()].copy_from_slice(bytes);
        t.transmit_output(bytes.len(), timeout)
    }

    fn within(ms: u64, reason: Timeout) -> NextTimeout {
        NextTimeout {
            after: ureq::unversioned::transport::time::Duration::from_millis(ms),
            reason,
            ..NextTimeout::default()
        }
    }

    #[test]
    fn small_output_is_held_until_input_is_awaited_then_leaves_in_one_write() {
        let (mut t, mut peer) = pair();
        send(&mut t, b"POST / HTTP/1.1\r\n\r\n", NextTimeout::default()).unwrap();
        send(&mut t, b"body", NextTimeout::default()).unwrap();
        peer.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 64];
        let e = peer.read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock, "nothing left yet");
        peer.set_nonblocking(false).unwrap();
        peer.write_all(b"HTTP").unwrap();
        assert!(t.maybe_await_input(NextTimeout::default()).unwrap());
        assert_eq!(t.buffers().input(), b"HTTP");
        let n = peer.read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"POST / HTTP/1.1\r\n\r\nbody");
    }

    /// ureq's body loop (run.rs `send_body`, non-chunked): read into the window,
    /// transmit what was read, until the reader is empty.
    fn send_body(t: &mut GwTransport, reader: &mut direct_body::BodyReader<'_>) {
        loop {
            let (_, window) = t.buffers().tmp_and_output();
            let n = reader.read(window).unwrap();
            if n == 0 {
                return;
            }
            t.transmit_output(n, NextTimeout::default()).unwrap();
        }
    }

    #[test]
    fn a_leased_body_leaves_from_the_callers_memory_behind_the_held_head() {
        let (mut t, mut peer) = pair();
        let body: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let pieces: [&[u8]; 3] = [&body[..10], b",\"stream\":true", &body[10..]];
        let _lease = direct_body::Lease::new(&pieces);
        let head = b"POST / HTTP/1.1\r\n\r\n";
        send(&mut t, head, NextTimeout::default()).unwrap();
        let mut reader = direct_body::BodyReader::new(&pieces);
        send_body(&mut t, &mut reader);
        assert!(
            t.buffers.output[head.len()..].iter().all(|&b| b == 0),
            "the body was copied into the window"
        );
        let mut expected = head.to_vec();
        expected.extend(pieces.concat());
        peer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut got = vec![0u8; expected.len()];
        peer.read_exact(&mut got).unwrap();
        assert!(got == expected, "the bytes on the wire differ");
        assert_eq!(t.buffers.held, 0, "nothing is left held");
    }

    #[test]
    fn output_past_the_hold_limit_leaves_at_once() {
        let (mut t, mut peer) = pair();
        let chunk = vec![b'x'; 4096];
        for _ in 0..HOLD_MAX / chunk.len() {
            send(&mut t, &chunk, NextTimeout::default()).unwrap();
        }
        peer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut got = vec![0u8; HOLD_MAX];
        peer.read_exact(&mut got).unwrap();
        assert!(got.iter().all(|&b| b == b'x'));
        assert_eq!(t.buffers.held, 0);
    }

    #[test]
    fn held_output_past_its_write_deadline_is_a_send_timeout_not_an_unanswered_request() {
        // client.rs takes a RecvResponse timeout as "sent whole, unanswered" and
        // does not send an unkeyed POST again: an unsent one must not look like that.
        let (mut t, _peer) = pair();
        send(
            &mut t,
            b"POST / HTTP/1.1\r\n\r\n",
            within(20, Timeout::SendRequest),
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(40));
        let e = t
            .maybe_await_input(within(5_000, Timeout::RecvResponse))
            .unwrap_err();
        assert!(matches!(e, Error::Timeout(Timeout::SendRequest)), "{e}");
        assert!(
            !t.is_open(),
            "a connection with a cut request is not reused"
        );
    }

    #[test]
    fn a_socket_timeout_in_place_is_kept_when_it_fits() {
        let mut sets = Vec::new();
        let mut current = None;
        let mut fit = |current: &mut Option<Duration>, want: Option<Duration>| {
            fit_timeout(current, want, |t| {
                sets.push(t);
                Ok(())
            })
            .unwrap()
        };
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        fit(&mut current, None);
        fit(&mut current, Some(s(10)));
        assert_eq!(current, Some(s(10) - TIMEOUT_SLACK / 2));
        // A few ms either side of the last limit: kept.
        fit(&mut current, Some(s(10) - ms(5)));
        fit(&mut current, Some(s(10) + ms(5)));
        // Shorter than the one in place, or much longer: set anew.
        fit(&mut current, Some(s(9)));
        fit(&mut current, Some(s(60)));
        // Short limits are set as they are.
        fit(&mut current, Some(ms(30)));
        fit(&mut current, None);
        assert_eq!(
            sets,
            [
                Some(s(10) - TIMEOUT_SLACK / 2),
                Some(s(9) - TIMEOUT_SLACK / 2),
                Some(s(60) - TIMEOUT_SLACK / 2),
                Some(ms(30)),
                None
            ]
        );
    }

    #[test]
    fn a_read_waits_out_a_socket_timeout_that_fires_early() {
        let (mut t, mut peer) = pair();
        // As if a previous call left a short timeout in place that still "fits".
        t.stream
            .set_read_timeout(Some(Duration::from_millis(30)))
            .unwrap();
        t.read_timeout = Some(Duration::from_millis(30));
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            peer.write_all(b"late").unwrap();
            peer
        });
        // The 30 ms timeout fires first; the read waits out the rest of its 45.
        let started = Instant::now();
        let e = t.await_input(within(45, Timeout::Global)).unwrap_err();
        assert!(matches!(e, Error::Timeout(Timeout::Global)), "{e}");
        assert!(started.elapsed() >= Duration::from_millis(45));
        let started = Instant::now();
        assert!(t.await_input(within(5_000, Timeout::Global)).unwrap());
        assert_eq!(t.buffers().input(), b"late");
        assert!(started.elapsed() >= Duration::from_millis(50));
        drop(writer.join().unwrap());
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
