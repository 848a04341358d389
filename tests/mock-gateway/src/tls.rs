//! HTTPS for the mock: a test certificate authority made at test time, server
//! certificates it signs (for chosen names, or already expired), and a listener
//! that speaks TLS with one of them. Test-only: nothing here is meant to be safe.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, ServerConfig};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use crate::raw::RawAwareListener;

/// A certificate authority that exists only for one test run.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A server's certificate (signed by a `TestCa`) and its key, in PEM.
#[derive(Clone, Debug)]
pub struct ServerIdentity {
    pub cert_pem: String,
    pub key_pem: String,
}

impl TestCa {
    /// A fresh CA named `name` (its subject's common name).
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        TestCa {
            issuer: CertifiedIssuer::self_signed(params, key).expect("CA certificate"),
        }
    }

    /// The CA certificate in PEM: what a client must trust.
    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `names` (DNS names or IP addresses).
    pub fn server(&self, names: &[&str]) -> ServerIdentity {
        self.issue(names, false)
    }

    /// A server certificate for `names` whose validity ended in 2021.
    pub fn expired_server(&self, names: &[&str]) -> ServerIdentity {
        self.issue(names, true)
    }

    fn issue(&self, names: &[&str], expired: bool) -> ServerIdentity {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).expect("server params");
        params
            .distinguished_name
            .push(DnType::CommonName, "gw-mock");
        if expired {
            params.not_before = rcgen::date_time_ymd(2020, 1, 1);
            params.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().expect("server key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("server certificate");
        ServerIdentity {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }
}

/// The rustls server side for an identity.
pub(crate) fn acceptor(identity: &ServerIdentity) -> TlsAcceptor {
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(identity.cert_pem.as_bytes())
            .collect::<Result<_, _>>()
            .expect("server certificate PEM");
    let key = PrivateKeyDer::from_pem_slice(identity.key_pem.as_bytes()).expect("server key PEM");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server certificate and key match");
    TlsAcceptor::from(Arc::new(config))
}

/// A listener whose connections are TLS. A handshake that fails (a client
/// that refuses the certificate, as the tests want) is dropped and the next
/// connection accepted. (Raw faults do not apply: they would need the plain bytes.)
pub(crate) struct TlsListener {
    pub tcp: RawAwareListener,
    pub acceptor: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let (tcp, addr) = axum::serve::Listener::accept(&mut self.tcp).await;
            let handshake = self.acceptor.accept(tcp);
            if let Ok(Ok(tls)) = tokio::time::timeout(Duration::from_secs(5), handshake).await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        axum::serve::Listener::local_addr(&self.tcp)
    }
}
