//! `syncbench diff`: compares two reports run by run and flags quality
//! regressions beyond a tolerance.
//!
//! Runs are matched by their configuration (algorithm, profile, trace,
//! seed, clients, duration, tick rate, transport, options). Every metric
//! compared here is "lower is better"; a metric regressed when `new > base
//! · (1 + tolerance) + floor`, the floor absorbing noise around zero
//! ([`Watched::floor`]: 1 mm, 0.5 ms, 1 B/s, one event; a gate file's
//! `[floors]` table sets others). Values equal at the metric's printed
//! precision are equal. Desyncs and leaks regress on any increase. A
//! metric worse in every one of an algorithm's configurations, five or
//! more, regresses however small each move (a sign test: all of n worse by
//! chance is 2⁻ⁿ ≤ 3%). Runs that disappeared count as regressions; new runs are
//! listed.

use super::{Report, RunReport};

mod render;
pub use render::Sorted;

/// A metric the gate watches.
pub struct Watched {
    /// Name shown and selectable with `--metric`.
    pub name: &'static str,
    /// How to read it.
    pub get: fn(&RunReport) -> f64,
    /// Absolute slack, in the metric's unit (a gate file may set another).
    pub floor: f64,
    /// The unit values are printed in.
    pub unit: &'static str,
    /// Decimals printed; values equal at this precision are equal.
    pub decimals: usize,
}

impl Watched {
    /// `x` rounded to the printed precision.
    pub fn rounded(&self, x: f64) -> f64 {
        let k = 10f64.powi(self.decimals as i32);
        (x * k).round() / k
    }

    /// `x` as printed: the printed precision and the unit.
    pub fn show(&self, x: f64) -> String {
        format!("{:.*} {}", self.decimals, x, self.unit)
    }
}

/// A watched metric's row: name, reader, default floor, unit, decimals.
const fn w(name: &'static str, get: fn(&RunReport) -> f64, floor: f64, unit: &'static str, decimals: usize) -> Watched {
    Watched { name, get, floor, unit, decimals }
}

/// The quality metrics (divergence, latency, bandwidth, corrections,
/// freezes and stalls, snap events, impossible screens, input fidelity,
/// desyncs; leaks and the longest unaware wait for runs with `--aoi`).
/// Desyncs and leaks regress on any increase.
pub const WATCHED: &[Watched] = &[
    w("divergence.own.mean", |r| r.metrics.divergence_m.own.mean, 0.001, "m", 3),
    w("divergence.remote.mean", |r| r.metrics.divergence_m.remote.mean, 0.001, "m", 3),
    w("divergence.own.p99", |r| r.metrics.divergence_m.own.p99, 0.001, "m", 3),
    w("divergence.remote.p99", |r| r.metrics.divergence_m.remote.p99, 0.001, "m", 3),
    w("ideal_divergence.own.mean", |r| r.metrics.ideal_divergence_m.own.mean, 0.001, "m", 3),
    w("ideal_divergence.remote.mean", |r| r.metrics.ideal_divergence_m.remote.mean, 0.001, "m", 3),
    w("latency.own.p50", |r| r.metrics.input_latency_ms.own.p50, 0.5, "ms", 1),
    w("latency.own.p99", |r| r.metrics.input_latency_ms.own.p99, 0.5, "ms", 1),
    w("latency.remote.p50", |r| r.metrics.input_latency_ms.remote.p50, 0.5, "ms", 1),
    w("latency.remote.p99", |r| r.metrics.input_latency_ms.remote.p99, 0.5, "ms", 1),
    w("latency.own.unshown_pct", |r| r.metrics.input_changes_unshown_pct.own, 0.1, "%", 2),
    w("latency.remote.unshown_pct", |r| r.metrics.input_changes_unshown_pct.remote, 0.1, "%", 2),
    w("bandwidth.up", |r| r.metrics.bandwidth.up_bytes_per_s, 1.0, "B/s", 0),
    w("bandwidth.down", |r| r.metrics.bandwidth.down_bytes_per_s, 1.0, "B/s", 0),
    w("corrections", |r| r.metrics.corrections as f64, 1.0, "", 1),
    w("stalls.frozen_ms", |r| r.metrics.stalls.freeze_ms_per_client, 1.0, "ms", 0),
    w("stalls.stalled_ms", |r| r.metrics.stalls.stalled_ms_per_client, 1.0, "ms", 0),
    w("lag.mean_ms", |r| r.metrics.lag_ms.as_ref().map_or(0.0, |l| l.behind_ms.mean), 1.0, "ms", 0),
    w("snaps.per_client_min", |r| r.metrics.snaps.per_client_per_min, 1.0, "/client-min", 2),
    w("impossible.share", |r| r.metrics.impossible.share, 0.0001, "", 4),
    w("inputs.repeated_per_min", |r| r.metrics.input_fidelity.repeated_per_min, 1.0, "/client-min", 1),
    w("inputs.dropped_per_min", |r| r.metrics.input_fidelity.dropped_per_min, 1.0, "/client-min", 1),
    w("inputs.late_per_min", |r| r.metrics.input_fidelity.late_per_min, 1.0, "/client-min", 1),
    w("desyncs", |r| r.metrics.desyncs as f64, 0.0, "", 0),
    w("interest.leaks", |r| r.metrics.interest.as_ref().map_or(0.0, |i| i.leaks as f64), 0.0, "", 0),
    w(
        "interest.longest_unaware_ms",
        |r| r.metrics.interest.as_ref().map_or(0.0, |i| i.longest_unaware_ms),
        1.0,
        "ms",
        0,
    ),
];

/// The watched metric named `name`.
pub fn watched(name: &str) -> Option<&'static Watched> {
    WATCHED.iter().find(|w| w.name == name)
}

/// One metric of one configuration that moved: one run, or the mean over
/// the seeds of a configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The configuration's key (without the seed when several seeds were
    /// compared together).
    pub run: String,
    /// Seeds compared (paired by seed).
    pub seeds: usize,
    /// With several seeds, the half-width of the 95% interval of the mean
    /// per-seed difference (Student's t).
    pub ci: Option<f64>,
    /// Metric name.
    pub metric: &'static str,
    /// Baseline value.
    pub base: f64,
    /// New value.
    pub new: f64,
    /// Beyond the tolerance in the bad direction.
    pub regression: bool,
    /// Worse beyond the tolerance, but not beyond it plus the floor: the
    /// floor, not the tolerance, let it pass.
    pub by_floor: bool,
}

/// How far the shape of a configuration's input-latency distribution moved:
/// what percentiles alone can hide (a change between them, or below p50).
#[derive(Clone, Debug)]
pub struct Shape {
    /// The configuration's label, as in [`Change::run`].
    pub run: String,
    /// `own` or `remote` input latency.
    pub side: &'static str,
    /// The two-sample Kolmogorov–Smirnov distance of the baseline's and the
    /// new runs' latencies (every seed's together): 0 the same shape, 1 no
    /// overlap.
    pub ks: f64,
    /// The baseline's percentiles, ms (every seed's values together).
    pub base: crate::metrics::Stats,
    /// The new runs' percentiles, ms.
    pub new: crate::metrics::Stats,
}

/// From this Kolmogorov–Smirnov distance on, a shape counts as moved in the
/// text and Markdown output (all are in the JSON). Not a significance
/// test: a run's latencies are not independent draws.
pub const SHAPE_SHOWN_FROM: f64 = 0.05;

/// The comparison.
#[derive(Clone, Debug, Default)]
pub struct Diff {
    /// Per configuration compared whose reports hold their latency
    /// histograms, the shape distance of each side, in report order.
    pub shapes: Vec<Shape>,
    /// Configurations whose latency histograms would not decode (an
    /// edited report), with why: their shapes are not compared.
    pub unreadable_shapes: Vec<(String, String)>,
    /// Metrics that moved (either way), in report order.
    pub changes: Vec<Change>,
    /// Runs in the baseline missing from the new report.
    pub missing: Vec<String>,
    /// Runs only in the new report.
    pub added: Vec<String>,
    /// Runs whose network (profile content under the same name) or trace
    /// changed: their metrics are not compared.
    pub inputs_changed: Vec<(String, &'static str)>,
    /// Worse, but within the metric's tolerance (let pass).
    pub within_tolerance: Vec<Change>,
    /// Worse beyond the tolerance on average, but within the spread across
    /// seeds (let pass: not significant).
    pub within_noise: Vec<Change>,
    /// Runs compared.
    pub compared: usize,
    /// Every configuration compared: its label and how many seeds.
    pub groups: Vec<(String, usize)>,
    /// Per algorithm, metrics worse in every one of its configurations
    /// compared (two or more), with how many: a shift, whatever the size of
    /// each move.
    pub consistent: Vec<(String, &'static str, usize)>,
}

/// With this many configurations or more all worse, a consistent shift
/// regresses (all worse by chance: 2⁻⁵ ≈ 3%).
pub const CONSISTENT_FAILS_AT: usize = 5;

impl Diff {
    /// Whether anything regressed.
    pub fn regressed(&self) -> bool {
        !self.missing.is_empty()
            || self.changes.iter().any(|c| c.regression)
            || self.consistent.iter().any(|&(_, _, n)| n >= CONSISTENT_FAILS_AT)
    }
}

/// The key that matches runs across reports: the effective configuration
/// (options with their defaults filled in when the report records them, so
/// stating a default changes nothing), by name for the profile and trace
/// (their contents are compared separately).
pub fn key(r: &RunReport) -> String {
    let options = if r.effective_options.is_empty() { &r.options } else { &r.effective_options };
    key_with(r, options)
}

/// The key with the options as typed: how reports written before
/// effective options were recorded are matched.
fn key_as_given(r: &RunReport) -> String {
    key_with(r, &r.options)
}

fn key_with(r: &RunReport, options: &std::collections::BTreeMap<String, String>) -> String {
    key_parts(r, options, Some(r.seed))
}

/// The configuration without its seed: runs that differ only by seed form
/// one group, compared together.
pub fn group_key(r: &RunReport) -> String {
    let options = if r.effective_options.is_empty() { &r.options } else { &r.effective_options };
    key_parts(r, options, None)
}

fn key_parts(r: &RunReport, options: &std::collections::BTreeMap<String, String>, seed: Option<u64>) -> String {
    let opts: Vec<String> = options.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} · {} · {}{} · {} clients · {}s · {} Hz{} · {}{}{}{}{}",
        r.algorithm,
        r.profile,
        r.trace,
        seed.map_or(String::new(), |s| format!(" · seed {s}")),
        r.clients,
        r.duration_s,
        r.tick_hz,
        {
            let rates: Vec<String> = r.render_hz.iter().map(|h| h.to_string()).collect();
            if r.render_hz.iter().all(|&h| h == 60) {
                String::new()
            } else {
                format!(" · render {}", rates.join(","))
            }
        },
        r.transport,
        if opts.is_empty() { String::new() } else { format!(" · {}", opts.join(" ")) },
        if r.clocks.is_empty() { String::new() } else { format!(" · clocks {}", r.clocks.join(",")) },
        if r.deliver_corrupted { " · corrupted delivered" } else { "" },
        r.world_suffix()
    )
}

/// How much worse each metric may get before it counts: a fraction of the
/// baseline (0.05 = 5%), per metric or the default.
#[derive(Clone, Debug, PartialEq)]
pub struct Tolerances {
    /// For metrics not named.
    pub default: f64,
    /// By metric name.
    pub per_metric: std::collections::BTreeMap<String, f64>,
    /// Absolute floors by metric name, in the metric's unit (the others
    /// keep [`Watched::floor`]).
    pub floors: std::collections::BTreeMap<String, f64>,
}

impl Tolerances {
    /// The same tolerance for every metric.
    pub fn uniform(fraction: f64) -> Tolerances {
        Tolerances { default: fraction, per_metric: Default::default(), floors: Default::default() }
    }

    /// A gate file: `tolerance = 5` (percent, every metric), a `[metrics]`
    /// table of per-metric percentages and a `[floors]` table of absolute
    /// floors in each metric's unit.
    pub fn parse(text: &str, source: &crate::error::Source) -> Result<Tolerances, crate::error::InputError> {
        use crate::error::InputError;
        let line_of = |key: &str| crate::error::line_of_key(text, key, 0);
        let t: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map(|s| crate::error::line_at(text, s.start));
            InputError::at(source, line, format!("invalid TOML: {}", e.message()))
        })?;
        let pct = |key: &str, v: &toml::Value| -> Result<f64, InputError> {
            let x = v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
            x.filter(|x| (0.0..=10_000.0).contains(x)).map(|x| x / 100.0).ok_or_else(|| {
                InputError::at(source, line_of(key), format!("`{key}`: expected a percentage 0..=10000"))
            })
        };
        let mut out = Tolerances::uniform(0.05);
        let mut errors = Vec::new();
        for (k, v) in &t {
            match k.as_str() {
                "tolerance" => match pct(k, v) {
                    Ok(x) => out.default = x,
                    Err(e) => errors.push(e),
                },
                "metrics" | "floors" => {
                    let Some(tbl) = v.as_table() else {
                        errors.push(InputError::at(
                            source,
                            line_of(k),
                            format!("`{k}`: expected a table keyed by metric"),
                        ));
                        continue;
                    };
                    for (m, v) in tbl {
                        if watched(m).is_none() {
                            let names = WATCHED.iter().map(|w| w.name);
                            let hint = match crate::error::nearest(m, names.clone()) {
                                Some(n) => format!("did you mean `{n}`?"),
                                None => format!("expected one of {}", names.collect::<Vec<_>>().join(", ")),
                            };
                            errors.push(InputError::at(source, line_of(m), format!("unknown metric `{m}`: {hint}")));
                            continue;
                        }
                        if k == "metrics" {
                            match pct(m, v) {
                                Ok(x) => {
                                    out.per_metric.insert(m.clone(), x);
                                }
                                Err(e) => errors.push(e),
                            }
                        } else {
                            let x = v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
                            match x.filter(|x| x.is_finite() && *x >= 0.0) {
                                Some(x) => {
                                    out.floors.insert(m.clone(), x);
                                }
                                None => errors.push(InputError::at(
                                    source,
                                    line_of(m),
                                    format!("`{m}`: expected a floor ≥ 0 in its unit"),
                                )),
                            }
                        }
                    }
                }
                _ => {
                    let hint = match crate::error::nearest(k, ["tolerance", "metrics", "floors"]) {
                        Some(n) => format!("did you mean `{n}`?"),
                        None => "expected tolerance, [metrics] or [floors]".into(),
                    };
                    errors.push(InputError::at(source, line_of(k), format!("unknown key `{k}`: {hint}")))
                }
            }
        }
        if let Some(e) = InputError::all(errors) {
            return Err(e);
        }
        Ok(out)
    }

    /// The tolerance of `metric`.
    pub fn of(&self, metric: &str) -> f64 {
        self.per_metric.get(metric).copied().unwrap_or(self.default)
    }

    /// The absolute floor of `w`.
    pub fn floor_of(&self, w: &Watched) -> f64 {
        self.floors.get(w.name).copied().unwrap_or(w.floor)
    }
}

/// Compares `new` with `base` under `tol`; `only` restricts to the named
/// metrics. Runs are matched by configuration and seed; runs that differ
/// only by seed are judged together: with two or more seeds a metric
/// regresses only when its mean got worse beyond the tolerance *and* the
/// mean per-seed difference is outside its 95% interval (Student's t on
/// the paired differences) — worse on average but within the spread is
/// listed as within noise, not failed.
pub fn diff(base: &Report, new: &Report, tol: &Tolerances, only: &[String]) -> Diff {
    let mut d = Diff::default();
    let watched: Vec<&Watched> =
        WATCHED.iter().filter(|w| only.is_empty() || only.iter().any(|o| o == w.name)).collect();
    // Matched pairs, grouped by configuration without the seed, in report
    // order.
    let mut groups: Vec<(String, Vec<(&RunReport, &RunReport)>)> = Vec::new();
    let mut group_index: std::collections::BTreeMap<String, usize> = Default::default();
    // The new report's runs by key (first wins), for lookups in O(log n).
    let mut by_key: std::collections::BTreeMap<String, &RunReport> = Default::default();
    let mut by_given: std::collections::BTreeMap<String, &RunReport> = Default::default();
    for n in &new.runs {
        by_key.entry(key(n)).or_insert(n);
        by_given.entry(key_as_given(n)).or_insert(n);
    }
    let (base_keys, base_given): (std::collections::BTreeSet<String>, std::collections::BTreeSet<String>) = (
        base.runs.iter().map(key).collect(),
        base.runs.iter().filter(|b| b.effective_options.is_empty()).map(key_as_given).collect(),
    );
    for b in &base.runs {
        let k = key(b);
        let found = if b.effective_options.is_empty() {
            by_given.get(&key_as_given(b)).copied()
        } else {
            by_key.get(&k).copied()
        };
        let Some(n) = found else {
            d.missing.push(k);
            continue;
        };
        let differs = |x: &str, y: &str| !x.is_empty() && !y.is_empty() && x != y;
        if differs(&b.network_digest, &n.network_digest) {
            d.inputs_changed.push((k, "network changed"));
            continue;
        }
        if differs(&b.trace_digest, &n.trace_digest) {
            d.inputs_changed.push((k, "trace changed"));
            continue;
        }
        if !b.game.same_game(&n.game) {
            d.inputs_changed.push((k, "game's numbers changed"));
            continue;
        }
        d.compared += 1;
        let g = group_key(b);
        match group_index.get(&g) {
            Some(&i) => groups[i].1.push((b, n)),
            None => {
                group_index.insert(g.clone(), groups.len());
                groups.push((g, vec![(b, n)]));
            }
        }
    }
    // Shapes are of input latency: compared unless --metric left it out.
    let compare_shapes = only.is_empty() || only.iter().any(|m| m.starts_with("input_latency"));
    // Per algorithm and metric: configurations compared, worse, and better,
    // at printed precision.
    let mut moved: std::collections::BTreeMap<(&str, usize), (usize, usize, usize)> = Default::default();
    for (g, pairs) in &groups {
        let label = if pairs.len() == 1 { key(pairs[0].0) } else { format!("{g} · {} seeds", pairs.len()) };
        d.groups.push((label.clone(), pairs.len()));
        if compare_shapes {
            match shapes(&label, pairs) {
                Ok(found) => d.shapes.extend(found),
                Err(why) => d.unreadable_shapes.push((label.clone(), why)),
            }
        }
        for (wi, w) in watched.iter().enumerate() {
            let tally = moved.entry((pairs[0].0.algorithm.as_str(), wi)).or_default();
            tally.0 += 1;
            let xs: Vec<f64> = pairs.iter().map(|(b, _)| (w.get)(b)).collect();
            let ys: Vec<f64> = pairs.iter().map(|(_, n)| (w.get)(n)).collect();
            let n = xs.len() as f64;
            let (mb, mn) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
            if w.rounded(mb) == w.rounded(mn) && xs.iter().zip(&ys).all(|(x, y)| w.rounded(*x) == w.rounded(*y)) {
                continue;
            }
            let diffs: Vec<f64> = ys.iter().zip(&xs).map(|(y, x)| y - x).collect();
            let ci = if pairs.len() > 1 { super::table::spread(&diffs).and_then(|s| s.1) } else { None };
            let exact = ["desyncs", "interest.leaks"].contains(&w.name);
            let worse = w.rounded(mn) > w.rounded(mb) || (exact && ys.iter().zip(&xs).any(|(y, x)| y > x));
            let past_tolerance = mn > mb * (1.0 + tol.of(w.name));
            let beyond = exact || (past_tolerance && mn > mb * (1.0 + tol.of(w.name)) + tol.floor_of(w));
            let significant = exact || ci.is_none_or(|h| mn - mb > h);
            let tally = moved.entry((pairs[0].0.algorithm.as_str(), wi)).or_default();
            if worse {
                tally.1 += 1;
            } else if w.rounded(mn) < w.rounded(mb) {
                tally.2 += 1;
            }
            let c = Change {
                run: label.clone(),
                seeds: pairs.len(),
                ci,
                metric: w.name,
                base: mb,
                new: mn,
                regression: worse && beyond && significant,
                by_floor: worse && past_tolerance && !beyond,
            };
            if worse && beyond && !significant {
                d.within_noise.push(c.clone());
            } else if worse && !beyond {
                d.within_tolerance.push(c.clone());
            }
            d.changes.push(c);
        }
    }
    for (&(algorithm, wi), &(compared, worse, _)) in &moved {
        if compared >= 2 && worse == compared {
            d.consistent.push((algorithm.to_string(), watched[wi].name, worse));
        }
    }
    for n in &new.runs {
        let k = key(n);
        if !base_keys.contains(&k) && !base_given.contains(&key_as_given(n)) {
            d.added.push(k);
        }
    }
    d
}

/// The shape distances of a configuration's own and remote input latency,
/// each side's seeds merged; none when a run lacks its histograms (older
/// reports) or a side has no values; an error when one does not decode.
fn shapes(label: &str, pairs: &[(&RunReport, &RunReport)]) -> Result<Vec<Shape>, String> {
    use crate::metrics::stats::{ks_distance, Distribution};
    let merged = |runs: &mut dyn Iterator<Item = &RunReport>, own: bool| -> Result<Option<Distribution>, String> {
        let mut all = Distribution::default();
        for r in runs {
            let Some(h) = r.metrics.latency_histograms.as_ref() else { return Ok(None) };
            let text = if own { &h.own } else { &h.remote };
            let side = if own { "own" } else { "remote" };
            all.merge(
                &Distribution::decode(text).map_err(|e| format!("seed {}: latency_histograms.{side}: {e}", r.seed))?,
            );
        }
        Ok(Some(all))
    };
    let mut out = Vec::new();
    for (side, own) in [("own", true), ("remote", false)] {
        let base = merged(&mut pairs.iter().map(|p| p.0), own)?;
        let new = merged(&mut pairs.iter().map(|p| p.1), own)?;
        if let (Some(base), Some(new)) = (base, new) {
            if let Some(ks) = ks_distance(&base, &new) {
                out.push(Shape { run: label.to_string(), side, ks, base: base.stats(1e3), new: new.stats(1e3) });
            }
        }
    }
    Ok(out)
}

/// The diff as JUnit XML (quick-junit): one test case per configuration
/// compared — failed when a metric regressed, with each as the message —
/// and one failed case per baseline run missing from the new report or run
/// on changed inputs (unless those are accepted).
pub fn to_junit(d: &Diff, accept_input_changes: bool) -> String {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("syncbench diff");
    let fail = |msg: String| {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_message(msg);
        s
    };
    for (label, seeds) in &d.groups {
        let worse: Vec<String> = d
            .changes
            .iter()
            .filter(|c| c.regression && &c.run == label)
            .map(|c| format!("{}: {:.4} -> {:.4}", c.metric, c.base, c.new))
            .collect();
        let status = if worse.is_empty() { TestCaseStatus::success() } else { fail(worse.join("; ")) };
        let mut case = TestCase::new(label.clone(), status);
        case.add_property(Property::new("seeds", seeds.to_string()));
        suite.add_test_case(case);
    }
    for k in &d.missing {
        suite.add_test_case(TestCase::new(k.clone(), fail("missing from the new report".into())));
    }
    for (k, why) in &d.inputs_changed {
        let status =
            if accept_input_changes { TestCaseStatus::skipped() } else { fail(format!("{why}: not compared")) };
        suite.add_test_case(TestCase::new(k.clone(), status));
    }
    let mut report = Report::new("syncbench");
    report.add_test_suite(suite);
    report.to_string().unwrap_or_else(|e| format!("<!-- JUnit serialisation failed: {e} -->\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

    #[test]
    fn a_v2_report_keeps_what_its_runs_did_with_corruption() {
        // v2 delivered corrupted packets unless a run said drop_corrupted.
        let v3 = |uplink: &str| {
            let mut r = run(50.0);
            r.uplink = uplink.into();
            Report::new("0", vec![r]).to_json()
        };
        let as_v2 = |json: String, drop: bool| {
            let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
            v["schema"] = "syncbench.report.v2".into();
            if drop {
                v["runs"][0]["drop_corrupted"] = true.into();
            }
            Report::from_json(&v.to_string()).unwrap()
        };
        assert!(as_v2(v3("delay 5ms corrupt 1%"), false).runs[0].deliver_corrupted);
        assert!(!as_v2(v3("delay 5ms corrupt 1%"), true).runs[0].deliver_corrupted);
        assert!(!as_v2(v3("delay 5ms"), false).runs[0].deliver_corrupted);
        assert_eq!(as_v2(v3("delay 5ms"), false).schema, crate::report::SCHEMA);
        let v1 = v3("delay 5ms").replace("syncbench.report.v3", "syncbench.report.v1");
        assert!(Report::from_json(&v1).unwrap_err().contains("regenerate"));
    }

    fn run(latency: f64) -> RunReport {
        let mut m = Metrics::default();
        m.input_latency_ms.own.p50 = latency;
        RunReport {
            index: 0,
            algorithm: "a".into(),
            variant: String::new(),
            profile: "p".into(),
            trace: "t".into(),
            seed: 1,
            clients: 2,
            duration_s: 1.0,
            tick_hz: 60,
            render_hz: vec![60],
            topology: "peer-to-peer".into(),
            uplink: String::new(),
            downlink: String::new(),
            options: Default::default(),
            effective_options: Default::default(),
            network_digest: String::new(),
            trace_digest: String::new(),
            transport: "unreliable".into(),
            mode: "simulated".into(),
            clocks: Vec::new(),
            deliver_corrupted: false,
            game: Default::default(),
            arena: "standard".into(),
            bots: 0,
            aoi: None,
            live: None,
            metrics: m,
            distributions: None,
        }
    }

    #[test]
    fn a_shape_change_the_percentiles_hide_is_reported_beside_them() {
        use crate::metrics::stats::Distribution;
        use crate::metrics::LatencyHistograms;
        let with = |values: &[(u64, usize)]| {
            let mut h = <Distribution>::default();
            for &(v, n) in values {
                (0..n).for_each(|_| h.record(v * 1000));
            }
            let mut r = run(h.stats(1e3).p50);
            r.metrics.input_latency_ms.own = h.stats(1e3);
            r.metrics.latency_histograms = Some(LatencyHistograms { own: h.encode(), remote: h.encode() });
            Report::new("0", vec![r])
        };
        // The same p50, p90, p99 and max: 50% of one and 89% of the other
        // under 15 ms.
        let (base, new) = (with(&[(10, 50), (20, 49), (100, 1)]), with(&[(10, 50), (15, 39), (20, 10), (100, 1)]));
        let d = diff(&base, &new, &Tolerances::uniform(0.05), &[]);
        assert!(d.changes.iter().all(|c| !c.metric.contains("p50") && !c.metric.contains("p99")), "{:?}", d.changes);
        let own = d.shapes.iter().find(|s| s.side == "own").unwrap();
        assert!((own.ks - 0.39).abs() < 1e-9, "{own:?}");
        assert_eq!(own.base.p99, own.new.p99);
        let same = diff(&base, &base, &Tolerances::uniform(0.05), &[]);
        assert!(same.shapes.iter().all(|s| s.ks == 0.0) && same.shapes.len() == 2);
        // Reports without histograms (older ones) have no shapes to compare.
        assert!(diff(&Report::new("0", vec![run(50.0)]), &new, &Tolerances::uniform(0.05), &[]).shapes.is_empty());
        // --metric without latency leaves them out; an edited one is named.
        assert!(diff(&base, &new, &Tolerances::uniform(0.05), &["desyncs".into()]).shapes.is_empty());
        let mut edited = new.clone();
        edited.runs[0].metrics.latency_histograms.as_mut().unwrap().own = "HISTFAAAA".into();
        let d = diff(&base, &edited, &Tolerances::uniform(0.05), &[]);
        assert!(d.shapes.is_empty() && d.unreadable_shapes.len() == 1, "{:?}", d.unreadable_shapes);
    }

    #[test]
    fn identical_reports_pass_and_an_injected_regression_fails() {
        let base = Report::new("0", vec![run(50.0)]);
        assert!(!diff(&base, &base, &Tolerances::uniform(0.05), &[]).regressed());
        let worse = Report::new("0", vec![run(60.0)]);
        let d = diff(&base, &worse, &Tolerances::uniform(0.05), &[]);
        assert!(d.regressed());
        assert_eq!(d.changes[0].metric, "latency.own.p50");
        let slightly = Report::new("0", vec![run(51.0)]);
        assert!(!diff(&base, &slightly, &Tolerances::uniform(0.05), &[]).regressed(), "within 5%");
        let better = Report::new("0", vec![run(40.0)]);
        assert!(!diff(&base, &better, &Tolerances::uniform(0.05), &[]).regressed());
        let empty = Report::new("0", vec![]);
        assert!(diff(&base, &empty, &Tolerances::uniform(0.05), &[]).regressed(), "a missing run is a regression");
    }

    fn snaps(algorithm: &str, trace: &str, per_min: f64) -> RunReport {
        let mut r = run(50.0);
        r.algorithm = algorithm.into();
        r.trace = trace.into();
        r.metrics.snaps.per_client_per_min = per_min;
        r
    }

    #[test]
    fn a_gate_file_with_several_mistakes_names_every_one_in_one_run() {
        let src = crate::error::Source::File("gate.toml".into());
        let text = "tolerence = 5\n[metrics]\n\"snaps.per_client_mn\" = 25\n\"latency.own.p99\" = -3\n";
        let e = Tolerances::parse(text, &src).unwrap_err().to_string();
        assert_eq!(e.lines().count(), 3, "{e}");
        assert!(e.contains("gate.toml:1: unknown key `tolerence`: did you mean `tolerance`?"), "{e}");
        assert!(
            e.contains("gate.toml:3: unknown metric `snaps.per_client_mn`: did you mean `snaps.per_client_min`?"),
            "{e}"
        );
        assert!(e.contains("gate.toml:4: `latency.own.p99`: expected a percentage"), "{e}");
        // An empty key is on its own line, not the first.
        let e = Tolerances::parse("tolerance = 5\n[metrics]\n# none yet\n\"\" = 5\n", &src).unwrap_err().to_string();
        assert!(e.contains("gate.toml:4: unknown metric ``"), "{e}");
    }

    #[test]
    fn a_floor_set_in_the_gate_file_decides_and_is_named() {
        let src = crate::error::Source::BuiltIn("test".into());
        let base = Report::new("0", vec![snaps("a", "t", 0.0)]);
        let new = Report::new("0", vec![snaps("a", "t", 0.9)]);
        // Default floor 1 event: within, and the floor decided it.
        let d = diff(&base, &new, &Tolerances::uniform(0.05), &[]);
        assert!(!d.regressed());
        assert!(d.within_tolerance[0].by_floor, "{:?}", d.within_tolerance);
        // A floor of 0.1 in the gate file: a regression.
        let tol = Tolerances::parse("tolerance = 5\n[floors]\n\"snaps.per_client_min\" = 0.1\n", &src).unwrap();
        assert!(diff(&base, &new, &tol, &[]).regressed());
        let bad = Tolerances::parse("[floors]\n\"snaps.per_min\" = 1\n", &src).unwrap_err().to_string();
        assert!(bad.contains(":2:") && bad.contains("unknown metric"), "{bad}");
        let negative = Tolerances::parse("[floors]\n\"corrections\" = -1\n", &src).unwrap_err().to_string();
        assert!(negative.contains("floor ≥ 0"), "{negative}");
    }

    #[test]
    fn values_equal_at_the_printed_precision_are_no_change() {
        let base = Report::new("0", vec![run(50.0)]);
        let new = Report::new("0", vec![run(50.04)]);
        let d = diff(&base, &new, &Tolerances::uniform(0.0), &[]);
        assert!(d.changes.is_empty(), "{:?}", d.changes);
    }

    #[test]
    fn a_metric_worse_in_every_configuration_of_an_algorithm_is_a_shift() {
        let traces = ["t1", "t2", "t3", "t4", "t5"];
        let base = Report::new("0", traces.iter().map(|t| snaps("a", t, 0.0)).chain([snaps("b", "t1", 0.0)]).collect());
        // Each move under the floor; `a` worse in all five, `b` unchanged.
        let new = Report::new("0", traces.iter().map(|t| snaps("a", t, 0.5)).chain([snaps("b", "t1", 0.0)]).collect());
        let d = diff(&base, &new, &Tolerances::uniform(0.05), &[]);
        assert_eq!(d.consistent, vec![("a".to_string(), "snaps.per_client_min", 5)]);
        assert!(d.regressed(), "five of five worse fails");
        // Four of five: noted, not failed.
        let mut mixed = new.clone();
        mixed.runs[4].metrics.snaps.per_client_per_min = 0.0;
        let d = diff(&base, &mixed, &Tolerances::uniform(0.05), &[]);
        assert!(d.consistent.is_empty() && !d.regressed());
    }
}
