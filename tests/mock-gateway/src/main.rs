//! `gw-mock [--port N] [--api-key K] [--exit-on-stdin-eof] [--tls-ca-out FILE]`: the mock gateway
//! as a process, for the C, Go, Kotlin and Python suites and `make demo`. The first stdout line is
//! its address. With `--tls-ca-out` it speaks HTTPS (https://127.0.0.1:PORT) with a certificate
//! for 127.0.0.1 and localhost from a CA made for this run, whose PEM it writes to FILE first:
//! what a client must trust (the bindings' ca_file / ca_pem tests).

use std::io::Write as _;
use std::process::ExitCode;

const USAGE: &str =
    "usage: gw-mock [--port N] [--api-key K] [--exit-on-stdin-eof] [--tls-ca-out FILE]";

struct Args {
    port: u16,
    api_key: String,
    exit_on_stdin_eof: bool,
    tls_ca_out: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 0,
        api_key: gw_mock::DEFAULT_API_KEY.to_string(),
        exit_on_stdin_eof: false,
        tls_ca_out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        // Accept both "--port 8080" and "--port=8080".
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (a.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--port" => args.port = value()?.parse().map_err(|_| "--port: not a port number")?,
            "--api-key" => args.api_key = value()?,
            "--exit-on-stdin-eof" => args.exit_on_stdin_eof = true,
            "--tls-ca-out" => args.tls_ca_out = Some(value()?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("gw-mock: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    // Bind before printing so the printed address is already accepting connections.
    let listener = match rt.block_on(async { listen(args.port) }) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("gw-mock: cannot bind 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };
    let addr = listener.local_addr().expect("local_addr");
    // The CA's PEM is written before the address is printed: a test that read the address
    // can read the file.
    let identity = match &args.tls_ca_out {
        None => None,
        Some(path) => {
            let ca = gw_mock::TestCa::new("gw-mock test CA");
            if let Err(e) = std::fs::write(path, ca.cert_pem()) {
                eprintln!("gw-mock: cannot write the CA to {path}: {e}");
                return ExitCode::FAILURE;
            }
            Some(ca.server(&["127.0.0.1", "localhost"]))
        }
    };
    {
        let scheme = if identity.is_some() { "https" } else { "http" };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{scheme}://{addr}");
        let _ = out.flush();
    }
    rt.block_on(async move {
        let shutdown = shutdown_signal(args.exit_on_stdin_eof);
        match &identity {
            None => gw_mock::serve(listener, &args.api_key, shutdown).await,
            Some(identity) => gw_mock::serve_tls(listener, &args.api_key, identity, shutdown).await,
        }
    });
    // Don't wait for open connections (e.g. a dripping stream) on the way out.
    rt.shutdown_background();
    ExitCode::SUCCESS
}

/// Listens on 127.0.0.1:`port` with a backlog of 1024 (std's bind gives 128): a client
/// opening a thousand connections at once (the C event-loop tests, `make bench`) then has none
/// of its SYNs dropped and sent again a second later.
fn listen(port: u16) -> std::io::Result<tokio::net::TcpListener> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?; // as std's bind does on Unix
    socket.bind(std::net::SocketAddr::from(([127, 0, 0, 1], port)))?;
    socket.listen(1024)
}

/// Completes on SIGINT, SIGTERM, or (when asked) end of stdin.
async fn shutdown_signal(exit_on_stdin_eof: bool) {
    let stdin_eof = async move {
        if !exit_on_stdin_eof {
            return std::future::pending::<()>().await;
        }
        use tokio::io::AsyncReadExt as _;
        let mut stdin = tokio::io::stdin();
        let mut buf = [0u8; 1024];
        while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate() => {}
        () = stdin_eof => {}
    }
}

#[cfg(unix)]
async fn terminate() {
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut s) => {
            s.recv().await;
        }
        Err(_) => std::future::pending().await,
    }
}

#[cfg(not(unix))]
async fn terminate() {
    std::future::pending().await
}
