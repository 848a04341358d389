//! Raw faults: answers hyper would never write (a Content-Length longer than the
//! body, a chunk cut short, a chunk size that is not hex, a reset half-way). A
//! connection whose first request matches a queued `raw` fault is taken before
//! hyper sees it: the request is read and recorded, the fault's bytes written as
//! they are, then the connection is closed, reset or held. While a raw fault is
//! queued, every other answer says `Connection: close`, so the faulted request
//! arrives on a fresh connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::faults::{Action, RawEnd};
use crate::record::RecordedRequest;
use crate::state::Shared;

/// The accept side of the mock: hands hyper every connection a raw fault does not take.
pub struct RawAwareListener {
    connections: mpsc::Receiver<(TcpStream, SocketAddr)>,
    local: SocketAddr,
}

impl RawAwareListener {
    pub fn new(listener: TcpListener, shared: Arc<Shared>) -> RawAwareListener {
        let local = listener
            .local_addr()
            .expect("a bound listener has an address");
        let (tx, rx) = mpsc::channel(256);
        tokio::spawn(async move {
            while let Ok((stream, addr)) = listener.accept().await {
                shared
                    .connections
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // Small SSE writes must leave at once, not wait for a delayed ACK (Nagle).
                let _ = stream.set_nodelay(true);
                let tx = tx.clone();
                let shared = shared.clone();
                tokio::spawn(async move {
                    let stream = if shared.raw_pending() {
                        match take_raw(stream, &shared).await {
                            Some(untaken) => untaken,
                            None => return,
                        }
                    } else {
                        stream
                    };
                    let _ = tx.send((stream, addr)).await;
                });
            }
        });
        RawAwareListener {
            connections: rx,
            local,
        }
    }
}

impl axum::serve::Listener for RawAwareListener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        match self.connections.recv().await {
            Some(c) => c,
            // The accept task ended: serve nothing more.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}

/// Peeks at the first request; when a raw fault matches its path, plays it and
/// uses the connection up (None); otherwise gives the untouched stream back.
async fn take_raw(stream: TcpStream, shared: &Shared) -> Option<TcpStream> {
    let Some(head_len) = peek_head(&stream).await else {
        return Some(stream);
    };
    let mut head = vec![0u8; head_len];
    if stream.peek(&mut head).await.is_err() {
        return Some(stream);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    let mut lines = text.split("\r\n");
    let mut first = lines.next().unwrap_or("").split(' ');
    let (method, target) = (first.next().unwrap_or(""), first.next().unwrap_or("/"));
    let path = target.split('?').next().unwrap_or("/");
    if path.starts_with("/__mock/") {
        return Some(stream);
    }
    let Some(fault) = shared.take_raw_fault(path) else {
        return Some(stream);
    };
    let Action::Raw { bytes, end } = fault.action else {
        return Some(stream);
    };
    let mut builder = axum::http::Request::builder().method(method).uri(target);
    let mut length = 0usize;
    for line in lines.filter(|l| !l.is_empty()) {
        if let Some((k, v)) = line.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
            builder = builder.header(k.trim(), v.trim());
        }
    }
    // Consume the request (head and body) and record it like any other.
    let mut owned = stream;
    let mut request = vec![0u8; head_len + length];
    if owned.read_exact(&mut request).await.is_err() {
        return None;
    }
    if let Ok(req) = builder.body(()) {
        let (parts, ()) = req.into_parts();
        shared.record(RecordedRequest::capture(&parts, &request[head_len..]));
    }
    let _ = owned.write_all(bytes.as_bytes()).await;
    let _ = owned.flush().await;
    match end {
        RawEnd::Close => {
            let _ = owned.shutdown().await;
        }
        RawEnd::Reset => {
            // SO_LINGER 0: closing sends RST instead of FIN. (Deprecated because a
            // non-zero linger blocks the thread on drop; zero does not.)
            #[allow(deprecated)]
            let _ = owned.set_linger(Some(Duration::ZERO));
        }
        RawEnd::Hang => tokio::time::sleep(Duration::from_secs(30)).await,
    }
    None
}

/// Waits (briefly) until the request head is in the socket buffer; its length.
async fn peek_head(stream: &TcpStream) -> Option<usize> {
    let mut buf = vec![0u8; 16 * 1024];
    for _ in 0..200 {
        let n = stream.peek(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        if let Some(i) = buf[..n].windows(4).position(|w| w == b"\r\n\r\n") {
            return Some(i + 4);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    None
}
