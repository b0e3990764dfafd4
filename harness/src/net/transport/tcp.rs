//! `tcp-like`: a reliable, ordered message stream with TCP's loss recovery.
//!
//! One message per segment (`TCP_NODELAY`: no coalescing). Cumulative ACKs
//! (the next sequence expected); the receiver acknowledges every second
//! segment at once, an out-of-order segment at once (a duplicate ACK), and
//! otherwise within 40 ms (Linux's minimum delayed ACK) unless its own data
//! carries the ACK first. The sender retransmits the oldest unacknowledged
//! segment on the third duplicate ACK (fast retransmit) or when the RTO
//! expires, and — as NewReno does — the next hole at once on each partial
//! ACK until the loss is repaired; the RTO follows RFC 6298 (SRTT +
//! 4·RTTVAR, at least 200 ms, 1 s before the first sample, Karn's rule) and
//! doubles on every timeout until new data is acknowledged. No SACK: a
//! later loss in the same window waits for the partial ACK. The receiver hands messages to the node
//! strictly in order, so one loss holds back everything after it.
//!
//! Datagram: `'T', flags: u8 (1 = data), ack: u32 [, seq: u32, len: u16,
//! bytes]`.

use super::{seal, Cursor, Output, RttEstimator};
use crate::time::Micros;
use std::collections::{BTreeMap, VecDeque};

const KIND: u8 = b'T';
const DELAYED_ACK_US: u64 = 40_000;
const MAX_BUFFERED: usize = 100_000;

#[derive(Debug)]
struct Segment {
    seq: u32,
    data: Vec<u8>,
    sent: Micros,
    retransmitted: bool,
}

/// One side of a TCP-like transport.
#[derive(Debug)]
pub struct Tcp {
    next_seq: u32,
    unacked: VecDeque<Segment>,
    rtt: RttEstimator,
    backoff: u32,
    rto_at: Option<Micros>,
    last_ack: u32,
    dupacks: u32,
    expected: u32,
    out_of_order: BTreeMap<u32, Vec<u8>>,
    unacked_received: u32,
    ack_at: Option<Micros>,
    /// NewReno: the sequence that ends the current loss recovery.
    recover: Option<u32>,
}

impl Default for Tcp {
    fn default() -> Self {
        Self::new()
    }
}

impl Tcp {
    /// A fresh endpoint.
    pub fn new() -> Tcp {
        Tcp {
            next_seq: 1,
            unacked: VecDeque::new(),
            rtt: RttEstimator::new(200_000, 1_000, 1_000_000),
            backoff: 0,
            rto_at: None,
            last_ack: 1,
            dupacks: 0,
            expected: 1,
            out_of_order: BTreeMap::new(),
            unacked_received: 0,
            ack_at: None,
            recover: None,
        }
    }

    fn rto(&self) -> u64 {
        (self.rtt.rto() as u64).saturating_mul(1 << self.backoff.min(10)).min(60_000_000)
    }

    fn datagram(&mut self, seg: Option<(u32, &[u8])>) -> Vec<u8> {
        // Any datagram carries the ACK: a pending delayed ACK is served.
        self.ack_at = None;
        self.unacked_received = 0;
        let mut d = vec![KIND, seg.is_some() as u8];
        d.extend_from_slice(&self.expected.to_le_bytes());
        if let Some((seq, data)) = seg {
            d.extend_from_slice(&seq.to_le_bytes());
            d.extend_from_slice(&(data.len().min(u16::MAX as usize) as u16).to_le_bytes());
            d.extend_from_slice(&data[..data.len().min(u16::MAX as usize)]);
        }
        seal(d)
    }

    fn retransmit_oldest(&mut self, now: Micros, out: &mut Output) {
        let Some(seg) = self.unacked.front_mut() else { return };
        seg.retransmitted = true;
        seg.sent = now;
        let (seq, data) = (seg.seq, seg.data.clone());
        let d = self.datagram(Some((seq, &data)));
        out.send.push(d);
        out.retransmitted += 1;
    }

    pub(super) fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        if self.unacked.len() >= MAX_BUFFERED {
            return; // a dead peer: the send buffer is full
        }
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        let d = self.datagram(Some((seq, &msg)));
        out.send.push(d);
        self.unacked.push_back(Segment { seq, data: msg, sent: now, retransmitted: false });
        if self.rto_at.is_none() {
            self.rto_at = Some(now.plus(self.rto()));
        }
    }

    pub(super) fn receive(&mut self, now: Micros, body: &[u8], out: &mut Output) {
        let mut c = Cursor(body);
        if c.u8() != Some(KIND) {
            return;
        }
        let (Some(flags), Some(ack)) = (c.u8(), c.u32()) else { return };
        let data = if flags & 1 != 0 {
            let (Some(seq), Some(len)) = (c.u32(), c.u16()) else { return };
            let Some(bytes) = c.bytes(len as usize) else { return };
            Some((seq, bytes))
        } else {
            None
        };
        // The ACK.
        if ack > self.last_ack && ack <= self.next_seq {
            // Karn: no sample if anything acknowledged was retransmitted;
            // otherwise the most recently sent acknowledged segment.
            let mut retransmitted = false;
            let mut newest_sent = None;
            while self.unacked.front().is_some_and(|s| s.seq < ack) {
                let s = self.unacked.pop_front().expect("checked");
                retransmitted |= s.retransmitted;
                newest_sent = Some(s.sent);
            }
            if let (false, Some(sent)) = (retransmitted, newest_sent) {
                self.rtt.sample(now.since(sent) as i64);
            }
            self.last_ack = ack;
            self.dupacks = 0;
            self.backoff = 0;
            self.rto_at = (!self.unacked.is_empty()).then(|| now.plus(self.rto()));
            match self.recover {
                // NewReno partial ACK: the next hole goes out at once.
                Some(r) if ack < r => self.retransmit_oldest(now, out),
                _ => self.recover = None,
            }
        } else if ack == self.last_ack && data.is_none() && !self.unacked.is_empty() {
            self.dupacks += 1;
            if self.dupacks == 3 && self.recover.is_none() {
                self.recover = Some(self.next_seq);
                self.retransmit_oldest(now, out);
            }
        }
        // The data.
        if let Some((seq, bytes)) = data {
            if seq == self.expected {
                out.deliver.push(bytes);
                self.expected = self.expected.wrapping_add(1);
                let mut filled_hole = false;
                while let Some(b) = self.out_of_order.remove(&self.expected) {
                    out.deliver.push(b);
                    self.expected = self.expected.wrapping_add(1);
                    filled_hole = true;
                }
                self.unacked_received += 1;
                if self.unacked_received >= 2 || filled_hole || !self.out_of_order.is_empty() {
                    let d = self.datagram(None);
                    out.send.push(d);
                } else if self.ack_at.is_none() {
                    self.ack_at = Some(now.plus(DELAYED_ACK_US));
                }
            } else {
                if seq > self.expected && self.out_of_order.len() < MAX_BUFFERED {
                    self.out_of_order.entry(seq).or_insert(bytes);
                }
                // Out of order or a duplicate: acknowledge at once.
                let d = self.datagram(None);
                out.send.push(d);
            }
        }
    }

    pub(super) fn on_timer(&mut self, now: Micros, out: &mut Output) {
        if self.ack_at.is_some_and(|t| t <= now) {
            let d = self.datagram(None);
            out.send.push(d);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            if self.unacked.is_empty() {
                self.rto_at = None;
            } else {
                self.recover = Some(self.next_seq);
                self.retransmit_oldest(now, out);
                self.backoff += 1;
                self.rto_at = Some(now.plus(self.rto()));
            }
        }
    }

    pub(super) fn next_timer(&self) -> Option<Micros> {
        match (self.rto_at, self.ack_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
