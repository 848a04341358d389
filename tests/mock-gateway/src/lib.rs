//! `gw-mock`: a real HTTP server that speaks the Unified Generative-Model Gateway's API document,
//! for testing the `gw` client. It validates like the gateway, answers deterministically from
//! the request, records every request, and injects faults on demand.
//!
//! Rust tests start it in-process with [`MockGateway::start`]; other languages run the
//! `gw-mock` binary and use the `/__mock/*` control endpoints.

mod auth;
mod clock;
mod errors;
mod faults;
mod intake;
mod multipart;
mod normalize;
mod raw;
mod record;
mod routes;
mod shapes;
mod state;
mod stream;
mod tls;
mod validate;
mod words;

use std::future::{Future, IntoFuture as _};
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

pub use record::{RecordedPart, RecordedRequest};
use state::Shared;
pub use tls::{ServerIdentity, TestCa};

/// The API key a mock accepts unless told otherwise.
pub const DEFAULT_API_KEY: &str = "sk-test";

/// A mock gateway on 127.0.0.1 and a random free port, served by a tokio runtime on a
/// background thread. Dropping it stops the server and closes its connections.
pub struct MockGateway {
    addr: SocketAddr,
    /// "http", or "https" for a mock started with `start_tls`.
    scheme: &'static str,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockGateway {
    /// Starts a mock that accepts the key `"sk-test"`.
    pub fn start() -> MockGateway {
        Self::start_with_key(DEFAULT_API_KEY)
    }

    /// Starts a mock that accepts `api_key`.
    ///
    /// Panics if no loopback port can be bound (a test environment problem).
    pub fn start_with_key(api_key: &str) -> MockGateway {
        Self::launch(api_key, None)
    }

    /// Starts a mock that speaks HTTPS with `identity` (see [`TestCa`]) and
    /// accepts the key `"sk-test"`. Its `url()` is `https://127.0.0.1:PORT`.
    pub fn start_tls(identity: &ServerIdentity) -> MockGateway {
        Self::launch(DEFAULT_API_KEY, Some(identity.clone()))
    }

    fn launch(api_key: &str, tls: Option<ServerIdentity>) -> MockGateway {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("gw-mock: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("gw-mock: local_addr");
        listener
            .set_nonblocking(true)
            .expect("gw-mock: set_nonblocking");
        let shared = Shared::new(api_key);
        let (stop, stopped) = oneshot::channel::<()>();
        let server_state = shared.clone();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let thread = std::thread::Builder::new()
            .name(format!("gw-mock-{}", addr.port()))
            .spawn(move || {
                // One thread per mock: cheap when a test suite starts dozens of them.
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("gw-mock: tokio runtime");
                rt.block_on(async move {
                    let listener =
                        tokio::net::TcpListener::from_std(listener).expect("gw-mock: listener");
                    let shutdown = async {
                        let _ = stopped.await;
                    };
                    let listener = raw::RawAwareListener::new(listener, server_state.clone());
                    match tls {
                        None => serve_state(listener, server_state, shutdown).await,
                        Some(identity) => {
                            let listener = tls::TlsListener {
                                tcp: listener,
                                acceptor: tls::acceptor(&identity),
                            };
                            serve_state(listener, server_state, shutdown).await
                        }
                    }
                });
            })
            .expect("gw-mock: spawn server thread");
        MockGateway {
            addr,
            scheme,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT` (`https://` for a TLS mock), without a trailing slash.
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn api_key(&self) -> String {
        self.shared.api_key.clone()
    }

    /// Queues a fault (object) or several (array), exactly as `POST /__mock/faults`.
    ///
    /// Panics on an invalid fault, naming the problem: a broken test should fail loudly.
    pub fn push_fault(&self, fault: serde_json::Value) {
        match faults::parse(&fault) {
            Ok(list) => {
                self.shared.push_faults(list);
            }
            Err(e) => panic!("gw-mock: invalid fault {fault}: {e}"),
        }
    }

    /// Faults still queued.
    pub fn pending_faults(&self) -> usize {
        self.shared.pending_faults().len()
    }

    /// Every request received except `/__mock/*` ones, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    pub fn request_count(&self) -> usize {
        self.shared.request_count()
    }

    /// Turns on (or off) path normalisation before routing, as a reverse proxy
    /// does: `/v1/videos/../remix` is served (and recorded) as `/v1/remix`.
    /// Also `POST /__mock/mode {"normalize_paths": true}`; reset turns it off.
    pub fn set_normalize_paths(&self, on: bool) {
        self.shared.set_normalize_paths(on);
    }

    /// TCP connections the mock has accepted (all of them, control ones included).
    pub fn connection_count(&self) -> usize {
        self.shared
            .connections
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Clears recordings, queued faults, tasks, the id counter and the path mode.
    pub fn reset(&self) {
        self.shared.reset();
    }
}

impl Drop for MockGateway {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for MockGateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of Debug output, as everywhere else in gw.
        f.debug_struct("MockGateway")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Serves the mock on `listener` until `shutdown` completes, then returns at once: open
/// connections are dropped rather than drained, so a test never waits on a slow stream.
/// Used by the binary; in-process users want [`MockGateway`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    api_key: &str,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let shared = Shared::new(api_key);
    let listener = raw::RawAwareListener::new(listener, shared.clone());
    serve_state(listener, shared, shutdown).await;
}

/// [`serve`] over HTTPS with `identity` (see [`TestCa`]): the binary's `--tls-ca-out`, for the
/// bindings' tests of their trust options.
pub async fn serve_tls(
    listener: tokio::net::TcpListener,
    api_key: &str,
    identity: &ServerIdentity,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let shared = Shared::new(api_key);
    let listener = tls::TlsListener {
        tcp: raw::RawAwareListener::new(listener, shared.clone()),
        acceptor: tls::acceptor(identity),
    };
    serve_state(listener, shared, shutdown).await;
}

async fn serve_state<L>(
    listener: L,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    use axum::ServiceExt as _;
    use tower::Layer as _;
    let app = routes::app(shared.clone());
    // Wrapped around the whole router: a rewrite must happen before routing.
    let app = axum::middleware::map_request_with_state(shared, normalize::rewrite).layer(app);
    let service = app.into_make_service();
    tokio::select! {
        r = axum::serve(listener, service).into_future() => {
            if let Err(e) = r {
                eprintln!("gw-mock: server error: {e}");
            }
        }
        () = shutdown => {}
    }
}
