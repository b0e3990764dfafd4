//! The time structure of a link's delays, and how far two links are apart
//! in it: what a link does over time, which its distribution of delays
//! alone does not say.
//!
//! Measured on evenly spaced samples (`(time, delay or lost)`: a
//! recording, or probes sent through a model):
//!
//! - **delay**: its distribution, compared by the 1-Wasserstein distance
//!   (ms), and the share **lost**;
//! - **autocorrelation** of delivered delays at [`LAGS_US`] (one step, and
//!   100 ms, 1 s and 10 s), over the pairs both delivered;
//! - **slow runs**: how long the delay stays above a threshold (the
//!   reference's 90th percentile) without a break;
//! - **loss bursts**: how long consecutive losses last.
//!
//! Two links' distance is one number per structure: the largest gap
//! between their autocorrelations, and the 1-Wasserstein distance between
//! their slow-run and burst durations (ms), beside how many of each a
//! minute holds.

use crate::math::{nearest_rank, pearson};

/// The autocorrelation lags, µs; 0 is one step.
pub const LAGS_US: [u64; 4] = [0, 100_000, 1_000_000, 10_000_000];

/// The share of delays above which a run counts as slow.
pub const SLOW_QUANTILE: f64 = 0.9;

/// Probabilities two distributions are compared on.
const GRID: usize = 1000;

/// What a series does over time.
#[derive(Clone, Debug, PartialEq)]
pub struct Structure {
    /// The step between samples, µs.
    pub spacing_us: u64,
    /// Delivered delays, ms, sorted.
    pub delays_ms: Vec<f64>,
    /// Share lost.
    pub loss: f64,
    /// Per lag of [`LAGS_US`], the autocorrelation (`None`: too few pairs).
    pub acf: Vec<Option<f64>>,
    /// Durations of runs above the slow threshold, ms, sorted.
    pub slow_runs_ms: Vec<f64>,
    /// Durations of loss bursts, ms, sorted.
    pub bursts_ms: Vec<f64>,
    /// The series' length, minutes.
    pub minutes: f64,
}

/// How far one series is from another in each structure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance {
    /// 1-Wasserstein distance between the delays, ms.
    pub delay_w1_ms: f64,
    /// Difference in share lost (this − reference), points.
    pub loss_points: f64,
    /// The largest autocorrelation gap over the lags both have.
    pub acf_gap: f64,
    /// 1-Wasserstein distance between slow-run durations, ms.
    pub slow_w1_ms: f64,
    /// 1-Wasserstein distance between loss-burst durations, ms.
    pub burst_w1_ms: f64,
}

impl Structure {
    /// Measures `samples`, one every `spacing_us`; a run is slow above
    /// `slow_ms`.
    pub fn measure(samples: &[(u64, Option<u32>)], spacing_us: u64, slow_ms: f64) -> Structure {
        let spacing_us = spacing_us.max(1);
        let ms: Vec<Option<f64>> = samples.iter().map(|s| s.1.map(|us| us as f64 / 1e3)).collect();
        let mut delays_ms: Vec<f64> = ms.iter().flatten().copied().collect();
        delays_ms.sort_by(f64::total_cmp);
        let step_ms = spacing_us as f64 / 1e3;
        let acf = LAGS_US
            .iter()
            .map(|&lag| {
                let k = (lag / spacing_us).max(1) as usize;
                let pairs: Vec<(f64, f64)> =
                    ms.iter().zip(ms.iter().skip(k)).filter_map(|(a, b)| Some(((*a)?, (*b)?))).collect();
                if pairs.len() < 10 {
                    None
                } else {
                    Some(pearson(&pairs).unwrap_or(0.0))
                }
            })
            .collect();
        let durations = |hit: &dyn Fn(Option<f64>) -> bool| {
            let mut runs: Vec<f64> = Vec::new();
            let mut run = 0usize;
            for d in ms.iter().copied().chain(std::iter::once(Some(f64::NEG_INFINITY))) {
                if hit(d) {
                    run += 1;
                } else if run > 0 {
                    runs.push(run as f64 * step_ms);
                    run = 0;
                }
            }
            runs.sort_by(f64::total_cmp);
            runs
        };
        Structure {
            spacing_us,
            loss: 1.0 - delays_ms.len() as f64 / ms.len().max(1) as f64,
            delays_ms,
            acf,
            slow_runs_ms: durations(&|d| d.is_some_and(|v| v > slow_ms)),
            bursts_ms: durations(&|d| d.is_none()),
            minutes: ms.len() as f64 * spacing_us as f64 / 60e6,
        }
    }

    /// The delay at quantile `q` of the delivered, ms (0 with none).
    pub fn quantile_ms(&self, q: f64) -> f64 {
        nearest_rank(&self.delays_ms, q)
    }

    /// How far `self` is from `reference`.
    pub fn distance(&self, reference: &Structure) -> Distance {
        let acf_gap = self
            .acf
            .iter()
            .zip(&reference.acf)
            .filter_map(|(a, b)| Some((a.as_ref()? - b.as_ref()?).abs()))
            .fold(0.0, f64::max);
        Distance {
            delay_w1_ms: w1(&self.delays_ms, &reference.delays_ms),
            loss_points: (self.loss - reference.loss) * 100.0,
            acf_gap,
            slow_w1_ms: w1(&self.slow_runs_ms, &reference.slow_runs_ms),
            burst_w1_ms: w1(&self.bursts_ms, &reference.bursts_ms),
        }
    }

    /// Slow runs a minute.
    pub fn slow_per_minute(&self) -> f64 {
        self.slow_runs_ms.len() as f64 / self.minutes.max(f64::MIN_POSITIVE)
    }

    /// Loss bursts a minute.
    pub fn bursts_per_minute(&self) -> f64 {
        self.bursts_ms.len() as f64 / self.minutes.max(f64::MIN_POSITIVE)
    }
}

/// The mean of sorted `v`, 0 when empty.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The 1-Wasserstein distance between two sorted samples: the mean gap of
/// their quantile functions. An empty side counts as all zeros.
fn w1(a: &[f64], b: &[f64]) -> f64 {
    (0..GRID)
        .map(|i| (i as f64 + 0.5) / GRID as f64)
        .map(|u| (nearest_rank(a, u) - nearest_rank(b, u)).abs())
        .sum::<f64>()
        / GRID as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(u64) -> Option<u32>, n: u64) -> Vec<(u64, Option<u32>)> {
        (0..n).map(|i| (i * 10_000, f(i))).collect()
    }

    /// On a toy series with known answers: 10 ms for 900 ms, 50 ms for
    /// 100 ms, and every 5 s a 200 ms outage.
    #[test]
    fn a_toy_series_measures_as_built() {
        let s = series(
            |i| {
                if i % 500 < 20 {
                    None
                } else if i % 100 >= 90 {
                    Some(50_000)
                } else {
                    Some(10_000)
                }
            },
            30_000,
        );
        let m = Structure::measure(&s, 10_000, 30.0);
        assert!((m.loss - 0.04).abs() < 1e-9);
        assert!((m.minutes - 5.0).abs() < 1e-9);
        // 60 bursts of 200 ms; 300 slow runs of 100 ms.
        assert_eq!(m.bursts_ms.len(), 60);
        assert!(m.bursts_ms.iter().all(|&d| (d - 200.0).abs() < 1e-9));
        assert_eq!(m.slow_runs_ms.len(), 300);
        assert!((mean(&m.slow_runs_ms) - 100.0).abs() < 1e-9);
        assert!((m.bursts_per_minute() - 12.0).abs() < 1e-9);
        // Successive samples mostly agree; 1 s apart they are in phase.
        assert!(m.acf[0].unwrap() > 0.8 && m.acf[2].unwrap() > 0.99, "{:?}", m.acf);
        assert_eq!(
            m.distance(&m),
            Distance { delay_w1_ms: 0.0, loss_points: 0.0, acf_gap: 0.0, slow_w1_ms: 0.0, burst_w1_ms: 0.0 }
        );
    }

    /// The same delays shuffled in time keep their distribution and lose
    /// their structure: distance 0 in delay, not in time.
    #[test]
    fn shuffling_keeps_the_distribution_and_loses_the_structure() {
        let ordered = series(|i| Some(if (i / 100) % 2 == 0 { 10_000 } else { 50_000 }), 20_000);
        let mut shuffled = ordered.clone();
        let mut rng = crate::rng::Stream::new(1, crate::rng::Purpose::Stress, 0);
        for i in (1..shuffled.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            let (a, b) = (shuffled[i].1, shuffled[j].1);
            shuffled[i].1 = b;
            shuffled[j].1 = a;
        }
        let (a, b) = (Structure::measure(&ordered, 10_000, 30.0), Structure::measure(&shuffled, 10_000, 30.0));
        let d = b.distance(&a);
        assert_eq!(d.delay_w1_ms, 0.0);
        assert!(d.acf_gap > 0.9, "{d:?}");
        // Ordered slow runs last 1 s; shuffled ones about 20 ms.
        assert!(d.slow_w1_ms > 900.0, "{d:?}");
    }
}
