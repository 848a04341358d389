//! Maps ureq's transport errors onto gw's status codes.

use std::io;

use ureq::Timeout;

use crate::error::Error;

pub(crate) fn map_ureq(e: ureq::Error) -> Error {
    match e {
        ureq::Error::Timeout(which) => Error::Timeout(match which {
            Timeout::Global => "total deadline (total_timeout_ms) passed".to_string(),
            Timeout::Connect | Timeout::Resolve => {
                "connect deadline (connect_timeout_ms) passed".to_string()
            }
            Timeout::PerRead => "no data within read_timeout_ms".to_string(),
            Timeout::RecvResponse => "no answer within first_byte_timeout_ms".to_string(),
            other => format!("{other} deadline passed"),
        }),
        ureq::Error::Io(io) => map_io(io),
        ureq::Error::HostNotFound => Error::Network("host not found (DNS lookup failed)".into()),
        ureq::Error::ConnectionFailed => Error::Network("connection failed".into()),
        ureq::Error::Tls(why) => Error::Network(format!("TLS: {why}")),
        ureq::Error::Rustls(why) => Error::Network(crate::net::tls::describe(&why)),
        ureq::Error::Protocol(why) => Error::Network(format!("HTTP protocol error: {why}")),
        ureq::Error::BodyExceedsLimit(n) => Error::TooLarge(format!("answer is over {n} bytes")),
        ureq::Error::BadUri(why) => Error::invalid(format!("bad URL: {why}")),
        ureq::Error::Http(why) => Error::invalid(format!("bad request: {why}")),
        ureq::Error::InvalidProxyUrl => {
            Error::invalid_param("proxy", "proxy: not a valid proxy URL")
        }
        other => Error::Network(other.to_string()),
    }
}

/// Reads off an I/O error from a body reader, which may wrap a ureq error.
pub(crate) fn map_io(e: io::Error) -> Error {
    if e.get_ref().is_some_and(|inner| inner.is::<ureq::Error>()) {
        if let Some(Ok(inner)) = e.into_inner().map(|i| i.downcast::<ureq::Error>()) {
            return map_ureq(*inner);
        }
        return Error::Network("connection failed".into());
    }
    // rustls reports a failed handshake as an I/O error around its own.
    if let Some(tls) = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        return Error::Network(crate::net::tls::describe(tls));
    }
    match e.kind() {
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => {
            Error::Timeout(format!("no data within read_timeout_ms ({e})"))
        }
        io::ErrorKind::UnexpectedEof => {
            Error::Network("connection closed before the answer was complete".into())
        }
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::BrokenPipe => Error::Network(format!("connection reset ({e})")),
        io::ErrorKind::ConnectionRefused => Error::Network(format!("connection refused ({e})")),
        _ => Error::Network(e.to_string()),
    }
}
