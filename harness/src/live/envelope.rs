//! The live wire under the algorithms: every datagram a node sends is
//! wrapped in an envelope that names sender and receiver, proves it belongs
//! to this session, and numbers it; every datagram a node receives passes
//! a [`Gate`] that drops — and counts — whatever is not a fresh envelope
//! from a known address.
//!
//! Envelope: `"SB", version 1, from: u16, to: u16, token: u64, seq: u32`
//! (19 bytes, little-endian), then the algorithm's bytes. `token` is the
//! sender's per-session token (handed out at setup, as a connect handshake
//! would); `seq` counts the sender's datagrams to that receiver from 1.
//!
//! The gate's checks, in order — the first that fails names the drop:
//! 1. **unknown address**: the source is not one of the addresses the node
//!    was told (the relay's socket for each peer);
//! 2. **oversized**: longer than [`MAX_DATAGRAM`];
//! 3. **truncated**: shorter than the envelope;
//! 4. **garbage**: wrong magic or version, a sender that does not match
//!    the address, a receiver other than this node, a wrong token;
//! 5. **replayed**: a sequence number already accepted, or older than the
//!    64-datagram window (DTLS's anti-replay window). A copy the network
//!    duplicated is a replay too: live nodes see each datagram once.
//!
//! The gate holds one window per known peer and nothing per stranger:
//! memory does not grow with what arrives.

use std::net::SocketAddr;

/// Envelope length, bytes.
pub const HEADER: usize = 19;
/// The largest datagram a node accepts, envelope included.
pub const MAX_DATAGRAM: usize = 48 * 1024;
const MAGIC: [u8; 2] = *b"SB";
const VERSION: u8 = 1;

/// An envelope's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// Sending node.
    pub from: u16,
    /// Receiving node.
    pub to: u16,
    /// The sender's session token.
    pub token: u64,
    /// The sender's datagram number to this receiver (from 1).
    pub seq: u32,
}

impl Envelope {
    /// The datagram: envelope, then `payload`.
    pub fn wrap(&self, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&MAGIC);
        out.push(VERSION);
        out.extend_from_slice(&self.from.to_le_bytes());
        out.extend_from_slice(&self.to.to_le_bytes());
        out.extend_from_slice(&self.token.to_le_bytes());
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(payload);
        out
    }

    /// Reads the envelope of `b` (`None` if it is not one).
    pub fn read(b: &[u8]) -> Option<Envelope> {
        if b.len() < HEADER || b[..2] != MAGIC || b[2] != VERSION {
            return None;
        }
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        Some(Envelope {
            from: u16_at(3),
            to: u16_at(5),
            token: u64::from_le_bytes(b[7..15].try_into().ok()?),
            seq: u32::from_le_bytes(b[15..19].try_into().ok()?),
        })
    }
}

/// Datagrams a gate dropped, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Drops {
    /// From an address the node was not told about.
    pub unknown_address: u64,
    /// Longer than [`MAX_DATAGRAM`].
    pub oversized: u64,
    /// Shorter than the envelope.
    pub truncated: u64,
    /// Not an envelope of this session for this node.
    pub garbage: u64,
    /// Already accepted, or too old to tell.
    pub replayed: u64,
}

impl Drops {
    /// All drops.
    pub fn total(&self) -> u64 {
        self.unknown_address + self.oversized + self.truncated + self.garbage + self.replayed
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &Drops) {
        self.unknown_address += o.unknown_address;
        self.oversized += o.oversized;
        self.truncated += o.truncated;
        self.garbage += o.garbage;
        self.replayed += o.replayed;
    }
}

/// A sliding anti-replay window: the highest sequence accepted and a bit
/// per each of the 63 before it.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    top: u32,
    seen: u64,
}

impl Window {
    /// Accepts `seq` once; refuses repeats and anything 64 or more behind.
    fn accept(&mut self, seq: u32) -> bool {
        if seq == 0 {
            return false;
        }
        if seq > self.top {
            let shift = seq - self.top;
            self.seen = if shift >= 64 { 0 } else { self.seen << shift };
            self.seen |= 1;
            self.top = seq;
            return true;
        }
        let back = self.top - seq;
        if back >= 64 || self.seen & (1 << back) != 0 {
            return false;
        }
        self.seen |= 1 << back;
        true
    }
}

/// One node's receive check.
#[derive(Clone, Debug)]
pub struct Gate {
    me: u16,
    /// Per peer node: the address its datagrams come from (its relay
    /// socket, or one external relay's for every peer) and its token.
    peers: Vec<Option<(SocketAddr, u64)>>,
    windows: Vec<Window>,
    /// What was dropped.
    pub drops: Drops,
}

impl Gate {
    /// The gate of node `me`, told each peer's address and token.
    pub fn new(me: u16, peers: Vec<Option<(SocketAddr, u64)>>) -> Gate {
        let n = peers.len();
        Gate { me, peers, windows: vec![Window::default(); n], drops: Drops::default() }
    }

    /// Checks a datagram of `len` bytes (`b` its first bytes, possibly cut
    /// to the receive buffer) from `src`; the sender and payload if it
    /// passes.
    pub fn admit<'a>(&mut self, src: SocketAddr, b: &'a [u8], len: usize) -> Option<(u16, &'a [u8])> {
        if !self.peers.iter().any(|p| p.is_some_and(|(a, _)| a == src)) {
            self.drops.unknown_address += 1;
            return None;
        }
        if len > MAX_DATAGRAM {
            self.drops.oversized += 1;
            return None;
        }
        if len < HEADER {
            self.drops.truncated += 1;
            return None;
        }
        // The sender must be a peer whose address this is (several peers
        // share one when an external relay forwards for all of them) and
        // whose token it carries.
        let Some(e) = Envelope::read(b)
            .filter(|e| e.to == self.me && self.peers.get(e.from as usize).copied().flatten() == Some((src, e.token)))
        else {
            self.drops.garbage += 1;
            return None;
        };
        if !self.windows[e.from as usize].accept(e.seq) {
            self.drops.replayed += 1;
            return None;
        }
        Some((e.from, &b[HEADER..len]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn the_gate_names_each_kind_of_bad_datagram() {
        let mut g = Gate::new(0, vec![None, Some((addr(1001), 77)), Some((addr(1002), 88))]);
        let good = Envelope { from: 1, to: 0, token: 77, seq: 1 }.wrap(b"hi");
        assert_eq!(g.admit(addr(1001), &good, good.len()), Some((1, &b"hi"[..])));
        assert_eq!(g.admit(addr(1001), &good, good.len()), None, "replayed");
        assert_eq!(g.admit(addr(9999), &good, good.len()), None, "stranger");
        assert_eq!(g.admit(addr(1002), &good, good.len()), None, "node 1's envelope from node 2's address");
        assert_eq!(g.admit(addr(1001), &good[..10], 10), None, "truncated");
        assert_eq!(g.admit(addr(1001), &good, MAX_DATAGRAM + 1), None, "oversized");
        let forged = Envelope { from: 1, to: 0, token: 78, seq: 2 }.wrap(b"x");
        assert_eq!(g.admit(addr(1001), &forged, forged.len()), None, "wrong token");
        let elsewhere = Envelope { from: 1, to: 2, token: 77, seq: 3 }.wrap(b"x");
        assert_eq!(g.admit(addr(1001), &elsewhere, elsewhere.len()), None, "for another node");
        assert_eq!(
            g.drops,
            Drops { unknown_address: 1, oversized: 1, truncated: 1, garbage: 3, replayed: 1 },
            "{:?}",
            g.drops
        );
    }

    #[test]
    fn behind_one_forwarder_peers_are_told_apart_by_envelope_and_token() {
        let relay = addr(2000);
        let mut g = Gate::new(0, vec![None, Some((relay, 11)), Some((relay, 22))]);
        let from2 = Envelope { from: 2, to: 0, token: 22, seq: 1 }.wrap(b"b");
        assert_eq!(g.admit(relay, &from2, from2.len()), Some((2, &b"b"[..])));
        let posing = Envelope { from: 1, to: 0, token: 22, seq: 1 }.wrap(b"x");
        assert_eq!(g.admit(relay, &posing, posing.len()), None, "peer 2's token in peer 1's name");
        let from1 = Envelope { from: 1, to: 0, token: 11, seq: 1 }.wrap(b"a");
        assert_eq!(g.admit(relay, &from1, from1.len()), Some((1, &b"a"[..])), "windows are per peer");
        assert_eq!(g.drops, Drops { garbage: 1, ..Drops::default() });
    }

    #[test]
    fn the_window_takes_reordered_datagrams_once_and_refuses_the_ancient() {
        let mut w = Window::default();
        assert!(w.accept(5) && w.accept(3) && w.accept(4) && w.accept(100));
        assert!(!w.accept(3) && !w.accept(100) && !w.accept(36), "36 is 64 behind 100");
        assert!(w.accept(37) && !w.accept(37) && w.accept(99) && !w.accept(0));
    }
}
