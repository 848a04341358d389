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
//!
//! Here the transport itself (`GwTransport`): a connection's reads and writes,
//! output held back, socket timeouts, the pool's probe. The resolver is in
//! `resolver.rs`, the connector in `connect.rs`, the held-back buffers in
//! `buffers.rs`.

use std::fmt;
use std::io::{self, Read};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ureq::unversioned::transport::{Buffers, NextTimeout, Transport};
use ureq::{Error, Timeout};

use crate::net::cancel::{note_reset, read_idle, Attachment, POLL_SLICE};
use crate::net::direct_body;

mod buffers;
mod connect;
mod resolver;
#[cfg(test)]
mod tests;

use buffers::{GwBuffers, HOLD_MAX};
pub(crate) use connect::GwTcpConnector;
pub(crate) use resolver::GwResolver;

/// Not `Interrupted`: readers up the stack (std's `BufRead`, rustls) retry that
/// kind, which would spin on a socket a cancel has shut down.
fn cancelled_io() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "cancelled by gw_client_cancel",
    )
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

/// How far below the wanted limit a socket timeout already in place may be and
/// still be kept: a call's limits differ from the last call's by microseconds, so
/// most calls need no `setsockopt`. A timeout that fires early is waited out.
const TIMEOUT_SLACK: Duration = Duration::from_millis(20);

/// A TCP connection whose reads and writes a cancel can interrupt.
pub(super) struct GwTransport {
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
