//! Transports: what carries an algorithm's messages over the simulated link.
//!
//! The run option `--transport` picks one for all of an algorithm's traffic:
//!
//! - `unreliable` — each message is one datagram on the raw link;
//! - `redundant[:N]` — each datagram also carries the messages the peer has
//!   not acknowledged yet, up to `N` (default 3); the receiver delivers each
//!   message once, as soon as any copy arrives (no ordering, no waiting):
//!   the standard fix for inputs over UDP;
//! - `tcp-like[:nodelay=0]` — a model of Linux TCP, validated against the
//!   kernel (`reports/transport-validation.md`): a byte stream with
//!   head-of-line blocking, SACK + RACK loss detection, Linux's RTO, CUBIC,
//!   quick ACKs, `TCP_NODELAY` by default (Nagle with `nodelay=0`), headers
//!   as on the wire (see `transport/tcp.rs`);
//! - `kcp[:key=value,…]` — the real KCP: the `kcp` crate (a port of ikcp)
//!   on virtual time, configured as games configure it (nodelay, 10 ms
//!   interval, fast resend 2, no congestion window; see `transport/kcp.rs`);
//! - `quic`, `quic-datagram` — real QUIC: `quinn-proto` with a TLS 1.3
//!   handshake on virtual time, one ordered stream each way or RFC 9221
//!   datagrams (see `transport/quic.rs`);
//! - `renet:reliable-ordered`, `renet:reliable-unordered`,
//!   `renet:unreliable` — the real renet on virtual time, one of its
//!   channels, driven once a frame as games drive it (see
//!   `transport/renet.rs`).
//!
//! Every datagram a transport sends — handshakes, data, retransmissions,
//! pure ACKs — goes through the link and is counted in the bandwidth (plus
//! the simulator's 28-byte IP/UDP allowance per datagram). Transport
//! datagrams end with a 4-byte check (FNV-1a 32) so a corrupted datagram is
//! dropped rather than delivered into a reliable stream, as UDP's checksum
//! would; the check is counted too. The first message between two nodes
//! opens both ends of their connection; a transport with a handshake (QUIC)
//! starts it then.

mod kcp;
mod quic;
mod quic_crypto;
mod redundant;
mod renet;
pub mod stream_probe;

pub use kcp::KcpSettings;
pub use renet::{RenetChannel, RenetSettings};
pub use tcp::{
    beyond_validation as tcp_beyond_validation, TcpSettings, VALIDATED_LOSS_PERCENT as TCP_VALIDATED_LOSS_PERCENT,
};
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
    /// The model of Linux TCP: a reliable ordered stream.
    TcpLike(TcpSettings),
    /// The real KCP (the `kcp` crate), reliable and ordered.
    Kcp(KcpSettings),
    /// QUIC (quinn-proto): one reliable ordered stream each way.
    Quic,
    /// QUIC (quinn-proto): RFC 9221 unreliable datagrams.
    QuicDatagram,
    /// The real renet: one of its channels.
    Renet(RenetSettings),
}

/// Splits a comma-separated list of transports, keeping each one's own
/// `key=value` settings with it: in `kcp:resend=2,interval=10,unreliable`
/// the piece `interval=10` belongs to `kcp:resend=2`, because a piece with
/// `=` and no `:` is a setting, never a transport's name.
pub fn split_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for piece in list.split(',').map(str::trim) {
        match out.last_mut() {
            Some(last) if piece.contains('=') && !piece.contains(':') => {
                last.push(',');
                last.push_str(piece);
            }
            _ => out.push(piece.to_string()),
        }
    }
    out
}

impl TransportKind {
    /// Parses `unreliable`, `redundant`, `redundant:N`, `tcp-like`, `kcp`,
    /// `kcp:key=value,…`, `quic`, `quic-datagram`, `renet:CHANNEL[,…]`.
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
            ("tcp-like", args) => TcpSettings::parse(args).map(TransportKind::TcpLike),
            ("kcp", args) => KcpSettings::parse(args).map(TransportKind::Kcp),
            ("quic", "") => Ok(TransportKind::Quic),
            ("quic-datagram", "") => Ok(TransportKind::QuicDatagram),
            ("renet", args) => RenetSettings::parse(args).map(TransportKind::Renet),
            ("kcp-like", _) => Err(format!(
                "transport `{s}` is gone: it was a model of KCP; `kcp` now runs the real KCP (the kcp crate)"
            )),
            _ => Err(format!("unknown transport `{s}`: expected unreliable, redundant[:N], tcp-like, kcp[:key=value,…], quic, quic-datagram or renet:CHANNEL")),
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportKind::Unreliable => write!(f, "unreliable"),
            TransportKind::Redundant(n) => write!(f, "redundant:{n}"),
            TransportKind::TcpLike(t) if *t == TcpSettings::default() => write!(f, "tcp-like"),
            TransportKind::TcpLike(t) => write!(f, "tcp-like:{t}"),
            TransportKind::Kcp(k) if *k == KcpSettings::default() => write!(f, "kcp"),
            TransportKind::Kcp(k) => write!(f, "kcp:{k}"),
            TransportKind::Quic => write!(f, "quic"),
            TransportKind::QuicDatagram => write!(f, "quic-datagram"),
            TransportKind::Renet(r) => write!(f, "renet:{r}"),
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
    /// Retransmission timeouts that fired (TCP).
    pub timeouts: u64,
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
    /// The real renet (see `transport/renet.rs`).
    Renet(Box<renet::Renet>),
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
            TransportKind::TcpLike(settings) => Some(Endpoint::Tcp(tcp::Tcp::new(settings))),
            TransportKind::Kcp(settings) => Some(Endpoint::Kcp(kcp::Kcp::new(settings, conv, now))),
            TransportKind::Quic => Some(Endpoint::Quic(Box::new(quic::Quic::new(false, local, peer, seed, now)))),
            TransportKind::QuicDatagram => {
                Some(Endpoint::Quic(Box::new(quic::Quic::new(true, local, peer, seed, now))))
            }
            TransportKind::Renet(settings) => Some(Endpoint::Renet(Box::new(renet::Renet::new(settings, now)))),
        }
    }

    /// Opens the connection between `at` and `peer` in `endpoints` if it is
    /// not open yet — both ends at once, as a connection has two; returns
    /// whether it did (the caller then arms the peer's timer, which starts
    /// a handshake if the transport has one). Nothing for `Unreliable`.
    pub fn open_pair(
        endpoints: &mut std::collections::BTreeMap<(usize, usize), Endpoint>,
        kind: TransportKind,
        seed: u64,
        at: usize,
        peer: usize,
        now: Micros,
    ) -> bool {
        if endpoints.contains_key(&(at, peer)) {
            return false;
        }
        for (a, b) in [(at, peer), (peer, at)] {
            if let Some(e) = Endpoint::new(kind, a, b, seed, now) {
                endpoints.insert((a, b), e);
            }
        }
        endpoints.contains_key(&(at, peer))
    }

    /// The local node sends `msg` at `now`.
    pub fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        match self {
            Endpoint::Redundant(e) => e.send(now, msg, out),
            Endpoint::Tcp(e) => e.send(now, msg, out),
            Endpoint::Kcp(e) => e.send(now, msg, out),
            Endpoint::Quic(e) => e.send(now, msg, out),
            Endpoint::Renet(e) => e.send(now, msg, out),
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
            Endpoint::Renet(e) => e.receive(now, body, out),
        }
    }

    /// The endpoint's timer fired at `now`.
    pub fn on_timer(&mut self, now: Micros, out: &mut Output) {
        match self {
            Endpoint::Redundant(_) => {}
            Endpoint::Tcp(e) => e.on_timer(now, out),
            Endpoint::Kcp(e) => e.on_timer(now, out),
            Endpoint::Quic(e) => e.on_timer(now, out),
            Endpoint::Renet(e) => e.on_timer(now, out),
        }
    }

    /// Whether the transport abandoned its connection (QUIC after its
    /// idle timeout, renet when a reliable channel overflows: the TCP
    /// model and KCP retransmit for ever).
    pub fn gave_up(&self) -> bool {
        match self {
            Endpoint::Quic(e) => e.gave_up(),
            Endpoint::Renet(e) => e.gave_up(),
            _ => false,
        }
    }

    /// When the timer should fire next, if anything waits for it.
    pub fn next_timer(&self) -> Option<Micros> {
        match self {
            Endpoint::Redundant(_) => None,
            Endpoint::Tcp(e) => e.next_timer(),
            Endpoint::Kcp(e) => e.next_timer(),
            Endpoint::Quic(e) => e.next_timer(),
            Endpoint::Renet(e) => e.next_timer(),
        }
    }
}

/// Appends `msg` to a byte stream, its length in front (LEB128): the
/// application's framing on the stream transports.
pub(crate) fn frame(stream: &mut std::collections::VecDeque<u8>, msg: &[u8]) {
    let mut len = msg.len();
    loop {
        let byte = (len & 0x7f) as u8;
        len >>= 7;
        stream.push_back(if len > 0 { byte | 0x80 } else { byte });
        if len == 0 {
            break;
        }
    }
    stream.extend(msg);
}

/// Moves every complete length-prefixed message out of `buf` into `out`.
/// A length over `max`, or a prefix longer than a `u32`'s — framing no
/// honest peer writes — drops the stream's bytes.
pub(crate) fn deframe(buf: &mut Vec<u8>, max: usize, out: &mut Vec<Vec<u8>>) {
    let mut at = 0;
    loop {
        let (mut len, mut shift, mut i) = (0usize, 0u32, at);
        let header = loop {
            let Some(&b) = buf.get(i) else { break None };
            i += 1;
            len |= ((b & 0x7f) as usize) << shift;
            if b & 0x80 == 0 {
                break Some(i);
            }
            shift += 7;
            if shift > 28 {
                buf.clear();
                return;
            }
        };
        let Some(start) = header else { break };
        if len > max {
            buf.clear();
            return;
        }
        let Some(msg) = buf.get(start..start + len) else { break };
        out.push(msg.to_vec());
        at = start + len;
    }
    buf.drain(..at);
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

#[cfg(test)]
mod tests;
