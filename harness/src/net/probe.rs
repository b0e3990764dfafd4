//! A probe: the same measurement the kernel validation script makes on a
//! real netem link, run through a simulated [`Link`]. `n` packets of
//! `payload` bytes, one every `spacing`; per packet the one-way delay of its
//! first copy; loss, duplicate and reorder shares.
//!
//! [`recorded`] states a delay recording's own distribution in the same
//! terms, to set beside a probe of the link that replays it.
//!
//! Reorder share: packets whose first copy arrives after a packet sent
//! later (a late arrival), over packets received.

use super::link::{Correlation, Link};
use super::netem::Netem;
use super::recorded::Delays;
use crate::metrics::stats::round4;
use crate::rng::{Purpose, Stream};
use crate::time::Micros;
use serde::{Deserialize, Serialize};

/// What a probe measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProbeStats {
    /// Packets sent.
    pub sent: u64,
    /// Distinct packets received.
    pub received: u64,
    /// Mean one-way delay, ms.
    pub delay_mean_ms: f64,
    /// Standard deviation of the delay, ms.
    pub delay_sd_ms: f64,
    /// Median delay, ms.
    pub delay_p50_ms: f64,
    /// 90th percentile delay, ms.
    pub delay_p90_ms: f64,
    /// 99th percentile delay, ms.
    pub delay_p99_ms: f64,
    /// Share of packets lost.
    pub loss: f64,
    /// Share of received packets that arrived after a later-sent one.
    pub reorder: f64,
    /// Extra copies per packet sent.
    pub duplicate: f64,
}

/// Sends `n` probe packets through a link applying `spec`.
pub fn probe(spec: &Netem, correlation: Correlation, n: u64, spacing_us: u64, payload: usize, seed: u64) -> ProbeStats {
    probe_link(Link::new(spec.clone(), correlation, probe_stream(seed)), n, spacing_us, payload)
}

/// The random stream a probe's link draws from.
pub fn probe_stream(seed: u64) -> Stream {
    Stream::new(seed, Purpose::Uplink, 0xB0B)
}

/// What a delay recording holds, in a probe's terms: the distribution of
/// its samples (each counted once) and the share of them lost.
pub fn recorded(delays: &Delays) -> ProbeStats {
    let mut n = 0u64;
    let mut got: Vec<f64> = Vec::new();
    for (_, d) in delays.iter() {
        n += 1;
        got.extend(d.map(|us| us as f64 / 1000.0));
    }
    summary(n, got, 0, 0)
}

/// Sends `n` probe packets of `payload` bytes, one every `spacing_us`,
/// through `link`.
pub fn probe_link(mut link: Link, n: u64, spacing_us: u64, payload: usize) -> ProbeStats {
    // (arrival, seq) of every copy; slotted links are drained as they wake.
    let mut arrivals: Vec<(Micros, u64)> = Vec::new();
    let mut held: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
    let drain = |link: &mut Link,
                 until: Micros,
                 held: &mut std::collections::BTreeMap<u64, u64>,
                 arrivals: &mut Vec<(Micros, u64)>| {
        while let Some(w) = link.next_wake().filter(|w| *w <= until) {
            for t in link.release(w) {
                if let Some(seq) = held.remove(&t) {
                    arrivals.push((w, seq));
                }
            }
            if link.next_wake() == Some(w) {
                break;
            }
        }
    };
    for seq in 0..n {
        let now = Micros(seq * spacing_us);
        drain(&mut link, now, &mut held, &mut arrivals);
        for d in link.send(now, payload).iter() {
            match d.held {
                Some(t) => {
                    held.insert(t, seq);
                }
                None => arrivals.push((d.time, seq)),
            }
        }
        if link.has_slots() {
            for t in link.release(now) {
                if let Some(s) = held.remove(&t) {
                    arrivals.push((now, s));
                }
            }
        }
    }
    drain(&mut link, Micros(u64::MAX / 2), &mut held, &mut arrivals);
    arrivals.sort();
    let mut first: Vec<Option<u64>> = vec![None; n as usize];
    let mut copies = 0u64;
    let mut max_seq: Option<u64> = None;
    let mut late = 0u64;
    for &(t, seq) in &arrivals {
        copies += 1;
        if first[seq as usize].is_none() {
            first[seq as usize] = Some(t.0 - seq * spacing_us);
            if max_seq.is_some_and(|m| m > seq) {
                late += 1;
            }
            max_seq = Some(max_seq.map_or(seq, |m| m.max(seq)));
        }
    }
    let delays: Vec<f64> = first.iter().flatten().map(|&us| us as f64 / 1000.0).collect();
    summary(n, delays, late, copies)
}

/// The probe's figures from `delays` (ms) of the packets received out of
/// `n`, `late` of them after a later one, `copies` copies in all.
fn summary(n: u64, mut delays: Vec<f64>, late: u64, copies: u64) -> ProbeStats {
    delays.sort_by(|a, b| a.total_cmp(b));
    let received = delays.len() as u64;
    let pct = |p: f64| if delays.is_empty() { 0.0 } else { delays[((delays.len() - 1) as f64 * p).round() as usize] };
    let mean = if delays.is_empty() { 0.0 } else { delays.iter().sum::<f64>() / delays.len() as f64 };
    let sd = if delays.is_empty() {
        0.0
    } else {
        (delays.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / delays.len() as f64).sqrt()
    };
    ProbeStats {
        sent: n,
        received,
        delay_mean_ms: round4(mean),
        delay_sd_ms: round4(sd),
        delay_p50_ms: round4(pct(0.5)),
        delay_p90_ms: round4(pct(0.9)),
        delay_p99_ms: round4(pct(0.99)),
        loss: round4(1.0 - received as f64 / n.max(1) as f64),
        reorder: round4(late as f64 / received.max(1) as f64),
        duplicate: round4(copies.saturating_sub(received) as f64 / n.max(1) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_measures_what_netem_promises() {
        let s = probe(&Netem::parse("delay 50ms 10ms").unwrap(), Correlation::Kernel, 20_000, 2_000, 100, 1);
        assert!((s.delay_mean_ms - 50.0).abs() < 0.3, "{s:?}");
        // Uniform ±10 ms: SD 10/√3 = 5.77 ms (the note measured 5.8 on UML).
        assert!((s.delay_sd_ms - 5.77).abs() < 0.2, "{s:?}");
        // The note's kernel measurement: 58.6% of 2 ms-spaced packets reordered.
        assert!((s.reorder - 0.586).abs() < 0.05, "{s:?}");
        let s = probe(
            &Netem::parse("delay 10ms loss 5% duplicate 2%").unwrap(),
            Correlation::Kernel,
            20_000,
            2_000,
            100,
            2,
        );
        assert!((s.loss - 0.05).abs() < 0.01 && (s.duplicate - 0.019).abs() < 0.006, "{s:?}");
        let s = probe(&Netem::parse("slot 10ms 10ms packets 3").unwrap(), Correlation::Kernel, 300, 1_000, 100, 3);
        assert_eq!(s.received, 300);
        assert!(s.delay_mean_ms > 3.0, "slots add waiting: {s:?}");
    }
}
