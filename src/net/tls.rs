//! Which servers gw trusts over TLS.
//!
//! By default: the Mozilla roots built into gw (webpki). Corporate TLS
//! inspection, private gateways and MDM-managed roots need more, so:
//! - `ca_file` (a PEM file) and `ca_pem` (PEM text) add trust anchors to the
//!   built-in roots;
//! - with neither option, `SSL_CERT_FILE` (a PEM bundle) and `SSL_CERT_DIR`
//!   (directories of PEM files, `:`-separated) add theirs, as OpenSSL and curl
//!   read them;
//! - `"tls_verifier": "platform"` (cargo feature `platform-verifier`) hands
//!   the decision to the OS trust store through rustls-platform-verifier: what
//!   iOS, Android, macOS and Windows apps need.
//!
//! Everything is read and checked when the client is made (the environment's
//! files once per process while they stay the same: env_roots.rs): a missing file or
//! text without a certificate is an error naming the option, not a TLS
//! failure on every call.

use std::path::Path;

use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig, TlsConfigBuilder};

use crate::error::Error;
use crate::net::crypto_provider::crypto_provider;
use crate::net::Settings;

/// The TLS settings of a client's agent.
pub(crate) fn config(options: &impl Settings) -> Result<TlsConfig, Error> {
    match options.tls_verifier().unwrap_or("webpki") {
        "webpki" => {}
        "platform" => return platform(options),
        other => {
            return Err(Error::invalid_param(
                "tls_verifier",
                format!("tls_verifier: must be \"webpki\" or \"platform\" (got \"{other}\")"),
            ))
        }
    }
    if options.ca_file().is_none() && options.ca_pem().is_none() {
        return Ok(match super::env_roots::environment_roots()? {
            Some(roots) => builder().root_certs(roots).build(),
            None => builder().build(),
        });
    }
    let mut extra = Vec::new();
    if let Some(path) = options.ca_file() {
        extra.extend(read_pem_file(Path::new(path), "ca_file")?);
    }
    if let Some(pem) = options.ca_pem() {
        extra.extend(certificates(pem.as_bytes(), "ca_pem")?);
    }
    Ok(builder().root_certs(with_built_in(extra)).build())
}

/// The built-in roots (as ureq takes roots: certificates), then `extra`.
pub(super) fn with_built_in(extra: Vec<Certificate<'static>>) -> RootCerts {
    let mut roots: Vec<Certificate<'static>> = webpki_roots::TLS_SERVER_ROOTS
        .iter()
        .map(|anchor| Certificate::from_der(&anchor_certificate(anchor)).to_owned())
        .collect();
    roots.extend(extra);
    RootCerts::from(roots)
}

/// Every TLS config gw makes starts here, so each uses gw's crypto provider
/// (src/net/crypto_provider.rs), never ureq's fallback to ring's full one.
fn builder() -> TlsConfigBuilder {
    TlsConfig::builder().unversioned_rustls_crypto_provider(crypto_provider())
}

#[cfg(feature = "platform-verifier")]
fn platform(options: &impl Settings) -> Result<TlsConfig, Error> {
    refuse_anchors_with_platform(options)?;
    // On Android the verifier panics at the first handshake until it has the app's Context.
    #[cfg(target_os = "android")]
    if !crate::android::verifier_ready() {
        return Err(Error::invalid_param(
            "tls_verifier",
            "tls_verifier: \"platform\" on Android needs GwAndroid.init(context) first \
             (once, e.g. in Application.onCreate)",
        ));
    }
    Ok(builder().root_certs(RootCerts::PlatformVerifier).build())
}

#[cfg(not(feature = "platform-verifier"))]
fn platform(options: &impl Settings) -> Result<TlsConfig, Error> {
    refuse_anchors_with_platform(options)?;
    Err(Error::invalid_param(
        "tls_verifier",
        "tls_verifier: \"platform\" needs gw built with the cargo feature platform-verifier",
    ))
}

fn refuse_anchors_with_platform(options: &impl Settings) -> Result<(), Error> {
    if options.ca_file().is_some() || options.ca_pem().is_some() {
        return Err(Error::invalid_param(
            "tls_verifier",
            "tls_verifier: \"platform\" uses the OS trust store; add the CA there instead of \
             ca_file / ca_pem",
        ));
    }
    Ok(())
}

pub(super) fn read_pem_file(path: &Path, what: &str) -> Result<Vec<Certificate<'static>>, Error> {
    let bytes = std::fs::read(path).map_err(|e| {
        Error::invalid_param(
            what,
            format!("{what}: cannot read '{}': {e}", path.display()),
        )
    })?;
    certificates(&bytes, what)
}

/// The certificates in PEM text, each checked to be a usable trust anchor.
pub(super) fn certificates(pem: &[u8], what: &str) -> Result<Vec<Certificate<'static>>, Error> {
    let bad = |why: String| Error::invalid_param(what, format!("{what}: {why}"));
    let mut out = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        match item {
            Ok(PemItem::Certificate(cert)) => {
                let n = out.len() + 1;
                RootCertStore::empty()
                    .add(CertificateDer::from(cert.der().to_vec()))
                    .map_err(|e| {
                        bad(format!(
                            "certificate {n} is not a usable CA certificate ({e})"
                        ))
                    })?;
                out.push(cert.to_owned());
            }
            Ok(_) => {} // keys and other blocks are not trust anchors
            Err(e) => return Err(bad(format!("is not valid PEM ({e})"))),
        }
    }
    if out.is_empty() {
        return Err(bad(
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    Ok(out)
}

/// A certificate that rustls reads back as exactly `anchor` (subject, public key and name
/// constraints): the built-in roots are trust anchors (webpki-roots, what ureq trusts by
/// default), and ureq takes added roots only as one list of certificates. rustls takes a trust
/// anchor's certificate on trust and reads only those three fields from it (RFC 5280 6.2), so
/// the issuer repeats the subject, the validity and the signature are empty and the algorithm
/// (ecdsa-with-SHA256) is a placeholder.
fn anchor_certificate(anchor: &rustls::pki_types::TrustAnchor<'_>) -> Vec<u8> {
    const SEQUENCE: u8 = 0x30;
    let subject = der(SEQUENCE, &anchor.subject);
    let algorithm = der(
        SEQUENCE,
        &der(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]),
    );
    let mut tbs = der(0xa0, &der(0x02, &[2])); // version: v3
    tbs.extend(der(0x02, &[1])); // serial number
    tbs.extend(&algorithm);
    tbs.extend(&subject); // issuer
    tbs.extend(der(SEQUENCE, &[])); // validity
    tbs.extend(&subject);
    tbs.extend(der(SEQUENCE, &anchor.subject_public_key_info));
    if let Some(constraints) = &anchor.name_constraints {
        // extensions: nameConstraints (2.5.29.30)
        let mut extension = der(0x06, &[0x55, 0x1d, 0x1e]);
        extension.extend(der(0x04, &der(SEQUENCE, constraints)));
        tbs.extend(der(0xa3, &der(SEQUENCE, &der(SEQUENCE, &extension))));
    }
    let mut certificate = der(SEQUENCE, &tbs);
    certificate.extend(&algorithm);
    certificate.extend(der(0x03, &[0])); // signature: an empty BIT STRING
    der(SEQUENCE, &certificate)
}

/// One DER element: tag, length (short or long form), contents.
fn der(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = contents.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend(&bytes[skip..]);
    }
    out.extend(contents);
    out
}

/// A TLS failure in words that say what to do about it.
pub(crate) fn describe(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let hint = match e {
        rustls::Error::InvalidCertificate(C::UnknownIssuer) => {
            ": the server's certificate is not signed by a trusted CA (add yours with ca_file / \
             ca_pem or SSL_CERT_FILE, or use tls_verifier \"platform\")"
        }
        rustls::Error::InvalidCertificate(C::NotValidForName)
        | rustls::Error::InvalidCertificate(C::NotValidForNameContext { .. }) => {
            ": the server's certificate is for another host name"
        }
        rustls::Error::InvalidCertificate(C::Expired)
        | rustls::Error::InvalidCertificate(C::ExpiredContext { .. }) => {
            ": the server's certificate has expired"
        }
        _ => "",
    };
    format!("TLS: {e}{hint}")
}

/// A CA certificate of the unit tests (tls.rs, env_roots.rs).
#[cfg(test)]
pub(super) const TEST_CA: &str = "-----BEGIN CERTIFICATE-----\n\
        MIIBizCCATGgAwIBAgIUJFRBw5oIKHWvQZVCgYCMOBQOfs8wCgYIKoZIzj0EAwIw\n\
        GjEYMBYGA1UEAwwPZ3cgdW5pdCB0ZXN0IENBMCAXDTI2MTEyNjEwMDgyMVoYDzIx\n\
        MjYxMTAyMTAwODIxWjAaMRgwFgYDVQQDDA9ndyB1bml0IHRlc3QgQ0EwWTATBgcq\n\
        hkjOPQIBBggqhkjOPQMBBwNCAAT3xyMXwyqhfMlUJwdgavfKwafQmP/XKpUgCa8a\n\
        duOy+iNEFhqT0RfJbGCgNDY52TytNfIdmvHPy9Dk8Xf14VXRo1MwUTAdBgNVHQ4E\n\
        FgQUp7tMyMK9dll9m8Daez9ynw7vQG0wHwYDVR0jBBgwFoAUp7tMyMK9dll9m8Da\n\
        ez9ynw7vQG0wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiB3IDeV\n\
        hwzoAWrs60U6WCjW8xDFkfYawYabRIHap3w3awIhAJ2dUvow5d0zKJJnGWVKG3Bx\n\
        WPh7TERJO/c4BzOlyfO5\n\
        -----END CERTIFICATE-----\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::options::Options;

    #[test]
    fn pem_without_a_certificate_is_named() {
        let e = certificates(b"hello", "ca_pem").unwrap_err();
        assert!(e.to_string().contains("ca_pem"), "{e}");
        assert!(e.to_string().contains("no PEM certificate"), "{e}");
        let bogus = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let e = certificates(bogus, "ca_pem").unwrap_err();
        assert!(e.to_string().contains("certificate 1"), "{e}");
        let e = read_pem_file(Path::new("/nonexistent/ca.pem"), "ca_file").unwrap_err();
        assert!(e.to_string().contains("/nonexistent/ca.pem"), "{e}");
    }

    #[test]
    fn added_roots_keep_every_built_in_anchor_as_it_is() {
        // What rustls reads back from the rebuilt certificates is webpki-roots' anchors
        // byte for byte, name constraints included (TUBITAK's is limited to .tr).
        let mut store = RootCertStore::empty();
        for anchor in webpki_roots::TLS_SERVER_ROOTS {
            store
                .add(CertificateDer::from(anchor_certificate(anchor)))
                .unwrap_or_else(|e| panic!("{:?}: {e}", anchor.subject));
        }
        assert_eq!(store.roots, webpki_roots::TLS_SERVER_ROOTS);
        assert!(store.roots.iter().any(|a| a.name_constraints.is_some()));

        // And config() hands ureq all of them, then the added CA.
        const CA: &str = TEST_CA;
        let o = Options {
            ca_pem: Some(CA.into()),
            ..Options::default()
        };
        let RootCerts::Specific(certs) = config(&o).unwrap().root_certs().clone() else {
            panic!("ca_pem: not a list of roots");
        };
        let n = webpki_roots::TLS_SERVER_ROOTS.len();
        assert_eq!(certs.len(), n + 1);
        let mut store = RootCertStore::empty();
        store.add_parsable_certificates(certs.iter().map(|c| CertificateDer::from(c.der())));
        assert_eq!(store.roots[..n], webpki_roots::TLS_SERVER_ROOTS[..]);
        assert_eq!(
            certs[n].der(),
            certificates(CA.as_bytes(), "ca_pem").unwrap()[0].der()
        );
    }

    #[test]
    fn unknown_verifiers_are_refused() {
        let o = Options {
            tls_verifier: Some("openssl".into()),
            ..Options::default()
        };
        assert!(config(&o).unwrap_err().to_string().contains("tls_verifier"));
        let o = Options {
            tls_verifier: Some("platform".into()),
            ca_pem: Some("x".into()),
            ..Options::default()
        };
        assert!(config(&o)
            .unwrap_err()
            .to_string()
            .contains("OS trust store"));
    }
}
