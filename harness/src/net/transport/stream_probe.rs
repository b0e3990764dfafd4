//! The transport probe behind `syncbench profile stream`: a steady stream
//! of fixed-size messages through one transport over simulated links, each
//! message timed from `send` to delivery — the same traffic
//! `scripts/kernel-validation/transport-validate.sh` sends through Linux TCP under the
//! kernel's netem, so the two can be laid side by side.
//!
//! Topology: node A (the connecting side) sends to node B. Each direction
//! crosses `hops` links in series, every one applying the profile's netem
//! (A→B the uplink, B→A the downlink): one hop is netem on both ends of a
//! veth pair, two hops the path a peer-to-peer packet takes through a
//! relay. With `both`, B sends the same stream back.

use super::{Endpoint, Output, TransportKind};
use crate::event::{EventClass, Scheduler};
use crate::net::link::Link;
use crate::net::profile::Profile;
use crate::rng::{Purpose, Stream};
use crate::time::Micros;

/// What to send.
#[derive(Clone, Debug)]
pub struct StreamProbe {
    /// Messages per second from each sender.
    pub rate_hz: u32,
    /// Bytes per message (at least 4: the message's index).
    pub size: usize,
    /// How long the senders send.
    pub duration_us: u64,
    /// Links in series per direction.
    pub hops: usize,
    /// B sends a stream back too.
    pub both: bool,
    /// The links' seed.
    pub seed: u64,
}

/// What the probe measured.
#[derive(Clone, Debug, Default)]
pub struct StreamResult {
    /// Per message from A, in send order: µs from send to delivery, or
    /// `None` if it never arrived (the run continues 60 s past the last
    /// send for repairs).
    pub latencies_us: Vec<Option<u64>>,
    /// The same for B's stream (with `both`).
    pub back_latencies_us: Vec<Option<u64>>,
    /// Datagrams A sent.
    pub segments: u64,
    /// Datagrams B sent (ACKs, and B's data with `both`).
    pub acks: u64,
    /// A's retransmissions.
    pub retransmits: u64,
    /// A's retransmission timeouts.
    pub rtos: u64,
}

enum Ev {
    Send(usize, u32),
    /// A datagram on hop `hop` of the direction away from `from`.
    Hop {
        from: usize,
        hop: usize,
        bytes: Vec<u8>,
    },
    Timer(usize),
}

/// Grace after the last send for repairs to land.
const GRACE_US: u64 = 60_000_000;

/// Runs the probe; `Err` names what cannot be probed.
pub fn stream_probe(kind: TransportKind, profile: &Profile, p: &StreamProbe) -> Result<StreamResult, String> {
    if p.size < 4 || p.size > 60_000 {
        return Err(format!("message size {}: expected 4..=60000 bytes", p.size));
    }
    if !(1..=1_000).contains(&p.rate_hz) {
        return Err(format!("rate {}: expected 1..=1000 messages per second", p.rate_hz));
    }
    if !(1..=4).contains(&p.hops) {
        return Err(format!("hops {}: expected 1..=4", p.hops));
    }
    if p.duration_us > 3_600_000_000 {
        return Err("duration: expected at most 1h".into());
    }
    let mut links: [Vec<Link>; 2] = [Vec::new(), Vec::new()];
    for (dir, spec) in [&profile.uplink, &profile.downlink].into_iter().enumerate() {
        for h in 0..p.hops {
            let purpose = if dir == 0 { Purpose::Uplink } else { Purpose::Downlink };
            let link = Link::new(spec.clone(), profile.correlation, Stream::new(p.seed, purpose, h as u64))
                .with_mtu(profile.mtu)
                // Each hop reads the recording from its own place.
                .replaying(profile.replay[dir].as_ref(), p.seed, h as u64);
            if link.has_slots() {
                return Err("profiles with `slot` cannot be probed as a stream".into());
            }
            links[dir].push(link);
        }
    }
    let mut ends: Vec<Endpoint> =
        match (Endpoint::new(kind, 1, 0, p.seed, Micros::ZERO), Endpoint::new(kind, 0, 1, p.seed, Micros::ZERO)) {
            (Some(a), Some(b)) => vec![a, b],
            _ => {
                return Err(format!(
                    "transport `{kind}` has no endpoints to probe (use redundant:N, tcp-like, kcp or quic)"
                ))
            }
        };
    let period = 1_000_000 / p.rate_hz as u64;
    let n = (p.duration_us / period) as u32;
    let mut sched = Scheduler::new();
    for i in 0..n {
        sched.push(Micros(i as u64 * period), EventClass::Tick, Ev::Send(0, i));
        if p.both {
            sched.push(Micros(i as u64 * period + period / 2), EventClass::Tick, Ev::Send(1, i));
        }
    }
    let mut armed: [Option<Micros>; 2] = [None, None];
    for side in 0..2 {
        if let Some(t) = ends[side].next_timer() {
            armed[side] = Some(t);
            sched.push(t, EventClass::Packet, Ev::Timer(side));
        }
    }
    let mut got: [Vec<Option<u64>>; 2] =
        [vec![None; n as usize], if p.both { vec![None; n as usize] } else { Vec::new() }];
    let mut r = StreamResult::default();
    let horizon = Micros(n as u64 * period + GRACE_US);
    while let Some((now, ev)) = sched.pop() {
        if now > horizon {
            break;
        }
        let mut out = Output::default();
        let side = match ev {
            Ev::Send(s, i) => {
                let mut msg = vec![0u8; p.size];
                msg[..4].copy_from_slice(&i.to_le_bytes());
                ends[s].send(now, msg, &mut out);
                s
            }
            Ev::Hop { from, hop, bytes } => {
                if hop + 1 < p.hops {
                    forward(&mut links[from][hop + 1], &mut sched, now, from, hop + 1, bytes);
                    continue;
                }
                ends[1 - from].receive(now, &bytes, &mut out);
                1 - from
            }
            Ev::Timer(s) => {
                if armed[s] != Some(now) {
                    continue;
                }
                armed[s] = None;
                ends[s].on_timer(now, &mut out);
                s
            }
        };
        if side == 0 {
            r.retransmits += out.retransmitted;
            r.rtos += out.timeouts;
            r.segments += out.send.len() as u64;
        } else {
            r.acks += out.send.len() as u64;
        }
        // Messages delivered at `side` came from the other end.
        let stream = 1 - side;
        for m in out.deliver {
            let Some(i) = m.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize) else { continue };
            let sent = i as u64 * period + if stream == 1 { period / 2 } else { 0 };
            if let Some(slot) = got[stream].get_mut(i) {
                slot.get_or_insert(now.0.saturating_sub(sent));
            }
        }
        for d in out.send {
            forward(&mut links[side][0], &mut sched, now, side, 0, d);
        }
        if let Some(t) = ends[side].next_timer() {
            if armed[side] != Some(t) {
                armed[side] = Some(t);
                sched.push(t.max(now), EventClass::Packet, Ev::Timer(side));
            }
        }
    }
    let [a, b] = got;
    r.latencies_us = a;
    r.back_latencies_us = b;
    Ok(r)
}

/// Puts a datagram on one link; its copies (lost: none; duplicated: two)
/// arrive at the link's far end.
fn forward(link: &mut Link, sched: &mut Scheduler<Ev>, now: Micros, from: usize, hop: usize, d: Vec<u8>) {
    for copy in link.send(now, d.len()).iter() {
        let mut b = d.clone();
        if let Some(bit) = copy.corrupt_bit {
            if let Some(byte) = b.get_mut((bit / 8) as usize) {
                *byte ^= 1 << (bit % 8);
            }
        }
        sched.push(copy.time, EventClass::Packet, Ev::Hop { from, hop, bytes: b });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(kind: &str, spec: &str, hops: usize) -> StreamResult {
        let profile = Profile::resolve(spec, &[]).unwrap();
        let p = StreamProbe { rate_hz: 60, size: 20, duration_us: 20_000_000, hops, both: false, seed: 1 };
        stream_probe(TransportKind::parse(kind).unwrap(), &profile, &p).unwrap()
    }

    #[test]
    fn a_clean_path_delivers_every_message_after_the_delay() {
        let r = probe("tcp-like", "delay 30ms", 1);
        assert_eq!(r.latencies_us.len(), 1200);
        assert!(r.latencies_us.iter().all(|l| *l == Some(30_000)), "{:?}", &r.latencies_us[..5]);
        // One segment per message, one ACK each (quick ACKs).
        assert_eq!((r.segments, r.acks, r.retransmits, r.rtos), (1200, 1200, 0, 0));
    }

    #[test]
    fn two_hops_double_the_delay() {
        let r = probe("kcp", "delay 30ms", 2);
        // KCP's flush-after-send: at once; the crate's millisecond clock
        // can add under a millisecond.
        assert!(r.latencies_us.iter().all(|l| l.is_some_and(|l| (60_000..61_000).contains(&l))));
    }

    #[test]
    fn loss_is_repaired_and_timed() {
        let r = probe("tcp-like", "delay 30ms 5ms loss 2%", 1);
        assert!(r.latencies_us.iter().all(|l| l.is_some()));
        assert!(r.retransmits > 0);
        let slow = r.latencies_us.iter().filter(|l| l.unwrap() > 60_000).count();
        assert!(slow > 10, "{slow}");
    }
}
