//! `redundant:N`: every datagram carries the messages the peer has not
//! acknowledged yet, up to N (the newest N when there are more). The
//! receiver delivers each message once, when its first copy arrives — in
//! arrival order, never waiting for a missing one — and acknowledges the
//! highest sequence below which it has everything, piggybacked on its own
//! datagrams.
//!
//! A datagram carries the newest message and as many of the older ones,
//! newest first, as fit in one unfragmented datagram on the default
//! 1,500-byte MTU ([`ROOM`]): a copy that made the datagram fragment
//! would make losing it likelier. A newest message larger than that goes
//! alone, fragmented by the network.
//!
//! Datagram: `'R', ack: u32, n: u8, n × (seq: u32, len: u16, bytes)`.

use super::{seal, Cursor, Output};
use crate::net::{unfragmented_payload, DEFAULT_MTU};
use crate::time::Micros;
use std::collections::{BTreeSet, VecDeque};

const KIND: u8 = b'R';
/// Bytes before the copies: kind, ack, count.
const HEADER: usize = 6;
/// Bytes before each copy: sequence, length.
const ENTRY: usize = 6;
/// Bytes of the check [`seal`] appends.
const SEAL: usize = 4;
/// The datagram size older copies are added up to (1,472 bytes).
pub const ROOM: usize = unfragmented_payload(DEFAULT_MTU);
/// Sequences above the contiguous mark remembered at most.
const WINDOW: usize = 1024;

/// One side of a redundant transport.
#[derive(Debug)]
pub struct Redundant {
    n: usize,
    next_seq: u32,
    unacked: VecDeque<(u32, Vec<u8>)>,
    received_upto: u32,
    received_above: BTreeSet<u32>,
}

impl Redundant {
    /// Carrying up to `n` messages per datagram.
    pub fn new(n: usize) -> Redundant {
        Redundant {
            n: n.max(1),
            next_seq: 1,
            unacked: VecDeque::new(),
            received_upto: 0,
            received_above: BTreeSet::new(),
        }
    }

    pub(super) fn send(&mut self, _now: Micros, msg: Vec<u8>, out: &mut Output) {
        self.unacked.push_back((self.next_seq, msg));
        self.next_seq = self.next_seq.wrapping_add(1);
        while self.unacked.len() > self.n {
            self.unacked.pop_front();
        }
        // The newest message always; older copies, newest first, while
        // the datagram stays within one unfragmented packet.
        let room = ROOM - HEADER - SEAL;
        let (mut used, mut first) = (0, self.unacked.len());
        for (i, (_, m)) in self.unacked.iter().enumerate().rev() {
            let more = ENTRY + m.len();
            if first < self.unacked.len() && used + more > room {
                break;
            }
            (used, first) = (used + more, i);
        }
        let mut d = Vec::with_capacity(HEADER + used + SEAL);
        d.push(KIND);
        d.extend_from_slice(&self.received_upto.to_le_bytes());
        d.push((self.unacked.len() - first) as u8);
        for (seq, m) in self.unacked.iter().skip(first) {
            d.extend_from_slice(&seq.to_le_bytes());
            d.extend_from_slice(&(m.len().min(u16::MAX as usize) as u16).to_le_bytes());
            d.extend_from_slice(m);
        }
        out.send.push(seal(d));
    }

    pub(super) fn receive(&mut self, _now: Micros, body: &[u8], out: &mut Output) {
        let mut c = Cursor(body);
        if c.u8() != Some(KIND) {
            return;
        }
        let Some(ack) = c.u32() else { return };
        while self.unacked.front().is_some_and(|(s, _)| *s <= ack) {
            self.unacked.pop_front();
        }
        let Some(n) = c.u8() else { return };
        for _ in 0..n {
            let (Some(seq), Some(len)) = (c.u32(), c.u16()) else { return };
            let Some(m) = c.bytes(len as usize) else { return };
            if seq <= self.received_upto || self.received_above.contains(&seq) {
                continue;
            }
            out.deliver.push(m);
            self.received_above.insert(seq);
            while self.received_above.remove(&(self.received_upto + 1)) {
                self.received_upto += 1;
            }
            // A message lost for good leaves a gap: past the window, give up
            // on it so the acknowledgement moves on.
            while self.received_above.len() > WINDOW {
                let lowest = self.received_above.pop_first().unwrap_or(self.received_upto);
                self.received_upto = lowest;
                while self.received_above.remove(&(self.received_upto + 1)) {
                    self.received_upto += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copies of large messages fill a datagram up to one unfragmented
    /// packet, newest first; the newest always goes.
    #[test]
    fn a_datagram_carries_what_fits() {
        let mut r = Redundant::new(64);
        let mut last = Vec::new();
        for k in 0..10u8 {
            let mut out = Output::default();
            r.send(Micros(0), vec![k; 400], &mut out);
            last = out.send.pop().unwrap();
            assert!(last.len() <= ROOM, "{} bytes", last.len());
        }
        // Three copies of 406 bytes fit in 1,462; a fourth does not.
        assert_eq!(last[5], 3);
        let mut peer = Redundant::new(64);
        let mut got = Output::default();
        peer.receive(Micros(0), &last[..last.len() - SEAL], &mut got);
        assert_eq!(got.deliver.iter().map(|m| m[0]).collect::<Vec<_>>(), vec![7, 8, 9]);
        // A message too large on its own still goes, alone.
        let mut out = Output::default();
        r.send(Micros(0), vec![0; 3_000], &mut out);
        assert_eq!((out.send[0].len(), out.send[0][5]), (HEADER + ENTRY + 3_000 + SEAL, 1));
    }
}
