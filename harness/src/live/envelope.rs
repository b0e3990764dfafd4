//! The live wire under the algorithms: every datagram a node sends is
//! wrapped in an envelope that names sender and receiver, numbers it and
//! authenticates it; every datagram a node receives passes a [`Gate`] that
//! drops — and counts — whatever is not a fresh, authentic envelope from a
//! known address.
//!
//! Envelope: `"SB", version 2, from: u16, to: u16, seq: u32` (11 bytes,
//! little-endian), `tag: [u8; 32]`, then the algorithm's bytes. `tag` is
//! HMAC-SHA256 (ring) over the 11 header bytes and the payload, keyed by
//! the key of the (sender, receiver) pair — derived from a per-session
//! secret (256 bits from the OS) and handed to the two at setup, as a
//! handshake would — so no peer can forge another's traffic to a third;
//! `seq` counts the sender's datagrams to that receiver from 1.
//!
//! The gate's checks, in order — the first that fails names the drop:
//! 1. **unknown address**: the source is not one of the addresses the node
//!    was told (the relay's socket for each peer);
//! 2. **oversized**: longer than [`MAX_DATAGRAM`];
//! 3. **truncated**: shorter than the envelope;
//! 4. **garbage**: wrong magic or version, a sender that does not match
//!    the address, a receiver other than this node;
//! 5. **forged**: the tag does not verify — whatever the fields say, so a
//!    forged sequence number never reaches the replay window;
//! 6. **replayed**: an authentic sequence number already accepted;
//! 7. **stale**: authentic but 64 or more behind the newest accepted
//!    (DTLS's anti-replay window): a peer whose traffic lands here is being
//!    locked out, and the live report says so.
//!
//! A copy the network duplicated is a replay too: live nodes see each
//! datagram once. The gate holds one window per known peer and nothing per
//! stranger: memory does not grow with what arrives.

use ring::hmac;
use std::net::SocketAddr;

/// Envelope length, bytes.
pub const HEADER: usize = 11 + TAG;
/// MAC tag length, bytes.
const TAG: usize = 32;
/// The largest datagram a node accepts, envelope included.
pub const MAX_DATAGRAM: usize = 48 * 1024;
const MAGIC: [u8; 2] = *b"SB";
const VERSION: u8 = 2;

/// The key of traffic from node `from` to node `to`, derived from the
/// session secret: only those two hold it.
pub fn pair_key(secret: &[u8; 32], from: u16, to: u16) -> hmac::Key {
    let master = hmac::Key::new(hmac::HMAC_SHA256, secret);
    let derived = hmac::sign(&master, format!("syncbench live {from}->{to}").as_bytes());
    hmac::Key::new(hmac::HMAC_SHA256, derived.as_ref())
}

/// An envelope's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Envelope {
    /// Sending node.
    pub from: u16,
    /// Receiving node.
    pub to: u16,
    /// The sender's datagram number to this receiver (from 1).
    pub seq: u32,
}

impl Envelope {
    fn header(&self) -> [u8; 11] {
        let mut h = [0u8; 11];
        h[..2].copy_from_slice(&MAGIC);
        h[2] = VERSION;
        h[3..5].copy_from_slice(&self.from.to_le_bytes());
        h[5..7].copy_from_slice(&self.to.to_le_bytes());
        h[7..11].copy_from_slice(&self.seq.to_le_bytes());
        h
    }

    /// The datagram: envelope authenticated with the sender's `key`, then
    /// `payload`.
    pub fn wrap(&self, key: &hmac::Key, payload: &[u8]) -> Vec<u8> {
        let header = self.header();
        let mut ctx = hmac::Context::with_key(key);
        ctx.update(&header);
        ctx.update(payload);
        let tag = ctx.sign();
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(&header);
        out.extend_from_slice(tag.as_ref());
        out.extend_from_slice(payload);
        out
    }

    /// Reads the envelope's fields of `b` (`None` if it is not one); the
    /// tag is not checked here.
    pub fn read(b: &[u8]) -> Option<Envelope> {
        if b.len() < HEADER || b[..2] != MAGIC || b[2] != VERSION {
            return None;
        }
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        Some(Envelope { from: u16_at(3), to: u16_at(5), seq: u32::from_le_bytes(b[7..11].try_into().ok()?) })
    }

    /// Whether `b`'s tag verifies under `key`.
    fn authentic(b: &[u8], key: &hmac::Key) -> bool {
        let mut msg = Vec::with_capacity(b.len() - TAG);
        msg.extend_from_slice(&b[..11]);
        msg.extend_from_slice(&b[HEADER..]);
        hmac::verify(key, &msg, &b[11..HEADER]).is_ok()
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
    /// Not an envelope for this node from the peer at that address.
    pub garbage: u64,
    /// The tag did not verify.
    #[serde(default)]
    pub forged: u64,
    /// Authentic, already accepted.
    pub replayed: u64,
    /// Authentic, too far behind the window to tell (a lockout, if many).
    #[serde(default)]
    pub stale: u64,
}

impl Drops {
    /// All drops.
    pub fn total(&self) -> u64 {
        self.unknown_address + self.oversized + self.truncated + self.garbage + self.forged + self.replayed + self.stale
    }

    /// Adds `o`.
    pub fn add(&mut self, o: &Drops) {
        self.unknown_address += o.unknown_address;
        self.oversized += o.oversized;
        self.truncated += o.truncated;
        self.garbage += o.garbage;
        self.forged += o.forged;
        self.replayed += o.replayed;
        self.stale += o.stale;
    }
}

/// A sliding anti-replay window: the highest sequence accepted and a bit
/// per each of the 63 before it.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    top: u32,
    seen: u64,
}

/// What the window says of a sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fresh {
    Yes,
    Seen,
    Stale,
}

impl Window {
    /// Accepts `seq` once; refuses repeats and anything 64 or more behind.
    fn accept(&mut self, seq: u32) -> Fresh {
        if seq == 0 {
            return Fresh::Stale;
        }
        if seq > self.top {
            let shift = seq - self.top;
            self.seen = if shift >= 64 { 0 } else { self.seen << shift };
            self.seen |= 1;
            self.top = seq;
            return Fresh::Yes;
        }
        let back = self.top - seq;
        if back >= 64 {
            return Fresh::Stale;
        }
        if self.seen & (1 << back) != 0 {
            return Fresh::Seen;
        }
        self.seen |= 1 << back;
        Fresh::Yes
    }
}

/// One node's receive check.
#[derive(Clone, Debug)]
pub struct Gate {
    me: u16,
    /// Per peer node: the address its datagrams come from (its relay
    /// socket, or one external relay's for every peer) and the key of its
    /// traffic to this node.
    peers: Vec<Option<(SocketAddr, hmac::Key)>>,
    windows: Vec<Window>,
    /// What was dropped.
    pub drops: Drops,
}

impl Gate {
    /// The gate of node `me`, told each peer's address and key.
    pub fn new(me: u16, peers: Vec<Option<(SocketAddr, hmac::Key)>>) -> Gate {
        let n = peers.len();
        Gate { me, peers, windows: vec![Window::default(); n], drops: Drops::default() }
    }

    /// Checks a datagram of `len` bytes (`b` its first bytes, possibly cut
    /// to the receive buffer) from `src`; the sender and payload if it
    /// passes.
    pub fn admit<'a>(&mut self, src: SocketAddr, b: &'a [u8], len: usize) -> Option<(u16, &'a [u8])> {
        if !self.peers.iter().any(|p| p.as_ref().is_some_and(|(a, _)| *a == src)) {
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
        // share one when an external relay forwards for all of them).
        let Some((e, key)) = Envelope::read(b).filter(|e| e.to == self.me).and_then(|e| {
            let (addr, key) = self.peers.get(e.from as usize)?.as_ref()?;
            (*addr == src).then_some((e, key))
        }) else {
            self.drops.garbage += 1;
            return None;
        };
        if len > b.len() || !Envelope::authentic(&b[..len], key) {
            self.drops.forged += 1;
            return None;
        }
        match self.windows[e.from as usize].accept(e.seq) {
            Fresh::Yes => Some((e.from, &b[HEADER..len])),
            Fresh::Seen => {
                self.drops.replayed += 1;
                None
            }
            Fresh::Stale => {
                self.drops.stale += 1;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// The key of node `n`'s traffic to node 0.
    fn key(n: u16) -> hmac::Key {
        pair_key(&[7; 32], n, 0)
    }

    #[test]
    fn the_gate_names_each_kind_of_bad_datagram() {
        let mut g = Gate::new(0, vec![None, Some((addr(1001), key(1))), Some((addr(1002), key(2)))]);
        let good = Envelope { from: 1, to: 0, seq: 1 }.wrap(&key(1), b"hi");
        assert_eq!(g.admit(addr(1001), &good, good.len()), Some((1, &b"hi"[..])));
        assert_eq!(g.admit(addr(1001), &good, good.len()), None, "replayed");
        assert_eq!(g.admit(addr(9999), &good, good.len()), None, "stranger");
        assert_eq!(g.admit(addr(1002), &good, good.len()), None, "node 1's envelope from node 2's address");
        assert_eq!(g.admit(addr(1001), &good[..10], 10), None, "truncated");
        assert_eq!(g.admit(addr(1001), &good, MAX_DATAGRAM + 1), None, "oversized");
        let wrong_key = Envelope { from: 1, to: 0, seq: 2 }.wrap(&key(2), b"x");
        assert_eq!(g.admit(addr(1001), &wrong_key, wrong_key.len()), None, "node 2's key in node 1's name");
        let mut tampered = Envelope { from: 1, to: 0, seq: 3 }.wrap(&key(1), b"x");
        *tampered.last_mut().unwrap() ^= 1;
        assert_eq!(g.admit(addr(1001), &tampered, tampered.len()), None, "payload changed");
        let elsewhere = Envelope { from: 1, to: 2, seq: 4 }.wrap(&pair_key(&[7; 32], 1, 2), b"x");
        assert_eq!(g.admit(addr(1001), &elsewhere, elsewhere.len()), None, "for another node");
        assert_eq!(
            g.drops,
            Drops { unknown_address: 1, oversized: 1, truncated: 1, garbage: 2, forged: 2, replayed: 1, stale: 0 },
            "{:?}",
            g.drops
        );
    }

    #[test]
    fn a_forged_sequence_number_cannot_lock_a_peer_out() {
        let mut g = Gate::new(0, vec![None, Some((addr(1001), key(1)))]);
        let first = Envelope { from: 1, to: 0, seq: 1 }.wrap(&key(1), b"a");
        assert!(g.admit(addr(1001), &first, first.len()).is_some());
        // The attacker copies a real datagram and sets seq to 2^32 - 1.
        let mut forged = first.clone();
        forged[7..11].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(g.admit(addr(1001), &forged, forged.len()), None);
        let next = Envelope { from: 1, to: 0, seq: 2 }.wrap(&key(1), b"b");
        assert_eq!(g.admit(addr(1001), &next, next.len()), Some((1, &b"b"[..])), "the peer still gets through");
        assert_eq!((g.drops.forged, g.drops.stale), (1, 0));
    }

    #[test]
    fn behind_one_forwarder_peers_are_told_apart_by_envelope_and_key() {
        let relay = addr(2000);
        let mut g = Gate::new(0, vec![None, Some((relay, key(1))), Some((relay, key(2)))]);
        let from2 = Envelope { from: 2, to: 0, seq: 1 }.wrap(&key(2), b"b");
        assert_eq!(g.admit(relay, &from2, from2.len()), Some((2, &b"b"[..])));
        let posing = Envelope { from: 1, to: 0, seq: 1 }.wrap(&key(2), b"x");
        assert_eq!(g.admit(relay, &posing, posing.len()), None, "peer 2's key in peer 1's name");
        let from1 = Envelope { from: 1, to: 0, seq: 1 }.wrap(&key(1), b"a");
        assert_eq!(g.admit(relay, &from1, from1.len()), Some((1, &b"a"[..])), "windows are per peer");
        assert_eq!(g.drops, Drops { forged: 1, ..Drops::default() });
    }

    #[test]
    fn the_window_takes_reordered_datagrams_once_and_refuses_the_ancient() {
        let mut w = Window::default();
        for s in [5, 3, 4, 100] {
            assert_eq!(w.accept(s), Fresh::Yes);
        }
        assert_eq!((w.accept(3), w.accept(100), w.accept(36)), (Fresh::Stale, Fresh::Seen, Fresh::Stale));
        assert_eq!(
            (w.accept(37), w.accept(37), w.accept(99), w.accept(0)),
            (Fresh::Yes, Fresh::Seen, Fresh::Yes, Fresh::Stale)
        );
    }
}
