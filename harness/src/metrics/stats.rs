//! Summary statistics of integer samples: [`Hist`] counts them in
//! HdrHistogram's buckets, [`Stats`] is what a report shows of them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `{mean, p50, p90, p99, max, n}` of a distribution, in the unit of the
/// field that holds it (values rounded to 4 decimals for stable reports).
/// With no values (`n` = 0) the JSON form has `null` for each figure, so
/// no reader takes an empty distribution for the best value; in Rust they
/// read 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "StatsJson", from = "StatsJson")]
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

/// [`Stats`] as JSON holds it: figures `null` when there are no values.
#[derive(Serialize, Deserialize)]
struct StatsJson {
    mean: Option<f64>,
    p50: Option<f64>,
    p90: Option<f64>,
    p99: Option<f64>,
    max: Option<f64>,
    n: u64,
}

impl From<Stats> for StatsJson {
    fn from(s: Stats) -> StatsJson {
        let f = |x: f64| (s.n > 0).then_some(x);
        StatsJson { mean: f(s.mean), p50: f(s.p50), p90: f(s.p90), p99: f(s.p99), max: f(s.max), n: s.n }
    }
}

impl From<StatsJson> for Stats {
    fn from(j: StatsJson) -> Stats {
        let f = |x: Option<f64>| x.unwrap_or(0.0);
        Stats { mean: f(j.mean), p50: f(j.p50), p90: f(j.p90), p99: f(j.p99), max: f(j.max), n: j.n }
    }
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
///
/// Recording is the hot path of judging (a couple of values per entity
/// per render), so a `Hist` only counts: one bucket index computed and one
/// counter bumped, in HdrHistogram's own bucketing (3 significant
/// digits: 2,048 sub-buckets, each power of two above them halved into
/// 1,024). Summaries are the `hdrhistogram` crate's, worked out from the
/// counts as it works them out from its own (its every answer —
/// quantiles, mean, max — depends only on the bucket a value fell in), so
/// they are exactly what recording each value in one gives (proptests
/// hold the two equal) without building one: a run summarises a few
/// histograms per screen, and building each (zeroing its buckets, then a
/// scan of them per quantile) cost a short run an eighth of its
/// instructions.
#[derive(Clone, Debug, Default)]
pub struct Hist {
    /// Count per bucket index, modulo 2³² (half the memory of `u64`
    /// counts: a run keeps one histogram per screen); grown to the highest
    /// index recorded.
    counts: Vec<u32>,
    /// The buckets whose count passed 2³², with how many times it did.
    wraps: BTreeMap<usize, u64>,
    len: u64,
}

/// The quantiles a [`Hist::cdf`] gives: 0, 1, 5, 10, 20 … 90, 95, 99 and
/// 100% — enough points to draw a CDF.
pub const CDF_QUANTILES: [f64; 15] = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0];

/// log₂ of the sub-buckets in the top half of a bucket (3 digits: 1,024).
const HALF_MAGNITUDE: u32 = 10;
/// `2 × 1,024 − 1`: values up to it fall in bucket 0, one index each.
const SUB_MASK: u64 = (2 << HALF_MAGNITUDE) - 1;

/// HdrHistogram's bucket index of `v` at 3 significant digits (unit 1).
fn index_of(v: u64) -> usize {
    let bucket = 53 - (v | SUB_MASK).leading_zeros();
    (((bucket + 1) << HALF_MAGNITUDE) as u64 + (v >> bucket) - (1 << HALF_MAGNITUDE)) as usize
}

/// The lowest value of bucket index `i` (the inverse of [`index_of`]).
fn lowest_of(i: usize) -> u64 {
    let half = 1u64 << HALF_MAGNITUDE;
    match (i as u64 >> HALF_MAGNITUDE).checked_sub(1) {
        None | Some(0) => i as u64,
        Some(bucket) => ((i as u64 & (half - 1)) + half) << bucket,
    }
}

/// How many values bucket index `i` holds (HdrHistogram's
/// `equivalent_range` of its values).
fn width_of(i: usize) -> u64 {
    match (i as u64 >> HALF_MAGNITUDE).checked_sub(1) {
        None | Some(0) => 1,
        Some(bucket) => 1 << bucket,
    }
}

/// The highest value HdrHistogram reports for bucket index `i`
/// (`highest_equivalent`: saturated at the top, as it does).
fn highest_of(i: usize) -> u64 {
    lowest_of(i).saturating_add(width_of(i)) - 1
}

impl Hist {
    /// Records one value: an index and an add, inlined where judging
    /// records (a couple of values per entity-render); growing the counts
    /// and carrying past 2³² are out of line.
    #[inline(always)]
    pub fn record(&mut self, v: u64) {
        let i = index_of(v);
        match self.counts.get_mut(i) {
            Some(c) => {
                *c = c.wrapping_add(1);
                if *c == 0 {
                    self.carry(i);
                }
            }
            None => self.grow_to(i),
        }
        self.len += 1;
    }

    /// Bucket `i`'s count passed 2³² once more.
    #[cold]
    #[inline(never)]
    fn carry(&mut self, i: usize) {
        *self.wraps.entry(i).or_default() += 1;
    }

    /// Room for bucket `i`, and its first value.
    #[cold]
    #[inline(never)]
    fn grow_to(&mut self, i: usize) {
        self.counts.resize(i + 1, 0);
        self.counts[i] = 1;
    }

    /// Bucket `i`'s whole count.
    fn count(&self, i: usize) -> u64 {
        let wraps = self.wraps.get(&i).copied().unwrap_or(0);
        (wraps << 32) + self.counts.get(i).copied().unwrap_or(0) as u64
    }

    /// Adds every value of `other` (counts add exactly: histograms filled
    /// apart and merged equal one filled with all the values).
    pub fn merge(&mut self, other: &Hist) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (i, (c, &o)) in self.counts.iter_mut().zip(&other.counts).enumerate() {
            let (sum, carry) = c.overflowing_add(o);
            *c = sum;
            if carry {
                *self.wraps.entry(i).or_default() += 1;
            }
        }
        for (&i, &w) in &other.wraps {
            *self.wraps.entry(i).or_default() += w;
        }
        self.len += other.len;
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The buckets holding values, in order, with their counts.
    fn buckets(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let carried = !self.wraps.is_empty();
        self.counts.iter().enumerate().filter_map(move |(i, &c)| {
            let n = if carried { self.count(i) } else { c as u64 };
            (n > 0).then_some((i, n))
        })
    }

    /// What HdrHistogram reports of these counts, in one walk of the
    /// buckets: its `value_at_quantile` of each of `quantiles` (ascending)
    /// — the first bucket where the count so far reaches ⌈q·n⌉ (at least
    /// 1), its lowest value for q = 0 and its highest otherwise — its
    /// `mean` (each bucket's middle, rounded up, times its share, summed
    /// in bucket order) and its `max` (the top bucket's highest). Not
    /// empty.
    fn summary<const N: usize>(&self, quantiles: [f64; N]) -> ([u64; N], f64, u64) {
        let n = self.len as f64;
        let targets = quantiles.map(|q| ((q.min(1.0) * n).ceil() as u64).max(1));
        let mut found = [0; N];
        let (mut next, mut so_far, mut mean, mut top) = (0, 0u64, 0.0, 0);
        for (i, count) in self.buckets() {
            mean += (lowest_of(i) + (width_of(i) >> 1)) as f64 * count as f64 / n;
            so_far += count;
            while next < N && so_far >= targets[next] {
                found[next] = if quantiles[next] == 0.0 { lowest_of(i) } else { highest_of(i) };
                next += 1;
            }
            top = i;
        }
        (found, mean, highest_of(top))
    }

    /// HdrHistogram's `value_at_quantile` of each of `quantiles`
    /// (ascending), divided by `scale`; empty when there are no values.
    pub fn values_at(&self, quantiles: &[f64], scale: f64) -> Vec<f64> {
        if self.is_empty() {
            return Vec::new();
        }
        let n = self.len as f64;
        let mut out = Vec::with_capacity(quantiles.len());
        let mut so_far = 0u64;
        for (i, count) in self.buckets() {
            so_far += count;
            while let Some(&q) = quantiles.get(out.len()) {
                if so_far < ((q.min(1.0) * n).ceil() as u64).max(1) {
                    break;
                }
                out.push(if q == 0.0 { lowest_of(i) } else { highest_of(i) } as f64 / scale);
            }
        }
        out
    }

    /// `(quantile, value / scale)` at each of [`CDF_QUANTILES`].
    pub fn cdf(&self, scale: f64) -> Vec<[f64; 2]> {
        if self.is_empty() {
            return Vec::new();
        }
        CDF_QUANTILES.iter().zip(self.summary(CDF_QUANTILES).0).map(|(&q, v)| [q, round4(v as f64 / scale)]).collect()
    }

    /// Summary, each value divided by `scale` (e.g. 10⁶ for µm → m).
    pub fn stats(&self, scale: f64) -> Stats {
        if self.is_empty() {
            return Stats::default();
        }
        let ([p50, p90, p99], mean, max) = self.summary([0.5, 0.9, 0.99]);
        let scaled = |v: u64| round4(v as f64 / scale);
        Stats {
            mean: round4(mean / scale),
            p50: scaled(p50),
            p90: scaled(p90),
            p99: scaled(p99),
            max: scaled(max),
            n: self.len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdrhistogram::Histogram;

    #[test]
    fn values_at_agrees_with_the_summary() {
        let mut h = Hist::default();
        for v in 1..=5000u64 {
            h.record(v * v % 7919);
        }
        let s = h.stats(1.0);
        assert_eq!(h.values_at(&[0.5, 0.9, 0.99, 1.0], 1.0), vec![s.p50, s.p90, s.p99, s.max]);
        assert!(Hist::default().values_at(&[0.5], 1.0).is_empty());
    }

    #[test]
    fn an_empty_distribution_is_null_in_json_not_zero() {
        let empty = Hist::default().stats(1e3);
        let json = serde_json::to_string(&empty).unwrap();
        assert_eq!(json, r#"{"mean":null,"p50":null,"p90":null,"p99":null,"max":null,"n":0}"#);
        assert_eq!(serde_json::from_str::<Stats>(&json).unwrap(), empty);
        let mut h = Hist::default();
        h.record(2_000);
        let one = h.stats(1e3);
        let json = serde_json::to_string(&one).unwrap();
        assert!(json.contains(r#""p50":2.0"#) && json.ends_with(r#""n":1}"#), "{json}");
        assert_eq!(serde_json::from_str::<Stats>(&json).unwrap(), one);
    }

    /// The counts handed to an HdrHistogram (what summaries once did).
    fn as_hdr(h: &Hist) -> Histogram<u64> {
        let mut hdr = Histogram::new(3).unwrap();
        for (i, n) in h.buckets() {
            hdr.record_n(lowest_of(i), n).unwrap();
        }
        hdr
    }

    /// What HdrHistogram summarises of `hdr`, as [`Hist::stats`] and
    /// [`Hist::cdf`] report it.
    fn hdr_summary(hdr: &Histogram<u64>, scale: f64) -> (Stats, Vec<[f64; 2]>) {
        let q = |p: f64| round4(hdr.value_at_quantile(p) as f64 / scale);
        let stats = Stats {
            mean: round4(hdr.mean() / scale),
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max: round4(hdr.max() as f64 / scale),
            n: hdr.len(),
        };
        (stats, CDF_QUANTILES.iter().map(|&p| [p, q(p)]).collect())
    }

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

    /// Values spread over every magnitude a u64 has, with the edges of
    /// buckets and of u64 itself.
    fn any_magnitude() -> impl proptest::strategy::Strategy<Value = u64> {
        use proptest::prelude::*;
        prop_oneof![
            0u64..5_000,
            (0u32..64, any::<u64>()).prop_map(|(bits, x)| x >> bits),
            (11u32..64, -2i64..=2).prop_map(|(p, d)| (1u64 << p).wrapping_add_signed(d)),
            Just(u64::MAX),
        ]
    }

    #[test]
    fn counts_past_u32_carry() {
        let mut h = Hist { counts: vec![u32::MAX - 1, 0, 5], len: u32::MAX as u64 + 4, ..Hist::default() };
        for _ in 0..3 {
            h.record(0);
        }
        assert_eq!(h.count(0), u32::MAX as u64 + 2);
        let other = Hist { counts: vec![u32::MAX, 0, 1], len: u32::MAX as u64 + 1, ..Hist::default() };
        h.merge(&other);
        assert_eq!(h.count(0), 2 * u32::MAX as u64 + 2);
        assert_eq!(h.count(2), 6);
        let mut big = h.clone();
        big.merge(&h);
        assert_eq!(big.count(0), 4 * u32::MAX as u64 + 4);
        assert_eq!(big.stats(1.0).n, big.len());
        let hdr = as_hdr(&big);
        assert_eq!(hdr.count_at(0), big.count(0));
        // Summaries past 2³² in a bucket are HdrHistogram's too.
        assert_eq!((big.stats(1.0), big.cdf(1.0)), hdr_summary(&hdr, 1.0));
    }

    proptest::proptest! {
        /// A value's bucket is HdrHistogram's: same lowest value, and the
        /// bucket's lowest value maps back to it.
        #[test]
        fn buckets_are_hdrhistograms(v in any_magnitude()) {
            let h = Histogram::<u64>::new(3).unwrap();
            proptest::prop_assert_eq!(lowest_of(index_of(v)), h.lowest_equivalent(v));
            proptest::prop_assert_eq!(index_of(lowest_of(index_of(v))), index_of(v));
        }

        /// Counting reports exactly what recording every value in an
        /// HdrHistogram does.
        #[test]
        fn counts_report_what_hdrhistogram_does(values in proptest::collection::vec(any_magnitude(), 1..300)) {
            let mut direct = Histogram::<u64>::new(3).unwrap();
            let mut counted = Hist::default();
            for &v in &values {
                // As `Hist` recorded before it counted: resize, or clamp.
                if direct.record(v).is_err() {
                    direct.saturating_record(v);
                }
                counted.record(v);
            }
            for scale in [1.0, 1e3] {
                let (stats, cdf) = hdr_summary(&direct, scale);
                proptest::prop_assert_eq!(counted.stats(scale), stats);
                proptest::prop_assert_eq!(counted.cdf(scale), cdf);
            }
        }

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
