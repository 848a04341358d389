use super::connect::connect_cancellable;
use super::resolver::{is_localhost_name, lookup_with};
use super::*;
use std::io::Write;
use std::net::TcpListener;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::Resolver;

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
