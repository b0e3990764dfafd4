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
use super::netem::{LossModel, Netem};
use super::profile::Profile;
use super::recorded::Delays;
use crate::math::round4;
use crate::rng::{Purpose, Stream};
use crate::time::Micros;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

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
pub fn probe_link(link: Link, n: u64, spacing_us: u64, payload: usize) -> ProbeStats {
    let (first, late, copies) = first_arrivals(link, n, spacing_us, payload);
    let delays: Vec<f64> = first.iter().flatten().map(|&us| us as f64 / 1000.0).collect();
    summary(n, delays, late, copies)
}

/// Each of `n` probe packets' delay through `link` (as [`probe_link`]
/// sends them): `(send time µs, delay µs or lost)`, a delay recording of
/// the link as the packets met it.
pub fn probe_delays(link: Link, n: u64, spacing_us: u64, payload: usize) -> Vec<(u64, Option<u32>)> {
    let (first, _, _) = first_arrivals(link, n, spacing_us, payload);
    let clamp = |us: u64| us.min(u32::MAX as u64) as u32;
    first.into_iter().enumerate().map(|(i, d)| (i as u64 * spacing_us, d.map(clamp))).collect()
}

/// Per probe the delay of its first copy (µs, `None`: lost), how many
/// first copies came after a later probe's, and the copies received.
fn first_arrivals(mut link: Link, n: u64, spacing_us: u64, payload: usize) -> (Vec<Option<u64>>, u64, u64) {
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
    (first, late, copies)
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

/// `profile show`'s look at a profile: both directions probed with the
/// same packets (each replaying its recording, if any), beside the
/// recordings' own samples and the timed events the probe leaves out.
pub struct Shown<'p> {
    /// The profile.
    pub profile: &'p Profile,
    /// Probe packets per direction.
    pub packets: u64,
    /// Time between probe packets, µs.
    pub spacing_us: u64,
    /// Probe payload, bytes.
    pub payload: usize,
    /// The seed the links draw from.
    pub seed: u64,
    /// The uplink as probed.
    pub up: ProbeStats,
    /// The downlink as probed.
    pub down: ProbeStats,
}

impl<'p> Shown<'p> {
    /// Probes both directions of `p` (events aside).
    pub fn new(p: &'p Profile, packets: u64, spacing_us: u64, payload: usize, seed: u64) -> Shown<'p> {
        let measure = |up: bool| {
            let spec = if up { &p.uplink } else { &p.downlink };
            let link = Link::new(spec.clone(), p.correlation, probe_stream(seed)).replaying(
                p.replay[usize::from(!up)].as_ref(),
                seed,
                0xB0B,
            );
            probe_link(link, packets, spacing_us, payload)
        };
        let (up, down) = (measure(true), measure(false));
        Shown { profile: p, packets, spacing_us, payload, seed, up, down }
    }

    /// Direction `i`'s (0 up, 1 down) recording, in a probe's terms.
    fn in_file(&self, i: usize) -> Option<ProbeStats> {
        self.profile.recorded_delays(i).map(recorded)
    }

    /// The JSON document.
    pub fn to_json(&self) -> serde_json::Value {
        let p = self.profile;
        let events: Vec<String> = p.events.iter().map(|e| e.describe()).collect();
        serde_json::json!({
            "name": p.name, "description": p.description, "source": p.source,
            "correlation": p.correlation.name(), "mtu": p.mtu,
            "uplink": p.uplink.to_string(), "downlink": p.downlink.to_string(),
            "events": events,
            "probe": {"packets": self.packets, "spacing_us": self.spacing_us, "payload": self.payload, "seed": self.seed},
            "uplink_measured": self.up, "downlink_measured": self.down,
            "uplink_replay": p.replay[0].as_ref().map(|r| r.to_string()),
            "downlink_replay": p.replay[1].as_ref().map(|r| r.to_string()),
            "uplink_recorded": self.in_file(0), "downlink_recorded": self.in_file(1),
        })
    }

    /// The text: what the profile is, `notes` on how it was written, then a
    /// row per direction with its netem, recording and caveats.
    pub fn to_text(&self, notes: &[String]) -> String {
        let p = self.profile;
        let mut out = String::new();
        let _ = writeln!(out, "profile {}", p.name);
        if !p.description.is_empty() {
            let _ = writeln!(out, "  {}", p.description);
        }
        if !p.source.is_empty() {
            let _ = writeln!(out, "  source: {}", p.source);
        }
        let _ = writeln!(out, "  correlation: {}", p.correlation.name());
        let _ = writeln!(out, "  mtu: {} bytes (larger datagrams leave in IP fragments)", p.mtu);
        for note in notes {
            let _ = writeln!(out, "  note: {note}");
        }
        let (packets, payload, spacing_us, seed) = (self.packets, self.payload, self.spacing_us, self.seed);
        let _ =
            writeln!(out, "  probe: {packets} packets of {payload} B every {spacing_us} us per direction, seed {seed}");
        out.push('\n');
        let _ = writeln!(
            out,
            "{:<9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            "", "mean ms", "sd ms", "p50 ms", "p90 ms", "p99 ms", "loss %", "reord %", "dup %"
        );
        for (i, (name, spec, m)) in
            [("uplink", &p.uplink, &self.up), ("downlink", &p.downlink, &self.down)].into_iter().enumerate()
        {
            self.direction_text(&mut out, i, name, spec, m);
        }
        if !p.events.is_empty() {
            out.push('\n');
            let _ = writeln!(out, "timed events (not in the probe above):");
            for e in &p.events {
                let _ = writeln!(out, "  {}", e.describe());
            }
        }
        out
    }

    /// One direction's rows: as probed, its netem, what it replays and its
    /// recording's own samples, its rate in both units, and a warning
    /// where the kernel's loss correlation changes the loss.
    fn direction_text(&self, out: &mut String, i: usize, name: &str, spec: &Netem, m: &ProbeStats) {
        let p = self.profile;
        let _ = writeln!(
            out,
            "{:<9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            name,
            m.delay_mean_ms,
            m.delay_sd_ms,
            m.delay_p50_ms,
            m.delay_p90_ms,
            m.delay_p99_ms,
            m.loss * 100.0,
            m.reorder * 100.0,
            m.duplicate * 100.0
        );
        let _ = writeln!(out, "          netem: {spec}");
        if let Some(r) = &p.replay[i] {
            let _ = writeln!(out, "          replays: {r}");
        }
        if let Some(f) = self.in_file(i) {
            let _ = writeln!(
                out,
                "{:<9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}   (the recording's own {} samples)",
                "  file",
                f.delay_mean_ms,
                f.delay_sd_ms,
                f.delay_p50_ms,
                f.delay_p90_ms,
                f.delay_p99_ms,
                f.loss * 100.0,
                f.sent
            );
        }
        if let Some(r) = spec.rate {
            // tc's units surprise: `bps` is bytes per second, `bit` bits.
            let _ = writeln!(
                out,
                "          rate: {:.3} Mbit/s = {} bytes/s (tc's `kbit`, `mbit` are bits; `kbps`, `mbps` bytes per second)",
                r.bytes_per_s as f64 * 8.0 / 1e6,
                r.bytes_per_s
            );
        }
        if let LossModel::Random { p: lp, corr } = spec.loss {
            if corr.is_set() && p.correlation == Correlation::Kernel {
                let _ = writeln!(
                    out,
                    "          note: with netem-compatible correlation, `loss {:.3}% {:.0}%` loses {:.2}%, not {:.3}% (the kernel's correlation collapses it; use `correlation = \"correct\"` or `loss gemodel` for bursts)",
                    lp.percent(),
                    corr.percent(),
                    m.loss * 100.0,
                    lp.percent()
                );
            }
        }
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
