//! Transports: what carries an algorithm's messages over the simulated link.
//!
//! The run option `--transport` picks one for all of an algorithm's traffic:
//!
//! - `unreliable` — each message is one datagram on the raw link;
//! - `redundant[:N]` — each datagram also carries the messages the peer has
//!   not acknowledged yet, up to `N` (default 3); the receiver delivers each
//!   message once, as soon as any copy arrives (no ordering, no waiting):
//!   the standard fix for inputs over UDP;
//! - `tcp-like` — reliable and ordered: cumulative ACKs, fast retransmit on
//!   three duplicate ACKs, RTO from the smoothed RTT (RFC 6298, minimum
//!   200 ms as Linux has it) doubling on every timeout; the receiver holds
//!   later messages until a lost one is repaired (head-of-line blocking);
//! - `kcp[:key=value,…]` — the real KCP: the `kcp` crate (a port of ikcp)
//!   on virtual time, configured as games configure it (nodelay, 10 ms
//!   interval, fast resend 2, no congestion window; see `transport/kcp.rs`).
//!
//! Every datagram a transport sends — data, retransmissions, pure ACKs — goes
//! through the link and is counted in the bandwidth. Transport datagrams end
//! with a 4-byte check (FNV-1a 32) so a corrupted datagram is dropped rather
//! than delivered into a reliable stream, as UDP's checksum would; the check
//! is counted in the bandwidth too. Congestion control is not modelled (game
//! traffic is far below any congestion window); the difference the seeds
//! argue about is in loss recovery, which is.

mod kcp;
mod quic;
mod quic_crypto;
mod redundant;

pub use kcp::KcpSettings;
mod tcp;

use crate::time::Micros;
use std::fmt;

/// Which transport carries the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    /// The raw link.
    Unreliable,
    /// Unacknowledged messages repeated in every datagram, up to N.
    Redundant(u8),
    /// TCP-like reliable ordered stream.
    TcpLike,
    /// The real KCP (the `kcp` crate), reliable and ordered.
    Kcp(KcpSettings),
    /// QUIC (quinn-proto): one reliable ordered stream each way.
    Quic,
    /// QUIC (quinn-proto): RFC 9221 unreliable datagrams.
    QuicDatagram,
}

impl TransportKind {
    /// Parses `unreliable`, `redundant`, `redundant:N`, `tcp-like`, `kcp`,
    /// `kcp:key=value,…`.
    pub fn parse(s: &str) -> Result<TransportKind, String> {
        let (name, arg) = s.split_once(':').unwrap_or((s, ""));
        match (name, arg) {
            ("unreliable", "") => Ok(TransportKind::Unreliable),
            ("redundant", "") => Ok(TransportKind::Redundant(3)),
            ("redundant", n) => n
                .parse::<u8>()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .map(TransportKind::Redundant)
                .ok_or_else(|| format!("transport `{s}`: redundancy must be 1..=64")),
            ("tcp-like", "") => Ok(TransportKind::TcpLike),
            ("kcp", args) => KcpSettings::parse(args).map(TransportKind::Kcp),
            ("quic", "") => Ok(TransportKind::Quic),
            ("quic-datagram", "") => Ok(TransportKind::QuicDatagram),
            ("kcp-like", _) => Err(format!(
                "transport `{s}` is gone: it was a model of KCP; `kcp` now runs the real KCP (the kcp crate)"
            )),
            _ => Err(format!("unknown transport `{s}`: expected unreliable, redundant[:N], tcp-like, kcp[:key=value,…], quic or quic-datagram")),
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportKind::Unreliable => write!(f, "unreliable"),
            TransportKind::Redundant(n) => write!(f, "redundant:{n}"),
            TransportKind::TcpLike => write!(f, "tcp-like"),
            TransportKind::Kcp(k) if *k == KcpSettings::default() => write!(f, "kcp"),
            TransportKind::Kcp(k) => write!(f, "kcp:{k}"),
            TransportKind::Quic => write!(f, "quic"),
            TransportKind::QuicDatagram => write!(f, "quic-datagram"),
        }
    }
}

/// What an endpoint asks of the world after an event.
#[derive(Debug, Default)]
pub struct Output {
    /// Datagrams to put on the link, to the peer.
    pub send: Vec<Vec<u8>>,
    /// Messages to hand to the local node, in order.
    pub deliver: Vec<Vec<u8>>,
    /// Datagrams that were retransmissions (already in `send`).
    pub retransmitted: u64,
}

/// One side of a transport between two nodes (both directions of traffic).
#[derive(Debug)]
pub enum Endpoint {
    /// Redundant UDP (see `transport/redundant.rs`).
    Redundant(redundant::Redundant),
    /// TCP-like (see `transport/tcp.rs`).
    Tcp(tcp::Tcp),
    /// The real KCP (see `transport/kcp.rs`).
    Kcp(kcp::Kcp),
    /// QUIC through quinn-proto (see `transport/quic.rs`).
    Quic(Box<quic::Quic>),
}

impl Endpoint {
    /// A fresh endpoint of `kind` at node `local`, talking to node `peer`,
    /// created at `now` (`None` for the unreliable link, which needs no
    /// state).
    pub fn new(kind: TransportKind, local: usize, peer: usize, seed: u64, now: Micros) -> Option<Endpoint> {
        // Both ends of a pair name the same conversation.
        let conv = (local.min(peer) as u32).wrapping_mul(65_599) ^ local.max(peer) as u32;
        match kind {
            TransportKind::Unreliable => None,
            TransportKind::Redundant(n) => Some(Endpoint::Redundant(redundant::Redundant::new(n as usize))),
            TransportKind::TcpLike => Some(Endpoint::Tcp(tcp::Tcp::new())),
            TransportKind::Kcp(settings) => Some(Endpoint::Kcp(kcp::Kcp::new(settings, conv, now))),
            TransportKind::Quic => Some(Endpoint::Quic(Box::new(quic::Quic::new(false, local, peer, seed, now)))),
            TransportKind::QuicDatagram => {
                Some(Endpoint::Quic(Box::new(quic::Quic::new(true, local, peer, seed, now))))
            }
        }
    }

    /// The local node sends `msg` at `now`.
    pub fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        match self {
            Endpoint::Redundant(e) => e.send(now, msg, out),
            Endpoint::Tcp(e) => e.send(now, msg, out),
            Endpoint::Kcp(e) => e.send(now, msg, out),
            Endpoint::Quic(e) => e.send(now, msg, out),
        }
    }

    /// A datagram from the peer arrived at `now`.
    pub fn receive(&mut self, now: Micros, datagram: &[u8], out: &mut Output) {
        let Some(body) = unseal(datagram) else { return };
        match self {
            Endpoint::Redundant(e) => e.receive(now, body, out),
            Endpoint::Tcp(e) => e.receive(now, body, out),
            Endpoint::Kcp(e) => e.receive(now, body, out),
            Endpoint::Quic(e) => e.receive(now, body, out),
        }
    }

    /// The endpoint's timer fired at `now`.
    pub fn on_timer(&mut self, now: Micros, out: &mut Output) {
        match self {
            Endpoint::Redundant(_) => {}
            Endpoint::Tcp(e) => e.on_timer(now, out),
            Endpoint::Kcp(e) => e.on_timer(now, out),
            Endpoint::Quic(e) => e.on_timer(now, out),
        }
    }

    /// When the timer should fire next, if anything waits for it.
    pub fn next_timer(&self) -> Option<Micros> {
        match self {
            Endpoint::Redundant(_) => None,
            Endpoint::Tcp(e) => e.next_timer(),
            Endpoint::Kcp(e) => e.next_timer(),
            Endpoint::Quic(e) => e.next_timer(),
        }
    }
}

/// FNV-1a 32 of `bytes`.
fn check(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Appends the check to a datagram body.
pub(crate) fn seal(mut body: Vec<u8>) -> Vec<u8> {
    let c = check(&body);
    body.extend_from_slice(&c.to_le_bytes());
    body
}

/// The body of a datagram whose check holds.
fn unseal(d: &[u8]) -> Option<&[u8]> {
    let (body, c) = d.split_at(d.len().checked_sub(4)?);
    (check(body).to_le_bytes() == c).then_some(body)
}

/// A little-endian reader for transport headers.
pub(crate) struct Cursor<'a>(pub &'a [u8]);

impl Cursor<'_> {
    pub(crate) fn u8(&mut self) -> Option<u8> {
        let (b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*b)
    }
    pub(crate) fn u16(&mut self) -> Option<u16> {
        let v = u16::from_le_bytes(self.0.get(..2)?.try_into().ok()?);
        self.0 = &self.0[2..];
        Some(v)
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        let v = u32::from_le_bytes(self.0.get(..4)?.try_into().ok()?);
        self.0 = &self.0[4..];
        Some(v)
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Option<Vec<u8>> {
        let v = self.0.get(..n)?.to_vec();
        self.0 = &self.0[n..];
        Some(v)
    }
}

/// RFC 6298 round-trip estimation, shared by the reliable transports.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RttEstimator {
    srtt: Option<i64>,
    rttvar: i64,
    min_rto: i64,
    granularity: i64,
    initial: i64,
}

impl RttEstimator {
    pub(crate) fn new(min_rto_us: i64, granularity_us: i64, initial_rto_us: i64) -> RttEstimator {
        RttEstimator {
            srtt: None,
            rttvar: 0,
            min_rto: min_rto_us,
            granularity: granularity_us,
            initial: initial_rto_us,
        }
    }
    pub(crate) fn sample(&mut self, r: i64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                self.rttvar = (3 * self.rttvar + (s - r).abs()) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
    }
    /// The retransmission timeout (`initial` before any sample).
    pub(crate) fn rto(&self) -> i64 {
        match self.srtt {
            None => self.initial,
            Some(s) => (s + self.granularity.max(4 * self.rttvar)).clamp(self.min_rto, 60_000_000),
        }
    }
}

#[cfg(test)]
mod tests;
