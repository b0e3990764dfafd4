//! The simulated QUIC handshake's cryptography, made deterministic.
//!
//! QUIC runs TLS 1.3 (rustls, with ring's ciphers, hashes and signatures);
//! everything it would draw from the operating system is drawn instead from
//! the endpoint's own seeded stream:
//!
//! - rustls's `SecureRandom` (client and server randoms, session tickets)
//!   and the X25519 key share (x25519-dalek from seeded bytes: ring's own
//!   key exchange reads the OS) come from a thread-local stream that each
//!   endpoint installs around every call into the stack ([`with_rng`]);
//!   outside such a call they refuse, so nothing unseeded slips through;
//! - the server's certificate is a fixed Ed25519 certificate
//!   (`quic_cert/`; Ed25519 signatures are deterministic and of fixed
//!   length), checked by the client byte for byte, handshake signatures
//!   verified for real;
//! - rustls's clock is a fixed instant (nothing it decides depends on it
//!   here: the certificate is pinned, the client never resumes, so the
//!   server's session tickets are bytes on the wire and nothing more).
//!
//! The key is public and the certificate self-signed: this protects a
//! simulation, not a network.

use crate::rng::Stream;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{
    ActiveKeyExchange, CryptoProvider, GetRandomFailed, SecureRandom, SharedSecret, SupportedKxGroup,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, NamedGroup, SignatureScheme};
use std::cell::RefCell;
use std::sync::Arc;

/// The server's certificate (Ed25519, self-signed, `syncbench.invalid`).
const CERT: &[u8] = include_bytes!("quic_cert/cert.der");
/// Its private key (PKCS#8).
const KEY: &[u8] = include_bytes!("quic_cert/key.der");
/// The name the client asks for.
pub(crate) const SERVER_NAME: &str = "syncbench.invalid";

thread_local! {
    static RNG: RefCell<Option<Stream>> = const { RefCell::new(None) };
}

/// Runs `f` with `rng` as the source of every random byte the TLS stack
/// asks for on this thread, then hands the stream back.
pub(crate) fn with_rng<R>(rng: &mut Stream, f: impl FnOnce() -> R) -> R {
    let placeholder = Stream::new(0, crate::rng::Purpose::Transport, u64::MAX);
    let mine = std::mem::replace(rng, placeholder);
    let previous = RNG.with(|r| r.borrow_mut().replace(mine));
    let out = f();
    let mine = RNG.with(|r| std::mem::replace(&mut *r.borrow_mut(), previous));
    *rng = mine.expect("installed above");
    out
}

fn fill(buf: &mut [u8]) -> Result<(), GetRandomFailed> {
    RNG.with(|r| match r.borrow_mut().as_mut() {
        Some(s) => {
            s.fill(buf);
            Ok(())
        }
        None => Err(GetRandomFailed),
    })
}

#[derive(Debug)]
struct SeededRandom;

impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        fill(buf)
    }
}

#[derive(Debug)]
struct SeededX25519;

struct X25519Share {
    secret: x25519_dalek::StaticSecret,
    public: [u8; 32],
}

impl SupportedKxGroup for SeededX25519 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let mut bytes = [0u8; 32];
        fill(&mut bytes).map_err(|_| rustls::Error::FailedToGetRandomBytes)?;
        let secret = x25519_dalek::StaticSecret::from(bytes);
        let public = x25519_dalek::PublicKey::from(&secret).to_bytes();
        Ok(Box::new(X25519Share { secret, public }))
    }
    fn name(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

impl ActiveKeyExchange for X25519Share {
    fn complete(self: Box<Self>, peer: &[u8]) -> Result<SharedSecret, rustls::Error> {
        let peer: [u8; 32] =
            peer.try_into().map_err(|_| rustls::Error::from(rustls::PeerMisbehaved::InvalidKeyShare))?;
        let shared = self.secret.diffie_hellman(&x25519_dalek::PublicKey::from(peer));
        if !shared.was_contributory() {
            return Err(rustls::PeerMisbehaved::InvalidKeyShare.into());
        }
        Ok(SharedSecret::from(&shared.as_bytes()[..]))
    }
    fn pub_key(&self) -> &[u8] {
        &self.public
    }
    fn group(&self) -> NamedGroup {
        NamedGroup::X25519
    }
}

#[derive(Debug)]
struct FixedTime;

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        // 2026-01-01T00:00:00Z.
        Some(UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_767_225_600)))
    }
}

/// ring's TLS 1.3 suites and signatures with the seeded randomness and key
/// share.
fn provider() -> Arc<CryptoProvider> {
    static SEEDED_RANDOM: SeededRandom = SeededRandom;
    static SEEDED_X25519: SeededX25519 = SeededX25519;
    let ring = rustls::crypto::ring::default_provider();
    Arc::new(CryptoProvider { kx_groups: vec![&SEEDED_X25519], secure_random: &SEEDED_RANDOM, ..ring })
}

/// The client accepts exactly the pinned certificate and verifies the
/// handshake's signatures with it.
#[derive(Debug)]
struct PinnedCert(Arc<CryptoProvider>);

impl ServerCertVerifier for PinnedCert {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == CERT {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer))
        }
    }
    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::PeerIncompatible(rustls::PeerIncompatible::Tls12NotOffered))
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// QUIC's application protocol name for the handshake.
const ALPN: &[u8] = b"syncbench";

/// The rustls client configuration for QUIC.
pub(crate) fn client_config() -> Result<quinn_proto::crypto::rustls::QuicClientConfig, String> {
    let p = provider();
    let mut c = rustls::ClientConfig::builder_with_details(p.clone(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(PinnedCert(p)))
        .with_no_client_auth();
    c.alpn_protocols = vec![ALPN.to_vec()];
    c.resumption = rustls::client::Resumption::disabled();
    c.try_into().map_err(|e: quinn_proto::crypto::rustls::NoInitialCipherSuite| e.to_string())
}

/// The rustls server configuration for QUIC.
pub(crate) fn server_config() -> Result<quinn_proto::crypto::rustls::QuicServerConfig, String> {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec()));
    let mut c = rustls::ServerConfig::builder_with_details(provider(), Arc::new(FixedTime))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(CERT.to_vec())], key)
        .map_err(|e| e.to_string())?;
    c.alpn_protocols = vec![ALPN.to_vec()];
    c.try_into().map_err(|e: quinn_proto::crypto::rustls::NoInitialCipherSuite| e.to_string())
}
