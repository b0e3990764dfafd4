//! `kcp-like`: a reliable, ordered message stream with KCP's loss recovery
//! in `nodelay` mode.
//!
//! Every datagram carries `una` (the next sequence expected) and selective
//! ACKs of the segments received since the last flush. Acknowledgements and
//! retransmissions are flushed every 10 ms (KCP's `interval`); new data
//! goes out at once. A segment is retransmitted when 2 later segments have
//! been acknowledged (fast retransmit, `resend = 2`), or when its own RTO
//! expires — after which its RTO grows by half (×1.5, `nodelay`), not
//! doubled. The RTO is SRTT + max(interval, 4·RTTVAR), at least 30 ms,
//! 200 ms before the first sample; samples are taken from the latest
//! transmission of each segment, as KCP does by echoing timestamps.
//!
//! Datagram: `'K', una: u32, n_acks: u8, n_acks × sn: u32, has_data: u8
//! [, sn: u32, len: u16, bytes]`.

use super::{seal, Cursor, Output, RttEstimator};
use crate::time::Micros;
use std::collections::BTreeMap;

const KIND: u8 = b'K';
const INTERVAL_US: u64 = 10_000;
const RESEND: u32 = 2;
const MAX_BUFFERED: usize = 100_000;

#[derive(Debug)]
struct Segment {
    data: Vec<u8>,
    last_sent: Micros,
    resend_at: Micros,
    rto: u64,
    fastack: u32,
}

/// One side of a KCP-like transport.
#[derive(Debug)]
pub struct Kcp {
    snd_next: u32,
    snd_buf: BTreeMap<u32, Segment>,
    rtt: RttEstimator,
    rcv_next: u32,
    rcv_buf: BTreeMap<u32, Vec<u8>>,
    pending_acks: Vec<u32>,
    flush_at: Option<Micros>,
}

impl Default for Kcp {
    fn default() -> Self {
        Self::new()
    }
}

impl Kcp {
    /// A fresh endpoint.
    pub fn new() -> Kcp {
        Kcp {
            snd_next: 0,
            snd_buf: BTreeMap::new(),
            rtt: RttEstimator::new(30_000, INTERVAL_US as i64, 200_000),
            rcv_next: 0,
            rcv_buf: BTreeMap::new(),
            pending_acks: Vec::new(),
            flush_at: None,
        }
    }

    fn datagram(&mut self, seg: Option<(u32, &[u8])>) -> Vec<u8> {
        let mut d = vec![KIND];
        d.extend_from_slice(&self.rcv_next.to_le_bytes());
        let acks: Vec<u32> = self.pending_acks.drain(..).take(255).collect();
        d.push(acks.len() as u8);
        for a in acks {
            d.extend_from_slice(&a.to_le_bytes());
        }
        d.push(seg.is_some() as u8);
        if let Some((sn, data)) = seg {
            d.extend_from_slice(&sn.to_le_bytes());
            d.extend_from_slice(&(data.len().min(u16::MAX as usize) as u16).to_le_bytes());
            d.extend_from_slice(&data[..data.len().min(u16::MAX as usize)]);
        }
        seal(d)
    }

    fn arm(&mut self, now: Micros) {
        if self.flush_at.is_none() && (!self.pending_acks.is_empty() || !self.snd_buf.is_empty()) {
            self.flush_at = Some(now.plus(INTERVAL_US));
        }
    }

    pub(super) fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        if self.snd_buf.len() >= MAX_BUFFERED {
            return;
        }
        let sn = self.snd_next;
        self.snd_next = self.snd_next.wrapping_add(1);
        let rto = self.rtt.rto() as u64;
        let d = self.datagram(Some((sn, &msg)));
        out.send.push(d);
        self.snd_buf.insert(sn, Segment { data: msg, last_sent: now, resend_at: now.plus(rto), rto, fastack: 0 });
        self.arm(now);
    }

    pub(super) fn receive(&mut self, now: Micros, body: &[u8], out: &mut Output) {
        let mut c = Cursor(body);
        if c.u8() != Some(KIND) {
            return;
        }
        let Some(una) = c.u32() else { return };
        let Some(n) = c.u8() else { return };
        let mut acks = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let Some(a) = c.u32() else { return };
            acks.push(a);
        }
        let Some(has_data) = c.u8() else { return };
        let data = if has_data == 1 {
            let (Some(sn), Some(len)) = (c.u32(), c.u16()) else { return };
            let Some(bytes) = c.bytes(len as usize) else { return };
            Some((sn, bytes))
        } else {
            None
        };
        // Acknowledgements: una, then each selective ACK; segments below
        // the highest acknowledged one count a skip (fastack).
        let kept = self.snd_buf.split_off(&una);
        self.snd_buf = kept;
        let mut max_ack = None;
        for a in acks {
            if let Some(seg) = self.snd_buf.remove(&a) {
                self.rtt.sample(now.since(seg.last_sent) as i64);
                max_ack = Some(max_ack.map_or(a, |m: u32| m.max(a)));
            }
        }
        if let Some(m) = max_ack {
            for (_, seg) in self.snd_buf.range_mut(..m) {
                seg.fastack += 1;
            }
        }
        if let Some((sn, bytes)) = data {
            self.pending_acks.push(sn);
            if sn >= self.rcv_next && self.rcv_buf.len() < MAX_BUFFERED {
                self.rcv_buf.entry(sn).or_insert(bytes);
            }
            while let Some(b) = self.rcv_buf.remove(&self.rcv_next) {
                out.deliver.push(b);
                self.rcv_next = self.rcv_next.wrapping_add(1);
            }
        }
        self.arm(now);
    }

    pub(super) fn on_timer(&mut self, now: Micros, out: &mut Output) {
        if self.flush_at.is_none_or(|t| t > now) {
            return;
        }
        self.flush_at = None;
        let mut resend: Vec<u32> = Vec::new();
        for (sn, seg) in self.snd_buf.iter_mut() {
            if seg.resend_at <= now {
                seg.rto += seg.rto / 2; // nodelay: ×1.5
                resend.push(*sn);
            } else if seg.fastack >= RESEND {
                seg.fastack = 0;
                resend.push(*sn);
            }
        }
        for sn in resend {
            let seg = self.snd_buf.get_mut(&sn).expect("listed");
            seg.last_sent = now;
            seg.resend_at = now.plus(seg.rto);
            let data = seg.data.clone();
            let d = self.datagram(Some((sn, &data)));
            out.send.push(d);
            out.retransmitted += 1;
        }
        if !self.pending_acks.is_empty() {
            let d = self.datagram(None);
            out.send.push(d);
        }
        self.arm(now);
    }

    pub(super) fn next_timer(&self) -> Option<Micros> {
        self.flush_at
    }
}
