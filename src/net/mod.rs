//! Connections: gw's transport under ureq and its resolver (`transport`), TLS
//! trust (`tls`), routes and proxies (`route`), cancellation of sockets
//! (`cancel`), the process-id check after a fork (`pid`), the rules for the
//! caller's headers (`headers`) and ureq's errors as gw's (`transport_error`).
//! Knows no JSON.

pub(crate) mod cancel;
pub(crate) mod headers;
pub(crate) mod pid;
pub(crate) mod route;
pub(crate) mod tls;
pub(crate) mod transport;
pub(crate) mod transport_error;
