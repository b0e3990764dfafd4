//! A regime model of a recorded link: delay and loss that move in runs, as
//! real links do, where netem draws each packet's delay afresh.
//!
//! **The model.** A direction is in one regime at a time: its delay's
//! *low* or *high* level, or an *outage* (every packet lost). A regime is
//! held for a dwell drawn from the recording's own run lengths in it, then
//! hands over to another with the recording's transition shares (a
//! semi-Markov chain). Inside a delay regime each sample's delay is drawn
//! from the regime's recorded distribution (a quantile table of
//! [`QUANTILES`] points) through a Gaussian copula: its normal score is a
//! share `slow` of a slowly moving AR(1) process (persistence `memory` a
//! step) and the rest fresh noise, so successive delays move together as
//! recorded, the correlation falling off as `slow · memory^k` over `k`
//! steps; a regime loses single packets at its recorded share. Outages are the recording's runs of two or more lost
//! samples, their durations the recorded ones.
//!
//! A delivery-opportunity trace (a Mahimahi pair) is modelled the same
//! way in its own terms ([`RegimeModel::fit_opportunities`]): the
//! opportunities in each [`BIN_MS`] are the value, a run of two or more
//! empty bins an outage, and the generated trace is replayed through the
//! recording's queue, so delays build up behind an outage as they do
//! behind the recorded ones.
//!
//! **Fitting** ([`RegimeModel::fit`]), from any delay recording (a series,
//! a timed CSV, or a ping or IRTT log):
//!
//! 1. runs of two or more lost samples are outages; a single loss belongs
//!    to the regime around it;
//! 2. each delivered sample's level is the median of the log delays within
//!    [`SMOOTH_US`] of it; the levels split in two at the threshold that
//!    best separates them (Otsu's: the largest between-class variance);
//!    a link whose levels never differ has one delay regime;
//! 3. delay runs shorter than half the smoothing window join the run
//!    before them (else the one after), so a regime is a level held, not
//!    one packet's jitter;
//! 4. per regime: its delays, its single losses' share, its run lengths
//!    (dwell), where each run went next, and its correlation in time: the
//!    rank correlations `ρs` of its delays one step and [`FAR_STEPS`] steps
//!    apart, each as a Gaussian correlation `2·sin(π·ρs/6)`, solve
//!    `slow · memory` and `slow · memory^FAR_STEPS` (one AR(1) of the
//!    one-step correlation when they do not).
//!
//! **Replay.** [`RegimeModel::generate`] draws a delay series at the
//! recording's spacing from a seeded stream; a profile replays it as it
//! would the recording ([`super::replay`]): each node from its own offset,
//! in FIFO order.

use super::replay::{Order, Replay};
use super::{median_spacing, Delays, Opportunities};
use crate::error::Source;
use crate::math::pearson;
use crate::rng::{Purpose, Stream};
use std::sync::Arc;

/// Points in a regime's delay quantile table.
pub const QUANTILES: usize = 1025;

/// Points in a regime's dwell quantile table (at most).
pub const DWELL_QUANTILES: usize = 257;

/// The window a delivered sample's level is the median over, µs each side.
pub const SMOOTH_US: u64 = 250_000;

/// The bin a delivery-opportunity trace is counted in, ms.
pub const BIN_MS: u64 = 50;

/// How long a generated series lasts before it repeats, µs (30 minutes).
pub const GENERATED_US: u64 = 1_800_000_000;

/// The most samples a generated series holds.
pub const MAX_GENERATED: u64 = 2_000_000;

/// What a regime is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The lower delay level.
    Low,
    /// The higher delay level.
    High,
    /// Every packet lost.
    Outage,
}

impl Kind {
    /// Its name in a fit.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Low => "low",
            Kind::High => "high",
            Kind::Outage => "outage",
        }
    }
}

/// One regime.
#[derive(Clone, Debug, PartialEq)]
pub struct Regime {
    /// What it is.
    pub kind: Kind,
    /// Quantiles of its value (a delay, µs, or opportunities a bin) at
    /// probabilities `i / (QUANTILES − 1)` (empty for an outage).
    pub values: Vec<f64>,
    /// Share of its samples lost singly.
    pub loss: f64,
    /// Dwell quantiles, in samples, at evenly spaced probabilities.
    pub dwell: Vec<f64>,
    /// Per regime (this one's entry 0), the share of its runs followed by it.
    pub next: Vec<f64>,
    /// The share of the normal score that moves slowly.
    pub slow: f64,
    /// The slow part's correlation from one step to the next.
    pub memory: f64,
    /// Share of the recording's samples in it.
    pub share: f64,
    /// Runs of it in the recording.
    pub runs: u64,
}

impl Regime {
    /// Mean dwell, samples.
    pub fn mean_dwell(&self) -> f64 {
        // The table's mean: the quantile function's integral.
        mean_of_table(&self.dwell)
    }

    /// The value at probability `u`.
    pub fn value_at(&self, u: f64) -> f64 {
        table_at(&self.values, u)
    }
}

/// What a model's values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// One-way delay, µs; a lost sample is a lost packet.
    Delay,
    /// Delivery opportunities in a [`BIN_MS`] bin; a lost sample is an
    /// empty bin.
    Opportunities,
}

/// The fitted model of one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct RegimeModel {
    /// What its values are.
    pub quantity: Quantity,
    /// The step samples are drawn at, µs (the recording's median spacing,
    /// or the bin).
    pub spacing_us: u64,
    /// The regimes, low first, outage last.
    pub regimes: Vec<Regime>,
}

impl RegimeModel {
    /// Fits `delays` (see the module docs). `None` if nothing was delivered.
    pub fn fit(delays: &Delays) -> Option<RegimeModel> {
        let spacing_us = median_spacing(delays.iter().map(|s| s.0)).unwrap_or(10_000).max(1);
        let samples: Vec<Option<f64>> = delays.iter().map(|(_, d)| d.map(f64::from)).collect();
        Self::fit_values(&samples, spacing_us, Quantity::Delay)
    }

    /// Fits a delivery-opportunity trace's counts per [`BIN_MS`] (see the
    /// module docs).
    pub fn fit_opportunities(o: &Opportunities) -> Option<RegimeModel> {
        let samples: Vec<Option<f64>> = o.counts(BIN_MS).into_iter().map(|c| (c > 0).then_some(c as f64)).collect();
        Self::fit_values(&samples, BIN_MS * 1000, Quantity::Opportunities)
    }

    fn fit_values(samples: &[Option<f64>], spacing_us: u64, quantity: Quantity) -> Option<RegimeModel> {
        if samples.iter().all(Option::is_none) {
            return None;
        }
        let half = (SMOOTH_US / spacing_us).max(1) as usize;
        let labels = label(samples, half);
        let runs = merge_short(runs_of(&labels), half);
        Some(RegimeModel { quantity, spacing_us, regimes: regimes(samples, &runs) })
    }

    /// `n` samples drawn from `rng`, one every `spacing_us`: `(time µs,
    /// delay µs or lost)`.
    pub fn generate(&self, n: u64, rng: &mut Stream) -> Vec<(u64, Option<u32>)> {
        let mut out: Vec<(u64, Option<u32>)> = Vec::with_capacity(n as usize);
        let shares: Vec<f64> = self.regimes.iter().map(|r| r.share).collect();
        let mut state = pick(&shares, rng);
        let mut z = normal(rng);
        while (out.len() as u64) < n {
            let r = &self.regimes[state];
            let dwell = table_at(&r.dwell, unit(rng)).round().max(1.0) as u64;
            let keep = r.memory.clamp(0.0, 1.0);
            let fresh = libm::sqrt(1.0 - keep * keep);
            let (a, b) = (libm::sqrt(r.slow.clamp(0.0, 1.0)), libm::sqrt(1.0 - r.slow.clamp(0.0, 1.0)));
            for _ in 0..dwell.min(n - out.len() as u64) {
                let t = out.len() as u64 * self.spacing_us;
                let d = match r.kind {
                    Kind::Outage => None,
                    _ => {
                        z = keep * z + fresh * normal(rng);
                        let score = a * z + b * normal(rng);
                        let u = 0.5 * libm::erfc(-score / std::f64::consts::SQRT_2);
                        let us = r.value_at(u).round().clamp(0.0, u32::MAX as f64) as u32;
                        (unit(rng) >= r.loss).then_some(us)
                    }
                };
                out.push((t, d));
            }
            if r.next.iter().any(|&p| p > 0.0) {
                state = pick(&r.next, rng);
            }
        }
        out
    }

    /// The series a profile replays: [`GENERATED_US`] of samples (at most
    /// [`MAX_GENERATED`]) drawn from the stream `(seed, Replay, index)`.
    pub fn series(&self, seed: u64, index: u64) -> Vec<(u64, Option<u32>)> {
        let n = (GENERATED_US / self.spacing_us).clamp(1, MAX_GENERATED);
        self.generate(n, &mut Stream::new(seed, Purpose::Replay, 0x4E61_0000 + index))
    }

    /// What a profile replays in place of `like`: a generated series
    /// ([`RegimeModel::series`]) as a delay recording, or as a
    /// delivery-opportunity trace through `like`'s queue; in order, read
    /// from where `like` starts.
    pub fn replay(&self, seed: u64, index: u64, like: &Replay) -> Replay {
        let series = self.series(seed, index);
        let (delays, opportunities) = match self.quantity {
            Quantity::Delay => (
                Some(Arc::new(
                    Delays::samples(series, &Source::BuiltIn("regime model".into()))
                        .expect("generated samples are strictly increasing in time"),
                )),
                None,
            ),
            Quantity::Opportunities => {
                let counts: Vec<u32> = series.iter().map(|s| s.1.unwrap_or(0)).collect();
                // A model always delivers: its regimes came from bins that did.
                (None, Opportunities::from_counts(&counts, BIN_MS).map(Arc::new))
            }
        };
        Replay {
            delays,
            opportunities,
            queue: like.queue,
            order: Order::Fifo,
            aligned: like.aligned,
            from: format!("regime model of {}", like.from),
        }
    }
}

/// Per sample: 0 low, 1 high, 2 outage.
fn label(samples: &[Option<f64>], half: usize) -> Vec<u8> {
    let n = samples.len();
    // Each delivered sample's level: the median log delay within `half`.
    let logs: Vec<Option<f64>> = samples.iter().map(|d| d.map(|us| libm::log(us.max(1.0)))).collect();
    let mut window: Vec<f64> = Vec::new();
    let mut level: Vec<Option<f64>> = vec![None; n];
    let (mut lo, mut hi) = (0usize, 0usize);
    for (i, lv) in level.iter_mut().enumerate() {
        while hi < n && hi <= i + half {
            if let Some(v) = logs[hi] {
                insert_sorted(&mut window, v);
            }
            hi += 1;
        }
        while lo + half < i {
            if let Some(v) = logs[lo] {
                remove_sorted(&mut window, v);
            }
            lo += 1;
        }
        if logs[i].is_some() {
            *lv = Some(window[window.len() / 2]);
        }
    }
    let threshold = otsu(level.iter().flatten().copied().collect());
    let mut labels: Vec<u8> =
        level.iter().map(|l| u8::from(threshold.is_some_and(|t| l.is_some_and(|v| v > t)))).collect();
    // Lost samples: a run of two or more is an outage, a single loss takes
    // the level before it (or after, at the start).
    let mut i = 0;
    while i < n {
        if samples[i].is_some() {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && samples[i].is_none() {
            i += 1;
        }
        let fill = if i - start >= 2 {
            2
        } else if start > 0 {
            labels[start - 1]
        } else if i < n {
            labels[i]
        } else {
            0
        };
        labels[start..i].fill(fill);
    }
    labels
}

fn insert_sorted(v: &mut Vec<f64>, x: f64) {
    let at = v.partition_point(|&y| y < x);
    v.insert(at, x);
}

fn remove_sorted(v: &mut Vec<f64>, x: f64) {
    let at = v.partition_point(|&y| y < x);
    v.remove(at);
}

/// The threshold between two classes of `values` with the largest
/// between-class variance, or `None` when every value is the same.
fn otsu(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n < 2 || values[0] == values[n - 1] {
        return None;
    }
    let total: f64 = values.iter().sum();
    let (mut below, mut best, mut at) = (0.0, -1.0, None);
    for k in 1..n {
        below += values[k - 1];
        if values[k] == values[k - 1] {
            continue;
        }
        let (w0, w1) = (k as f64, (n - k) as f64);
        let gap = below / w0 - (total - below) / w1;
        let between = w0 * w1 * gap * gap;
        if between > best {
            best = between;
            at = Some((values[k - 1] + values[k]) / 2.0);
        }
    }
    at
}

/// A run: its label, first sample and length.
type Run = (u8, usize, usize);

fn runs_of(labels: &[u8]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, &l) in labels.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if r.0 == l => r.2 += 1,
            _ => runs.push((l, i, 1)),
        }
    }
    runs
}

/// Delay runs shorter than `half` join the delay run before them, else
/// the one after; neighbours of one label then join.
fn merge_short(runs: Vec<Run>, half: usize) -> Vec<Run> {
    let mut labels: Vec<u8> = runs.iter().map(|r| r.0).collect();
    for k in 0..runs.len() {
        if runs[k].0 == 2 || runs[k].2 >= half {
            continue;
        }
        let before = (k > 0).then(|| labels[k - 1]).filter(|&l| l != 2);
        let after = runs.get(k + 1).map(|r| r.0).filter(|&l| l != 2);
        if let Some(l) = before.or(after) {
            labels[k] = l;
        }
    }
    let mut out: Vec<Run> = Vec::new();
    for (r, l) in runs.into_iter().zip(labels) {
        match out.last_mut() {
            Some(o) if o.0 == l => o.2 += r.2,
            _ => out.push((l, r.1, r.2)),
        }
    }
    out
}

fn regimes(samples: &[Option<f64>], runs: &[Run]) -> Vec<Regime> {
    let present: Vec<u8> = (0..3u8).filter(|l| runs.iter().any(|r| r.0 == *l)).collect();
    let index = |l: u8| present.iter().position(|&p| p == l).expect("a present label");
    let mut out = Vec::new();
    for &l in &present {
        let mine: Vec<&Run> = runs.iter().filter(|r| r.0 == l).collect();
        let mut next = vec![0.0; present.len()];
        for w in runs.windows(2).filter(|w| w[0].0 == l) {
            next[index(w[1].0)] += 1.0;
        }
        let went: f64 = next.iter().sum();
        next.iter_mut().for_each(|p| *p /= went.max(1.0));
        let mut dwell: Vec<f64> = mine.iter().map(|r| r.2 as f64).collect();
        dwell.sort_by(f64::total_cmp);
        let count: usize = mine.iter().map(|r| r.2).sum();
        let mut delays: Vec<f64> =
            mine.iter().flat_map(|r| samples[r.1..r.1 + r.2].iter().flatten().copied()).collect();
        delays.sort_by(f64::total_cmp);
        let lost = count - delays.len();
        let kind = [Kind::Low, Kind::High, Kind::Outage][l as usize];
        let (slow, memory) = if kind == Kind::Outage { (0.0, 0.0) } else { correlation(samples, &mine, &delays) };
        out.push(Regime {
            kind,
            values: if kind == Kind::Outage { Vec::new() } else { table(&delays, QUANTILES) },
            loss: if kind == Kind::Outage { 1.0 } else { lost as f64 / count as f64 },
            dwell: table(&dwell, DWELL_QUANTILES.min(dwell.len().max(2))),
            next,
            slow,
            memory,
            share: count as f64 / samples.len() as f64,
            runs: mine.len() as u64,
        });
    }
    out
}

/// Steps apart of the second correlation a regime's memory is fitted to.
pub const FAR_STEPS: usize = 10;

/// A regime's `(slow, memory)`: the Gaussian correlations of its delays one
/// and [`FAR_STEPS`] steps apart (within its runs), from their rank
/// correlations, as `slow · memory^k`.
fn correlation(samples: &[Option<f64>], runs: &[&Run], sorted: &[f64]) -> (f64, f64) {
    let rank = |d: f64| {
        let (a, b) = (sorted.partition_point(|&x| x < d), sorted.partition_point(|&x| x <= d));
        (a + b) as f64 / 2.0 / sorted.len() as f64
    };
    let gaussian = |k: usize| {
        let pairs: Vec<(f64, f64)> = runs
            .iter()
            .flat_map(|r| {
                let run = &samples[r.1..r.1 + r.2];
                run.iter().zip(run.iter().skip(k))
            })
            .filter_map(|(a, b)| Some((rank((*a)?), rank((*b)?))))
            .collect();
        let rho = pearson(&pairs).unwrap_or(0.0);
        (2.0 * libm::sin(std::f64::consts::PI * rho / 6.0)).clamp(0.0, 0.9999)
    };
    let (near, far) = (gaussian(1), gaussian(FAR_STEPS));
    if near <= 0.0 {
        return (0.0, 0.0);
    }
    let memory = libm::pow((far / near).clamp(0.0, 0.9999), 1.0 / (FAR_STEPS - 1) as f64);
    if far > 0.0 && memory > near {
        (near / memory, memory)
    } else {
        (1.0, near)
    }
}

/// `points` quantiles of sorted `v` at evenly spaced probabilities,
/// linearly interpolated.
fn table(v: &[f64], points: usize) -> Vec<f64> {
    if v.is_empty() {
        return vec![0.0; points];
    }
    (0..points)
        .map(|i| {
            let pos = i as f64 / (points - 1).max(1) as f64 * (v.len() - 1) as f64;
            let k = pos as usize;
            let f = pos - k as f64;
            v[k] + (v[(k + 1).min(v.len() - 1)] - v[k]) * f
        })
        .collect()
}

/// The quantile table `t` at probability `u`, linearly interpolated.
fn table_at(t: &[f64], u: f64) -> f64 {
    if t.len() < 2 {
        return t.first().copied().unwrap_or(0.0);
    }
    let pos = u.clamp(0.0, 1.0) * (t.len() - 1) as f64;
    let k = (pos as usize).min(t.len() - 2);
    t[k] + (t[k + 1] - t[k]) * (pos - k as f64)
}

/// The mean of a quantile table's distribution (trapezoids).
fn mean_of_table(t: &[f64]) -> f64 {
    if t.len() < 2 {
        return t.first().copied().unwrap_or(0.0);
    }
    t.windows(2).map(|w| (w[0] + w[1]) / 2.0).sum::<f64>() / (t.len() - 1) as f64
}

/// An index drawn with the given weights.
fn pick(weights: &[f64], rng: &mut Stream) -> usize {
    let total: f64 = weights.iter().sum();
    let mut u = unit(rng) * total;
    for (i, w) in weights.iter().enumerate() {
        if u < *w {
            return i;
        }
        u -= w;
    }
    weights.iter().rposition(|&w| w > 0.0).unwrap_or(0)
}

/// Uniform on [0, 1).
fn unit(rng: &mut Stream) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Stream) -> f64 {
    let (u1, u2) = (1.0 - unit(rng), unit(rng));
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delays(samples: Vec<(u64, Option<u32>)>) -> Delays {
        Delays::samples(samples, &Source::Inline("t".into())).unwrap()
    }

    /// A path that switches between 10 ms (held 3 s) and 50 ms (held 1 s),
    /// with a 400 ms outage every 8 s: two delay regimes and an outage,
    /// each with its level, dwell and share, and the switches in order.
    #[test]
    fn a_switching_path_fits_its_regimes() {
        let samples: Vec<(u64, Option<u32>)> = (0..12_000u64)
            .map(|i| {
                let t = i * 10; // ms
                let d = if t % 4_000 < 3_000 { 10_000 } else { 50_000 };
                (i * 10_000, (t % 8_000 < 7_600).then_some(d + (i % 7) as u32 * 100))
            })
            .collect();
        let m = RegimeModel::fit(&delays(samples)).unwrap();
        let kinds: Vec<Kind> = m.regimes.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [Kind::Low, Kind::High, Kind::Outage]);
        let (low, high, out) = (&m.regimes[0], &m.regimes[1], &m.regimes[2]);
        assert!((low.value_at(0.5) - 10_300.0).abs() < 400.0, "{low:?}");
        assert!((high.value_at(0.5) - 50_300.0).abs() < 400.0, "{high:?}");
        // Outages of 40 samples, 15 of them; the low level's runs are 3 s,
        // the high 1 s or 0.6 s (cut by an outage).
        assert_eq!(out.runs, 15);
        assert!((out.mean_dwell() - 40.0).abs() < 1e-9, "{out:?}");
        assert!((high.mean_dwell() - 80.0).abs() < 5.0, "{high:?}");
        assert!((low.mean_dwell() - 300.0).abs() < 10.0, "{low:?}");
        assert!((out.share - 0.05).abs() < 0.002);
        assert_eq!(low.loss, 0.0);
        // Low hands over to high or an outage; an outage always to low.
        assert!(out.next[0] > 0.99, "{out:?}");
    }

    /// A generated series reproduces the fitted regimes: its own fit has
    /// the same shares, dwells and levels.
    #[test]
    fn a_generated_series_fits_back_to_its_model() {
        let samples: Vec<(u64, Option<u32>)> = (0..30_000u64)
            .map(|i| {
                let t = i * 10;
                let d = if (t / 1_700) % 3 == 0 { 80_000 } else { 20_000 } + (crate::rng::mix64(i) % 5_000) as u32;
                (i * 10_000, (t % 13_000 >= 300).then_some(d))
            })
            .collect();
        let m = RegimeModel::fit(&delays(samples)).unwrap();
        let g = RegimeModel::fit(&delays(m.series(1, 0))).unwrap();
        assert_eq!(m.regimes.len(), g.regimes.len());
        for (a, b) in m.regimes.iter().zip(&g.regimes) {
            assert_eq!(a.kind, b.kind);
            assert!((a.share - b.share).abs() < 0.03, "{a:?}\n{b:?}");
            assert!((a.mean_dwell() - b.mean_dwell()).abs() < 0.15 * a.mean_dwell(), "{a:?}\n{b:?}");
            if a.kind != Kind::Outage {
                assert!((a.value_at(0.5) - b.value_at(0.5)).abs() < 1_000.0, "{a:?}\n{b:?}");
            }
        }
    }

    /// Independent delays keep no memory; a slow random walk keeps much.
    #[test]
    fn memory_is_the_delays_lag_one_correlation() {
        let iid: Vec<(u64, Option<u32>)> =
            (0..20_000u64).map(|i| (i * 10_000, Some(20_000 + (crate::rng::mix64(i) % 10_000) as u32))).collect();
        let m = RegimeModel::fit(&delays(iid)).unwrap();
        assert!(m.regimes.iter().all(|r| r.slow * r.memory < 0.05), "{:?}", m.regimes);
        let mut level = 20_000i64;
        let walk: Vec<(u64, Option<u32>)> = (0..20_000u64)
            .map(|i| {
                level = (level + (crate::rng::mix64(i) % 201) as i64 - 100).clamp(15_000, 25_000);
                (i * 10_000, Some(level as u32))
            })
            .collect();
        let m = RegimeModel::fit(&delays(walk)).unwrap();
        assert!(m.regimes.iter().all(|r| r.slow * r.memory > 0.9), "{:?}", m.regimes);
    }

    /// A delivery-opportunity trace with a 2 s blackout every 20 s and
    /// two rates between: an outage regime of 2 s runs, and a generated
    /// trace that carries the recording's mean rate.
    #[test]
    fn a_trace_with_blackouts_fits_an_outage_regime() {
        // Per ms: one opportunity every 2 ms (6 Mbit/s) for 9 s, every
        // 8 ms for 9 s, then nothing for 2 s; 10 minutes.
        let text: String = (1..=600_000u64)
            .filter(|t| {
                let phase = t % 20_000;
                (phase < 9_000 && t % 2 == 0) || ((9_000..18_000).contains(&phase) && t % 8 == 0)
            })
            .map(|t| format!("{t}\n"))
            .collect();
        let o = Opportunities::parse(&text, &Source::Inline("t".into())).unwrap();
        let m = RegimeModel::fit_opportunities(&o).unwrap();
        assert_eq!(m.quantity, Quantity::Opportunities);
        let kinds: Vec<Kind> = m.regimes.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [Kind::Low, Kind::High, Kind::Outage]);
        let out = &m.regimes[2];
        assert!((out.mean_dwell() * BIN_MS as f64 - 2_000.0).abs() < 60.0, "{out:?}");
        assert!(
            (m.regimes[0].value_at(0.5) - 6.0).abs() < 0.6 && (m.regimes[1].value_at(0.5) - 25.0).abs() < 0.6,
            "{m:?}"
        );
        let like = Replay {
            delays: None,
            opportunities: Some(Arc::new(o.clone())),
            queue: super::super::replay::QueueLimit::Packets(7),
            order: Order::Fifo,
            aligned: false,
            from: "t".into(),
        };
        let r = m.replay(1, 0, &like);
        assert_eq!(r.queue, like.queue);
        let g = r.opportunities.unwrap();
        let rate = |o: &Opportunities| o.mean_bits_per_s();
        assert!((rate(&g) - rate(&o)).abs() < 0.05 * rate(&o), "{} vs {}", rate(&g), rate(&o));
    }

    /// Generation is a function of the seed.
    #[test]
    fn generation_is_seeded() {
        let s: Vec<(u64, Option<u32>)> =
            (0..2_000u64).map(|i| (i * 10_000, Some(10_000 + (i % 50) as u32 * 400))).collect();
        let m = RegimeModel::fit(&delays(s)).unwrap();
        assert_eq!(m.series(3, 1), m.series(3, 1));
        assert_ne!(m.series(3, 1), m.series(4, 1));
        assert_ne!(m.series(3, 1), m.series(3, 2));
    }
}
