//! The handle C holds for a client (`gw_client`): a counted `Client`, made here
//! and lent to each call by `args::client`.

use std::ops::Deref;
use std::sync::Arc;

use crate::Client;

/// An opaque gateway client handle.
///
/// Thread rules: a client may be used from many threads at once; calls on it
/// are independent and share one connection pool. It is reference-counted
/// inside: `gw_client_free` during a call (from a callback or a finalizer on
/// another thread) takes effect when the last call on it returns.
///
/// fork(): a client made before `fork()` may be used in the child (and in
/// the parent) afterwards. The child never uses a connection its parent
/// opened: it drops the inherited pooled connections unread (closing only its
/// own descriptors, so the parent's stay intact) and opens its own. A stream
/// open at the fork stays the parent's: in the child `gw_stream_next` on it
/// fails (`GW_INVALID_ARGUMENT`) without reading, and `gw_client_cancel` there
/// leaves the parent's connections alone. As with
/// any library that uses locks, fork while no other thread is inside a gw
/// call, or call only async-signal-safe functions (exec) in the child.
pub struct gw_client {
    client: Client,
}

impl Deref for gw_client {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl gw_client {
    pub(super) fn into_raw(client: Client) -> *mut gw_client {
        Arc::into_raw(Arc::new(gw_client { client })) as *mut gw_client
    }
}
