//! Distributions of integer samples: [`Distribution`] records them in an
//! HdrHistogram, [`Stats`] is what a report shows of them.

use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::{Counter, Histogram};
use serde::{Deserialize, Serialize};

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

pub use crate::math::round4;

/// A distribution of integer samples (µm or µs): an `hdrhistogram`
/// [`Histogram`] at 3 significant digits, kept for the whole run and
/// summarised by the crate (quantiles in one walk of the counts, mean,
/// max), so its figures are what every HdrHistogram reader computes from
/// the same counts, and an interval log of it ([`crate::report::hlog`])
/// carries exactly what the report summarises.
///
/// Values above HdrHistogram's auto-resizing range (2⁶² and up: 146,000
/// years in µs, 4.6 × 10¹² km in µm; no judged value comes near) are
/// counted at its top.
///
/// Counts are `u64`; `Distribution<u32>` halves the memory of one that
/// can never hold 2³² values in a bucket (a screen's own input changes:
/// at most one a tick), where counts would saturate.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution<C: Counter = u64>(Histogram<C>);

/// The quantiles a [`Distribution::cdf`] gives: 0, 1, 5, 10, 20 … 90, 95,
/// 99 and 100% — enough points to draw a CDF.
pub const CDF_QUANTILES: [f64; 15] = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0];

/// Significant decimal digits every distribution keeps.
pub const SIGNIFICANT_DIGITS: u8 = 3;

impl<C: Counter> Default for Distribution<C> {
    fn default() -> Distribution<C> {
        Distribution(Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits are in HdrHistogram's range"))
    }
}

impl<C: Counter> Distribution<C> {
    /// Records one value (the hot path of judging: a couple of values per
    /// entity per render).
    #[inline]
    pub fn record(&mut self, v: u64) {
        if self.0.record(v).is_err() {
            self.saturate(v);
        }
    }

    /// `v` is past the range the histogram can grow to: counted at its top.
    #[cold]
    #[inline(never)]
    fn saturate(&mut self, v: u64) {
        self.0.saturating_record(v);
    }

    /// Adds every value of `other` (counts add exactly: distributions
    /// filled apart and merged equal one filled with all the values).
    pub fn merge(&mut self, other: &Distribution<C>) {
        self.0.add(&other.0).expect("an auto-resizing histogram takes any other of the same precision");
    }

    /// Empties it, keeping its counts' memory for the next values.
    pub fn reset(&mut self) {
        self.0.reset();
    }

    /// The histogram as encodings and logs hold it: a copy added into an
    /// empty one, so its header (the highest trackable value) depends on
    /// the values alone — not on whether they were merged from parts
    /// judged on several cores, which the crate's `add` sizes differently
    /// from recording.
    pub fn canonical(&self) -> Histogram<C> {
        let mut h = Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits are in HdrHistogram's range");
        h.add(&self.0).expect("an auto-resizing histogram takes any other of the same precision");
        h
    }

    /// The values as HdrHistogram's V2 compressed encoding in base64: an
    /// interval log line's last field, readable by every HdrHistogram
    /// library (`Histogram.decodeFromCompressedByteBuffer` in Java).
    pub fn encode(&self) -> String {
        use base64::Engine;
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&self.canonical(), &mut bytes)
            .expect("a histogram of at most 2^62 encodes into memory");
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.0.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value at each of `quantiles` (ascending) by HdrHistogram_py's
    /// rank rule: the smallest recorded bucket's highest equivalent value
    /// whose cumulative count reaches `max(1, ⌊q·n + ½⌋)` — the count
    /// rounded, where the Rust crate's `value_at_quantile` rounds it up.
    /// With few values the two differ by a whole value (p99 of 60 values:
    /// the 59th against the 60th), so a log read by HdrHistogram's Python
    /// tools gives the report's numbers only under one rule: this one.
    fn quantiles(&self, quantiles: &[f64]) -> Vec<u64> {
        let n = self.0.len();
        let mut out = Vec::with_capacity(quantiles.len());
        let mut cumulative = 0u64;
        let mut buckets = self.0.iter_recorded();
        let mut value = 0;
        for &q in quantiles {
            let target = ((q.clamp(0.0, 1.0) * n as f64 + 0.5).floor() as u64).clamp(1, n.max(1));
            while cumulative < target {
                let Some(b) = buckets.next() else { break };
                cumulative += b.count_at_value().as_u64();
                value = b.value_iterated_to();
            }
            out.push(value);
        }
        out
    }

    /// The value at each of `quantiles` (ascending), divided by `scale`,
    /// by HdrHistogram_py's rank rule (the count at the quantile rounded,
    /// at least 1; see [`Distribution::stats`]); empty when there are no
    /// values.
    pub fn values_at(&self, quantiles: &[f64], scale: f64) -> Vec<f64> {
        if self.is_empty() {
            return Vec::new();
        }
        self.quantiles(quantiles).into_iter().map(|v| v as f64 / scale).collect()
    }

    /// `(quantile, value / scale)` at each of [`CDF_QUANTILES`].
    pub fn cdf(&self, scale: f64) -> Vec<[f64; 2]> {
        if self.is_empty() {
            return Vec::new();
        }
        let values = self.quantiles(&CDF_QUANTILES);
        CDF_QUANTILES.iter().zip(values).map(|(&q, v)| [q, round4(v as f64 / scale)]).collect()
    }

    /// Summary, each value divided by `scale` (e.g. 10⁶ for µm → m);
    /// quantiles by HdrHistogram_py's rank rule, where the Rust crate
    /// rounds the count up.
    pub fn stats(&self, scale: f64) -> Stats {
        if self.is_empty() {
            return Stats::default();
        }
        let h = &self.0;
        let mut q = self.quantiles(&[0.5, 0.9, 0.99]).into_iter().map(|v| round4(v as f64 / scale));
        let mut next = || q.next().unwrap_or_default();
        let (p50, p90, p99) = (next(), next(), next());
        Stats { mean: round4(h.mean() / scale), p50, p90, p99, max: round4(h.max() as f64 / scale), n: h.len() }
    }
}

impl Distribution {
    /// Reads what [`Distribution::encode`] wrote (of any precision); the
    /// error says what is wrong.
    pub fn decode(text: &str) -> Result<Distribution, String> {
        use base64::Engine;
        let bytes =
            base64::engine::general_purpose::STANDARD.decode(text.trim()).map_err(|e| format!("not base64: {e}"))?;
        let mut h: Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| format!("not an HdrHistogram V2 encoding: {e:?}"))?;
        h.auto(true);
        Ok(Distribution(h))
    }
}

/// The two-sample Kolmogorov–Smirnov distance of `a` and `b`: the largest
/// gap between their cumulative distributions at any bucket either holds
/// values in — 0 for the same shape (at 3 significant digits), 1 for no
/// overlap. `None` when either is empty.
pub fn ks_distance(a: &Distribution, b: &Distribution) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let mut xs = a.0.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).peekable();
    let mut ys = b.0.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).peekable();
    let (mut below_a, mut below_b, mut d) = (0u64, 0u64, 0f64);
    loop {
        let at = match (xs.peek(), ys.peek()) {
            (None, None) => break,
            (Some(x), None) => x.0,
            (None, Some(y)) => y.0,
            (Some(x), Some(y)) => x.0.min(y.0),
        };
        while let Some((_, n)) = xs.next_if(|x| x.0 == at) {
            below_a += n;
        }
        while let Some((_, n)) = ys.next_if(|y| y.0 == at) {
            below_b += n;
        }
        d = d.max((below_a as f64 / na - below_b as f64 / nb).abs());
    }
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_at_agrees_with_the_summary() {
        let mut h = <Distribution>::default();
        for v in 1..=5000u64 {
            h.record(v * v % 7919);
        }
        let s = h.stats(1.0);
        assert_eq!(h.values_at(&[0.5, 0.9, 0.99, 1.0], 1.0), vec![s.p50, s.p90, s.p99, s.max]);
        assert!(<Distribution>::default().values_at(&[0.5], 1.0).is_empty());
    }

    #[test]
    fn an_empty_distribution_is_null_in_json_not_zero() {
        let empty = <Distribution>::default().stats(1e3);
        let json = serde_json::to_string(&empty).unwrap();
        assert_eq!(json, r#"{"mean":null,"p50":null,"p90":null,"p99":null,"max":null,"n":0}"#);
        assert_eq!(serde_json::from_str::<Stats>(&json).unwrap(), empty);
        let mut h = <Distribution>::default();
        h.record(2_000);
        let one = h.stats(1e3);
        let json = serde_json::to_string(&one).unwrap();
        assert!(json.contains(r#""p50":2.0"#) && json.ends_with(r#""n":1}"#), "{json}");
        assert_eq!(serde_json::from_str::<Stats>(&json).unwrap(), one);
    }

    /// Below 2,048 every integer has a bucket of its own: the figures are
    /// the exact ones.
    #[test]
    fn small_integers_are_exact() {
        let mut h = <Distribution>::default();
        for v in 1..=100u64 {
            h.record(v);
        }
        let s = h.stats(1.0);
        assert_eq!((s.mean, s.p50, s.p90, s.p99, s.max, s.n), (50.5, 50.0, 90.0, 99.0, 100.0, 100));
        assert_eq!(h.cdf(1.0)[0], [0.0, 1.0], "the 0 quantile is the smallest value");
        assert_eq!(h.cdf(10.0)[14], [1.0, 10.0], "the 1 quantile is the largest, scaled");
    }

    #[test]
    fn quantiles_of_a_uniform_ramp() {
        let mut h = <Distribution>::default();
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
        assert_eq!(<Distribution>::default().stats(1.0), Stats::default());
    }

    #[test]
    fn a_value_past_the_range_is_counted_at_the_top_and_reset_empties() {
        let mut h = <Distribution>::default();
        h.record(5);
        h.record(u64::MAX);
        let s = h.stats(1.0);
        assert_eq!(s.n, 2);
        assert!(s.max >= (1u64 << 61) as f64, "{s:?}");
        h.reset();
        assert!(h.is_empty());
        h.record(7);
        assert_eq!(h.stats(1.0).max, 7.0);
    }

    fn of(values: &[(u64, usize)]) -> Distribution {
        let mut h = <Distribution>::default();
        for &(v, n) in values {
            for _ in 0..n {
                h.record(v);
            }
        }
        h
    }

    #[test]
    fn ks_distance_of_known_shapes() {
        let ramp = |from: u64| of(&(from..from + 100).map(|v| (v, 1)).collect::<Vec<_>>());
        assert_eq!(ks_distance(&ramp(1), &ramp(1)), Some(0.0), "the same values");
        assert_eq!(ks_distance(&ramp(1), &ramp(1001)), Some(1.0), "no overlap");
        assert_eq!(ks_distance(&ramp(1), &ramp(51)), Some(0.5), "half of one below all of the other");
        assert_eq!(ks_distance(&ramp(1), &<Distribution>::default()), None);
        // The same p50, p90, p99 and max, a different shape: at 15, 50% of
        // one and 89% of the other.
        let (a, b) = (of(&[(10, 50), (20, 49), (100, 1)]), of(&[(10, 50), (15, 39), (20, 10), (100, 1)]));
        let (sa, sb) = (a.stats(1.0), b.stats(1.0));
        assert_eq!((sa.p50, sa.p90, sa.p99, sa.max), (sb.p50, sb.p90, sb.p99, sb.max));
        let d = ks_distance(&a, &b).unwrap();
        assert!((d - 0.39).abs() < 1e-9, "{d}");
        assert_eq!(ks_distance(&b, &a), Some(d), "symmetric");
    }

    #[test]
    fn narrow_counts_summarise_as_wide_ones() {
        let mut narrow = Distribution::<u32>::default();
        let mut wide = <Distribution>::default();
        for v in (1..=5000u64).map(|v| v * v % 100_003) {
            narrow.record(v);
            wide.record(v);
        }
        assert_eq!((narrow.stats(1e3), narrow.cdf(1e3)), (wide.stats(1e3), wide.cdf(1e3)));
    }

    /// Judging on several cores merges parts; the encoding must not tell.
    #[test]
    fn merged_parts_encode_as_one_filled_directly() {
        let values: Vec<u64> = (1..=3000u64).map(|v| v * v % 1_000_003).collect();
        let mut one = <Distribution>::default();
        values.iter().for_each(|&v| one.record(v));
        // Part 0 holds only small values; part 1 the large ones, so the
        // merge grows part 0 through `add`.
        let (mut small, mut large) = (<Distribution>::default(), <Distribution>::default());
        for &v in &values {
            if v < 1000 {
                small.record(v)
            } else {
                large.record(v)
            }
        }
        small.merge(&large);
        assert_eq!(small.stats(1.0), one.stats(1.0));
        assert_eq!(small.encode(), one.encode());
    }

    #[test]
    fn an_encoded_distribution_decodes_to_the_same_one() {
        let a = of(&[(10, 50), (20_000, 49), (7_000_000, 1)]);
        let back = Distribution::decode(&a.encode()).unwrap();
        assert_eq!((back.stats(1.0), back.cdf(1.0)), (a.stats(1.0), a.cdf(1.0)));
        assert_eq!(ks_distance(&a, &back), Some(0.0));
        assert!(Distribution::decode("not base64!").unwrap_err().contains("base64"));
        assert!(Distribution::decode("AAAA").unwrap_err().contains("HdrHistogram"));
    }

    proptest::proptest! {
        /// Distributions filled apart and merged report exactly what one
        /// distribution of every value does.
        #[test]
        fn merged_distributions_equal_one(values in proptest::collection::vec(0u64..5_000_000_000, 0..300), parts in 1usize..5) {
            let mut one = <Distribution>::default();
            let mut apart = vec![<Distribution>::default(); parts];
            for (k, &v) in values.iter().enumerate() {
                one.record(v);
                apart[k % parts].record(v);
            }
            let mut merged = <Distribution>::default();
            for h in &apart {
                merged.merge(h);
            }
            proptest::prop_assert_eq!(merged.stats(1e3), one.stats(1e3));
            proptest::prop_assert_eq!(merged.cdf(1e3), one.cdf(1e3));
        }
    }
}
