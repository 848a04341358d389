//! The connector: a non-blocking connect polled in slices, so a cancel or the
//! deadline ends it, handing out a `GwTransport` over the socket.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use ureq::unversioned::transport::{ConnectionDetails, Connector, Transport};
use ureq::{Error, Timeout};

use super::{cancelled_io, next_slice, GwBuffers, GwTransport};
use crate::net::cancel::current_cancelled;

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
pub(super) fn connect_cancellable(
    addr: SocketAddr,
    deadline: Option<Instant>,
) -> io::Result<TcpStream> {
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
pub(super) fn connect_cancellable(
    addr: SocketAddr,
    deadline: Option<Instant>,
) -> io::Result<TcpStream> {
    match deadline {
        Some(d) => TcpStream::connect_timeout(&addr, d.saturating_duration_since(Instant::now())),
        None => TcpStream::connect(addr),
    }
}
