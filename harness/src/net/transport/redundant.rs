//! `redundant:N`: every datagram carries the messages the peer has not
//! acknowledged yet, up to N (the newest N when there are more). The
//! receiver delivers each message once, when its first copy arrives — in
//! arrival order, never waiting for a missing one — and acknowledges the
//! highest sequence below which it has everything, piggybacked on its own
//! datagrams.
//!
//! Datagram: `'R', ack: u32, n: u8, n × (seq: u32, len: u16, bytes)`.

use super::{seal, Cursor, Output};
use crate::time::Micros;
use std::collections::{BTreeSet, VecDeque};

const KIND: u8 = b'R';
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
        let mut d = vec![KIND];
        d.extend_from_slice(&self.received_upto.to_le_bytes());
        d.push(self.unacked.len() as u8);
        for (seq, m) in &self.unacked {
            d.extend_from_slice(&seq.to_le_bytes());
            d.extend_from_slice(&(m.len().min(u16::MAX as usize) as u16).to_le_bytes());
            d.extend_from_slice(&m[..m.len().min(u16::MAX as usize)]);
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
