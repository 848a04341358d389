//! Connections: gw's transport under ureq and its resolver (`transport`), TLS
//! trust (`tls`), routes and proxies (`route`), cancellation of sockets
//! (`cancel`), a big body sent from the caller's memory (`direct_body`), the
//! process-id check after a fork (`pid`), the rules for the
//! caller's headers (`headers`), origins (`origin`) and ureq's errors as gw's
//! (`transport_error`). Knows no JSON and not the client: what it reads of the
//! caller's options it reads through `Settings`.

pub(crate) mod cancel;
pub(crate) mod crypto_provider;
pub(crate) mod direct_body;
pub(crate) mod env_roots;
pub(crate) mod headers;
pub(crate) mod origin;
pub(crate) mod pid;
pub(crate) mod route;
pub(crate) mod tls;
pub(crate) mod transport;
pub(crate) mod transport_error;

use std::collections::BTreeMap;

/// What the network layer reads of the caller's options (the client's
/// `Options` implements it): proxies, plain http, headers, TLS trust.
pub(crate) trait Settings {
    fn proxy(&self) -> Option<&str>;
    fn allow_insecure_http(&self) -> bool;
    fn headers(&self) -> &BTreeMap<String, String>;
    fn user_agent(&self) -> Option<&str>;
    fn tls_verifier(&self) -> Option<&str>;
    fn ca_file(&self) -> Option<&str>;
    fn ca_pem(&self) -> Option<&str>;
}
