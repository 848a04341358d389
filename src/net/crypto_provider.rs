//! The TLS algorithms gw offers: everything rustls' *ring* provider has (cipher suites, key
//! exchange groups, certificate signature checks) except its key provider.
//!
//! gw never presents a client certificate, so ring's private-key parsing and signing (RSA,
//! ECDSA and Ed25519 keys, PKCS#8) are dead weight: about 40 KB of libgw.so (issue 26). They
//! stay out only if nothing names them, and `rustls::crypto::ring::default_provider()` does
//! (its key provider is ring's), as does ureq's fallback to it, so: ureq is built with
//! `rustls-no-provider`, and this file builds the provider from its parts. rustls keeps its
//! table of signature checks private, so the copy below follows rustls 0.23's; a test holds
//! the two equal.

use std::sync::{Arc, OnceLock};

use rustls::crypto::{
    ring as ring_provider, CryptoProvider, GetRandomFailed, KeyProvider, SecureRandom,
    WebPkiSupportedAlgorithms,
};
use rustls::pki_types::PrivateKeyDer;
use rustls::sign::SigningKey;
use rustls::SignatureScheme;
use webpki::ring as algs;

/// The provider every client's TLS config uses: the process default when a Rust program
/// linking gw installed one (`CryptoProvider::install_default`, say for aws-lc-rs), as ureq
/// would pick it; gw's own otherwise.
pub(crate) fn crypto_provider() -> Arc<CryptoProvider> {
    match CryptoProvider::get_default() {
        Some(installed) => installed.clone(),
        None => own_provider(),
    }
}

/// ring's algorithms without ring's key provider.
fn own_provider() -> Arc<CryptoProvider> {
    static PROVIDER: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    PROVIDER
        .get_or_init(|| {
            Arc::new(CryptoProvider {
                cipher_suites: ring_provider::DEFAULT_CIPHER_SUITES.to_vec(),
                kx_groups: ring_provider::DEFAULT_KX_GROUPS.to_vec(),
                signature_verification_algorithms: SIGNATURE_CHECKS,
                secure_random: &SystemRandom,
                key_provider: &NoClientKeys,
            })
        })
        .clone()
}

/// Random bytes from the OS, as ring's provider draws them.
#[derive(Debug)]
struct SystemRandom;

impl SecureRandom for SystemRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        use ring::rand::SecureRandom as _;
        ring::rand::SystemRandom::new()
            .fill(buf)
            .map_err(|_| GetRandomFailed)
    }
}

/// Refuses every private key: gw has no client-certificate option that would load one.
#[derive(Debug)]
struct NoClientKeys;

impl KeyProvider for NoClientKeys {
    fn load_private_key(
        &self,
        _key: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, rustls::Error> {
        Err(rustls::Error::General(
            "gw presents no client certificate".into(),
        ))
    }
}

/// rustls 0.23's `SUPPORTED_SIG_ALGS` for *ring*: what a server's certificate chain and
/// handshake signature may use, in rustls' order of preference.
static SIGNATURE_CHECKS: WebPkiSupportedAlgorithms = WebPkiSupportedAlgorithms {
    all: &[
        algs::ECDSA_P256_SHA256,
        algs::ECDSA_P256_SHA384,
        algs::ECDSA_P384_SHA256,
        algs::ECDSA_P384_SHA384,
        algs::ED25519,
        algs::RSA_PSS_2048_8192_SHA256_LEGACY_KEY,
        algs::RSA_PSS_2048_8192_SHA384_LEGACY_KEY,
        algs::RSA_PSS_2048_8192_SHA512_LEGACY_KEY,
        algs::RSA_PKCS1_2048_8192_SHA256,
        algs::RSA_PKCS1_2048_8192_SHA384,
        algs::RSA_PKCS1_2048_8192_SHA512,
        algs::RSA_PKCS1_2048_8192_SHA256_ABSENT_PARAMS,
        algs::RSA_PKCS1_2048_8192_SHA384_ABSENT_PARAMS,
        algs::RSA_PKCS1_2048_8192_SHA512_ABSENT_PARAMS,
    ],
    mapping: &[
        (
            SignatureScheme::ECDSA_NISTP384_SHA384,
            &[algs::ECDSA_P384_SHA384, algs::ECDSA_P256_SHA384],
        ),
        (
            SignatureScheme::ECDSA_NISTP256_SHA256,
            &[algs::ECDSA_P256_SHA256, algs::ECDSA_P384_SHA256],
        ),
        (SignatureScheme::ED25519, &[algs::ED25519]),
        (
            SignatureScheme::RSA_PSS_SHA512,
            &[algs::RSA_PSS_2048_8192_SHA512_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PSS_SHA384,
            &[algs::RSA_PSS_2048_8192_SHA384_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PSS_SHA256,
            &[algs::RSA_PSS_2048_8192_SHA256_LEGACY_KEY],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA512,
            &[algs::RSA_PKCS1_2048_8192_SHA512],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA384,
            &[algs::RSA_PKCS1_2048_8192_SHA384],
        ),
        (
            SignatureScheme::RSA_PKCS1_SHA256,
            &[algs::RSA_PKCS1_2048_8192_SHA256],
        ),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::SignatureVerificationAlgorithm;

    /// What identifies a signature check: the key and signature algorithm ids it accepts.
    fn ids(list: &[&dyn SignatureVerificationAlgorithm]) -> Vec<(Vec<u8>, Vec<u8>)> {
        list.iter()
            .map(|a| {
                (
                    a.public_key_alg_id().as_ref().to_vec(),
                    a.signature_alg_id().as_ref().to_vec(),
                )
            })
            .collect()
    }

    #[test]
    fn offers_what_rustls_ring_provider_offers() {
        let ours = own_provider();
        let ring = ring_provider::default_provider();
        let names = |p: &CryptoProvider| {
            (
                p.cipher_suites
                    .iter()
                    .map(|s| s.suite())
                    .collect::<Vec<_>>(),
                p.kx_groups.iter().map(|g| g.name()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(names(&ours), names(&ring));
        let (a, b) = (
            ours.signature_verification_algorithms,
            ring.signature_verification_algorithms,
        );
        assert_eq!(ids(a.all), ids(b.all));
        assert_eq!(a.mapping.len(), b.mapping.len());
        for ((scheme_a, list_a), (scheme_b, list_b)) in a.mapping.iter().zip(b.mapping) {
            assert_eq!(scheme_a, scheme_b);
            assert_eq!(ids(list_a), ids(list_b), "{scheme_a:?}");
        }
    }

    // A process-default provider winning: tests/tls_process_provider.rs, in a process of its
    // own (installing one here would change the provider of every later unit test).

    #[test]
    fn refuses_private_keys_and_draws_random_bytes() {
        let p = own_provider();
        let key = PrivateKeyDer::Pkcs8(vec![0u8; 16].into());
        assert!(p.key_provider.load_private_key(key).is_err());
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        p.secure_random.fill(&mut a).unwrap();
        p.secure_random.fill(&mut b).unwrap();
        assert_ne!(a, b);
    }
}
