//! The candidates of a tune as points: each one's metrics over the seeds,
//! which are on the Pareto front, and which one a goal recommends.
//!
//! Every metric here is lower-better. A point is on the front when no
//! other point is at least as good on every metric and better on one (by
//! mean over the same seeds). The recommendation is the point that meets
//! every limit of the goal and has the least of its minimised metric;
//! when none meets them all, the one nearest to meeting them (the least
//! total excess, each limit's excess as a share of the limit).

use super::goal::Goal;

/// Where a point came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The algorithm's defaults.
    Defaults,
    /// A point of the search.
    Search,
    /// A published rule of thumb, named.
    Rule(String),
}

/// One setting tried: its options, and per metric (in the tune's column
/// order) the mean over the seeds and the half-width of its 95% interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// `name=value` pairs, as `--opt` takes them.
    pub options: Vec<(String, String)>,
    /// Where it came from.
    pub origin: Origin,
    /// Per column: `(mean, half-width)`; `None` when no seed had a value.
    pub values: Vec<Option<(f64, Option<f64>)>>,
}

impl Point {
    /// Its options as `a=1 b=2` (`defaults` when none).
    pub fn label(&self) -> String {
        if self.options.is_empty() {
            "defaults".into()
        } else {
            self.options.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
        }
    }

    fn mean(&self, k: usize) -> f64 {
        self.values.get(k).copied().flatten().map_or(f64::INFINITY, |v| v.0)
    }
}

/// Per point, whether it is on the front over every column.
pub fn front(points: &[Point]) -> Vec<bool> {
    let columns = points.iter().map(|p| p.values.len()).max().unwrap_or(0);
    points
        .iter()
        .map(|p| {
            !points.iter().any(|q| {
                let all = (0..columns).all(|k| q.mean(k) <= p.mean(k));
                let one = (0..columns).any(|k| q.mean(k) < p.mean(k));
                all && one
            })
        })
        .collect()
}

/// How far `p` is from meeting `goal`'s limits: the sum of each limit's
/// excess as a share of the limit (0: meets them all; a metric with no
/// value is not judged). `columns` names the points' columns in order.
pub fn excess(p: &Point, goal: &Goal, columns: &[&str]) -> f64 {
    goal.limits
        .iter()
        .map(|l| {
            let k = columns.iter().position(|c| *c == l.column).expect("a goal's column is a tune column");
            // A metric the run has no value for is not judged.
            let Some(Some((v, _))) = p.values.get(k).copied() else { return 0.0 };
            if v <= l.at_most {
                0.0
            } else {
                (v - l.at_most) / l.at_most.max(1e-9)
            }
        })
        .sum()
}

/// Every point's index, best first under `goal`: the least excess, then
/// the least of the minimised metric, then the first.
fn ranked(points: &[Point], goal: &Goal, columns: &[&str]) -> Vec<usize> {
    let k = columns.iter().position(|c| *c == goal.minimise).expect("the minimised column is a tune column");
    let key = |i: usize| (excess(&points[i], goal, columns), points[i].mean(k));
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(a.cmp(&b))
    });
    order
}

/// The index of the point `goal` recommends among those `eligible`: the
/// best of them: the least excess, then the least of the minimised metric.
pub fn recommend(points: &[Point], eligible: &[bool], goal: &Goal, columns: &[&str]) -> Option<usize> {
    ranked(points, goal, columns).into_iter().find(|&i| eligible[i])
}

/// The indices of the best `1/share` of `points` (at least one) under
/// `goal`, in index order.
pub fn best_share(points: &[Point], goal: &Goal, columns: &[&str], share: usize) -> Vec<usize> {
    let mut order = ranked(points, goal, columns);
    order.truncate(points.len().div_ceil(share.max(1)).max(1));
    order.sort_unstable();
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(values: &[f64]) -> Point {
        Point { options: vec![], origin: Origin::Search, values: values.iter().map(|v| Some((*v, None))).collect() }
    }

    /// Latency against snaps: the dominated points are off the front, and
    /// the goal picks the lowest latency that keeps snaps under 1.
    #[test]
    fn the_front_and_the_recommendation_on_a_toy() {
        let points = [
            point(&[40.0, 5.0]),
            point(&[60.0, 2.0]),
            point(&[80.0, 0.5]),
            point(&[90.0, 0.5]), // dominated by the one before
            point(&[120.0, 0.0]),
            point(&[70.0, 6.0]), // dominated by the first
        ];
        assert_eq!(front(&points), [true, true, true, false, true, false]);
        let goal = Goal::parse("min remote-lat; snaps<=1").unwrap();
        let cols = ["remote-lat", "snaps"];
        assert_eq!(recommend(&points, &[true; 6], &goal, &cols), Some(2));
        // Nothing meets snaps<=0.1 but the last.
        let strict = Goal::parse("min remote-lat; snaps<=0.1").unwrap();
        assert_eq!(recommend(&points, &[true; 6], &strict, &cols), Some(4));
        // Without it, the nearest to the limit.
        let mut eligible = [true; 6];
        eligible[4] = false;
        assert_eq!(recommend(&points, &eligible, &strict, &cols), Some(2));
        assert!((excess(&points[0], &strict, &cols) - 49.0).abs() < 1e-9);
        let unmeasured = Point { values: vec![Some((1.0, None)), None], ..point(&[]) };
        assert_eq!(excess(&unmeasured, &strict, &cols), 0.0, "no value: not judged");
        // The best third of six under snaps<=1: the two lowest latencies meeting it.
        assert_eq!(best_share(&points, &goal, &cols, 3), [2, 3]);
    }
}
