//! A/B comparisons: two configurations run on the same seeds and traces,
//! compared metric by metric on the per-seed differences.
//!
//! Runs are paired — the same seed gives both configurations the same
//! trace and the same network randomness — so the test is Student's t on
//! the paired differences B − A (two-sided, 95%): a difference is reported
//! as significant when its 95% confidence interval excludes zero. With one
//! seed there is no spread and no test; a difference that is the same on
//! every seed (zero spread) is significant. Every compared metric is one
//! where lower is better ([`super::diff::WATCHED`]).

use super::diff::WATCHED;
use super::table::spread;
use super::RunReport;
use std::fmt::Write;

/// One metric's comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricAb {
    /// The metric's name (as `diff --metric` takes it).
    pub metric: &'static str,
    /// Means over the pairs.
    pub a: f64,
    /// Means over the pairs.
    pub b: f64,
    /// Mean of B − A, and the half-width of its 95% interval (`None` with
    /// one pair).
    pub diff: f64,
    /// Half-width of the 95% interval of the mean difference.
    pub ci: Option<f64>,
    /// The verdict.
    pub verdict: Verdict,
}

/// What the test says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// B is lower (better), significantly.
    BBetter,
    /// B is higher (worse), significantly.
    BWorse,
    /// The interval includes zero.
    NoDifference,
    /// One pair: nothing to test.
    Untested,
}

impl Verdict {
    /// As printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::BBetter => "B better",
            Verdict::BWorse => "B worse",
            Verdict::NoDifference => "no significant difference",
            Verdict::Untested => "one seed: untested",
        }
    }
}

/// Compares paired runs (`a[i]` with `b[i]`).
pub fn compare(a: &[RunReport], b: &[RunReport]) -> Vec<MetricAb> {
    let n = a.len().min(b.len());
    WATCHED
        .iter()
        .map(|w| {
            let xa: Vec<f64> = a[..n].iter().map(|r| (w.get)(r)).collect();
            let xb: Vec<f64> = b[..n].iter().map(|r| (w.get)(r)).collect();
            let d: Vec<f64> = xa.iter().zip(&xb).map(|(x, y)| y - x).collect();
            let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
            let (diff, ci) = spread(&d).unwrap_or((0.0, None));
            let verdict = match ci {
                None => Verdict::Untested,
                Some(h) if diff.abs() > h && diff != 0.0 => {
                    if diff < 0.0 {
                        Verdict::BBetter
                    } else {
                        Verdict::BWorse
                    }
                }
                Some(_) => Verdict::NoDifference,
            };
            MetricAb { metric: w.name, a: mean(&xa), b: mean(&xb), diff, ci, verdict }
        })
        .collect()
}

/// Whether a comparison is the same on every pair (no difference, no spread).
fn identical(r: &MetricAb) -> bool {
    r.diff == 0.0 && r.ci.is_none_or(|h| h == 0.0)
}

/// Metrics on which B is significantly worse than A.
pub fn worse_count(rows: &[MetricAb]) -> usize {
    rows.iter().filter(|r| !identical(r) && r.verdict == Verdict::BWorse).count()
}

/// The table `syncbench ab` prints: a row per metric that differs (text or
/// Markdown), the metrics identical on every pair, and the count of
/// significant differences either way.
pub fn render(rows: &[MetricAb], markdown: bool) -> String {
    let mut out = String::new();
    let (same, rows): (Vec<&MetricAb>, Vec<&MetricAb>) = rows.iter().partition(|r| identical(r));
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let rel = if r.a.abs() > 1e-12 { format!(" ({:+.1}%)", 100.0 * r.diff / r.a) } else { String::new() };
            let ci = r.ci.map_or(String::new(), |h| format!("±{h:.3}"));
            [
                r.metric.to_string(),
                format!("{:.3}", r.a),
                format!("{:.3}", r.b),
                format!("{:+.3}{ci}{rel}", r.diff),
                r.verdict.as_str().to_string(),
            ]
        })
        .collect();
    let header = ["metric", "A", "B", "B − A", "verdict"];
    if markdown {
        let _ = writeln!(out, "\n| {} |\n|:--|--:|--:|--:|:--|", header.join(" | "));
        for c in &cells {
            let _ = writeln!(out, "| {} |", c.join(" | "));
        }
    } else {
        let w: Vec<usize> = (0..5)
            .map(|i| cells.iter().map(|c| c[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
            .collect();
        out.push('\n');
        let mut line = |c: [&str; 5]| {
            let _ = writeln!(
                out,
                "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {}",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            );
        };
        line(header);
        for c in &cells {
            line([&c[0], &c[1], &c[2], &c[3], &c[4]]);
        }
    }
    if !same.is_empty() {
        let names: Vec<&str> = same.iter().map(|r| r.metric).collect();
        let _ = writeln!(out, "\nidentical on every pair: {}", names.join(", "));
    }
    let worse = rows.iter().filter(|r| r.verdict == Verdict::BWorse).count();
    let better = rows.iter().filter(|r| r.verdict == Verdict::BBetter).count();
    let _ = writeln!(out, "\nB is significantly better on {better} metric(s), worse on {worse}.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;

    fn runs(latencies: &[f64]) -> Vec<RunReport> {
        let template =
            Report::from_json(include_str!("../../../reports/baseline/aoi-grid.json")).unwrap().runs[0].clone();
        latencies
            .iter()
            .map(|&l| {
                let mut r = template.clone();
                r.metrics.input_latency_ms.own.p50 = l;
                r
            })
            .collect()
    }

    fn verdict(a: &[f64], b: &[f64]) -> Verdict {
        let c = compare(&runs(a), &runs(b));
        c.iter().find(|m| m.metric == "latency.own.p50").unwrap().verdict
    }

    #[test]
    fn paired_differences_decide() {
        // B is 5 ms faster on every seed: significant, however noisy the
        // seeds are among themselves.
        assert_eq!(verdict(&[50.0, 80.0, 120.0, 60.0], &[45.0, 75.0, 115.0, 55.0]), Verdict::BBetter);
        assert_eq!(verdict(&[50.0, 80.0, 120.0, 60.0], &[55.0, 85.0, 125.0, 65.0]), Verdict::BWorse);
        // Differences that change sign: no verdict.
        assert_eq!(verdict(&[50.0, 80.0, 120.0, 60.0], &[55.0, 75.0, 126.0, 54.0]), Verdict::NoDifference);
        assert_eq!(verdict(&[50.0], &[40.0]), Verdict::Untested);
        assert_eq!(verdict(&[50.0, 50.0], &[50.0, 50.0]), Verdict::NoDifference);
    }
}
