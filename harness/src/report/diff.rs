//! `syncbench diff`: compares two reports run by run and flags quality
//! regressions beyond a tolerance.
//!
//! Runs are matched by their configuration (algorithm, profile, trace,
//! seed, clients, duration, tick rate, transport, options). Every metric
//! compared here is "lower is better"; a metric regressed when `new > base
//! · (1 + tolerance) + floor`, the floor absorbing noise around zero (1 mm,
//! 0.5 ms, 1 B/s, one event). Desyncs regress on any increase. Runs that
//! disappeared count as regressions; new runs are listed.

use super::{Report, RunReport};

/// A metric the gate watches.
pub struct Watched {
    /// Name shown and selectable with `--metric`.
    pub name: &'static str,
    /// How to read it.
    pub get: fn(&RunReport) -> f64,
    /// Absolute slack.
    pub floor: f64,
}

/// The quality metrics (divergence, latency, bandwidth, corrections,
/// freezes and stalls, snap events, impossible screens, input fidelity,
/// desyncs; leaks and the longest unaware wait for runs with `--aoi`).
/// Desyncs and leaks regress on any increase.
pub const WATCHED: &[Watched] = &[
    Watched { name: "divergence.own.mean", get: |r| r.metrics.divergence_m.own.mean, floor: 0.001 },
    Watched { name: "divergence.remote.mean", get: |r| r.metrics.divergence_m.remote.mean, floor: 0.001 },
    Watched { name: "divergence.own.p99", get: |r| r.metrics.divergence_m.own.p99, floor: 0.001 },
    Watched { name: "divergence.remote.p99", get: |r| r.metrics.divergence_m.remote.p99, floor: 0.001 },
    Watched { name: "ideal_divergence.own.mean", get: |r| r.metrics.ideal_divergence_m.own.mean, floor: 0.001 },
    Watched { name: "ideal_divergence.remote.mean", get: |r| r.metrics.ideal_divergence_m.remote.mean, floor: 0.001 },
    Watched { name: "latency.own.p50", get: |r| r.metrics.input_latency_ms.own.p50, floor: 0.5 },
    Watched { name: "latency.own.p99", get: |r| r.metrics.input_latency_ms.own.p99, floor: 0.5 },
    Watched { name: "latency.remote.p50", get: |r| r.metrics.input_latency_ms.remote.p50, floor: 0.5 },
    Watched { name: "latency.remote.p99", get: |r| r.metrics.input_latency_ms.remote.p99, floor: 0.5 },
    Watched { name: "latency.own.unshown_pct", get: |r| r.metrics.input_changes_unshown_pct.own, floor: 0.1 },
    Watched { name: "latency.remote.unshown_pct", get: |r| r.metrics.input_changes_unshown_pct.remote, floor: 0.1 },
    Watched { name: "bandwidth.up", get: |r| r.metrics.bandwidth.up_bytes_per_s, floor: 1.0 },
    Watched { name: "bandwidth.down", get: |r| r.metrics.bandwidth.down_bytes_per_s, floor: 1.0 },
    Watched { name: "corrections", get: |r| r.metrics.corrections as f64, floor: 1.0 },
    Watched { name: "stalls.frozen_ms", get: |r| r.metrics.stalls.freeze_ms_per_client, floor: 1.0 },
    Watched { name: "stalls.stalled_ms", get: |r| r.metrics.stalls.stalled_ms_per_client, floor: 1.0 },
    Watched { name: "snaps.per_client_min", get: |r| r.metrics.snaps.per_client_per_min, floor: 1.0 },
    Watched { name: "impossible.share", get: |r| r.metrics.impossible.share, floor: 0.0001 },
    Watched { name: "inputs.repeated_per_min", get: |r| r.metrics.input_fidelity.repeated_per_min, floor: 1.0 },
    Watched { name: "inputs.dropped_per_min", get: |r| r.metrics.input_fidelity.dropped_per_min, floor: 1.0 },
    Watched { name: "desyncs", get: |r| r.metrics.desyncs as f64, floor: 0.0 },
    Watched {
        name: "interest.leaks",
        get: |r| r.metrics.interest.as_ref().map_or(0.0, |i| i.leaks as f64),
        floor: 0.0,
    },
    Watched {
        name: "interest.longest_unaware_ms",
        get: |r| r.metrics.interest.as_ref().map_or(0.0, |i| i.longest_unaware_ms),
        floor: 1.0,
    },
];

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
}

/// The comparison.
#[derive(Clone, Debug, Default)]
pub struct Diff {
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
}

impl Diff {
    /// Whether anything regressed.
    pub fn regressed(&self) -> bool {
        !self.missing.is_empty() || self.changes.iter().any(|c| c.regression)
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
}

impl Tolerances {
    /// The same tolerance for every metric.
    pub fn uniform(fraction: f64) -> Tolerances {
        Tolerances { default: fraction, per_metric: Default::default() }
    }

    /// A gate file: `tolerance = 5` (percent, every metric) and a
    /// `[metrics]` table of per-metric percentages.
    pub fn parse(text: &str, source: &crate::error::Source) -> Result<Tolerances, crate::error::InputError> {
        use crate::error::InputError;
        let line_of = |key: &str| {
            text.lines().position(|l| l.trim_start().trim_start_matches('"').starts_with(key)).map(|i| i + 1)
        };
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
        for (k, v) in &t {
            match k.as_str() {
                "tolerance" => out.default = pct(k, v)?,
                "metrics" => {
                    let tbl = v.as_table().ok_or_else(|| {
                        InputError::at(source, line_of(k), "`metrics`: expected a table of percentages")
                    })?;
                    for (m, v) in tbl {
                        if !WATCHED.iter().any(|w| w.name == m) {
                            let names: Vec<&str> = WATCHED.iter().map(|w| w.name).collect();
                            return Err(InputError::at(
                                source,
                                line_of(m),
                                format!("unknown metric `{m}`: expected one of {}", names.join(", ")),
                            ));
                        }
                        out.per_metric.insert(m.clone(), pct(m, v)?);
                    }
                }
                _ => {
                    return Err(InputError::at(
                        source,
                        line_of(k),
                        format!("unknown key `{k}`: expected tolerance or [metrics]"),
                    ))
                }
            }
        }
        Ok(out)
    }

    /// The tolerance of `metric`.
    pub fn of(&self, metric: &str) -> f64 {
        self.per_metric.get(metric).copied().unwrap_or(self.default)
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
    for (g, pairs) in &groups {
        let label = if pairs.len() == 1 { key(pairs[0].0) } else { format!("{g} · {} seeds", pairs.len()) };
        d.groups.push((label.clone(), pairs.len()));
        for w in &watched {
            let xs: Vec<f64> = pairs.iter().map(|(b, _)| (w.get)(b)).collect();
            let ys: Vec<f64> = pairs.iter().map(|(_, n)| (w.get)(n)).collect();
            if xs == ys {
                continue;
            }
            let n = xs.len() as f64;
            let (mb, mn) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
            let diffs: Vec<f64> = ys.iter().zip(&xs).map(|(y, x)| y - x).collect();
            let ci = if pairs.len() > 1 { super::table::spread(&diffs).and_then(|s| s.1) } else { None };
            let exact = ["desyncs", "interest.leaks"].contains(&w.name);
            let worse = mn > mb || (exact && ys.iter().zip(&xs).any(|(y, x)| y > x));
            let beyond = exact || mn > mb * (1.0 + tol.of(w.name)) + w.floor;
            let significant = exact || ci.is_none_or(|h| mn - mb > h);
            let c = Change {
                run: label.clone(),
                seeds: pairs.len(),
                ci,
                metric: w.name,
                base: mb,
                new: mn,
                regression: worse && beyond && significant,
            };
            if worse && beyond && !significant {
                d.within_noise.push(c.clone());
            } else if worse && !beyond {
                d.within_tolerance.push(c.clone());
            }
            d.changes.push(c);
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
        }
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
}
