//! Summary statistics from an HdrHistogram.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// `{mean, p50, p90, p99, max, n}` of a distribution, in the unit of the
/// field that holds it (values rounded to 4 decimals for stable reports).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
    /// Number of values.
    pub n: u64,
}

/// Rounds to 4 decimals (reports compare byte for byte).
pub fn round4(x: f64) -> f64 {
    let r = (x * 1e4).round() / 1e4;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// A histogram of integer values (µm or µs) with 3 significant digits.
#[derive(Clone, Debug)]
pub struct Hist(Histogram<u64>);

impl Default for Hist {
    fn default() -> Self {
        Hist(Histogram::new(3).expect("3 significant digits is valid"))
    }
}

impl Hist {
    /// Records one value.
    pub fn record(&mut self, v: u64) {
        // The histogram resizes itself; only values beyond u64's range
        // could fail, and those are clamped.
        if self.0.record(v).is_err() {
            self.0.saturating_record(v);
        }
    }

    /// Adds every value of `other` (counts add exactly: histograms filled
    /// apart and merged equal one filled with all the values).
    pub fn merge(&mut self, other: &Hist) {
        if other.0.is_empty() {
            return;
        }
        // Only a histogram that cannot resize refuses, and `Hist`s resize.
        self.0.add(&other.0).expect("histograms of one precision that resize merge");
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `(quantile, value / scale)` at 0, 1, 5, 10, 20 … 90, 95, 99, 100%:
    /// enough points to draw a CDF.
    pub fn cdf(&self, scale: f64) -> Vec<[f64; 2]> {
        if self.0.is_empty() {
            return Vec::new();
        }
        [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0]
            .iter()
            .map(|&q| [q, round4(self.0.value_at_quantile(q) as f64 / scale)])
            .collect()
    }

    /// Summary, each value divided by `scale` (e.g. 10⁶ for µm → m).
    pub fn stats(&self, scale: f64) -> Stats {
        if self.0.is_empty() {
            return Stats::default();
        }
        let q = |p: f64| round4(self.0.value_at_quantile(p) as f64 / scale);
        Stats {
            mean: round4(self.0.mean() / scale),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max: round4(self.0.max() as f64 / scale),
            n: self.0.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_a_uniform_ramp() {
        let mut h = Hist::default();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let s = h.stats(1000.0);
        assert_eq!(s.n, 1000);
        assert!((s.mean - 500.5).abs() < 0.5, "{s:?}");
        assert!((s.p50 - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p90 - 900.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99 - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() <= 1.0, "{s:?}");
        assert_eq!(Hist::default().stats(1.0), Stats::default());
    }

    proptest::proptest! {
        /// Histograms filled apart and merged report exactly what one
        /// histogram of every value does.
        #[test]
        fn merged_histograms_equal_one(values in proptest::collection::vec(0u64..5_000_000_000, 0..300), parts in 1usize..5) {
            let mut one = Hist::default();
            let mut apart = vec![Hist::default(); parts];
            for (k, &v) in values.iter().enumerate() {
                one.record(v);
                apart[k % parts].record(v);
            }
            let mut merged = Hist::default();
            for h in &apart {
                merged.merge(h);
            }
            proptest::prop_assert_eq!(merged.stats(1e3), one.stats(1e3));
            proptest::prop_assert_eq!(merged.cdf(1e3), one.cdf(1e3));
        }
    }
}
