//! The real renet (the `renet` crate, 2.x) on virtual time: one of its
//! channels carries every message between two nodes.
//!
//! renet is sans-I/O: a connection is advanced by `update(elapsed)`, takes
//! datagrams with `process_packet` and gives the ones to send with
//! `get_packets_to_send`; it reads no clock. Each end here is a
//! `RenetClient` configured with the same single channel both ways — a
//! `RenetServer` keeps one such connection per client, built from the same
//! configuration, so the bytes and timing are the server's too.
//!
//! Games drive renet once a frame (bevy_renet: update in `PreUpdate`,
//! messages sent in `Update`, packets taken in `PostUpdate`), and each
//! time renet's packets are taken it adds an ack packet while anything
//! it received is unacknowledged — in a two-way exchange, always. So an
//! endpoint here takes renet's packets once per frame: at the instant
//! the node sends (all its messages of that instant in one go, as the
//! frame's `PostUpdate` would), or, when the node has sent nothing for
//! `update` (default 1/60 s), on that frame grid. That is also when
//! reliable messages are resent (`resend`, default renet's 300 ms).
//!
//! The datagrams are renet's packets as it writes them (no netcode.io
//! layer: `renet_netcode` adds its header and, when secure, a 16-byte
//! MAC), plus the 4-byte check every transport here carries.
//!
//! renet does not say which packets are resends; the harness reads them
//! off the wire ([`resends`]): a reliable channel numbers its messages in
//! the order it first sends them, so a packet carrying a message number
//! (or message and slice) not above the highest already sent repeats
//! one.

use super::{seal, Output};
use crate::time::Micros;
use renet::{ChannelConfig, ConnectionConfig, RenetClient, SendType};
use std::fmt;
use std::time::Duration;

/// Which of renet's delivery guarantees carries the messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenetChannel {
    /// `SendType::Unreliable`.
    Unreliable,
    /// `SendType::ReliableUnordered`.
    ReliableUnordered,
    /// `SendType::ReliableOrdered`.
    ReliableOrdered,
}

/// `renet:CHANNEL[,resend=D][,update=D]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenetSettings {
    /// The channel.
    pub channel: RenetChannel,
    /// A reliable channel's resend time, µs (renet's default 300 ms).
    pub resend_us: u64,
    /// How often the game drives renet, µs (default 1/60 s).
    pub update_us: u64,
}

/// The channel's id in renet's configuration (one channel each way).
const CHANNEL_ID: u8 = 0;
/// The most a channel holds unacknowledged before renet disconnects
/// (renet's default configuration's).
const MAX_MEMORY: usize = 5 * 1024 * 1024;

impl RenetSettings {
    /// Parses what follows `renet:`.
    pub fn parse(args: &str) -> Result<RenetSettings, String> {
        let mut pieces = args.split(',').map(str::trim).filter(|p| !p.is_empty());
        let channel = match pieces.next() {
            Some("unreliable") => RenetChannel::Unreliable,
            Some("reliable-unordered") => RenetChannel::ReliableUnordered,
            Some("reliable-ordered") => RenetChannel::ReliableOrdered,
            other => {
                return Err(format!(
                    "renet channel `{}`: expected renet:reliable-ordered, renet:reliable-unordered or renet:unreliable",
                    other.unwrap_or("")
                ))
            }
        };
        let mut s = RenetSettings { channel, resend_us: 300_000, update_us: 16_667 };
        let mut seen: Vec<&str> = Vec::new();
        for kv in pieces {
            let (k, v) = kv.split_once('=').ok_or_else(|| format!("renet `{kv}`: expected key=value"))?;
            let k = k.trim();
            // The key first: an unknown key is named as such, whatever its value.
            if !["resend", "update"].contains(&k) {
                return Err(format!("renet: unknown key `{k}`: expected resend or update"));
            }
            if seen.contains(&k) {
                return Err(format!("renet: `{k}` is given twice: expected each key once"));
            }
            seen.push(k);
            if k == "resend" && channel == RenetChannel::Unreliable {
                return Err(format!(
                    "renet `{kv}`: renet:unreliable never resends; resend applies to renet:reliable-ordered and renet:reliable-unordered"
                ));
            }
            let us = crate::time::parse_duration(v.trim())
                .ok()
                .filter(|us| (1_000..=10_000_000).contains(us))
                .ok_or_else(|| format!("renet {k} `{v}`: expected a duration from 1ms to 10s"))?;
            match k {
                "resend" => s.resend_us = us,
                _ => s.update_us = us,
            }
        }
        Ok(s)
    }

    /// renet's configuration of the one channel, the same both ways.
    fn config(&self) -> ConnectionConfig {
        let resend_time = Duration::from_micros(self.resend_us);
        let send_type = match self.channel {
            RenetChannel::Unreliable => SendType::Unreliable,
            RenetChannel::ReliableUnordered => SendType::ReliableUnordered { resend_time },
            RenetChannel::ReliableOrdered => SendType::ReliableOrdered { resend_time },
        };
        let channels = vec![ChannelConfig { channel_id: CHANNEL_ID, max_memory_usage_bytes: MAX_MEMORY, send_type }];
        ConnectionConfig {
            server_channels_config: channels.clone(),
            client_channels_config: channels,
            ..ConnectionConfig::default()
        }
    }
}

impl fmt::Display for RenetSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.channel {
            RenetChannel::Unreliable => "unreliable",
            RenetChannel::ReliableUnordered => "reliable-unordered",
            RenetChannel::ReliableOrdered => "reliable-ordered",
        };
        write!(f, "{name}")?;
        if self.resend_us != 300_000 {
            write!(f, ",resend={}ms", self.resend_us as f64 / 1e3)?;
        }
        if self.update_us != 16_667 {
            write!(f, ",update={}ms", self.update_us as f64 / 1e3)?;
        }
        Ok(())
    }
}

/// One end of a renet connection.
pub struct Renet {
    conn: RenetClient,
    /// The highest reliable (message, slice) put on the wire.
    highest_sent: Option<(u64, u64)>,
    update_us: u64,
    /// Where renet's clock stands.
    at: Micros,
    /// When the next frame drives renet.
    next_frame: Micros,
    /// The instant the node sent at, until renet's packets are taken.
    flush_due: Option<Micros>,
}

impl fmt::Debug for Renet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Renet")
            .field("at", &self.at)
            .field("next_frame", &self.next_frame)
            .field("flush_due", &self.flush_due)
            .finish()
    }
}

impl Renet {
    /// A connected end, its clock at `now`.
    pub fn new(settings: RenetSettings, now: Micros) -> Renet {
        let mut conn = RenetClient::new(settings.config());
        conn.set_connected();
        Renet {
            conn,
            highest_sent: None,
            update_us: settings.update_us,
            at: now,
            next_frame: Micros(now.0 + settings.update_us),
            flush_due: None,
        }
    }

    /// Advances renet's clock to `now`.
    fn advance(&mut self, now: Micros) {
        if now > self.at {
            self.conn.update(Duration::from_micros(now.0 - self.at.0));
            self.at = now;
        }
    }

    /// Puts renet's pending packets on the link.
    fn flush(&mut self, out: &mut Output) {
        for p in self.conn.get_packets_to_send() {
            if resends(&p, &mut self.highest_sent) {
                out.retransmitted += 1;
            }
            out.send.push(seal(p));
        }
    }

    pub(super) fn send(&mut self, now: Micros, msg: Vec<u8>, _out: &mut Output) {
        self.advance(now);
        self.conn.send_message(CHANNEL_ID, msg);
        self.flush_due = Some(now);
    }

    pub(super) fn receive(&mut self, now: Micros, body: &[u8], out: &mut Output) {
        self.advance(now);
        self.conn.process_packet(body);
        while let Some(m) = self.conn.receive_message(CHANNEL_ID) {
            out.deliver.push(m.to_vec());
        }
    }

    pub(super) fn on_timer(&mut self, now: Micros, out: &mut Output) {
        if now < self.next_frame && self.flush_due.is_none_or(|t| now < t) {
            return;
        }
        self.advance(now);
        self.flush(out);
        self.flush_due = None;
        self.next_frame = Micros(now.0 + self.update_us);
    }

    pub(super) fn next_timer(&self) -> Option<Micros> {
        let due = self.flush_due.map_or(self.next_frame, |t| t.min(self.next_frame));
        (!self.conn.is_disconnected()).then_some(due)
    }

    /// Whether renet dropped the connection (a reliable channel over its
    /// memory, or a packet it could not read).
    pub(super) fn gave_up(&self) -> bool {
        self.conn.is_disconnected()
    }
}

/// Whether renet's packet `p` repeats a reliable message (or slice) sent
/// before, given the highest `(message, slice)` sent so far, which it
/// raises. renet's wire format (`renet/src/packet.rs`): a type byte (0
/// small reliable, 2 reliable slice), the packet sequence and then, after
/// the channel byte, for type 0 a u16 count of (message id, length,
/// bytes) and for type 2 the message id and slice index; numbers are QUIC
/// variable-length integers.
fn resends(p: &[u8], highest: &mut Option<(u64, u64)>) -> bool {
    let mut r = Reader(p);
    let ids: Vec<(u64, u64)> = match (r.u8(), r.varint(), r.u8()) {
        (Some(0), Some(_), Some(_)) => {
            let Some(n) = r.u16() else { return false };
            let mut ids = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let (Some(id), Some(len)) = (r.varint(), r.varint()) else { break };
                ids.push((id, 0));
                if !r.skip(len) {
                    break;
                }
            }
            ids
        }
        (Some(2), Some(_), Some(_)) => match (r.varint(), r.varint()) {
            (Some(id), Some(slice)) => vec![(id, slice)],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let repeat = ids.iter().any(|id| highest.is_some_and(|h| *id <= h));
    if let Some(&top) = ids.iter().max() {
        *highest = Some(highest.map_or(top, |h| h.max(top)));
    }
    repeat
}

/// Reads renet's wire format.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(*b)
    }
    fn u16(&mut self) -> Option<u16> {
        let b = self.0.get(..2)?;
        self.0 = &self.0[2..];
        Some(u16::from_be_bytes([b[0], b[1]]))
    }
    /// A QUIC variable-length integer: the first byte's top two bits give
    /// its length, 1, 2, 4 or 8 bytes, big-endian.
    fn varint(&mut self) -> Option<u64> {
        let first = *self.0.first()?;
        let len = 1usize << (first >> 6);
        let b = self.0.get(..len)?;
        let v = b[1..].iter().fold(u64::from(first & 0x3f), |v, &x| (v << 8) | u64::from(x));
        self.0 = &self.0[len..];
        Some(v)
    }
    fn skip(&mut self, n: u64) -> bool {
        match usize::try_from(n).ok().and_then(|n| self.0.get(n..)) {
            Some(rest) => {
                self.0 = rest;
                true
            }
            None => false,
        }
    }
}
