//! Transports over simulated lossy links: reliable ones deliver every
//! message exactly once and in order; the redundant one never duplicates.

use super::*;
use crate::event::{EventClass, Scheduler};
use crate::net::link::{Correlation, Link};
use crate::net::netem::Netem;
use crate::rng::{Purpose, Stream};
use proptest::prelude::*;

enum Ev {
    SendMsg(usize, u32),
    Arrive(usize, Vec<u8>),
    Timer(usize),
}

/// Two endpoints exchanging `n` messages each way, one every 16 ms, over
/// links applying `spec`; returns what each side received and the time
/// the last message arrived.
fn exchange(kind: TransportKind, spec: &str, n: u32, seed: u64, horizon_us: u64) -> (Vec<Vec<u32>>, Micros, u64) {
    let netem = Netem::parse(spec).unwrap();
    let mut links = [
        Link::new(netem.clone(), Correlation::Kernel, Stream::new(seed, Purpose::Uplink, 0)),
        Link::new(netem, Correlation::Kernel, Stream::new(seed, Purpose::Uplink, 1)),
    ];
    let mut ends = [Endpoint::new(kind).unwrap(), Endpoint::new(kind).unwrap()];
    let mut got: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    let mut sched = Scheduler::new();
    for i in 0..n {
        sched.push(Micros(i as u64 * 16_000), EventClass::Tick, Ev::SendMsg(0, i));
        sched.push(Micros(i as u64 * 16_000 + 3_000), EventClass::Tick, Ev::SendMsg(1, i));
    }
    let mut armed: [Option<Micros>; 2] = [None, None];
    let mut last = Micros::ZERO;
    let mut retx = 0;
    while let Some((now, ev)) = sched.pop() {
        if now.0 > horizon_us {
            break;
        }
        let mut out = Output::default();
        let side = match ev {
            Ev::SendMsg(s, i) => {
                ends[s].send(now, i.to_le_bytes().to_vec(), &mut out);
                s
            }
            Ev::Arrive(s, d) => {
                ends[s].receive(now, &d, &mut out);
                s
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
        retx += out.retransmitted;
        for m in out.deliver {
            got[side].push(u32::from_le_bytes(m.try_into().unwrap()));
            last = now;
        }
        for d in out.send {
            for copy in links[side].send(now, d.len()).iter() {
                let mut b = d.clone();
                if let Some(bit) = copy.corrupt_bit {
                    b[(bit / 8) as usize] ^= 1 << (bit % 8);
                }
                sched.push(copy.time, EventClass::Packet, Ev::Arrive(1 - side, b));
            }
        }
        if let Some(t) = ends[side].next_timer() {
            if armed[side] != Some(t) {
                armed[side] = Some(t);
                sched.push(t, EventClass::Tick, Ev::Timer(side));
            }
        }
    }
    (got, last, retx)
}

#[test]
fn reliable_transports_repair_loss_in_order() {
    for kind in [TransportKind::TcpLike, TransportKind::KcpLike] {
        let (got, _, retx) =
            exchange(kind, "delay 30ms 10ms loss 10% duplicate 2% reorder 5% corrupt 1%", 300, 1, 300_000_000);
        let want: Vec<u32> = (0..300).collect();
        assert_eq!(got[0], want, "{kind}");
        assert_eq!(got[1], want, "{kind}");
        assert!(retx > 0, "{kind} retransmitted");
    }
}

#[test]
fn kcp_recovers_faster_than_tcp() {
    // The seeds' argument: TCP's RTO floor and doubling make its tail
    // long; KCP's fast retransmit and ×1.5 keep it short.
    let (_, tcp_done, _) = exchange(TransportKind::TcpLike, "delay 40ms loss 20%", 200, 3, 600_000_000);
    let (_, kcp_done, _) = exchange(TransportKind::KcpLike, "delay 40ms loss 20%", 200, 3, 600_000_000);
    assert!(kcp_done < tcp_done, "kcp {kcp_done} tcp {tcp_done}");
}

#[test]
fn redundant_never_duplicates_and_covers_isolated_loss() {
    let (got, _, _) =
        exchange(TransportKind::Redundant(3), "delay 20ms 10ms loss 10% duplicate 10%", 500, 2, 60_000_000);
    let mut seen = std::collections::BTreeSet::new();
    assert!(got[0].iter().all(|m| seen.insert(*m)), "no duplicates");
    // Lost only if 3 consecutive datagrams were lost: ~0.1%.
    assert!(got[0].len() >= 495, "{}", got[0].len());
}

#[test]
fn transport_names_parse() {
    assert_eq!(TransportKind::parse("redundant:5"), Ok(TransportKind::Redundant(5)));
    assert_eq!(TransportKind::parse("kcp-like"), Ok(TransportKind::KcpLike));
    assert!(TransportKind::parse("quic").unwrap_err().contains("unknown transport"));
    assert!(TransportKind::parse("redundant:0").is_err());
    for k in ["unreliable", "redundant:3", "tcp-like", "kcp-like"] {
        assert_eq!(TransportKind::parse(k).unwrap().to_string(), k);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// For any loss below 100%, any duplication, reordering, jitter and
    /// corruption, reliable transports deliver every message exactly once,
    /// in order.
    #[test]
    fn reliable_delivery_is_exactly_once_in_order(
        tcp in any::<bool>(),
        delay in 1u32..80,
        jitter in 0u32..30,
        loss in 0u32..40,
        dup in 0u32..10,
        reorder in 0u32..20,
        corrupt in 0u32..5,
        seed in 0u64..10_000,
    ) {
        let kind = if tcp { TransportKind::TcpLike } else { TransportKind::KcpLike };
        let spec = format!("delay {delay}ms {jitter}ms loss {loss}% duplicate {dup}% reorder {reorder}% corrupt {corrupt}%");
        let (got, _, _) = exchange(kind, &spec, 60, seed, 3_600_000_000);
        let want: Vec<u32> = (0..60).collect();
        prop_assert_eq!(&got[0], &want);
        prop_assert_eq!(&got[1], &want);
    }
}
