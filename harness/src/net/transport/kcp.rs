//! `kcp`: the real KCP — the `kcp` crate (a port of skywind3000's ikcp) —
//! driven on virtual time.
//!
//! The crate is sans-I/O: `send` queues a message, `input` takes a datagram
//! from the peer, `update(now_ms)` flushes ACKs, new data and
//! retransmissions through an output sink, `check(now_ms)` says when
//! `update` is next due. This endpoint calls them the way a game does:
//! `update` whenever `check` asks (at most every `interval`), `flush` right
//! after each `send` unless `flush=update`, and hands every datagram the
//! crate writes to the link — 24-byte segment headers, ACK segments and
//! retransmissions included. The crate's millisecond clock is virtual time
//! in whole milliseconds, as `ikcp` apps feed it.
//!
//! Defaults are what games set (`ikcp_nodelay(kcp, 1, 10, 2, 1)`): nodelay
//! on (minimum RTO 30 ms, RTO ×1.5 on a timeout), `interval` 10 ms, fast
//! resend after 2 skipping ACKs, no congestion window, windows of 128
//! segments, MTU 1400. Fast-ack is ikcp's conservative rule
//! (`IKCP_FASTACK_CONSERVE`, the crate's default): an ACK counts toward a
//! segment's fast resend only if the acknowledged segment was sent no
//! earlier than that segment's last transmission.
//!
//! Knobs: `kcp:interval=MS,resend=N,nc=0|1,wnd=N,minrto=MS,flush=send|update`.
//!
//! Retransmissions are counted from the wire, as a capture would: a data
//! segment whose sequence number was sent before.

use super::{seal, Output};
use crate::time::Micros;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};

/// Messages a sender queues before it drops new ones (a dead peer).
const MAX_QUEUED: usize = 20_000;
/// `cmd` of a KCP data segment.
const CMD_PUSH: u8 = 81;
/// Bytes of a KCP segment header.
const HEADER: usize = 24;

/// How the game configures KCP (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KcpSettings {
    /// `update`'s interval, ms (10..=5000 in ikcp).
    pub interval_ms: u32,
    /// Fast resend after this many skipping ACKs (0 = off).
    pub resend: u32,
    /// No congestion window (`nc`).
    pub no_cwnd: bool,
    /// Send and receive windows, segments.
    pub wnd: u16,
    /// Minimum RTO, ms (nodelay's 30 unless set).
    pub min_rto_ms: u32,
    /// Flush right after each send (`false`: data waits for `update`).
    pub flush_on_send: bool,
}

impl Default for KcpSettings {
    fn default() -> Self {
        KcpSettings { interval_ms: 10, resend: 2, no_cwnd: true, wnd: 128, min_rto_ms: 30, flush_on_send: true }
    }
}

impl KcpSettings {
    /// Parses the `key=value,…` list after `kcp:`.
    pub fn parse(args: &str) -> Result<KcpSettings, String> {
        let mut s = KcpSettings::default();
        for kv in args.split(',').filter(|kv| !kv.is_empty()) {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("kcp option `{kv}`: expected key=value"))?;
            let num = |lo: u32, hi: u32| {
                v.parse::<u32>()
                    .ok()
                    .filter(|n| (lo..=hi).contains(n))
                    .ok_or_else(|| format!("kcp option `{k}={v}`: expected a whole number in {lo}..={hi}"))
            };
            match k {
                "interval" => s.interval_ms = num(10, 5_000)?,
                "resend" => s.resend = num(0, 100)?,
                "nc" => s.no_cwnd = num(0, 1)? == 1,
                "wnd" => s.wnd = num(16, 32_768)? as u16,
                "minrto" => s.min_rto_ms = num(1, 60_000)?,
                "flush" => {
                    s.flush_on_send = match v {
                        "send" => true,
                        "update" => false,
                        _ => return Err(format!("kcp option `flush={v}`: expected send or update")),
                    }
                }
                _ => {
                    return Err(format!(
                        "unknown kcp option `{k}`: expected interval, resend, nc, wnd, minrto or flush"
                    ))
                }
            }
        }
        Ok(s)
    }
}

impl fmt::Display for KcpSettings {
    /// The options that differ from the defaults, `key=value,…`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = KcpSettings::default();
        let mut parts = Vec::new();
        if self.interval_ms != d.interval_ms {
            parts.push(format!("interval={}", self.interval_ms));
        }
        if self.resend != d.resend {
            parts.push(format!("resend={}", self.resend));
        }
        if self.no_cwnd != d.no_cwnd {
            parts.push(format!("nc={}", self.no_cwnd as u8));
        }
        if self.wnd != d.wnd {
            parts.push(format!("wnd={}", self.wnd));
        }
        if self.min_rto_ms != d.min_rto_ms {
            parts.push(format!("minrto={}", self.min_rto_ms));
        }
        if self.flush_on_send != d.flush_on_send {
            parts.push("flush=update".into());
        }
        write!(f, "{}", parts.join(","))
    }
}

/// Where the crate writes its datagrams: one `write` call is one datagram.
/// (The crate keeps its sink private, so the endpoint holds a second handle.)
#[derive(Clone, Debug, Default)]
struct Sink(Arc<Mutex<Vec<Vec<u8>>>>);

impl io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(buf.to_vec());
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One side of a KCP conversation.
pub struct Kcp {
    kcp: kcp::Kcp<Sink>,
    written: Sink,
    flush_on_send: bool,
    /// The highest data sequence number put on the wire (+1), to tell
    /// retransmissions from first transmissions.
    sent_below: u32,
    next_update: Micros,
}

impl fmt::Debug for Kcp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kcp").field("next_update", &self.next_update).finish_non_exhaustive()
    }
}

/// The crate's clock: virtual time in whole milliseconds (wrapping, as
/// ikcp's `IUINT32` clock does).
fn millis(t: Micros) -> u32 {
    (t.0 / 1_000) as u32
}

impl Kcp {
    /// A fresh endpoint of conversation `conv`, first updated at `now`.
    pub fn new(settings: KcpSettings, conv: u32, now: Micros) -> Kcp {
        let written = Sink::default();
        let mut kcp = kcp::Kcp::new(conv, written.clone());
        kcp.set_nodelay(true, settings.interval_ms as i32, settings.resend as i32, settings.no_cwnd);
        kcp.set_wndsize(settings.wnd, settings.wnd);
        kcp.set_rx_minrto(settings.min_rto_ms);
        let mut e = Kcp { kcp, written, flush_on_send: settings.flush_on_send, sent_below: 0, next_update: now };
        // ikcp wants one update before anything is flushed.
        let mut scratch = Output::default();
        e.update(now, &mut scratch);
        e
    }

    /// Moves what the crate wrote to the link, sealed, counting resent
    /// data segments.
    fn drain(&mut self, out: &mut Output) {
        let written = std::mem::take(&mut *self.written.0.lock().unwrap_or_else(|e| e.into_inner()));
        for d in written {
            let mut rest = &d[..];
            while rest.len() >= HEADER {
                let sn = u32::from_le_bytes([rest[12], rest[13], rest[14], rest[15]]);
                let len = u32::from_le_bytes([rest[20], rest[21], rest[22], rest[23]]) as usize;
                if rest[4] == CMD_PUSH {
                    if sn.wrapping_sub(self.sent_below) < (1 << 31) {
                        self.sent_below = sn.wrapping_add(1);
                    } else {
                        out.retransmitted += 1;
                    }
                }
                rest = rest.get(HEADER + len..).unwrap_or(&[]);
            }
            out.send.push(seal(d));
        }
    }

    fn update(&mut self, now: Micros, out: &mut Output) {
        let ms = millis(now);
        // An update error means "not updated yet", which cannot be after
        // the first call; there is nothing else it reports.
        let _ = self.kcp.update(ms);
        self.drain(out);
        let wait = self.kcp.check(ms).max(1);
        self.next_update = Micros((ms as u64 + wait as u64) * 1_000).max(now.plus(1));
    }

    pub(super) fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        if self.kcp.wait_snd() >= MAX_QUEUED {
            return; // a dead peer: the send queue is full
        }
        // `send` refuses only messages of more than 128 fragments (a
        // dropped message, as a game's `ikcp_send` < 0 would be).
        if self.kcp.send(&msg).is_ok() && self.flush_on_send {
            let _ = self.kcp.flush();
            self.drain(out);
        }
        // Queued data may want an earlier update than the one armed.
        let ms = millis(now);
        let due = Micros((ms as u64 + self.kcp.check(ms).max(1) as u64) * 1_000);
        self.next_update = self.next_update.min(due);
    }

    pub(super) fn receive(&mut self, _now: Micros, body: &[u8], out: &mut Output) {
        // Malformed or foreign datagrams are refused whole by `input`.
        if self.kcp.input(body).is_err() {
            return;
        }
        while let Ok(n) = self.kcp.peeksize() {
            let mut msg = vec![0; n];
            match self.kcp.recv(&mut msg) {
                Ok(got) => {
                    msg.truncate(got);
                    out.deliver.push(msg);
                }
                Err(_) => break,
            }
        }
    }

    pub(super) fn on_timer(&mut self, now: Micros, out: &mut Output) {
        if now >= self.next_update {
            self.update(now, out);
        }
    }

    pub(super) fn next_timer(&self) -> Option<Micros> {
        Some(self.next_update)
    }
}
